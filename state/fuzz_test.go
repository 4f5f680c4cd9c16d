package state

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/receipts"
	"github.com/zeebo/blake3"
)

var update = flag.Bool("update", false, "rewrite testdata/state-v1.json")

// exampleState is the state of docs/state.md: two bundles, one trusted and
// enabled, one trusted, enabled and then revoked.
func exampleState(t testing.TB) *State {
	clock := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	s := newState()
	s.now = func() time.Time { clock = clock.Add(time.Minute); return clock }
	rc := func(id, name string) receipts.Receipt {
		inv := `{"components":{"skills":[{"name":"` + name + `"}]},"name":"` + name + `","permissions":{"network_hosts":[]}}`
		return receipts.Receipt{
			BundleID:       id,
			ContentHash:    receipts.Digest(blake3.Sum256([]byte("content " + name))),
			CapabilityHash: receipts.Digest(blake3.Sum256([]byte("capability " + name))),
			Inventory:      json.RawMessage(inv),
			Snapshot:       "/home/alice/.local/share/bundlectl/store/" + receipts.Digest(blake3.Sum256([]byte("content "+name))).String(),
			ReviewedAt:     clock,
		}
	}
	const a, b = "user/3f1c0a9e5b27/git-helper", "workspace/9d04be61c3a2/lint"
	for _, step := range []func() (bool, error){
		func() (bool, error) { return s.Trust(a, rc(a, "git-helper")) },
		func() (bool, error) { return s.Enable(a) },
		func() (bool, error) { return s.Trust(b, rc(b, "lint")) },
		func() (bool, error) { return s.Enable(b) },
		func() (bool, error) { return s.Revoke(b) },
	} {
		if ch, err := step(); !ch || err != nil {
			t.Fatalf("example: %v %v", ch, err)
		}
	}
	return s
}

// The example in docs/state.md is the golden file, indented for reading:
// the file is written compact, on one line, and is exactly the golden
// compacted. Both parse.
func TestExampleIsGolden(t *testing.T) {
	written, err := exampleState(t).marshal()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.IndexByte(written, '\n') != len(written)-1 {
		t.Fatalf("state.json is not written compact, on one line:\n%s", written)
	}
	if _, err := parse(written, true); err != nil {
		t.Fatalf("the written file does not parse: %v", err)
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, written, "", "  "); err != nil {
		t.Fatal(err)
	}
	got := ind.Bytes()
	golden := filepath.Join("testdata", "state-v3.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale (go test -run TestExampleIsGolden -update):\n%s", golden, got)
	}
	if _, err := parse(want, true); err != nil {
		t.Fatalf("golden does not parse: %v", err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "state.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(doc, want) {
		t.Errorf("docs/state.md does not contain %s verbatim", golden)
	}
}

// A state file of schema 2 (the example of docs/state.md when that was the
// schema: the trails inside the records) reads as the same state, and is
// rewritten as schema 3.
func TestReadsSchemaV2(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "state-v2.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, audit := range []bool{true, false} {
		s, err := parse(data, audit)
		if err != nil {
			t.Fatalf("a version 2 file does not parse (audit %v): %v", audit, err)
		}
		want := exampleState(t)
		if !slices.Equal(s.IDs(), want.IDs()) {
			t.Fatalf("ids %v, want %v", s.IDs(), want.IDs())
		}
		for _, id := range want.IDs() {
			a, _ := s.Bundle(id)
			b, _ := want.Bundle(id)
			if !audit {
				b.Audit = []Event{}
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%s read as %+v, want %+v", id, a, b)
			}
		}
		if audit {
			out, err := s.marshal()
			if err != nil || !bytes.Contains(out, []byte(`"schema_version":3`)) {
				t.Fatalf("rewritten as: %s (%v)", out, err)
			}
		}
	}
}

// A state file written by the first schema still reads: version 2 only
// added fields.
func TestReadsSchemaV1(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "state-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := parse(data, true)
	if err != nil {
		t.Fatalf("a version 1 file does not parse: %v", err)
	}
	if len(s.IDs()) == 0 {
		t.Fatal("no bundles read from the version 1 file")
	}
	out, err := s.marshal()
	if err != nil || !bytes.Contains(out, []byte(`"schema_version":3`)) {
		t.Fatalf("rewritten as: %s (%v)", out, err)
	}
}

func FuzzStateJSON(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		``, `{}`, `null`, `[]`, `{"schema_version":1}`, `{"schema_version":2,"bundles":{}}`,
		`{"schema_version":1,"generation":0,"bundles":{}}`,
		`{"schema_version":1,"generation":1,"bundles":{"user/0123456789ab/a":{"enabled":true,"receipt":null,"generation":1,"audit":[{"action":"disable","time":"2026-01-01T00:00:00+05:30","generation":1,"receipt":null}]}}}`,
		`{"schema_version":1,"generation":1,"bundles":{"user/0123456789ab/a":null}}`,
		`{"schema_version":1.0,"generation":1e2}`,
		`{"schema_version":1,"Schema_Version":1,"bundles":{}}`,
		`{"schema_version":3,"generation":1,"bundles":{"user/0123456789ab/a":{"enabled":false,"receipt":null,"generation":1}},"audit":{"user/0123456789ab/a":[{"action":"disable","time":"2026-01-01T00:00:00Z","generation":1,"receipt":null}]}}`,
		`{"schema_version":3,"generation":1,"bundles":{"user/0123456789ab/a":{"enabled":false,"receipt":null,"generation":1}},"audit":{}}`,
		`{"schema_version":3,"generation":0,"bundles":{},"audit":{"user/0123456789ab/a":[]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parse(data, true)
		if err != nil {
			return
		}
		// What the runtime reads (no audit decoded) accepts every file
		// the full read accepts, with the same decisions.
		c, err := parse(data, false)
		if err != nil {
			t.Fatalf("the full read accepts a file the current read refuses: %v", err)
		}
		if c.Generation() != s.Generation() || !slices.Equal(c.IDs(), s.IDs()) {
			t.Fatalf("the current read differs in generations or ids")
		}
		for _, id := range s.IDs() {
			a, _ := s.Bundle(id)
			b, _ := c.Bundle(id)
			a.Audit, b.Audit = nil, nil
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("the current read differs for %s:\n%+v\n%+v", id, a, b)
			}
		}
		m1, err := s.marshal()
		if err != nil {
			t.Fatalf("accepted state does not marshal: %v", err)
		}
		s2, err := parse(m1, true)
		if err != nil {
			t.Fatalf("marshalled state does not parse back: %v\n%s", err, m1)
		}
		m2, err := s2.marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(m1, m2) {
			t.Fatalf("round trip changed the state:\n%s\n---\n%s", m1, m2)
		}
		if s.Generation() != s2.Generation() || len(s.IDs()) != len(s2.IDs()) {
			t.Fatalf("round trip changed generations or ids")
		}
		for _, id := range s.IDs() {
			a, _ := s.Bundle(id)
			b, ok := s2.Bundle(id)
			if !ok || a.Enabled != b.Enabled || a.Generation != b.Generation || a.Trusted() != b.Trusted() || len(a.Audit) != len(b.Audit) {
				t.Fatalf("round trip changed bundle %s", id)
			}
			if a.Trusted() && !bytes.Equal(a.Receipt.Inventory, b.Receipt.Inventory) {
				t.Fatalf("round trip changed the inventory of %s", id)
			}
		}
	})
}
