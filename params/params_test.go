package params

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheckRefusesWhatWouldLoopOrReachOut(t *testing.T) {
	for name, s := range map[string]string{
		"self reference":   `{"$ref":"#"}`,
		"ring of defs":     `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`,
		"ring via anchor":  `{"$defs":{"a":{"$anchor":"x","not":{"$ref":"#x"}}},"$ref":"#x"}`,
		"remote reference": `{"$ref":"https://example.com/s.json"}`,
		"relative file":    `{"properties":{"x":{"$ref":"other.json"}}}`,
		"other metaschema": `{"$schema":"https://example.com/meta"}`,
		"unknown type":     `{"type":"strng"}`,
		"bad pattern":      `{"pattern":"("}`,
		"negative bound":   `{"minLength":-1}`,
		"an id":            `{"$id":"https://example.com/x"}`,
		"not an object":    `[]`,
		"two values":       `{} {}`,
	} {
		if _, err := Check(json.RawMessage(s)); err == nil {
			t.Errorf("%s: %s accepted", name, s)
		}
	}
	// Recursion that descends into the input is fine.
	for _, s := range []string{
		`{"$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"}}}},"properties":{"head":{"$ref":"#/$defs/node"}}}`,
		`{"$defs":{"list":{"type":"array","items":{"$ref":"#/$defs/list"}}},"$ref":"#/$defs/list"}`,
	} {
		if _, err := Check(json.RawMessage(s)); err != nil {
			t.Errorf("%s refused: %v", s, err)
		}
		if _, err := Compile(json.RawMessage(s)); err != nil {
			t.Errorf("%s does not compile: %v", s, err)
		}
	}
}

// A problem names the place and the rule, never the input's value.
func TestProblemsRepeatNoInputValue(t *testing.T) {
	sch, err := Compile(json.RawMessage(`{"type":"object","properties":{"tag":{"type":"string","pattern":"^[a-z]+$","maxLength":4},"n":{"type":"integer"}},"required":["tag"],"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	secret := "SECRET-value-1234"
	for in, path := range map[string]string{
		`{"tag":"` + secret + `"}`:          "/tag",
		`{"tag":"ab","n":"` + secret + `"}`: "/n",
		`{"tag":"ab","` + secret + `":1}`:   "",
		`{}`:                                "",
	} {
		var v any
		if err := json.Unmarshal([]byte(in), &v); err != nil {
			t.Fatal(err)
		}
		p := sch.Validate(v)
		if p == nil {
			t.Errorf("%s accepted", in)
			continue
		}
		if strings.Contains(p.Path+p.Message, "SECRET") {
			t.Errorf("%s: problem repeats the input: %+v", in, p)
		}
		if p.Path != path {
			t.Errorf("%s: path %q, want %q (%s)", in, p.Path, path, p.Message)
		}
	}
}

// A keyword in another letter case is refused: Go's decoder reads it as
// the keyword where the cycle check and the review do not, and a loop
// through "AnYOf" or "$REF" overflowed the stack on any input. Names and
// data that spell a keyword are not keywords.
func TestCheckRefusesKeywordInAnotherCase(t *testing.T) {
	for _, s := range []string{
		`{"AnYOf":[{"$ref":"#/anyOf/0"}]}`,
		`{"$REF":"#"}`,
		`{"properties":{"a":{"TYPE":"string"}}}`,
		`{"type":"string","Type":"object"}`,
	} {
		_, err := Check(json.RawMessage(s))
		if err == nil || !strings.Contains(err.Error(), "another letter case") {
			t.Errorf("%s: got %v, want a refusal naming the letter case", s, err)
		}
	}
	for _, s := range []string{
		`{"properties":{"Type":{"type":"string"},"$id":{},"AnyOf":{"const":{"$ID":1,"Items":[]}}},"required":["Type"]}`,
		`{"$defs":{"Not":{"type":"string"}},"dependentRequired":{"Type":["$id"]},"default":{"PATTERN":"("}}`,
	} {
		if _, err := Check(json.RawMessage(s)); err != nil {
			t.Errorf("%s: refused: %v", s, err)
		}
		if _, err := Compile(json.RawMessage(s)); err != nil {
			t.Errorf("%s: does not compile: %v", s, err)
		}
	}
}

// A property the schema does not allow is refused naming the properties
// the schema declares there, not the input's; the place is the input's,
// through a $ref too.
func TestProblemNamesAllowedProperties(t *testing.T) {
	sch, err := Compile(json.RawMessage(`{"type":"object","properties":{"tag":{},"a/b":{"properties":{"x":{}},"additionalProperties":false},"r":{"$ref":"#/$defs/d"},"list":{"items":{"$ref":"#/$defs/d"}}},"$defs":{"d":{"properties":{"dd":{"type":"string"}},"additionalProperties":false}},"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]Problem{
		`{"SECRET":1}`:               {"", `has properties the schema does not allow (it allows only "a/b", "list", "r", "tag")`},
		`{"a/b":{"SECRET":1}}`:       {"/a~1b", `has properties the schema does not allow (it allows only "x")`},
		`{"r":{"SECRET":1}}`:         {"/r", `has properties the schema does not allow (it allows only "dd")`},
		`{"r":{"dd":1}}`:             {"/r/dd", `got integer, want "string"`},
		`{"list":[{"SECRET":true}]}`: {"/list/*", `has properties the schema does not allow (it allows only "dd")`},
	} {
		var v any
		if err := json.Unmarshal([]byte(in), &v); err != nil {
			t.Fatal(err)
		}
		p := sch.Validate(v)
		if p == nil || *p != want {
			t.Errorf("%s: got %+v, want %+v", in, p, want)
		}
	}
}

// FuzzCheck: no schema panics or hangs Check and Compile, and a schema
// Check accepts compiles and validates any input without crashing.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"type":"object"}`, `{"$ref":"#"}`, `{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`,
		`{"items":{"$ref":"#"}}`, `{"anyOf":[{"$ref":"#/anyOf/1"},{"$ref":"#/anyOf/0"}]}`, `{"patternProperties":{"(":{}}}`} {
		f.Add([]byte(s), []byte(`{"a":[1,{"b":null}]}`))
	}
	f.Fuzz(func(t *testing.T, schema, input []byte) {
		if _, err := Check(schema); err != nil {
			return
		}
		sch, err := Compile(schema)
		if err != nil {
			return
		}
		var v any
		if json.Unmarshal(input, &v) == nil {
			sch.Validate(v)
		}
	})
}
