package agenttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetupGeminiAfterModelBlock: on AfterModel, Gemini CLI 0.61 honours
// a block only in part. A hook's {"decision":"deny"} (or exit 2) ends the
// model's streamed answer, but the chunk the hook judged is still used:
// its shell call runs, with a warning on stderr. "continue": false stops
// the agent before it is used: the call does not run (geminiChat's
// AfterModel handling and Turn, chunk-*.js; tried here). Gemini CLI runs
// every AfterModel hook and merges their answers field by field, so one
// hook's deny beside another's stop is a stop.
//
// Under setup gemini, hooks run --host gemini once ended the chain at
// the first hook's deny and relayed it alone, so the second hook's stop
// was lost and the call ran; and a reviewed AfterModel guard that could
// not run (its snapshot tampered with) was only reported, as AfterModel
// is not among the events a hook can block, so the call ran unguarded.
// bundlectl now relays both answers, and answers a guard that cannot run
// with "continue": false, naming the bundle and the fix.
func TestSetupGeminiAfterModelBlock(t *testing.T) {
	t.Parallel()
	hook := func(cmd string) map[string]any { return map[string]any{"type": "command", "command": cmd} }
	deny := hook(`cat >/dev/null; echo '{"decision":"deny","reason":"agenttest-deny"}'`)
	stop := hook(`cat >/dev/null; echo '{"continue":false,"stopReason":"agenttest-stop"}'`)
	on := func(hs ...any) map[string]any {
		return map[string]any{"hooks": map[string]any{"AfterModel": []any{map[string]any{"hooks": hs}}}}
	}
	run := func(t *testing.T, mode string, hooks map[string]any) (*Result, string) {
		marker := filepath.Join(t.TempDir(), markerName)
		a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
		installGeminiHooks(t, a, mode, pluginName, hooks)
		return a.Run(t, "make the marker"), marker
	}

	t.Run("direct-deny", func(t *testing.T) {
		res, marker := run(t, "direct", on(deny))
		if !exists(marker) || !strings.Contains(res.Stderr, "agenttest-deny") {
			t.Fatalf("Gemini CLI 0.61 no longer runs the call of the chunk an AfterModel hook denied (or shows no warning): bundlectl's relay and docs/gemini-cli.md assume it does\n%s", res)
		}
	})
	for _, mode := range []string{"direct", "setup"} {
		t.Run(mode+"-deny-then-stop", func(t *testing.T) {
			res, marker := run(t, mode, on(deny, stop))
			if exists(marker) {
				t.Fatalf("%s: the shell call ran although an AfterModel hook answered continue: false beside another's deny (Gemini CLI 0.61 stops the agent)\n%s", mode, res)
			}
		})
	}
	t.Run("setup-tampered", func(t *testing.T) {
		// A reviewed guard in a file of its own, so that it can be changed.
		marker := filepath.Join(t.TempDir(), markerName)
		a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
		f := newExecFixture(t, a)
		writeFile(t, f.src, "bin/am.sh", "#!/bin/sh\ncat >/dev/null\necho '{}'\n", 0o755)
		writeJSONFile(t, f.src, "hooks/hooks.json", on(hook("${extensionPath}/bin/am.sh")))
		f.trust(t)
		f.runSetup(t, a, "hello")
		m, _ := filepath.Glob(filepath.Join(f.home, "store", "*", "bin", "am.sh"))
		if len(m) != 1 {
			t.Fatalf("want one snapshot holding bin/am.sh, got %v", m)
		}
		Writable(f.home)
		os.Chmod(m[0], 0o755)
		writeFile(t, filepath.Dir(m[0]), "am.sh", "#!/bin/sh\ntouch "+f.tamper+"\necho '{}'\n", 0o755)
		res := a.Run(t, "make the marker")
		if exists(f.tamper) {
			t.Fatalf("the tampered AfterModel guard ran\n%s", res)
		}
		if exists(marker) {
			t.Fatalf("the shell call ran although the reviewed AfterModel guard could not run\n%s", res)
		}
		if !strings.Contains(res.Stderr, `bundle "`+pluginName+`"`) || !strings.Contains(res.Stderr, "hint:") {
			t.Errorf("the user was not told which bundle stopped the agent and how to fix it\n%s", res)
		}
	})
}
