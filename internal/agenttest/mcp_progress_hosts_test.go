package agenttest

import (
	"encoding/json"
	"os"
	"testing"
)

// progressServer is a stdio MCP server (Node.js) with one tool, lookup,
// that sends notifications/progress under the call's progressToken (and,
// when the call has none, under the call's id) every 200 ms for 3 s, and
// then answers with answer. It appends "called" to rec when a call comes.
const progressServer = `
const fs = require("fs");
const [answer, rec] = process.argv.slice(2);
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
let buf = "";
process.stdin.on("data", (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf("\n")) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.method === "initialize") {
      send({jsonrpc: "2.0", id: m.id, result: {protocolVersion: m.params.protocolVersion,
        capabilities: {tools: {}}, serverInfo: {name: "progress", version: "1.0.0"}}});
    } else if (m.method === "tools/list") {
      send({jsonrpc: "2.0", id: m.id, result: {tools: [{name: "lookup", description: "Look a word up.",
        inputSchema: {type: "object", properties: {query: {type: "string"}}}}]}});
    } else if (m.method === "tools/call") {
      fs.appendFileSync(rec, "called\n");
      const token = (m.params._meta && m.params._meta.progressToken !== undefined) ? m.params._meta.progressToken : m.id;
      let n = 0;
      const tick = setInterval(() => {
        n++;
        send({jsonrpc: "2.0", method: "notifications/progress", params: {progressToken: token, progress: n, total: 15}});
        if (n === 15) {
          clearInterval(tick);
          send({jsonrpc: "2.0", id: m.id, result: {content: [{type: "text", text: answer}]}});
        }
      }, 200);
    } else if (m.id !== undefined) {
      send({jsonrpc: "2.0", id: m.id, result: {}});
    }
  }
});
`

// TestHostsMCPProgressNoExtension: neither Claude Code 2.1.332 nor Gemini
// CLI 0.61.0 extends its wait for a tool call when the server sends
// notifications/progress for it. A server declared with a timeout of
// 1000 ms that sends progress every 200 ms and answers after 3 s has its
// answer never reach the model; declared without a timeout, it does.
// (Their code agrees: Gemini CLI passes
// callTool only a timeout, so the MCP SDK's resetTimeoutOnProgress is
// false; Claude Code's own fixed per-call timer ignores progress, which
// only feeds its idle watchdog.) bundlectl's MCP proxy therefore times a
// call from its forwarding and ignores progress too (docs/harness.md):
// extending its reviewed wait would let a call run past the host's.
func TestHostsMCPProgressNoExtension(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		h        Host
		timeout  bool
		answered bool
	}{
		{Claude, true, false},
		{Claude, false, true},
		{GeminiCLI, true, false},
		{GeminiCLI, false, true},
	} {
		h := c.h
		t.Run(string(h)+map[bool]string{true: "/timeout-1000", false: "/no-timeout"}[c.timeout], func(t *testing.T) {
			answer := "progress-server-answer-42"
			a := New(t, h, MCPCall(h, "prog", "lookup", map[string]any{"query": "owl"}), Say("got it"))
			var extra map[string]any
			if c.timeout {
				extra = map[string]any{"timeout": json.Number("1000")}
			}
			rec := configureNodeMCP(t, a, "prog", progressServer, answer, extra)
			res := a.Run(t, "look up owl")
			next := a.Model.CallsAt(1)
			if len(next) == 0 {
				t.Fatalf("the model was not asked again after the tool call\n%s", res)
			}
			called, _ := os.ReadFile(rec)
			if answered := next[len(next)-1].Contains(answer); string(called) != "called\n" || answered != c.answered {
				t.Fatalf("timeout %v: tool called %q (want once), the answer sent after 3 s of progress reached the model %v (want %v), as %s did when tried\n%s", c.timeout, called, answered, c.answered, h, res)
			}
		})
	}
}
