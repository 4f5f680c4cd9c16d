package agenttest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// TestGeminiChainedContextBytes: in a "sequential": true BeforeAgent
// group Gemini CLI 0.61 adds the first hook's additionalContext to the
// prompt after a blank line (JavaScript's +) and gives the second hook
// JSON.stringify of the result: a lone surrogate in the context
// ("\ud800") reaches it as that escape. Under setup gemini, hooks run
// gave it U+FFFD, another text than in place.
func TestGeminiChainedContextBytes(t *testing.T) {
	t.Parallel()
	got := map[string]string{}
	for _, mode := range []string{"direct", "setup"} {
		rec := filepath.Join(t.TempDir(), "second-hook-input")
		first := `{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"ctx \ud800 end"}}`
		group := map[string]any{"sequential": true, "hooks": []any{
			map[string]any{"type": "command", "command": "cat >/dev/null; echo '" + first + "'"},
			seqRecorder(rec, map[string]any{})}}
		a := New(t, GeminiCLI, Say("done"))
		installGeminiHooks(t, a, mode, pluginName, map[string]any{"hooks": map[string]any{"BeforeAgent": []any{group}}})
		res := a.Run(t, "hello")
		data, err := os.ReadFile(rec)
		if err != nil {
			t.Fatalf("%s: the second hook did not run: %v\n%s", mode, err, res)
		}
		line, _, _ := bytes.Cut(data, []byte("\n"))
		ms, ok := jsonobj.Members(line)
		if !ok {
			t.Fatalf("%s: the second hook got %q", mode, line)
		}
		for _, m := range ms {
			if m.Key == "prompt" {
				got[mode] = string(m.Val)
			}
		}
		t.Logf("%s: the second hook's prompt: %s", mode, got[mode])
	}
	if !bytes.Contains([]byte(got["direct"]), []byte(`\ud800`)) || got["setup"] != got["direct"] {
		t.Fatalf("under setup the second hook was given prompt %q; Gemini CLI 0.61 gives it %q", got["setup"], got["direct"])
	}
}
