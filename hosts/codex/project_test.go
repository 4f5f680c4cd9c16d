package codex

import (
	"cmp"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// projectLayout adds to a fixture from ownFixture what a case's files
// cannot say: ws/.git a dangling symbolic link ("->"), ws/wt a linked
// worktree of the repository ws/main ("worktree"; out/link a symbolic
// link to ws, "link to the top"; "separate inside" or
// "separate outside" with its git directory in ws/main or beside it, and
// the plugin enabled in ws/wt/.codex/config.toml), out/link a symbolic
// link to ws/sub ("link"), ws/.codex one to the CODEX_HOME home
// ("home"), ws/sub/.git/HEAD a dangling one ("dangling HEAD"), or ws/.git
// a named pipe ("fifo .git").
func projectLayout(t *testing.T, root, layout string) {
	t.Helper()
	switch layout {
	case "":
	case "->":
		if err := os.Symlink(filepath.Join(root, "gone"), filepath.Join(root, "ws", ".git")); err != nil {
			t.Fatal(err)
		}
	case "separate inside", "separate outside", "separate inside: linked .git", "separate inside: huge .git":
		main, gitDir := filepath.Join(root, "ws", "main"), filepath.Join(root, "ws", "main", ".git-data")
		if layout == "separate outside" {
			gitDir = filepath.Join(root, "ws", "elsewhere.git")
		}
		for _, args := range [][]string{
			{"init", "-q", "--separate-git-dir", gitDir, main},
			{"-C", main, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first"},
			{"-C", main, "worktree", "add", "-q", "--detach", filepath.Join(root, "ws", "wt")},
		} {
			if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
				t.Skipf("git %v: %v %s", args, err, out)
			}
		}
		writeAt(t, filepath.Join(root, "ws", "wt", ".codex", "config.toml"), `[plugins."a@m"]`+"\nenabled = true\n")
		unrecord(t, filepath.Join(main, ".git"), strings.TrimPrefix(layout, "separate inside: "))
	case "l":
		link(t, filepath.Join(root, "ws", "l"), filepath.Join("deep", "inner"))
	case "HEAD loop":
		link(t, filepath.Join(root, "ws", "sub", ".git", "HEAD"), "HEAD")
	case "mark loop", ".git loop":
		link(t, filepath.Join(root, "ws", strings.TrimSuffix(layout, " loop")), strings.TrimSuffix(layout, " loop"))
	case ".codex loop":
		link(t, filepath.Join(root, "ws", "sub", ".codex"), ".codex")
	case "fifo .git":
		if err := syscall.Mkfifo(filepath.Join(root, "ws", ".git"), 0o644); err != nil {
			t.Skip(err)
		}
	case "dangling HEAD":
		if err := os.Symlink(filepath.Join(root, "gone"), filepath.Join(root, "ws", "sub", ".git", "HEAD")); err != nil {
			t.Fatal(err)
		}
	case "home":
		if err := os.Symlink(filepath.Join(root, "home"), filepath.Join(root, "ws", ".codex")); err != nil {
			t.Fatal(err)
		}
	case "link to the top":
		if err := os.MkdirAll(filepath.Join(root, "out"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(root, "ws"), filepath.Join(root, "out", "link")); err != nil {
			t.Fatal(err)
		}
	case "link":
		if err := os.MkdirAll(filepath.Join(root, "out"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(root, "ws", "sub"), filepath.Join(root, "out", "link")); err != nil {
			t.Fatal(err)
		}
	case "worktree", "worktree: relative", "worktree: .git file of 64 KiB", "worktree: huge .git", "worktree: linked .git", "worktree: main through a link", "worktree: gitdir record through ..", "worktree: gitdir record with a trailing slash", "worktree: admin through a link", "worktree: common through a link", "worktree: missing admin", "worktree: another's admin", "worktree: fake common", "worktree: no commondir", "worktree: linked gitdir record":
		forgeWorktree(t, root, strings.TrimPrefix(layout, "worktree: "))
	default:
		t.Fatalf("layout %q", layout)
	}
}

// forgeWorktree makes ws/wt a linked worktree of the repository ws/main
// (and ws/other another), then changes git's records as how says, each
// a way Codex 0.171 tells a worktree git made from a forged one
// (internal/agenttest TestCodexProjectRoot): "relative" rewrites both
// pointers as relative paths, as git 2.48's worktree.useRelativePaths
// does (still trusted); the others break what ties the worktree to its
// main checkout.
func forgeWorktree(t *testing.T, root, how string) {
	t.Helper()
	ws := filepath.Join(root, "ws")
	main, wt := filepath.Join(ws, "main"), filepath.Join(ws, "wt")
	for _, args := range [][]string{
		{"init", "-q", main},
		{"-C", main, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first"},
		{"-C", main, "worktree", "add", "-q", "--detach", wt},
		{"-C", main, "worktree", "add", "-q", "--detach", filepath.Join(ws, "other")},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Skipf("git %v: %v %s", args, err, out)
		}
	}
	admin := filepath.Join(main, ".git", "worktrees", "wt")
	switch how {
	case "worktree":
	case "relative":
		writeAt(t, filepath.Join(wt, ".git"), "gitdir: ../main/.git/worktrees/wt\n")
		writeAt(t, filepath.Join(admin, "gitdir"), "../../../../wt/.git\n")
	case "missing admin":
		writeAt(t, filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(main, ".git", "worktrees", "gone")+"\n")
	case "another's admin":
		writeAt(t, filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(main, ".git", "worktrees", "other")+"\n")
	case "fake common":
		if err := os.Rename(filepath.Join(main, ".git"), filepath.Join(main, "fake-common")); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(main, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		writeAt(t, filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(main, "fake-common", "worktrees", "wt")+"\n")
	case ".git file of 64 KiB":
		writeAt(t, filepath.Join(wt, ".git"), padded("gitdir: "+admin, maxGitRecord))
	case "gitdir record through ..":
		writeAt(t, filepath.Join(admin, "gitdir"), filepath.Join(wt, "gone")+"/../.git\n")
	case "gitdir record with a trailing slash":
		writeAt(t, filepath.Join(admin, "gitdir"), filepath.Join(wt, ".git")+"/\n")
	case "main through a link":
		// As git writes it when the repository was reached through a
		// link (still trusted).
		link(t, filepath.Join(root, "mlink"), main)
		writeAt(t, filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(root, "mlink", ".git", "worktrees", "wt")+"\n")
	case "admin through a link":
		link(t, filepath.Join(main, ".git", "worktrees", "adm"), admin)
		writeAt(t, filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(main, ".git", "worktrees", "adm")+"\n")
	case "common through a link":
		link(t, filepath.Join(root, "common"), filepath.Join(main, ".git"))
		writeAt(t, filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(root, "common", "worktrees", "wt")+"\n")
	case "huge .git", "linked .git":
		unrecord(t, filepath.Join(wt, ".git"), how)
	case "no commondir":
		if err := os.Remove(filepath.Join(admin, "commondir")); err != nil {
			t.Fatal(err)
		}
	case "linked gitdir record":
		if err := os.Rename(filepath.Join(admin, "gitdir"), filepath.Join(root, "record")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(root, "record"), filepath.Join(admin, "gitdir")); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("worktree %q", how)
	}
}

// unrecord makes the .git file at dotGit, naming a git directory, one
// Codex 0.171 does not read as git's record (TestCodexProjectRoot): "huge
// .git" pads it past 64 KiB, "linked .git" moves it aside and links it
// back; any other how leaves it.
func unrecord(t *testing.T, dotGit, how string) {
	t.Helper()
	data, err := os.ReadFile(dotGit)
	if err != nil {
		t.Fatal(err)
	}
	switch how {
	case "huge .git":
		writeAt(t, dotGit, padded(strings.TrimSpace(string(data)), maxGitRecord+1))
	case "linked .git":
		aside := dotGit + "-aside"
		if err := os.Rename(dotGit, aside); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(aside, dotGit); err != nil {
			t.Fatal(err)
		}
	}
}

// link makes a symbolic link at path to target.
func link(t *testing.T, path, target string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// padded is line padded with spaces to size bytes, its newline last.
func padded(line string, size int) string {
	return line + strings.Repeat(" ", size-len(line)-1) + "\n"
}

// writeAt writes content to the file at path, making its directory.
func writeAt(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFindOwnPluginsProjectRoot: which project files Codex 0.171 reads
// beyond the default .git root, each case as internal/agenttest
// TestCodexProjectRoot found it with the real CLI: project_root_markers
// (from the user's file, a profile or a -c flag; not a project's file),
// the git top as a trust key whatever the markers, a worktree trusted
// through its main repository (its .git file and its main checkout's
// each a regular file of at most 64 KiB), a directory's own entry before
// its root's, a dangling .git link or a .git directory with no HEAD that
// roots nothing, a submodule's .git
// file that borrows no trust, a projects table given with -c, and -C a
// symbolic link: its own ancestors walked, its entry or its real
// directory's trusting it (a session started in a link has the real
// path alone).
// FindOwnPlugins once found the root by .git alone and trusted by the
// directory's or the root's entry alone, so a plugin some of these files
// enable loaded unnamed, and one in a file Codex skips was named; it
// then took an empty .git directory for a root and a git top, and a
// linked or oversized .git file for a worktree's. The -c projects
// tables, the nested roots and the -C whose cleaned path is missing are
// TestCodexProjectCases's, each read here as Codex read it; the cases
// whose key was "ROOT/" trusted nothing by its trailing slash alone, so
// they now name ROOT itself.
func TestFindOwnPluginsProjectRoot(t *testing.T) {
	const on = `[plugins."a@m"]` + "\nenabled = true\n"
	trust := func(dir string) string { return `[projects."ROOT/` + dir + `"]` + "\ntrust_level = \"trusted\"\n" }
	untrust := func(dir string) string { return `[projects."ROOT/` + dir + `"]` + "\ntrust_level = \"untrusted\"\n" }
	markers := "project_root_markers = [\"mark\"]\n"
	for _, c := range []struct {
		name   string
		files  map[string]string
		layout string
		cwd    string // under ws/
		from   string // the working directory under ROOT instead
		args   []string
		loads  bool
		unread string // what Unread names, when it names one
	}{
		{name: "marker at the top, top trusted", files: map[string]string{"home/config.toml": markers + trust("ws"), "ws/mark": "", "ws/sub/.codex/config.toml": on}, cwd: "sub", loads: true},
		{name: "marker at the top, the top's file", files: map[string]string{"home/config.toml": markers + trust("ws"), "ws/mark": "", "ws/.codex/config.toml": on, "ws/sub/": ""}, cwd: "sub", loads: true},
		{name: "marker not in the markers", files: map[string]string{"home/config.toml": trust("ws"), "ws/mark": "", "ws/sub/.codex/config.toml": on}, cwd: "sub"},
		{name: "marker from a -c flag", files: map[string]string{"home/config.toml": trust("ws"), "ws/mark": "", "ws/sub/.codex/config.toml": on}, cwd: "sub", args: []string{"-c", `project_root_markers=["mark"]`}, loads: true},
		{name: "marker from the profile", files: map[string]string{"home/config.toml": trust("ws"), "home/p.config.toml": markers, "ws/mark": "", "ws/sub/.codex/config.toml": on}, cwd: "sub", args: []string{"-p", "p"}, loads: true},
		{name: "marker in a project file is not read", files: map[string]string{"home/config.toml": trust("ws"), "ws/mark": "", "ws/sub/.codex/config.toml": markers + on}, cwd: "sub"},
		{name: "markers empty, git top trusted, the working directory's file", files: map[string]string{"home/config.toml": "project_root_markers = []\n" + trust("ws"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/.codex/config.toml": on}, cwd: "sub", loads: true},
		{name: "markers empty, git top trusted, the top's file", files: map[string]string{"home/config.toml": "project_root_markers = []\n" + trust("ws"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/.codex/config.toml": on, "ws/sub/": ""}, cwd: "sub"},
		{name: "worktree of a trusted repository", files: map[string]string{"home/config.toml": trust("ws/main")}, layout: "worktree", cwd: "wt", loads: true},
		{name: "worktree of a repository whose git directory is inside it", files: map[string]string{"home/config.toml": trust("ws/main")}, layout: "separate inside", cwd: "wt", loads: true},
		{name: "worktree of a repository whose git directory is elsewhere", files: map[string]string{"home/config.toml": trust("ws/main")}, layout: "separate outside", cwd: "wt"},
		{name: "worktree with relative pointers", files: map[string]string{"home/config.toml": trust("ws/main")}, layout: "worktree: relative", cwd: "wt", loads: true},
		{name: "worktree whose .git file is 64 KiB", files: map[string]string{"home/config.toml": trust("ws/main")}, layout: "worktree: .git file of 64 KiB", cwd: "wt", loads: true},
		{name: "worktree whose .git file is past 64 KiB", files: map[string]string{"home/config.toml": trust("ws/main")}, layout: "worktree: huge .git", cwd: "wt"},
		{name: "worktree whose .git is a link to its file", files: map[string]string{"home/config.toml": trust("ws/main")}, layout: "worktree: linked .git", cwd: "wt"},
		{name: "worktree of a repository whose .git file, naming its git directory inside, is past 64 KiB", files: map[string]string{"home/config.toml": trust("ws/main")}, layout: "separate inside: huge .git", cwd: "wt"},
		{name: "worktree of a repository whose .git, naming its git directory inside, is a link to its file", files: map[string]string{"home/config.toml": trust("ws/main")}, layout: "separate inside: linked .git", cwd: "wt"},
		{name: "worktree whose gitdir record goes through a missing directory's ..", files: map[string]string{"home/config.toml": trust("ws/main")}, layout: "worktree: gitdir record through ..", cwd: "wt", loads: true},
		{name: "worktree whose gitdir record ends in a slash", files: map[string]string{"home/config.toml": trust("ws/main")}, layout: "worktree: gitdir record with a trailing slash", cwd: "wt", loads: true},
		{name: "worktree whose .git file names its main checkout through a link", files: map[string]string{"home/config.toml": trust("ws/main")}, layout: "worktree: main through a link", cwd: "wt", loads: true},
		{name: "worktree whose .git file names its main checkout through a link, the link's entry", files: map[string]string{"home/config.toml": trust("mlink")}, layout: "worktree: main through a link", cwd: "wt", loads: true},
		{name: "worktree whose .git file names its admin directory through a link", files: map[string]string{"home/config.toml": trust("ws/main")}, layout: "worktree: admin through a link", cwd: "wt"},
		{name: "worktree whose .git file names the common directory through a link", files: map[string]string{"home/config.toml": trust("ws/main")}, layout: "worktree: common through a link", cwd: "wt"},
		{name: "forged worktree: an admin directory git never made", files: map[string]string{"home/config.toml": trust("ws/main")}, layout: "worktree: missing admin", cwd: "wt"},
		{name: "forged worktree: another worktree's admin directory", files: map[string]string{"home/config.toml": trust("ws/main")}, layout: "worktree: another's admin", cwd: "wt"},
		{name: "forged worktree: a common directory the main checkout's .git is not", files: map[string]string{"home/config.toml": trust("ws/main")}, layout: "worktree: fake common", cwd: "wt"},
		{name: "forged worktree: no commondir record", files: map[string]string{"home/config.toml": trust("ws/main")}, layout: "worktree: no commondir", cwd: "wt"},
		{name: "forged worktree: a linked gitdir record", files: map[string]string{"home/config.toml": trust("ws/main")}, layout: "worktree: linked gitdir record", cwd: "wt"},
		{name: "worktree of an untrusted repository", files: map[string]string{"home/config.toml": trust("ws")}, layout: "worktree", cwd: "wt"},
		{name: "working directory untrusted below a trusted git top", files: map[string]string{"home/config.toml": trust("ws") + untrust("ws/sub"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/.codex/config.toml": on}, cwd: "sub"},
		{name: "dangling .git link at a trusted top", files: map[string]string{"home/config.toml": trust("ws"), "ws/sub/.codex/config.toml": on}, layout: "->", cwd: "sub"},
		{name: "empty .git directory below a trusted repository, the working directory's file", files: map[string]string{"home/config.toml": trust("ws"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/.git/": "", "ws/sub/.codex/config.toml": on}, cwd: "sub", loads: true},
		{name: "empty .git directory below a trusted repository, the top's file", files: map[string]string{"home/config.toml": trust("ws"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/.git/": "", "ws/.codex/config.toml": on}, cwd: "sub", loads: true},
		{name: "empty .git directory below a trusted marker, the top's file", files: map[string]string{"home/config.toml": "project_root_markers = [\".git\", \"mark\"]\n" + trust("ws"), "ws/mark": "", "ws/sub/.git/": "", "ws/.codex/config.toml": on}, cwd: "sub", loads: true},
		{name: ".git directory with a dangling HEAD link below a trusted repository", files: map[string]string{"home/config.toml": trust("ws"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/.git/": "", "ws/sub/.codex/config.toml": on}, layout: "dangling HEAD", cwd: "sub", loads: true},
		{name: ".git directory with only a HEAD, a trusted repository above", files: map[string]string{"home/config.toml": trust("ws"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/.git/HEAD": "", "ws/.codex/config.toml": on}, cwd: "sub"},
		{name: "empty .git directory, markers empty, its own entry", files: map[string]string{"home/config.toml": "project_root_markers = []\n" + trust("ws"), "ws/.git/": "", "ws/sub/.codex/config.toml": on}, cwd: "sub"},
		{name: ".git a named pipe, its own entry", files: map[string]string{"home/config.toml": trust("ws"), "ws/.codex/config.toml": on}, layout: "fifo .git", loads: true},
		{name: ".git a named pipe, a trusted repository above", files: map[string]string{"home/config.toml": "[projects.\"ROOT\"]\ntrust_level = \"trusted\"\n", ".git/HEAD": "ref: refs/heads/main\n", "ws/.codex/config.toml": on}, layout: "fifo .git"},
		{name: "submodule's .git file, superproject trusted", files: map[string]string{"home/config.toml": "[projects.\"ROOT\"]\ntrust_level = \"trusted\"\n", ".git/HEAD": "ref: refs/heads/main\n", "ws/.git": "gitdir: ../.git/modules/ws\n", "ws/.codex/config.toml": on}},
		{name: "submodule's .git file, its own entry", files: map[string]string{"home/config.toml": trust("ws"), ".git/HEAD": "ref: refs/heads/main\n", "ws/.git": "gitdir: ../.git/modules/ws\n", "ws/.codex/config.toml": on}, loads: true},
		{name: "-C a link, the link's entry", files: map[string]string{"home/config.toml": trust("out/link"), "ws/sub/.codex/config.toml": on}, layout: "link", args: []string{"-C", "ROOT/out/link"}, loads: true},
		{name: "-C a link, the real directory's entry", files: map[string]string{"home/config.toml": trust("ws/sub"), "ws/sub/.codex/config.toml": on}, layout: "link", args: []string{"-C", "ROOT/out/link"}, loads: true},
		{name: "-C below a link to a git top, markers empty, the link's entry", files: map[string]string{"home/config.toml": "project_root_markers = []\n" + trust("out/link"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/.codex/config.toml": on}, layout: "link to the top", args: []string{"-C", "ROOT/out/link/sub"}, loads: true},
		{name: "-C below a link to a git top, another marker, the link's entry", files: map[string]string{"home/config.toml": markers + trust("out/link"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/.codex/config.toml": on}, layout: "link to the top", args: []string{"-C", "ROOT/out/link/sub"}, loads: true},
		{name: "-C below a link to a git top, markers empty, the real top's entry", files: map[string]string{"home/config.toml": "project_root_markers = []\n" + trust("ws"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/.codex/config.toml": on}, layout: "link to the top", args: []string{"-C", "ROOT/out/link/sub"}, loads: true},
		{name: "-C a link out of the git work tree, its top trusted", files: map[string]string{"home/config.toml": trust("ws"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/.codex/config.toml": on}, layout: "link", args: []string{"-C", "ROOT/out/link"}},
		{name: "started in a link, the link's entry", files: map[string]string{"home/config.toml": trust("out/link"), "ws/sub/.codex/config.toml": on}, layout: "link", from: "out/link"},
		{name: "started in a link, the git top trusted", files: map[string]string{"home/config.toml": trust("ws"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/.codex/config.toml": on}, layout: "link", from: "out/link", loads: true},
		{name: "-C with a trailing slash, the key with one", files: map[string]string{"home/config.toml": trust("ws/sub/"), "ws/sub/.codex/config.toml": on}, args: []string{"-C", "ROOT/ws/sub/"}},
		{name: "-C through a link's .., cleaned as a path", files: map[string]string{"home/config.toml": trust("ws/sub"), "ws/sub/.codex/config.toml": on, "ws/deep/inner/": "", "ws/deep/sub/": ""}, layout: "l", args: []string{"-C", "ROOT/ws/l/../sub"}, loads: true},
		{name: "-C through a link loop's ..: Codex does not start", files: map[string]string{"home/config.toml": trust("ws/sub"), "ws/sub/.codex/config.toml": on}, layout: "mark loop", args: []string{"-C", "ROOT/ws/mark/../sub"}, unread: `"ROOT/ws/mark/../sub" (the -C directory: too many levels of symbolic links; Codex does not start there)`},
		{name: "-C through a missing directory's .., the user's plugin: Codex does not start", files: map[string]string{"home/config.toml": on, "ws/sub/": ""}, args: []string{"-C", "ROOT/ws/gone/../sub"}, unread: "no such file or directory"},
		{name: "-C through a missing directory's ..: Codex does not start", files: map[string]string{"home/config.toml": trust("ws/sub"), "ws/sub/.codex/config.toml": on}, args: []string{"-C", "ROOT/ws/gone/../sub"}, unread: "no such file or directory"},
		{name: "-C relative, through a link loop: Codex does not start", files: map[string]string{"home/config.toml": trust("ws/sub"), "ws/sub/.codex/config.toml": on}, layout: "mark loop", args: []string{"-C", "mark/../sub"}, unread: `"mark/../sub" (the -C directory: too many levels`},
		{name: "-C a file below a trusted marker root, the root's file", files: map[string]string{"home/config.toml": markers + trust("ws"), "ws/mark": "", "ws/.codex/config.toml": on, "ws/f": ""}, args: []string{"-C", "ROOT/ws/f"}, loads: true},
		{name: "marker with a NUL", files: map[string]string{"home/config.toml": `project_root_markers = ["a\u0000b", "mark"]` + "\n" + trust("ws"), "ws/mark": "", "ws/sub/.codex/config.toml": on}, cwd: "sub", loads: true},
		{name: "-C through .., the real directory's entry", files: map[string]string{"home/config.toml": trust("ws/sub"), "ws/sub/.codex/config.toml": on}, args: []string{"-C", "ROOT/ws/sub/../sub"}, loads: true},
		{name: "CODEX_HOME is no project's .codex", files: map[string]string{"home/config.toml": on + trust("ws"), "home/p.config.toml": `[plugins."a@m"]` + "\nenabled = false\n"}, layout: "home", args: []string{"-p", "p"}},
		{name: "projects table from a -c flag", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"-c", `projects={"ROOT/ws"={trust_level="trusted"}}`}, loads: true},
		{name: "-c table trusting a folder below the workspace", files: map[string]string{"ws/sub/.codex/config.toml": on}, args: []string{"-C", "ROOT/ws/sub", "-c", `projects={"ROOT/ws/sub"={trust_level="trusted"}}`}, loads: true},
		{name: "-c table trusting the folder above, no git", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"-c", `projects={"ROOT"={trust_level="trusted"}}`}},
		{name: "-c table trusting the git top above", files: map[string]string{".git/HEAD": "ref: refs/heads/main\n", "ws/.codex/config.toml": on}, args: []string{"-c", `projects={"ROOT"={trust_level="trusted"}}`}, loads: true},
		{name: "-c table untrusting the git top, the working directory trusted in config", files: map[string]string{"home/config.toml": trust("ws"), ".git/HEAD": "ref: refs/heads/main\n", "ws/.codex/config.toml": on}, args: []string{"-c", `projects={"ROOT"={trust_level="untrusted"}}`}, loads: true},
		{name: "-c table trusting the working directory, config untrusts it", files: map[string]string{"home/config.toml": untrust("ws"), "ws/.codex/config.toml": on}, args: []string{"-c", `projects={"ROOT/ws"={trust_level="trusted"}}`}, loads: true},
		{name: "-c dotted key unquoted, a folder below the workspace", files: map[string]string{"ws/sub/.codex/config.toml": on}, args: []string{"-C", "ROOT/ws/sub", "-c", `projects.ROOT/ws/sub.trust_level="trusted"`}, loads: true},
		{name: "-c dotted key unquoted, the git top above", files: map[string]string{".git/HEAD": "ref: refs/heads/main\n", "ws/.codex/config.toml": on}, args: []string{"-c", `projects.ROOT.trust_level="trusted"`}, loads: true},
		{name: "-c dotted key quoted names no directory", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"-c", `projects."ROOT/ws".trust_level="trusted"`}},
		{name: "-C through a link's .. to a directory only the link's target has", files: map[string]string{"home/config.toml": trust("ws/deep/only") + trust("ws/only"), "ws/deep/inner/": "", "ws/deep/only/.codex/config.toml": on}, layout: "l", args: []string{"-C", "ROOT/ws/l/../only"}},
		{name: "-C through a link's .. to a directory only the link's target has, below a trusted git top, the top's file", files: map[string]string{"home/config.toml": trust("ws"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/.codex/config.toml": on, "ws/deep/inner/": "", "ws/deep/only/": ""}, layout: "l", args: []string{"-C", "ROOT/ws/l/../only"}, loads: true},
		{name: "marker root inside a git top inside another, the inner top trusted", files: map[string]string{"home/config.toml": "project_root_markers = [\".git\", \"mark\"]\n" + trust("ws"), ".git/HEAD": "ref: refs/heads/main\n", "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/mark": "", "ws/sub/d/.codex/config.toml": on}, args: []string{"-C", "ROOT/ws/sub/d"}, loads: true},
		{name: "marker root inside a git top inside another, the outer top trusted", files: map[string]string{"home/config.toml": "project_root_markers = [\".git\", \"mark\"]\n" + `[projects."ROOT"]` + "\ntrust_level = \"trusted\"\n", ".git/HEAD": "ref: refs/heads/main\n", "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/mark": "", "ws/sub/d/.codex/config.toml": on}, args: []string{"-C", "ROOT/ws/sub/d"}},
		{name: "marker root inside a git top inside another, the root trusted, the inner top untrusted", files: map[string]string{"home/config.toml": "project_root_markers = [\".git\", \"mark\"]\n" + trust("ws/sub") + untrust("ws"), ".git/HEAD": "ref: refs/heads/main\n", "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/mark": "", "ws/sub/d/.codex/config.toml": on}, args: []string{"-C", "ROOT/ws/sub/d"}, loads: true},
		{name: "marker root inside a git top inside another, the root untrusted, the inner top trusted", files: map[string]string{"home/config.toml": "project_root_markers = [\".git\", \"mark\"]\n" + untrust("ws/sub") + trust("ws"), ".git/HEAD": "ref: refs/heads/main\n", "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/mark": "", "ws/sub/d/.codex/config.toml": on}, args: []string{"-C", "ROOT/ws/sub/d"}},
		{name: "marker root inside a git top inside another, the inner top trusted, its file", files: map[string]string{"home/config.toml": "project_root_markers = [\".git\", \"mark\"]\n" + trust("ws"), ".git/HEAD": "ref: refs/heads/main\n", "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/mark": "", "ws/.codex/config.toml": on, "ws/sub/d/": ""}, args: []string{"-C", "ROOT/ws/sub/d"}},
		{name: "exec --trust, a folder with no entry", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"exec", "--trust"}, loads: true},
		{name: "exec --trust, below a git top with no entry, the top's file", files: map[string]string{"ws/.git/HEAD": "ref: refs/heads/main\n", "ws/.codex/config.toml": on, "ws/sub/": ""}, cwd: "sub", args: []string{"exec", "--trust"}, loads: true},
		{name: "exec --trust, below a worktree, its file", files: map[string]string{}, layout: "worktree", cwd: "wt", args: []string{"exec", "--trust"}, loads: true},
		{name: "exec --trust, a workspace marked untrusted", files: map[string]string{"home/config.toml": untrust("ws"), "ws/.codex/config.toml": on}, args: []string{"exec", "--trust"}},
		{name: "exec --trust, below a workspace marked untrusted, the git top's file", files: map[string]string{"home/config.toml": untrust("ws/sub"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/.codex/config.toml": on, "ws/sub/d/": ""}, cwd: "sub/d", args: []string{"exec", "--trust"}, loads: true},
		{name: "exec --trust, a workspace trusted alone, the git top's file", files: map[string]string{"home/config.toml": trust("ws/sub"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/.codex/config.toml": on, "ws/sub/": ""}, cwd: "sub", args: []string{"exec", "--trust"}},
		{name: "exec --trust, below a marker root inside a git top, the root's file", files: map[string]string{"home/config.toml": "project_root_markers = [\".git\", \"mark\"]\n", ".git/HEAD": "ref: refs/heads/main\n", "ws/sub/mark": "", "ws/sub/.codex/config.toml": on, "ws/sub/d/": ""}, cwd: "sub/d", args: []string{"exec", "--trust"}, loads: true},
		{name: "--trust without exec: Codex does not start", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"--trust", "hi"}},
		{name: "--trust after an interactive session's prompt: Codex does not start", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"hi", "--trust"}},
		{name: "exec --trust, a workspace marked untrusted, the user's plugin: Codex does not start", files: map[string]string{"home/config.toml": untrust("ws") + on}, args: []string{"exec", "--trust"}},
		{name: "exec --trust, below a git top marked untrusted, the user's plugin: Codex does not start", files: map[string]string{"home/config.toml": untrust("ws") + on, "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/": ""}, cwd: "sub", args: []string{"exec", "--trust"}},
		{name: "exec --trust, a trusted working directory below a git top marked untrusted, the user's plugin", files: map[string]string{"home/config.toml": untrust("ws") + trust("ws/sub") + on, "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/": ""}, cwd: "sub", args: []string{"exec", "--trust"}, loads: true},
		{name: "exec --trust, a -c flag untrusting the workspace, the user's plugin", files: map[string]string{"home/config.toml": on}, args: []string{"exec", "-c", `projects={"ROOT/ws"={trust_level="untrusted"}}`, "--trust"}, loads: true},
		{name: "exec --trust, a -c flag untrusting the workspace, its file", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"exec", "-c", `projects={"ROOT/ws"={trust_level="untrusted"}}`, "--trust"}},
		{name: "exec --trust, a -c flag trusting the workspace below a git top with no entry, the top's file", files: map[string]string{"ws/.git/HEAD": "ref: refs/heads/main\n", "ws/.codex/config.toml": on, "ws/sub/": ""}, cwd: "sub", args: []string{"exec", "-c", `projects={"ROOT/ws/sub"={trust_level="trusted"}}`, "--trust"}, loads: true},
		{name: "exec --trust, a -c flag trusting a workspace marked untrusted: Codex does not start", files: map[string]string{"home/config.toml": untrust("ws"), "ws/.codex/config.toml": on}, args: []string{"exec", "-c", `projects={"ROOT/ws"={trust_level="trusted"}}`, "--trust"}},
		{name: "exec --trust beside --ignore-user-config: Codex does not start", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"exec", "--ignore-user-config", "--trust"}},
		{name: "exec --ignore-user-config, the user's plugin", files: map[string]string{"home/config.toml": on}, args: []string{"exec", "--ignore-user-config"}},
		{name: "exec --ignore-user-config, the profile's plugin", files: map[string]string{"home/p.config.toml": on}, args: []string{"exec", "--ignore-user-config", "-p", "p"}},
		{name: "exec --ignore-user-config, a project the user's entry trusts", files: map[string]string{"home/config.toml": trust("ws"), "ws/.codex/config.toml": on}, args: []string{"exec", "--ignore-user-config"}},
		{name: "exec --ignore-user-config, a project a -c flag trusts", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"exec", "--ignore-user-config", "-c", `projects={"ROOT/ws"={trust_level="trusted"}}`}, loads: true},
		{name: "exec --ignore-user-config, a project the system's entry trusts", files: map[string]string{"etc/config.toml": trust("ws"), "ws/.codex/config.toml": on}, args: []string{"exec", "--ignore-user-config"}, loads: true},
		{name: "exec --ignore-user-config, the user's markers", files: map[string]string{"etc/config.toml": trust("ws"), "home/config.toml": markers, "ws/mark": "", "ws/sub/.codex/config.toml": on}, cwd: "sub", args: []string{"exec", "--ignore-user-config"}},
		{name: "exec --ignore-user-config, the system's plugin the user's file disables", files: map[string]string{"etc/config.toml": on, "home/config.toml": `[plugins."a@m"]` + "\nenabled = false\n"}, args: []string{"exec", "--ignore-user-config"}, loads: true},
		{name: "exec --ignore-user-config, a -c flag's plugin", files: map[string]string{}, args: []string{"exec", "--ignore-user-config", "-c", "plugins.a@m.enabled=true"}, loads: true},
		{name: "exec --ignore-user-config, the user's file not valid TOML", files: map[string]string{"home/config.toml": "= nope"}, args: []string{"e", "--ignore-user-config"}},
		{name: "exec review --ignore-user-config, the user's plugin", files: map[string]string{"home/config.toml": on}, args: []string{"exec", "review", "--ignore-user-config"}},
		{name: "--ignore-user-config without exec: Codex does not start, and the user's plugin is named", files: map[string]string{"home/config.toml": on}, args: []string{"--ignore-user-config", "exec"}, loads: true},
		{name: "review --ignore-user-config: Codex does not start, and the user's plugin is named", files: map[string]string{"home/config.toml": on}, args: []string{"review", "--ignore-user-config"}, loads: true},
		{name: "exec resume --trust, a folder with no entry", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"exec", "resume", "--last", "--trust"}, loads: true},
		{name: "a workspace marked untrusted, the user's plugin", files: map[string]string{"home/config.toml": untrust("ws") + on}, args: []string{"exec"}, loads: true},
		{name: "review --trust, a folder with no entry", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"review", "--trust"}, loads: true},
		{name: "exec review --trust, a folder with no entry", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"exec", "review", "--trust"}, loads: true},
		{name: "exec --trust, its alias e", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"-c", "x=1", "e", "--trust"}, loads: true},
		{name: "exec --trust after --, the prompt's", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"exec", "--", "--trust"}},
		{name: "exec --trust as -m's value", files: map[string]string{"ws/.codex/config.toml": on}, args: []string{"exec", "-m", "--trust"}},
		{name: "trusted working directory below an untrusted git top, its file", files: map[string]string{"home/config.toml": untrust("ws") + trust("ws/sub"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/.codex/config.toml": on}, cwd: "sub", loads: true},
		{name: "trusted working directory below an untrusted git top, the top's file", files: map[string]string{"home/config.toml": untrust("ws") + trust("ws/sub"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/.codex/config.toml": on, "ws/sub/": ""}, cwd: "sub"},
		{name: "trusted working directory below a git top with no entry, the top's file", files: map[string]string{"home/config.toml": trust("ws/sub"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/.codex/config.toml": on, "ws/sub/": ""}, cwd: "sub"},
		{name: "untrusted working directory below a trusted marker root, the root's file", files: map[string]string{"home/config.toml": markers + trust("ws") + untrust("ws/sub"), "ws/mark": "", "ws/.codex/config.toml": on, "ws/sub/": ""}, cwd: "sub", loads: true},
		{name: "absolute marker that exists roots every directory", files: map[string]string{"home/config.toml": `project_root_markers = ["ROOT/abs", "mark"]` + "\n" + trust("ws"), "abs": "", "ws/mark": "", "ws/sub/.codex/config.toml": on}, cwd: "sub"},
		{name: "absolute marker that does not exist", files: map[string]string{"home/config.toml": `project_root_markers = ["ROOT/gone", "mark"]` + "\n" + trust("ws"), "ws/mark": "", "ws/sub/.codex/config.toml": on}, cwd: "sub", loads: true},
		{name: "marker naming a directory", files: map[string]string{"home/config.toml": `project_root_markers = ["markdir"]` + "\n" + trust("ws"), "ws/markdir/": "", "ws/sub/.codex/config.toml": on}, cwd: "sub", loads: true},
		{name: "marker with a trailing slash naming a file", files: map[string]string{"home/config.toml": `project_root_markers = ["mark/"]` + "\n" + trust("ws"), "ws/mark": "", "ws/sub/.codex/config.toml": on}, cwd: "sub", loads: true},
		{name: "marker through a missing directory's ..", files: map[string]string{"home/config.toml": `project_root_markers = ["gone/../mark"]` + "\n" + trust("ws"), "ws/mark": "", "ws/sub/.codex/config.toml": on}, cwd: "sub", loads: true},
		{name: "marker going up with ..", files: map[string]string{"home/config.toml": `project_root_markers = ["../mark"]` + "\n" + trust("ws"), "ws/mark": "", "ws/sub/.codex/config.toml": on}, cwd: "sub"},
		{name: "marker ./.git, an empty .git below a trusted repository, the top's file", files: map[string]string{"home/config.toml": `project_root_markers = ["./.git"]` + "\n" + trust("ws"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/.git/": "", "ws/.codex/config.toml": on}, cwd: "sub"},
		{name: "marker .git/, an empty .git below a trusted repository, the top's file", files: map[string]string{"home/config.toml": `project_root_markers = [".git/"]` + "\n" + trust("ws"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/.git/": "", "ws/.codex/config.toml": on}, cwd: "sub"},
		{name: "HEAD a link loop below a trusted repository, the top's file", files: map[string]string{"home/config.toml": trust("ws"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/.git/": "", "ws/.codex/config.toml": on}, layout: "HEAD loop", cwd: "sub", loads: true},
		{name: "marker a link loop", files: map[string]string{"home/config.toml": markers + trust("ws"), "ws/sub/.codex/config.toml": on}, layout: "mark loop", cwd: "sub"},
		{name: ".git a link loop at a trusted top", files: map[string]string{"home/config.toml": trust("ws"), "ws/sub/.codex/config.toml": on}, layout: ".git loop", cwd: "sub"},
		{name: ".codex a link loop", files: map[string]string{"home/config.toml": trust("ws/sub"), "ws/sub/": ""}, layout: ".codex loop", cwd: "sub"},
		{name: "system markers", files: map[string]string{"etc/config.toml": markers, "home/config.toml": trust("ws"), "ws/mark": "", "ws/sub/.codex/config.toml": on}, cwd: "sub", loads: true},
		{name: "system markers, the user's empty list", files: map[string]string{"etc/config.toml": markers, "home/config.toml": "project_root_markers = []\n" + trust("ws"), "ws/mark": "", "ws/sub/.codex/config.toml": on}, cwd: "sub"},
		{name: "system projects entry", files: map[string]string{"etc/config.toml": trust("ws"), "ws/.codex/config.toml": on}, loads: true},
		{name: "user's markers, the profile's other list", files: map[string]string{"home/config.toml": markers + trust("ws"), "home/p.config.toml": `project_root_markers = ["other"]` + "\n", "ws/mark": "", "ws/sub/.codex/config.toml": on}, cwd: "sub", args: []string{"-p", "p"}},
		{name: "profile's projects entry", files: map[string]string{"home/p.config.toml": trust("ws"), "ws/.codex/config.toml": on}, args: []string{"-p", "p"}, loads: true},
		{name: "key with a trailing slash", files: map[string]string{"home/config.toml": trust("ws/"), "ws/.codex/config.toml": on}},
		{name: "key in NFD, directory in NFC", files: map[string]string{"home/config.toml": trust("ws/cafe\u0301"), "ws/caf\u00e9/.codex/config.toml": on}, cwd: "caf\u00e9"},
		{name: "key in NFC, directory in NFD", files: map[string]string{"home/config.toml": trust("ws/caf\u00e9"), "ws/cafe\u0301/.codex/config.toml": on}, cwd: "cafe\u0301"},
		{name: "key with ~", files: map[string]string{"home/config.toml": `[projects."~/ws"]` + "\ntrust_level = \"trusted\"\n", "ws/.codex/config.toml": on}},
		{name: "key relative: .", files: map[string]string{"home/config.toml": `[projects."."]` + "\ntrust_level = \"trusted\"\n", "ws/.codex/config.toml": on}},
		{name: "key relative: the directory's name", files: map[string]string{"home/config.toml": `[projects."ws"]` + "\ntrust_level = \"trusted\"\n", "ws/.codex/config.toml": on}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := ownFixture(t, with(c.files, installed("a@m")))
			projectLayout(t, root, c.layout)
			if strings.HasPrefix(c.layout, "worktree") {
				writeAt(t, filepath.Join(root, "ws", "wt", ".codex", "config.toml"), on)
			}
			args := slices.Clone(c.args)
			for i := range args {
				args[i] = strings.ReplaceAll(args[i], "ROOT", root)
			}
			cwd := filepath.Join(root, "ws", c.cwd)
			if c.from != "" {
				cwd = filepath.Join(root, c.from)
			}
			got := FindOwnPlugins(filepath.Join(root, "home"), cwd, args)
			if loads := slices.Contains(ids(got.Load), "a@m"); loads != c.loads {
				t.Errorf("a@m loads: %v, want %v (Codex 0.171)", loads, c.loads)
			}
			if want := strings.ReplaceAll(c.unread, "ROOT", root); (len(got.Unread) > 0 || want != "") && (len(got.Unread) != 1 || !strings.Contains(got.Unread[0], want) || want == "") {
				t.Errorf("unread: %q, want %q", got.Unread, want)
			}
		})
	}
}

// TestSetupHooksOffProjectRoot: where Codex 0.171 does not read a
// project file that turns hooks back on over the user's false (internal/
// agenttest TestSetupCodexProjectRoot), setup refuses, naming the user's
// file; where it does read one, setup goes on. Setup once took a trusted
// git top's file under project_root_markers = [], a file below a
// dangling .git link, and an untrusted directory's file below a trusted
// top for read, and wrote lines no session runs.
func TestSetupHooksOffProjectRoot(t *testing.T) {
	const off, on = "[features]\nhooks = false\n", "[features]\nhooks = true\n"
	trust := func(dir string) string { return `[projects."ROOT/` + dir + `"]` + "\ntrust_level = \"trusted\"\n" }
	for _, c := range []struct {
		name    string
		files   map[string]string
		layout  string
		cwd     string // under ws/
		refused bool
		by      string // the file refused, under ROOT; home/config.toml when ""
	}{
		{name: "markers empty, the trusted git top's true", files: map[string]string{"home/config.toml": "project_root_markers = []\n" + trust("ws") + off, "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/.codex/config.toml": on, "ws/sub/": ""}, cwd: "sub", refused: true},
		{name: "dangling .git link, the trusted top's true", files: map[string]string{"home/config.toml": trust("ws") + off, "ws/.codex/config.toml": on, "ws/sub/": ""}, layout: "->", cwd: "sub", refused: true},
		{name: "untrusted directory's true below a trusted git top", files: map[string]string{"home/config.toml": trust("ws") + `[projects."ROOT/ws/sub"]` + "\ntrust_level = \"untrusted\"\n" + off, "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/sub/.codex/config.toml": on}, cwd: "sub", refused: true},
		{name: "empty .git directory below a trusted repository, the top's false", files: map[string]string{"home/config.toml": trust("ws"), "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/.codex/config.toml": off, "ws/sub/.git/": ""}, cwd: "sub", refused: true, by: "ws/.codex/config.toml"},
		{name: "marker at the trusted top, its true", files: map[string]string{"home/config.toml": "project_root_markers = [\"mark\"]\n" + trust("ws") + off, "ws/mark": "", "ws/.codex/config.toml": on, "ws/sub/": ""}, cwd: "sub"},
		{name: "worktree of a trusted repository, its true", files: map[string]string{"home/config.toml": trust("ws/main") + off}, layout: "worktree", cwd: "wt"},
		{name: "worktree of a trusted repository named through a link to its admin directory, its true", files: map[string]string{"home/config.toml": trust("ws/main") + off}, layout: "worktree: admin through a link", cwd: "wt", refused: true},
		{name: "worktree of a trusted repository, its .git a link to its file, its true", files: map[string]string{"home/config.toml": trust("ws/main") + off}, layout: "worktree: linked .git", cwd: "wt", refused: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := ownFixture(t, with(c.files, map[string]string{"home/": ""}))
			projectLayout(t, root, c.layout)
			if strings.HasPrefix(c.layout, "worktree") {
				writeAt(t, filepath.Join(root, "ws", "wt", ".codex", "config.toml"), on)
			}
			ws := filepath.Join(root, "ws", c.cwd)
			err := Host{}.SetupHooksOff(hosts.SetupInput{Environ: []string{"CODEX_HOME=" + filepath.Join(root, "home")}, Reentry: hosts.Reentry{Workspace: ws}})
			var e *hosts.HooksOffError
			by := cmp.Or(c.by, "home/config.toml")
			switch {
			case !c.refused && err != nil:
				t.Errorf("%v, want nil", err)
			case c.refused && (!errors.As(err, &e) || e.File != filepath.Join(root, by)):
				t.Errorf("%v, want features.hooks = false in %s", err, by)
			}
		})
	}
}

// TestProjectFileNotRegular: a project's .codex/config.toml that is a
// named pipe, or a link to a device that never ends, is a file bundlectl
// cannot read (FindOwnPlugins names it unread; setup takes it as setting
// nothing), not one it reads: bundlectl once opened it as any file, and
// setup, list and exec waited on the pipe forever, or read the device
// until memory ran out.
func TestProjectFileNotRegular(t *testing.T) {
	trust := `[projects."ROOT/ws"]` + "\ntrust_level = \"trusted\"\n"
	for _, c := range []struct {
		name string
		make func(path string) error
	}{
		{name: "named pipe", make: func(path string) error { return syscall.Mkfifo(path, 0o644) }},
		{name: "link to /dev/zero", make: func(path string) error { return os.Symlink("/dev/zero", path) }},
		{name: "link loop", make: func(path string) error { return os.Symlink("config.toml", path) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := ownFixture(t, with(map[string]string{"home/config.toml": trust, "ws/.git/HEAD": "ref: refs/heads/main\n", "ws/.codex/": ""}, installed("a@m")))
			file := filepath.Join(root, "ws", ".codex", "config.toml")
			if err := c.make(file); err != nil {
				t.Skip(err)
			}
			got := FindOwnPlugins(filepath.Join(root, "home"), filepath.Join(root, "ws"), nil)
			if len(got.Unread) != 1 || !strings.Contains(got.Unread[0], "config.toml") {
				t.Errorf("unread: %q, want the project's file", got.Unread)
			}
			err := Host{}.SetupHooksOff(hosts.SetupInput{Environ: []string{"CODEX_HOME=" + filepath.Join(root, "home")}, Reentry: hosts.Reentry{Workspace: filepath.Join(root, "ws")}})
			if err != nil {
				t.Errorf("setup: %v, want nil (the file sets nothing)", err)
			}
		})
	}
}
