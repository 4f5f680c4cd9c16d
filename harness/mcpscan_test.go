package harness

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// scanAll scans msg in pieces of n bytes (all at once when n <= 0).
func scanAll(msg []byte, n int) (json.RawMessage, msgKind, bool) {
	var s msgScanner
	s.reset()
	if n <= 0 {
		n = len(msg) + 1
	}
	for len(msg) > 0 {
		k := min(n, len(msg))
		s.write(msg[:k])
		msg = msg[k:]
	}
	return s.message()
}

func TestMsgScanner(t *testing.T) {
	long := strings.Repeat("a", 100<<10)
	for _, c := range []struct {
		msg  string
		id   string // "" for none
		kind msgKind
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"x":"aaa"}}`, "7", msgReply},
		{`{"jsonrpc":"2.0","result":{"x":"` + long + `"},"id":7}`, "7", msgReply},
		{`{"jsonrpc":"2.0","error":{"code":1,"message":"` + long + `"},"id":"a b"}`, `"a b"`, msgReply},
		{`{"params":{"x":"` + long + `"},"method":"roots/list","id":-4.5e+3}`, "-4.5e+3", msgRequest},
		{` {"method":"m","id":0} ` + "\r\n", "0", msgRequest},
		{`{"id":3,"method":"tools/call","params":{"x":"aa"}}`, "3", msgRequest},
		{`{"id":3}`, "3", msgOther},
		{`{"id":3,"method":"m","result":1}`, "3", msgReply},
		// Decoys: an "id" nested, or in a string, is not the message's.
		{`{"result":{"id":1},"x":[{"id":2}],"id":3}`, "3", msgReply},
		{`{"result":{"id":1},"x":[{"id":2}]}`, "", msgReply},
		{`{"result":"\"id\":1","x":"{\"id\":2}"}`, "", msgReply},
		{`{"result":"a\\","id":4}`, "4", msgReply},
		{`{"result":"a\\\"id\":5\"","id":6}`, "6", msgReply},
		{`{"result":{"a":"\"},\"id\":9,\"b\":\""},"id":"x\"}"}`, `"x\"}"`, msgReply},
		// The last id is the one a reader keeps; a name is unescaped.
		{`{"id":1,"result":{},"id":2}`, "2", msgReply},
		{`{"id":1,"result":{},"id":null}`, "", msgReply},
		{`{"\u0069d":5,"m\u0065thod":"x"}`, "5", msgRequest},
		{`{"ID":5,"method":"x"}`, "", msgRequest},
		// Not a usable id, or not one whole object.
		{`{"id":{"n":1},"result":{}}`, "", msgReply},
		{`{"id":true,"result":{}}`, "", msgReply},
		{`{"id":"` + strings.Repeat("i", maxIDLen) + `","result":{}}`, "", msgReply},
		{`{"id":1,"result":{}`, "", msgReply},
		{`{"id":1,"result":{}}}`, "", msgReply},
		{`{"id":1,"result":{]}`, "", msgReply},
		{`{"id":01,"result":{}}`, "", msgReply},
		{`{"id":1,"result":"a` + "\x01" + `"}`, "", msgReply},
		{`{"id":1,"result":"\x"}`, "", msgReply},
		{`{"id":1,"result":tru}`, "", msgReply},
		{`[{"id":1,"result":{}}]`, "", msgReply},
		{`"id"`, "", msgOther},
		{``, "", msgOther},
		{`{"id":1,"result":` + strings.Repeat("[", maxScanDepth) + strings.Repeat("]", maxScanDepth) + `}`, "", msgReply},
		{`{"id":1,"result":` + strings.Repeat("[", maxScanDepth-1) + strings.Repeat("]", maxScanDepth-1) + `}`, "1", msgReply},
	} {
		for _, n := range []int{0, 1, 2, 3, 7, 64 << 10} {
			id, kind, ok := scanAll([]byte(c.msg), n)
			if string(id) != c.id || ok != (c.id != "") || ok && kind != c.kind {
				t.Errorf("scan of %.80q in pieces of %d = %s, %v, %v; want %s, %v", c.msg, n, id, kind, ok, c.id, c.kind)
			}
		}
	}
}

// FuzzMsgScanner: the scanner finds a line's id exactly when
// encoding/json, reading the whole line, finds a top-level "id" that is a
// string or a number, the same id, and the same request or reply; in
// whatever pieces the line comes.
func FuzzMsgScanner(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"result":{"x":"aaa"}}`), uint8(3))
	f.Add([]byte(`{"id":"a","method":"m","params":[1,-0.5e-3,true,false,null]}`), uint8(1))
	f.Add([]byte(`{"a":{"b":[1,{"id":2}]},"id":1e3,"error":{}}`), uint8(5))
	f.Add([]byte(`{"result":"\"id\":1\\","\u0069d":"\ud83d\ude00"}`), uint8(2))
	f.Add([]byte(`{"id":1,"id":{}}`), uint8(0))
	f.Fuzz(checkScan)
}

func checkScan(t *testing.T, msg []byte, piece uint8) {
	{
		var m map[string]json.RawMessage
		want, wantOK := json.RawMessage(nil), false
		var wantKind msgKind
		if json.Unmarshal(msg, &m) == nil && m != nil {
			if id, ok := m["id"]; ok && len(id) <= maxIDLen {
				if c := id[0]; c == '"' || c == '-' || '0' <= c && c <= '9' {
					want, wantOK = id, true
				}
			}
			_, method := m["method"]
			_, result := m["result"]
			_, errm := m["error"]
			switch {
			case result || errm:
				wantKind = msgReply
			case method:
				wantKind = msgRequest
			}
		}
		id, kind, ok := scanAll(msg, int(piece))
		if ok != wantOK || !bytes.Equal(id, want) || ok && kind != wantKind {
			t.Fatalf("scan of %q in pieces of %d = %s, %v, %v; encoding/json finds %s, %v, %v", msg, piece, id, kind, ok, want, wantKind, wantOK)
		}
	}
}
