package staging

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/bundlectl/bundlectl/review"
)

// writeTree creates files below dir from a map of relative path to
// content; a path ending in "/" is an empty directory, a content starting
// with "#!" makes the file executable.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if strings.HasSuffix(rel, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(content, "#!") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
}

func walk(t testing.TB, dir string) *bundle.Tree {
	t.Helper()
	tree, rep := bundle.Walk(dir, bundle.Limits{})
	if errs := rep.Errors(); len(errs) > 0 || tree == nil {
		t.Fatalf("walk %s: %v", dir, rep.Err())
	}
	return tree
}

// referenceHash is the bundle tree v1 recipe written out plainly, straight
// from docs/snapshots.md: walk, FileDigest of each file read by path, records in
// order.
func referenceHash(t testing.TB, dir string) receipts.Digest {
	t.Helper()
	tree := walk(t, dir)
	th := review.NewTreeHasher()
	buf := make([]byte, 4096)
	for _, e := range tree.Entries {
		if e.Kind == bundle.KindLink {
			if err := th.AddLink(e.Path, e.Target); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var d receipts.Digest
		if e.Kind != bundle.KindDir {
			f, err := os.Open(filepath.Join(dir, filepath.FromSlash(e.Path)))
			if err != nil {
				t.Fatal(err)
			}
			var n int64
			d, n, err = review.FileDigest(f, buf)
			f.Close()
			if err != nil || n != e.Size {
				t.Fatalf("%s: read %d of %d bytes: %v", e.Path, n, e.Size, err)
			}
		}
		if err := th.Add(e.Path, e.Kind, e.Size, d); err != nil {
			t.Fatal(err)
		}
	}
	return th.Sum()
}

// newStore returns a store in a temporary directory, made writable again
// before the directory is removed (snapshots are read-only, which matters
// when the tests do not run as root).
func newStore(t testing.TB) *Store {
	s := &Store{Dir: filepath.Join(t.TempDir(), "home", "store")}
	t.Cleanup(func() { removeTree(s.Dir) })
	return s
}

// storeNames lists the store directory.
func storeNames(t testing.TB, s *Store) []string {
	t.Helper()
	ents, err := os.ReadDir(s.Dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// unseal makes a snapshot writable again so a test can tamper with it.
func unseal(t testing.TB, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
}

func sampleTree() map[string]string {
	return map[string]string{
		"plugin.json":           `{"name":"sample"}`,
		"skills/a/SKILL.md":     "---\nname: a\n---\nbody\n",
		"skills/b/SKILL.md":     "---\nname: b\n---\n",
		"hooks/guard":           "#!/bin/sh\nexit 0\n",
		"empty/":                "",
		"deep/er/still/file.md": strings.Repeat("x", 3000),
		"zero":                  "",
	}
}
