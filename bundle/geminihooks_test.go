package bundle

import (
	"strings"
	"testing"
)

// Gemini CLI 0.61 runs an extension's hook of type "plugin" exactly as a
// command hook, and runs a command hook's command alone as a shell
// string, never reading args (internal/agenttest TestGeminiHookShapes).
// The reader must show both as Gemini CLI runs them: a "plugin" hook as
// a command hook (it had been skipped as a type bundlectl does not know,
// listed as "will not load"), and a hook with args as its command alone,
// args kept as written with a warning (it had been shown in exec form, a
// program named by the whole command string).
func TestGeminiHookShapes(t *testing.T) {
	b := writeTree(t, "gx", map[string]string{
		ManifestGemini: `{"name": "gx", "version": "1.0.0"}`,
		"hooks/hooks.json": `{"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [
			{"type": "plugin", "command": "touch plugin-ran"},
			{"type": "command", "command": "touch args-ran", "args": ["--not-read"]}
		]}]}}`,
	})
	if b.Rejected() {
		t.Fatalf("rejected:%s", dumpFindings(b))
	}
	for _, f := range b.Report.Findings {
		if f.Rule == "hook.type" {
			t.Errorf("the plugin hook is reported as a type bundlectl does not know: %s", f.Message)
		}
	}
	hs := b.Components.Hooks
	if len(hs) != 2 {
		t.Fatalf("hooks: %+v%s", hs, dumpFindings(b))
	}
	if p := hs[0]; p.Type != HookCommand || !p.Shell || p.Command != "touch plugin-ran" {
		t.Errorf("plugin hook read as type=%q shell=%v command=%q, want the command hook Gemini CLI runs", p.Type, p.Shell, p.Command)
	}
	a := hs[1]
	if !a.Shell || a.Command != "touch args-ran" || len(a.Args) != 0 {
		t.Errorf("hook with args read as shell=%v command=%q args=%q, want the command alone as a shell string", a.Shell, a.Command, a.Args)
	}
	if string(a.Other["args"]) != `["--not-read"]` {
		t.Errorf("args not kept as written: %q", a.Other["args"])
	}
	warned := false
	for _, f := range b.Report.Findings {
		warned = warned || f.Rule == "hook.unknown-field" && strings.HasSuffix(f.Path, "hooks.BeforeTool[0].hooks[1].args") && strings.Contains(f.Message, "Gemini CLI ignores")
	}
	if !warned {
		t.Errorf("no hook.unknown-field warning naming Gemini CLI for args:%s", dumpFindings(b))
	}
}

// TestGeminiSequentialGroup: a Gemini CLI matcher group's "sequential"
// changes what its event's hooks are given (Gemini CLI 0.61 chains their
// input: internal/agenttest TestGeminiSequentialChain), so it is part of
// what is reviewed and hashed: kept on each hook of the group as written.
// The reader once dropped it, unshown and unhashed, so the harness and
// the exec view could not honour it.
func TestGeminiSequentialGroup(t *testing.T) {
	b := writeTree(t, "gx", map[string]string{
		ManifestGemini: `{"name": "gx", "version": "1.0.0"}`,
		"hooks/hooks.json": `{"hooks": {"BeforeModel": [
			{"sequential": true, "hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": "b"}]},
			{"hooks": [{"type": "command", "command": "c"}]},
			{"sequential": "yes", "hooks": [{"type": "command", "command": "d"}]}
		]}}`,
	})
	if b.Rejected() {
		t.Fatalf("rejected:%s", dumpFindings(b))
	}
	hs := b.Components.Hooks
	if len(hs) != 4 {
		t.Fatalf("hooks: %+v%s", hs, dumpFindings(b))
	}
	for i, want := range []string{"true", "true", "", `"yes"`} {
		if got := string(hs[i].Other[GeminiSequentialKey]); got != want {
			t.Errorf("hook %d: %s %q, want %q", i, GeminiSequentialKey, got, want)
		}
		if seq := GeminiSequential(hs[i].Other); seq != (want == "true") {
			t.Errorf("hook %d: GeminiSequential %v", i, seq)
		}
	}
}
