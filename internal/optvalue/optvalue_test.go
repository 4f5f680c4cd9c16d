package optvalue

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/bundlectl/bundlectl/inventory"
)

func TestValue(t *testing.T) {
	for _, c := range []struct {
		json    string
		want    Value
		str     string
		empty   bool
		invalid bool
	}{
		{json: `"a"`, want: Of("a"), str: "a"},
		{json: `""`, want: Of(""), str: "", empty: true},
		{json: `["a","b c"]`, want: ListOf("a", "b c"), str: "a,b c"},
		{json: `["solo"]`, want: ListOf("solo"), str: "solo"},
		{json: `[]`, want: ListOf(), str: ""}, // an array is provided, even empty
		{json: `[""]`, want: ListOf(""), str: ""},
		{json: `5`, invalid: true},
		{json: `null`, invalid: true},
		{json: `["a", 1]`, invalid: true},
		{json: `{"a": "b"}`, invalid: true},
	} {
		var v Value
		err := json.Unmarshal([]byte(c.json), &v)
		if (err != nil) != c.invalid {
			t.Errorf("%s: error %v, want invalid %v", c.json, err, c.invalid)
			continue
		}
		if c.invalid {
			continue
		}
		if !reflect.DeepEqual(v, c.want) || v.String() != c.str || v.Empty() != c.empty {
			t.Errorf("%s: %#v %q empty %v, want %#v %q empty %v", c.json, v, v.String(), v.Empty(), c.want, c.str, c.empty)
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var back Value
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, v) {
			t.Errorf("%s: round trip %s gives %#v, %v", c.json, b, back, err)
		}
	}
}

func TestProcessText(t *testing.T) {
	num := inventory.UserOption{Key: "n", Type: "number"}
	str := inventory.UserOption{Key: "s", Type: "string", Multiple: true}
	for _, c := range []struct {
		o    inventory.UserOption
		v    Value
		want string
	}{
		{num, Of("5.50"), "5.5"},
		{num, Of(" 0x10 "), "16"},
		{num, Of("many"), "many"}, // as stored: list and show flag it
		{str, Of("5.50"), "5.50"},
		{str, ListOf("a", "b"), "a,b"},
	} {
		if got := ProcessText(c.o, c.v); got != c.want {
			t.Errorf("ProcessText(%s, %#v) = %q, want %q", c.o.Type, c.v, got, c.want)
		}
	}
}

// FuzzValueJSON: no input panics; what reads, writes and reads back the
// same.
func FuzzValueJSON(f *testing.F) {
	for _, s := range []string{`"a"`, `["a","b"]`, `[]`, `null`, `5`, `["\u0000"]`, ` [ "x" ] `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v Value
		if json.Unmarshal([]byte(s), &v) != nil {
			return
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var back Value
		if err := json.Unmarshal(b, &back); err != nil || back.String() != v.String() || back.IsList != v.IsList {
			t.Fatalf("%q: round trip %s gives %#v, %v", s, b, back, err)
		}
	})
}
