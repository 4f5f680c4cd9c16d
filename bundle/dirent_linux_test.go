//go:build linux

package bundle

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// appendNames must read the kernel's getdents output exactly as
// unix.ParseDirent does, names of every length and byte included.
func TestAppendNamesMatchesParseDirent(t *testing.T) {
	dir := t.TempDir()
	want := []string{"a", "bb", "f.txt", "seven77", "eight888", "with space", "ünï", strings.Repeat("x", 255)}
	for i := range 40 {
		want = append(want, "n"+strings.Repeat("y", i))
	}
	for _, n := range want {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	// The kernel may return a directory in several getdents batches, even
	// into a buffer that would hold it all (seen here: one entry in the
	// first), so every batch is compared and the names gathered.
	var ref []string
	var largest []byte
	for {
		buf := make([]byte, 1<<16)
		n, err := unix.Getdents(fd, buf)
		if err != nil {
			t.Fatalf("getdents: %v", err)
		}
		if n <= 0 {
			break
		}
		_, _, batch := unix.ParseDirent(buf[:n], -1, nil)
		got := appendNames([]string{"kept"}, buf[:n])
		if got[0] != "kept" || !slices.Equal(got[1:], batch) {
			t.Fatalf("appendNames = %q\nParseDirent = %q", got, batch)
		}
		ref = append(ref, batch...)
		if n > len(largest) {
			largest = buf[:n]
		}
	}
	// One string for all the names and one slice, however many names (2;
	// 3 under -race, whose instrumentation allocates too). Per-name strings
	// would make it 48.
	if allocs := testing.AllocsPerRun(20, func() { appendNames(nil, largest) }); allocs > 4 {
		t.Errorf("appendNames allocates %v times for one batch of %d bytes", allocs, len(largest))
	}
	slices.Sort(ref)
	slices.Sort(want)
	if !slices.Equal(ref, want) {
		t.Fatalf("names = %q, want %q", ref, want)
	}
	// Directly through readNames, as the walks do.
	unix.Seek(fd, 0, 0)
	names, over, err := readNames(fd, 1000)
	slices.Sort(names)
	if err != nil || over || !slices.Equal(names, want) {
		t.Fatalf("readNames = %q, %v, %v", names, over, err)
	}
}

// A record the kernel would never write (a bad length, a deleted entry,
// a name without its terminator) ends the parse or is skipped, without a
// panic and without a name holding NUL.
func FuzzAppendNames(f *testing.F) {
	rec := func(ino uint64, name string, pad int) []byte {
		b := make([]byte, 19+len(name)+pad)
		binary.NativeEndian.PutUint64(b, ino)
		binary.NativeEndian.PutUint16(b[16:], uint16(len(b)))
		copy(b[19:], name)
		return b
	}
	f.Add(slices.Concat(rec(1, ".", 5), rec(2, "..", 4), rec(3, "file", 5)))
	f.Add(slices.Concat(rec(0, "gone", 5), rec(3, "x", 0)))
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 200, 0, 0, 'a'})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, n := range appendNames(nil, b) {
			if n == "" || n == "." || n == ".." || strings.IndexByte(n, 0) >= 0 {
				t.Fatalf("name %q", n)
			}
		}
	})
}

// lstatAt is fstatat(AT_SYMLINK_NOFOLLOW): the same result for a file, a
// link (itself, not its target), a missing name and a name with NUL.
func TestLstatAtMatchesFstatat(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("f", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	for _, name := range []string{"f", "l", "missing", "a\x00b", strings.Repeat("z", 300)} {
		var got, want unix.Stat_t
		gerr := lstatAt(fd, name, &got)
		werr := unix.Fstatat(fd, name, &want, unix.AT_SYMLINK_NOFOLLOW)
		if gerr != werr || got != want {
			t.Errorf("%.20q: lstatAt = %v, %+v; Fstatat = %v, %+v", name, gerr, got, werr, want)
		}
	}
	if allocs := testing.AllocsPerRun(100, func() {
		var st unix.Stat_t
		lstatAt(fd, "f", &st)
	}); allocs != 0 {
		t.Errorf("lstatAt allocates %v times per call", allocs)
	}
}

// A path handed out by the arena never changes as more are joined.
func TestPathArenaStable(t *testing.T) {
	var a pathArena
	var got []string
	for i := range 2000 {
		got = append(got, a.join("dir"+strings.Repeat("d", i%7), "name"))
	}
	if a.join("", "root") != "root" {
		t.Fatal("a root-level name is itself")
	}
	for i, p := range got {
		if want := "dir" + strings.Repeat("d", i%7) + "/name"; p != want {
			t.Fatalf("path %d = %q, want %q", i, p, want)
		}
	}
}
