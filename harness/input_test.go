package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/params"
)

const greetParams = `{"type":"object","properties":{"name":{"type":"string","maxLength":8},"count":{"type":"integer","maximum":3},"tag":{"type":"string","pattern":"^[a-z]+$"}},"required":["name"],"additionalProperties":false}`

func mustCompile(t *testing.T, s string) *params.Schema {
	t.Helper()
	sch, err := CompileParams(json.RawMessage(s))
	if err != nil {
		t.Fatalf("CompileParams(%s): %v", s, err)
	}
	return sch
}

func TestValidateInputAccepts(t *testing.T) {
	sch := mustCompile(t, greetParams)
	for _, in := range []string{`{"name":"ada"}`, ` {"name":"ada","count":3} `, `{"name":"ada","count":3.0}`} {
		if err := ValidateInput(sch, []byte(in)); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
}

func TestValidateInputProblems(t *testing.T) {
	sch := mustCompile(t, greetParams)
	secret := "sk-verysecretvalue"
	cases := []struct {
		in    string
		paths []string
	}{
		{`{}`, []string{""}},
		{`{"name":7}`, []string{"/name"}},
		{`{"name":"ada","count":4}`, []string{"/count"}},
		{`{"name":"ada","count":18446744073709551617}`, []string{"/count"}}, // no float rounding
		{`{"name":"ada","extra":1}`, []string{""}},
		{`{"name":"ada","tag":"` + secret + `"}`, []string{"/tag"}},
		{`{"name":"waytoolongname","count":"x"}`, []string{"/count", "/name"}},
	}
	for _, c := range cases {
		err := ValidateInput(sch, []byte(c.in))
		var ie *InputError
		if !errors.As(err, &ie) || ie.Syntax != "" {
			t.Errorf("%s: err = %v", c.in, err)
			continue
		}
		// The first problem is reported, at one of the places that break.
		if len(ie.Problems) != 1 || !slices.Contains(c.paths, ie.Problems[0].Path) {
			t.Errorf("%s: problems %+v, want one at one of %q (%v)", c.in, ie.Problems, c.paths, err)
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%s: error echoes the input value: %v", c.in, err)
		}
	}
}

func TestValidateInputSyntax(t *testing.T) {
	sch := mustCompile(t, "")
	for _, in := range []string{``, `   `, `{"a":1} {"b":2}`, `{"a":1}x`, `{"a":`, `[1,2`, `{"a":1,"a":2}`, `{"x":{"a":1,"a":1}}`, `nope`} {
		err := ValidateInput(sch, []byte(in))
		var ie *InputError
		if !errors.As(err, &ie) || ie.Syntax == "" {
			t.Errorf("%q: err = %v, want a syntax InputError", in, err)
		}
	}
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	if err := ValidateInput(sch, []byte(deep)); err == nil {
		t.Error("20000-deep input accepted")
	}
	huge := `{"a":"` + strings.Repeat("x", MaxInputBytes) + `"}`
	err := ValidateInput(sch, []byte(huge))
	if err == nil || len(err.Error()) > 200 {
		t.Errorf("huge input: %d-byte error %v", len(err.Error()), err)
	}
}

func TestEmptyParamsAcceptAnyObject(t *testing.T) {
	// Empty params compile to the nil schema; it must answer exactly as
	// the compiled AnyObject schema does, errors included.
	anyObject, err := params.Compile(params.AnyObject)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{`{}`, `{"a":1}`, `[]`, `"s"`, `1`, `-0`, `1.0`, `1e3`, `1.5`, `-2.5e-3`, `true`, `null`, `{`, `{} {}`} {
		got, want := fmt.Sprint(ValidateInput(mustCompile(t, ""), []byte(in))), fmt.Sprint(ValidateInput(anyObject, []byte(in)))
		if got != want {
			t.Errorf("%s: empty params say %q, {\"type\":\"object\"} says %q", in, got, want)
		}
	}
	for _, sch := range []*params.Schema{nil, mustCompile(t, ""), mustCompile(t, " \n"), anyObject} {
		if err := ValidateInput(sch, []byte(`{"anything":[1,{"x":null}]}`)); err != nil {
			t.Errorf("object refused: %v", err)
		}
		for _, in := range []string{`[]`, `"s"`, `1`, `null`} {
			if err := ValidateInput(sch, []byte(in)); err == nil {
				t.Errorf("%s accepted by empty params", in)
			}
		}
	}
}

func TestCompileParamsRefusesEveryURL(t *testing.T) {
	for _, s := range []string{
		`{"$ref":"https://example.com/schema.json"}`,
		`{"$ref":"http://127.0.0.1:1/x.json"}`,
		`{"$ref":"file:///etc/passwd"}`,
		`{"$ref":"other.json"}`,
		`{"$schema":"https://example.com/meta.json"}`,
	} {
		_, err := CompileParams(json.RawMessage(s))
		var se *SchemaError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "refused") {
			t.Errorf("%s: err = %v", s, err)
		}
	}
	// Local references and the embedded metaschemas still work.
	sch := mustCompile(t, `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"n":{"type":"string"}},"type":"object","properties":{"n":{"$ref":"#/$defs/n"}}}`)
	if err := ValidateInput(sch, []byte(`{"n":1}`)); err == nil {
		t.Error("local $ref not applied")
	}
	mustCompile(t, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`)
}

func TestCompileParamsRejectsBadSchemas(t *testing.T) {
	for _, s := range []string{`{`, `{"type":"strng"}`, `{"pattern":"("}`, `{"minLength":-1}`, `[]`} {
		if _, err := CompileParams(json.RawMessage(s)); err == nil {
			t.Errorf("%s compiled", s)
		}
	}
}

func FuzzValidateInput(f *testing.F) {
	for _, s := range []string{`{"name":"ada"}`, `{"name":1}`, `[`, `{"a":1,"a":2}`, `{"name":"x","tag":"\u202e"}`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	sch, err := CompileParams(json.RawMessage(greetParams))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		err := ValidateInput(sch, in)
		if err != nil && len(err.Error()) > 2000 {
			t.Fatalf("%d-byte error", len(err.Error()))
		}
		if err == nil && !json.Valid(in) {
			t.Fatalf("invalid JSON accepted: %q", in)
		}
	})
}

func BenchmarkValidateInput(b *testing.B) {
	sch, err := CompileParams(json.RawMessage(greetParams))
	if err != nil {
		b.Fatal(err)
	}
	in := []byte(`{"name":"ada","count":2,"tag":"abc"}`)
	for b.Loop() {
		if err := ValidateInput(sch, in); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzCompileParams: a params schema from a manifest never panics the
// compiler, and a compiled schema validates without panicking.
func FuzzCompileParams(f *testing.F) {
	for _, s := range []string{greetParams, ``, `true`, `{"$ref":"#"}`, `{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`,
		`{"$dynamicRef":"#x"}`, `{"pattern":"(a+)+$"}`, `{"$id":"http://x/y","$ref":"z"}`, `{"items":[{"type":"string"}]}`} {
		f.Add([]byte(s), []byte(`{"name":"a","x":[1,"b",null]}`))
	}
	f.Fuzz(func(t *testing.T, schema, input []byte) {
		sch, err := CompileParams(json.RawMessage(schema))
		if err != nil {
			return
		}
		_ = ValidateInput(sch, input)
	})
}
