package jsonobj

import (
	"fmt"
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

func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"a":2}`, `{"a":{"b":[1,{"c":null}]}}`, `{"a"`, `[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, ok := Members(b)
		if !ok && ms != nil {
			t.Fatalf("refused %q but returned members", b)
		}
	})
}
