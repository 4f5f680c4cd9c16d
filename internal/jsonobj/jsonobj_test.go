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

// TestMarshalNoEscapeLineSeparators: JSON.stringify and serde_json write
// U+2028 and U+2029 as they are; encoding/json escapes them in every
// string, so a hook given its input by hooks run read another text than
// the host gives it. An escaped backslash before "u2028" is not an
// escape of the character and stays.
func TestMarshalNoEscapeLineSeparators(t *testing.T) {
	for _, c := range []struct {
		in   any
		want string
	}{
		{"a\u2028b\u2029c", "\"a\u2028b\u2029c\""},
		{`\u2028`, `"\\u2028"`},
		{"\\\u2028", "\"\\\\\u2028\""},
		{map[string]any{"k\u2029": json.RawMessage(`["\u2028", "\\u2029"]`)}, "{\"k\u2029\":[\"\u2028\",\"\\\\u2029\"]}"},
		{"&<>", `"&<>"`},
	} {
		got, err := MarshalNoEscape(c.in)
		if err != nil || string(got) != c.want {
			t.Errorf("MarshalNoEscape(%q) = %s (%v), want %s", c.in, got, err, c.want)
		}
	}
}

// FuzzMarshalNoEscape: the output of a string reads back as the string,
// and holds no escape of U+2028 or U+2029.
func FuzzMarshalNoEscape(f *testing.F) {
	for _, s := range []string{"", "a\u2028b", `\u2028`, "\\\u2029", "\"\\u2028\"", "\x00<&>\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := MarshalNoEscape(s)
		if err != nil {
			t.Fatal(err)
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("MarshalNoEscape(%q) = %s, not JSON: %v", s, out, err)
		}
		want, _ := json.Marshal(s)
		var plain string
		_ = json.Unmarshal(want, &plain)
		if back != plain {
			t.Fatalf("MarshalNoEscape(%q) = %s reads back as %q, want %q", s, out, back, plain)
		}
		for i := 0; i+5 < len(out); i++ {
			if out[i] == '\\' {
				if string(out[i+1:i+6]) == "u2028" || string(out[i+1:i+6]) == "u2029" {
					t.Fatalf("MarshalNoEscape(%q) = %s escapes a line separator", s, out)
				}
				i++
			}
		}
	})
}
