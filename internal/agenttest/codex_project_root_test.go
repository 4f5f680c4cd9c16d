package agenttest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// rootMarker is the file the tests below name in project_root_markers.
const rootMarker = "agenttest-root"

// gitRun runs git with args, failing the test on an error.
func gitRun(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}

// gitCommitIn makes dir a git repository whose one commit, msg, holds
// the paths given (git add's operands).
func gitCommitIn(t *testing.T, dir, msg string, paths ...string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, append([]string{"add"}, paths...), {"commit", "-qm", msg}} {
		gitRun(t, append([]string{"-C", dir, "-c", "user.name=agenttest", "-c", "user.email=agenttest@example.invalid"}, args...)...)
	}
}

// runCodexWorktree trusts f's workspace in Codex's configuration and runs
// a `codex exec --worktree` session that touches the marker, checking
// this test's premise: Codex 0.171 runs it in a worktree under
// $CODEX_HOME/worktrees.
func runCodexWorktree(t *testing.T, a *Agent, f *execFixture) *Result {
	t.Helper()
	ws, err := filepath.EvalSymlinks(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	a.CodexConfig = "[projects.\"" + ws + "\"]\ntrust_level = \"trusted\"\n\n" + a.CodexConfig
	a.Args = append(a.Args, "--worktree")
	res := a.Run(t, "touch the marker")
	if want := "workdir: " + filepath.Join(a.ConfigDir(), "worktrees"); !strings.Contains(res.Stderr, want) {
		t.Fatalf("the session did not run in a worktree under $CODEX_HOME/worktrees: this test's premise (Codex 0.171) no longer holds\n%s", res)
	}
	return res
}

// worktreeOf makes main a git repository with one commit and work a
// worktree of it (`git worktree add`): work's .git is a file naming
// main/.git/worktrees/<name>.
func worktreeOf(t *testing.T, main, work string) {
	t.Helper()
	gitRun(t, "init", "-q", main)
	gitRun(t, "-C", main, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first")
	gitRun(t, "-C", main, "worktree", "add", "-q", "--detach", work)
}

// separateWorktreeOf makes main a git repository whose git directory is
// gitDir (`git init --separate-git-dir`), with one commit, and work a
// worktree of it.
func separateWorktreeOf(t *testing.T, main, gitDir, work string) {
	t.Helper()
	gitRun(t, "init", "-q", "--separate-git-dir", gitDir, main)
	gitRun(t, "-C", main, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first")
	gitRun(t, "-C", main, "worktree", "add", "-q", "--detach", work)
}

// forgeWorktree changes the records of the worktree work of main (made
// by worktreeOf) as how says: "relative" rewrites both pointers as
// relative paths (as git 2.48's worktree.useRelativePaths does); the
// others break what ties work to main, as a .git file someone wrote by
// hand would: "missing admin" (an administrative directory git never
// made), "another's admin" (another worktree's), "fake common" (a common
// directory main's .git is not), "no commondir", "linked gitdir record",
// "huge .git" (work's .git file padded past 64 KiB; ".git of 64 KiB" to
// exactly that, still trusted), "linked .git" (work's .git a link to the
// file), "gitdir record through .." (admin's gitdir naming work/gone/../.git,
// gone missing) and "gitdir record with a trailing slash" (both still
// trusted), "main through a link", "admin through a link" and "common
// through a link" (throughLink; the first still trusted) and "main's linked .git" (main's .git file, naming a
// --separate-git-dir, a link to it).
func forgeWorktree(t *testing.T, main, work, how string) {
	t.Helper()
	admin := filepath.Join(main, ".git", "worktrees", filepath.Base(work))
	switch how {
	case "relative":
		rel, err := filepath.Rel(work, admin)
		if err != nil {
			t.Fatal(err)
		}
		back, err := filepath.Rel(admin, filepath.Join(work, ".git"))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, work, ".git", "gitdir: "+rel+"\n", 0o644)
		writeFile(t, admin, "gitdir", back+"\n", 0o644)
	case "missing admin":
		writeFile(t, work, ".git", "gitdir: "+filepath.Join(main, ".git", "worktrees", "gone")+"\n", 0o644)
	case "another's admin":
		other := filepath.Join(filepath.Dir(main), "other")
		gitRun(t, "-C", main, "worktree", "add", "-q", "--detach", other)
		writeFile(t, work, ".git", "gitdir: "+filepath.Join(main, ".git", "worktrees", "other")+"\n", 0o644)
	case "fake common":
		if err := os.Rename(filepath.Join(main, ".git"), filepath.Join(main, "fake-common")); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(main, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, work, ".git", "gitdir: "+filepath.Join(main, "fake-common", "worktrees", filepath.Base(work))+"\n", 0o644)
	case ".git of 64 KiB":
		line := "gitdir: " + admin
		writeFile(t, work, ".git", line+strings.Repeat(" ", 64<<10-len(line)-1)+"\n", 0o644)
	case "huge .git":
		line := "gitdir: " + admin
		writeFile(t, work, ".git", line+strings.Repeat(" ", 64<<10-len(line))+"\n", 0o644)
	case "linked .git":
		linkAside(t, filepath.Join(work, ".git"))
	case "gitdir record through ..":
		writeFile(t, admin, "gitdir", filepath.Join(work, "gone")+"/../.git\n", 0o644)
	case "gitdir record with a trailing slash":
		writeFile(t, admin, "gitdir", filepath.Join(work, ".git")+"/\n", 0o644)
	case "main through a link", "admin through a link", "common through a link":
		gitDir := throughLink(t, main, admin, how)
		writeFile(t, work, ".git", "gitdir: "+gitDir+"\n", 0o644)
	case "main's linked .git":
		linkAside(t, filepath.Join(main, ".git"))
	case "no commondir":
		if err := os.Remove(filepath.Join(admin, "commondir")); err != nil {
			t.Fatal(err)
		}
	case "linked gitdir record":
		record := filepath.Join(filepath.Dir(main), "record")
		if err := os.Rename(filepath.Join(admin, "gitdir"), record); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(record, filepath.Join(admin, "gitdir")); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("forge %q", how)
	}
}

// throughLink makes a symbolic link on the way from a worktree's .git
// file to its administrative directory admin (of the repository main) as
// how says, and returns the path that names admin through it: "main
// through a link" a link to main (as git writes the path when the
// repository was reached through one), "admin through a link" one to
// admin beside it, "common through a link" one to main/.git.
func throughLink(t *testing.T, main, admin, how string) string {
	t.Helper()
	var at, to, gitDir string
	switch how {
	case "main through a link":
		at, to = filepath.Join(filepath.Dir(main), "mlink"), main
		gitDir = filepath.Join(at, ".git", "worktrees", filepath.Base(admin))
	case "admin through a link":
		at, to = filepath.Join(filepath.Dir(admin), "adm"), admin
		gitDir = at
	default:
		at, to = filepath.Join(filepath.Dir(main), "common"), filepath.Join(main, ".git")
		gitDir = filepath.Join(at, "worktrees", filepath.Base(admin))
	}
	if err := os.Symlink(to, at); err != nil {
		t.Fatal(err)
	}
	return gitDir
}

// linkAside moves the file at path aside and puts a symbolic link to it
// in its place.
func linkAside(t *testing.T, path string) {
	t.Helper()
	if err := os.Rename(path, path+"-aside"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(path+"-aside", path); err != nil {
		t.Fatal(err)
	}
}

// TestCodexProjectRoot records how Codex 0.171 finds a session's project
// root and the trust of its .codex/config.toml files beyond the default
// .git marker (hosts/codex configLayers, docs/codex.md "Project files"),
// each case seen by whether a plugin of the user's own that one project
// file enables loads:
//
//   - project_root_markers (a list of names, default [".git"]) in the
//     user's config.toml, a profile's file or a -c flag replaces .git;
//     one in a project's own file is not read. The root is the nearest
//     directory from the working directory up holding one of them (a
//     dangling .git link is none), and its trust covers the files below
//     it; an empty list makes the working directory the root;
//   - the top of the git work tree stays a trust key whatever the
//     markers: trusted, it covers the working directory's file even
//     where it is not the root (whose own file is then not read);
//   - a worktree (`git worktree add`) is trusted through its main
//     repository's entry, relative pointers too, but only as git's own
//     records bear it out: its admin directory's gitdir (a regular file)
//     names the worktree's .git back, its commondir is there, and the main
//     checkout's .git is that common directory or a file naming it (a
//     --separate-git-dir inside the checkout; one elsewhere leaves the
//     worktree untrusted), each .git file a regular file (not a link) of
//     at most 64 KiB, these steps taken on the path the .git file spells
//     (a link to the main checkout is followed; one to the admin or the
//     common directory leaves the worktree untrusted); a hand-written .git file borrows no trust, nor
//     does a submodule's from the superproject (TestCodexProjectCases);
//   - a .git directory with no HEAD (empty, or objects/ and refs/
//     alone) is no .git marker and no git top: the repository or marker
//     around it roots the project and trusts it; one holding a HEAD
//     alone is both;
//   - an entry for the directory itself decides before the root's: an
//     untrusted working directory below a trusted top has its file
//     left out;
//   - a projects table given with -c trusts as one in config.toml; a
//     dotted -c key keeps its quotes, so projects."<dir>".trust_level
//     names no directory;
//   - -C a symbolic link: the link's own ancestors are walked for the
//     root, and an entry for the link as written, or for the directory
//     it resolves to, trusts it, and so does one for a git top found
//     among those parents, as spelled or resolved; a session started in a link (even with
//     $PWD naming it) has the resolved directory alone;
//   - a .codex that is CODEX_HOME itself (-C the home directory) is not
//     read again as a project's: a profile's false stays over it;
//   - -C is cleaned as a path ("<dir>/", "<dir>/../<name>", "//"), so a
//     key spelled that way still trusts nothing.
func TestCodexProjectRoot(t *testing.T) {
	t.Parallel()
	const on = "[plugins.\"" + ownPluginID + "\"]\nenabled = true\n"
	trust := func(key string) string { return "[projects.\"" + key + "\"]\ntrust_level = \"trusted\"\n" }
	markers := "project_root_markers = [\"" + rootMarker + "\"]\n"
	for _, c := range []struct {
		name     string
		user     string // WORK, TOP and MAIN stand for the working directory, its parent and a sibling repository
		profile  string // $CODEX_HOME/p.config.toml, selected with --profile p
		args     []string
		git      bool   // TOP is a git work tree's top
		mark     bool   // TOP holds rootMarker
		tree     bool   // WORK is a worktree of MAIN
		forge    string // then forgeWorktree changes its records so
		sepDir   string // WORK is a worktree of MAIN, whose git directory (--separate-git-dir) is this
		dotGit   string // TOP/.git is a file holding this; "->" makes it a dangling symbolic link
		noHEAD   bool   // WORK/.git is a directory with no HEAD (objects/ and refs/ alone)
		headOnly bool   // WORK/.git is a directory holding a HEAD alone
		link     bool   // TOP/link is a symbolic link to WORK, and WORK/sub a directory
		workGit  bool   // WORK is a git work tree's top
		subOn    bool   // the plugin is enabled in WORK/sub/.codex/config.toml, not WORK's
		outLink  bool   // OUT, a link to WORK in another directory, is the working directory (with PWD) unless -C names it
		project  string // more of WORK/.codex/config.toml
		top      bool   // the plugin is enabled in TOP/.codex/config.toml, not WORK's
		loads    bool
	}{
		{name: "marker at the top, top trusted, the working directory's file", user: markers + trust("TOP"), mark: true, loads: true},
		{name: "marker at the top, top trusted, the top's file", user: markers + trust("TOP"), mark: true, top: true, loads: true},
		{name: "marker at the top, not in the markers, top trusted", user: trust("TOP"), mark: true},
		{name: "marker from a -c flag", user: trust("TOP"), args: []string{"-c", "project_root_markers=[\"" + rootMarker + "\"]"}, mark: true, loads: true},
		{name: "marker from the profile", user: trust("TOP"), profile: markers, args: []string{"--profile", "p"}, mark: true, loads: true},
		{name: "markers empty, git top trusted, the working directory's file", user: "project_root_markers = []\n" + trust("TOP"), git: true, loads: true},
		{name: "markers empty, git top trusted, the top's file", user: "project_root_markers = []\n" + trust("TOP"), git: true, top: true},
		{name: "other marker, git top trusted, the working directory's file", user: markers + trust("TOP"), git: true, loads: true},
		{name: "worktree of a trusted repository", user: trust("MAIN"), tree: true, loads: true},
		{name: "worktree, its own entry", user: trust("WORK"), tree: true, loads: true},
		{name: "worktree of an untrusted repository", user: "", tree: true},
		{name: "worktree of a repository whose git directory is inside it", user: trust("MAIN"), sepDir: "MAIN/.git-data", loads: true},
		{name: "worktree of a repository whose git directory is elsewhere", user: trust("MAIN"), sepDir: "TOP/elsewhere.git"},
		{name: "worktree with relative pointers", user: trust("MAIN"), tree: true, forge: "relative", loads: true},
		{name: "worktree whose .git file is 64 KiB", user: trust("MAIN"), tree: true, forge: ".git of 64 KiB", loads: true},
		{name: "worktree whose .git file is past 64 KiB", user: trust("MAIN"), tree: true, forge: "huge .git"},
		{name: "worktree whose .git is a link to its file", user: trust("MAIN"), tree: true, forge: "linked .git"},
		{name: "worktree of a repository whose .git, naming its git directory inside, is a link to its file", user: trust("MAIN"), sepDir: "MAIN/.git-data", forge: "main's linked .git"},
		{name: "worktree whose gitdir record goes through a missing directory's ..", user: trust("MAIN"), tree: true, forge: "gitdir record through ..", loads: true},
		{name: "worktree whose gitdir record ends in a slash", user: trust("MAIN"), tree: true, forge: "gitdir record with a trailing slash", loads: true},
		{name: "worktree whose .git file names its main checkout through a link", user: trust("MAIN"), tree: true, forge: "main through a link", loads: true},
		{name: "worktree whose .git file names its main checkout through a link, the link's entry", user: trust("TOP/mlink"), tree: true, forge: "main through a link", loads: true},
		{name: "worktree whose .git file names its admin directory through a link", user: trust("MAIN"), tree: true, forge: "admin through a link"},
		{name: "worktree whose .git file names the common directory through a link", user: trust("MAIN"), tree: true, forge: "common through a link"},
		{name: "forged worktree: an admin directory git never made", user: trust("MAIN"), tree: true, forge: "missing admin"},
		{name: "forged worktree: another worktree's admin directory", user: trust("MAIN"), tree: true, forge: "another's admin"},
		{name: "forged worktree: a common directory the main checkout's .git is not", user: trust("MAIN"), tree: true, forge: "fake common"},
		{name: "forged worktree: no commondir record", user: trust("MAIN"), tree: true, forge: "no commondir"},
		{name: "forged worktree: a linked gitdir record", user: trust("MAIN"), tree: true, forge: "linked gitdir record"},
		{name: "worktree subdirectory, main repository trusted", user: trust("MAIN"), tree: true, args: []string{"-C", "sub"}, link: true, loads: true},
		{name: "markers in a project file are not read", user: trust("TOP"), mark: true, project: markers},
		{name: ".git directory with no HEAD below a trusted git top, the working directory's file", user: trust("TOP"), git: true, noHEAD: true, loads: true},
		{name: ".git directory with no HEAD below a trusted git top, the top's file", user: trust("TOP"), git: true, noHEAD: true, top: true, loads: true},
		{name: ".git directory with no HEAD below a trusted marker, the top's file", user: "project_root_markers = [\".git\", \"" + rootMarker + "\"]\n" + trust("TOP"), mark: true, noHEAD: true, top: true, loads: true},
		{name: ".git directory with a HEAD alone below a trusted git top", user: trust("TOP"), git: true, headOnly: true},
		{name: "dangling .git link at a trusted top", user: trust("TOP"), dotGit: "->"},
		{name: ".git file of a submodule, its own entry", user: trust("TOP"), dotGit: "gitdir: ../.git/modules/work\n", loads: true},
		{name: "-C a link, the link trusted", user: trust("TOP/link"), args: []string{"-C", "TOP/link"}, link: true, loads: true},
		{name: "-C a link, the real directory trusted", user: trust("WORK"), args: []string{"-C", "TOP/link"}, link: true, loads: true},
		{name: "projects table from a -c flag", args: []string{"-c", `projects={"WORK"={trust_level="trusted"}}`}, loads: true},
		{name: "projects entry from a dotted -c flag, its quotes kept", args: []string{"-c", `projects."WORK".trust_level="trusted"`}},
		{name: "-C with a trailing slash, the key with one", user: trust("WORK/"), args: []string{"-C", "WORK/"}},
		{name: "-C through .., the key as written", user: trust("WORK/../work"), args: []string{"-C", "WORK/../work"}},
		{name: "-C with a doubled slash, the key without", user: trust("WORK"), args: []string{"-C", "TOP//work"}, loads: true},
		{name: "-C below a link to a git top, markers empty, the link's entry", user: "project_root_markers = []\n" + trust("TOP/link"), args: []string{"-C", "TOP/link/sub"}, link: true, workGit: true, subOn: true, loads: true},
		{name: "-C below a link to a git top, another marker, the link's entry", user: markers + trust("TOP/link"), args: []string{"-C", "TOP/link/sub"}, link: true, workGit: true, subOn: true, loads: true},
		{name: "-C a link out of the git work tree, its top trusted", user: trust("TOP"), git: true, outLink: true, args: []string{"-C", "OUT"}},
		{name: "started in a link, the link trusted", user: trust("OUT"), outLink: true},
		{name: "started in a link, the git top trusted", user: trust("TOP"), git: true, outLink: true, loads: true},
		{name: "-C the home directory: CODEX_HOME is no project file", user: "[plugins.\"" + ownPluginID + "\"]\nenabled = true\n" + trust("HOME"), profile: "[plugins.\"" + ownPluginID + "\"]\nenabled = false\n", args: []string{"--profile", "p", "-C", "HOME"}},
		{name: "working directory untrusted below a trusted git top", user: trust("TOP") + "[projects.\"WORK\"]\ntrust_level = \"untrusted\"\n", git: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := New(t, Codex, Say("done"))
			installOwnPlugin(t, a, ownMarketplace, ownPlugin, "")
			top := filepath.Dir(a.Workdir)
			main := filepath.Join(top, "main")
			out := filepath.Join(t.TempDir(), "link")
			names := strings.NewReplacer("WORK", a.Workdir, "TOP", top, "MAIN", main, "OUT", out, "HOME", a.Home)
			a.CodexConfig = names.Replace(c.user)
			if c.profile != "" {
				writeFile(t, a.ConfigDir(), "p.config.toml", c.profile, 0o644)
			}
			if c.git {
				gitRun(t, "init", "-q", top)
			}
			if c.workGit {
				gitRun(t, "init", "-q", a.Workdir)
			}
			if c.mark {
				writeFile(t, top, rootMarker, "", 0o644)
			}
			if c.tree {
				worktreeOf(t, main, a.Workdir)
			}
			for _, sub := range map[bool][]string{true: {".git/objects", ".git/refs"}}[c.noHEAD] {
				if err := os.MkdirAll(filepath.Join(a.Workdir, sub), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if c.headOnly {
				writeFile(t, a.Workdir, ".git/HEAD", "ref: refs/heads/main\n", 0o644)
			}
			if c.sepDir != "" {
				separateWorktreeOf(t, main, names.Replace(c.sepDir), a.Workdir)
			}
			if c.forge != "" {
				forgeWorktree(t, main, a.Workdir, c.forge)
			}
			switch c.dotGit {
			case "":
			case "->":
				if err := os.Symlink(filepath.Join(top, "gone"), filepath.Join(top, ".git")); err != nil {
					t.Fatal(err)
				}
			default:
				writeFile(t, top, ".git", c.dotGit, 0o644)
			}
			if c.link {
				if err := os.Symlink(a.Workdir, filepath.Join(top, "link")); err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(filepath.Join(a.Workdir, "sub"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			dir := a.Workdir
			if c.top {
				dir = top
			}
			if c.subOn {
				dir = filepath.Join(a.Workdir, "sub")
			}
			writeFile(t, dir, ".codex/config.toml", c.project+on, 0o644)
			a.Args = []string{"-c", "features.plugins=true"}
			for _, arg := range c.args {
				a.Args = append(a.Args, names.Replace(arg))
			}
			if c.outLink {
				if err := os.Symlink(a.Workdir, out); err != nil {
					t.Fatal(err)
				}
				if len(c.args) == 0 {
					a.Workdir = out
					a.Env = append(a.Env, "PWD="+out)
				}
			}
			res := a.Run(t, "hi")
			if res.Exit != 0 {
				t.Fatalf("codex failed\n%s", res)
			}
			if got := ownLoaded(a, ownPlugin); got != c.loads {
				t.Errorf("own plugin loaded: %v, want %v (found by trying Codex 0.171)\n%s", got, c.loads, res)
			}
		})
	}
}

// projectLayout makes what a case of the tests below names in TOP, the
// working directory's parent: "git" a git work tree's top, "mark" a
// rootMarker file, "git, no HEAD" a git work tree's top with WORK/.git
// an empty directory, "->" a dangling .git link, "worktree" WORK a worktree
// of TOP/main ("forged worktree": its .git file then naming an admin
// directory git never made; "worktree, linked .git": its .git a link to
// the file git wrote; "worktree, admin through a link": its .git file
// naming its admin directory through a link; "worktree, gitdir record
// through ..": its admin directory's gitdir naming it through a missing
// directory's ..), "link" TOP/link a symbolic link to WORK. It runs before the workspace holds anything.
func projectLayout(t *testing.T, a *Agent, layout string) {
	t.Helper()
	top := filepath.Dir(a.Workdir)
	switch layout {
	case "git":
		gitRun(t, "init", "-q", top)
	case "mark":
		writeFile(t, top, rootMarker, "", 0o644)
	case "git, no HEAD":
		gitRun(t, "init", "-q", top)
		if err := os.Mkdir(filepath.Join(a.Workdir, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
	case "->":
		if err := os.Symlink(filepath.Join(top, "gone"), filepath.Join(top, ".git")); err != nil {
			t.Fatal(err)
		}
	case "worktree":
		worktreeOf(t, filepath.Join(top, "main"), a.Workdir)
	case "forged worktree":
		worktreeOf(t, filepath.Join(top, "main"), a.Workdir)
		forgeWorktree(t, filepath.Join(top, "main"), a.Workdir, "missing admin")
	case "worktree, gitdir record through ..":
		worktreeOf(t, filepath.Join(top, "main"), a.Workdir)
		forgeWorktree(t, filepath.Join(top, "main"), a.Workdir, "gitdir record through ..")
	case "worktree, admin through a link":
		main := filepath.Join(top, "main")
		worktreeOf(t, main, a.Workdir)
		gitDir := throughLink(t, main, filepath.Join(main, ".git", "worktrees", filepath.Base(a.Workdir)), "admin through a link")
		writeFile(t, a.Workdir, ".git", "gitdir: "+gitDir+"\n", 0o644)
	case "worktree, linked .git":
		worktreeOf(t, filepath.Join(top, "main"), a.Workdir)
		linkAside(t, filepath.Join(a.Workdir, ".git"))
	case "link":
		if err := os.Symlink(a.Workdir, filepath.Join(top, "link")); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("layout %q", layout)
	}
}

// TestSetupCodexProjectRoot: a user's features.hooks = false that a
// project file turns back on, where Codex 0.171 reads that file and where
// it does not (TestCodexProjectRoot): setup's lines run only in the
// first, so setup and list refuse in the second and go on in the first.
// bundlectl once found the root by .git alone and trusted a directory by
// a trusted root even where its own entry said untrusted: it wrote lines
// that never ran below a dangling .git link, under
// project_root_markers = [] or in an untrusted directory, and refused
// where a marker or a worktree's main repository made the file trusted;
// it then took a hand-written .git file naming a trusted repository's
// worktrees for a worktree, and wrote lines no session ran.
func TestSetupCodexProjectRoot(t *testing.T) {
	t.Parallel()
	const off, on = "[features]\nhooks = false\n", "[features]\nhooks = true\n"
	trust := func(key string) string { return "[projects.\"" + key + "\"]\ntrust_level = \"trusted\"\n" }
	for _, c := range []struct {
		name, user, layout string
		top                bool // the true is TOP's file, not WORK's
		runs               bool // Codex runs the hooks
		// worktreeOff: a codex --worktree session started there runs
		// none: it reads the project files as committed at HEAD, and the
		// true is only in the working copy (so list says so).
		worktreeOff bool
	}{
		{name: "markers empty, the trusted git top's true", user: "project_root_markers = []\n" + trust("TOP"), layout: "git", top: true},
		{name: "dangling .git link, the trusted top's true", user: trust("TOP"), layout: "->", top: true},
		{name: "untrusted directory's true below a trusted git top", user: trust("TOP") + "[projects.\"WORK\"]\ntrust_level = \"untrusted\"\n", layout: "git"},
		{name: "forged worktree of a trusted repository, its true", user: trust("MAIN"), layout: "forged worktree"},
		{name: "marker at the trusted top, its true", user: "project_root_markers = [\"" + rootMarker + "\"]\n" + trust("TOP"), layout: "mark", top: true, runs: true},
		{name: "worktree of a trusted repository, its true", user: trust("MAIN"), layout: "worktree", runs: true, worktreeOff: true},
		{name: "worktree of a trusted repository named through a link to its admin directory, its true", user: trust("MAIN"), layout: "worktree, admin through a link"},
		{name: "worktree of a trusted repository, its .git a link to its file, its true", user: trust("MAIN"), layout: "worktree, linked .git"},
		{name: "empty .git directory below a trusted repository, the top's true", user: trust("TOP"), layout: "git, no HEAD", top: true, runs: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			marker := t.TempDir() + "/" + markerName
			a := New(t, Codex, ShellCall(Codex, "touch "+marker), Say("done"))
			projectLayout(t, a, c.layout)
			f := newTrustedFixture(t, a, marker)
			f.runSetup(t, a, "hello")
			top := filepath.Dir(a.Workdir)
			a.CodexConfig = strings.NewReplacer("WORK", a.Workdir, "TOP", top, "MAIN", filepath.Join(top, "main")).Replace(c.user) + off + "\n" + a.CodexConfig
			dir := a.Workdir
			if c.top {
				dir = top
			}
			writeFile(t, dir, ".codex/config.toml", on, 0o644)
			res := a.Run(t, "touch the marker")
			if res.Exit != 0 {
				t.Fatalf("codex failed\n%s", res)
			}
			if _, err := os.Stat(marker); (err != nil) != c.runs {
				t.Fatalf("the guard blocked the command: %v; this test's premise (Codex 0.171 runs hooks: %v) no longer holds\n%s", err != nil, c.runs, res)
			}
			v := offVerdict(true, `.codex/config.toml" sets features.hooks = false`, "")
			if c.runs {
				// The user's false holds in every other workspace.
				v = offVerdict(false, "", "whose own settings do not turn hooks back on")
				v.listOff = c.worktreeOff
			}
			checkVerdict(t, a, f, nil, setupEnv(a), c.name, v)
		})
	}
}

// TestExecCodexOwnPluginProjectRoot: a plugin of the user's own enabled
// in the working directory's .codex/config.toml, which Codex 0.171 reads
// when the directory is a worktree of a trusted repository, below a
// trusted directory holding one of project_root_markers, or named by -C
// through a symbolic link whose entry trusts it (TestCodexProjectRoot):
// it loads beside the views, bundlectl exec names it, and the view's
// guard still blocks the marker command. exec once took these files for
// untrusted and said nothing of the plugin.
func TestExecCodexOwnPluginProjectRoot(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, user, layout string
		args               []string
	}{
		{name: "worktree of a trusted repository", user: "MAIN", layout: "worktree"},
		{name: "marker at a trusted top", user: "TOP", layout: "mark"},
		{name: "-C a link its own entry trusts", user: "TOP/link", layout: "link", args: []string{"-C", "TOP/link"}},
		{name: "empty .git directory below a trusted repository", user: "TOP", layout: "git, no HEAD"},
		{name: "worktree of a trusted repository, its gitdir record through ..", user: "MAIN", layout: "worktree, gitdir record through .."},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), markerName)
			turns, _, _, shellTurn := execScript(Codex, marker)
			a := New(t, Codex, turns...)
			projectLayout(t, a, c.layout)
			f := newTrustedFixture(t, a, marker)
			allowExecTools(a)
			a.Launcher = f.launcher(t)
			installOwnPlugin(t, a, ownMarketplace, ownPlugin, "")
			top := filepath.Dir(a.Workdir)
			names := strings.NewReplacer("TOP", top, "MAIN", filepath.Join(top, "main"))
			key := names.Replace(c.user)
			for _, arg := range c.args {
				a.Args = append(a.Args, names.Replace(arg))
			}
			a.CodexConfig = fmt.Sprintf("project_root_markers = [%q]\n[projects.%q]\ntrust_level = \"trusted\"\n\n", rootMarker, key) + a.CodexConfig
			writeFile(t, a.Workdir, ".codex/config.toml", fmt.Sprintf("[plugins.%q]\nenabled = true\n", ownPluginID), 0o644)
			res := a.Run(t, execPrompt(Codex))
			f.checkGuard(t, a, res, shellTurn)
			if !ownLoaded(a, ownPlugin) {
				t.Fatalf("the own plugin did not load: this test's premise (Codex 0.171) no longer holds\n%s", res)
			}
			if want := fmt.Sprintf("bundlectl: codex: your own plugin %q loads beside the views, never reviewed by bundlectl", ownPluginID); !strings.Contains(res.Stderr, want) {
				t.Errorf("stderr lacks %q\n%s", want, res)
			}
		})
	}
}

// TestCodexProjectFileNotRegular records that Codex 0.171 does not start
// when a trusted project's .codex/config.toml is a named pipe ("is not a
// file"), so bundlectl, which opens no such file (hosts/codex
// TestProjectFileNotRegular: it once waited on the pipe forever), loses
// nothing by reading it as setting nothing.
func TestCodexProjectFileNotRegular(t *testing.T) {
	t.Parallel()
	a := New(t, Codex, Say("done"))
	a.CodexConfig = "[projects.\"" + a.Workdir + "\"]\ntrust_level = \"trusted\"\n"
	if err := os.MkdirAll(filepath.Join(a.Workdir, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(a.Workdir, ".codex", "config.toml"), 0o644); err != nil {
		t.Skip(err)
	}
	res := a.Run(t, "hi")
	if res.Exit == 0 || !strings.Contains(res.Stderr, "is not a file") {
		t.Errorf("codex started over a named pipe for a project file, or said something else: this test's premise (Codex 0.171) no longer holds\n%s", res)
	}
}
