package agenttest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestCodexMCPTimeouts loads one Codex plugin whose .mcp.json holds a
// server per timeout value into Codex 0.171 and has the model call the
// tool of the server whose tool_timeout_sec is 2^63-1. It pins what Codex
// does with startup_timeout_sec, startup_timeout_ms and tool_timeout_sec
// (codex-rs RawMcpServerConfig: f64 seconds through try_from_secs_f64, a
// u64 of milliseconds): a value it cannot read (negative, a string, 2^64
// s or more, a fractional or negative startup_timeout_ms, even beside a
// good startup_timeout_sec) drops that server alone, the file's other
// servers still start; a startup timeout of 0 offers none of the
// server's tools; a tool_timeout_sec of 0 still starts the server; one of
// 2^63-1 starts it, and the call panics in Codex and reaches no server.
// bundlectl's review must list exactly the servers Codex reads, and warn
// about the ones it gives up on or panics on (bundle
// TestCodexMCPTimeoutValues). Before, the review listed every one of them
// without a word. (Found by trying too, not pinned here as only a time
// bound could show it: a startup_timeout_sec of 2^63-1 makes Codex panic
// and never end the session.)
func TestCodexMCPTimeouts(t *testing.T) {
	t.Parallel()
	servers := map[string]string{
		"ok":          `{}`,
		"s_frac":      `{"startup_timeout_sec": 20.5}`,
		"s_neg":       `{"startup_timeout_sec": -1}`,
		"s_str":       `{"startup_timeout_sec": "20"}`,
		"s_1e30":      `{"startup_timeout_sec": 1e30}`,
		"s_zero":      `{"startup_timeout_sec": 0}`,
		"ms_ok":       `{"startup_timeout_ms": 20000}`,
		"ms_frac":     `{"startup_timeout_ms": 1500.5}`,
		"ms_bad_s_ok": `{"startup_timeout_ms": -1, "startup_timeout_sec": 20}`,
		"t_neg":       `{"tool_timeout_sec": -1}`,
		"t_2_64":      `{"tool_timeout_sec": 18446744073709551616}`,
		"t_zero":      `{"tool_timeout_sec": 0}`,
		"t_2_63":      `{"tool_timeout_sec": 9223372036854775807}`,
	}
	started := []string{"ms_ok", "ok", "s_frac", "t_2_63", "t_zero"} // s_zero's command may start or not
	offered := started
	src := filepath.Join(t.TempDir(), pluginName)
	writeCodexServersPlugin(t, src, t.TempDir(), servers)
	rv := reviewCodexPlugin(t, src)
	var listed []string
	for _, s := range rv.Components.MCPServers {
		if slices.Contains(s.Hosts, "codex") {
			listed = append(listed, s.Name)
		}
	}
	sort.Strings(listed)
	if want := []string{"ms_ok", "ok", "s_frac", "s_zero", "t_2_63", "t_zero"}; !slices.Equal(listed, want) {
		t.Errorf("review lists the servers %q for Codex, want %q: the ones Codex 0.171 reads", listed, want)
	}
	for name, rule := range map[string]string{"s_zero": "codex.ignored", "t_zero": "codex.ignored", "t_2_63": "manifest.timeout"} {
		if !rv.warned(".mcp.json: mcpServers."+name+".", rule) {
			t.Errorf("review: no %s warning on server %s, which Codex gives up on or panics on", rule, name)
		}
	}

	// startedIn lists the servers that recorded a start in rec.
	startedIn := func(rec string) []string {
		var got []string
		for _, f := range recorded(t, rec) {
			name := strings.TrimSuffix(f, ".jsonl")
			if name != "s_zero" && len(mcpRecord(t, filepath.Join(rec, f))) > 0 {
				got = append(got, name)
			}
		}
		return got
	}
	call := MCPCall(Codex, "t_2_63", "lookup", map[string]any{"query": "owl"})

	rec := t.TempDir()
	a := New(t, Codex, call, Say("done"))
	installCodexServersPlugin(t, a, rec, servers)
	res := a.Run(t, "look up owl")
	got := startedIn(rec)
	if !slices.Equal(got, started) {
		t.Errorf("Codex started the servers %q, want %q (found by trying Codex 0.171)\n%s", got, started, res)
	}
	// Codex lists the namespaces of the servers it started in the first
	// request ("Deferred tool namespaces:\n- mcp__ok\n…").
	namespaces := map[string]string{}
	for name := range servers {
		namespaces[name] = "- mcp__" + name + "\n"
	}
	if got := firstCallHolds(t, a, res, namespaces); !slices.Equal(got, offered) {
		t.Errorf("Codex offered tools of the servers %q, want %q\n%s", got, offered, res)
	}
	if calls := mcpCalls(t, filepath.Join(rec, "t_2_63.jsonl")); len(calls) != 0 || !strings.Contains(res.Stderr, "panicked") {
		t.Errorf("a call to t_2_63's tool reached the server %d times, Codex panicked %v; want no call and a panic, as found by trying Codex 0.171\n%s", len(calls), strings.Contains(res.Stderr, "panicked"), res)
	}

	// Under bundlectl exec Codex gets the reviewed timeouts, but not those
	// it gives up on or panics on (docs/codex.md "MCP server timeouts"):
	// it starts the servers the review lists, s_zero with its default, and
	// the call Codex alone panics on is answered.
	rec = t.TempDir()
	a = New(t, Codex, call, Say("done"))
	execCodexServersPlugin(t, a, rec, servers)
	res = a.Run(t, "look up owl")
	if got := startedIn(rec); !slices.Equal(got, started) {
		t.Errorf("under bundlectl exec Codex started the servers %q, want %q, those the review lists\n%s", got, started, res)
	}
	if calls := mcpCalls(t, filepath.Join(rec, "t_2_63.jsonl")); len(calls) != 1 || strings.Contains(res.Stderr, "panicked") {
		t.Errorf("under bundlectl exec the call to t_2_63's tool reached the server %d times (want 1), Codex panicked %v\n%s", len(calls), strings.Contains(res.Stderr, "panicked"), res)
	}
}

// writeCodexServersPlugin writes into dir a Codex plugin whose .mcp.json
// declares one fakemcp server per entry of servers (name → the JSON object
// of fields to add: its timeouts), each recording into rec/<name>.jsonl
// and run with args; their tools are called without asking.
func writeCodexServersPlugin(t *testing.T, dir, rec string, servers map[string]string, args ...string) {
	t.Helper()
	all := map[string]any{}
	for name, extra := range servers {
		s := map[string]any{"command": "./bin/fakemcp", "cwd": ".", "default_tools_approval_mode": "approve",
			"args": append(slices.Clip(args), "-record", filepath.Join(rec, name+".jsonl"))}
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(extra), &m); err != nil {
			t.Fatal(err)
		}
		for k, v := range m {
			s[k] = v
		}
		all[name] = s
	}
	writeJSONFile(t, dir, ".codex-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeJSONFile(t, dir, ".mcp.json", map[string]any{"mcpServers": all})
	copyFakeMCP(t, dir)
}

// installCodexServersPlugin puts the plugin of writeCodexServersPlugin in
// Codex's plugin cache and enables it for a's session, as an installed
// plugin.
func installCodexServersPlugin(t *testing.T, a *Agent, rec string, servers map[string]string, args ...string) {
	t.Helper()
	writeCodexServersPlugin(t, filepath.Join(a.ConfigDir(), "plugins", "cache", codexMarketplace, pluginName, "1.0.0"), rec, servers, args...)
	a.Args = []string{"-c", "features.plugins=true", "-c", fmt.Sprintf("plugins={%q={enabled=true}}", codexPluginID)}
	a.Env = append(a.Env, "RUST_LOG=warn") // Codex's reasons, in a failure's output
}

// execCodexServersPlugin puts the plugin of writeCodexServersPlugin in
// a's workspace root, reviewed, trusted and enabled in a fresh bundlectl
// home, and starts a through bundlectl exec.
func execCodexServersPlugin(t *testing.T, a *Agent, rec string, servers map[string]string, args ...string) {
	t.Helper()
	home := filepath.Join(t.TempDir(), "bundlectl-home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Writable(home) })
	writeCodexServersPlugin(t, filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName), rec, servers, args...)
	trustBundle(t, home, a.Workdir, pluginName)
	a.Args = []string{"-c", "features.plugins=true"}
	a.Launcher = execLauncher(t, home, a.Workdir)
}
