package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

var (
	excludeFilter = ToolFilter{Exclude: []string{"delete_all"}}
	includeFilter = ToolFilter{Include: []string{"echo", "notify"}}
)

func TestProxyToolFilterAllows(t *testing.T) {
	cases := []struct {
		f    ToolFilter
		name string
		want bool
	}{
		{ToolFilter{}, "anything", true},
		{excludeFilter, "echo", true},
		{excludeFilter, "delete_all", false},
		{excludeFilter, "Delete_ALL", false},                               // a case-insensitive server must not be reachable
		{excludeFilter, " delete_all\t", false},                            // nor one that trims
		{excludeFilter, "\uff44\uff45\uff4c\uff45\uff54\uff45_all", false}, // nor one that NFKC-normalises (fullwidth)
		{excludeFilter, "delete\ufe4dall", false},                          // a compatibility low line
		{ToolFilter{Exclude: []string{"strasse"}}, "STRA\u1e9eE", false},   // full case folding: capital sharp s
		{ToolFilter{Exclude: []string{"stra\u00dfe"}}, "STRASSE", false},
		{ToolFilter{Exclude: []string{"\u212aelvin"}}, "kelvin", false},           // Kelvin sign
		{excludeFilter, "\ufeffdelete_all", false},                                // JavaScript's trim takes a byte-order mark
		{excludeFilter, "\x1cdelete_all", false},                                  // Python's strip takes \x1c-\x1f
		{excludeFilter, "delete_all\x00", false},                                  // a C string ends at NUL
		{ToolFilter{Exclude: []string{"delete_file"}}, "delete_f\u0131le", false}, // dotless i: "DELETE_FILE" upper-cased
		{ToolFilter{Exclude: []string{"delete_file"}}, "DELETE_F\u0130LE", false}, // dotted capital I: Go's strings.ToLower makes it "i"
		{ToolFilter{Exclude: []string{"delete_file"}}, "delete_f\u0130le", false},
		{ToolFilter{Exclude: []string{"DELETE_F\u0130LE"}}, "delete_fi\u0307le", false}, // Python's lower() of the excluded name
		{ToolFilter{Exclude: []string{"DELETE_F\u0130LE"}}, "delete_file", false},
		{ToolFilter{Exclude: []string{"\u13a0"}}, "\uab70", false}, // Cherokee: x/text's fold swaps the cases
		{ToolFilter{Exclude: []string{"\uab70"}}, "\u13a0", false},
		{excludeFilter, "delete_all2", true},
		{excludeFilter, "delete all", true},
		{includeFilter, "echo", true},
		{includeFilter, "Echo", false}, // include is exact
		{includeFilter, "secret", false},
		{ToolFilter{Include: []string{"a", "b"}, Exclude: []string{"b"}}, "b", false},
		{ToolFilter{Include: []string{}, Exclude: []string{}}, "x", true},
	}
	for _, c := range cases {
		if got := c.f.Allows(c.name); got != c.want {
			t.Errorf("%+v.Allows(%q) = %v", c.f, c.name, got)
		}
	}
	if !(ToolFilter{Include: []string{}}).Empty() || excludeFilter.Empty() {
		t.Error("Empty is wrong")
	}
}

// allowsRecomputed is ToolFilter.Allows as it was before a proxy made
// the exclude list's keys once: every entry's key made anew per name.
func allowsRecomputed(f ToolFilter, name string) bool {
	if len(f.Include) > 0 && !slices.Contains(f.Include, name) {
		return false
	}
	key := toolKey(name)
	for _, x := range f.Exclude {
		if toolKey(x) == key || strings.EqualFold(x, name) {
			return false
		}
	}
	return true
}

// FuzzProxyAllowsAsRecomputed: a proxy, which makes its exclude list's
// keys once and judges many names with them, allows exactly the names
// the filter allows with each key made anew, whatever names it judged
// before; and so does ToolFilter.Allows.
func FuzzProxyAllowsAsRecomputed(f *testing.F) {
	f.Add("delete_all", "", "Delete_ALL", " delete_all\t")
	f.Add("stra\u00dfe", "", "STRA\u1e9eE", "strasse")
	f.Add("DELETE_F\u0130LE", "delete_file", "delete_fi\u0307le", "delete_f\u0131le")
	f.Add("\u13a0", "", "\uab70", "\u13a0")
	f.Add("\u212aelvin", "a", "kelvin", "a")
	f.Add("b", "a", "b", "a")
	f.Fuzz(func(t *testing.T, exclude, include, name1, name2 string) {
		filter := ToolFilter{Exclude: strings.Split(exclude, ",")}
		if include != "" {
			filter.Include = strings.Split(include, ",")
		}
		p := &proxy{filter: filter}
		for _, name := range []string{name1, name2, name1} {
			want := allowsRecomputed(filter, name)
			if got := p.allows(name); got != want {
				t.Fatalf("proxy with %+v allows %q: %v; recomputed: %v", filter, name, got, want)
			}
			if got := filter.Allows(name); got != want {
				t.Fatalf("%+v.Allows(%q) = %v; recomputed: %v", filter, name, got, want)
			}
		}
	})
}

// seedLines reads the seed messages of testdata/mcp/<name>.
func seedLines(t testing.TB, name string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "mcp", name))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// TestProxyClientMessages: which seed messages from a client reach the
// server under the exclude filter; every other one is answered, except a
// notification, which is dropped.
func TestProxyClientMessages(t *testing.T) {
	forwarded := map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 23: true, 26: true} // lines of client.jsonl
	// A notification, and lines with no id an error could go under
	// (TestProxyAnswersNoClientLineUnderNull).
	silent := map[int]bool{21: true, 24: true, 25: true, 27: true, 28: true, 29: true, 30: true, 31: true, 32: true}
	p := &proxy{filter: excludeFilter, notices: io.Discard}
	for i, line := range seedLines(t, "client.jsonl") {
		n := i + 1
		fwd, reply, _ := p.fromClient(line)
		if fwd != forwarded[n] {
			t.Errorf("line %d %s: forwarded %v", n, line, fwd)
		}
		if (reply == nil) != (fwd || silent[n]) {
			t.Errorf("line %d %s: answer %s", n, line, reply)
		}
		if reply != nil && !json.Valid(reply) {
			t.Errorf("line %d: answer %s is not JSON", n, reply)
		}
	}
	// The refusal is a JSON-RPC error under the request's id.
	_, reply, _ := p.fromClient([]byte(`{"jsonrpc":"2.0","id":"x7","method":"tools/call","params":{"name":"delete_all"}}`))
	var resp struct {
		ID    string `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(reply, &resp); err != nil || resp.ID != "x7" || resp.Error.Code != rpcInvalidParams ||
		!strings.Contains(resp.Error.Message, `"delete_all"`) {
		t.Fatalf("reply %s", reply)
	}
}

// TestProxyServerMessages: tool lists lose refused tools, in every
// spelling a lenient client could read; what cannot name a tool passes
// unchanged; what cannot be read but could name one is dropped.
func TestProxyServerMessages(t *testing.T) {
	dropped := map[int]bool{16: true, 17: true, 18: true, 19: true, 23: true} // lines of server.jsonl
	unchanged := map[int]bool{1: true, 3: true, 4: true, 5: true, 20: true, 21: true, 24: true}
	p := &proxy{filter: excludeFilter, notices: io.Discard}
	for i, line := range seedLines(t, "server.jsonl") {
		n := i + 1
		out, ok := p.fromServer(line)
		if ok == dropped[n] {
			t.Errorf("line %d %s: relayed %v", n, line, ok)
			continue
		}
		if !ok {
			continue
		}
		if name, bad := refusedToolListed(out, excludeFilter); bad {
			t.Errorf("line %d: %q still listed in %s", n, name, out)
		}
		if bytes.Equal(out, line) != unchanged[n] {
			t.Errorf("line %d: %s relayed as %s", n, line, out)
		}
	}
	// Pagination survives filtering.
	out, _ := p.fromServer([]byte(`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"delete_all"}],"nextCursor":"2"}}`))
	var page struct {
		Result struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &page); err != nil || len(page.Result.Tools) != 0 || page.Result.NextCursor != "2" {
		t.Fatalf("filtered page %s", out)
	}
}

func FuzzProxyClientMessage(f *testing.F) {
	for _, l := range seedLines(f, "client.jsonl") {
		f.Add(l)
	}
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"x\":\r{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"delete_all\"}}\r}"))
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"t\":\"\u2028\u0085\u2029\"}}}\r"))
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, filter := range []ToolFilter{excludeFilter, includeFilter} {
			p := &proxy{filter: filter, notices: io.Discard}
			fwd, reply, _ := p.fromClient(line)
			if reply != nil && !json.Valid(reply) {
				t.Fatalf("reply %q is not JSON", reply)
			}
			if !fwd {
				continue
			}
			if !json.Valid(line) {
				t.Fatalf("forwarded a message that is not JSON: %q", line)
			}
			if name, bad := refusedCall(line, filter); bad {
				t.Fatalf("forwarded a call of %q refused by %+v: %s", name, filter, line)
			}
			written := writtenLine(t, line)
			if !sameTokens(written, line) {
				t.Fatalf("forwarded %q as %q", line, written)
			}
		}
	})
}

func FuzzProxyServerMessage(f *testing.F) {
	for _, l := range seedLines(f, "server.jsonl") {
		f.Add(l)
	}
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":2,\"x\":\r{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[{\"name\":\"delete_all\"}]}}\r,\"result\":{\"tools\":[]}}"))
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[{\"name\":\"echo\",\"description\":\"\u2028\u0085\u2029\"}]}}"))
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, filter := range []ToolFilter{excludeFilter, includeFilter} {
			p := &proxy{filter: filter, notices: io.Discard}
			out, ok := p.fromServer(line)
			if !ok {
				continue
			}
			written := writtenLine(t, out)
			if !json.Valid(out) {
				t.Fatalf("relayed a line that is not one JSON value: %q", out)
			}
			if name, bad := refusedToolListed(out, filter); bad {
				t.Fatalf("relayed %q refused by %+v: %s", name, filter, out)
			}
			if !sameTokens(written, out) {
				t.Fatalf("relayed %q as %q", out, written)
			}
		}
	})
}

// writtenLine is what writeLine writes of msg, checked to read as one
// line to the most lenient line reader, without its line end.
func writtenLine(t *testing.T, msg []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := writeLine(&buf, msg); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(buf.Bytes()))
	sc.Buffer(nil, 2*MaxMCPMessage)
	sc.Split(splitLenient)
	var lines [][]byte
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	if sc.Err() != nil || len(lines) != 1 {
		t.Fatalf("%q written as %q reads as %d lines (%v)", msg, buf.Bytes(), len(lines), sc.Err())
	}
	return lines[0]
}

// sameTokens reports whether a and b are the same JSON token sequence:
// the same message, whitespace and escapes aside.
func sameTokens(a, b []byte) bool {
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	for {
		ta, ea := da.Token()
		tb, eb := db.Token()
		if ea != nil || eb != nil {
			return errors.Is(ea, io.EOF) && errors.Is(eb, io.EOF)
		}
		if ta != tb {
			return false
		}
	}
}

// The oracles below read a message as lenient clients and servers would,
// independently of the proxy's code: every occurrence of a member in any
// letter case (tokens), the last one (a map) and Go's case-insensitive
// struct decoding.

// foldValues returns every value of a member of obj whose name folds to
// key, from a token walk.
func foldValues(obj json.RawMessage, key string) []json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []json.RawMessage
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return out
		}
		if k, _ := t.(string); strings.EqualFold(k, key) {
			out = append(out, v)
		}
	}
	return out
}

func messages(raw []byte) []json.RawMessage {
	var batch []json.RawMessage
	if json.Unmarshal(raw, &batch) == nil {
		return batch
	}
	return []json.RawMessage{raw}
}

// refusedCall reports a tools/call of a tool filter refuses, or one whose
// tool it cannot see.
func refusedCall(raw []byte, filter ToolFilter) (string, bool) {
	for _, msg := range messages(raw) {
		isCall := false
		for _, m := range foldValues(msg, "method") {
			var s string
			if json.Unmarshal(m, &s) == nil && (strings.EqualFold(s, "tools/call") || toolKey(s) == "tools/call") {
				isCall = true // as a server that looks methods up loosely reads it
			}
		}
		var st struct {
			Method string
			Params struct{ Name string }
		}
		_ = json.Unmarshal(msg, &st)
		if strings.EqualFold(st.Method, "tools/call") {
			isCall = true
			if !filter.Allows(st.Params.Name) {
				return st.Params.Name, true
			}
		}
		var last map[string]any
		_ = json.Unmarshal(msg, &last)
		if s, _ := last["method"].(string); s == "tools/call" {
			params, _ := last["params"].(map[string]any)
			if name, ok := params["name"].(string); ok && !filter.Allows(name) {
				return name, true
			}
		}
		if !isCall {
			continue
		}
		names := 0
		for _, params := range foldValues(msg, "params") {
			for _, n := range foldValues(params, "name") {
				var s string
				if json.Unmarshal(n, &s) != nil || !filter.Allows(s) {
					return s, true
				}
				names++
			}
		}
		if names == 0 {
			return "", true
		}
	}
	return "", false
}

// refusedToolListed reports a tool filter refuses in a tool list of the
// message, as any of the readers would see it.
func refusedToolListed(raw []byte, filter ToolFilter) (string, bool) {
	for _, msg := range messages(raw) {
		for _, result := range foldValues(msg, "result") {
			for _, tools := range foldValues(result, "tools") {
				var list []json.RawMessage
				_ = json.Unmarshal(tools, &list)
				for _, tool := range list {
					for _, n := range foldValues(tool, "name") {
						var s string
						if json.Unmarshal(n, &s) == nil && !filter.Allows(s) {
							return s, true
						}
					}
				}
			}
		}
		var st struct {
			Result struct{ Tools []struct{ Name string } }
		}
		_ = json.Unmarshal(msg, &st)
		for _, tool := range st.Result.Tools {
			if tool.Name != "" && !filter.Allows(tool.Name) {
				return tool.Name, true
			}
		}
	}
	return "", false
}

// mcpServerMain is a tiny stdio MCP server: three tools over two pages,
// plus "notify", which announces a changed tool list, "hold", answered
// only at test/release, and "elicit", held too after it sends the client
// an elicitation/create under id "el-<call id>". Every tools/call it
// receives is appended to $HARNESS_TEST_LOG before it answers, and so is
// every client answer to an elicitation ("answer:<id>:result|error").
func mcpServerMain() int {
	logPath := os.Getenv("HARNESS_TEST_LOG")
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	in.Split(splitLenient)
	out := json.NewEncoder(os.Stdout)
	tool := func(name string) map[string]any {
		return map[string]any{"name": name, "inputSchema": map[string]any{"type": "object"}}
	}
	var pending json.RawMessage // the client's call test/bigRequest answers
	var held []json.RawMessage  // calls of "hold", answered at test/release
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string          `json:"name"`
				Cursor    string          `json:"cursor"`
				RequestID json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		if len(in.Bytes()) == 0 {
			continue
		}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintf(os.Stderr, "server: bad message %q\n", in.Bytes())
			continue
		}
		reply := func(result any) {
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
		}
		switch req.Method {
		case "exit":
			return 0
		case "notifications/cancelled":
			if req.Params.RequestID == nil {
				continue
			}
			f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return 1
			}
			fmt.Fprintf(f, "cancelled:%s\n", req.Params.RequestID)
			f.Close()
		case "test/release":
			// The late answers to the held calls, then this request's.
			for _, id := range held {
				_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "late"}}}})
			}
			held = nil
			reply(map[string]any{})
		case "test/bigReply":
			// A reply over MaxMCPMessage whose id comes after its long
			// result, with an "id" decoy inside it.
			fmt.Printf(`{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"%s"}],"_meta":{"id":99}},"id":%s}`+"\n", strings.Repeat("a", MaxMCPMessage), req.ID)
		case "test/bigRequest":
			// A request to the client over MaxMCPMessage, its id last;
			// the answer it gets is the result of the client's call.
			pending = req.ID
			fmt.Printf(`{"jsonrpc":"2.0","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"%s"}}],"maxTokens":1,"id":1},"id":"s1"}`+"\n", strings.Repeat("a", MaxMCPMessage))
		case "":
			if pending != nil {
				_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": pending, "result": map[string]any{"answer": json.RawMessage(in.Bytes())}})
				pending = nil
			}
			if answered := string(req.ID); strings.HasPrefix(answered, `"el-`) {
				// The client's answer to an elicitation of "elicit".
				kind := "result"
				if bytes.Contains(in.Bytes(), []byte(`"error"`)) {
					kind = "error"
				}
				if err := appendLine(logPath, "answer:"+answered+":"+kind); err != nil {
					return 1
				}
			}
		case "initialize":
			reply(map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{"listChanged": true}},
				"serverInfo": map[string]any{"name": "test", "version": "1"}})
		case "tools/list":
			if req.Params.Cursor == "smuggle" {
				// One line to a reader that ends lines at "\n" only; a
				// reader that also ends them at "\r" sees a first answer
				// listing delete_all.
				fmt.Printf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"x\":\r{\"jsonrpc\":\"2.0\",\"id\":%[1]s,\"result\":{\"tools\":[{\"name\":\"delete_all\"}]}}\r,"+
					"\"result\":{\"tools\":[{\"name\":\"echo\",\"description\":\"a\u2028b\u2029c\u0085d\"}]}}\n", req.ID)
				continue
			}
			if req.Params.Cursor == "" {
				reply(map[string]any{"tools": []any{tool("echo"), tool("delete_all")}, "nextCursor": "2"})
			} else {
				reply(map[string]any{"tools": []any{tool("secret"), tool("notify")}})
			}
		case "tools/call":
			f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return 1
			}
			fmt.Fprintln(f, req.Params.Name)
			f.Close()
			if req.Params.Name == "hold" {
				held = append(held, req.ID)
				continue
			}
			if req.Params.Name == "elicit" {
				// Held too, after asking the client under id "el-<call id>".
				held = append(held, req.ID)
				_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": "el-" + strings.Trim(string(req.ID), `"`), "method": "elicitation/create",
					"params": map[string]any{"message": "which?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}}}})
				continue
			}
			if req.Params.Name == "notify" {
				_ = out.Encode(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
			}
			reply(map[string]any{"content": []any{map[string]any{"type": "text", "text": "called " + req.Params.Name}}})
		}
	}
	return 0
}

// appendLine appends line to the file at path.
func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// splitLenient is a bufio.SplitFunc that ends a line at every line end
// that a reader MCP peers use knows and valid JSON can hold: "\n",
// "\r\n" and a bare "\r" (Python's text streams, which the Python SDK's
// stdio transport reads, Node's readline, Java's BufferedReader), and
// U+0085, U+2028, U+2029 (Java's Scanner, Python's str.splitlines; the
// control characters splitlines also ends lines at cannot be in JSON).
func splitLenient(data []byte, atEOF bool) (advance int, token []byte, err error) {
	for i := range data {
		rest := data[i:]
		for _, end := range lenientLineEnds {
			if bytes.HasPrefix(rest, []byte(end)) {
				return i + len(end), data[:i], nil
			}
			if !atEOF && len(rest) < len(end) && strings.HasPrefix(end, string(rest)) {
				return 0, nil, nil // a line end may be cut: read more
			}
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

var lenientLineEnds = []string{"\r\n", "\n", "\r", "\u0085", "\u2028", "\u2029"}

// mcpSession is a client talking to the test server through ExecFiltered.
type mcpSession struct {
	t      *testing.T
	in     *os.File // what the client writes
	inR    *os.File // what the proxy reads of it
	stderr *os.File // the server's stderr and the proxy's notices
	out    *bufio.Reader
	done   chan error
	exited chan struct{} // closed when ExecFiltered returned
	res    *Result
	log    string
	nextID int
}

func startMCPSession(t *testing.T, ctx context.Context, filter ToolFilter) *mcpSession {
	t.Helper()
	return startMCPSessionPolicy(t, ctx, MCPPolicy{Filter: filter})
}

// startMCPSessionPolicy is startMCPSession under the whole policy.
func startMCPSessionPolicy(t *testing.T, ctx context.Context, pol MCPPolicy) *mcpSession {
	t.Helper()
	dir := t.TempDir()
	s := &mcpSession{t: t, log: filepath.Join(dir, "calls.log"), done: make(chan error, 1), exited: make(chan struct{})}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	if s.stderr, err = os.Create(filepath.Join(dir, "stderr")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeAll(inR, inW, outR, outW, s.stderr) })
	s.in, s.inR, s.out = inW, inR, bufio.NewReader(outR)
	spec := Spec{Argv: []string{os.Args[0]}, Dir: dir,
		Env: []string{"HARNESS_TEST_HELPER=mcp-server", "HARNESS_TEST_LOG=" + s.log}}
	go func() {
		res, err := ExecFiltered(ctx, spec, Stdio{In: inR, Out: outW, Err: s.stderr}, pol)
		s.res = res
		s.done <- err
		close(s.exited)
	}()
	return s
}

// call sends one message and returns the next message the client gets.
func (s *mcpSession) call(msg string) map[string]any {
	s.t.Helper()
	s.send(msg)
	return s.receive()
}

func (s *mcpSession) send(msg string) {
	s.t.Helper()
	if _, err := s.in.WriteString(msg + "\n"); err != nil {
		s.t.Fatal(err)
	}
}

func (s *mcpSession) receiveLine() []byte {
	s.t.Helper()
	got := make(chan []byte, 1)
	go func() {
		l, _ := s.out.ReadBytes('\n')
		got <- l
	}()
	select {
	case l := <-got:
		return l
	case <-s.exited:
		s.t.Fatalf("the server session ended: %v", s.res)
	case <-time.After(hangGuard):
		s.t.Fatal("no answer from the proxy")
	}
	return nil
}

func (s *mcpSession) receive() map[string]any {
	s.t.Helper()
	line := s.receiveLine()
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		s.t.Fatalf("client got %q: %v", line, err)
	}
	return m
}

func (s *mcpSession) close() *Result {
	s.t.Helper()
	s.in.Close()
	if err := noHang(s.t, "ExecFiltered after the client closed", func() error { return <-s.done }); err != nil {
		s.t.Fatal(err)
	}
	return s.res
}

func (s *mcpSession) calls() []string {
	data, err := os.ReadFile(s.log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		s.t.Fatal(err)
	}
	return strings.Fields(string(data))
}

// awaitLogged waits until the server has logged line: the proxy answers
// the client at a call's timeout before it sends the server the
// cancellation, so a test that goes on at once may outrun it.
func (s *mcpSession) awaitLogged(line string) {
	s.t.Helper()
	for give := time.Now().Add(hangGuard); !slices.Contains(s.calls(), line); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(give) {
			s.t.Fatalf("the server never logged %q; it logged %q", line, s.calls())
		}
	}
}

func toolNames(t *testing.T, resp map[string]any) ([]string, string) {
	t.Helper()
	result, _ := resp["result"].(map[string]any)
	list, ok := result["tools"].([]any)
	if !ok {
		t.Fatalf("no tool list in %v", resp)
	}
	var names []string
	for _, x := range list {
		names = append(names, x.(map[string]any)["name"].(string))
	}
	cursor, _ := result["nextCursor"].(string)
	return names, cursor
}

func errorCode(resp map[string]any) float64 {
	e, _ := resp["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// TestExecMCPEnforcesTheToolFilter runs a real server process behind the
// proxy: the list lacks the refused tools on every page, a call of one is
// answered by the proxy and never reaches the server (its call log), an
// allowed call works, and a changed-list notification passes.
func TestExecMCPEnforcesTheToolFilter(t *testing.T) {
	for _, c := range []struct {
		name   string
		filter ToolFilter
		pages  [][]string
	}{
		{"exclude", excludeFilter, [][]string{{"echo"}, {"secret", "notify"}}},
		{"include", includeFilter, [][]string{{"echo"}, {"notify"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := startMCPSession(t, context.Background(), c.filter)
			if r := s.call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); r["result"] == nil {
				t.Fatalf("initialize: %v", r)
			}
			s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			names, cursor := toolNames(t, s.call(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
			if fmt.Sprint(names) != fmt.Sprint(c.pages[0]) || cursor != "2" {
				t.Fatalf("page 1: %v cursor %q", names, cursor)
			}
			names, cursor = toolNames(t, s.call(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"2"}}`))
			if fmt.Sprint(names) != fmt.Sprint(c.pages[1]) || cursor != "" {
				t.Fatalf("page 2: %v cursor %q", names, cursor)
			}
			for i, refused := range []string{
				`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"delete_all","arguments":{}}}`,
				`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo","name":"delete_all"}}`,
				`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"delete\u005fall"}}`,
			} {
				r := s.call(refused)
				if errorCode(r) != rpcInvalidParams || r["id"] != float64(10+i) {
					t.Fatalf("refused call %d answered %v", i, r)
				}
			}
			s.send(`[{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"echo"}},{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"delete_all"}}]`)
			var batch []map[string]any
			if line := s.receiveLine(); json.Unmarshal(line, &batch) != nil || len(batch) != 2 || errorCode(batch[0]) == 0 || errorCode(batch[1]) != rpcInvalidParams {
				t.Fatalf("batch answered %s", line)
			}
			r := s.call(`{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
			if r["error"] != nil || r["id"] != float64(30) {
				t.Fatalf("allowed call: %v", r)
			}
			if n := s.call(`{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":"notify"}}`); n["method"] != "notifications/tools/list_changed" {
				t.Fatalf("got %v, want the list_changed notification first", n)
			}
			if r := s.receive(); r["id"] != float64(31) {
				t.Fatalf("notify call: %v", r)
			}
			res := s.close()
			if !res.Success() {
				t.Fatalf("server result %+v", res)
			}
			if got := s.calls(); fmt.Sprint(got) != "[echo notify]" {
				t.Fatalf("the server saw calls %v, want only [echo notify]", got)
			}
			if notices, _ := os.ReadFile(s.stderr.Name()); !bytes.Contains(notices, []byte("bundlectl: mcp proxy: refused a batch")) {
				t.Fatalf("no notice of the refused batch on stderr: %q", notices)
			}
		})
	}
}

// TestExecMCPOneMessageALineForEveryReader: the test server ends lines as
// the Python SDK's stdio transport and Node's readline do, at a bare
// "\r" too, and at U+0085, U+2028 and U+2029 as Java's Scanner does. A
// client line that hides a filtered call between bare "\r"s reaches it
// as one harmless message, a call whose argument holds those characters
// reaches it whole, and a server line that hides a tool list the same way
// reaches a client splitting as leniently as one message, filtered.
func TestExecMCPOneMessageALineForEveryReader(t *testing.T) {
	s := startMCPSession(t, context.Background(), excludeFilter)
	if r := s.call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); r["result"] == nil {
		t.Fatalf("initialize: %v", r)
	}
	s.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"x\":\r{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"delete_all\"}}\r}")
	if r := s.call("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"a\u2028b\u2029c\u0085d\"}}}"); r["id"] != float64(3) || r["error"] != nil {
		t.Fatalf("got %v, want the answer to the echo call", r)
	}
	s.send(`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":"smuggle"}}`)
	line := s.receiveLine()
	var lines [][]byte
	sc := bufio.NewScanner(bytes.NewReader(line))
	sc.Split(splitLenient)
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	if len(lines) != 1 {
		t.Fatalf("the server's answer %q reads as %d lines to a lenient client", line, len(lines))
	}
	if name, bad := refusedToolListed(lines[0], excludeFilter); bad {
		t.Fatalf("%q listed in %s", name, line)
	}
	var resp struct {
		ID     int
		Result struct {
			Tools []struct{ Name, Description string }
		}
	}
	if err := json.Unmarshal(lines[0], &resp); err != nil || resp.ID != 4 || len(resp.Result.Tools) != 1 ||
		resp.Result.Tools[0].Description != "a\u2028b\u2029c\u0085d" {
		t.Fatalf("the answer %s changed meaning (%v)", line, err)
	}
	s.close()
	if got := s.calls(); fmt.Sprint(got) != "[echo]" {
		t.Fatalf("the server saw calls %v, want only [echo]", got)
	}
}

// TestProxyServerLinesStayApartForAStreamDecoder: a client that decodes
// the server's output as a stream of JSON values, not lines (the Go SDK's
// transport does), cannot be handed a tool list split over lines none of
// which the proxy could read as one.
func TestProxyServerLinesStayApartForAStreamDecoder(t *testing.T) {
	var toClient, notices bytes.Buffer
	p := &proxy{filter: excludeFilter, notices: &notices, toClient: &toClient}
	server := strings.Join([]string{
		`{"jsonrpc":"2.0","id":4,"result":`,
		`{"tools":[{"name":"delete_all"}]}`,
		`}`,
		``,
		`{"jsonrpc":"2.0","id":5,"result":{"tools":[{"name":"echo"}]}}`,
	}, "\n") + "\n"
	if err := p.pumpServer(strings.NewReader(server)); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(toClient.Bytes()))
	var ids []any
	for {
		var msg map[string]any
		if err := dec.Decode(&msg); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the client's stream %q: %v", toClient.Bytes(), err)
		}
		raw, _ := json.Marshal(msg)
		if name, bad := refusedToolListed(raw, excludeFilter); bad {
			t.Fatalf("%q reached the client in %s", name, raw)
		}
		ids = append(ids, msg["id"])
	}
	// The middle line is a whole value and passes, but it is no answer.
	if fmt.Sprint(ids) != "[<nil> 5]" {
		t.Fatalf("the client got messages with ids %v", ids)
	}
	if n := strings.Count(notices.String(), "dropped a server line that is not one JSON message"); n != 2 {
		t.Fatalf("%d drops reported (want 2, none for the blank line): %q", n, notices.String())
	}
}

// TestProxyOverlongClientMessage: a line over MaxMCPMessage is not
// forwarded; a request is answered with a parse error under its id,
// wherever the id is in the line, and a reply (to a request of the
// server's) ends the server's request with an error; the next message is
// read whole.
func TestProxyOverlongClientMessage(t *testing.T) {
	big := bytes.Repeat([]byte("a"), MaxMCPMessage)
	long := func(prefix, suffix string) []byte {
		return append(append([]byte(prefix), big...), suffix+"\n"...)
	}
	for _, c := range []struct {
		name, line string
		id         any // of the parse error the client gets
		toServer   string
	}{
		{"id first", string(long(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","x":"`, `"}}`)), float64(1), ""},
		{"id last", string(long(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","id":5,"x":"`, `"},"id":"c\"1"}`)), `c"1`, ""},
		{"reply", string(long(`{"jsonrpc":"2.0","result":{"content":{"type":"text","text":"`, `"}},"id":"s1"}`)), nil, `"s1"`},
		// Read as a line within the limit is (walkedID, judge): an id
		// or a method in another letter case, a method beside a result.
		{"id in capitals", string(long(`{"jsonrpc":"2.0","ID":4,"method":"tools/call","params":{"name":"echo","x":"`, `"}}`)), float64(4), ""},
		{"method in capitals", string(long(`{"jsonrpc":"2.0","id":6,"Method":"tools/call","params":{"name":"echo","x":"`, `"}}`)), float64(6), ""},
		{"method and result", string(long(`{"jsonrpc":"2.0","id":8,"method":"tools/call","result":{"x":"`, `"}}`)), float64(8), ""},
		{"reply id in capitals", string(long(`{"jsonrpc":"2.0","result":{"content":{"type":"text","text":"`, `"}},"Id":"s2"}`)), nil, `"s2"`},
		{"not json", string(long(`{"jsonrpc":"2.0","method":"tools/call","x":"`, `,"id":3}`)), nil, ""},
		// Not UTF-8, which fromClient reads no id of: the id "\xff",
		// answered, is "\ufffd" to the client, maybe another call of
		// its own, which would get two answers.
		{"id not utf-8", string(long(`{"jsonrpc":"2.0","id":"`+"\xff"+`","method":"tools/call","params":{"name":"echo","x":"`, `"}}`)), nil, ""},
		{"text not utf-8", string(long(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","x":"`+"\xe2\x82", `"}}`)), nil, ""},
		{"reply not utf-8", string(long(`{"jsonrpc":"2.0","result":{"content":{"type":"text","text":"`+"\xc0\xaf", `"}},"id":"s3"}`)), nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			clientR, clientW := io.Pipe()
			var toServer bytes.Buffer
			toClientR, toClientW := io.Pipe()
			p := &proxy{filter: excludeFilter, notices: io.Discard, toClient: toClientW, toServer: &toServer}
			done := make(chan error, 1)
			go func() { done <- p.pumpClient(clientR) }()
			go func() {
				_, _ = clientW.Write([]byte(c.line))
				_, _ = clientW.Write([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}` + "\n"))
				clientW.Close()
			}()
			got := make(chan []byte, 1)
			go func() {
				l, _ := io.ReadAll(toClientR)
				got <- l
			}()
			if err := noHang(t, "pumpClient", func() error { return <-done }); err != nil {
				t.Fatal(err)
			}
			toClientW.Close()
			line := <-got
			if c.id == nil {
				// No id an error could go under: none is sent
				// (TestProxyAnswersNoClientLineUnderNull).
				if len(line) != 0 {
					t.Fatalf("answer %q, want none", line)
				}
			} else {
				var resp map[string]any
				if err := json.Unmarshal(line, &resp); err != nil || errorCode(resp) != rpcParseError || resp["id"] != c.id {
					t.Fatalf("answer %q, want one parse error for id %v (the call must end)", line, c.id)
				}
			}
			want := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}` + "\n"
			if c.toServer != "" {
				want = `{"jsonrpc":"2.0","id":` + c.toServer + `,"error":{"code":-32603,"message":"the client's reply exceeds 16777216 bytes, the most bundlectl's MCP proxy passes on; it was dropped\nbundlectl: hint: bundlectl mcp --help"}}` + "\n" + want
			}
			if got := toServer.String(); got != want {
				t.Fatalf("server got %q, want %q", got, want)
			}
		})
	}
}

// TestProxyOverlongClientBatch: a client batch over MaxMCPMessage is
// not forwarded, and each message of it is answered as fromClient reads
// it within the limit: each request with a parse error under its id, in
// one array, each reply with an error to the server under its id, a
// notification not at all; a batch fromClient refuses whole (an element
// that is not an object) gets no answer, a notice saying so (it got a
// parse error under id null: TestProxyAnswersNoClientLineUnderNull).
func TestProxyOverlongClientBatch(t *testing.T) {
	big := strings.Repeat("a", MaxMCPMessage)
	in := `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","x":"` + big + `"}},` +
		`{"jsonrpc":"2.0","ID":"b","method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/x"},` +
		`{"jsonrpc":"2.0","id":"s1","result":{}}]` + "\n" +
		`[{"jsonrpc":"2.0","id":3,"method":"tools/list","x":"` + big + `"},4]` + "\n"
	var toClient, toServer, notices bytes.Buffer
	p := &proxy{filter: excludeFilter, notices: &notices, toClient: &toClient, toServer: &toServer}
	if err := p.pumpClient(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	parseError := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32700,"message":"message exceeds 16777216 bytes\nbundlectl: hint: bundlectl mcp --help"}}`
	}
	want := "[" + parseError("1") + "," + parseError(`"b"`) + "]\n"
	if toClient.String() != want {
		t.Errorf("the client got %q, want %q", toClient.String(), want)
	}
	if !strings.Contains(notices.String(), "dropped a client line over 16777216 bytes with no id it can read; it gets no error") {
		t.Errorf("the notices %q do not say the second batch got no error", notices.String())
	}
	want = `{"jsonrpc":"2.0","id":"s1","error":{"code":-32603,"message":"the client's reply exceeds 16777216 bytes, the most bundlectl's MCP proxy passes on; it was dropped\nbundlectl: hint: bundlectl mcp --help"}}` + "\n"
	if toServer.String() != want {
		t.Errorf("the server got %q, want %q", toServer.String(), want)
	}
}

// TestProxyOverlongBatchPastWhatTheScanKeeps: a client batch over
// MaxMCPMessage whose ids pass what the scan keeps (maxScanIDBytes of
// them together, the first maxTrackedIDs messages) gets one answer
// under each id the scan kept, and a notice says how many of its
// requests got none, and why: exactly the requests with an id, not the
// notifications, replies and requests under null among the messages
// whose ids it did not keep (it counted every such message, so 2 and 4
// here, before). Before that, the whole batch got one parse error under
// null: a client matching answers by id waited for every request in
// it, those whose ids were kept too. (The count went in one more
// answer under null, until TestProxyAnswersNoClientLineUnderNull.)
func TestProxyOverlongBatchPastWhatTheScanKeeps(t *testing.T) {
	third := `"` + strings.Repeat("i", maxScanIDBytes/3) + `"` // three pass maxScanIDBytes
	var many strings.Builder
	many.WriteString(`[{"jsonrpc":"2.0","id":0,"method":"tools/list","x":"` + strings.Repeat("a", MaxMCPMessage) + `"}`)
	for i := 1; i <= maxTrackedIDs; i++ {
		fmt.Fprintf(&many, `,{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)
	}
	// Past the first maxTrackedIDs, what awaits no answer: a
	// notification, a reply, a request under null.
	many.WriteString(`,{"jsonrpc":"2.0","method":"notifications/progress"},{"jsonrpc":"2.0","id":"s1","result":{}},{"jsonrpc":"2.0","id":null,"method":"ping"}]` + "\n")
	in := `[{"jsonrpc":"2.0","id":` + third + `,"method":"tools/list"},{"jsonrpc":"2.0","id":"b","method":"tools/list"},` +
		`{"jsonrpc":"2.0","id":` + third + `,"method":"tools/list"},{"jsonrpc":"2.0","id":` + third + `,"method":"tools/list"},` +
		`{"jsonrpc":"2.0","id":` + third + `,"result":{}},{"jsonrpc":"2.0","id":"e","method":"ping"}]` + "\n" + many.String()
	var toClient, notices bytes.Buffer
	p := &proxy{filter: excludeFilter, notices: &notices, toClient: &toClient, toServer: io.Discard}
	if err := p.pumpClient(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(toClient.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("the client got %d lines; want one for each batch", len(lines))
	}
	for i, c := range []struct {
		ids    []string // the ids answered, in order, null last
		unread int
	}{
		{[]string{third, `"b"`, third, `"e"`}, 1},
		{func() (ids []string) {
			for i := range maxTrackedIDs {
				ids = append(ids, fmt.Sprint(i))
			}
			return ids
		}(), 1},
	} {
		var answers []struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(lines[i]), &answers); err != nil {
			t.Fatalf("batch %d: the client got %.200q, not an array of answers: %v", i, lines[i], err)
		}
		if len(answers) != len(c.ids) {
			t.Fatalf("batch %d: %d answers; want %d", i, len(answers), len(c.ids))
		}
		for j, a := range answers {
			if string(a.ID) != c.ids[j] || a.Error.Code != rpcParseError {
				t.Fatalf("batch %d, answer %d: id %.40s, code %d; want id %.40s, a parse error", i, j, a.ID, a.Error.Code, c.ids[j])
			}
		}
	}
	if want := unreadMessages(lineTooLong, 1); strings.Count(notices.String(), want) != 2 || !strings.Contains(want, "1 of its requests get no error") {
		t.Errorf("notices %q do not say, for each batch, how many of its requests got no answer, and why (%q)", notices.String(), want)
	}
}

// TestProxyOverlongServerMessage: a server message over MaxMCPMessage is
// dropped, and whoever waits for an answer to it gets an error instead:
// the client's call a reply answers (an internal error under its id),
// the server for a request it sent (an invalid request error under its
// id) — wherever the id is in the line. A line without a usable id is
// dropped alone.
func TestProxyOverlongServerMessage(t *testing.T) {
	big := bytes.Repeat([]byte("a"), MaxMCPMessage)
	long := func(prefix, suffix string) []byte {
		return append(append([]byte(prefix), big...), suffix+"\n"...)
	}
	var server bytes.Buffer
	server.Write(long(`{"jsonrpc":"2.0","method":"sampling/createMessage","id":"s1","params":{"x":"`, `"}}`))
	server.Write(long(`{"jsonrpc":"2.0","result":{"content":"`, `","id":1},"id":8}`))
	server.Write(long(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"`, `"}]}}`))
	server.Write(long(`{"jsonrpc":"2.0","method":"roots/list","params":{"_meta":{"id":3},"x":"\"}\"`, `"},"id":12}`))
	server.Write(long(`{"jsonrpc":"2.0","result":{"x":"`, `"},"id":{"n":9}}`))          // not a usable id
	server.Write(long(`{"jsonrpc":"2.0","result":{"x":"`, `"},"id":10`))                // not one whole object
	server.Write(long(`{"jsonrpc":"2.0","method":"notifications/message","x":"`, `"}`)) // no id: no one waits
	server.WriteString(`{"jsonrpc":"2.0","id":9,"result":{}}` + "\n")
	var toClient, toServer, notices bytes.Buffer
	p := &proxy{filter: excludeFilter, notices: &notices, toClient: &toClient, toServer: &toServer, who: `"kit" server "files"`}
	if err := p.pumpServer(&server); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(toClient.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("the client got %d lines, want the errors for ids 8 and 7 and the reply to 9: %q", len(lines), toClient.String())
	}
	for i, id := range []float64{8, 7} {
		var resp map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &resp); err != nil || resp["id"] != id || errorCode(resp) != rpcInternalError {
			t.Fatalf("line %d %q, want an internal error for id %v", i, lines[i], id)
		}
		if msg, _ := resp["error"].(map[string]any)["message"].(string); !strings.Contains(msg, `"files"`) || !strings.Contains(msg, "exceeds 16777216 bytes") {
			t.Errorf("the error does not say whose reply was too long: %q", msg)
		}
	}
	if lines[2] != `{"jsonrpc":"2.0","id":9,"result":{}}` {
		t.Errorf("last line %q, want the reply to 9 as it was", lines[2])
	}
	msg := `"error":{"code":-32600,"message":"request exceeds 16777216 bytes, the most bundlectl's MCP proxy passes on; it was dropped\nbundlectl: hint: bundlectl mcp --help"}}`
	if want := `{"jsonrpc":"2.0","id":"s1",` + msg + "\n" + `{"jsonrpc":"2.0","id":12,` + msg + "\n"; toServer.String() != want {
		t.Errorf("the server got %q, want %q", toServer.String(), want)
	}
	if n := strings.Count(notices.String(), "dropped a server message over"); n != 7 {
		t.Errorf("%d drops noticed, want 7: %q", n, notices.String())
	}
}

// TestExecMCPOverlongServerMessages: through a real server process, a
// reply over MaxMCPMessage whose id comes after its result ends the
// client's call with an error, and a request over it from the server,
// its id last, is answered to the server with an error — neither side
// waits for its own timeout.
func TestExecMCPOverlongServerMessages(t *testing.T) {
	// Timing calls, the proxy forwards each request under an id of its
	// own: the error for the overlong reply still goes under the client's.
	for _, pol := range []MCPPolicy{{Filter: excludeFilter}, {Filter: excludeFilter, CallTimeout: time.Hour}} {
		s := startMCPSessionPolicy(t, context.Background(), pol)
		r := s.call(`{"jsonrpc":"2.0","id":"b-2","method":"test/bigReply"}`)
		if r["id"] != "b-2" || errorCode(r) != rpcInternalError {
			t.Fatalf("the call got %v, want an internal error for id \"b-2\"", r)
		}
		r = s.call(`{"jsonrpc":"2.0","id":3,"method":"test/bigRequest"}`)
		answer, _ := r["result"].(map[string]any)["answer"].(map[string]any)
		if r["id"] != float64(3) || answer["id"] != "s1" || errorCode(answer) != rpcInvalidRequest {
			t.Fatalf("the server's request was answered with %v, want an invalid request error for id \"s1\"", r)
		}
		if res := s.close(); !res.Success() {
			t.Fatalf("result %+v", res)
		}
		stderr, _ := os.ReadFile(s.stderr.Name())
		if n := strings.Count(string(stderr), "dropped a server message over"); n != 2 {
			t.Errorf("%d drops noticed, want 2: %q", n, stderr)
		}
	}
}

// TestExecMCPWithoutFilterIsExec: no filter, no proxy — bytes pass as
// they are, even what is not JSON.
func TestExecMCPWithoutFilterIsExec(t *testing.T) {
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	defer closeAll(inR, inW, outR, outW)
	done := make(chan error, 1)
	go func() {
		_, err := ExecFiltered(context.Background(), Spec{Argv: []string{"/bin/cat"}, Dir: t.TempDir()}, Stdio{In: inR, Out: outW, Err: outW}, MCPPolicy{})
		done <- err
	}()
	if _, err := inW.Write([]byte("not json\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 9)
	if _, err := io.ReadFull(outR, buf); err != nil || string(buf) != "not json\n" {
		t.Fatalf("read %q, %v", buf, err)
	}
	inW.Close()
	if err := noHang(t, "ExecFiltered", func() error { return <-done }); err != nil {
		t.Fatal(err)
	}
}

// TestExecMCPServerExitEndsTheSession: a server that exits while the
// client is still connected ends ExecFiltered, and the proxy stops reading the
// client: what the client writes next is not consumed.
func TestExecMCPServerExitEndsTheSession(t *testing.T) {
	s := startMCPSession(t, context.Background(), excludeFilter)
	s.send(`{"jsonrpc":"2.0","method":"exit"}`)
	if err := noHang(t, "ExecFiltered after the server exited", func() error { return <-s.done }); err != nil {
		t.Fatal(err)
	}
	if !s.res.Success() {
		t.Fatalf("result %+v", s.res)
	}
	s.send("still here")
	buf := make([]byte, 11)
	if _, err := io.ReadFull(s.inR, buf); err != nil || string(buf) != "still here\n" {
		t.Fatalf("read %q, %v: the proxy kept reading the client", buf, err)
	}
}

// TestExecMCPCancelKillsTheServer: a revoked trust (a done context) kills
// a proxied server as it kills one passed through.
func TestExecMCPCancelKillsTheServer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := startMCPSession(t, ctx, excludeFilter)
	if r := s.call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`); r["result"] == nil {
		t.Fatalf("initialize: %v", r)
	}
	cancel()
	if err := noHang(t, "ExecFiltered after cancel", func() error { return <-s.done }); err != nil {
		t.Fatal(err)
	}
	if !s.res.Canceled || s.res.Signal != syscall.SIGKILL {
		t.Fatalf("result %+v", s.res)
	}
}

// TestProxyAnswersLinesNestedTooDeep: a line within MaxMCPMessage nested
// deeper than encoding/json reads (10000 levels) is not relayed, and
// whoever waits for an answer to it gets an error under its id that
// says so: the client for its request or the server's reply to its
// call (under the client's id when the proxy times calls), the server
// for its request or the client's reply to one. Before, the client's
// request got a parse error under null, and a server line was dropped
// with a notice alone: the call waited for an answer that never came.
// A line nested 10000 deep is relayed.
func TestProxyAnswersLinesNestedTooDeep(t *testing.T) {
	nested := func(levels int) string { return strings.Repeat("[", levels) + strings.Repeat("]", levels) }
	deep := nested(maxScanDepth) // inside an object: one level past the limit
	for _, timed := range []bool{false, true} {
		var toClient, toServer, notices bytes.Buffer
		p := &proxy{filter: excludeFilter, toClient: &toClient, toServer: &toServer, notices: &notices, who: `bundle "kit" MCP server "fs"`}
		if timed {
			p.callTimeout = time.Hour
			t.Cleanup(p.close)
		}
		client := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"x":` + deep + `}}}` + "\n" +
			`{"jsonrpc":"2.0","id":"s1","result":{"x":` + deep + `}}` + "\n" +
			`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"x":` + nested(maxScanDepth-3) + `}}}` + "\n"
		if err := p.pumpClient(strings.NewReader(client)); err != nil {
			t.Fatal(err)
		}
		// The reply gets no error under null (it did, until
		// TestProxyAnswersNoClientLineUnderNull): the server's is its answer.
		wantClient := `{"jsonrpc":"2.0","id":5,"error":{"code":-32700,"message":"message nests deeper than 10000 levels\nbundlectl: hint: bundlectl mcp --help"}}` + "\n"
		if toClient.String() != wantClient {
			t.Errorf("timed %v: the client got %.300q; want %q", timed, toClient.String(), wantClient)
		}
		serverGot := strings.SplitN(toServer.String(), "\n", 3)
		wantServer := `{"jsonrpc":"2.0","id":"s1","error":{"code":-32603,"message":"the client's reply nests deeper than 10000 levels, the most bundlectl's MCP proxy reads; it was dropped\nbundlectl: hint: bundlectl mcp --help"}}`
		if len(serverGot) != 3 || serverGot[0] != wantServer || !strings.Contains(serverGot[1], `"method":"tools/call"`) || serverGot[2] != "" {
			t.Fatalf("timed %v: the server got %.300q; want the error for s1, then call 6 nested 10000 deep", timed, toServer.String())
		}

		toClient.Reset()
		toServer.Reset()
		callID := "6"
		if timed {
			callID = "1" // the proxy's id of call 6, the first it forwarded
		}
		server := `{"jsonrpc":"2.0","id":` + callID + `,"result":{"content":` + deep + `}}` + "\n" +
			`{"jsonrpc":"2.0","id":"s2","method":"sampling/createMessage","params":{"x":` + deep + `}}` + "\n"
		if err := p.pumpServer(strings.NewReader(server)); err != nil {
			t.Fatal(err)
		}
		wantClient = `{"jsonrpc":"2.0","id":6,"error":{"code":-32603,"message":"the reply of bundle \"kit\" MCP server \"fs\" nests deeper than 10000 levels, the most bundlectl's MCP proxy reads; it was dropped\nbundlectl: hint: bundlectl mcp --help"}}` + "\n"
		if toClient.String() != wantClient {
			t.Errorf("timed %v: the client got %.300q; want %q", timed, toClient.String(), wantClient)
		}
		wantServer = `{"jsonrpc":"2.0","id":"s2","error":{"code":-32600,"message":"request nests deeper than 10000 levels, the most bundlectl's MCP proxy reads; it was dropped\nbundlectl: hint: bundlectl mcp --help"}}` + "\n"
		if toServer.String() != wantServer {
			t.Errorf("timed %v: the server got %.300q; want %q", timed, toServer.String(), wantServer)
		}
		if timed && len(p.calls) != 0 {
			t.Errorf("call 6 is still timed after its answer was replaced by the proxy's error")
		}
		for _, n := range []string{"dropped a client reply nested deeper than 10000 levels", "dropped a server message nested deeper than 10000 levels; the client's request 6 ends with an error", "its request \"s2\" was answered with an error"} {
			if !strings.Contains(notices.String(), n) {
				t.Errorf("timed %v: notices %q do not say %q", timed, notices.String(), n)
			}
		}
	}
}

// TestProxyAnswersServerLinesNestedTooDeepNotUTF8: a server line nested
// past 10000 levels with a byte that is not UTF-8 in a string (which the
// relay writes as U+FFFD) is answered as one all UTF-8 is, as a server
// line over MaxMCPMessage is whatever its bytes: the call its reply
// ends gets the proxy's error, the server's request an error to the
// server. Before, such a line was dropped with a notice alone, as one
// that is no JSON: an untimed call (a tools/list, say) waited for an
// answer that never came, a timed one to its reviewed timeout.
func TestProxyAnswersServerLinesNestedTooDeepNotUTF8(t *testing.T) {
	deep := strings.Repeat("[", maxScanDepth) + strings.Repeat("]", maxScanDepth) // inside an object: one level past the limit
	for _, timed := range []bool{false, true} {
		var toClient, toServer, notices bytes.Buffer
		p := &proxy{filter: excludeFilter, toClient: &toClient, toServer: &toServer, notices: &notices, who: `bundle "kit" MCP server "fs"`}
		callID := "4"
		if timed {
			p.callTimeout = time.Hour
			t.Cleanup(p.close)
			if err := p.pumpClient(strings.NewReader(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}` + "\n")); err != nil {
				t.Fatal(err)
			}
			callID, toServer = "1", bytes.Buffer{} // the proxy's id of request 4, the first it forwarded
		}
		server := `{"jsonrpc":"2.0","id":` + callID + `,"result":{"tools":[{"name":"delete_all","description":"` + "\xff" + `"}],"x":` + deep + `}}` + "\n" +
			`{"jsonrpc":"2.0","id":"s2","method":"sampling/createMessage","params":{"text":"` + "\xfe" + `","x":` + deep + `}}` + "\n"
		if err := p.pumpServer(strings.NewReader(server)); err != nil {
			t.Fatal(err)
		}
		wantClient := `{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"the reply of bundle \"kit\" MCP server \"fs\" nests deeper than 10000 levels, the most bundlectl's MCP proxy reads; it was dropped\nbundlectl: hint: bundlectl mcp --help"}}` + "\n"
		if toClient.String() != wantClient {
			t.Errorf("timed %v: the client got %.300q; want %q", timed, toClient.String(), wantClient)
		}
		wantServer := `{"jsonrpc":"2.0","id":"s2","error":{"code":-32600,"message":"request nests deeper than 10000 levels, the most bundlectl's MCP proxy reads; it was dropped\nbundlectl: hint: bundlectl mcp --help"}}` + "\n"
		if toServer.String() != wantServer {
			t.Errorf("timed %v: the server got %.300q; want %q", timed, toServer.String(), wantServer)
		}
		if timed && p.others.len() != 0 {
			t.Errorf("request 4 is still awaited after its answer was replaced by the proxy's error")
		}
		if strings.Contains(notices.String(), "not one JSON message") {
			t.Errorf("timed %v: notices %q call a line nested too deep no JSON message", timed, notices.String())
		}
	}
}

// TestScanTooDeepSkipsShallowLines: pumpClient asks scanTooDeep of every
// line it refuses, a tools/call the filter refuses among them, which is
// valid JSON: a line nested no deeper than encoding/json reads is not
// scanned (no scanner is made for it), while one a level deeper still
// is, whatever brackets its strings hold. Scanned whole, a refused call
// of 14 MiB of numbers cost 166 ms more to refuse (the count that now
// comes first, 22 ms).
func TestScanTooDeepSkipsShallowLines(t *testing.T) {
	call := func(args string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"delete_all","arguments":{"x":` + args + `,"s":"[[{{\"]]"}}}`)
	}
	dense := call("[" + strings.Repeat("1,", 1<<20) + "1]")
	pairs := (maxScanDepth - 4) / 2 // the message, params and arguments hold them, and one more level
	atLimit := call(strings.Repeat(`[{"k\"[":`, pairs) + "[0]" + strings.Repeat("}]", pairs))
	for _, line := range [][]byte{dense, atLimit} {
		if !json.Valid(line) {
			t.Fatalf("test line %.80q is not JSON", line)
		}
		if allocs := testing.AllocsPerRun(3, func() { _ = scanTooDeep(line) }); allocs != 0 {
			t.Errorf("scanTooDeep of a line encoding/json reads (%.80q) made %v allocations; want it not scanned", line, allocs)
		}
	}
	past := call(strings.Repeat(`[{"k\"[":`, pairs) + "[[0]]" + strings.Repeat("}]", pairs))
	if s := scanTooDeep(past); s == nil || !s.tooDeep {
		t.Errorf("a line nested %d levels was not found too deep", maxScanDepth+1)
	}
}
