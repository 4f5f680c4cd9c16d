package staging

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/receipts"
)

func stageSample(t *testing.T) (*Store, string, receipts.Digest) {
	t.Helper()
	src := t.TempDir()
	writeTree(t, src, sampleTree())
	want := referenceHash(t, src)
	s := newStore(t)
	path, err := s.Stage(walk(t, src), want, bundle.Limits{})
	if err != nil {
		t.Fatalf("Stage: %v", err)
	}
	if path != filepath.Join(s.Dir, want.String()) {
		t.Fatalf("Stage returned %q", path)
	}
	return s, src, want
}

func TestStageThenVerify(t *testing.T) {
	s, src, want := stageSample(t)
	if err := s.Verify(want); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	snap := s.Path(want)
	if got := referenceHash(t, snap); got != want {
		t.Fatalf("snapshot hashes to %s, want %s", got, want)
	}
	uid := uint32(os.Geteuid())
	check := func(p string, want os.FileMode) {
		t.Helper()
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		if got := os.FileMode(st.Mode & 0o7777); got != want {
			t.Errorf("%s: mode %04o, want %04o", p, got, want)
		}
		if st.Uid != uid {
			t.Errorf("%s: uid %d, want %d", p, st.Uid, uid)
		}
	}
	check(s.Dir, 0o700)
	check(snap, 0o500)
	for _, e := range walk(t, src).Entries {
		p := filepath.Join(snap, filepath.FromSlash(e.Path))
		switch e.Kind {
		case bundle.KindDir:
			check(p, 0o500)
		case bundle.KindExec:
			check(p, 0o500)
		default:
			check(p, 0o400)
		}
	}
	names := storeNames(t, s)
	if len(names) != 2 || names[0] != want.String() || names[1] != want.String()+".records" {
		t.Fatalf("store holds %q, want the snapshot and its records", names)
	}
}

func TestStageThenVerifyPortable(t *testing.T) {
	hook(t, &testOnlyNoOpenat2, true)
	TestStageThenVerify(t)
	TestVerifyDetectsTampering(t)
}

func TestStageReusesAfterVerify(t *testing.T) {
	s, src, want := stageSample(t)
	snap := s.Path(want)
	var before syscall.Stat_t
	syscall.Stat(snap, &before)
	if _, err := s.Stage(walk(t, src), want, bundle.Limits{}); err != nil {
		t.Fatal(err)
	}
	var after syscall.Stat_t
	syscall.Stat(snap, &after)
	if before.Ino != after.Ino {
		t.Fatalf("a verified snapshot was replaced instead of reused")
	}

	// A bad snapshot under the name is not reused: it is replaced.
	unseal(t, snap)
	os.Chmod(filepath.Join(snap, "plugin.json"), 0o600)
	if err := os.WriteFile(filepath.Join(snap, "plugin.json"), []byte("evil"), 0o400); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(snap, "plugin.json"), 0o400)
	if err := s.Verify(want); !errors.Is(err, ErrTampered) {
		t.Fatalf("Verify of a changed snapshot: %v", err)
	}
	if _, err := s.Stage(walk(t, src), want, bundle.Limits{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Verify(want); err != nil {
		t.Fatalf("after restaging: %v", err)
	}
	if names := storeNames(t, s); len(names) != 2 {
		t.Fatalf("the replaced snapshot was left behind: %q", names)
	}
}

func TestStageWrongHashLeavesNothing(t *testing.T) {
	src := t.TempDir()
	writeTree(t, src, sampleTree())
	want := referenceHash(t, src)
	wrong := want
	wrong[0] ^= 1
	s := newStore(t)
	_, err := s.Stage(walk(t, src), wrong, bundle.Limits{})
	var me *MismatchError
	if !errors.As(err, &me) || !errors.Is(err, ErrMismatch) || me.Got != want || me.Want != wrong {
		t.Fatalf("Stage with a wrong hash: %v", err)
	}
	if !strings.Contains(err.Error(), "the source changed after review") {
		t.Errorf("message %q", err)
	}
	if names := storeNames(t, s); len(names) != 0 {
		t.Fatalf("store holds %q after a refused Stage", names)
	}
}

func TestStoreModeEnforced(t *testing.T) {
	s := newStore(t)
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(s.Dir, 0o755)
	src := t.TempDir()
	writeTree(t, src, map[string]string{"a": "a"})
	if _, err := s.Stage(walk(t, src), referenceHash(t, src), bundle.Limits{}); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Lstat(s.Dir)
	if fi.Mode().Perm() != 0o700 {
		t.Fatalf("store mode %v", fi.Mode())
	}

	link := filepath.Join(t.TempDir(), "store")
	os.Symlink(s.Dir, link)
	ls := &Store{Dir: link}
	var ue *UnsafeStoreError
	if _, err := ls.Stage(walk(t, src), referenceHash(t, src), bundle.Limits{}); !errors.As(err, &ue) {
		t.Fatalf("Stage into a symlinked store: %v", err)
	}
	if err := ls.Verify(referenceHash(t, src)); !errors.As(err, &ue) {
		t.Fatalf("Verify in a symlinked store: %v", err)
	}
}

func TestVerifyDetectsTampering(t *testing.T) {
	cases := []struct {
		name   string
		tamper func(t *testing.T, snap string)
		path   string
		reason string
	}{
		{"byte changed", func(t *testing.T, snap string) {
			p := filepath.Join(snap, "skills/a/SKILL.md")
			b, _ := os.ReadFile(p)
			b[len(b)-2] ^= 1
			os.Chmod(p, 0o600)
			if err := os.WriteFile(p, b, 0o400); err != nil {
				t.Fatal(err)
			}
			os.Chmod(p, 0o400)
		}, "skills/a/SKILL.md", "content changed"},
		{"file added", func(t *testing.T, snap string) {
			if err := os.WriteFile(filepath.Join(snap, "skills/a/extra.md"), nil, 0o400); err != nil {
				t.Fatal(err)
			}
		}, "skills/a/extra.md", "added"},
		{"file removed", func(t *testing.T, snap string) {
			if err := os.Remove(filepath.Join(snap, "zero")); err != nil {
				t.Fatal(err)
			}
		}, "zero", "removed"},
		{"mode changed", func(t *testing.T, snap string) {
			if err := os.Chmod(filepath.Join(snap, "plugin.json"), 0o500); err != nil {
				t.Fatal(err)
			}
		}, "plugin.json", "executable bit added"},
		{"mode widened", func(t *testing.T, snap string) {
			if err := os.Chmod(filepath.Join(snap, "plugin.json"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "plugin.json", "mode changed to 0600"},
		{"symlink", func(t *testing.T, snap string) {
			p := filepath.Join(snap, "plugin.json")
			os.Remove(p)
			if err := os.Symlink("/etc/passwd", p); err != nil {
				t.Fatal(err)
			}
		}, "plugin.json", "the link is not part of the bundle"},
		{"empty dir added", func(t *testing.T, snap string) {
			if err := os.Mkdir(filepath.Join(snap, "newdir"), 0o500); err != nil {
				t.Fatal(err)
			}
		}, "newdir", "added"},
		{"dir mode", func(t *testing.T, snap string) {
			if err := os.Chmod(filepath.Join(snap, "empty"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, "empty", "mode changed to 0755"},
		{"records lost", func(t *testing.T, snap string) {
			os.Remove(snap + ".records")
			p := filepath.Join(snap, "zero")
			os.Chmod(p, 0o600)
			os.WriteFile(p, []byte("now"), 0o400)
			os.Chmod(p, 0o400)
		}, ".", "content hash is"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, _, want := stageSample(t)
			snap := s.Path(want)
			unseal(t, snap)
			c.tamper(t, snap)
			// Restore the directory modes the test had to open up, except
			// where the test is about them.
			filepath.WalkDir(snap, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.IsDir() && d.Type()&fs.ModeSymlink == 0 && !(c.name == "dir mode" && strings.HasSuffix(p, "/empty")) {
					os.Chmod(p, 0o500)
				}
				return nil
			})
			err := s.Verify(want)
			var te *TamperError
			if !errors.As(err, &te) || !errors.Is(err, ErrTampered) {
				t.Fatalf("Verify: %v, want a *TamperError", err)
			}
			if te.Path != c.path || !strings.Contains(te.Reason, c.reason) {
				t.Fatalf("Verify: path %q reason %q, want %q and %q", te.Path, te.Reason, c.path, c.reason)
			}
			if !strings.Contains(err.Error(), c.path) {
				t.Errorf("message %q does not name %q", err, c.path)
			}
		})
	}
}

func TestVerifyMissing(t *testing.T) {
	s := newStore(t)
	os.MkdirAll(s.Dir, 0o700)
	err := s.Verify(receipts.Digest{1})
	var te *TamperError
	if !errors.As(err, &te) || te.Path != "." {
		t.Fatalf("Verify of a missing snapshot: %v", err)
	}
}

func TestGC(t *testing.T) {
	s, src, want := stageSample(t)
	// A second, unreferenced snapshot and the leftovers of crashes.
	other := t.TempDir()
	writeTree(t, other, map[string]string{"x/y": "other"})
	oh := referenceHash(t, other)
	if _, err := s.Stage(walk(t, other), oh, bundle.Limits{}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".tmp-123", ".del-abc", ".tmp-9/sub"} {
		p := filepath.Join(s.Dir, d)
		os.MkdirAll(p, 0o700)
		os.WriteFile(filepath.Join(p, "f"), []byte("f"), 0o400)
		os.Chmod(p, 0o500)
	}
	os.WriteFile(filepath.Join(s.Dir, ".tmp-77.records"), nil, 0o400)
	orphan := receipts.Digest{7}
	os.WriteFile(filepath.Join(s.Dir, orphan.String()+".records"), nil, 0o400)
	os.WriteFile(filepath.Join(s.Dir, "unknown"), nil, 0o600)

	removed, err := s.GC(map[receipts.Digest]bool{want: true})
	if err != nil {
		t.Fatalf("GC: %v", err)
	}
	if len(removed) != 7 {
		t.Errorf("GC removed %q", removed)
	}
	names := storeNames(t, s)
	wantNames := []string{want.String(), want.String() + ".records", "unknown"}
	if strings.Join(names, " ") != strings.Join(wantNames, " ") {
		t.Fatalf("after GC the store holds %q, want %q", names, wantNames)
	}
	if err := s.Verify(want); err != nil {
		t.Fatal(err)
	}
	_ = src
}

func TestStageRefusesBeyondLimits(t *testing.T) {
	src := t.TempDir()
	writeTree(t, src, map[string]string{"a": "0123456789", "b": "0123456789", "d/e/f": "x"})
	tree := walk(t, src)
	want := referenceHash(t, src)
	s := newStore(t)
	for _, lim := range []bundle.Limits{{MaxFileBytes: 9}, {MaxTotalBytes: 15}, {MaxEntries: 3}, {MaxDepth: 2}, {MaxPathBytes: 4}} {
		_, err := s.Stage(tree, want, lim)
		var le *LimitError
		if !errors.As(err, &le) {
			t.Errorf("Stage with %+v: %v, want a *LimitError", lim, err)
		}
	}
	if names := storeNames(t, s); len(names) != 0 {
		t.Fatalf("store holds %q", names)
	}
}

func TestGCFollowsNoLink(t *testing.T) {
	s, _, want := stageSample(t)
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"keep/me": "outside"})
	os.Chmod(filepath.Join(outside, "keep"), 0o500)
	defer os.Chmod(filepath.Join(outside, "keep"), 0o700)
	before := snapshotDir(t, outside)
	snap := s.Path(want)
	unseal(t, snap)
	if err := os.Symlink(outside, filepath.Join(snap, "skills", "link")); err != nil {
		t.Fatal(err)
	}
	os.Chmod(snap, 0o500)
	if _, err := s.GC(nil); err != nil {
		t.Fatal(err)
	}
	if names := storeNames(t, s); len(names) != 0 {
		t.Fatalf("GC left %q", names)
	}
	if after := snapshotDir(t, outside); after != before {
		t.Fatalf("GC changed a directory a link in the snapshot pointed to:\n%s\nwas\n%s", after, before)
	}
}

// TestStageUnderStrictUmask: modes are set explicitly, not left to the
// umask; one that strips owner bits must neither break the copy (it would
// for a user other than root) nor change the snapshot modes.
func TestStageUnderStrictUmask(t *testing.T) {
	src := t.TempDir()
	writeTree(t, src, sampleTree())
	want := referenceHash(t, src)
	s := newStore(t)
	os.MkdirAll(s.Dir, 0o700)
	old := syscall.Umask(0o377)
	_, err := s.Stage(walk(t, src), want, bundle.Limits{})
	syscall.Umask(old)
	if err != nil {
		t.Fatalf("Stage under umask 0377: %v", err)
	}
	if err := s.Verify(want); err != nil {
		t.Fatal(err)
	}
}
