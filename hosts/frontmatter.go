package hosts

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"unicode"

	"github.com/bundlectl/bundlectl/bundle"
	"go.yaml.in/yaml/v3"

	"github.com/bundlectl/bundlectl/internal/jsspace"
)

// byteOrderMark is dropped from the start of a document before its front
// matter is looked for, by bundlectl's review and by the hosts.
var byteOrderMark = []byte("\xef\xbb\xbf")

// hostFrontMatter is how Claude Code finds a document's front matter (read
// from its installed CLI, after it drops a byte-order mark): "---", any
// white space by JavaScript's \s up to a line feed, then the text up to the
// next "---", wherever that stands.
var hostFrontMatter = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^---[` + jsspace.Class + `]*\n((?s:.*?))---`)
})

// FrontMatterAgrees reports whether a host that finds front matter as
// Claude Code does reads the same front matter from doc as bundlectl's
// review: none, or the same text (the host may skip blank lines at its
// start). When it does not — white space after the opening "---" that
// bundlectl does not take for a line end, or a "---" inside a value — the
// host would act on keys the review did not show (hooks, allowed tools),
// so the document must not be loaded.
func FrontMatterAgrees(doc []byte) bool {
	doc = bytes.TrimPrefix(doc, byteOrderMark)
	fm, _, ok := splitFrontMatter(doc)
	if !lineDelimitedAgrees(doc, fm, ok) {
		return false
	}
	m := hostFrontMatter().FindSubmatchIndex(doc)
	if m == nil || !ok {
		return m == nil && !ok
	}
	open := bytes.IndexByte(doc, '\n') + 1
	return m[3] == open+len(fm) // both end where bundlectl's closing line starts
}

// lineDelimitedAgrees reports whether a host that takes any line that
// trims to "---" (Unicode white space, as Rust's str::trim in Codex) for
// either delimiter finds the same front matter as bundlectl's splitter,
// which found fm (ok).
func lineDelimitedAgrees(doc, fm []byte, ok bool) bool {
	delim := func(line []byte) bool { return string(bytes.TrimFunc(line, unicode.IsSpace)) == "---" }
	first, rest, _ := bytes.Cut(doc, []byte("\n"))
	if !delim(first) {
		return !ok
	}
	if !ok {
		// An opening the review did not take, or one it took with no
		// closing line the host would see either.
		for _, line := range bytes.Split(rest, []byte("\n")) {
			if delim(line) {
				return false
			}
		}
		return true
	}
	for _, line := range bytes.Split(fm, []byte("\n")) {
		if delim(line) {
			return false // the host closes it earlier
		}
	}
	return true
}

// SetFrontMatter returns doc (a Markdown file with YAML front matter
// between "---" lines) with the front-matter key set to value, or removed
// when value is nil. The body after the front matter is kept byte for
// byte; the front matter is re-encoded. A document without front matter
// is returned unchanged when value is nil.
func SetFrontMatter(doc []byte, key string, value any) ([]byte, error) {
	fm, body, ok := splitFrontMatter(doc)
	if !ok {
		if value == nil {
			return doc, nil
		}
		return nil, errors.New("the document has no front matter")
	}
	var root yaml.Node
	if err := yaml.Unmarshal(fm, &root); err != nil {
		return nil, fmt.Errorf("front matter: %v", err)
	}
	var m *yaml.Node
	switch {
	case root.Kind == yaml.DocumentNode && len(root.Content) == 1 && root.Content[0].Kind == yaml.MappingNode:
		m = root.Content[0]
	case root.Kind == 0: // empty front matter
		if value == nil {
			return doc, nil
		}
		m = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		root = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{m}}
	default:
		return nil, errors.New("front matter is not a mapping")
	}
	idx := -1
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			idx = i
			break
		}
	}
	switch {
	case value == nil && idx < 0:
		return doc, nil
	case value == nil:
		m.Content = append(m.Content[:idx], m.Content[idx+2:]...)
	default:
		var vn yaml.Node
		if err := vn.Encode(value); err != nil {
			return nil, err
		}
		if idx < 0 {
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, &vn)
		} else {
			m.Content[idx+1] = &vn
		}
	}
	var buf bytes.Buffer
	buf.WriteString("---\n")
	if len(m.Content) > 0 {
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(&root); err != nil {
			return nil, err
		}
		enc.Close()
	}
	buf.WriteString("---\n")
	buf.Write(body)
	return buf.Bytes(), nil
}

// ClaudeFrontMatter returns doc with front matter that is not valid YAML
// replaced by the text Claude Code reads in its place
// (bundle.ClaudeLenientFrontMatter), which is what the review read; other
// documents are returned unchanged. Front matter neither reads is an
// error: such a document is in no review.
func ClaudeFrontMatter(doc []byte) ([]byte, error) {
	fm, body, ok := splitFrontMatter(doc)
	if !ok {
		return doc, nil
	}
	var root yaml.Node
	if yaml.Unmarshal(fm, &root) == nil {
		return doc, nil
	}
	q, ok := bundle.ClaudeLenientFrontMatter(fm)
	if !ok {
		return nil, errors.New("front matter is not valid YAML")
	}
	var buf bytes.Buffer
	buf.WriteString("---\n")
	buf.Write(q)
	buf.WriteString("---\n")
	buf.Write(body)
	return buf.Bytes(), nil
}

// splitFrontMatter splits "---\n<yaml>\n---\n<body>", after a byte-order
// mark, which the hosts drop too.
func splitFrontMatter(doc []byte) (fm, body []byte, ok bool) {
	doc = bytes.TrimPrefix(doc, byteOrderMark)
	first, rest, found := bytes.Cut(doc, []byte("\n"))
	if !found || string(bytes.TrimRight(first, "\r \t")) != "---" {
		return nil, nil, false // the review's opening: "---", then spaces or tabs
	}
	for off := 0; off <= len(rest); {
		nl := bytes.IndexByte(rest[off:], '\n')
		line := rest[off:]
		next := len(rest)
		if nl >= 0 {
			line = rest[off : off+nl]
			next = off + nl + 1
		}
		if string(bytes.TrimRight(line, "\r \t")) == "---" {
			return rest[:off], rest[next:], true
		}
		if nl < 0 {
			break
		}
		off = next
	}
	return nil, nil, false
}

// frontMatterMapping returns the mapping node of doc's front matter (nil
// when it has none, or it does not read as one YAML mapping).
func frontMatterMapping(doc []byte) *yaml.Node {
	fm, _, ok := splitFrontMatter(doc)
	if !ok {
		return nil
	}
	var root yaml.Node
	if yaml.Unmarshal(fm, &root) != nil || root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	return root.Content[0]
}

// frontMatterHas reports whether doc's front matter is a mapping with the
// top-level key.
func frontMatterHas(doc []byte, key string) bool {
	m := frontMatterMapping(doc)
	if m == nil {
		return false
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return true
		}
	}
	return false
}

// InlineMCPServers reports whether doc's front matter defines MCP servers
// inline under mcpServers (a mapping, or a list holding anything but
// names): servers the host would start itself, outside bundlectl.
func InlineMCPServers(doc []byte) bool {
	m := frontMatterMapping(doc)
	if m == nil {
		return false
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != "mcpServers" {
			continue
		}
		v := m.Content[i+1]
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		switch v.Kind {
		case yaml.ScalarNode:
			return false
		case yaml.SequenceNode:
			for _, e := range v.Content {
				if e.Kind != yaml.ScalarNode {
					return true
				}
			}
			return false
		}
		return true
	}
	return false
}

// GeminiAgent reads an agent document's front matter as Gemini CLI's
// agent loader does: remote when it is a list (remote agents) or names
// kind "remote", an agent card (agent_card_url, agent_card_json) or auth —
// an agent Gemini CLI reaches over the network itself; servers when it
// defines MCP servers inline under mcp_servers, which Gemini CLI starts
// itself. odd when the front matter is missing or does not read as a
// mapping or a list, or uses a merge key ("<<"), which could bring in
// either unseen.
func GeminiAgent(doc []byte) (remote, servers, odd bool) {
	fm, _, ok := splitFrontMatter(doc)
	if !ok {
		return false, false, true
	}
	var root yaml.Node
	if yaml.Unmarshal(fm, &root) != nil || root.Kind != yaml.DocumentNode || len(root.Content) != 1 {
		return false, false, true
	}
	switch m := root.Content[0]; m.Kind {
	case yaml.SequenceNode:
		return true, false, false
	case yaml.MappingNode:
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i].Value, m.Content[i+1]
			switch k {
			case "<<":
				odd = true
			case "agent_card_url", "agent_card_json", "auth":
				remote = true
			case "kind":
				remote = remote || v.Value == "remote"
			case "mcp_servers":
				servers = servers || v.Tag != "!!null"
			}
		}
		return remote, servers, odd
	}
	return false, false, true
}
