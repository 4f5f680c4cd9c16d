package hosts

import (
	"encoding/json"
	"testing"
)

// Codex's block writes its hook command with json.Marshal (tomlString),
// which escapes &, < and > as \u0026, \u003c and \u003e: a home holding
// one must still be told this home's, or list calls its own lines
// another home's (gone) and setup keeps them in the backup --undo
// restores.
func TestHoldsLinesOfHTMLEscaped(t *testing.T) {
	for _, home := range []string{"/tmp/a&b", "/tmp/<x>", "/tmp/q\"&'"} {
		re := Reentry{Exe: "/usr/bin/bundlectl", Home: home}
		raw, _ := json.Marshal(ShellJoin(re.HooksRun("PreToolUse", "codex")))
		cur := []byte("command = " + string(raw) + "\n")
		if !holdsLinesOf(cur, home) {
			t.Errorf("home %q: %s not taken for its lines", home, cur)
		}
		if holdsLinesOf(cur, home+"x") {
			t.Errorf("home %q: lines taken for %q's", home, home+"x")
		}
	}
}
