package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// FuzzJudgeWalkedAsDecoded: judge, which walks a client message where it
// lies, gives every message fromClient judges (one valid UTF-8 JSON
// object, alone or in a batch) the verdict of judgeDecoded, the judge it
// replaced, which decoded the message's members first: the cheaper path
// refuses, answers and forwards exactly the same. Under both filters,
// with and without a call timeout.
func FuzzJudgeWalkedAsDecoded(f *testing.F) {
	for _, l := range seedLines(f, "client.jsonl") {
		f.Add(l)
	}
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_all"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","NAME":"delete_all"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"},"Params":{"name":"delete_all"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"n\u0061me":"delete_all"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":1}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"METHOD":"Tools/Call","params":{"name":"delete_all"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","method":"tools/call","params":{"name":"delete_all"}}`,
		`{"jsonrpc":"2.0","id":1,"method":2}`,
		`{"jsonrpc":"2.0","ID":"a","id":{},"method":"tools/list"}`,
		`{"jsonrpc":"2.0","\u0069d":"a","Id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":true,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"` + strings.Repeat("i", maxIDLen+1) + `","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"action":"decline"}}`,
		` { "jsonrpc" : "2.0" , "id" : 1 , "method" : "tools/call" , "params" : { "name" : "echo" } } `,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_all"}},{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"d\u0065lete_all"}}`,
		// The walker's own string reading: escapes it skips over in a
		// name or a value, pairs and lone surrogates, NUL, an escaped
		// quote or backslash before the closing one, and deep values.
		`{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"delete_all"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\ud835\udc1delete_all"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_all\ud800"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\udc00","name":"delete_all\u0000x"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x\"":"\\","name\\":1,"name":"delete_all"}}`,
		`{"jsonrpc":"2.0","id":"\"\\","method":"tools/call","params":{"a":{"name":"echo"},"name":"delete_all"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"a":` + strings.Repeat(`[{"name":"echo"},`, 200) + `1` + strings.Repeat("]", 200) + `,"name":"delete_all"}}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"tools/call","params":{"name":"echo"}}`,
		`{"jsonrpc":"2.0","id":-0.0,"method":"tools/call","params":{"name":"\uFEFFdelete_all"}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}\t,\"PARAMS\"\r\n:{\"Name\":\"delete_all\"}}",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"},"params":[]}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","\u0070arams":{"\u004e\u0041\u004d\u0045":"delete_all"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","paramſ":{"name":"delete_all"}}`,
		// A method a loose server may read as tools/call.
		`{"jsonrpc":"2.0","id":1,"method":" tools/call","params":{"name":"delete_all"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call\u0000x","params":{"name":"delete_all"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"\uff54\uff4f\uff4f\uff4c\uff53/call","params":{"name":"delete_all"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"\ufefftools/call\n","params":{"name":"echo"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/ca\u2113l","params":{"name":"delete_all"}}`,
		// A loose method whose core is past maxLooseMethod: a call, unnormalised.
		`{"jsonrpc":"2.0","id":1,"method":"` + strings.Repeat("\ufdfa", 90) + `","params":{"name":"delete_all"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"` + strings.Repeat(" ", 300) + `tools/c\u00e0ll` + strings.Repeat("a", 300) + `","params":{"name":"echo"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if !utf8.Valid(line) || !json.Valid(line) {
			return // fromClient judges no such line
		}
		objs := []json.RawMessage{line}
		if firstByte(line) == '[' {
			objs, _ = arrayElements(line)
		}
		for _, obj := range objs {
			if firstByte(obj) != '{' {
				continue // fromClient answers without judging
			}
			for _, filter := range []ToolFilter{excludeFilter, includeFilter} {
				for _, timeout := range []time.Duration{0, time.Hour} {
					p := &proxy{filter: filter, callTimeout: timeout, who: `"kit" server "fs"`}
					walked, decoded := p.judge(obj), p.judgeDecoded(obj)
					if walked.code != decoded.code || walked.msg != decoded.msg || !bytes.Equal(walked.id, decoded.id) {
						t.Fatalf("judge of %q (filter %+v, timeout %v) = %+v; decoded, %+v", obj, filter, timeout, walked, decoded)
					}
				}
			}
		}
	})
}

// TestJudgeAllocatesNoMembers: the walk judges a client's tools/call
// with at most three allocations (its method, its tool's name and the id
// it may answer under), where judgeDecoded makes 91. (An exclude
// filter's Allows allocates on its own, for either judge.)
func TestJudgeAllocatesNoMembers(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world"}}}`)
	p := &proxy{filter: includeFilter}
	if n := testing.AllocsPerRun(100, func() { p.judge(line) }); n > 3 {
		t.Errorf("judge made %v allocations; want at most 3", n)
	}
}

// judgeDecoded is the judge the walk replaced, kept as the reference
// of FuzzJudgeWalkedAsDecoded: it decodes the members first.
func (p *proxy) judgeDecoded(obj []byte) verdict {
	ms, ok := jsonobj.Members(obj)
	if !ok {
		return verdict{code: rpcInvalidRequest, msg: "invalid request"}
	}
	id := messageID(ms)
	isCall, isCancel, isRequest, isReply := false, false, false, false
	for _, m := range ms {
		isReply = isReply || strings.EqualFold(m.Key, "result") || strings.EqualFold(m.Key, "error")
		if !strings.EqualFold(m.Key, "method") {
			continue
		}
		method, ok := jsonString(m.Val)
		if !ok {
			return verdict{code: rpcInvalidRequest, msg: "invalid request: method is not a string", id: id}
		}
		core, _, _ := strings.Cut(method, "\x00")
		long := !plainMethod(method) && len(strings.TrimFunc(core, trimmedByAServer)) > maxLooseMethod // a call unnormalised (fail closed)
		isCall = isCall || strings.EqualFold(method, "tools/call") || long || toolKey(method) == "tools/call"
		isCancel = isCancel || strings.EqualFold(method, "notifications/cancelled")
		isRequest = true
	}
	if v := p.judgeRequestID(id, isRequest, isReply); v.code != 0 {
		return v
	}
	if isCancel && id != nil && p.callTimeout > 0 {
		// Forwarded as a request under the proxy's id, its requestId
		// would keep the client's id, which a server reading the
		// notification (ignoring the id) takes for the proxy's id of
		// another request.
		return verdict{code: rpcInvalidRequest, msg: "invalid request: notifications/cancelled is a notification and has no id", id: id}
	}
	if !isCall {
		return verdict{id: id}
	}
	seen := false
	for _, m := range ms {
		if !strings.EqualFold(m.Key, "params") {
			continue
		}
		params, ok := jsonobj.Members(m.Val)
		if !ok {
			return verdict{code: rpcInvalidParams, msg: "invalid params: tools/call params is not an object", id: id}
		}
		named := false
		for _, pm := range params {
			if !strings.EqualFold(pm.Key, "name") {
				continue
			}
			name, ok := jsonString(pm.Val)
			if !ok {
				return verdict{code: rpcInvalidParams, msg: "invalid params: tools/call name is not a string", id: id}
			}
			if !p.filter.Allows(name) {
				return verdict{code: rpcInvalidParams, msg: fmt.Sprintf("tool %q is not available: the reviewed tool filter of %s does not allow it", name, p.server()), id: id}
			}
			named = true
		}
		if !named {
			return verdict{code: rpcInvalidParams, msg: "invalid params: tools/call without a tool name", id: id}
		}
		seen = true
	}
	if !seen {
		return verdict{code: rpcInvalidParams, msg: "invalid params: tools/call without params", id: id}
	}
	return verdict{id: id}
}
