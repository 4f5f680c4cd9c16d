package sources

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// A fetch given its parent opened (Options.Parent) writes only through
// it: the parent's path renamed away after the fetch made its output
// directory, and a link to a directory mirroring its names put in its
// place, receives nothing — not the tree, not the scratch repository,
// not the downloaded archive — and the tree is in the directory opened.
// (Before fetches wrote through the opened parent, every case wrote into
// the mirror: the scratch space and the tree were reached by path.)
func TestFetchWritesOnlyThroughHeldParent(t *testing.T) {
	r := pluginRepo(t)
	r.commit("one")
	arch := filepath.Join(t.TempDir(), "fmt.tar.gz")
	sum := makeTarGz(t, arch, []tmember{
		{name: "plugin.json", body: "{}"},
		{name: "bin/run", body: "#!/bin/sh", mode: 0o755},
	})
	src := filepath.Join(t.TempDir(), "src")
	writeFile(t, filepath.Join(src, "plugin.json"), "{}", 0o644)
	for _, c := range []struct {
		name, file string
		q          Request
	}{
		{"git", ".claude-plugin/plugin.json", Request{Source: r.url()}},
		{"archive", "plugin.json", Request{Source: arch, SHA256: sum}},
		{"directory", "plugin.json", Request{Source: src}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			parent := filepath.Join(dir, "tmp")
			victim := filepath.Join(dir, "victim")
			if err := os.Mkdir(parent, 0o700); err != nil {
				t.Fatal(err)
			}
			held, err := os.OpenRoot(parent)
			if err != nil {
				t.Fatal(err)
			}
			defer held.Close()
			made := map[string]bool{victim: true}
			swapped := false
			testOnlyOutputMade = func() {
				swapped = true
				ents, err := os.ReadDir(parent)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(parent, parent+".moved"); err != nil {
					t.Fatal(err)
				}
				for _, e := range ents {
					made[filepath.Join(victim, e.Name())] = true
					if err := os.MkdirAll(filepath.Join(victim, e.Name()), 0o777); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.Symlink(victim, parent); err != nil {
					t.Fatal(err)
				}
			}
			defer func() { testOnlyOutputMade = nil }()
			res, err := Fetch(context.Background(), parent, c.q, Options{Parent: held})
			if !swapped {
				t.Fatal("the swap never ran")
			}
			filepath.WalkDir(victim, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !made[p] {
					t.Errorf("the fetch wrote %s through the link put in place of its parent", p)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Dir(res.Dir) != parent {
				t.Errorf("Dir %s is not in %s", res.Dir, parent)
			}
			got := filepath.Join(parent+".moved", filepath.Base(res.Dir))
			if _, err := os.Stat(filepath.Join(got, c.file)); err != nil {
				t.Errorf("the tree is not in the parent opened: %v", err)
			}
			if l := leftovers(t, parent+".moved"); len(l) != 1 {
				t.Errorf("the parent opened holds %v; want only the result", l)
			}
		})
	}
}
