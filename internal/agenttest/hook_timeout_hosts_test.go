package agenttest

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// guardTimeoutRun writes a plugin whose guard on the shell tool (Claude
// Code, Codex: PreToolUse; Gemini CLI: BeforeTool) records that it ran and
// blocks (exit 2), with the given "timeout", and runs the host on a turn
// that calls the shell tool. It reports whether the guard ran and whether
// the tool ran, and the plugin's directory.
func guardTimeoutRun(t *testing.T, h Host, timeout json.Number) (guardRan, toolRan bool, dir string, res *Result) {
	tmp := t.TempDir()
	marker := filepath.Join(tmp, markerName)
	ran := filepath.Join(tmp, "guard-ran")
	guard := map[string]any{"type": "command", "command": "cat > " + ran + "; echo blocked by the guard >&2; exit 2", "timeout": timeout}
	a := New(t, h, ShellCall(h, "touch "+marker), Say("done"))
	switch h {
	case Claude:
		dir = filepath.Join(tmp, "tmo")
		writeClaudeBashGuard(t, dir, "tmo", guard)
		a.Args = []string{"--plugin-dir", dir, "--allowedTools", "Bash"}
	case Codex:
		dir = versionDir(filepath.Join(a.ConfigDir(), "plugins", "cache"))
		root := dir
		writeJSONFile(t, root, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
		writeJSONFile(t, root, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"hooks": []any{guard}}}}})
		a.CodexConfig = "[plugins.\"" + codexPluginID + "\"]\nenabled = true\n"
		a.Args = []string{"-c", "features.plugins=true", "--dangerously-bypass-hook-trust"}
	case GeminiCLI:
		dir = filepath.Join(a.ConfigDir(), "extensions", "tmo")
		writeJSONFile(t, dir, "gemini-extension.json", map[string]any{"name": "tmo", "version": "1.0.0"})
		writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"BeforeTool": []any{map[string]any{"matcher": "run_shell_command", "hooks": []any{guard}}}}})
	}
	res = a.Run(t, "make the marker")
	return exists(ran), exists(marker), dir, res
}

// TestHostsGuardTimeouts: Claude Code 2.1.332 and Codex 0.171 load and
// run a guard whose "timeout" is past bundlectl's 600 s limit (tried with
// 601, 3600, 86400, 2147484 s, 2^53-1 and 2^63-1), and its block counts;
// so does Gemini CLI 0.61 (in milliseconds) up to 2147483647 ms, while past
// that it starts the hook and goes on at once (Node.js fires a longer
// timer after 1 ms): the tool runs. bundlectl skipped such a hook for
// every host ("timeout must be at most 600 seconds"; a guard only Claude
// Code reads refused the bundle), so under hooks run --host codex the tool
// ran where Codex runs the guard. Now the review shows the hook for each
// host with a manifest.timeout warning (for Gemini CLI past 2147483647 ms,
// that it is killed at once), and the harness waits at most 600 s
// (harness TestGuardPastLimit).
func TestHostsGuardTimeouts(t *testing.T) {
	// Not parallel: its outcome turns on a short wait of a host's or the
	// proxy's (see doc.go).
	for _, c := range []struct {
		host    Host
		timeout string
		blocked bool
	}{
		{Claude, "601", true},
		{Claude, "86400", true},
		{Claude, "9223372036854775807", true},
		{Codex, "601", true},
		{Codex, "86400", true},
		{Codex, "9223372036854775807", true},
		{GeminiCLI, "601000", true},
		{GeminiCLI, "86400000", true},
		{GeminiCLI, "2147483648", false},
	} {
		t.Run(string(c.host)+"/"+c.timeout, func(t *testing.T) {
			ran, toolRan, dir, res := guardTimeoutRun(t, c.host, json.Number(c.timeout))
			if !c.blocked {
				// Killed after 1 ms, it may not have got as far as
				// recording that it ran: Gemini CLI says it timed out.
				ran = ran || strings.Contains(res.Stderr, "Hook timed out after "+c.timeout+"ms")
			}
			if !ran || toolRan == c.blocked {
				t.Fatalf("the guard ran %v (want true), the tool ran %v (want %v), as %s did when tried\n%s", ran, toolRan, !c.blocked, c.host, res)
			}
			var review struct {
				Errors, Warnings []ReviewWarning
				Components       struct{ Hooks []struct{ Hosts []string } }
			}
			out, errOut, _ := bundlectlRun(t, t.TempDir(), "review", "--json", dir)
			if err := json.Unmarshal([]byte(out), &review); err != nil {
				t.Fatalf("review --json: %v\n%s%s", err, out, errOut)
			}
			if len(review.Errors) > 0 || !slices.ContainsFunc(review.Components.Hooks, func(h struct{ Hosts []string }) bool { return slices.Contains(h.Hosts, string(c.host)) }) {
				t.Errorf("the review does not show the guard %s loads, or refuses the bundle\n%s", c.host, out)
			}
			want := "waits up to " + c.timeout
			if !c.blocked {
				want = "kills it at once"
			}
			if !slices.ContainsFunc(review.Warnings, func(w ReviewWarning) bool {
				return w.Rule == "manifest.timeout" && strings.Contains(w.Message, want)
			}) {
				t.Errorf("no manifest.timeout warning saying %q\n%s", want, out)
			}
		})
	}
}
