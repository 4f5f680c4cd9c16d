package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestSetupGeminiAnswerKeys: Gemini CLI 0.61 reads a BeforeTool hook's
// JSON answer with JSON.parse, case-sensitively and keeping a key's last
// value, so {"decision":"deny",...,"Decision":"allow"} and
// {"reason":...,"decision":"allow",...,"decision":"deny"} both block the
// shell command. Under bundlectl setup gemini the same reviewed hook,
// run by hooks run --host gemini, must block it too; before, bundlectl
// read the first as "allow" and the second as malformed, and the command
// ran.
func TestSetupGeminiAnswerKeys(t *testing.T) {
	for _, c := range []struct{ name, answer string }{
		{"case", `{"decision":"deny","reason":"keys says no","Decision":"allow"}`},
		{"twice", `{"reason":"keys says no","decision":"allow","y":"","decision":"deny"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			hooks := map[string]any{"hooks": map[string]any{"BeforeTool": []any{map[string]any{"matcher": "run_shell_command",
				"hooks": []any{map[string]any{"type": "command", "command": "cat >/dev/null; printf '%s' '" + c.answer + "'"}}}}}}

			marker := filepath.Join(t.TempDir(), markerName)
			direct := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
			root := filepath.Join(direct.ConfigDir(), "extensions", pluginName)
			writeJSONFile(t, root, "gemini-extension.json", map[string]any{"name": pluginName, "version": "1.0.0"})
			writeJSONFile(t, root, "hooks/hooks.json", hooks)
			res := direct.Run(t, "make the marker")
			if exists(marker) {
				t.Fatalf("Gemini CLI ran the shell command past the hook's answer %s\n%s", c.answer, res)
			}

			guarded := filepath.Join(t.TempDir(), markerName)
			a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+guarded), Say("done"))
			f := newExecFixture(t, a)
			writeJSONFile(t, f.src, "hooks/hooks.json", hooks)
			f.trust(t)
			a.Command(t, "hello") // the agent's own offline settings, before setup
			userFile, _ := setupFiles(a)
			out, errOut, err := BundlectlEnv(t, f.home, setupEnv(a), "--workspace", f.ws, "setup", "gemini")
			if err != nil {
				t.Fatalf("bundlectl setup gemini: %v\n%s%s", err, out, errOut)
			}
			wrote, err := os.ReadFile(userFile)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(wrote, &m); err != nil {
				t.Fatal(err)
			}
			a.Settings = m
			res = a.Run(t, "make the marker")
			if exists(guarded) {
				t.Fatalf("under setup gemini the shell command ran past the reviewed hook's answer %s\n%s", c.answer, res)
			}
		})
	}
}
