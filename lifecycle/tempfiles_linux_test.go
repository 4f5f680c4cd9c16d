package lifecycle_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/bundlectl/bundlectl/lifecycle"
)

// writeCC places a Claude Code bundle with one sensitive option in the
// user root.
func writeCC(t *testing.T, home string) {
	t.Helper()
	dir := filepath.Join(home, "bundles", "cc")
	for p, body := range map[string]string{
		".claude-plugin/plugin.json": `{"name": "cc", "userConfig": {"token": {"type": "string", "title": "t", "description": "d", "sensitive": true}}}`,
		"commands/hi.md":             "say hi\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNoTemporaryFileOutsideTheHome: configure (whose file holds the
// sensitive values) and the verification cache write their temporary
// files beside the file they replace, never in $TMPDIR — renameio's
// default when $TMPDIR is on the same file system. A configure killed
// before its rename left the values in a file of $TMPDIR that gc can
// never find. Every file created in $TMPDIR while they run is seen
// through inotify, so the test needs no timing.
func TestNoTemporaryFileOutsideTheHome(t *testing.T) {
	home, ws := newWorkspace(t, "kit")
	writeCC(t, home)
	tmp := t.TempDir() // the same file system as home, as renameio wants
	t.Setenv("TMPDIR", tmp)
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	defer unix.Close(fd)
	if _, err := unix.InotifyAddWatch(fd, tmp, unix.IN_CREATE|unix.IN_MOVED_TO); err != nil {
		t.Fatal(err)
	}
	m := manager(home, ws)
	if _, err := m.Configure("cc", map[string]string{"token": "s3cret"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Trust("kit", tokenOf(t, m, "kit")); err != nil { // records a verification
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(m.Cache().Dir); len(ents) == 0 {
		t.Fatal("trust recorded no verification: the cache's writer was not exercised")
	}
	buf := make([]byte, 4096)
	n, err := unix.Read(fd, buf)
	if !errors.Is(err, unix.EAGAIN) {
		var names []string
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			names = append(names, strings.TrimRight(string(name), "\x00"))
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
		t.Fatalf("files were created in $TMPDIR (%v, %v): a temporary file must stay beside the file it replaces", names, err)
	}
}

// TestGCRemovesTemporaryFilesAKilledWriteLeft: what a configure, or a
// check recording a verification, leaves when it is SIGKILLed between
// creating its temporary file and renaming it (reproduced with strace
// -e inject=renameat:signal=SIGKILL) is removed by gc, as is an update's
// note of its swap (update-intents.json) killed the same way; names that
// are not such a file are kept.
func TestGCRemovesTemporaryFilesAKilledWriteLeft(t *testing.T) {
	home, ws := newWorkspace(t, "kit")
	writeCC(t, home)
	m := manager(home, ws)
	c, err := m.Configure("cc", map[string]string{"token": "s3cret"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Trust("kit", tokenOf(t, m, "kit")); err != nil {
		t.Fatal(err)
	}
	config, cache := filepath.Dir(c.File), m.Cache().Dir
	stale := []string{
		filepath.Join(config, "."+filepath.Base(c.File)+"2279240451"),
		filepath.Join(cache, ".snapshot-0acca334137acb77a912d1e17609c179e288e2bdeb4ee392446f4536ae8d5228.json3768275439"),
		filepath.Join(home, "."+lifecycle.SwapIntentsName+"1406158523"), // an update's note of its swap
	}
	kept := []string{
		filepath.Join(config, "notes"),
		filepath.Join(config, "."+filepath.Base(c.File)),          // no digits
		filepath.Join(config, "."+filepath.Base(c.File)+"12x"),    // not only digits
		filepath.Join(cache, ".json123"),                          // no name before .json
		filepath.Join(cache, "snapshot-x.json"+"123"),             // no leading dot
		filepath.Join(config, ".user_0123456789ab_cc.jsonx.json"), // no digits
		filepath.Join(home, "."+lifecycle.SwapIntentsName+"x1"),   // not only digits
	}
	for _, p := range append(slices.Clone(stale), kept...) {
		if err := os.WriteFile(p, []byte(`{"values":{"token":"s3cret"}}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := m.GC()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range stale {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s survived gc (%v)", p, err)
		}
		if !slices.Contains(removed, p) {
			t.Errorf("gc did not report %s: %v", p, removed)
		}
	}
	for _, p := range append(kept, c.File) {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("gc removed %s: %v", p, err)
		}
	}
}
