package agenttest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// geminiAskHooks are a BeforeTool hook answering {"decision":"ask"} for
// the shell tool and a Notification hook that records that Gemini CLI
// asked for the user's confirmation (it fires Notification just before it
// waits for one).
func geminiAskHooks(rec string) map[string]any {
	return map[string]any{"hooks": map[string]any{
		"BeforeTool": []any{map[string]any{"matcher": "run_shell_command",
			"hooks": []any{map[string]any{"type": "command", "command": `cat >/dev/null; echo '{"decision":"ask","reason":"a person should look at this"}'`}}}},
		"Notification": []any{map[string]any{
			"hooks": []any{map[string]any{"type": "command", "command": "cat > " + filepath.Join(rec, "asked")}}}},
	}}
}

// TestSetupGeminiDecisionAsk: Gemini CLI 0.61 reads a BeforeTool hook's
// {"decision":"ask"} as "ask the user" (DefaultHookOutput.isAskDecision:
// the scheduler forces ask_user over the policy's decision, yolo
// included), so it asks before the shell command runs (in a -p session it
// then waits: tried, still waiting after 5 minutes). Under bundlectl setup
// gemini the same reviewed hook, run by hooks run --host gemini, must make
// Gemini CLI ask too; bundlectl read "ask" as malformed output, a
// non-blocking failure, and the command ran unasked.
func TestSetupGeminiDecisionAsk(t *testing.T) {
	t.Parallel()
	testGeminiAsk(t, func(rec, marker string) map[string]any { return geminiAskHooks(rec) })
}

// TestSetupGeminiAskThenRewrite: a BeforeTool hook asks about the shell
// command and a second one rewrites it (tool_input) into a form the first
// does not ask about. Gemini CLI 0.61 merges both answers
// (HookAggregator.mergeWithOrDecision: the ask stands beside the rewritten
// input) and asks. hooks run --host gemini judged the rewritten call again
// and relayed that last round alone, without the ask, so under setup
// gemini the command ran unasked.
func TestSetupGeminiAskThenRewrite(t *testing.T) {
	t.Parallel()
	testGeminiAsk(t, func(rec, marker string) map[string]any {
		h := geminiAskHooks(rec)
		ask := `grep -q 'touch /' || exit 0; echo '{"decision":"ask","reason":"a person should look at this"}'`
		rewrite := `grep -q 'touch /' || exit 0; echo '{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"touch  ` + marker + `"}}}'`
		h["hooks"].(map[string]any)["BeforeTool"] = []any{
			map[string]any{"matcher": "run_shell_command", "hooks": []any{map[string]any{"type": "command", "command": ask}}},
			map[string]any{"matcher": "run_shell_command", "hooks": []any{map[string]any{"type": "command", "command": rewrite}}},
		}
		return h
	})
}

func testGeminiAsk(t *testing.T, hooksFor func(rec, marker string) map[string]any) {
	for _, through := range []string{"installed", "setup"} {
		t.Run(through, func(t *testing.T) {
			rec := t.TempDir()
			pidFile := filepath.Join(t.TempDir(), "pgid")
			marker := filepath.Join(t.TempDir(), markerName)
			a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
			a.Launcher = []string{"sh", "-c", `echo $$ > "$0"; exec "$@"`, pidFile}
			hooks := hooksFor(rec, marker)
			mode := map[string]string{"installed": "direct", "setup": "setup"}[through]
			installGeminiHooks(t, a, mode, pluginName, hooks)
			// In a -p session Gemini CLI would wait for an answer nobody
			// can give: once it has asked, end the session (its process
			// group, whose id the Launcher wrote).
			done := make(chan struct{})
			defer close(done)
			go func() {
				for {
					select {
					case <-done:
						return
					case <-time.After(50 * time.Millisecond):
					}
					if !exists(filepath.Join(rec, "asked")) {
						continue
					}
					if b, err := os.ReadFile(pidFile); err == nil {
						if pgid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pgid > 1 {
							syscall.Kill(-pgid, syscall.SIGKILL)
							return
						}
					}
				}
			}()
			res := a.Run(t, "make the marker")
			if exists(marker) {
				t.Errorf("Gemini CLI (%s) ran the shell command a BeforeTool hook asked about, unasked\n%s", through, res)
			}
			if !exists(filepath.Join(rec, "asked")) {
				t.Errorf("Gemini CLI (%s) did not ask for confirmation (no Notification) after a BeforeTool hook's ask (installed, Gemini CLI 0.61 does)\n%s", through, res)
			}
			t.Logf("%s", res)
		})
	}
}
