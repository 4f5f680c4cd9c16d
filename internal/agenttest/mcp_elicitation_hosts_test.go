package agenttest

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/harness"
)

// elicitServer is a stdio MCP server (Node.js) with one tool, lookup.
// It records whether the client's initialize declares the elicitation
// capability; on a call it sends the client an elicitation/create request
// (relatedRequestId the call's id), records the client's answer as one
// JSON line, and only then answers the call with answer.
const elicitServer = `
const fs = require("fs");
const [answer, rec] = process.argv.slice(2);
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
let buf = "", call;
process.stdin.on("data", (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf("\n")) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.method === "initialize") {
      const caps = (m.params && m.params.capabilities) || {};
      const info = (m.params && m.params.clientInfo) || {};
      fs.appendFileSync(rec, JSON.stringify({elicitationCapability: caps.elicitation !== undefined, clientName: info.name}) + "\n");
      send({jsonrpc: "2.0", id: m.id, result: {protocolVersion: m.params.protocolVersion,
        capabilities: {tools: {}}, serverInfo: {name: "elicit", version: "1.0.0"}}});
    } else if (m.method === "tools/list") {
      send({jsonrpc: "2.0", id: m.id, result: {tools: [{name: "lookup", description: "Look a word up.",
        inputSchema: {type: "object", properties: {query: {type: "string"}}}}]}});
    } else if (m.method === "tools/call") {
      call = m.id;
      send({jsonrpc: "2.0", id: "el-1", method: "elicitation/create", params: {mode: "form", message: "Which dictionary?",
        requestedSchema: {type: "object", properties: {dict: {type: "string"}}}, _meta: {relatedRequestId: m.id}}});
    } else if (m.id === "el-1" && m.method === undefined) {
      fs.appendFileSync(rec, JSON.stringify({answer: m}) + "\n");
      send({jsonrpc: "2.0", id: call, result: {content: [{type: "text", text: answer}]}});
    } else if (m.id !== undefined && m.method !== undefined) {
      send({jsonrpc: "2.0", id: m.id, result: {}});
    }
  }
});
`

// TestHostsMCPElicitationHeadless: what each host does, run headless
// (claude -p, codex exec, gemini -p), with a server's elicitation/create
// request sent during a tool call. Claude Code 2.1.332 and Codex 0.171.0
// declare the elicitation capability and, with no person to ask, answer at
// once (Claude Code {"action":"cancel"}, Codex {"action":"decline"});
// Gemini CLI 0.61.0 declares no elicitation capability and answers with
// JSON-RPC -32601. The call then completes. So headless the pause of a
// host's per-call timer while an elicitation is open — and the proxy's,
// which follows Codex's (docs/harness.md) — lasts only as long as the
// host takes to answer; it matters only when a person answers a form.
// Each host names itself in its initialize's clientInfo.name (claude-code,
// codex-mcp-client, gemini-cli-mcp-client), by which bundlectl mcp pauses
// its call timers for Codex only.
func TestHostsMCPElicitationHeadless(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		h          Host
		capability bool
		answer     string // the host's answer to the elicitation, as JSON
		clientName string // its initialize's clientInfo.name
	}{
		{Claude, true, `{"action":"cancel"}`, "claude-code"},
		{Codex, true, `{"action":"decline"}`, "codex-mcp-client"},
		{GeminiCLI, false, `{"code":-32601,"message":"Method not found"}`, "gemini-cli-mcp-client"},
	} {
		h := c.h
		t.Run(string(h), func(t *testing.T) {
			answer := "elicit-server-answer-42"
			a := New(t, h, MCPCall(h, "elicit", "lookup", map[string]any{"query": "owl"}), Say("got it"))
			rec := configureNodeMCP(t, a, "elicit", elicitServer, answer, nil)
			res := a.Run(t, "look up owl")
			got, _ := os.ReadFile(rec)
			next := a.Model.CallsAt(1)
			answered := len(next) > 0 && next[len(next)-1].Contains(answer)
			var initRec struct {
				ElicitationCapability bool   `json:"elicitationCapability"`
				ClientName            string `json:"clientName"`
			}
			var ansRec struct {
				Answer struct {
					Result json.RawMessage `json:"result"`
					Error  json.RawMessage `json:"error"`
				} `json:"answer"`
			}
			lines := strings.Split(strings.TrimSpace(string(got)), "\n")
			if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &initRec) != nil || json.Unmarshal([]byte(lines[1]), &ansRec) != nil {
				t.Fatalf("the server recorded %q; want its initialize and the host's answer to the elicitation\n%s", got, res)
			}
			hostAnswer := string(ansRec.Answer.Result) + string(ansRec.Answer.Error)
			if initRec.ClientName != c.clientName {
				t.Errorf("%s's initialize names the client %q; want %q", h, initRec.ClientName, c.clientName)
			}
			// bundlectl mcp pauses its call timers for Codex only, the
			// one host that pauses its own, known by this name.
			if pauses := harness.MCPClientPausesForElicitation(initRec.ClientName); pauses != (h == Codex) {
				t.Errorf("the MCP proxy pauses for %s's client %q: %v; want %v", h, initRec.ClientName, pauses, h == Codex)
			}
			if initRec.ElicitationCapability != c.capability || hostAnswer != c.answer || !answered {
				t.Fatalf("%s declared elicitation %v (want %v), answered the elicitation %s (want %s), the call's answer reached the model %v (want true)\n%s", h, initRec.ElicitationCapability, c.capability, hostAnswer, c.answer, answered, res)
			}
		})
	}
}
