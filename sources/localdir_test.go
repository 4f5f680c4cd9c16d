package sources

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func plainPlugin(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "my-plugin")
	writeFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name":"my-plugin"}`, 0o644)
	writeFile(t, filepath.Join(dir, "skills", "hello", "SKILL.md"), "hello", 0o600)
	writeFile(t, filepath.Join(dir, "bin", "run"), "#!/bin/sh", 0o700)
	return dir
}

func TestFetchDir(t *testing.T) {
	dir := plainPlugin(t)
	res := mustFetch(t, Request{Source: dir}, Options{})
	checkListing(t, res.Dir, `
d .claude-plugin
d bin
d skills
d skills/hello
f .claude-plugin/plugin.json {"name":"my-plugin"}
f skills/hello/SKILL.md hello
x bin/run #!/bin/sh
`)
	real, _ := filepath.EvalSymlinks(dir)
	want := Resolved{Kind: KindDir, Path: real}
	if res.Source != want {
		t.Errorf("source = %+v, want %+v", res.Source, want)
	}
	if res.Name != "my-plugin" {
		t.Errorf("name = %q", res.Name)
	}
	if fi, err := os.Stat(res.Dir); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("result dir mode: %v %v", fi.Mode(), err)
	}
	if !strings.HasPrefix(filepath.Base(res.Dir), TempPrefix) {
		t.Errorf("result dir %s lacks the prefix %s", res.Dir, TempPrefix)
	}
}

func TestFetchDirSubdirAndName(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "plugins", "fmt", "plugin.json"), "{}", 0o644)
	res := mustFetch(t, Request{Source: root, Subdir: "./plugins/fmt/"}, Options{})
	if res.Name != "fmt" || res.Source.Subdir != "plugins/fmt" {
		t.Errorf("name %q subdir %q", res.Name, res.Source.Subdir)
	}
	checkListing(t, res.Dir, "f plugin.json {}")

	res = mustFetch(t, Request{Source: root, Subdir: "plugins/fmt"}, Options{Name: "other"})
	if res.Name != "other" {
		t.Errorf("name %q, want the override", res.Name)
	}
	mustFail(t, Request{Source: root, Subdir: "plugins/fmt"}, Options{Taken: func(n string) bool { return n == "fmt" }}, ErrRefused, `"fmt" already exists`)
	mustFail(t, Request{Source: root, Subdir: "plugins/nope"}, Options{}, ErrNotFound, "plugins/nope")
	mustFail(t, Request{Source: root, Subdir: "../x"}, Options{}, ErrInvalid, "..")
	mustFail(t, Request{Source: root, Subdir: "plugins/fmt"}, Options{Name: ".hidden"}, ErrRefused, "starts with a dot")
}

// TestFetchDirSubdirLink: the subdirectory is reached through real
// directories only.
func TestFetchDirSubdirLink(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "plugin.json"), "{}", 0o644)
	os.Symlink(outside, filepath.Join(root, "linked"))
	mustFail(t, Request{Source: root, Subdir: "linked"}, Options{}, ErrRefused, "linked", "symbolic link")
}

func TestFetchDirLinks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "p")
	writeFile(t, filepath.Join(dir, "real.md"), "r", 0o644)
	writeFile(t, filepath.Join(dir, "sub", "x"), "x", 0o644)
	os.Symlink("real.md", filepath.Join(dir, "alias.md"))
	os.Symlink("../real.md", filepath.Join(dir, "sub", "up.md"))
	res := mustFetch(t, Request{Source: dir}, Options{})
	checkListing(t, res.Dir, `
d sub
f real.md r
f sub/x x
l alias.md -> real.md
l sub/up.md -> ../real.md
`)

	for _, c := range []struct{ name, target, why string }{
		{"abs", "/etc/passwd", "absolute target"},
		{"up", "../../etc/passwd", "leaves the bundle directory"},
		{"dir", "sub", "not point to a regular file"},
		{"dangling", "nope", "not point to a regular file"},
		{"chain", "alias.md", "not point to a regular file"},
		// Lexically real.md, but the kernel cannot go through a file: the
		// walk refuses it, so the source must too.
		{"through-file", "real.md/../real.md", "not point to a regular file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "p")
			writeFile(t, filepath.Join(d, "real.md"), "r", 0o644)
			os.Mkdir(filepath.Join(d, "sub"), 0o755)
			os.Symlink("real.md", filepath.Join(d, "alias.md"))
			os.Symlink(c.target, filepath.Join(d, "evil"))
			mustFail(t, Request{Source: d}, Options{}, ErrRefused, "evil: ", c.why)
		})
	}
}

func TestFetchDirSpecialFiles(t *testing.T) {
	d := filepath.Join(t.TempDir(), "p")
	writeFile(t, filepath.Join(d, "a"), "a", 0o644)
	if err := syscall.Mkfifo(filepath.Join(d, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustFail(t, Request{Source: d}, Options{}, ErrRefused, "fifo", "FIFO")

	d = filepath.Join(t.TempDir(), "p")
	writeFile(t, filepath.Join(d, "a"), "a", 0o644)
	if err := syscall.Mknod(filepath.Join(d, "null"), syscall.S_IFCHR|0o644, 1<<8|3); err != nil {
		t.Skipf("cannot create a device file here: %v", err)
	}
	mustFail(t, Request{Source: d}, Options{}, ErrRefused, "null", "device")
}

func TestFetchDirNamesAndBounds(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		has   string
	}{
		{"newline", map[string]string{"a\nb": "x"}, "newline"},
		{"bidi", map[string]string{"a\u202eb": "x"}, "bidirectional"},
		{"windows", map[string]string{"aux.md": "x"}, "Windows"},
		{"collision", map[string]string{"Readme.md": "x", "README.md": "y"}, "collides"},
		{"entries", map[string]string{"1": "", "2": "", "3": "", "4": "", "5": "", "6": "", "7": "", "8": "", "9": "", "10": "", "11": ""}, "more than 10"},
		{"file", map[string]string{"big": strings.Repeat("x", 51)}, "larger than the limit of 50"},
		{"total", map[string]string{"a": strings.Repeat("x", 50), "b": strings.Repeat("x", 50), "c": "x"}, "exceed the limit of 100 bytes"},
		{"depth", map[string]string{"a/b/c/d": "x"}, "deeper than the limit of 3"},
		{"path", map[string]string{strings.Repeat("n", 41): "x"}, "longer than the limit of 40"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "p")
			os.Mkdir(d, 0o755)
			for n, body := range c.files {
				writeFile(t, filepath.Join(d, n), body, 0o644)
			}
			mustFail(t, Request{Source: d}, Options{Limits: smallLimits()}, ErrRefused, c.has)
		})
	}
}

func TestFetchDirMissing(t *testing.T) {
	mustFail(t, Request{Source: filepath.Join(t.TempDir(), "nope")}, Options{}, ErrNotFound, "no such file")
	f := filepath.Join(t.TempDir(), "file.txt")
	writeFile(t, f, "x", 0o644)
	mustFail(t, Request{Source: f}, Options{}, ErrInvalid, "archive")
}

// TestFetchParent: the parent is created when missing; a linked or
// non-directory parent is refused.
func TestFetchParent(t *testing.T) {
	dir := plainPlugin(t)
	base := t.TempDir()
	link := filepath.Join(base, "link")
	os.Symlink(t.TempDir(), link)
	if _, err := Fetch(t.Context(), link, Request{Source: dir}, Options{}); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("fetch into a linked parent: %v", err)
	}
	file := filepath.Join(base, "file")
	writeFile(t, file, "", 0o644)
	if _, err := Fetch(t.Context(), file, Request{Source: dir}, Options{}); err == nil {
		t.Errorf("fetch into a file parent succeeded")
	}
	deep := filepath.Join(base, "a", "b")
	res, err := Fetch(t.Context(), deep, Request{Source: dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(deep); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("created parent: %v %v", fi.Mode(), err)
	}
	if err := res.Discard(); err != nil {
		t.Fatal(err)
	}
	if l := leftovers(t, deep); len(l) != 0 {
		t.Errorf("Discard left %v", l)
	}
}

// TestFetchNoGitRepositoryInTree: a fetched tree never holds a directory
// git takes for a repository (".git" in any case, with HFS+-ignored
// characters, or NTFS's "git~1"): its config (core.fsmonitor) would run
// for any git command started there, a shell prompt's once someone looks
// at the tree before reviewing it. git's own check refuses such a tree
// (TestGitRefusesDotGitTree); an archive's is refused the same way, a
// directory's is left out at any depth (as git would commit none), and a
// subdirectory or marketplace entry naming one is refused.
func TestFetchNoGitRepositoryInTree(t *testing.T) {
	for _, name := range []string{".git", ".GIT", ".g\u200cit", "GIT~1"} {
		for _, ext := range []string{".tar.gz", ".zip"} {
			t.Run("archive"+ext+"/"+name, func(t *testing.T) {
				p := filepath.Join(t.TempDir(), "a"+ext)
				members := []tmember{{name: "p/.claude-plugin/plugin.json", body: "{}"}, {name: "p/sub/" + name + "/config", body: "[core]\n\tfsmonitor = touch /tmp/pwned\n"}}
				sum := makeTarGz
				if ext == ".zip" {
					sum = makeZip
				}
				mustFail(t, Request{Source: p, SHA256: sum(t, p, members)}, Options{}, ErrRefused, "p/sub/", "/config", "git repository's directory")
			})
		}
	}
	t.Run("dir", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "plug")
		writeFile(t, filepath.Join(dir, ".claude-plugin/plugin.json"), "{}", 0o644)
		writeFile(t, filepath.Join(dir, ".git/config"), "[core]\n", 0o644)
		writeFile(t, filepath.Join(dir, "sub/.git/config"), "[core]\n\tfsmonitor = touch /tmp/pwned\n", 0o644)
		writeFile(t, filepath.Join(dir, "sub/.GIT/HEAD"), "ref: refs/heads/main\n", 0o644)
		writeFile(t, filepath.Join(dir, "mod/.git"), "gitdir: ../.git/modules/mod\n", 0o644)
		writeFile(t, filepath.Join(dir, "mod/x.md"), "x", 0o644)
		res := mustFetch(t, Request{Source: dir}, Options{})
		checkListing(t, res.Dir, `
d .claude-plugin
d mod
d sub
f .claude-plugin/plugin.json {}
f mod/x.md x
`)
		mustFail(t, Request{Source: dir, Subdir: "sub/.git"}, Options{}, ErrInvalid, "git repository's directory")
	})
	t.Run("marketplace", func(t *testing.T) {
		m := newMarket(t, FormatClaude, obj{"name": "acme", "plugins": []any{obj{"name": "p", "source": "./.git"}}})
		m.write(".git/config", "[core]\n\tfsmonitor = touch /tmp/pwned\n")
		mustFail(t, Request{Source: "p@" + m.dir}, Options{}, ErrRefused, "plugins[0].source", "git repository's directory")
	})
}

// TestFetchDirRefusalHintsListing: a directory (or a local marketplace's
// plugin) refused for an entry it holds hints the listing of that
// entry's directory (but for a directory shaped as a git repository:
// TestFetchDirGitShapeHintsCopyWithout), and the hint works as printed: it runs and shows
// the entry (a FIFO; a link and where it points).
func TestFetchDirRefusalHintsListing(t *testing.T) {
	d := filepath.Join(t.TempDir(), "my plug")
	writeFile(t, filepath.Join(d, ".claude-plugin/plugin.json"), "{}", 0o644)
	writeFile(t, filepath.Join(d, "sub/a"), "a", 0o644)
	if err := syscall.Mkfifo(filepath.Join(d, "sub/fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	writeFile(t, filepath.Join(out, ".claude-plugin/plugin.json"), "{}", 0o644)
	os.Symlink("/etc/passwd", filepath.Join(out, "lnk"))
	m := newMarket(t, FormatClaude, obj{"name": "acme", "plugins": []any{obj{"name": "p", "source": "./plugins/linked"}, obj{"name": "q", "source": "./plugins/q"}}})
	m.write("plugins/q/.claude-plugin/plugin.json", "{}")
	os.Symlink("/etc/passwd", filepath.Join(m.dir, "plugins/q/lnk"))
	os.Symlink(d, filepath.Join(m.dir, "plugins/linked"))
	for _, c := range []struct {
		q          Request
		hint, show string
	}{
		{Request{Source: d}, "ls -la -- '" + filepath.Join(d, "sub") + "'", "fifo"},
		{Request{Source: "p@" + m.dir}, "ls -la -- " + filepath.Join(m.dir, "plugins"), "linked -> " + d},
		{Request{Source: out}, "ls -la -- " + out, "lnk -> /etc/passwd"}, // refused once the tree is complete
		{Request{Source: "q@" + m.dir}, "ls -la -- " + filepath.Join(m.dir, "plugins/q"), "lnk -> /etc/passwd"},
	} {
		err := mustFail(t, c.q, Options{}, ErrRefused)
		var e *Error
		if !errors.As(err, &e) || e.Hint() != c.hint {
			t.Errorf("%s: hint %q, want %q", c.q.Source, e.Hint(), c.hint)
			continue
		}
		out, rerr := exec.Command("sh", "-c", e.Hint()).CombinedOutput()
		if rerr != nil || !strings.Contains(string(out), c.show) {
			t.Errorf("%s: the hint %q (%v) printed %q, without %q", c.q.Source, e.Hint(), rerr, out, c.show)
		}
	}
}

// TestFetchDirGitShapeHintsCopyWithout: a directory (or a local
// marketplace's plugin) refused for a directory in it shaped as a bare
// repository (a test fixture) hints what docs/sources.md says to do: a
// copy of the bundle without that directory, installed from there; and
// the hint runs as printed, in sh, bash, dash, zsh and fish, for a
// bundle directory whose path holds quotes, a backslash, a dollar sign
// and spaces (a stand-in bundlectl shows what it was asked to install:
// the copy, under the bundle's directory name, without the fixture).
func TestFetchDirGitShapeHintsCopyWithout(t *testing.T) {
	bare := filepath.Join(t.TempDir(), `it's "a" \h $x`, "fixture")
	writeFile(t, filepath.Join(bare, ".claude-plugin/plugin.json"), "{}", 0o644)
	writeFile(t, filepath.Join(bare, "testdata/keep.md"), "k", 0o644)
	writeBareShape(t, filepath.Join(bare, "testdata", "repo"))
	m := newMarket(t, FormatClaude, obj{"name": "acme", "plugins": []any{obj{"name": "p", "source": "./plugins/p"}}})
	m.write("plugins/p/.claude-plugin/plugin.json", "{}")
	writeBareShape(t, filepath.Join(m.dir, "plugins/p/repo"))
	bin := t.TempDir()
	writeFile(t, filepath.Join(bin, "bundlectl"), "#!/bin/sh\nfor a; do last=$a; done\nprintf '%s|' \"$@\"; cd \"$last\" && find . | LC_ALL=C sort\n", 0o755)
	shells := []string{"/bin/sh"}
	for _, name := range []string{"bash", "dash", "zsh", "fish"} {
		if sh, err := exec.LookPath(name); err == nil {
			shells = append(shells, sh)
		}
	}
	for _, c := range []struct {
		q          Request
		root, rel  string
		want, gone string
	}{
		{Request{Source: bare}, bare, "testdata/repo", "/fixture|.", "./testdata/repo"},
		{Request{Source: "p@" + m.dir}, filepath.Join(m.dir, "plugins/p"), "repo", "/p|.", "./repo"},
	} {
		err := mustFail(t, c.q, Options{}, ErrRefused, "the shape of a bare git repository")
		var e *Error
		if !errors.As(err, &e) || e.Hint() != InstallCopyWithout(c.root, c.rel) || e.Hint() == "" {
			t.Errorf("%s: hint %q, want %q", c.q.Source, e.Hint(), InstallCopyWithout(c.root, c.rel))
			continue
		}
		for _, sh := range shells {
			cmd := exec.Command(sh, "-c", e.Hint())
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
			out, rerr := cmd.CombinedOutput()
			got := string(out)
			if rerr != nil || !strings.HasPrefix(got, "install|/") || !strings.Contains(got, c.want) || !strings.Contains(got, "\n./.claude-plugin/plugin.json\n") || strings.Contains(got, c.gone) {
				t.Errorf("%s: %s: the hint %q (%v) printed %q: want an install of the copy, without %s", sh, c.q.Source, e.Hint(), rerr, got, c.gone)
			}
		}
	}
	// the flags the command line adds go to bundlectl, after the script's
	// own three words
	cmd := exec.Command("sh", "-c", InstallCopyWithout(bare, "testdata/repo")+" --home '/h h'")
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "--home|/h h|install|/") {
		t.Errorf("with --home: %v: %q", err, out)
	}
	for _, c := range [][2]string{{"rel/x", "a"}, {"/abs", "../a"}, {"/abs", "/a"}, {"/abs", ""}, {"/abs", "a/../b"}, {"/", "a"}} {
		if h := InstallCopyWithout(c[0], c[1]); h != "" {
			t.Errorf("InstallCopyWithout(%q, %q) = %q, want none", c[0], c[1], h)
		}
	}
}

// A fetch that is not an install's (an update's, a sync's: Options
// NoCopyHint) refused for a directory shaped as a git repository hints
// that directory's listing, as before the copy hint, not the install of a
// copy without it: that install would be a second bundle beside the one
// being updated, or be refused for its name, and hint the update again.
func TestGitShapeNoCopyHint(t *testing.T) {
	bare := filepath.Join(t.TempDir(), "fixture")
	writeFile(t, filepath.Join(bare, ".claude-plugin/plugin.json"), "{}", 0o644)
	writeBareShape(t, filepath.Join(bare, "testdata", "repo"))
	r := newTestRepo(t)
	r.write(".claude-plugin/plugin.json", "{}", 0o644)
	r.write("fx/HEAD", "ref: refs/heads/main\n", 0o644)
	r.write("fx/objects/.keep", "", 0o644)
	r.write("fx/refs/.keep", "", 0o644)
	c := r.commit("one")
	for _, tc := range []struct {
		q    Request
		want string
	}{
		{Request{Source: bare}, "ls -la -- " + filepath.Join(bare, "testdata/repo")},
		{Request{Source: r.url()}, ListGitDir(r.url(), c, "fx")},
	} {
		err := mustFail(t, tc.q, Options{NoCopyHint: true}, ErrRefused, "the shape of a bare git repository")
		var e *Error
		if !errors.As(err, &e) || tc.want == "" || e.Hint() != tc.want {
			t.Errorf("%s: hint %q, want %q", tc.q.Source, e.Hint(), tc.want)
		}
	}
}
