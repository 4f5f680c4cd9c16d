package review

import (
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path"
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
	secLinks   = ":links"
	secRecords = ":records"
	secDigest  = ":digest"
)

// materialize writes the tree of a vector archive below dir: every file
// that is not a section, a name ending in "/" as an (empty) directory,
// the symbolic links of the :links section ("path -> text" per line, the
// text written as is, "@ROOT@" replaced by dir), and the modes of the
// :mode section ("0755 path" per line; default 0644 for files and 0755
// for directories).
func materialize(t testing.TB, dir string, a *txtar.Archive) {
	t.Helper()
	if links, ok := section(a, secLinks); ok {
		for _, line := range strings.Split(strings.TrimSpace(links), "\n") {
			if line == "" {
				continue
			}
			p, text, ok := strings.Cut(line, " -> ")
			if !ok {
				t.Fatalf("bad :links line %q", line)
			}
			full := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(strings.ReplaceAll(text, "@ROOT@", dir), full); err != nil {
				t.Fatal(err)
			}
		}
	}
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
// sort, read each file whole. It decides which links are kept in its own
// way: the lexical target must stay below the root, and the kernel,
// following the link, must reach exactly that path, a regular file that
// is not itself a link.
func naiveTreeHash(t testing.TB, root string) string {
	t.Helper()
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	linkTarget := func(p, rel string) (string, bool) {
		text, err := os.Readlink(p)
		if err != nil || text == "" || filepath.IsAbs(text) {
			return "", false
		}
		clean := path.Clean(path.Join(path.Dir(rel), text))
		if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
			return "", false
		}
		resolved, err := filepath.EvalSymlinks(p)
		if err != nil || resolved != filepath.Join(realRoot, filepath.FromSlash(clean)) {
			return "", false
		}
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(clean)))
		if err != nil || !fi.Mode().IsRegular() {
			return "", false
		}
		return clean, true
	}
	type ent struct {
		path string
		rec  []byte
	}
	var ents []ent
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
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
		case info.Mode()&os.ModeSymlink != 0:
			target, ok := linkTarget(p, rel)
			if !ok {
				return nil // not part of the bundle: no record
			}
			fmt.Fprintf(&rec, "L%s\x00%s\x00", rel, target)
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

// TestContentHashLinks: changing a link's target, turning a file into a
// link or a link into a file all change the content hash; the text a
// link holds counts only through the file it resolves to; a refused link
// counts as no entry at all. The naive implementation agrees on each.
func TestContentHashLinks(t *testing.T) {
	type link struct{ path, text string }
	hash := func(t *testing.T, files map[string]string, links ...link) string {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "b")
		for p, content := range files {
			full := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, l := range links {
			if err := os.Symlink(strings.ReplaceAll(l.text, "@ROOT@", dir), filepath.Join(dir, filepath.FromSlash(l.path))); err != nil {
				t.Fatal(err)
			}
		}
		d, _, err := HashDir(dir, bundle.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if ref := naiveTreeHash(t, dir); ref != d.String() {
			t.Fatalf("naive implementation disagrees: %s, ContentHash %s", ref, d)
		}
		return d.String()
	}
	two := map[string]string{"AGENTS.md": "x\n", "other.md": "y\n"}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range two {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	base := hash(t, two, link{"CLAUDE.md", "AGENTS.md"})
	distinct := map[string]string{
		"base":                  base,
		"retargeted":            hash(t, two, link{"CLAUDE.md", "other.md"}),
		"link turned into file": hash(t, with(map[string]string{"CLAUDE.md": "x\n"})),
		"file turned into link": hash(t, map[string]string{"CLAUDE.md": "x\n", "other.md": "y\n"}, link{"AGENTS.md", "CLAUDE.md"}),
		"no link":               hash(t, two),
	}
	seen := map[string]string{}
	for name, d := range distinct {
		if other, dup := seen[d]; dup {
			t.Errorf("%s and %s hash alike: %s", name, other, d)
		}
		seen[d] = name
	}
	if d := hash(t, two, link{"CLAUDE.md", "./AGENTS.md"}); d != base {
		t.Errorf("another text for the same target changed the hash: %s, want %s", d, base)
	}
	if d := hash(t, two, link{"CLAUDE.md", "@ROOT@/AGENTS.md"}); d != distinct["no link"] {
		t.Errorf("a refused link changed the hash: %s, want the tree without it %s", d, distinct["no link"])
	}
}

// TestVectorRefusedLinksAddNothing: vector 07 is vector 02 plus links that
// are not part of the bundle, and so has vector 02's digest.
func TestVectorRefusedLinksAddNothing(t *testing.T) {
	digest := func(name string) string {
		a, err := txtar.ParseFile(filepath.Join("testdata", "vectors", name))
		if err != nil {
			t.Fatal(err)
		}
		d, _ := section(a, secDigest)
		return strings.TrimSpace(d)
	}
	if a, b := digest("07-refused-links.txtar"), digest("02-one-file.txtar"); a != b || a == "" {
		t.Errorf("vector 07 digest %s, vector 02 %s", a, b)
	}
}

// TestVectorsDocumented: docs/hashing.md lists every vector with its
// digest, so the page another implementer reads cannot drift from the
// vectors the tests check.
func TestVectorsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "hashing.md"))
	if err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob("testdata/vectors/*.txtar")
	for _, p := range paths {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := section(a, secDigest)
		name := strings.TrimSuffix(filepath.Base(p), ".txtar")
		found := false
		for _, line := range strings.Split(string(doc), "\n") {
			if strings.HasPrefix(line, "| "+name+" |") && strings.Contains(line, "`"+strings.TrimSpace(d)+"`") {
				found = true
			}
		}
		if !found {
			t.Errorf("docs/hashing.md has no row \"| %s | … | `%s` |\"", name, strings.TrimSpace(d))
		}
	}
}
