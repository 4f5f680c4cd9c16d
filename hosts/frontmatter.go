package hosts

import (
	"bytes"
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"
)

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

// splitFrontMatter splits "---\n<yaml>\n---\n<body>".
func splitFrontMatter(doc []byte) (fm, body []byte, ok bool) {
	rest, found := bytes.CutPrefix(doc, []byte("---\n"))
	if !found {
		if rest, found = bytes.CutPrefix(doc, []byte("---\r\n")); !found {
			return nil, nil, false
		}
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
