package agenttest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// proxyServer is a stdio MCP server (Node.js) run behind bundlectl mcp,
// with two tools: "echo", which sends notifications/progress under the
// call's progress token and answers with the id and the token it got,
// and "hold", which never answers. With a mode other than "plain", a
// call of either sends the client an elicitation/create first, written
// as that mode says (well-formed, or one Codex cannot read), and is never
// answered. It records every line it reads, as it read it, in rec.
const proxyServer = `
const fs = require("fs");
const [mode, rec] = process.argv.slice(2);
const send = (m) => process.stdout.write((typeof m === "string" ? m : JSON.stringify(m)) + "\n");
const params = '"params":{"mode":"form","message":"Which dictionary?","requestedSchema":{"type":"object","properties":{"dict":{"type":"string"}}}}';
const elicitations = {
  "well-formed": '{"jsonrpc":"2.0","id":"el-1","method":"elicitation/create",' + params + '}',
  "repeated-method": '{"jsonrpc":"2.0","id":"el-1","method":"x/y","method":"elicitation/create",' + params + '}',
  "negative-zero-id": '{"jsonrpc":"2.0","id":-0,"method":"elicitation/create",' + params + '}',
  "id-in-capitals": '{"jsonrpc":"2.0","ID":"el-1","method":"elicitation/create",' + params + '}',
  "float-id": '{"jsonrpc":"2.0","id":1.0,"method":"elicitation/create",' + params + '}',
  "exponent-id": '{"jsonrpc":"2.0","id":1e2,"method":"elicitation/create",' + params + '}',
  "fraction-id": '{"jsonrpc":"2.0","id":1.5,"method":"elicitation/create",' + params + '}',
  "past-i64-id": '{"jsonrpc":"2.0","id":9223372036854775808,"method":"elicitation/create",' + params + '}',
  "null-id": '{"jsonrpc":"2.0","id":null,"method":"elicitation/create",' + params + '}',
};
elicitations["batched"] = "[" + elicitations["well-formed"] + "]";
let buf = "";
process.stdin.on("data", (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf("\n")) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    fs.appendFileSync(rec, line + "\n");
    const m = JSON.parse(line);
    if (m.method === "initialize") {
      send({jsonrpc: "2.0", id: m.id, result: {protocolVersion: m.params.protocolVersion,
        capabilities: {tools: {}}, serverInfo: {name: "proxied", version: "1.0.0"}}});
    } else if (m.method === "tools/list") {
      const schema = {type: "object", properties: {query: {type: "string"}}};
      send({jsonrpc: "2.0", id: m.id, result: {tools: [{name: "echo", description: "Echo.", inputSchema: schema},
        {name: "hold", description: "Hold.", inputSchema: schema}]}});
    } else if (m.method === "tools/call") {
      if (mode !== "plain") { send(elicitations[mode]); continue; }
      if (m.params.name !== "echo") continue;
      const token = m.params._meta && m.params._meta.progressToken;
      if (token !== undefined) send({jsonrpc: "2.0", method: "notifications/progress", params: {progressToken: token, progress: 1, total: 1}});
      send({jsonrpc: "2.0", id: m.id, result: {content: [{type: "text", text: "proxied-echo id=" + JSON.stringify(m.id) + " token=" + JSON.stringify(token)}]}});
    } else if (m.id !== undefined && m.method !== undefined) {
      send({jsonrpc: "2.0", id: m.id, result: {}});
    }
  }
});
`

// proxyKit writes the bundle "proxykit" into a's workspace — a Claude
// Code plugin whose server "srv" is proxyServer in mode, reviewed with a
// per-call timeout of timeoutMS — trusts and enables it in home, and
// returns the command and arguments that serve it through bundlectl mcp
// and the file the server records into.
func proxyKit(t *testing.T, a *Agent, home, mode string, timeoutMS int) (command string, args []string, rec string) {
	t.Helper()
	rec = filepath.Join(t.TempDir(), "server.jsonl")
	dir := filepath.Join(a.Workdir, ".bundlectl", "bundles", "proxykit")
	writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "proxykit", "version": "1.0.0"})
	writeJSONFile(t, dir, ".mcp.json", map[string]any{"mcpServers": map[string]any{"srv": map[string]any{
		"command": "node", "args": []string{"./server.js", mode, rec}, "timeout": timeoutMS}}})
	if err := os.WriteFile(filepath.Join(dir, "server.js"), []byte(proxyServer), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Writable(home) })
	trustBundle(t, home, a.Workdir, "proxykit")
	return Bundlectl(t), []string{"--home", home, "--workspace", a.Workdir, "mcp", "proxykit", "srv"}, rec
}

// serveThroughProxy declares the server "proxied" for a's host as the
// command and args of proxyKit, with the host's own wait for each call
// (hostTimeoutSec), and lets the model call its tools.
func serveThroughProxy(t *testing.T, a *Agent, command string, args []string, hostTimeoutSec int) {
	t.Helper()
	switch a.Host {
	case Claude:
		p := filepath.Join(t.TempDir(), "mcp.json")
		j, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"proxied": map[string]any{
			"type": "stdio", "command": command, "args": args, "timeout": hostTimeoutSec * 1000}}})
		if err := os.WriteFile(p, j, 0o644); err != nil {
			t.Fatal(err)
		}
		a.Args = append(a.Args, "--mcp-config", p, "--strict-mcp-config", "--allowedTools", "Bash,mcp__proxied__echo,mcp__proxied__hold")
	case Codex:
		q, _ := json.Marshal(args)
		a.CodexConfig += fmt.Sprintf("[mcp_servers.proxied]\ncommand = %q\nargs = %s\nstartup_timeout_sec = 30.0\ntool_timeout_sec = %d.0\ndefault_tools_approval_mode = \"approve\"\n", command, q, hostTimeoutSec)
	case GeminiCLI:
		a.Settings = merge(a.Settings, map[string]any{"mcpServers": map[string]any{"proxied": map[string]any{
			"command": command, "args": args, "timeout": hostTimeoutSec * 1000}}})
	}
}

// serverLines reads what proxyServer recorded: every line it read, each
// of which must be one JSON object (a batch, an array, fails the test).
func serverLines(t *testing.T, rec string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatalf("the server recorded nothing: %v", err)
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("the server recorded %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	return lines
}

// TestHostsMCPProxyOwnIDs runs each real host (Claude Code 2.1.332, Codex
// 0.171.0, Gemini CLI 0.61.0) against a server behind bundlectl mcp with
// a reviewed per-call timeout, so the proxy forwards every request under
// an id of its own (1, 2, 3 …) and puts the host's back on the answer.
// The host calls "echo", whose answer — naming the id the server got and
// the progress token, which reaches it as the host wrote it — must reach
// the model; then "hold", which the server never answers, until the
// host's own wait (3 s, the reviewed one being 120 s) ends it. Each host
// then sends notifications/cancelled for the call (found by trying), and
// it must reach the server naming the id the server got the call under,
// not the host's own (one less: the hosts number from 0, the proxy from
// 1): the server could not cancel the call otherwise. Every line a host
// sent reaches the server as one object (serverLines fails on any other):
// no host sends a batch, which the proxy would relay as an array.
func TestHostsMCPProxyOwnIDs(t *testing.T) {
	// Not parallel: its outcome turns on a short wait of a host's or the
	// proxy's (see doc.go).
	for _, h := range hosts {
		t.Run(string(h), func(t *testing.T) {
			a := New(t, h, MCPCall(h, "proxied", "echo", map[string]any{"query": "owl"}),
				MCPCall(h, "proxied", "hold", map[string]any{"query": "owl"}), Say("done"))
			command, args, rec := proxyKit(t, a, filepath.Join(t.TempDir(), "home"), "plain", 120000)
			serveThroughProxy(t, a, command, args, 3)
			res := a.Run(t, "look up owl")
			lines := serverLines(t, rec)
			callIDs := map[string]string{} // the id the server got each call under, by tool
			var requestIDs, cancels, metas []string
			for _, m := range lines {
				id, _ := json.Marshal(m["id"])
				params, _ := m["params"].(map[string]any)
				switch {
				case m["id"] != nil && m["method"] != nil:
					requestIDs = append(requestIDs, string(id))
					if m["method"] == "tools/call" {
						callIDs[fmt.Sprint(params["name"])] = string(id)
						meta, _ := json.Marshal(params["_meta"])
						metas = append(metas, string(meta))
					}
				case m["method"] == "notifications/cancelled":
					rid, _ := json.Marshal(params["requestId"])
					cancels = append(cancels, string(rid))
				}
			}
			t.Logf("%s: the server got requests under %v, calls %v (_meta %v), cancellations of %v", h, requestIDs, callIDs, metas, cancels)
			for i, id := range requestIDs {
				if want := fmt.Sprint(i + 1); id != want {
					t.Errorf("request %d reached the server under id %s; want the proxy's %s\n%s", i+1, id, want, res)
				}
			}
			echo, ok := lastAt(a, 1)
			if want := "proxied-echo id=" + callIDs["echo"]; !ok || callIDs["echo"] == "" || !echo.Contains(want) {
				t.Fatalf("the echo's answer (%q) did not reach the model\n%s\n%s", want, res, a.Model.Dump())
			}
			if len(cancels) != 1 || cancels[0] != callIDs["hold"] {
				t.Errorf("the host's cancellations reached the server naming %v; want one, naming %s, the id the server got the held call under\n%s", cancels, callIDs["hold"], res)
			}
		})
	}
}

// TestCodexMCPProxyMalformedElicitation: Codex 0.171.0 behind bundlectl
// mcp (its own wait for a call 60 s, the reviewed one 2 s), calling a tool
// whose server sends an elicitation/create and never answers the call.
// What Codex does with the elicitation, as found by trying: it declines a
// well-formed one at once (headless), also under an id of -0, 1.0 or 1e2,
// whose answer goes under 0, 1 and 100; it answers -32600 with no id at
// all to one it cannot read — "method" given twice, an id that is a
// fraction, past 64 bits or null; and one whose id is named "ID" it does
// not answer at all. The proxy pauses the call's timer while an
// elicitation Codex reads is open, as Codex pauses its own, never for one
// it cannot read (it would never close: the call would have no timer of
// the proxy's), and an error with no id ends every pause. Either way the
// call ends at the reviewed 2 s, with the proxy's error reaching the
// model. (Without the rules the proxy waits for ever and Codex's own 60 s
// ends the call with its own error: the test fails on what reaches the
// model, not on a time.) An elicitation sent in a batch ("batched")
// reaches Codex as a line of its own and Codex declines it; relayed
// whole, as the proxy once did, Codex answered it -32600 with no id, as
// a line it cannot read.
func TestCodexMCPProxyMalformedElicitation(t *testing.T) {
	t.Parallel()
	const undecodable = `error -32600 with no id`
	for _, c := range []struct {
		mode   string
		answer string // Codex's answer to the elicitation, as found by trying
	}{
		{"well-formed", `decline under "el-1"`},
		{"repeated-method", undecodable},
		{"id-in-capitals", "none"},
		{"negative-zero-id", "decline under 0"},
		{"float-id", "decline under 1"},
		{"exponent-id", "decline under 100"},
		{"fraction-id", undecodable},
		{"past-i64-id", undecodable},
		{"null-id", undecodable},
		{"batched", `decline under "el-1"`},
	} {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			a := New(t, Codex, MCPCall(Codex, "proxied", "echo", map[string]any{"query": "owl"}), Say("done"))
			command, args, rec := proxyKit(t, a, filepath.Join(t.TempDir(), "home"), c.mode, 2000)
			serveThroughProxy(t, a, command, args, 60)
			res := a.Run(t, "look up owl")
			clientName, answer := "", "none"
			for _, m := range serverLines(t, rec) {
				switch {
				case m["method"] == "initialize":
					info, _ := m["params"].(map[string]any)["clientInfo"].(map[string]any)
					clientName, _ = info["name"].(string)
				case m["method"] == nil && m["error"] != nil && m["id"] == nil:
					code, _ := m["error"].(map[string]any)["code"].(float64)
					answer = fmt.Sprintf("error %d with no id", int(code))
					if _, has := m["id"]; has {
						answer = fmt.Sprintf("error %d under null", int(code))
					}
				case m["method"] == nil && m["result"] != nil:
					id, _ := json.Marshal(m["id"])
					answer = fmt.Sprintf("%v under %s", m["result"].(map[string]any)["action"], id)
				}
			}
			if clientName != "codex-mcp-client" || answer != c.answer {
				t.Errorf("Codex named itself %q (want codex-mcp-client) and answered the elicitation: %s (want %s, as found by trying)\n%s", clientName, answer, c.answer, res)
			}
			next, ok := lastAt(a, 1)
			if !ok || !next.Contains("passed its reviewed timeout of 2 s") {
				t.Fatalf("the proxy's timeout error did not reach the model: the call was not ended at the reviewed 2 s\n%s\n%s", res, a.Model.Dump())
			}
		})
	}
}
