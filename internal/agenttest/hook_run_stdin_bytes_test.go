package agenttest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestHookRunStdinBytes: a hook run through bundlectl setup's wiring
// (bundlectl hooks run --host <host>) reads on stdin the event its host
// gives a hook of its own, byte for byte: the host's top-level key order
// and values as written. Both hooks are on the same call of one session,
// so the session id, transcript path and timestamps are the same. Before,
// hooks run wrote the top-level keys sorted.
func TestHookRunStdinBytes(t *testing.T) {
	t.Parallel()
	for _, h := range hosts {
		t.Run(string(h), func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			a := New(t, h, ShellCall(h, "true"), Say("done"))
			allowShell(a)
			event, matcher := "PreToolUse", "Bash"
			if h == GeminiCLI {
				event, matcher = "BeforeTool", "run_shell_command"
			}
			record := func(name string) string { return "cat > " + filepath.Join(rec, name) }
			f := newExecFixture(t, a)
			writeJSONFile(t, f.src, "hooks/hooks.json", map[string]any{"hooks": map[string]any{event: []any{map[string]any{
				"matcher": matcher, "hooks": []any{map[string]any{"type": "command", "command": record("through")}}}}}})
			f.trust(t)
			f.runSetup(t, a, "hello")
			// The host's own hook beside setup's.
			if h == Codex {
				// Not trusted by hash as setup's are: bypass Codex's
				// hook trust for it.
				a.CodexConfig += fmt.Sprintf("\n[[hooks.%s]]\nmatcher = %q\n[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %q\n", event, matcher, event, record("direct"))
				a.Args = append(a.Args, "--dangerously-bypass-hook-trust")
			} else {
				hooks, _ := a.Settings["hooks"].(map[string]any)
				if hooks == nil {
					t.Fatalf("setup wrote no hooks: %v", a.Settings)
				}
				groups, _ := hooks[event].([]any)
				hooks[event] = append(groups, map[string]any{"matcher": matcher, "hooks": []any{map[string]any{"type": "command", "command": record("direct")}}})
			}
			res := a.Run(t, "run it")
			direct, err1 := os.ReadFile(filepath.Join(rec, "direct"))
			through, err2 := os.ReadFile(filepath.Join(rec, "through"))
			if err1 != nil || err2 != nil {
				t.Fatalf("a hook did not run: direct %v, through hooks run %v\n%s\n%s", err1, err2, a.CodexConfig, res)
			}
			t.Logf("%s gives a hook:\n%s", h, direct)
			if !bytes.Equal(bytes.TrimSpace(direct), bytes.TrimSpace(through)) {
				t.Fatalf("through bundlectl hooks run the hook read\n%s\nwhere %s gives its own hook\n%s", through, h, direct)
			}
		})
	}
}
