package lifecycle_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"golang.org/x/sys/unix"
)

// setImmutable sets or clears the immutable flag of the directory dir:
// nothing, root included, may then add, remove or rename an entry in it.
// It reports false where the flag cannot be set (no CAP_LINUX_IMMUTABLE,
// a file system without it).
func setImmutable(t *testing.T, dir string, on bool) bool {
	t.Helper()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err != nil {
		return false
	}
	if on {
		flags |= fsImmutableFL
	} else {
		flags &^= fsImmutableFL
	}
	return unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags)) == nil
}

// An update of a trusted, enabled bundle swaps its directory for the
// fetched tree; then the state write fails (the home takes no new entry),
// and so does putting the old tree back (its fetch directory takes no
// change either): real failures, made with the immutable flag. The
// directory then holds upstream's tree under the old record. The update
// fails, saying where the old tree is and what the directory holds, and
// nothing active changed: the bundle keeps running its reviewed snapshot,
// with an update pending review. Once the disk takes writes again, the
// next update completes the record (the note it wrote before the swap
// tells the tree from a local edit) rather than refusing it as an edit.
func TestUpdateWhoseRestoreFailsLeavesUpdatePendingReview(t *testing.T) {
	m, dir := installedForUpdate(t, bundle.ScopeUser)
	if _, err := m.Trust("good", tokenOf(t, m, "good")); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Enable("good"); err != nil {
		t.Fatal(err)
	}
	home := m.Roots.Home
	var locked []string
	defer func() {
		for _, d := range locked {
			setImmutable(t, d, false)
		}
	}()
	lifecycle.OnUpdateSwap(t, func(at string) {
		if at != "exchanged" {
			return
		}
		holders, _ := filepath.Glob(filepath.Join(home, lifecycle.TmpDir, "*"))
		if len(holders) != 1 {
			t.Fatalf("want the update's one fetch directory in %s, got %q", lifecycle.TmpDir, holders)
		}
		for _, d := range []string{holders[0], home} {
			if !setImmutable(t, d, true) {
				t.Skip("cannot set the immutable flag here (needs CAP_LINUX_IMMUTABLE and ext4, xfs or btrfs)")
			}
			locked = append(locked, d)
		}
	})
	_, err := m.Update(context.Background(), "good", lifecycle.UpdateOptions{})
	for _, d := range locked {
		setImmutable(t, d, false)
	}
	locked = nil
	if err == nil {
		t.Fatal("update succeeded with neither the state written nor the old tree put back")
	}
	msg := err.Error()
	// The tree in place is the one fetched.
	if got, rerr := os.ReadFile(filepath.Join(dir, "README.md")); rerr != nil || string(got) != "v2\n" {
		t.Fatalf("the directory does not hold the fetched tree (%q, %v); update said: %v", got, rerr, err)
	}
	// The error says where the old tree is, and that path holds it.
	var aside string
	for _, part := range strings.Split(msg, "\"") {
		if _, serr := os.Stat(filepath.Join(part, ".claude-plugin", "plugin.json")); serr == nil && filepath.IsAbs(part) && part != dir {
			aside = part
		}
	}
	if aside == "" {
		t.Fatalf("the error does not name where the old tree is: %v", err)
	}
	if _, serr := os.Stat(filepath.Join(aside, "README.md")); !errors.Is(serr, os.ErrNotExist) {
		t.Fatalf("%s is not the old tree: %v", aside, serr)
	}
	for _, want := range []string{"holds the fetched tree", "bundlectl update good"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	var h interface{ Hint() string }
	if !errors.As(err, &h) || h.Hint() == "" {
		t.Errorf("the error has no hint: %v", err)
	}
	if strings.Contains(msg, "move it back to") {
		t.Errorf("the error tells to move the old tree onto the directory, which holds the fetched tree (mv would put it inside): %v", err)
	}
	// What list and show say: still active on the reviewed snapshot, an
	// update pending review.
	st := status(t, m, "good")
	if !st.Active || !st.UpdatePending || !strings.Contains(strings.Join(st.Reasons, "; "), "the reviewed snapshot keeps running") {
		t.Fatalf("after the failed update: %+v, want active on the reviewed snapshot with an update pending review", st)
	}
	// The next update completes the record: no local-edit refusal.
	up, err := m.Update(context.Background(), "good", lifecycle.UpdateOptions{})
	if err != nil {
		t.Fatalf("the next update: %v, want it to complete the record", err)
	}
	if up.Changed {
		t.Fatalf("the next update replaced the tree again: %+v", up)
	}
	st = status(t, m, "good")
	if !st.Active || !st.UpdatePending {
		t.Fatalf("after the completing update: %+v, want active with an update pending review", st)
	}
	// gc removes the old tree kept, as the error said.
	if _, err := m.GC(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(aside); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("gc left the old tree the update kept at %s: %v", aside, err)
	}
}

// fsImmutableFL is FS_IMMUTABLE_FL of linux/fs.h (chattr +i), which
// x/sys/unix does not define.
const fsImmutableFL = 0x00000010
