package agenttest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// TestGeminiSpreadBytes: in a "sequential": true group Gemini CLI 0.61
// gives the second BeforeTool hook {...arguments, ...first hook's
// tool_input} as JSON.stringify writes it: array-index keys first, then
// the others in the order first set, U+2028 as it is, numbers as
// Number::toString writes them (1.0 is 1, 1e2 is 100), "\u0041" as "A"
// and a lone surrogate, in a key or a value, as its escape. Under setup
// gemini, hooks run wrote the keys sorted (and U+2028 escaped), and then
// the answer's own spelling (1.0, 1e2, \u0041) with a lone surrogate as
// U+FFFD, so a hook that compares or hashes the text of its arguments
// read another text than in place.
func TestGeminiSpreadBytes(t *testing.T) {
	t.Parallel()
	got := map[string]string{}
	for _, mode := range []string{"direct", "setup"} {
		rec := filepath.Join(t.TempDir(), "second-hook-input")
		first := `{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"a_new":"1","command":"touch one","10":"x\u2028y","9":"b","n":1.0,"e":1e2,"u":"\u0041","\ud800k":"\udc00"}}}`
		group := map[string]any{"matcher": "run_shell_command", "sequential": true, "hooks": []any{
			map[string]any{"type": "command", "command": "cat >/dev/null; echo '" + first + "'"},
			seqRecorder(rec, map[string]any{})}}
		a := geminiTouchInSub(t)
		installGeminiHooks(t, a, mode, pluginName, map[string]any{"hooks": map[string]any{"BeforeTool": []any{group}}})
		res := a.Run(t, "make the marker")
		data, err := os.ReadFile(rec)
		if err != nil {
			t.Fatalf("%s: the second hook did not run: %v\n%s", mode, err, res)
		}
		line, _, _ := bytes.Cut(data, []byte("\n")) // its first run: bundlectl judges the rewrite again after
		ms, ok := jsonobj.Members(line)
		if !ok {
			t.Fatalf("%s: the second hook got %q", mode, line)
		}
		for _, m := range ms {
			if m.Key == "tool_input" {
				got[mode] = string(m.Val)
			}
		}
		t.Logf("%s: the second hook's tool_input: %s", mode, got[mode])
	}
	if got["direct"] == "" || got["setup"] != got["direct"] {
		t.Fatalf("under setup the second hook was given tool_input %q; Gemini CLI 0.61 gives it %q", got["setup"], got["direct"])
	}
}
