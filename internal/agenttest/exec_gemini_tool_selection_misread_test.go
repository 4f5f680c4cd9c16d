package agenttest

import (
	"strings"
	"testing"
)

// TestExecGeminiToolSelectionMisread: under bundlectl exec -- gemini each
// reviewed BeforeToolSelection hook runs through hooks exec, which passes
// its answer to Gemini CLI 0.61 to merge. Two answers Gemini CLI cannot
// read as written must not offer tools a guard would not:
//
//   - one cut at the 1 MiB bundlectl keeps (Gemini CLI reads it whole:
//     tried directly, its toolConfig counts): answered with no tools
//     (mode NONE);
//   - allowedFunctionNames that is not a list of strings: Gemini CLI
//     iterates a string's characters, and with a number its merge throws
//     and it drops every hook's configuration, another guard's narrowing
//     included (tried directly: the request goes out in mode AUTO with
//     no allowed names). hooks exec passed it through, so the guard's
//     narrowing was lost; it now answers no tools, as hooks run resolves
//     such an answer.
func TestExecGeminiToolSelectionMisread(t *testing.T) {
	t.Parallel()
	narrow := `{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":{"mode":"ANY","allowedFunctionNames":["read_file"]}}}`
	bad := `{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":{"mode":"AUTO","allowedFunctionNames":5}}}`
	cut := `cat >/dev/null; printf '{"pad":"'; head -c 1100000 /dev/zero | tr '\0' a; printf '","hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":{"mode":"AUTO","allowedFunctionNames":["run_shell_command"]}}}'`
	echo := func(answer string) map[string]any {
		return map[string]any{"type": "command", "command": "cat >/dev/null; echo '" + answer + "'"}
	}
	modes := offeredToolModes
	cases := []struct {
		name   string
		hooks  []any
		direct string // what Gemini CLI itself sends
	}{
		{"misread", []any{echo(narrow), echo(bad)}, "unset"},
		{"cut", []any{map[string]any{"type": "command", "command": cut}}, "AUTOrun_shell_command"},
	}
	for _, c := range cases {
		hooks := map[string]any{"hooks": map[string]any{"BeforeToolSelection": []any{map[string]any{"hooks": c.hooks}}}}
		t.Run(c.name+"-direct", func(t *testing.T) {
			a := New(t, GeminiCLI, Say("done"))
			installGeminiHooks(t, a, "direct", pluginName, hooks)
			res := a.Run(t, "hello")
			if ms := modes(a); len(ms) == 0 || ms[0] != c.direct {
				t.Fatalf("Gemini CLI itself sent modes %v, want %s first (docs/gemini-cli.md says so)\n%s", ms, c.direct, strings.ReplaceAll(res.String(), strings.Repeat("a", 64), ""))
			}
		})
		t.Run(c.name+"-exec", func(t *testing.T) {
			a := New(t, GeminiCLI, Say("done"))
			installGeminiHooks(t, a, "exec", pluginName, hooks)
			res := a.Run(t, "hello")
			ms := modes(a)
			if len(ms) == 0 {
				t.Fatalf("no model request offering tools was seen\n%s", res)
			}
			for _, m := range ms {
				if m != "NONE" {
					t.Fatalf("under bundlectl exec a request went out in mode %q after a BeforeToolSelection answer Gemini CLI cannot read as written (want NONE)\n%s", m, strings.ReplaceAll(res.String(), strings.Repeat("a", 64), ""))
				}
			}
		})
	}
}
