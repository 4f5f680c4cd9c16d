package agenttest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shapeServer is a stdio MCP server (Node.js) whose one tool, "hold",
// is answered with a reply of the shape its mode names and then never
// again: a message a host may or may not read as the call's answer.
const shapeServer = `
const [mode] = process.argv.slice(2);
const send = (m) => process.stdout.write(m + "\n");
const shapes = {
  "bare-id": (id) => '{"jsonrpc":"2.0","id":' + id + '}',
  "result-in-capitals": (id) => '{"jsonrpc":"2.0","id":' + id + ',"Result":{"content":[{"type":"text","text":"capital"}]}}',
  "method-and-result": (id) => '{"jsonrpc":"2.0","id":' + id + ',"method":"x/y","result":{"content":[{"type":"text","text":"both"}]}}',
  "null-id-at-call": (id) => '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"null id error"}}\n{"jsonrpc":"2.0","id":' + id + ',"result":{"content":[{"type":"text","text":"plain answer"}]}}',
  "null-id-at-initialize": (id) => '{"jsonrpc":"2.0","id":' + id + ',"result":{"content":[{"type":"text","text":"plain answer"}]}}',
  "well-formed": (id) => '{"jsonrpc":"2.0","id":' + id + ',"result":{"content":[{"type":"text","text":"plain answer"}]}}',
  "extra-member": (id) => '{"jsonrpc":"2.0","id":' + id + ',"x":1,"result":{"content":[{"type":"text","text":"extra answer"}]}}',
  "result-and-error": (id) => '{"jsonrpc":"2.0","id":' + id + ',"error":{"code":-32000,"message":"error answer"},"result":{"content":[{"type":"text","text":"result answer"}]}}',
  "no-version": (id) => '{"id":' + id + ',"result":{"content":[{"type":"text","text":"unversioned answer"}]}}',
  "data-twice": (id) => '{"jsonrpc":"2.0","id":' + id + ',"error":{"code":-32000,"message":"data twice answer","data":1,"data":2}}',
  "meta-not-object": (id) => '{"jsonrpc":"2.0","id":' + id + ',"result":{"_meta":1,"content":[{"type":"text","text":"meta answer"}]}}',
  "code-past-int32": (id) => '{"jsonrpc":"2.0","id":' + id + ',"error":{"code":2147483648,"message":"big code answer"}}',
  "code-decimal": (id) => '{"jsonrpc":"2.0","id":' + id + ',"error":{"code":-32000.0,"message":"decimal code answer"}}',
  "code-exponent": (id) => '{"jsonrpc":"2.0","id":' + id + ',"error":{"code":-3.2e4,"message":"exponent code answer"}}',
  "result-empty": (id) => '{"jsonrpc":"2.0","id":' + id + ',"result":{}}',
  "result-array": (id) => '{"jsonrpc":"2.0","id":' + id + ',"result":[]}',
  "result-null": (id) => '{"jsonrpc":"2.0","id":' + id + ',"result":null}',
  "batch": (id) => '[{"jsonrpc":"2.0","id":' + id + ',"result":{"content":[{"type":"text","text":"batch answer"}]}}]',
  "batch-with-notice": (id) => '[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"batched"}},' +
    '{"jsonrpc":"2.0","id":' + id + ',"result":{"content":[{"type":"text","text":"batch answer"}]}}]',
  "batch-extra-member": (id) => '[{"jsonrpc":"2.0","id":' + id + ',"x":1,"result":{"content":[{"type":"text","text":"batch extra answer"}]}}]',
  "message-twice": (id) => '{"jsonrpc":"2.0","id":' + id + ',"error":{"code":-32000,"message":"first","message":"twice answer"}}',
};
// "deep-N": an answer whose containers nest N deep, the message's own
// object and its result included.
const deep = (n) => (id) => '{"jsonrpc":"2.0","id":' + id + ',"result":{"content":[{"type":"text","text":"deep answer"}],"x":' +
  "[".repeat(n - 2) + "]".repeat(n - 2) + '}}';
const shape = (mode) => mode.startsWith("deep-") ? deep(Number(mode.slice(5))) : shapes[mode];
let buf = "";
process.stdin.on("data", (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf("\n")) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.method === "initialize") {
      if (mode === "null-id-at-initialize") send('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"null id error"}}');
      send(JSON.stringify({jsonrpc: "2.0", id: m.id, result: {protocolVersion: m.params.protocolVersion,
        capabilities: {tools: {}}, serverInfo: {name: "proxied", version: "1.0.0"}}}));
    } else if (m.method === "tools/list") {
      send(JSON.stringify({jsonrpc: "2.0", id: m.id, result: {tools: [{name: "hold", description: "Hold.",
        inputSchema: {type: "object", properties: {query: {type: "string"}}}}]}}));
    } else if (m.method === "tools/call") {
      send(shape(mode)(JSON.stringify(m.id)));
    } else if (m.id !== undefined && m.method !== undefined) {
      send(JSON.stringify({jsonrpc: "2.0", id: m.id, result: {}}));
    }
  }
});
`

// TestHostsMCPProxyReplyShapes: each real host (Claude Code 2.1.332,
// Codex 0.171.0, Gemini CLI 0.61.0) behind bundlectl mcp, the reviewed
// wait for a call 2 s and the host's own 30 s, calls "hold", whose server
// answers with a reply of one shape and never again. Before the proxy
// settled only the strict shape it settled every one of these and
// relayed it, and each host but where marked ran to its own 30 s: no
// host read "Result" or a reply with a method or without "jsonrpc",
// Claude Code and Gemini CLI not one with another member (Codex did),
// Codex and Gemini CLI not {"jsonrpc","id"} alone (Claude Code did,
// at 2 s) nor one with both a result and an error (Claude Code did).
// Nor, of the strict shape, did Codex read an error with code 2147483648
// (an i32 to it) or with "message" or "data" twice, or an answer nested 128 deep
// (serde_json's limit; it read 127), nor Gemini CLI a result whose
// "_meta" is 1 (Claude Code answered that with an error of its own).
// Nor did Codex read an error whose code is a whole number written with
// a fraction or an exponent (-32000.0, -3.2e4: serde reads no float into
// its i32), which Claude Code and Gemini CLI both answered at once; nor
// Gemini CLI a result that is [] or null (the SDK's schema wants an
// object), which Claude Code and Codex both answered at once with an
// error of their own. (Found by letting the proxy settle these.)
// Now the proxy drops each, the call stays timed, and its error at the
// reviewed 2 s reaches the model; a well-formed answer, one nested
// 127 deep, and a result that is {} still do: every host reads {} as
// the answer, each in its own words (Codex as an error).
// A batch holding a well-formed answer ("batch", "batch-with-notice")
// no host read either: each ran to its own 30 s, while the proxy, which
// relayed the batch whole, had stopped the call's timer on the answer
// in it. Now the proxy relays a batch one message a line and each host
// reads the answer; a reply in a batch of a shape some host does not
// read ("batch-extra-member") still gets the proxy's error at 2 s.
// A reply nested 10001 deep ("deep-10001"), past what the proxy reads,
// is answered at once with the proxy's error, whose message ends with a
// hint line ("\nbundlectl: hint: bundlectl mcp --help"): each host must
// pass that message, its hint line included, to the model.
// (The test fails on what reaches the model, not on a time.)
func TestHostsMCPProxyReplyShapes(t *testing.T) {
	t.Parallel()
	modes := []string{"well-formed", "bare-id", "result-in-capitals", "method-and-result", "extra-member", "result-and-error", "no-version",
		"meta-not-object", "code-past-int32", "message-twice", "data-twice", "deep-127", "deep-128",
		"code-decimal", "code-exponent", "result-empty", "result-array", "result-null", "batch", "batch-with-notice", "batch-extra-member", "deep-10001"}
	if m := os.Getenv("SHAPES"); m != "" {
		modes = strings.Split(m, ",")
	}
	for _, mode := range modes {
		for _, h := range hosts {
			t.Run(mode+"/"+string(h), func(t *testing.T) {
				t.Parallel()
				a := New(t, h, MCPCall(h, "proxied", "hold", map[string]any{"query": "owl"}), Say("done"))
				command, args := shapeKit(t, a, filepath.Join(t.TempDir(), "home"), mode)
				serveThroughProxy(t, a, command, args, 30)
				res := a.Run(t, "look up owl")
				want := "passed its reviewed timeout of 2 s"
				switch mode {
				case "well-formed":
					want = "plain answer"
				case "deep-127":
					want = "deep answer"
				case "batch", "batch-with-notice":
					want = "batch answer"
				case "result-empty":
					want = emptyResultSeen[h]
				case "deep-10001":
					want = "nests deeper than 10000 levels"
				}
				next, ok := lastAt(a, 1)
				// Gemini CLI sends {} as a JSON object, not a string:
				// look for it in the body as written.
				seen := ok && (next.Contains(want) || mode == "result-empty" && bytes.Contains(next.Body, []byte(want)))
				if seen && mode == "deep-10001" && !next.Contains("bundlectl: hint: bundlectl mcp --help") {
					t.Fatalf("the proxy's error for the reply nested 10001 deep reached the model without its hint line; it got %q\n%s", toolOutcome(next), res)
				}
				if !seen {
					t.Fatalf("%q did not reach the model after the server's %s reply; it got %q\n%s\n%s", want, mode, toolOutcome(next), res, a.Model.Dump())
				}
			})
		}
	}
}

// emptyResultSeen is what each host gives the model for a call whose
// answer is {"result":{}}.
var emptyResultSeen = map[Host]string{
	Claude:    "completed with no output",
	Codex:     "Unexpected response type",
	GeminiCLI: `"name":"mcp_proxied_hold","response":{}`,
}

// shapeKit writes the bundle "shapekit" (a Claude Code plugin whose
// server "srv" is shapeServer in mode, reviewed with a per-call timeout
// of 2 s) into a's workspace, trusts it in home, and returns the command
// and arguments that serve it through bundlectl mcp.
func shapeKit(t *testing.T, a *Agent, home, mode string) (string, []string) {
	t.Helper()
	return shapeKitServed(t, a, home, mode, map[string]any{"timeout": 2000})
}

// shapeKitFiltered is shapeKit reviewed with no per-call timeout and a
// tool filter (excludeTools "other"): bundlectl mcp proxies it to filter
// tools only, passing the client's ids and timing no call.
func shapeKitFiltered(t *testing.T, a *Agent, home, mode string) (string, []string) {
	t.Helper()
	return shapeKitServed(t, a, home, mode, map[string]any{"excludeTools": []string{"other"}})
}

// shapeKitServed is shapeKit with the server entry's other members.
func shapeKitServed(t *testing.T, a *Agent, home, mode string, entry map[string]any) (string, []string) {
	t.Helper()
	dir := filepath.Join(a.Workdir, ".bundlectl", "bundles", "shapekit")
	writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "shapekit", "version": "1.0.0"})
	srv := map[string]any{"command": "node", "args": []string{"./server.js", mode}}
	for k, v := range entry {
		srv[k] = v
	}
	writeJSONFile(t, dir, ".mcp.json", map[string]any{"mcpServers": map[string]any{"srv": srv}})
	if err := os.WriteFile(filepath.Join(dir, "server.js"), []byte(shapeServer), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Writable(home) })
	trustBundle(t, home, a.Workdir, "shapekit")
	return Bundlectl(t), []string{"--home", home, "--workspace", a.Workdir, "mcp", "shapekit", "srv"}
}

// toolOutcome is the tool result in a model request: what follows the
// last tool_result (Claude Code), function_call_output (Codex) or
// functionResponse (Gemini CLI) in its body.
func toolOutcome(r Request) string {
	at := -1
	for _, k := range []string{"tool_result", "function_call_output", "functionResponse"} {
		at = max(at, bytes.LastIndex(r.Body, []byte(k)))
	}
	if at < 0 {
		return ""
	}
	return string(r.Body[at:min(len(r.Body), at+600)])
}
