package inventory

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

const sample = `{"schema":"bundlectl-capabilities-v2","name":"x","hooks":[{"id":"abc","event":"PreToolUse","type":"command","command":"./g","shell":true}],"mcp_servers":[{"name":"s","transport":"stdio","command":"node","args":["a"],"host_variables":["TOKEN"]}],"permissions":{},"when":{}}`

func TestParseRoundTrip(t *testing.T) {
	inv, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Canonical(inv)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse(c)
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := Canonical(again)
	if !bytes.Equal(c, c2) {
		t.Fatalf("not a fixed point:\n%s\n%s", c, c2)
	}
}

func TestParseRefusesOtherSchemasAndUnknownFields(t *testing.T) {
	for _, bad := range []string{
		`{"name":"x","hooks":[]}`, // a v1 inventory
		`{"schema":"bundlectl-capabilities-v3","name":"x"}`,
		`{"schema":"bundlectl-capabilities-v2","name":"x","surprise":1}`,
		`{"schema":"bundlectl-capabilities-v2","name":"x"} {}`,
	} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}

// ParseSummary reads what Parse reads of the summary's fields, refuses
// what Parse refuses of them (another schema, a wrong type), and leaves
// the rest unchecked.
func TestParseSummary(t *testing.T) {
	s, err := ParseSummary([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	inv, _ := Parse([]byte(sample))
	if len(s.Hooks) != 1 || s.Hooks[0].Command != inv.Hooks[0].Command || !s.Hooks[0].Shell || s.Schema != Schema {
		t.Fatalf("summary %+v", s)
	}
	for _, bad := range []string{
		`{"name":"x","hooks":[]}`,
		`{"schema":"bundlectl-capabilities-v3","name":"x","hooks":"not a list"}`,
		`{"schema":"bundlectl-capabilities-v2","hooks":[{"id":1}]}`,
		`{"schema":"bundlectl-capabilities-v2","when":{"os":"linux"}}`,
		`not json`,
	} {
		if _, err := ParseSummary([]byte(bad)); err == nil {
			t.Errorf("%s: summary read", bad)
		}
	}
	if _, err := ParseSummary([]byte(`{"name":"x"}`)); !errors.Is(err, ErrSchema) {
		t.Errorf("an inventory of no schema: %v, want ErrSchema", err)
	}
	if _, err := ParseSummary([]byte(`{"schema":"bundlectl-capabilities-v2","surprise":1}`)); err != nil {
		t.Errorf("a field outside the summary was checked: %v", err)
	}
}

func TestHookIDIsStableAndSensitive(t *testing.T) {
	h := Hook{Event: "PreToolUse", Type: "command", Command: "./g", Args: []string{"a"}}
	id := HookID(h)
	if len(id) != 12 || HookID(h) != id {
		t.Fatalf("id %q", id)
	}
	h.ID = "ignored"
	if HookID(h) != id {
		t.Fatal("the id depends on the id field")
	}
	h.Args = []string{"b"}
	if HookID(h) == id {
		t.Fatal("a changed hook keeps its id")
	}
}

// FuzzParse: no input panics; an accepted inventory's canonical form is a
// fixed point and its digest does not depend on how it was written.
func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte(`{"schema":"bundlectl-capabilities-v2","name":"x","permissions":{},"when":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		inv, err := Parse(data)
		if err != nil {
			return
		}
		c, err := Canonical(inv)
		if err != nil {
			return
		}
		again, err := Parse(c)
		if err != nil {
			t.Fatalf("canonical form does not parse: %v\n%s", err, c)
		}
		c2, err := Canonical(again)
		if err != nil || !bytes.Equal(c, c2) || Digest(c) != Digest(c2) {
			t.Fatalf("not a fixed point:\n%s\n%s", c, c2)
		}
		if !json.Valid(c) {
			t.Fatal("canonical form is not JSON")
		}
	})
}
