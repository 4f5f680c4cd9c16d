package bundle

import (
	"bytes"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Agent Skills limits.
const (
	MaxSkillDescription   = 1024 // characters
	MaxSkillCompatibility = 500  // characters
)

// skillFields are the front-matter keys the Agent Skills format defines.
var skillFields = map[string]bool{
	"name": true, "description": true, "license": true,
	"compatibility": true, "metadata": true, "allowed-tools": true,
}

// children returns the names of the immediate children of dir in the
// walked tree, in path order.
func children(t *Tree, dir string) []Entry {
	prefix := dir + "/"
	if dir == "" {
		prefix = ""
	}
	var out []Entry
	for _, e := range t.Entries {
		if strings.HasPrefix(e.Path, prefix) && !strings.Contains(e.Path[len(prefix):], "/") {
			out = append(out, e)
		}
	}
	return out
}

// descendants returns the entries below dir, in path order.
func descendants(t *Tree, dir string) []Entry {
	prefix := dir + "/"
	if dir == "" {
		prefix = ""
	}
	var out []Entry
	for _, e := range t.Entries {
		if strings.HasPrefix(e.Path, prefix) {
			out = append(out, e)
		}
	}
	return out
}

// skillFiles lists the SKILL.md files of a skills location: the location
// itself when a manifest named one skill's directory (single), else every immediate child
// directory holding a SKILL.md, never deeper. Paths come only from the
// walked tree, so nothing resolves outside the root.
func skillFiles(b *Bundle, dir string, single bool) (files []Entry, dirNames []string) {
	if e, ok := b.Tree.Lookup(pathJoin(dir, "SKILL.md")); ok && dir != "" && single {
		if e.Kind == KindDir {
			b.Report.Warnf(e.Path, "skill.not-a-file", "SKILL.md is a directory, so this is not a skill")
			return nil, nil
		}
		return []Entry{e}, []string{path.Base(dir)}
	}
	for _, c := range children(b.Tree, dir) {
		if c.Kind != KindDir {
			continue
		}
		rel := c.Path + "/SKILL.md"
		f, ok := b.Tree.Lookup(rel)
		if !ok {
			continue
		}
		if f.Kind == KindDir {
			b.Report.Warnf(rel, "skill.not-a-file", "SKILL.md is a directory, so this is not a skill")
			continue
		}
		files = append(files, f)
		dirNames = append(dirNames, path.Base(c.Path))
	}
	return files, dirNames
}

// CodexSkillDepth is how many directories below a skills location Codex
// looks for a SKILL.md: Codex 0.171 loads skills/a/b/c/d/e/f/SKILL.md and
// not one a directory deeper (internal/agenttest TestCodexNestedSkills).
const CodexSkillDepth = 6

// codexSkillFiles lists the SKILL.md files Codex loads from a skills
// location: every one at most CodexSkillDepth directories below it, the
// location's own included, below a skill's SKILL.md too, and none in a
// directory whose name starts with "." (Codex skips those). Each is a skill
// of its own, named (without a front-matter name) after its directory.
func codexSkillFiles(b *Bundle, dir string) (files []Entry, dirNames []string) {
	for _, e := range descendants(b.Tree, dir) {
		if path.Base(e.Path) != "SKILL.md" {
			continue
		}
		d := path.Dir(e.Path)
		below := ""
		if d != dir && d != "." {
			below = strings.TrimPrefix(d, dir+"/")
			if dir == "" {
				below = d
			}
		}
		if below != "" {
			parts := strings.Split(below, "/")
			if len(parts) > CodexSkillDepth || slices.ContainsFunc(parts, func(p string) bool { return strings.HasPrefix(p, ".") }) {
				continue
			}
		}
		if e.Kind == KindDir {
			b.Report.Warnf(e.Path, "skill.not-a-file", "SKILL.md is a directory, so this is not a skill")
			continue
		}
		name := path.Base(d)
		if d == "." {
			name = b.Name
		}
		files = append(files, e)
		dirNames = append(dirNames, name)
	}
	return files, dirNames
}

// parseSkill reads one SKILL.md. Strict applies the Agent Skills format
// as Agent Plugins requires (name and description required, the name
// equal to the directory, an unknown key skips the skill); otherwise the
// host's reading applies: Claude Code and Codex name a skill by its
// directory when the front matter does not, and give meaning to more keys
// than Agent Skills defines. Either way every key that grants anything is
// recorded in Grants.
func parseSkill(b *Bundle, rel, dirName string, data []byte, strict bool) (Skill, bool) {
	s := Skill{Path: rel}
	fm, found, msg := splitFrontMatter(data)
	if !found && !strict {
		s.Name = dirName
		s.ShellLines = docShellLines(data)
		b.Report.Warnf(rel, "skill.description", "SKILL.md has no front matter, so no description tells the agent when to use it")
		return s, checkComponentName(b, rel, "skill", s.Name)
	}
	if !found || msg != "" {
		if msg == "" {
			msg = "SKILL.md must start with YAML front matter between \"---\" lines"
		}
		b.Report.Skipf(rel, "skill.front-matter", "%s", msg)
		return s, false
	}
	m, msg := parseFrontMatter(fm)
	if msg != "" {
		b.Report.Skipf(rel, "skill.front-matter", "%s", msg)
		return s, false
	}
	keep := true
	skip := func(field, rule, format string, args ...any) {
		p := rel
		if field != "" {
			p = rel + ": " + field
		}
		b.Report.Skipf(p, rule, format, args...)
		keep = false
	}
	for _, k := range m.keys {
		if !skillFields[k] && !hostDocFields()[k] {
			if strict {
				skip(EscapePath(k), "skill.unknown-field", "front matter key %s is part of neither the Agent Skills format nor a host's documented keys", Quote(k))
			} else if _, restriction := restrictionKeys(normalizeKey(k), false); !restriction {
				b.Report.Warnf(rel+": "+EscapePath(k), "skill.unknown-field", "front matter key %s is not one bundlectl knows; it is reviewed as written", Quote(k))
			}
		}
	}
	str := func(field string, dst *string) bool {
		n, ok := m.vals[field]
		if !ok {
			return false
		}
		if n.Kind != yaml.ScalarNode || n.Tag != "!!str" && !(field == "description" && !strict && n.Tag != "!!null") {
			skip(field, "skill.field-type", "%s must be a string", field)
			return false
		}
		*dst = n.Value
		return true
	}
	switch {
	case !str("name", &s.Name):
		if _, present := m.vals["name"]; !present {
			if strict {
				skip("name", "skill.name", "required field name is missing")
			} else {
				s.Name = dirName
			}
		}
	case !checkText(b, rel+": name", s.Name, false):
		keep = false
	case strict:
		if msg := componentNameProblem(s.Name); msg != "" {
			skip("name", "skill.name", "skill name %s %s", Quote(s.Name), msg)
		} else if s.Name != dirName {
			skip("name", "skill.name-mismatch", "skill name %s does not match its directory %s", Quote(s.Name), Quote(dirName))
		}
	default:
		if msg := hostNameProblem(s.Name); msg != "" {
			// Claude Code names a plugin's skill after its directory and
			// shows the front matter's name only; Gemini CLI loads it too.
			// So it loads: review it under its directory's name. Only
			// white space is forgiven: a slash, a colon, a reserved or an
			// overlong name could pass for another plugin's namespace
			// where a host shows or keys on the name, and is skipped.
			spaced := strings.Map(func(r rune) rune {
				if isSpaceRune(r) {
					return '-'
				}
				return r
			}, s.Name)
			if hostNameProblem(spaced) != "" {
				skip("name", "skill.name", "skill name %s %s", Quote(s.Name), msg)
				break
			}
			if hostNameProblem(dirName) != "" {
				skip("name", "skill.name", "skill name %s %s, and so does its directory %s", Quote(s.Name), msg, Quote(dirName))
				break
			}
			b.Report.Warnf(rel+": name", "skill.name", "skill name %s %s: the host shows it as written but names the skill after its directory, so it is reviewed as %s", Quote(s.Name), msg, Quote(dirName))
			s.Name = dirName
		} else if s.Name != dirName {
			b.Report.Warnf(rel+": name", "skill.name-mismatch", "skill name %s differs from its directory %s", Quote(s.Name), Quote(dirName))
		}
	}
	if str("description", &s.Description) {
		// YAML block scalars end in a newline; it is not part of the text.
		s.Description = strings.TrimRight(s.Description, " \t\r\n")
		checkText(b, rel+": description", s.Description, true)
		switch n := utf8.RuneCountInString(s.Description); {
		case strings.TrimSpace(s.Description) == "" && strict:
			skip("description", "skill.description", "description is empty")
		case n > MaxSkillDescription && strict:
			skip("description", "skill.description", "description is %d characters, more than %d", n, MaxSkillDescription)
		}
	} else if _, present := m.vals["description"]; !present {
		if strict {
			skip("description", "skill.description", "required field description is missing")
		} else {
			b.Report.Warnf(rel, "skill.description", "the skill has no description, so nothing tells the agent when to use it")
		}
	}
	if str("license", &s.License) {
		checkText(b, rel+": license", s.License, false)
	}
	if str("compatibility", &s.Compatibility) {
		s.Compatibility = strings.TrimRight(s.Compatibility, " \t\r\n")
		checkText(b, rel+": compatibility", s.Compatibility, true)
		if n := utf8.RuneCountInString(s.Compatibility); strict && (n == 0 || n > MaxSkillCompatibility) {
			skip("compatibility", "skill.compatibility", "compatibility must be 1 to %d characters, not %d", MaxSkillCompatibility, n)
		}
	}
	if n, ok := m.vals["metadata"]; ok {
		md, msg := stringMapNode(n)
		if msg != "" {
			if strict {
				skip("metadata", "skill.field-type", "metadata %s", msg)
			}
		}
		for _, k := range sortedKeys(md) {
			checkText(b, rel+": "+FieldPath("metadata", k), k, false)
			checkText(b, rel+": "+FieldPath("metadata", k), md[k], true)
		}
		if len(md) > 0 {
			s.Metadata = md
		}
	}
	g, ok := readGrants(b, rel, m, "skill:"+s.Name)
	keep = keep && ok
	s.Grants = g
	s.ShellLines = docShellLines(data)
	return s, keep
}

// splitFrontMatter returns the text between a first line "---" and the
// next line "---". found is false when the data does not start with a
// front-matter line at all; msg names a malformed block.
func splitFrontMatter(data []byte) (fm []byte, found bool, msg string) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	first, rest, ok := cutLine(data)
	if strings.TrimRight(string(first), " \t") != "---" {
		return nil, false, ""
	}
	if !ok {
		return nil, true, "front matter is not closed by a \"---\" line"
	}
	start := len(data) - len(rest)
	for off := start; off <= len(data); {
		line, next, more := cutLine(data[off:])
		if strings.TrimRight(string(line), " \t") == "---" {
			return data[start:off], true, ""
		}
		if !more {
			break
		}
		off = len(data) - len(next)
	}
	return nil, true, "front matter is not closed by a \"---\" line"
}

// cutLine splits off the first line (without "\n" or "\r\n").
func cutLine(b []byte) (line, rest []byte, found bool) {
	line, rest, found = bytes.Cut(b, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r")), rest, found
}

// frontMatter is a YAML mapping with keys in document order.
type frontMatter struct {
	keys []string
	vals map[string]*yaml.Node
}

// parseFrontMatter parses YAML front matter that must be a mapping with
// unique string keys. Aliases are refused (no expansion bombs, and what a
// reviewer reads is what is loaded). Messages never echo values.
// lineSeparators are the line ends of YAML 1.1 that YAML 1.2 reads as text.
const lineSeparators = "\u0085\u2028\u2029"

func parseFrontMatter(fm []byte) (frontMatter, string) {
	m := frontMatter{vals: map[string]*yaml.Node{}}
	if !utf8.Valid(fm) {
		return m, "front matter is not valid UTF-8"
	}
	if strings.ContainsAny(string(fm), lineSeparators) {
		// bundlectl's YAML reader (and Codex's) ends a line there;
		// Claude Code's and Gemini CLI's do not, and read what follows
		// as part of the value before it: "tools: Bash" after one is a
		// grant here and description text there.
		return m, "front matter holds a U+0085, U+2028 or U+2029 line separator, which hosts read differently (as a line end, or as text): remove it"
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(fm))
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return m, "front matter is not valid YAML: " + yamlErrorText(err)
	}
	var more yaml.Node
	if err := dec.Decode(&more); err != io.EOF {
		return m, "front matter holds more than one YAML document"
	}
	if doc.Kind == 0 {
		return m, "" // empty front matter
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return m, "front matter is not a single YAML document"
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return m, "front matter must be a YAML mapping"
	}
	if msg := noAliases(root); msg != "" {
		return m, msg
	}
	if msg := noRetypingTags(root); msg != "" {
		return m, msg
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Tag != "!!str" {
			return m, fmt.Sprintf("front matter key at line %d is not a string", k.Line)
		}
		if _, dup := m.vals[k.Value]; dup {
			return m, fmt.Sprintf("front matter key %s occurs more than once (line %d)", Quote(k.Value), k.Line)
		}
		m.keys = append(m.keys, k.Value)
		m.vals[k.Value] = v
	}
	return m, ""
}

func noAliases(n *yaml.Node) string {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return fmt.Sprintf("front matter uses a YAML anchor or alias (line %d); write values out", n.Line)
	}
	for _, c := range n.Content {
		if msg := noAliases(c); msg != "" {
			return msg
		}
	}
	return ""
}

// noRetypingTags refuses a scalar tagged !!null, !!bool, !!int or !!float
// whose text, untagged, reads as something else: "allowed-tools: !!null
// Bash" is no grant to Go's YAML reader and, to Claude Code's (Bun's,
// which ignores the tag), a grant of Bash. Other hosts' readers refuse
// the tag or honour it, so no reading of it holds for every host.
func noRetypingTags(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode && n.Style&yaml.TaggedStyle != 0 {
		switch n.Tag {
		case "!!null", "!!bool", "!!int", "!!float":
			plain := yaml.Node{Kind: yaml.ScalarNode, Value: n.Value}
			if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
				plain.Tag = "!!str"
			}
			if t := plain.ShortTag(); t != n.Tag && !(t == "!!int" && n.Tag == "!!float") {
				return fmt.Sprintf("front matter value at line %d is tagged %s but its text is not one, and hosts differ on which wins (Claude Code reads the text): remove the tag", n.Line, n.Tag)
			}
		}
	}
	for _, c := range n.Content {
		if msg := noRetypingTags(c); msg != "" {
			return msg
		}
	}
	return ""
}

// stringMapNode reads a mapping of scalars. Values may be any non-null
// scalar (metadata such as "version: 1.0" is common) and keep their text.
func stringMapNode(n *yaml.Node) (map[string]string, string) {
	if n.Kind != yaml.MappingNode {
		return nil, "must be a mapping of strings"
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode || v.Tag == "!!null" || k.Tag == "!!null" {
			return nil, fmt.Sprintf("entry at line %d must map a string to a string", k.Line)
		}
		if _, dup := out[k.Value]; dup {
			return nil, fmt.Sprintf("key %s occurs more than once (line %d)", Quote(k.Value), k.Line)
		}
		out[k.Value] = v.Value
	}
	return out, ""
}

// yamlErrorText keeps the position from a YAML error and drops the rest,
// which can quote document text.
func yamlErrorText(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if strings.HasPrefix(msg, "line ") {
		if i := strings.IndexByte(msg, ':'); i > 0 {
			return msg[:i]
		}
	}
	return "syntax error"
}

// FrontMatterDescription returns the description in a document's front
// matter, or "" when it has none (for a catalog reading a snapshot).
func FrontMatterDescription(data []byte) string {
	fm, found, msg := splitFrontMatter(data)
	if !found || msg != "" {
		return ""
	}
	m, msg := parseFrontMatter(fm)
	if msg != "" {
		return ""
	}
	if n, ok := m.vals["description"]; ok && n.Kind == yaml.ScalarNode {
		return strings.TrimRight(n.Value, " \t\r\n")
	}
	return ""
}
