package bundle

import (
	"bytes"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/bundlectl/bundlectl/internal/jsspace"
)

// Claude Code (2.1.332) reads front matter that is not valid YAML a second
// time, after quoting values on a line of their own: each line
// "key: value" (key of ASCII letters, "_" and "-"; JavaScript's \s after
// the colon; a value that starts with no white space) whose value is not
// already in quotes nor a flow list, and that holds one of {}[]*&#!|>%@`
// or ": ", becomes key: "value" (with \ and " escaped), and tabs that
// start a line become two spaces each. Front matter that fails that
// second reading too is no front matter at all, and the document still
// loads: an agent then gets every tool of the session.
//
// bundlectl reads a Claude Code command, agent or output style the same
// way when its front matter fails for the one reason that makes this
// common (a value holding ": ", which YAML reads as a second mapping), so
// that the review shows the grants Claude Code will act on. Where the
// rule cannot be followed exactly it is not followed, and the document
// is skipped as before: a line terminator JavaScript knows and Go's
// reading would not (\r, U+2028, U+2029), or one Go's YAML reader knows
// and JavaScript's does not (U+0085), and a value that looks like a
// flow list (Claude Code keeps it if its own YAML parser reads a list).

// claudeQuoteSpecial is Claude Code's test for a value to quote.
var claudeQuoteSpecial = lazyRegexp("[{}\\[\\]*&#!|>%@`]|: ")

// ClaudeLenientFrontMatter returns fm (the text between the "---" lines)
// as Claude Code rewrites it for its second reading, and false where
// bundlectl does not follow it: fm did not fail for a value holding ": ",
// or the rule cannot be matched exactly. A host view writes the rewritten
// text in place of fm, so that Claude Code reads it at once, and every
// check of the view reads what Claude Code does.
func ClaudeLenientFrontMatter(fm []byte) ([]byte, bool) {
	var doc yaml.Node
	err := yaml.NewDecoder(bytes.NewReader(fm)).Decode(&doc)
	if err == nil || err == io.EOF || !strings.Contains(err.Error(), "mapping values are not allowed in this context") {
		return nil, false
	}
	s := string(fm)
	if strings.ContainsAny(s, "\r"+lineSeparators) {
		return nil, false
	}
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		key, value, ok := claudeKeyValue(line)
		if !ok {
			continue
		}
		if strings.HasPrefix(value, `"`) && strings.HasSuffix(value, `"`) || strings.HasPrefix(value, "'") && strings.HasSuffix(value, "'") {
			continue
		}
		if strings.HasPrefix(value, "[") && strings.HasSuffix(value, "]") {
			return nil, false // kept or quoted by what Bun's YAML parser makes of it
		}
		if claudeQuoteSpecial().MatchString(value) {
			value = strings.ReplaceAll(strings.ReplaceAll(value, `\`, `\\`), `"`, `\"`)
			lines[i] = key + `: "` + value + `"`
		}
	}
	for i, line := range lines {
		n := len(line) - len(strings.TrimLeft(line, "\t"))
		lines[i] = strings.Repeat("  ", n) + line[n:]
	}
	return []byte(strings.Join(lines, "\n")), true
}

// claudeKeyValue matches Claude Code's /^([a-zA-Z_-]+):\s+(\S.*)$/ on one
// line that holds no line terminator.
func claudeKeyValue(line string) (key, value string, ok bool) {
	i := 0
	for i < len(line) && (line[i] >= 'a' && line[i] <= 'z' || line[i] >= 'A' && line[i] <= 'Z' || line[i] == '_' || line[i] == '-') {
		i++
	}
	if i == 0 || i >= len(line) || line[i] != ':' {
		return "", "", false
	}
	key, rest := line[:i], line[i+1:]
	value = strings.TrimLeftFunc(rest, jsspace.Is)
	if len(value) == len(rest) || value == "" {
		return "", "", false
	}
	return key, value, true
}
