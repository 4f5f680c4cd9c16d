package jsonobj

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

type exactInner struct {
	Behavior string `json:"behavior"`
}

type exactEmbedded struct {
	Agent string `json:"agent_id"`
}

type exactDoc struct {
	exactEmbedded
	Name   string                `json:"tool_name"`
	Kind   *string               `json:"type,omitempty"`
	Plain  string                // no tag: the Go name, exactly
	Inner  *exactInner           `json:"decision"`
	List   []exactInner          `json:"list"`
	ByName map[string]exactInner `json:"by_name"`
	Raw    json.RawMessage       `json:"raw"`
	Any    map[string]any        `json:"any"`
	Skip   string                `json:"-"`
	hidden string
}

// TestUnmarshalExact: a member is read into a field only under the
// field's exact name, at every level, and a name given twice counts with
// its last value, as JSON.parse and serde read an object. encoding/json
// read "Tool_Name" as tool_name, and the last of "tool_name" and
// "TOOL_NAME".
func TestUnmarshalExact(t *testing.T) {
	kind := func(s string) *string { return &s }
	for _, c := range []struct {
		in   string
		want exactDoc
	}{
		{`{"tool_name":"Bash","TOOL_NAME":"Read"}`, exactDoc{Name: "Bash"}},
		{`{"Tool_Name":"Read"}`, exactDoc{}},
		{"{\"\u017fession\":1,\"tool_name\":\"a\",\"tool_name\":\"b\"}", exactDoc{Name: "b"}},
		{`{"Type":"link","type":"local","TYPE":"link"}`, exactDoc{Kind: kind("local")}},
		{`{"Plain":"p","plain":"q","PLAIN":"r"}`, exactDoc{Plain: "p"}},
		{`{"agent_id":"a","Agent_ID":"b"}`, exactDoc{exactEmbedded: exactEmbedded{Agent: "a"}}},
		{`{"decision":{"behavior":"deny","Behavior":"allow"}}`, exactDoc{Inner: &exactInner{Behavior: "deny"}}},
		{`{"Decision":{"behavior":"allow"}}`, exactDoc{}},
		{`{"list":[{"Behavior":"x","behavior":"y"},{"BEHAVIOR":"z"}]}`, exactDoc{List: []exactInner{{Behavior: "y"}, {}}}},
		{`{"by_name":{"K":{"behavior":"y","Behavior":"x"}}}`, exactDoc{ByName: map[string]exactInner{"K": {Behavior: "y"}}}},
		// Values of no struct type are kept as written (UnmarshalExact
		// compacts them, DecodeMembers does not).
		{`{"raw":{"A":1,"a":2}}`, exactDoc{Raw: json.RawMessage(`{"A":1,"a":2}`)}},
		{`{"any":{"A":1,"a":2}}`, exactDoc{Any: map[string]any{"A": 1.0, "a": 2.0}}},
		{`{"-":"x","Skip":"y","hidden":"z"}`, exactDoc{}},
	} {
		var got exactDoc
		if err := UnmarshalExact([]byte(c.in), &got); err != nil {
			t.Errorf("UnmarshalExact(%s): %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("UnmarshalExact(%s) = %+v, want %+v", c.in, got, c.want)
		}
		var obj map[string]json.RawMessage
		var members exactDoc
		if err := json.Unmarshal([]byte(c.in), &obj); err != nil {
			t.Fatal(err)
		}
		if err := DecodeMembers(obj, &members); err != nil || !reflect.DeepEqual(members, c.want) {
			t.Errorf("DecodeMembers(%s) = %+v (%v), want %+v", c.in, members, err, c.want)
		}
	}
	var wrong exactDoc
	if err := DecodeMembers(map[string]json.RawMessage{"tool_name": json.RawMessage(`5`)}, &wrong); err == nil || !strings.Contains(err.Error(), `"tool_name"`) {
		t.Errorf("DecodeMembers of a number into tool_name: %v", err)
	}
	if err := DecodeMembers(nil, wrong); err == nil {
		t.Error("DecodeMembers into a struct value: no error")
	}
	for _, bad := range []string{`{"tool_name":5}`, `{"tool_name":"a"} {}`, `{"list":{}}`, `[`, ``} {
		var got exactDoc
		if err := UnmarshalExact([]byte(bad), &got); err == nil {
			t.Errorf("UnmarshalExact(%q) accepted", bad)
		}
	}
	var top []exactInner
	if err := UnmarshalExact([]byte(`[{"behavior":"a","Behavior":"b"}]`), &top); err != nil || len(top) != 1 || top[0].Behavior != "a" {
		t.Errorf("a top-level slice: %+v, %v", top, err)
	}
}

// FuzzUnmarshalExact: what UnmarshalExact reads is what a case-sensitive
// reader reads: each field the last value of its exact name, nothing
// from another letter case; and it accepts whatever encoding/json
// accepts for the same type.
func FuzzUnmarshalExact(f *testing.F) {
	for _, s := range []string{`{}`, `{"tool_name":"Bash","TOOL_NAME":"Read"}`, `{"Tool_Name":"x"}`,
		"{\"tool_name\":\"a\",\"tool_\u017fame\":\"b\"}", `{"decision":{"behavior":"a","BEHAVIOR":"b"}}`,
		`{"list":[{"behavior":"x"},null]}`, `{"tool_name":1}`, `null`, `{"a":`, `{"hook_event_nAme":"x"}`, `{"raw": [1, 2]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got, lenient exactDoc
		err := UnmarshalExact(data, &got)
		if (err == nil) != (json.Unmarshal(data, &lenient) == nil) && json.Valid(data) {
			// Invalid JSON is refused by both; a type error in a member of
			// another letter case is none here.
			var obj map[string]json.RawMessage
			if json.Unmarshal(data, &obj) != nil {
				t.Fatalf("UnmarshalExact(%q) error %v, encoding/json differs", data, err)
			}
		}
		if err != nil {
			return
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) != nil || obj == nil {
			return
		}
		var want string
		if v, ok := obj["tool_name"]; ok {
			json.Unmarshal(v, &want)
		}
		if got.Name != want {
			t.Fatalf("UnmarshalExact(%q) read tool_name %q; a case-sensitive reader reads %q", data, got.Name, want)
		}
		var members exactDoc
		err = DecodeMembers(obj, &members)
		if members.Raw != nil { // kept as written, where UnmarshalExact compacts it
			var b bytes.Buffer
			json.Compact(&b, members.Raw)
			members.Raw = b.Bytes()
		}
		if err != nil || !reflect.DeepEqual(members, got) {
			t.Fatalf("DecodeMembers(%q) = %+v (%v); UnmarshalExact read %+v", data, members, err, got)
		}
	})
}
