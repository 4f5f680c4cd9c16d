package bundle

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bundlectl/bundlectl/internal/testtree"
	"golang.org/x/sys/unix"
	"golang.org/x/text/unicode/norm"
)

// mkfile creates dir/rel with the given content and mode, creating parents.
func mkfile(t testing.TB, dir, rel, content string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // the umask must not decide
		t.Fatal(err)
	}
}

func mkdir(t testing.TB, dir, rel string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(rel)), 0o755); err != nil {
		t.Fatal(err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// hangGuard bounds a call that must return at all, never how fast it
// returns: a FIFO opened by mistake or a quadratic parse fails the test by
// name after it, while a correct call on a shared, busy machine never comes
// near it. What the tests assert is what the call did (findings, errors).
const hangGuard = 5 * time.Minute

// walkWithTimeout runs Walk and fails the test if it does not return, so
// that a FIFO opened by mistake shows up as a failure and not a hang.
func walkWithTimeout(t testing.TB, dir string, lim Limits) (*Tree, Report) {
	t.Helper()
	type result struct {
		tree *Tree
		rep  Report
	}
	done := make(chan result, 1)
	go func() {
		tree, rep := Walk(dir, lim)
		done <- result{tree, rep}
	}()
	select {
	case r := <-done:
		return r.tree, r.rep
	case <-time.After(hangGuard):
		t.Fatalf("Walk(%s) hung: no return after %v", dir, hangGuard)
		return nil, Report{}
	}
}

// findingKeys renders findings as "rule path", sorted.
func findingKeys(r Report) []string {
	out := []string{}
	for _, f := range r.Findings {
		if f.Severity != Error {
			continue
		}
		out = append(out, f.Rule+" "+f.Path)
	}
	sort.Strings(out)
	return out
}

func entryPaths(tree *Tree) []string {
	out := []string{}
	for _, e := range tree.Entries {
		out = append(out, string(e.Kind)+" "+e.Path)
	}
	return out
}

func TestWalkRules(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string) (cleanup func())
		lim     Limits
		want    []string // "rule path" of the Error findings, sorted
		entries []string // when set, "kind path" of every entry
	}{
		{
			name: "clean tree",
			setup: func(t *testing.T, dir string) func() {
				mkfile(t, dir, "plugin.toml", "x", 0o644)
				mkfile(t, dir, "bin/run", "#!/bin/sh\n", 0o755)
				mkfile(t, dir, "bin/other", "", 0o744)
				mkdir(t, dir, "empty")
				return nil
			},
			want:    []string{},
			entries: []string{"D bin", "X bin/other", "X bin/run", "D empty", "F plugin.toml"},
		},
		// Links are not errors: TestWalkLinks covers what is kept and
		// what is skipped.
		{
			name: "symlink to a file of the bundle is an entry",
			setup: func(t *testing.T, dir string) func() {
				mkfile(t, dir, "real", "x", 0o644)
				must(t, os.Symlink("real", filepath.Join(dir, "link")))
				return nil
			},
			want:    []string{},
			entries: []string{"L link", "F real"},
		},
		{
			name: "symlink to a directory outside is not followed",
			setup: func(t *testing.T, dir string) func() {
				outside := t.TempDir()
				mkfile(t, outside, "secret", "x", 0o644)
				must(t, os.Symlink(outside, filepath.Join(dir, "sub")))
				return nil
			},
			want:    []string{},
			entries: []string{},
		},
		{
			name: "dangling symlink",
			setup: func(t *testing.T, dir string) func() {
				must(t, os.Symlink("/nonexistent/x", filepath.Join(dir, "dangling")))
				return nil
			},
			want:    []string{},
			entries: []string{},
		},
		{
			name: "hard link",
			setup: func(t *testing.T, dir string) func() {
				mkfile(t, dir, "a", "x", 0o644)
				must(t, os.Link(filepath.Join(dir, "a"), filepath.Join(dir, "b")))
				return nil
			},
			want: []string{"tree.hardlink a", "tree.hardlink b"},
		},
		{
			name: "hard link to a file outside",
			setup: func(t *testing.T, dir string) func() {
				outside := t.TempDir()
				mkfile(t, outside, "a", "x", 0o644)
				must(t, os.Link(filepath.Join(outside, "a"), filepath.Join(dir, "in")))
				return nil
			},
			want: []string{"tree.hardlink in"},
		},
		{
			name: "fifo does not hang",
			setup: func(t *testing.T, dir string) func() {
				mkdir(t, dir, "sub")
				must(t, unix.Mkfifo(filepath.Join(dir, "sub", "pipe"), 0o644))
				return nil
			},
			want:    []string{"tree.special sub/pipe"},
			entries: []string{"D sub"},
		},
		{
			name: "unix socket",
			setup: func(t *testing.T, dir string) func() {
				l, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, "sock"), Net: "unix"})
				if err != nil {
					t.Skipf("cannot create a unix socket here: %v", err)
				}
				return func() { l.Close() }
			},
			want: []string{"tree.special sock"},
		},
		{
			name: "character device",
			setup: func(t *testing.T, dir string) func() {
				if err := unix.Mknod(filepath.Join(dir, "null"), unix.S_IFCHR|0o644, int(unix.Mkdev(1, 3))); err != nil {
					t.Skipf("cannot create a device node here: %v", err)
				}
				return nil
			},
			want: []string{"tree.special null"},
		},
		{
			name: "setuid setgid sticky",
			setup: func(t *testing.T, dir string) func() {
				mkfile(t, dir, "suid", "x", 0o755|os.ModeSetuid)
				mkfile(t, dir, "sgid", "x", 0o755|os.ModeSetgid)
				mkdir(t, dir, "sticky")
				must(t, os.Chmod(filepath.Join(dir, "sticky"), 0o755|os.ModeSticky))
				mkdir(t, dir, "gdir")
				must(t, os.Chmod(filepath.Join(dir, "gdir"), 0o755|os.ModeSetgid))
				return nil
			},
			want: []string{"tree.mode gdir", "tree.mode sgid", "tree.mode sticky", "tree.mode suid"},
		},
		{
			name: "setuid root directory",
			setup: func(t *testing.T, dir string) func() {
				must(t, os.Chmod(dir, 0o755|os.ModeSetuid))
				var st unix.Stat_t
				must(t, unix.Stat(dir, &st))
				if st.Mode&unix.S_ISUID == 0 {
					t.Skip("this filesystem does not keep a setuid bit on directories")
				}
				return nil
			},
			want: []string{"tree.mode ."},
		},
		{
			name: "setgid root directory",
			setup: func(t *testing.T, dir string) func() {
				must(t, os.Chmod(dir, 0o755|os.ModeSetgid))
				mkfile(t, dir, "f", "x", 0o644)
				return nil
			},
			want: []string{"tree.mode ."},
		},
		{
			name: "control characters",
			setup: func(t *testing.T, dir string) func() {
				mkfile(t, dir, "a\x01b", "", 0o644)
				mkfile(t, dir, "new\nline", "", 0o644)
				mkfile(t, dir, "cr\r", "", 0o644)
				mkfile(t, dir, "del\x7f", "", 0o644)
				mkfile(t, dir, "c1\u0085", "", 0o644)
				return nil
			},
			want: []string{
				`name.control "a\x01b"`, `name.control "c1\u0085"`, `name.control "cr\r"`,
				`name.control "del\x7f"`, `name.control "new\nline"`,
			},
		},
		{
			name: "bidi characters",
			setup: func(t *testing.T, dir string) func() {
				mkfile(t, dir, "evil\u202etxt.sh", "", 0o644)
				mkfile(t, dir, "iso\u2066late", "", 0o644)
				mkfile(t, dir, "mark\u200f", "", 0o644)
				return nil
			},
			want: []string{`name.bidi "evil\u202etxt.sh"`, `name.bidi "iso\u2066late"`, `name.bidi "mark\u200f"`},
		},
		{
			name: "invalid utf-8",
			setup: func(t *testing.T, dir string) func() {
				mkfile(t, dir, "bad\xff", "", 0o644)
				mkfile(t, dir, "half\xc3", "", 0o644)
				return nil
			},
			want: []string{`name.utf8 "bad\xff"`, `name.utf8 "half\xc3"`},
		},
		{
			name: "a directory with a bad name is not entered",
			setup: func(t *testing.T, dir string) func() {
				mkfile(t, dir, "d\x1b[2J/inner", "", 0o644)
				return nil
			},
			want:    []string{`name.control "d\x1b[2J"`},
			entries: []string{"D d\x1b[2J"},
		},
		{
			name: "windows reserved",
			setup: func(t *testing.T, dir string) func() {
				for _, n := range []string{"CON", "aux.txt", "Nul", "com1.log", "lpt9", "trailing.", "space ", "a:b", "q?", "back\\slash", "CONIN$"} {
					mkfile(t, dir, n, "", 0o644)
				}
				mkfile(t, dir, "console", "", 0o644) // not reserved
				mkfile(t, dir, "com10", "", 0o644)   // not reserved
				return nil
			},
			want: []string{
				"name.windows CON", "name.windows CONIN$", "name.windows Nul", "name.windows a:b", "name.windows aux.txt",
				`name.windows back\slash`, "name.windows com1.log", "name.windows lpt9", "name.windows q?",
				"name.windows space ", "name.windows trailing.",
			},
		},
		{
			name: "case collision",
			setup: func(t *testing.T, dir string) func() {
				mkfile(t, dir, "README", "", 0o644)
				mkfile(t, dir, "readme", "", 0o644)
				mkfile(t, dir, "sub/Straße", "", 0o644)
				mkfile(t, dir, "sub/STRASSE", "", 0o644)
				mkfile(t, dir, "k", "", 0o644)
				mkfile(t, dir, "\u212a", "", 0o644) // KELVIN SIGN folds to "k"
				return nil
			},
			want: []string{"name.collision readme", "name.collision sub/Straße", "name.collision \u212a"},
		},
		{
			name: "nfc nfd collision",
			setup: func(t *testing.T, dir string) func() {
				mkfile(t, dir, "caf\u00e9", "", 0o644)  // NFC
				mkfile(t, dir, "cafe\u0301", "", 0o644) // NFD
				return nil
			},
			want: []string{"name.collision caf\u00e9"},
		},
		{
			name: "collision between a file and a directory",
			setup: func(t *testing.T, dir string) func() {
				mkfile(t, dir, "Docs", "", 0o644)
				mkfile(t, dir, "docs/x", "", 0o644)
				return nil
			},
			want: []string{"name.collision docs"},
		},
		{
			name: "same name in different directories is fine",
			setup: func(t *testing.T, dir string) func() {
				mkfile(t, dir, "a/x", "", 0o644)
				mkfile(t, dir, "b/X", "", 0o644)
				return nil
			},
			want: []string{},
		},
		{
			name: "bound on entries",
			setup: func(t *testing.T, dir string) func() {
				for _, n := range []string{"a/1", "a/2", "b/1", "b/2"} {
					mkfile(t, dir, n, "", 0o644)
				}
				return nil
			},
			lim:     Limits{MaxEntries: 4},
			want:    []string{"bounds.entries b/1"},
			entries: []string{"D a", "F a/1", "F a/2", "D b"},
		},
		{
			name: "bound on entries counts directories",
			setup: func(t *testing.T, dir string) func() {
				mkfile(t, dir, "a/b/c", "", 0o644)
				return nil
			},
			lim:  Limits{MaxEntries: 2},
			want: []string{"bounds.entries a/b/c"},
		},
		{
			name: "entries exactly at the bound",
			setup: func(t *testing.T, dir string) func() {
				mkfile(t, dir, "a/b", "", 0o644)
				mkfile(t, dir, "c", "", 0o644)
				return nil
			},
			lim:  Limits{MaxEntries: 3},
			want: []string{},
		},
		{
			name: "a directory with more names than the bound is not read",
			setup: func(t *testing.T, dir string) func() {
				mkfile(t, dir, "a", "", 0o644)
				mkdir(t, dir, "big")
				for _, n := range []string{"l1", "l2", "l3", "l4"} {
					must(t, os.Symlink("x", filepath.Join(dir, "big", n)))
				}
				return nil
			},
			lim:     Limits{MaxEntries: 3},
			want:    []string{"bounds.entries big"},
			entries: []string{"F a", "D big"},
		},
		{
			name: "bound on total bytes",
			setup: func(t *testing.T, dir string) func() {
				mkfile(t, dir, "a", "12345", 0o644)
				mkfile(t, dir, "b", "12345", 0o644)
				mkfile(t, dir, "c", "12345", 0o644)
				return nil
			},
			lim:  Limits{MaxTotalBytes: 10},
			want: []string{"bounds.total c"},
		},
		{
			name: "total bytes exactly at the bound",
			setup: func(t *testing.T, dir string) func() {
				mkfile(t, dir, "a", "12345", 0o644)
				mkfile(t, dir, "b", "12345", 0o644)
				return nil
			},
			lim:  Limits{MaxTotalBytes: 10},
			want: []string{},
		},
		{
			name: "bound on one file",
			setup: func(t *testing.T, dir string) func() {
				mkfile(t, dir, "big", "123456", 0o644)
				mkfile(t, dir, "ok", "12345", 0o644)
				return nil
			},
			lim:  Limits{MaxFileBytes: 5},
			want: []string{"bounds.file big"},
		},
		{
			name: "bound on depth",
			setup: func(t *testing.T, dir string) func() {
				mkfile(t, dir, "1/2/3/4", "", 0o644)
				mkfile(t, dir, "1/x", "", 0o644)
				return nil
			},
			lim:     Limits{MaxDepth: 3},
			want:    []string{"bounds.depth 1/2/3/4"},
			entries: []string{"D 1", "D 1/2", "D 1/2/3", "F 1/x"},
		},
		{
			name: "bound on path bytes",
			setup: func(t *testing.T, dir string) func() {
				mkfile(t, dir, "abcd/efgh", "", 0o644) // 9 bytes
				mkfile(t, dir, "abcd/efg", "", 0o644)  // 8 bytes
				return nil
			},
			lim:     Limits{MaxPathBytes: 8},
			want:    []string{"bounds.path abcd/efgh"},
			entries: []string{"D abcd", "F abcd/efg"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "b")
			mkdir(t, dir, ".")
			if tt.setup != nil {
				if cleanup := tt.setup(t, dir); cleanup != nil {
					defer cleanup()
				}
			}
			tree, rep := walkWithTimeout(t, dir, tt.lim)
			if tree == nil {
				t.Fatalf("nil tree: %v", rep.Findings)
			}
			if got := findingKeys(rep); tt.want != nil && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("findings = %q\nwant %q", got, tt.want)
			}
			if tt.entries != nil {
				if got := entryPaths(tree); !reflect.DeepEqual(got, tt.entries) {
					t.Errorf("entries = %q\nwant %q", got, tt.entries)
				}
			}
			for _, f := range rep.Findings {
				if !safeText(f.Path) && !strings.HasPrefix(f.Path, `"`) {
					t.Errorf("finding path %q is not escaped", f.Path)
				}
				if !safeText(f.Message) {
					t.Errorf("finding message %q is not safe to print", f.Message)
				}
			}
			if !sort.SliceIsSorted(tree.Entries, func(i, j int) bool { return tree.Entries[i].Path < tree.Entries[j].Path }) {
				t.Error("entries are not sorted")
			}
		})
	}
}

func TestWalkRecordsEntries(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "b")
	mkfile(t, dir, "f", "hello", 0o640)
	mkfile(t, dir, "x", "", 0o700)
	tree, rep := walkWithTimeout(t, dir, Limits{})
	if len(rep.Findings) != 0 {
		t.Fatal(rep.Findings)
	}
	if tree.Root != dir || tree.Files != 2 || tree.Bytes != 5 {
		t.Errorf("root %q files %d bytes %d", tree.Root, tree.Files, tree.Bytes)
	}
	e, ok := tree.Lookup("f")
	var st unix.Stat_t
	must(t, unix.Lstat(filepath.Join(dir, "f"), &st))
	if !ok || e.Kind != KindFile || e.Size != 5 || e.Mode != 0o640 || e.Ino != st.Ino || e.MtimeNs != st.Mtim.Nano() || e.CtimeNs != st.Ctim.Nano() {
		t.Errorf("entry f = %+v", e)
	}
	if e, _ := tree.Lookup("x"); e.Kind != KindExec {
		t.Errorf("entry x = %+v, want an executable", e)
	}
	if _, ok := tree.Lookup("missing"); ok {
		t.Error("Lookup found a missing entry")
	}
}

func TestWalkRoot(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	mkfile(t, real, "plugin.toml", "", 0o644)
	must(t, os.Symlink(real, filepath.Join(base, "link")))
	mkfile(t, base, "file", "", 0o644)
	must(t, unix.Mkfifo(filepath.Join(base, "fifo"), 0o644))

	tests := []struct{ dir, rule string }{
		{filepath.Join(base, "link"), "tree.symlink"},
		{filepath.Join(base, "file"), "tree.type"},
		{filepath.Join(base, "fifo"), "tree.type"},
		{filepath.Join(base, "missing"), "tree.unreadable"},
	}
	for _, tt := range tests {
		tree, rep := walkWithTimeout(t, tt.dir, Limits{})
		if tree != nil {
			t.Errorf("%s: got a tree", tt.dir)
		}
		if got := findingKeys(rep); !reflect.DeepEqual(got, []string{tt.rule + " ."}) {
			t.Errorf("%s: findings %q, want %s", tt.dir, got, tt.rule)
		}
	}
}

// TestWalkUnreadableDir covers a directory the walk cannot open. Root can
// open any directory, so as root the test re-runs itself as nobody.
func TestWalkUnreadableDir(t *testing.T) {
	if testtree.RerunAsNobody(t) {
		return
	}
	dir := filepath.Join(t.TempDir(), "b")
	mkfile(t, dir, "locked/x", "", 0o644)
	must(t, os.Chmod(filepath.Join(dir, "locked"), 0))
	defer os.Chmod(filepath.Join(dir, "locked"), 0o755)
	_, rep := walkWithTimeout(t, dir, Limits{})
	if got := findingKeys(rep); !reflect.DeepEqual(got, []string{"tree.unreadable locked"}) {
		t.Errorf("findings %q", got)
	}
}

func TestCheckName(t *testing.T) {
	tests := []struct{ name, rule string }{
		{"plugin.toml", ""}, {"café", ""}, {"日本語", ""}, {"a b", ""}, {".hidden", ""}, {"con.d", "name.windows"},
		{"console", ""}, {"", "name.dot"}, {".", "name.dot"}, {"..", "name.dot"}, {"a/b", "name.control"},
		{"\x00", "name.control"}, {"tab\t", "name.control"}, {"\u061c", "name.bidi"}, {"\u200e", "name.bidi"},
		{"\xed\xa0\x80", "name.utf8"}, {"PRN", "name.windows"}, {"prn.tar.gz", "name.windows"}, {"AUX .txt", "name.windows"},
	}
	for _, tt := range tests {
		_, rule := CheckName(tt.name)
		if rule != tt.rule {
			t.Errorf("CheckName(%q) rule %q, want %q", tt.name, rule, tt.rule)
		}
	}
}

func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"plugin.toml", "a\x01", "\u202e", "\xff", "CON", "aux.txt", "x.", "café", "cafe\u0301", "..", "a/b", "\u2028", "\ufeff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := collisionKey(name), folder.String(norm.NFC.String(name)); got != want {
			t.Fatalf("collisionKey(%q) = %q, want %q", name, got, want)
		}
		msg, rule := CheckName(name)
		if (msg == "") != (rule == "") {
			t.Fatalf("CheckName(%q) = %q, %q", name, msg, rule)
		}
		if msg != "" {
			if !safeText(msg) || strings.Contains(msg, name) && name != "" && !strings.Contains(`"." and ".." and empty names are not allowed`, name) {
				t.Fatalf("message %q echoes or is unsafe", msg)
			}
			return
		}
		if !utf8.ValidString(name) {
			t.Fatalf("accepted invalid UTF-8 %q", name)
		}
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
			t.Fatalf("accepted %q", name)
		}
		for _, r := range name {
			if unicode.IsControl(r) || IsBidi(r) {
				t.Fatalf("accepted %q with %U", name, r)
			}
		}
	})
}

func TestOpenNoFollow(t *testing.T) {
	root := filepath.Join(t.TempDir(), "b")
	mkfile(t, root, "a/real/f", "content", 0o644)
	must(t, os.Symlink("real", filepath.Join(root, "a", "link")))
	must(t, os.Symlink("f", filepath.Join(root, "a", "real", "flink")))
	must(t, unix.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	must(t, os.Symlink(root, filepath.Join(filepath.Dir(root), "rootlink")))

	f, err := OpenNoFollow(root, "a/real/f")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	bad := []struct{ root, rel string }{
		{root, "a/link/f"},     // symlink in a middle component
		{root, "a/real/flink"}, // symlink as the last component
		{root, "a/real"},       // a directory
		{root, "fifo"},         // must neither hang nor open
		{root, "a/../a/real/f"},
		{root, "./a/real/f"},
		{root, "/a/real/f"},
		{root, ""},
		{root, "a/real/missing"},
		{filepath.Join(filepath.Dir(root), "rootlink"), "a/real/f"}, // symlinked root
	}
	for _, tt := range bad {
		done := make(chan error, 1)
		go func() {
			f, err := OpenNoFollow(tt.root, tt.rel)
			if err == nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("OpenNoFollow(%s, %q) succeeded", tt.root, tt.rel)
			}
		case <-time.After(hangGuard):
			t.Fatalf("OpenNoFollow(%q) hung", tt.rel)
		}
	}
	var pe *os.PathError
	if _, err := OpenNoFollow(root, "a/link/f"); !errors.As(err, &pe) || !errors.Is(err, syscall.ENOTDIR) && !errors.Is(err, syscall.ELOOP) {
		t.Errorf("middle symlink: err = %v, want ELOOP or ENOTDIR", err)
	}
}

// TestWalkConcurrent walks trees from several goroutines, as Discover does;
// run with -race (the case folder must not be shared).
func TestWalkConcurrent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "b")
	for _, n := range []string{"Alpha", "beta", "Straße", "café", "GAMMA"} {
		mkfile(t, dir, n, "", 0o644)
	}
	done := make(chan []string, 4)
	for i := 0; i < 4; i++ {
		go func() {
			_, rep := Walk(dir, Limits{})
			done <- findingKeys(rep)
		}()
	}
	for i := 0; i < 4; i++ {
		if got := <-done; len(got) != 0 {
			t.Errorf("findings %q", got)
		}
	}
}

// TestCheckNameSaysBackslash: a name with a backslash (an archive member
// such as p\..\..\evil) is refused naming the backslash, not a device.
func TestCheckNameSaysBackslash(t *testing.T) {
	msg, rule := CheckName(`p\..\..\evil`)
	if rule != "name.windows" || !strings.Contains(msg, "backslash") {
		t.Errorf("CheckName = %q, %q", msg, rule)
	}
}
