package bundle

import (
	"strings"
	"testing"
)

// A manifest that starts with a UTF-8 byte-order mark is refused, as
// Gemini CLI refuses it, with a message that names the mark: "syntax
// error at column 2" sent authors looking for a typo they could not see.
func TestJSONByteOrderMarkNamed(t *testing.T) {
	b := writeTree(t, "p", map[string]string{
		ManifestClaude:      "\uFEFF" + `{"name": "p"}`,
		"skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\nbody\n",
	})
	f := requireFinding(t, b, Error, "manifest.json", ManifestClaude)
	if !strings.Contains(f.Message, "byte-order mark") || !strings.Contains(f.Message, "line 1, column 1") {
		t.Errorf("the finding does not name the byte-order mark at its place: %s", f.Message)
	}
}
