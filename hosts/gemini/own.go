package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// The user's own extensions: which of them Gemini CLI 0.61 loads in a
// session, read as it reads them (packages/cli/src/config/
// extension-manager.ts, extensions/extensionEnablement.ts, config.ts), and
// checked against the real CLI in internal/agenttest
// (TestExecGeminiOwnExtensions).

// installMetadataFile is the record `gemini extensions install` and `link`
// write in an extension's directory; a "link" one sends Gemini CLI to its
// source for the whole extension.
const installMetadataFile = ".gemini-extension-install.json"

// ownExtension is one extension installed in the user's own extensions
// directory that Gemini CLI can load.
type ownExtension struct {
	entry string // the entry's name in the extensions directory
	path  string // that entry
	name  string // the name Gemini CLI knows it by (its manifest's)
}

// extensionNameRe is Gemini CLI's validateName: an extension whose name
// fails it is skipped.
var extensionNameRe = lazyRegexp(`^[a-zA-Z0-9-]+$`)

// ownExtensions lists the extensions in dir (the user's
// <home>/.gemini/extensions) that Gemini CLI would load: every entry that
// is a directory, or a link to one, whose manifest — in the directory, or
// at the source its install record names when that record is a link —
// parses, has a name and a version, and a name Gemini CLI accepts.
func ownExtensions(dir string) ([]ownExtension, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []ownExtension
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			continue
		}
		if name, ok := loadableName(p); ok {
			out = append(out, ownExtension{entry: e.Name(), path: p, name: name})
		}
	}
	return out, nil
}

// loadableName returns the name Gemini CLI loads the extension directory
// dir by, and false when it would skip it.
func loadableName(dir string) (string, bool) {
	effective := effectiveDir(dir)
	if effective == "" {
		return "", false
	}
	data, err := os.ReadFile(filepath.Join(effective, "gemini-extension.json"))
	if err != nil {
		return "", false
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil || !truthy(m["version"]) {
		return "", false
	}
	name, ok := m["name"].(string)
	if !ok || !extensionNameRe().MatchString(name) {
		return "", false
	}
	return name, true
}

// effectiveDir is the directory Gemini CLI loads the extension directory
// dir from: the "source" of a "link" install record, else dir; "" for a
// link whose source is not a string.
func effectiveDir(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, installMetadataFile))
	if err != nil {
		return dir
	}
	var m struct {
		Type   any `json:"type"`
		Source any `json:"source"`
	}
	// By exact name, as Gemini CLI's JSON.parse reads them: a "Type" is
	// no type, and must not send bundlectl to read another directory
	// than the one Gemini CLI loads.
	if jsonobj.UnmarshalExact(data, &m) == nil && m.Type == "link" {
		src, ok := m.Source.(string)
		if !ok {
			return ""
		}
		return src
	}
	return dir
}

// truthy is JavaScript's truth of a JSON value.
func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		return v != ""
	case float64:
		return v != 0
	}
	return true
}

// extArg is one -e/--extensions argument of the user's: as written (with
// its value when that is the next argument), and the value Gemini CLI's
// parser takes from it, if any.
type extArg struct {
	Arg      string
	Value    string
	HasValue bool
	// At are the indexes of the argument (and its value) in the agent's
	// arguments, for a hint without them; nil for a short group (-ye X),
	// whose other letters are other options.
	At []int
}

// names is the value split at commas and trimmed, as Gemini CLI's
// coerceCommaSeparated splits it.
func (a extArg) names() []string {
	var out []string
	for _, s := range strings.Split(a.Value, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// extensionsArgs reads the user's -e/--extensions arguments as Gemini
// CLI's parser (yargs-parser) does: -e X, -e=X, --extensions X,
// --extensions=X, --e X, and a short group ending in e (-ye X). Arguments
// after "--" are the prompt's. A value is never an argument that starts
// with "-" (but a negative number): yargs reads that as an option, and
// Gemini CLI refuses the -e left without a value.
func extensionsArgs(args []string) []extArg {
	var out []extArg
	// next takes the argument after args[i] as the option's value, as
	// yargs-parser's eatArray does.
	next := func(i int, arg string) (extArg, int) {
		if i+1 < len(args) {
			n := args[i+1]
			if !strings.HasPrefix(n, "-") || negativeRe().MatchString(n) {
				return extArg{Arg: arg + " " + n, Value: n, HasValue: true, At: []int{i, i + 1}}, i + 1
			}
		}
		return extArg{Arg: arg, At: []int{i}}, i
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' || negativeRe().MatchString(a) || strings.HasPrefix(a, "---") {
			continue // "-" alone is a positional argument to yargs too
		}
		if strings.HasPrefix(a, "--") {
			k, v, eq := strings.Cut(a[2:], "=")
			switch {
			case k != "extensions" && k != "e":
			case eq:
				out = append(out, extArg{Arg: a, Value: v, HasValue: true, At: []int{i}})
			default:
				var e extArg
				e, i = next(i, a)
				out = append(out, e)
			}
			continue
		}
		// A short group (-ye X): a value for each e among its letters, and
		// the next argument for an e that ends it.
		last, open := shortGroup(a, func(letter rune, value string, hasValue bool) {
			if letter == 'e' {
				out = append(out, extArg{Arg: a, Value: value, HasValue: hasValue})
			}
		})
		if open && last == 'e' {
			var e extArg
			e, i = next(i, a)
			if len([]rune(a)) > 2 {
				e.At = nil
			}
			out = append(out, e)
		}
	}
	return out
}

// extensionsList is the list Gemini CLI makes of the -e arguments
// (coerceCommaSeparated): empty when there is none; a single empty value
// stays, and enables no extension.
func extensionsList(args []extArg) []string {
	var vals []string
	for _, a := range args {
		if a.HasValue {
			vals = append(vals, a.Value)
		}
	}
	if len(vals) == 1 && vals[0] == "" {
		return []string{""}
	}
	var out []string
	for _, a := range args {
		out = append(out, a.names()...)
	}
	return out
}

// shortGroup walks a group of short options (-abc) as yargs-parser does:
// it calls set for each letter but the last, with the value the letter
// takes there (the rest after "=", a lone "-", a number, or what follows a
// non-word character), or none (hasValue false: its default); and it
// returns the last letter, open when that is an option of its own, which
// may take the next argument.
func shortGroup(a string, set func(letter rune, value string, hasValue bool)) (last rune, open bool) {
	r := []rune(a)
	letters := r[1 : len(r)-1]
	for j := 0; j < len(letters); j++ {
		rest := string(r[j+2:])
		switch {
		case j+1 < len(letters) && letters[j+1] == '=':
			set(letters[j], string(r[j+3:]), true)
			return 0, false
		case rest == "-":
			set(letters[j], rest, true)
		case isLetter(letters[j]) && numberRe().MatchString(rest) || j+1 < len(letters) && !isWord(letters[j+1]):
			set(letters[j], rest, true)
			return 0, false
		default:
			set(letters[j], "", false)
		}
	}
	return r[len(r)-1], r[len(r)-1] != '-'
}

var (
	negativeRe = lazyRegexp(`^-+([0-9]+(\.[0-9]+)?|\.[0-9]+)$`)
	numberRe   = lazyRegexp(`^-?\d+(\.\d*)?(e-?\d+)?$`)
)

func isLetter(c rune) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isWord(c rune) bool   { return isLetter(c) || c >= '0' && c <= '9' || c == '_' }

// selects reports whether Gemini CLI's -e list (non-empty) enables the
// extension name: "none" alone enables none; otherwise the names listed,
// in any case.
func selects(list []string, name string) bool {
	if len(list) == 1 && strings.EqualFold(list[0], "none") {
		return false
	}
	for _, l := range list {
		if strings.EqualFold(l, name) {
			return true
		}
	}
	return false
}

// enablement is Gemini CLI's extension-enablement.json: per extension
// name, override rules ("/path/", "/path/*", "!…"), the last that matches
// the working directory deciding. A file that does not read as that shape
// is ignored whole (every extension is enabled), as Gemini CLI ignores it.
type enablement map[string][]string

func readEnablement(path string) enablement {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil || m == nil {
		return nil
	}
	out := enablement{}
	for k, raw := range m {
		var e struct {
			Overrides *[]string `json:"overrides"`
		}
		// By exact name, as Gemini CLI's schema reads it: an "Overrides"
		// is no rule, and must not make bundlectl take an extension
		// Gemini CLI loads for one it does not.
		if jsonobj.UnmarshalExact(raw, &e) != nil || e.Overrides == nil || strings.TrimSpace(string(raw))[0] != '{' {
			return nil
		}
		out[k] = *e.Overrides
	}
	return out
}

// enabled reports whether the rules enable the extension name in the
// working directory cwd (isEnabled: enabled unless a rule says otherwise;
// the name as written, case and all).
func (en enablement) enabled(name, cwd string) bool {
	p := slashed(cwd)
	on := true
	for _, rule := range en[name] {
		disable := strings.HasPrefix(rule, "!")
		base := strings.TrimPrefix(rule, "!")
		if re := globRegexp(base); re != nil && re.MatchString(p) {
			on = !disable
		}
	}
	return on
}

// slashed is Gemini CLI's ensureLeadingAndTrailingSlash.
func slashed(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p
}

// globRegexp is Gemini CLI's globToRegex: the rule's text literal but for
// "*", and "*" (with the "/" before it) an optional "(/.*)". JavaScript's
// "." does not match a line terminator.
func globRegexp(glob string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(glob); {
		c, size := utf8.DecodeRuneInString(glob[i:])
		switch {
		case c == '/' && strings.HasPrefix(glob[i+1:], "*"):
			b.WriteString(`(/[^\n\r\x{2028}\x{2029}]*)?`)
			i += 2
			continue
		case c == '*':
			b.WriteString(`([^\n\r\x{2028}\x{2029}]*)?`)
		case strings.ContainsRune(`.+?^${}()|[]\`, c):
			b.WriteString(`\` + string(c))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
		i += size
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil
	}
	return re
}
