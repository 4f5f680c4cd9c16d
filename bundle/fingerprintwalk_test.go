package bundle

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"syscall"
	"testing"
)

// FingerprintWalk sees exactly the entries Walk sees in a tree Walk
// accepts, and gives up wherever Walk would have more to say.
func TestFingerprintWalkMatchesWalk(t *testing.T) {
	dir := t.TempDir()
	mkfile(t, dir, "plugin.json", `{"name":"x"}`, 0o644)
	mkfile(t, dir, "bin/run", "#!/bin/sh\n", 0o755)
	mkfile(t, dir, "a/b/c/deep.txt", "deep", 0o600)
	mkfile(t, dir, "a/Z.txt", "upper", 0o644)
	mkdir(t, dir, "empty")
	want, rep := Walk(dir, Limits{})
	if want == nil || len(rep.Findings) > 0 {
		t.Fatalf("Walk: %v", rep.Findings)
	}
	kept := slices.Clone(want.Entries)
	for range 2 { // the second walk reuses the first one's memory
		used := false
		ok := FingerprintWalk(dir, Limits{}, func(got *Tree) {
			used = true
			if !reflect.DeepEqual(got.Entries, want.Entries) || got.Files != want.Files || got.Bytes != want.Bytes {
				t.Fatalf("FingerprintWalk saw\n%+v\nWalk saw\n%+v", got.Entries, want.Entries)
			}
		})
		if !ok || !used {
			t.Fatal("FingerprintWalk gave up on a plain tree")
		}
	}
	// A Walk's tree is its own: later walks do not write into it.
	other := t.TempDir()
	mkfile(t, other, "a/other.txt", "x", 0o644)
	mkfile(t, other, "b.txt", "x", 0o644)
	Walk(other, Limits{})
	FingerprintWalk(other, Limits{}, func(*Tree) {})
	if !reflect.DeepEqual(kept, want.Entries) {
		t.Fatal("a later walk changed an earlier walk's entries")
	}
	never := func(*Tree) { t.Error("FingerprintWalk handed over a tree although it gave up") }

	for name, mk := range map[string]func(string) error{
		"symlink": func(d string) error { return os.Symlink("plugin.json", filepath.Join(d, "link")) },
		"fifo":    func(d string) error { return syscall.Mkfifo(filepath.Join(d, "fifo"), 0o600) },
		"over the entry bound": func(d string) error {
			return os.WriteFile(filepath.Join(d, "one-more"), nil, 0o644)
		},
	} {
		d := t.TempDir()
		mkfile(t, d, "plugin.json", `{}`, 0o644)
		if err := mk(d); err != nil {
			t.Fatal(err)
		}
		lim := Limits{}
		if name == "over the entry bound" {
			lim.MaxEntries = 1
		}
		if FingerprintWalk(d, lim, never) {
			t.Errorf("%s: FingerprintWalk did not give up", name)
		}
	}
	if FingerprintWalk(filepath.Join(dir, "plugin.json"), Limits{}, never) {
		t.Error("FingerprintWalk walked a file")
	}
	link := filepath.Join(t.TempDir(), "root-link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if FingerprintWalk(link, Limits{}, never) {
		t.Error("FingerprintWalk followed a symbolic link to its root")
	}
}
