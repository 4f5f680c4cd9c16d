package lockfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestSeeds: the valid seeds parse, each invalid seed is refused.
func TestSeeds(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.lock")
	if len(files) < 4 {
		t.Fatalf("too few seeds: %v", files)
	}
	for _, p := range files {
		data, _ := os.ReadFile(p)
		_, err := Parse(data)
		if invalid := strings.HasPrefix(filepath.Base(p), "invalid-"); invalid != (err != nil) {
			t.Errorf("%s: Parse = %v", p, err)
		}
	}
}

// FuzzParse: no input panics; an error is a *ParseError; accepted input
// marshals, parses back to the same bundles (sorted) and marshals to the
// same bytes again.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.lock")
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lf, err := Parse(data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse returned %T %v, not a *ParseError", err, err)
			}
			_ = pe.Error()
			return
		}
		out, err := Marshal(lf)
		if err != nil {
			t.Fatalf("accepted input does not marshal: %v", err)
		}
		back, err := Parse(out)
		if err != nil {
			t.Fatalf("Marshal output does not parse: %v\n%s", err, out)
		}
		sort.Slice(lf.Bundles, func(i, j int) bool { return lf.Bundles[i].Name < lf.Bundles[j].Name })
		if len(lf.Bundles) == 0 {
			lf.Bundles = back.Bundles[:0]
		}
		if !reflect.DeepEqual(back, lf) {
			t.Fatalf("round trip changed the file:\n%+v\n%+v", lf, back)
		}
		again, err := Marshal(back)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("Marshal is not stable: %v", err)
		}
	})
}
