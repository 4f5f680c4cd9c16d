package sources

import (
	"archive/tar"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeBareShape makes dir a directory git takes for a bare repository
// (HEAD, objects, refs), and checks that the system git does: the shape
// refused is the one git honours.
func writeBareShape(t *testing.T, dir string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, "HEAD"), "ref: refs/heads/main\n", 0o644)
	writeFile(t, filepath.Join(dir, "config"), "[core]\n\tbare = true\n", 0o644)
	for _, d := range []string{"objects", "refs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("git", "rev-parse", "--absolute-git-dir")
	cmd.Dir = filepath.Join(dir, "refs")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != dir {
		t.Fatalf("git does not take %s for a bare repository (%q, %v): the test's shape is wrong", dir, out, err)
	}
}

// TestFetchDirRefusesBareRepositoryShape: a directory shaped like a bare
// git repository, under a name other than .git, is refused wherever it
// is in a local directory, naming it, as a planted .git is. (A local
// directory that is itself one is fetched as a git repository.)
func TestFetchDirRefusesBareRepositoryShape(t *testing.T) {
	for _, tc := range []struct{ name, at, want string }{
		{"nested", "hooks/cache", "hooks/cache: the directory holds HEAD, objects and refs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := plainPlugin(t)
			writeBareShape(t, filepath.Join(dir, tc.at))
			mustFail(t, Request{Source: dir}, Options{}, ErrRefused, tc.want, "bare git repository")
		})
	}
}

// TestFetchDirKeepsPartialBareShape: HEAD, objects or refs alone, or two
// of them, are ordinary names; only the three together make a repository.
func TestFetchDirKeepsPartialBareShape(t *testing.T) {
	dir := plainPlugin(t)
	writeFile(t, filepath.Join(dir, "a", "HEAD"), "x", 0o644)
	writeFile(t, filepath.Join(dir, "a", "refs", "r"), "x", 0o644)
	writeFile(t, filepath.Join(dir, "b", "objects", "o"), "x", 0o644)
	writeFile(t, filepath.Join(dir, "b", "refs", "r"), "x", 0o644)
	mustFetch(t, Request{Source: dir}, Options{})
}

// TestArchiveRefusesBareRepositoryShape: the same in an archive, where
// objects and refs may even be files (git asks only that it may enter
// them).
func TestArchiveRefusesBareRepositoryShape(t *testing.T) {
	p := filepath.Join(t.TempDir(), "kit.tar.gz")
	sum := makeTarGz(t, p, []tmember{
		{name: "kit/plugin.json", body: "{}"},
		{name: "kit/vendor/dep/HEAD", body: "ref: refs/heads/main\n"},
		{name: "kit/vendor/dep/config", body: "[core]\n\tfsmonitor = touch /tmp/pwned\n"},
		{name: "kit/vendor/dep/objects/", typ: tar.TypeDir},
		{name: "kit/vendor/dep/refs", body: "", mode: 0o755},
	})
	mustFail(t, Request{Source: p, SHA256: sum}, Options{}, ErrRefused, "vendor/dep: the directory holds HEAD", "bare git repository")

	// At the archive's root, beside the manifest: the bundle's own
	// directory would be the repository.
	p = filepath.Join(t.TempDir(), "root.zip")
	sum = makeZip(t, p, []tmember{
		{name: "plugin.json", body: "{}"},
		{name: "HEAD", body: "ref: refs/heads/main\n"},
		{name: "objects/info/x", body: ""},
		{name: "refs/heads/x", body: ""},
	})
	mustFail(t, Request{Source: p, SHA256: sum}, Options{}, ErrRefused, ".: the directory holds HEAD", "bare git repository")
}

// TestFetchGitRefusesBareRepositoryShape: a repository whose commit holds
// such a directory (git's own fsck checks only the name .git).
func TestFetchGitRefusesBareRepositoryShape(t *testing.T) {
	r := pluginRepo(t)
	r.write("tools/HEAD", "ref: refs/heads/main\n", 0o644)
	r.write("tools/config", "[core]\n\tfsmonitor = touch /tmp/pwned\n", 0o644)
	r.write("tools/objects/info/packs", "", 0o644)
	r.write("tools/refs/heads/main", "", 0o644)
	r.commit("planted")
	mustFail(t, Request{Source: r.url()}, Options{}, ErrRefused, "tools: the directory holds HEAD", "bare git repository")
}

// TestFetchRefusesLinkedGitDirShape: a directory holding HEAD beside a
// commondir file is a repository for git whatever else it holds: git
// looks for objects and refs in the directory commondir names (a linked
// worktree's git directory), here the tree's root, and reads that
// directory's config (real git 2.39.5 ran a planted core.pager from
// hooks/). Neither directory has the bare shape on its own.
func TestFetchRefusesLinkedGitDirShape(t *testing.T) {
	dir := plainPlugin(t)
	writeFile(t, filepath.Join(dir, "hooks", "HEAD"), "ref: refs/heads/main\n", 0o644)
	writeFile(t, filepath.Join(dir, "hooks", "commondir"), "..\n", 0o644)
	writeFile(t, filepath.Join(dir, "config"), "[core]\n\tpager = touch /tmp/pwned\n", 0o644)
	writeFile(t, filepath.Join(dir, "objects", "info", "packs"), "", 0o644)
	writeFile(t, filepath.Join(dir, "refs", "heads", "x"), "", 0o644)
	gitDirOf(t, filepath.Join(dir, "hooks"), filepath.Dir(dir))
	mustFail(t, Request{Source: dir}, Options{}, ErrRefused, "hooks: the directory holds HEAD and commondir", "git")

	p := filepath.Join(t.TempDir(), "kit.tar.gz")
	sum := makeTarGz(t, p, []tmember{
		{name: "kit/plugin.json", body: "{}"},
		{name: "kit/a/b/HEAD", body: "ref: refs/heads/main\n"},
		{name: "kit/a/b/commondir", body: "/elsewhere\n"},
	})
	mustFail(t, Request{Source: p, SHA256: sum}, Options{}, ErrRefused, "a/b: the directory holds HEAD and commondir")
}

// gitDirOf checks that the system git, started in dir, takes dir for
// its git directory: the shape the test refuses is one git honours.
func gitDirOf(t *testing.T, dir, ceiling string) {
	t.Helper()
	cmd := exec.Command("git", "rev-parse", "--absolute-git-dir")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CEILING_DIRECTORIES="+ceiling)
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != dir {
		t.Fatalf("git does not take %s for a git directory (%q, %v): the test's shape is wrong", dir, out, err)
	}
}

// TestGitShapeUnderOtherCase: git opens HEAD, objects, refs and commondir
// by those exact names. On Linux (a case-sensitive file system) a
// directory holding head, Objects and Refs, or Head and CommonDir, is no
// repository to git (the real git says so here), and a plugin may ship
// one: it is kept. Where names fold (macOS, Windows: gitNamesFold) git
// finds them, and the same trees are refused.
func TestGitShapeUnderOtherCase(t *testing.T) {
	if gitNamesFold {
		t.Skip("names fold on this system")
	}
	bare := func(t *testing.T) string {
		dir := plainPlugin(t)
		fx := filepath.Join(dir, "testdata", "fixture")
		writeFile(t, filepath.Join(fx, "head"), "ref: refs/heads/main\n", 0o644)
		writeFile(t, filepath.Join(fx, "config"), "[core]\n\tfsmonitor = touch /tmp/pwned\n", 0o644)
		writeFile(t, filepath.Join(fx, "Objects", "info", "packs"), "", 0o644)
		writeFile(t, filepath.Join(fx, "Refs", "heads", "main"), "", 0o644)
		notGitDir(t, filepath.Join(fx, "Refs"), filepath.Dir(dir))
		return dir
	}
	linked := func(t *testing.T) (string, string) {
		p := filepath.Join(t.TempDir(), "kit.tar.gz")
		return p, makeTarGz(t, p, []tmember{
			{name: "kit/plugin.json", body: "{}"},
			{name: "kit/a/b/Head", body: "ref: refs/heads/main\n"},
			{name: "kit/a/b/CommonDir", body: "/elsewhere\n"},
		})
	}
	t.Run("kept where git opens exact names", func(t *testing.T) {
		mustFetch(t, Request{Source: bare(t)}, Options{})
		p, sum := linked(t)
		mustFetch(t, Request{Source: p, SHA256: sum}, Options{})
	})
	t.Run("refused where names fold", func(t *testing.T) {
		gitNamesFold = true
		defer func() { gitNamesFold = false }()
		mustFail(t, Request{Source: bare(t)}, Options{}, ErrRefused, "testdata/fixture: the directory holds HEAD, objects and refs", "bare git repository")
		p, sum := linked(t)
		mustFail(t, Request{Source: p, SHA256: sum}, Options{}, ErrRefused, "a/b: the directory holds HEAD and commondir")
	})
}

// notGitDir checks that the system git, started in dir, finds no
// repository there or above it (up to ceiling).
func notGitDir(t *testing.T, dir, ceiling string) {
	t.Helper()
	cmd := exec.Command("git", "rev-parse", "--absolute-git-dir")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CEILING_DIRECTORIES="+ceiling)
	if out, err := cmd.Output(); err == nil {
		t.Fatalf("git takes %s for a repository (%q): the test's shape is wrong", dir, out)
	}
}
