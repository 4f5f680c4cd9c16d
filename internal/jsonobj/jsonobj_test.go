package jsonobj

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

func TestMembers(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // fmt of the members, "!" when refused
	}{
		{`{}`, `[]`},
		{` {"a":1, "A":[2], "a":{"b":3}} `, `[{a 1} {A [2]} {a {"b":3}}]`},
		{`{"\u0061":"x"}`, `[{a "x"}]`},
		{`[1]`, `!`},
		{`"s"`, `!`},
		{`{"a":1`, `!`},
		{`{"a":1} {}`, `!`},
		{`{"a":1}x`, `!`},
		{``, `!`},
	} {
		ms, ok := Members([]byte(c.in))
		got := "!"
		if ok {
			var parts []string
			for _, m := range ms {
				parts = append(parts, fmt.Sprintf("{%s %s}", m.Key, m.Val))
			}
			got = fmt.Sprint(parts)
			if len(parts) == 0 {
				got = "[]"
			}
		}
		if got != c.want {
			t.Errorf("Members(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// FuzzMembers checks Members against encoding/json on the same bytes: it
// accepts exactly what json.Valid accepts as an object; decoding its
// members one by one, the last of each name winning, gives what decoding
// the whole object gives; and every value is itself valid JSON.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"a":2}`, `{"a":{"b":[1,{"c":null}]}}`, `{"a"`, `[`,
		` {"\u0061":"x","b\"":[true,false,null,-1.5e3]} `, `{"a":1}{}`, `null`, `{"a":"\ud800"}`, "{\"a\":\"\xff\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, ok := Members(b)
		var whole map[string]any
		isObject := json.Valid(b) && json.Unmarshal(b, &whole) == nil && whole != nil // null decodes to a nil map
		if ok != isObject {
			t.Fatalf("Members(%q) ok %v, but encoding/json says object %v", b, ok, isObject)
		}
		if !ok {
			if ms != nil {
				t.Fatalf("refused %q but returned members", b)
			}
			return
		}
		merged := map[string]any{}
		for _, m := range ms {
			if !json.Valid(m.Val) {
				t.Fatalf("member %q of %q: value %q is not JSON", m.Key, b, m.Val)
			}
			var v any
			if err := json.Unmarshal(m.Val, &v); err != nil {
				t.Fatalf("member %q of %q: %v", m.Key, b, err)
			}
			merged[m.Key] = v
		}
		if !reflect.DeepEqual(merged, whole) {
			t.Fatalf("Members(%q) merged to %v; encoding/json decodes %v", b, merged, whole)
		}
	})
}
