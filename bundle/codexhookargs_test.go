package bundle

import (
	"slices"
	"strings"
	"testing"
)

// Codex runs a plugin's command hook as a shell string made of its
// command alone and never reads args (internal/agenttest
// TestCodexPluginInstalled: a hook {"command": X, "args": [...]} runs as
// "bash -c X" with no arguments). The Codex reader must read it so — the
// review shows the command Codex runs, and bundlectl exec -- codex runs
// that command — with args kept as written and a warning. Claude Code
// runs the same declaration in exec form, so a hooks file both hosts read
// gives one hook for each.
func TestCodexHookArgsIgnored(t *testing.T) {
	hooks := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "${PLUGIN_ROOT}/bin/guard.sh", "args": ["--strict"]}]}]}}`
	t.Run("codex", func(t *testing.T) {
		b := writeTree(t, "cx", map[string]string{
			ManifestCodex:      `{"name": "cx"}`,
			"hooks/hooks.json": hooks,
			"bin/guard.sh":     "#!/bin/sh\n",
		})
		if b.Rejected() {
			t.Fatalf("rejected:%s", dumpFindings(b))
		}
		if len(b.Components.Hooks) != 1 {
			t.Fatalf("hooks: %+v", b.Components.Hooks)
		}
		h := b.Components.Hooks[0]
		if !h.Shell || h.Command != "${PLUGIN_ROOT}/bin/guard.sh" || len(h.Args) != 0 {
			t.Errorf("Codex hook read as shell=%v command=%q args=%q, want the command alone as a shell string", h.Shell, h.Command, h.Args)
		}
		if string(h.Other["args"]) != `["--strict"]` {
			t.Errorf("args not kept as written: %q", h.Other["args"])
		}
		warned := false
		for _, f := range b.Report.Findings {
			warned = warned || f.Rule == "hook.unknown-field" && strings.HasSuffix(f.Path, "hooks.PreToolUse[0].hooks[0].args")
		}
		if !warned {
			t.Errorf("no hook.unknown-field warning for args:%s", dumpFindings(b))
		}
	})
	t.Run("claude-and-codex", func(t *testing.T) {
		b := writeTree(t, "cx", map[string]string{
			ManifestCodex:      `{"name": "cx"}`,
			ManifestClaude:     `{"name": "cx"}`,
			"hooks/hooks.json": hooks,
			"bin/guard.sh":     "#!/bin/sh\n",
		})
		if b.Rejected() {
			t.Fatalf("rejected:%s", dumpFindings(b))
		}
		var claude, codex *Hook
		for i, h := range b.Components.Hooks {
			if slices.Contains(h.Hosts, HostClaude) {
				claude = &b.Components.Hooks[i]
			}
			if slices.Contains(h.Hosts, HostCodex) {
				codex = &b.Components.Hooks[i]
			}
		}
		if claude == nil || codex == nil || claude == codex {
			t.Fatalf("want one hook for each host, got %+v", b.Components.Hooks)
		}
		if claude.Shell || !slices.Equal(claude.Args, []string{"--strict"}) {
			t.Errorf("Claude Code hook: shell=%v args=%q, want exec form with its args", claude.Shell, claude.Args)
		}
		if !codex.Shell || len(codex.Args) != 0 {
			t.Errorf("Codex hook: shell=%v args=%q, want the command alone", codex.Shell, codex.Args)
		}
	})
}
