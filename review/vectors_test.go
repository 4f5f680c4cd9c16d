package review

import (
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/zeebo/blake3"
)

var update = flag.Bool("update", false, "rewrite the :records and :digest sections of testdata/vectors and the golden files")

// Section names of a vector archive. They start with ':', which a bundle
// file name can never contain (it is reserved on Windows and the walk
// rejects it), so they cannot collide with a file of the tree.
const (
	secMode    = ":mode"
	secRecords = ":records"
	secDigest  = ":digest"
)

// materialize writes the tree of a vector archive below dir: every file
// that is not a section, a name ending in "/" as an (empty) directory,
// and the modes of the :mode section ("0755 path" per line; default 0644
// for files and 0755 for directories).
func materialize(t testing.TB, dir string, a *txtar.Archive) {
	t.Helper()
	modes := map[string]os.FileMode{}
	for _, f := range a.Files {
		if f.Name != secMode {
			continue
		}
		for _, line := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
			if line == "" {
				continue
			}
			m, p, ok := strings.Cut(line, " ")
			mode, err := strconv.ParseUint(m, 8, 32)
			if !ok || err != nil {
				t.Fatalf("bad :mode line %q", line)
			}
			modes[strings.TrimSuffix(p, "/")] = os.FileMode(mode)
		}
	}
	var dirs []string
	for _, f := range a.Files {
		if strings.HasPrefix(f.Name, ":") {
			continue
		}
		full := filepath.Join(dir, filepath.FromSlash(f.Name))
		if strings.HasSuffix(f.Name, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		mode, ok := modes[f.Name]
		if !ok {
			mode = 0o644
		}
		if err := os.Chmod(full, mode); err != nil {
			t.Fatal(err)
		}
	}
	// Directory modes last, so that files could still be created in them.
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != dir {
			dirs = append(dirs, p)
		}
		return nil
	})
	for _, p := range dirs {
		rel, _ := filepath.Rel(dir, p)
		mode, ok := modes[filepath.ToSlash(rel)]
		if !ok {
			mode = 0o755
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
}

func section(a *txtar.Archive, name string) (string, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return string(f.Data), true
		}
	}
	return "", false
}

func setSection(a *txtar.Archive, name, data string) {
	for i := range a.Files {
		if a.Files[i].Name == name {
			a.Files[i].Data = []byte(data)
			return
		}
	}
	a.Files = append(a.Files, txtar.File{Name: name, Data: []byte(data)})
}

// TestVectors materializes every testdata/vectors/*.txtar tree, walks it
// and checks its records and digest against the archive, and against an
// independent, deliberately naive implementation of the recipe.
func TestVectors(t *testing.T) {
	paths, err := filepath.Glob("testdata/vectors/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no vectors: %v", err)
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			a, err := txtar.ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "tree")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			materialize(t, dir, a)
			d, tree, err := HashDir(dir, bundle.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			recs, d2, err := TreeRecords(tree)
			if err != nil || d2 != d {
				t.Fatalf("TreeRecords: %v, %v != %v", err, d2, d)
			}
			var got strings.Builder
			for _, r := range recs {
				got.WriteString(hex.EncodeToString(r) + "\n")
			}
			if ref := naiveTreeHash(t, dir); ref != d.String() {
				t.Errorf("naive implementation disagrees: %s, ContentHash %s", ref, d)
			}
			if *update {
				setSection(a, secRecords, got.String())
				setSection(a, secDigest, d.String()+"\n")
				if err := os.WriteFile(p, txtar.Format(a), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			wantRecs, _ := section(a, secRecords)
			if got.String() != wantRecs {
				t.Errorf("records:\n%s\nwant:\n%s", got.String(), wantRecs)
			}
			wantDigest, ok := section(a, secDigest)
			if !ok || strings.TrimSpace(wantDigest) != d.String() {
				t.Errorf("digest %s, want %s", d, strings.TrimSpace(wantDigest))
			}
		})
	}
}

// naiveTreeHash is a second implementation of "bundle tree v1" written
// straight from docs/hashing.md with the standard library only: walk,
// sort, read each file whole.
func naiveTreeHash(t testing.TB, root string) string {
	t.Helper()
	type ent struct {
		path string
		rec  []byte
	}
	var ents []ent
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		var rec bytes.Buffer
		switch {
		case info.IsDir():
			fmt.Fprintf(&rec, "D%s\x00", rel)
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			kind := "F"
			if info.Mode()&0o111 != 0 {
				kind = "X"
			}
			sum := blake3.Sum256(data)
			fmt.Fprintf(&rec, "%s%s\x00%d\x00", kind, rel, len(data))
			rec.Write(sum[:])
		default:
			return fmt.Errorf("%s: not a file or directory", rel)
		}
		ents = append(ents, ent{rel, rec.Bytes()})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].path < ents[j].path })
	h := blake3.New()
	h.WriteString("bundlectl-tree-v1\x00")
	for _, e := range ents {
		h.Write(e.rec)
	}
	return hex.EncodeToString(h.Sum(nil))
}
