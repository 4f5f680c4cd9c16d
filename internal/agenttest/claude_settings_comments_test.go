package agenttest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeSettingsComments: Claude Code 2.1.332 reads a settings.json
// with a comment as malformed and loads nothing of it, its hooks
// included, saying so on stderr; without the comment the same hook runs.
// So setup claude edits its files as plain JSON and refuses one with a
// comment (script setup_refused_file), where setup gemini keeps them:
// Gemini CLI reads them (TestSetup).
func TestClaudeSettingsComments(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, comment string
		loads         bool
	}{
		{"plain", "", true},
		{"line comment", "// mine\n", false},
		{"block comment", "/* mine */ ", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			a := New(t, Claude, Say("done"))
			a.SettingsFile = []byte(fmt.Sprintf(`{%s"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch %s/hook"}]}]}}`, c.comment, rec))
			res := a.Run(t, "hello")
			_, err := os.Stat(filepath.Join(rec, "hook"))
			if ran := err == nil; ran != c.loads {
				t.Errorf("the hook ran: %v, want %v\n%s", ran, c.loads, res)
			}
			if !c.loads && !strings.Contains(res.Stderr, "Invalid or malformed JSON") {
				t.Errorf("Claude Code did not say the file is malformed:\n%s", res)
			}
		})
	}
}
