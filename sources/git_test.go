package sources

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func pluginRepo(t *testing.T) *testRepo {
	t.Helper()
	r := newTestRepo(t)
	r.write(".claude-plugin/plugin.json", `{"name":"fmt"}`, 0o644)
	r.write("bin/run", "#!/bin/sh", 0o755)
	r.write("docs/readme.md", "line1\nline2\n", 0o644)
	return r
}

func TestFetchGit(t *testing.T) {
	r := pluginRepo(t)
	first := r.commit("one")
	r.git("tag", "v1")
	r.git("tag", "-a", "-m", "annotated", "v1a")
	r.write("docs/readme.md", "changed", 0o644)
	second := r.commit("two")
	r.git("branch", "dev", first)

	for _, c := range []struct {
		ref, want string
	}{
		{"", second}, {"main", second}, {"v1", first}, {"v1a", first}, {"dev", first}, {first, first},
	} {
		res := mustFetch(t, Request{Source: r.url(), Ref: c.ref}, Options{})
		want := Resolved{Kind: KindGit, URL: r.url(), Ref: c.ref, Commit: c.want}
		if res.Source != want {
			t.Errorf("ref %q: source %+v, want %+v", c.ref, res.Source, want)
		}
		if res.Name != "repo" {
			t.Errorf("name %q", res.Name)
		}
	}
	res := mustFetch(t, Request{Source: r.url(), Ref: "v1"}, Options{})
	checkListing(t, res.Dir, `
d .claude-plugin
d bin
d docs
f .claude-plugin/plugin.json {"name":"fmt"}
f docs/readme.md line1\nline2\n
x bin/run #!/bin/sh
`)
	mustFail(t, Request{Source: r.url(), Ref: "nope"}, Options{}, ErrNotFound, "nope")
	mustFail(t, Request{Source: r.url(), Ref: strings.Repeat("a", 40)}, Options{}, ErrNotFound)
	mustFail(t, Request{Source: r.url(), Ref: "--upload-pack=touch /tmp/x"}, Options{}, ErrInvalid, "--ref")
}

// TestFetchGitLocalPath: a local path is a directory unless a ref is given
// or it is a bare repository.
func TestFetchGitLocalPath(t *testing.T) {
	r := pluginRepo(t)
	c := r.commit("one")
	r.write("uncommitted.md", "x", 0o644)
	res := mustFetch(t, Request{Source: r.dir, Ref: "main"}, Options{})
	if res.Source.Kind != KindGit || res.Source.Path != r.dir || res.Source.Commit != c {
		t.Errorf("source %+v", res.Source)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, "uncommitted.md")); err == nil {
		t.Errorf("a git fetch copied an uncommitted file")
	}
	res = mustFetch(t, Request{Source: r.dir}, Options{})
	if res.Source.Kind != KindDir {
		t.Errorf("a checkout without a ref is a %s", res.Source.Kind)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, ".git")); err == nil {
		t.Errorf("a directory copy holds the checkout's .git")
	}
	if _, err := os.Stat(filepath.Join(res.Dir, "uncommitted.md")); err != nil {
		t.Errorf("a directory copy lacks the working file: %v", err)
	}
	bare := filepath.Join(t.TempDir(), "bare.git")
	r.git("clone", "-q", "--bare", r.dir, bare)
	res = mustFetch(t, Request{Source: bare}, Options{})
	if res.Source.Kind != KindGit || res.Source.Commit != c || res.Name != "bare" {
		t.Errorf("bare: %+v name %q", res.Source, res.Name)
	}
}

// TestFetchGitRaw: content is the committed bytes, whatever the
// repository's attributes say (no conversion, no filter), and the
// user's and system's git configuration never apply.
func TestFetchGitRaw(t *testing.T) {
	r := newTestRepo(t)
	r.write(".gitattributes", "* text eol=crlf filter=evil\n*.md export-ignore\n", 0o644)
	r.write("a.txt", "one\ntwo\n", 0o644)
	r.write("b.md", "kept", 0o644)
	r.commit("attrs")

	home := t.TempDir()
	marker := filepath.Join(home, "ran")
	hook := "#!/bin/sh\ntouch " + marker + "\n"
	writeFile(t, filepath.Join(home, "hooks", "reference-transaction"), hook, 0o755)
	writeFile(t, filepath.Join(home, "hooks", "post-checkout"), hook, 0o755)
	cfg := "[core]\n\thooksPath = " + filepath.Join(home, "hooks") + "\n" +
		"[filter \"evil\"]\n\tsmudge = touch " + marker + "\n\tclean = cat\n" +
		"[url \"file:///nonexistent/\"]\n\tinsteadOf = file://\n" +
		"[credential]\n\thelper = !touch " + marker + "\n"
	writeFile(t, filepath.Join(home, ".gitconfig"), cfg, 0o644)
	writeFile(t, filepath.Join(home, "system"), cfg, 0o644)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("GIT_CONFIG_SYSTEM", filepath.Join(home, "system"))
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	t.Setenv("GIT_CONFIG_PARAMETERS", "'core.hooksPath'='"+filepath.Join(home, "hooks")+"'")
	t.Setenv("GIT_DIR", "/nonexistent")

	res := mustFetch(t, Request{Source: r.url()}, Options{})
	checkListing(t, res.Dir, `
f .gitattributes * text eol=crlf filter=evil\n*.md export-ignore\n
f a.txt one\ntwo\n
f b.md kept
`)
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a hook, filter or credential helper from the environment ran")
	}
}

func TestFetchGitTreeShapes(t *testing.T) {
	sub := newTestRepo(t)
	sub.write("x", "x", 0o644)
	subCommit := sub.commit("sub")

	r := newTestRepo(t)
	r.write("plugins/fmt/plugin.json", "{}", 0o644)
	r.write("plugins/fmt/real.md", "r", 0o644)
	if err := os.Symlink("real.md", filepath.Join(r.dir, "plugins/fmt/alias.md")); err != nil {
		t.Fatal(err)
	}
	r.write("other/big", strings.Repeat("z", 1000), 0o644)
	os.Symlink("plugins/fmt", filepath.Join(r.dir, "linked"))
	r.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.url(), "plugins/fmt/vendor")
	c := r.commit("shapes")

	res := mustFetch(t, Request{Source: r.url(), Subdir: "plugins/fmt"}, Options{})
	checkListing(t, res.Dir, `
d vendor
f plugin.json {}
f real.md r
l alias.md -> real.md
`)
	if res.Source.Commit != c || res.Source.Subdir != "plugins/fmt" || res.Name != "fmt" {
		t.Errorf("source %+v name %q", res.Source, res.Name)
	}
	_ = subCommit
	mustFail(t, Request{Source: r.url(), Subdir: "linked"}, Options{}, ErrRefused, "linked", "symbolic link")
	mustFail(t, Request{Source: r.url(), Subdir: "plugins/nope"}, Options{}, ErrNotFound, "plugins/nope")
	mustFail(t, Request{Source: r.url(), Subdir: "other/big"}, Options{}, ErrNotFound, "not a directory")
	// The bounds apply to the subdirectory fetched, before its files are read.
	mustFail(t, Request{Source: r.url(), Subdir: "other"}, Options{Limits: smallLimits()}, ErrRefused, "big: ", "larger than the limit")
}

func TestFetchGitHostileLinks(t *testing.T) {
	for _, c := range []struct{ target, why string }{
		{"/etc/passwd", "absolute"},
		{"../../../etc/passwd", "leaves the bundle directory"},
		{"dir", "regular file"},
	} {
		r := newTestRepo(t)
		r.write("dir/a", "a", 0o644)
		os.Symlink(c.target, filepath.Join(r.dir, "evil"))
		r.commit("link")
		mustFail(t, Request{Source: r.url()}, Options{}, ErrRefused, "evil: ", c.why)
	}
}

// TestFetchGitHostileObject: a tree entry git itself refuses (".git", which
// a checkout would turn into the repository's own directory) is stopped by
// git's check of every received object, and that is a refusal of the
// source (exit 3), not a failed fetch.
func TestFetchGitHostileObject(t *testing.T) {
	r := pluginRepo(t)
	r.commit("one")
	blob := strings.TrimSpace(r.git("hash-object", "-w", filepath.Join(r.dir, "docs/readme.md")))
	manifest := strings.TrimSpace(r.git("rev-parse", "HEAD:.claude-plugin"))
	mktree := exec.Command("git", "mktree")
	mktree.Dir = r.dir
	mktree.Stdin = strings.NewReader("040000 tree " + manifest + "\t.claude-plugin\n100644 blob " + blob + "\t.git\n")
	out, err := mktree.Output()
	if err != nil {
		t.Fatalf("git mktree: %v", err)
	}
	tree := strings.TrimSpace(string(out))
	commit := strings.TrimSpace(r.git("commit-tree", tree, "-m", "hostile"))
	r.git("update-ref", "HEAD", commit)
	mustFail(t, Request{Source: r.url()}, Options{}, ErrRefused, "git refused an object", "hasDotgit")
}

// TestFetchGitPartial: against a server that allows filters, only the
// subdirectory's files are downloaded: a repository bound far below the
// size of the whole repository is enough. Without filters, the same
// fetch crosses the bound.
func TestFetchGitPartial(t *testing.T) {
	r := newTestRepo(t)
	r.write("plugins/fmt/plugin.json", "{}", 0o644)
	r.write("plugins/fmt/skills/a/SKILL.md", "a", 0o644)
	rnd := make([]byte, 400000)
	rand.Read(rnd)
	r.write("huge/blob", string(rnd), 0o644)
	c := r.commit("mono")
	old := testOnlyTransferBound
	testOnlyTransferBound = 100000
	defer func() { testOnlyTransferBound = old }()

	mustFail(t, Request{Source: r.url(), Subdir: "plugins/fmt"}, Options{}, ErrRefused, "transfer grew beyond")

	r.git("config", "uploadpack.allowFilter", "true")
	r.git("config", "uploadpack.allowAnySHA1InWant", "true")
	for _, ref := range []string{"", c} {
		res := mustFetch(t, Request{Source: r.url(), Subdir: "plugins/fmt", Ref: ref}, Options{})
		checkListing(t, res.Dir, `
d skills
d skills/a
f plugin.json {}
f skills/a/SKILL.md a
`)
	}
}

// TestFetchGitTransferBound: a repository whose transfer exceeds the
// bound is stopped, whatever the bundle would have held.
func TestFetchGitTransferBound(t *testing.T) {
	r := newTestRepo(t)
	r.write("plugins/fmt/plugin.json", "{}", 0o644)
	rnd := make([]byte, 300000)
	rand.Read(rnd)
	r.write("huge/blob", string(rnd), 0o644)
	r.commit("mono") // the server ignores filters: everything is sent
	lim := smallLimits()
	lim.MaxTotalBytes = 1000
	lim.MaxFileBytes = 1000
	// The bound is 4 × 1000 bytes + 64 MiB; the seam makes it smaller
	// than the repository.
	old := testOnlyTransferBound
	testOnlyTransferBound = 50000
	defer func() { testOnlyTransferBound = old }()
	mustFail(t, Request{Source: r.url(), Subdir: "plugins/fmt"}, Options{Limits: lim}, ErrRefused, "transfer grew beyond")
}

// TestFetchGitTimeout: a server that accepts the connection and never
// answers is cut off after the timeout; git and its helpers are killed
// (the connection closes), the error names the source, and nothing is
// left behind.
func TestFetchGitTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	conns := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns <- c
		}
	}()
	url := "https://" + ln.Addr().String() + "/hang.git"
	// The fetch must reach the server before its timeout for the kill to
	// have a connection to close. On a busy machine git may not start in
	// 2s, so a longer timeout is tried before the test gives up: what is
	// asserted is that git's connection dies with it, not how fast git
	// starts.
	var c net.Conn
	for _, timeout := range []time.Duration{2 * time.Second, 10 * time.Second, 30 * time.Second} {
		err = mustFail(t, Request{Source: url}, Options{Timeout: timeout}, ErrTimeout, url, "did not finish within "+timeout.String())
		var e *Error
		if !errors.As(err, &e) || e.Source != url {
			t.Errorf("error %v does not name the source", err)
		}
		// A connection git made is in the listener's queue before the
		// fetch gives up, so the accepting goroutine hands it over
		// promptly; the bound only ends a wait for one never made.
		select {
		case c = <-conns:
		case <-time.After(10 * time.Second):
			t.Logf("git did not connect within the %s timeout; trying a longer one", timeout)
			continue
		}
		break
	}
	if c == nil {
		t.Fatal("git never connected, even with a 30s timeout")
	}
	// Every connection git opened is closed by its death; a read returns
	// at once rather than after the generous bound below.
	c.SetReadDeadline(time.Now().Add(2 * time.Minute))
	buf := make([]byte, 4096)
	for {
		if _, err := c.Read(buf); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("the connection is still open: git was not killed")
			}
			break
		}
	}
}

func TestFetchGitURLsRefused(t *testing.T) {
	for _, c := range []struct{ src, has string }{
		{"ext::sh%20-c%20touch%20/tmp/pwned", "transport"},
		{"http://example.com/r.git", "plain http"},
		{"git://example.com/r.git", "transport"},
		{"https://user:hunter2@example.com/r.git", "credentials"},
		{"https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@example.com/r.git", "credentials"},
		{"https://example.com/r.git?token=x", "query"},
		{"ssh://git:pw@example.com/r.git", "credentials"},
		{"-oProxyCommand=x", "must not start"},
		{"ssh://-oProxyCommand=touch@example.com/r.git", "must not start"},
		{"ssh://-oProxyCommand=touch/r.git", "no valid host"},
	} {
		err := mustFail(t, Request{Source: c.src}, Options{}, ErrInvalid, c.has)
		for _, secret := range []string{"hunter2", "ghp_abcdef", ":pw@"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error %q echoes a secret", err)
			}
		}
	}
}

// TestFetchLockedGit: a locked fetch gets the recorded commit even after
// the branch moved, and refuses a commit that is not there.
func TestFetchLockedGit(t *testing.T) {
	r := pluginRepo(t)
	first := r.commit("one")
	r.write("docs/readme.md", "new", 0o644)
	r.commit("two")
	rec := Resolved{Kind: KindGit, URL: r.url(), Ref: "main", Commit: first}
	parent := filepath.Join(t.TempDir(), "tmp")
	res, err := FetchLocked(context.Background(), parent, rec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != rec {
		t.Errorf("locked source %+v", res.Source)
	}
	data, _ := os.ReadFile(filepath.Join(res.Dir, "docs/readme.md"))
	if string(data) != "line1\nline2\n" {
		t.Errorf("locked fetch got %q", data)
	}
	res.Discard()
	forged := rec
	forged.Commit = strings.Repeat("b", 40)
	if _, err := FetchLocked(context.Background(), parent, forged, Options{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("forged commit: %v", err)
	}
	bad := rec
	bad.Commit = "main"
	if _, err := FetchLocked(context.Background(), parent, bad, Options{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("malformed record: %v", err)
	}
	if l := leftovers(t, parent); len(l) != 0 {
		t.Errorf("left %v", l)
	}
	// Update follows the ref.
	q := rec.Request()
	res, err = Fetch(context.Background(), parent, q, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Source.Commit == first {
		t.Errorf("update did not follow main")
	}
	_ = io.EOF
}

// TestGitRefusesDotGitTree: a commit whose tree holds a directory git
// takes for a repository (".git", ".GIT", NTFS's "git~1") is refused by
// git's own check of every object received (transfer.fsckObjects), as
// the tree writer refuses it from an archive
// (TestFetchNoGitRepositoryInTree).
func TestGitRefusesDotGitTree(t *testing.T) {
	for _, name := range []string{".git", ".GIT", "git~1"} {
		t.Run(name, func(t *testing.T) {
			// git's index refuses such a path: the trees are made by hand.
			r := newTestRepo(t)
			r.write("config", "[core]\n\tfsmonitor = touch /tmp/pwned\n", 0o644)
			blob := r.git("hash-object", "-w", "config")
			mktree := func(entry string) string {
				r.t.Helper()
				cmd := exec.Command("git", "-C", r.dir, "mktree")
				cmd.Stdin = strings.NewReader(entry + "\n")
				cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("git mktree: %v", err)
				}
				return strings.TrimSpace(string(out))
			}
			repo := mktree("100644 blob " + blob + "\tconfig")
			sub := mktree("040000 tree " + repo + "\t" + name)
			root := mktree("040000 tree " + sub + "\tsub")
			commit := r.git("commit-tree", root, "-m", "nested repository")
			r.git("update-ref", "refs/heads/main", commit)
			mustFail(t, Request{Source: r.url()}, Options{}, ErrRefused, "git refused an object", "hasDotgit")
		})
	}
}

// TestGitFetchesNothingOnItsOwn: the scratch repository is a partial
// clone, so a git command reading an object the server left out of its
// answer would fetch it on its own (a lazy fetch per object), outside
// the transfer bound. A server that leaves out the blobs of the prefetch,
// or the trees of the first fetch (the wrapper plays it, asking for
// less), is refused naming the source; before, the blob (larger than the
// transfer bound) and the trees were fetched lazily and the fetch
// succeeded.
func TestGitFetchesNothingOnItsOwn(t *testing.T) {
	r := newTestRepo(t)
	r.write("plugins/fmt/plugin.json", "{}", 0o644)
	rnd := make([]byte, 400000)
	rand.Read(rnd)
	r.write("plugins/fmt/big", string(rnd), 0o644)
	r.commit("mono")
	r.git("config", "uploadpack.allowFilter", "true")
	r.git("config", "uploadpack.allowAnySHA1InWant", "true")
	old := testOnlyTransferBound
	testOnlyTransferBound = 100000
	defer func() { testOnlyTransferBound = old }()

	noBlobs := filepath.Join(t.TempDir(), "git")
	writeFile(t, noBlobs, "#!/bin/sh\n# the prefetch of the blobs brings nothing\ncase \" $* \" in *\" fetch \"*\" --stdin \"*) exit 0;; esac\nexec git \"$@\"\n", 0o755)
	mustFail(t, Request{Source: r.url(), Subdir: "plugins/fmt"}, Options{GitPath: noBlobs}, ErrRefused, "the server did not send 2 of the objects the fetch asked for")

	noTrees := filepath.Join(t.TempDir(), "git")
	writeFile(t, noTrees, `#!/bin/sh
# the first fetch brings the commit without its trees
case " $* " in *" --depth=1 "*)
	for a; do shift; [ "$a" = --filter=blob:none ] && a=--filter=tree:0; set -- "$@" "$a"; done ;;
esac
exec git "$@"
`, 0o755)
	for _, sub := range []string{"", "plugins/fmt"} {
		mustFail(t, Request{Source: r.url(), Subdir: sub}, Options{GitPath: noTrees}, ErrRefused, "the server did not send an object the fetch needs")
	}
}

// TestGitSourcePromisorRunsNothing: a local git source that is itself a
// partial clone, whose own configuration names a promisor remote with an
// upload-pack command, runs nothing when bundlectl fetches from it: the
// upload-pack git starts in the source must not fetch the blobs it lacks
// from that remote (lazy fetch), which would run the command. bundlectl's
// settings do not reach that configuration (a remote of any name); git
// itself keeps upload-pack from lazy fetching since 2.39.4 (and 2.44),
// so on this host the fetch is refused as missing objects. On an older
// git this test fails: the command ran.
func TestGitSourcePromisorRunsNothing(t *testing.T) {
	up := newTestRepo(t)
	up.write(".claude-plugin/plugin.json", `{"name":"p"}`, 0o644)
	up.commit("one")
	up.git("config", "uploadpack.allowFilter", "true")
	src := filepath.Join(t.TempDir(), "partial.git")
	up.git("clone", "-q", "--bare", "--filter=blob:none", up.url(), src)
	marker := filepath.Join(t.TempDir(), "ran")
	up.git("--git-dir="+src, "config", "remote.origin.uploadpack", "touch "+marker+"; git-upload-pack")
	_, err := Fetch(context.Background(), t.TempDir(), Request{Source: "file://" + src}, Options{})
	if _, serr := os.Stat(marker); serr == nil {
		t.Fatalf("the source's promisor upload-pack command ran (fetch: %v)", err)
	}
	if err == nil {
		t.Fatalf("fetched a source that lacks its blobs")
	}
}
