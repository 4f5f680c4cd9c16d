package agenttest

import (
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestCodexMCPHugeTimeouts: Codex 0.171 keeps a huge MCP timeout it can
// read as written. A tool_timeout_sec or startup_timeout_sec of 1e18 s
// (about 3e10 years, under its clock's overflow at about 2^63 s:
// TestCodexMCPTimeouts) starts the server, offers its tools, and a call
// is answered, without a panic — so Codex never gives up on such a
// server or call in practice; one of 1e300 (2^64 s or more) drops the
// server. The review lists the 1e18 servers with a manifest.timeout
// warning saying Codex never gives up (bundle CodexNeverSec; before,
// none), and skips the 1e300 ones; under bundlectl exec, whose view
// gives Codex 1e18 and 1e18 plus the start margin, Codex starts the same
// servers and the call is answered (the margin does not overflow, and
// bundlectl's proxy, which times no call past about 292 years, does not
// end it at once).
func TestCodexMCPHugeTimeouts(t *testing.T) {
	t.Parallel()
	const answer = "fakemcp-codex-huge-timeout-answer"
	servers := map[string]string{
		"t_1e18":  `{"tool_timeout_sec": 1e18}`,
		"s_1e18":  `{"startup_timeout_sec": 1e18}`,
		"t_1e300": `{"tool_timeout_sec": 1e300}`,
		"s_1e300": `{"startup_timeout_sec": 1e300}`,
	}
	started := []string{"s_1e18", "t_1e18"}
	src := filepath.Join(t.TempDir(), pluginName)
	writeCodexServersPlugin(t, src, t.TempDir(), servers, "-answer", answer)
	rv := reviewCodexPlugin(t, src)
	var listed []string
	for _, s := range rv.Components.MCPServers {
		listed = append(listed, s.Name)
	}
	sort.Strings(listed)
	if !slices.Equal(listed, started) {
		t.Errorf("review lists the servers %q, want %q: the ones Codex 0.171 reads", listed, started)
	}
	for _, at := range []string{"mcpServers.t_1e18.tool_timeout_sec", "mcpServers.s_1e18.startup_timeout_sec"} {
		found := false
		for _, w := range rv.Warnings {
			found = found || strings.HasSuffix(w.Path, at) && w.Rule == "manifest.timeout" && strings.Contains(w.Message, "Codex never")
		}
		if !found {
			t.Errorf("review: no manifest.timeout warning at %s saying Codex never gives up\n%+v", at, rv.Warnings)
		}
	}

	check := func(t *testing.T, a *Agent, res *Result, rec string) {
		t.Helper()
		var got []string
		for _, f := range recorded(t, rec) {
			if len(mcpRecord(t, filepath.Join(rec, f))) > 0 {
				got = append(got, strings.TrimSuffix(f, ".jsonl"))
			}
		}
		if !slices.Equal(got, started) {
			t.Errorf("Codex started the servers %q, want %q (found by trying Codex 0.171)\n%s", got, started, res)
		}
		first := a.Model.CallsAt(0)
		if len(first) == 0 {
			t.Fatalf("Codex made no model call\n%s", res)
		}
		for name := range servers {
			if offered := first[0].Contains("- mcp__" + name + "\n"); offered != slices.Contains(started, name) {
				t.Errorf("Codex offered the tools of server %s: %v, want %v\n%s", name, offered, !offered, res)
			}
		}
		next := a.Model.CallsAt(1)
		answered := len(next) > 0 && next[len(next)-1].Contains(answer)
		if calls := mcpCalls(t, filepath.Join(rec, "t_1e18.jsonl")); len(calls) != 1 || !answered || strings.Contains(res.Stderr, "panicked") {
			t.Errorf("the call to t_1e18's tool reached the server %d times (want 1), its answer reached the model %v (want true), Codex panicked %v\n%s", len(calls), answered, strings.Contains(res.Stderr, "panicked"), res)
		}
	}
	call := MCPCall(Codex, "t_1e18", "lookup", map[string]any{"query": "owl"})

	t.Run("installed", func(t *testing.T) {
		rec := t.TempDir()
		a := New(t, Codex, call, Say("done"))
		installCodexServersPlugin(t, a, rec, servers, "-answer", answer)
		check(t, a, a.Run(t, "look up owl"), rec)
	})

	t.Run("exec", func(t *testing.T) {
		rec := t.TempDir()
		a := New(t, Codex, call, Say("done"))
		execCodexServersPlugin(t, a, rec, servers, "-answer", answer)
		check(t, a, a.Run(t, "look up owl"), rec)
	})
}
