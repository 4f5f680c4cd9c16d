package agenttest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Tests of /etc/codex/requirements.toml, the constraints Codex 0.171 reads
// above every configuration layer and -c flag: which of them keep a
// plugin's hooks from running (TestCodexRequirementsPins), and that
// bundlectl exec refuses to start Codex under those
// (TestExecCodexRequirementsOff).

// TestCodexRequirementsPins records, with a plugin of the user's own whose
// PreToolUse hook touches a file, enabled and its hooks turned on by -c
// flags as exec enables a view (hook trust bypassed, which only makes
// more hooks run), which requirements.toml settings keep the hook from
// running, silently (Codex exits 0):
//
//   - [features] plugins = false (the plugin does not load);
//   - [features] hooks = false, and its alias [feature_requirements];
//   - allow_managed_hooks_only = true;
//
// while [hooks] allow_managed_hooks_only = true (the place later Codex
// versions read it from) and allow_managed_hooks_only = true in
// managed_config.toml change nothing in 0.171. (hosts/codex
// RequirementsOff, docs/hosts.md "Codex".)
func TestCodexRequirementsPins(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		etc  map[string]string
		runs bool
	}{
		{name: "none", runs: true},
		{name: "plugins off", etc: map[string]string{"requirements.toml": "[features]\nplugins = false\n"}},
		{name: "hooks off", etc: map[string]string{"requirements.toml": "[features]\nhooks = false\n"}},
		{name: "hooks off, alias", etc: map[string]string{"requirements.toml": "[feature_requirements]\nhooks = false\n"}},
		{name: "managed hooks only", etc: map[string]string{"requirements.toml": "allow_managed_hooks_only = true\n"}},
		{name: "managed hooks only under [hooks]", etc: map[string]string{"requirements.toml": "[hooks]\nallow_managed_hooks_only = true\n"}, runs: true},
		{name: "managed hooks only in managed_config", etc: map[string]string{"managed_config.toml": "allow_managed_hooks_only = true\n"}, runs: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := New(t, Codex, ShellCall(Codex, "true"), Say("done"))
			ran := filepath.Join(t.TempDir(), "own-hook-ran")
			dir := filepath.Join(a.ConfigDir(), "plugins", "cache", ownMarketplace, ownPlugin, "1.0.0")
			writeJSONFile(t, dir, ".codex-plugin/plugin.json", map[string]any{"name": ownPlugin, "version": "1.0.0"})
			writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
				"hooks": []any{map[string]any{"type": "command", "command": "touch " + ran}}}}}})
			if c.etc != nil {
				a.Launcher = overlayEtc(t, c.etc)
			}
			a.Args = []string{"-c", "features.plugins=true", "-c", "features.hooks=true",
				"-c", fmt.Sprintf("plugins={%q={enabled=true}}", ownPluginID), "--dangerously-bypass-hook-trust"}
			res := a.Run(t, "hi")
			if res.Exit != 0 {
				t.Fatalf("codex failed\n%s", res)
			}
			if _, err := os.Stat(ran); (err == nil) != c.runs {
				t.Errorf("the plugin's hook ran: %v, want %v (found by trying Codex 0.171)\n%s", err == nil, c.runs, res)
			}
		})
	}
}

// TestExecCodexRequirementsOff: a requirements.toml that keeps the views'
// guards from running (TestCodexRequirementsPins) makes bundlectl exec
// refuse to start Codex (exit 1), naming the file and the setting; one
// that leaves them alone does not.
func TestExecCodexRequirementsOff(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ req, setting string }{
		{"[features]\nplugins = false\n", "features.plugins = false"},
		{"[features]\nhooks = false\n", "features.hooks = false"},
		{"[feature_requirements]\nhooks = false\n", "feature_requirements.hooks = false"},
		{"allow_managed_hooks_only = true\n", "allow_managed_hooks_only = true"},
		{"[hooks]\nallow_managed_hooks_only = true\n", ""},
	} {
		t.Run(c.setting, func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), markerName)
			turns, _, _, shellTurn := execScript(Codex, marker)
			a := New(t, Codex, turns...)
			f := newTrustedFixture(t, a, marker)
			allowExecTools(a)
			a.Launcher = append(overlayEtc(t, map[string]string{"requirements.toml": c.req}), f.launcher(t)...)
			res := a.Run(t, execPrompt(Codex))
			if c.setting == "" {
				f.checkGuard(t, a, res, shellTurn)
				return
			}
			want := fmt.Sprintf(`"/etc/codex/requirements.toml" sets %s, which would keep them from running, so the agent is not started`, c.setting)
			if _, err := os.Stat(marker); err == nil || res.Exit != 1 || !strings.Contains(res.Stderr, want) || len(a.Model.Requests()) > 0 {
				t.Errorf("want codex never started and %q on stderr\n%s", want, res)
			}
		})
	}
}

// TestCodexRequirementsMCP records what requirements.toml's MCP server
// allow-lists do to a plugin's stdio MCP server in Codex 0.171, which
// starts without a word either way:
//
//   - the top-level [mcp_servers] table (the servers of the configuration
//     files allowed, each with its identity) leaves a plugin's alone;
//   - [plugins."<id>".mcp_servers] lists the servers of that plugin
//     allowed; once any plugin's list is not empty, a plugin's server
//     starts only when its own list names it with its identity, so every
//     plugin without a list loses all of its servers.
//
// (hosts/codex RequirementsMCPOff, docs/hosts.md "Codex".)
func TestCodexRequirementsMCP(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		req    string
		starts bool
	}{
		{name: "none", starts: true},
		{name: "other server allowed", req: "[mcp_servers.other.identity]\ncommand = \"/bin/nothing\"\n", starts: true},
		{name: "its server allowed", req: "[mcp_servers.own-srv.identity]\ncommand = \"FAKEMCP\"\n", starts: true},
		{name: "its server other command", req: "[mcp_servers.own-srv.identity]\ncommand = \"/bin/nothing\"\n", starts: true},
		{name: "plugin table other server", req: "[plugins.\"own@mine\".mcp_servers.other.identity]\ncommand = \"/bin/nothing\"\n"},
		{name: "plugin table its server", req: "[plugins.\"own@mine\".mcp_servers.own-srv.identity]\ncommand = \"FAKEMCP\"\n", starts: true},
		{name: "another plugin table", req: "[plugins.\"else@mine\".mcp_servers.other.identity]\ncommand = \"/bin/nothing\"\n"},
		{name: "plugin table its server other command", req: "[plugins.\"own@mine\".mcp_servers.own-srv.identity]\ncommand = \"/bin/nothing\"\n"},
		{name: "another plugin empty table", req: "[plugins.\"else@mine\".mcp_servers]\n", starts: true},
		{name: "another plugin no servers", req: "[plugins.\"else@mine\"]\n", starts: true},
		{name: "empty plugins table", req: "[plugins]\n", starts: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := New(t, Codex, Say("done"))
			rec := t.TempDir()
			installOwnPlugin(t, a, ownMarketplace, ownPlugin, rec)
			if c.req != "" {
				a.Launcher = overlayEtc(t, map[string]string{"requirements.toml": strings.ReplaceAll(c.req, "FAKEMCP", FakeMCPServer(t))})
			}
			a.Args = []string{"-c", "features.plugins=true", "-c", fmt.Sprintf("plugins={%q={enabled=true}}", ownPluginID)}
			res := a.Run(t, "hi")
			if res.Exit != 0 {
				t.Fatalf("codex failed\n%s", res)
			}
			if got := len(mcpRecord(t, filepath.Join(rec, ownPlugin+".jsonl"))) > 0; got != c.starts {
				t.Errorf("the plugin's MCP server started: %v, want %v (found by trying Codex 0.171)\n%s", got, c.starts, res)
			}
		})
	}
}

// TestExecCodexRequirementsMCP: under a requirements.toml that lists
// another plugin's MCP servers, the view's server never starts
// (TestCodexRequirementsMCP), so bundlectl exec names it, the bundle and
// the file on stderr before Codex starts; the view's guard still blocks.
func TestExecCodexRequirementsMCP(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), markerName)
	turns, _, _, shellTurn := execScript(Codex, marker)
	a := New(t, Codex, turns...)
	f := newTrustedFixture(t, a, marker)
	allowExecTools(a)
	a.Launcher = append(overlayEtc(t, map[string]string{"requirements.toml": "[plugins.\"else@mine\".mcp_servers.other.identity]\ncommand = \"/bin/nothing\"\n"}), f.launcher(t)...)
	res := a.Run(t, execPrompt(Codex))
	want := fmt.Sprintf(`bundlectl: codex: bundle %q: its MCP server "fake" does not start, nor are its tools offered: "/etc/codex/requirements.toml" lists the MCP servers plugins may start (plugin "else@mine" among them)`, pluginName)
	if !strings.Contains(res.Stderr, want) {
		t.Errorf("want %q on stderr\n%s", want, res)
	}
	if got := mcpRecord(t, filepath.Join(f.rec, "mcp.jsonl")); len(got) > 0 {
		t.Errorf("the view's MCP server started: %v", got)
	}
	f.checkGuard(t, a, res, shellTurn)
}

// TestCodexRequirementsMCPForms records the other forms of a plugin's MCP
// allow-list in requirements.toml, with a plugin of the user's own that
// has a stdio server and a streamable HTTP one (Codex 0.171, silently
// either way):
//
//   - an identity `url` lets the HTTP server with that URL start, and
//     neither a server with another URL nor the stdio one;
//   - the matcher forms (identity.url = {match = "prefix", …},
//     identity.command = {executable, args = [matchers]}) allow the same
//     way;
//   - another plugin's list written as dotted keys, under a bare
//     [plugins] header, or as an inline table, with a command or a url
//     identity, keeps both servers of a plugin without a list from
//     starting, as a [plugins."<id>".mcp_servers.<name>.identity] table
//     does (TestCodexRequirementsMCP).
//
// (hosts/codex RequirementsMCPOff, whose note greps the file for these
// lines; docs/hosts.md "Codex".)
func TestCodexRequirementsMCPForms(t *testing.T) {
	t.Parallel()
	const other = "\"else@mine\""
	for _, c := range []struct {
		name       string
		req        string
		stdio, web bool
	}{
		{name: "its web server by url", req: "[plugins.\"own@mine\".mcp_servers.own-web.identity]\nurl = \"WEBURL\"\n", web: true},
		{name: "its web server, other url", req: "[plugins.\"own@mine\".mcp_servers.own-web.identity]\nurl = \"https://else.example/mcp\"\n"},
		{name: "its web server by url prefix", req: "[plugins.\"own@mine\".mcp_servers.own-web.identity.url]\nmatch = \"prefix\"\nvalue = \"http://127.0.0.1:\"\n", web: true},
		{name: "its stdio server by command matcher", req: "[plugins.\"own@mine\".mcp_servers.own-srv.identity.command]\nexecutable = \"FAKEMCP\"\nargs = [{match = \"exact\", value = \"-record\"}, {match = \"regex\", expression = \".*\"}]\n", stdio: true},
		{name: "another plugin, url", req: "[plugins." + other + ".mcp_servers.other.identity]\nurl = \"https://else.example/mcp\"\n"},
		{name: "another plugin, dotted keys", req: "plugins." + other + ".mcp_servers.other.identity.command = \"/bin/nothing\"\n"},
		{name: "another plugin, under [plugins]", req: "[plugins]\n" + other + ".mcp_servers.other.identity.url = \"https://else.example/mcp\"\n"},
		{name: "another plugin, inline table", req: "plugins = { " + other + " = { mcp_servers = { other = { identity = { command = \"/bin/nothing\" } } } } }\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := New(t, Codex, Say("done"))
			rec := t.TempDir()
			web := newRemoteMCP(t, "web answer")
			installOwnPlugin(t, a, ownMarketplace, ownPlugin, rec)
			dir := filepath.Join(a.ConfigDir(), "plugins", "cache", ownMarketplace, ownPlugin, "1.0.0")
			writeJSONFile(t, dir, ".mcp.json", map[string]any{"mcpServers": map[string]any{
				ownPlugin + "-srv": map[string]any{"command": FakeMCPServer(t), "args": []string{"-record", filepath.Join(rec, ownPlugin+".jsonl")}},
				ownPlugin + "-web": map[string]any{"url": web.URL},
			}})
			req := strings.NewReplacer("FAKEMCP", FakeMCPServer(t), "WEBURL", web.URL).Replace(c.req)
			a.Launcher = overlayEtc(t, map[string]string{"requirements.toml": req})
			a.Args = []string{"-c", "features.plugins=true", "-c", fmt.Sprintf("plugins={%q={enabled=true}}", ownPluginID)}
			res := a.Run(t, "hi")
			if res.Exit != 0 {
				t.Fatalf("codex failed\n%s", res)
			}
			stdio := len(mcpRecord(t, filepath.Join(rec, ownPlugin+".jsonl"))) > 0
			reached := len(web.requests()) > 0
			if stdio != c.stdio || reached != c.web {
				t.Errorf("stdio server started: %v, want %v; web server reached: %v, want %v (found by trying Codex 0.171)\n%s", stdio, c.stdio, reached, c.web, res)
			}
		})
	}
}
