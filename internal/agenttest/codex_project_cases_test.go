package agenttest

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCodexProjectCases records more of how Codex 0.171 decides which
// project .codex/config.toml files a session reads (hosts/codex
// configLayers, docs/codex.md "Project files"; TestCodexProjectRoot has
// the rest), each case seen by whether a plugin of the user's own that
// one project file enables loads, or whether Codex starts at all:
//
//   - each file is decided by its own directory's entry first: a trusted
//     working directory below an untrusted or unlisted git top has its
//     file read and the top's not; an untrusted one below a trusted
//     marker root has the root's read and its own not;
//   - a marker is a path joined to each directory and cleaned ("d/../m"
//     counts m whether d exists or not, "m/" counts a file m, "../m"
//     counts for the directory below m's); an absolute one that exists
//     counts everywhere (the working directory is the root); "./.git"
//     and ".git/" are plain names (an empty .git counts); a marker, a
//     .git or a HEAD that is a link loop counts as absent, and so does a
//     .codex;
//   - project_root_markers of the system's file, yours, the profile's:
//     the last list replaces the others ([] included); a projects
//     table trusts from any of them;
//   - keys are compared byte for byte: a trailing slash, "/./", "//",
//     "..", "~", a relative key, a link's spelling, NFC against NFD
//     all trust nothing;
//   - -C is looked up as the system resolves it, and Codex does not start
//     when that fails (a link loop or a missing directory before a ".."),
//     but is then used cleaned ("<link>/../work" is work beside the
//     link, even where only the link's target has a work: Codex starts
//     in that missing directory, reads none of the target's files and
//     walks up from it to a trusted git top, whose file it reads); a -C
//     naming a file starts; a trusted project's config.toml that is a
//     link loop stops Codex;
//   - a session's -c projects table trusts as config.toml does, merged
//     over it entry by entry (an untrusted top given with -c leaves a
//     working directory config.toml trusts trusted; a trusted one given
//     with -c outranks config.toml's untrusted), for a folder below the
//     workspace or a git top above it; one for a folder above that is no
//     git top covers nothing; a dotted -c key splits on every dot, so an
//     unquoted path with no dot in it names that directory (a quoted one
//     keeps its quotes: TestCodexProjectRoot);
//   - nested roots: a marker root inside a git top inside another is
//     trusted by its own entry, else the inner top's (the outer top's
//     covers nothing, and the inner top's file is above the root, so
//     never read); a submodule's .git file (naming the superproject's
//     .git/modules) roots the submodule, so a trusted superproject
//     covers neither its file nor the superproject's own.
func TestCodexProjectCases(t *testing.T) {
	t.Parallel()
	const on = "[plugins.\"" + ownPluginID + "\"]\nenabled = true\n"
	trust := func(key string) string { return "[projects.\"" + key + "\"]\ntrust_level = \"trusted\"\n" }
	untrust := func(key string) string { return "[projects.\"" + key + "\"]\ntrust_level = \"untrusted\"\n" }
	markers := func(m ...string) string {
		return "project_root_markers = [\"" + strings.Join(m, "\", \"") + "\"]\n"
	}
	for _, c := range []struct {
		name    string
		etc     string // /etc/codex/config.toml
		user    string // WORK, TOP, HOME and ABS stand for the working directory, its parent, HOME and an existing file elsewhere
		profile string // $CODEX_HOME/p.config.toml, selected with --profile p
		args    []string
		make    map[string]string // paths under TOP: "x/" a directory, "x -> y" a symbolic link to y, else a file with this content
		git     bool              // TOP is a git work tree's top
		file    string            // the directory, under TOP, whose .codex/config.toml enables the plugin; "work" when ""
		fails   bool              // Codex does not start
		loads   bool
	}{
		{name: "trusted working directory below an untrusted git top, its file", user: untrust("TOP") + trust("WORK"), git: true, loads: true},
		{name: "trusted working directory below an untrusted git top, the top's file", user: untrust("TOP") + trust("WORK"), git: true, file: "."},
		{name: "trusted working directory below a git top with no entry, the top's file", user: trust("WORK"), git: true, file: "."},
		{name: "untrusted working directory below a trusted marker root, the root's file", user: markers("mark") + trust("TOP") + untrust("WORK"), make: map[string]string{"mark": ""}, file: ".", loads: true},
		{name: "absolute marker that exists", user: markers("ABS", "mark") + trust("TOP"), make: map[string]string{"mark": ""}},
		{name: "absolute marker that does not exist", user: markers("/nonexistent-agenttest-marker", "mark") + trust("TOP"), make: map[string]string{"mark": ""}, loads: true},
		{name: "marker naming a directory", user: markers("markdir") + trust("TOP"), make: map[string]string{"markdir/": ""}, loads: true},
		{name: "marker with a trailing slash naming a file", user: markers("mark/") + trust("TOP"), make: map[string]string{"mark": ""}, loads: true},
		{name: "marker through a missing directory's ..", user: markers("gone/../mark") + trust("TOP"), make: map[string]string{"mark": ""}, loads: true},
		{name: "marker through an existing directory's ..", user: markers("d/../mark") + trust("TOP"), make: map[string]string{"mark": "", "d/": ""}, loads: true},
		{name: "marker going up with ..", user: markers("../mark") + trust("TOP"), make: map[string]string{"mark": ""}},
		{name: "marker a link loop", user: markers("mark") + trust("TOP"), make: map[string]string{"mark -> mark": ""}},
		{name: ".git a link loop at a trusted top", user: trust("TOP"), make: map[string]string{".git -> .git": ""}},
		{name: ".codex a link loop", user: trust("WORK"), make: map[string]string{"work/.codex -> .codex": ""}, file: "elsewhere"},
		{name: "system markers", etc: markers("mark"), user: trust("TOP"), make: map[string]string{"mark": ""}, loads: true},
		{name: "system markers, the user's empty list", etc: markers("mark"), user: "project_root_markers = []\n" + trust("TOP"), make: map[string]string{"mark": ""}},
		{name: "system projects entry", etc: trust("WORK"), loads: true},
		{name: "user's markers, the profile's other list", user: markers("mark") + trust("TOP"), profile: markers("other"), args: []string{"--profile", "p"}, make: map[string]string{"mark": ""}},
		{name: "profile's projects entry", profile: trust("WORK"), args: []string{"--profile", "p"}, loads: true},
		{name: "key with a trailing slash", user: trust("WORK/")},
		{name: "key in NFD, directory in NFC", user: trust("TOP/cafe\u0301"), make: map[string]string{"caf\u00e9/": ""}, args: []string{"-C", "TOP/caf\u00e9"}, file: "caf\u00e9"},
		{name: "key in NFC, directory in NFD", user: trust("TOP/caf\u00e9"), make: map[string]string{"cafe\u0301/": ""}, args: []string{"-C", "TOP/cafe\u0301"}, file: "cafe\u0301"},
		{name: "key with ~", user: trust("~/proj"), args: []string{"-C", "HOME/proj"}, file: "home/proj"},
		{name: "key relative: .", user: trust(".")},
		{name: "key relative: the directory's name", user: trust("work")},
		{name: "key a link to the working directory", user: trust("TOP/wlink"), make: map[string]string{"wlink -> work": ""}},
		{name: "key with a doubled slash", user: trust("TOP//work")},
		{name: "key with /./", user: trust("TOP/./work")},
		{name: "key ending in /.", user: trust("TOP/work/.")},
		{name: "key ending in /./", user: trust("TOP/work/./")},
		{name: "key starting with //", user: trust("/TOP")},
		{name: "key with /../", user: trust("TOP/gone/../work")},
		{name: "key with /./ and a trailing slash", user: trust("TOP/./work/")},
		{name: "marker ./.git, an empty .git below a trusted repository, the top's file", user: markers("./.git") + trust("TOP"), git: true, make: map[string]string{"work/.git/": ""}, file: "."},
		{name: "marker .git/, an empty .git below a trusted repository, the top's file", user: markers(".git/") + trust("TOP"), git: true, make: map[string]string{"work/.git/": ""}, file: "."},
		{name: "HEAD a link loop below a trusted repository, the top's file", user: trust("TOP"), git: true, make: map[string]string{"work/.git/": "", "work/.git/HEAD -> HEAD": ""}, file: ".", loads: true},
		{name: "-C through a missing directory's ..", user: trust("WORK"), args: []string{"-C", "TOP/gone/../work"}, fails: true},
		{name: "-C through a link's ..", user: trust("WORK") + trust("TOP/deep/work"), make: map[string]string{"deep/inner/": "", "deep/work/": "", "l -> deep/inner": ""}, args: []string{"-C", "TOP/l/../work"}, loads: true},
		{name: "-C a missing directory", user: trust("WORK"), args: []string{"-C", "TOP/gone"}, fails: true},
		{name: "project file a link loop", user: trust("WORK"), make: map[string]string{"work/.codex/": "", "work/.codex/config.toml -> config.toml": ""}, file: "elsewhere", fails: true},
		{name: "-C relative, through a link loop's ..", user: trust("WORK"), make: map[string]string{"work/loop -> loop": "", "work/sub/": ""}, args: []string{"-C", "loop/../sub"}, fails: true},
		{name: "-C a file below a trusted marker root, the root's file", user: markers("mark") + trust("TOP"), make: map[string]string{"mark": "", "f": ""}, args: []string{"-C", "TOP/f"}, file: ".", loads: true},
		{name: "-C through a link loop's ..", user: trust("WORK"), make: map[string]string{"loop -> loop": ""}, args: []string{"-C", "TOP/loop/../work"}, fails: true},
		{name: "-c table trusting a folder below the workspace", make: map[string]string{"work/sub/": ""}, args: []string{"-C", "WORK/sub", "-c", `projects={"WORK/sub"={trust_level="trusted"}}`}, file: "work/sub", loads: true},
		{name: "-c table trusting the folder above, no git", args: []string{"-c", `projects={"TOP"={trust_level="trusted"}}`}},
		{name: "-c table trusting the git top above", git: true, args: []string{"-c", `projects={"TOP"={trust_level="trusted"}}`}, loads: true},
		{name: "-c table untrusting the git top, the working directory trusted in config", user: trust("WORK"), git: true, args: []string{"-c", `projects={"TOP"={trust_level="untrusted"}}`}, loads: true},
		{name: "-c table trusting the working directory, config untrusts it", user: untrust("WORK"), args: []string{"-c", `projects={"WORK"={trust_level="trusted"}}`}, loads: true},
		{name: "-c dotted key unquoted, a folder below the workspace", make: map[string]string{"work/sub/": ""}, args: []string{"-C", "WORK/sub", "-c", `projects.WORK/sub.trust_level="trusted"`}, file: "work/sub", loads: true},
		{name: "-c dotted key unquoted, the git top above", git: true, args: []string{"-c", `projects.TOP.trust_level="trusted"`}, loads: true},
		{name: "-C through a link's .. to a directory only the link's target has", user: trust("TOP/deep/only") + trust("TOP/only"), make: map[string]string{"deep/inner/": "", "deep/only/": "", "l -> deep/inner": ""}, args: []string{"-C", "TOP/l/../only"}, file: "deep/only"},
		{name: "-C through a link's .. to a directory only the link's target has, below a trusted git top, the top's file", user: trust("TOP"), git: true, make: map[string]string{"deep/inner/": "", "deep/only/": "", "l -> deep/inner": ""}, args: []string{"-C", "TOP/l/../only"}, file: ".", loads: true},
		{name: "marker root inside a git top inside another, the inner top trusted", user: markers(".git", "mark") + trust("WORK"), git: true, make: map[string]string{"work/.git/HEAD": "ref: refs/heads/main\n", "work/sub/mark": "", "work/sub/d/": ""}, args: []string{"-C", "WORK/sub/d"}, file: "work/sub/d", loads: true},
		{name: "marker root inside a git top inside another, the outer top trusted", user: markers(".git", "mark") + trust("TOP"), git: true, make: map[string]string{"work/.git/HEAD": "ref: refs/heads/main\n", "work/sub/mark": "", "work/sub/d/": ""}, args: []string{"-C", "WORK/sub/d"}, file: "work/sub/d"},
		{name: "marker root inside a git top inside another, the root trusted, the inner top untrusted", user: markers(".git", "mark") + trust("WORK/sub") + untrust("WORK"), git: true, make: map[string]string{"work/.git/HEAD": "ref: refs/heads/main\n", "work/sub/mark": "", "work/sub/d/": ""}, args: []string{"-C", "WORK/sub/d"}, file: "work/sub/d", loads: true},
		{name: "marker root inside a git top inside another, the root untrusted, the inner top trusted", user: markers(".git", "mark") + untrust("WORK/sub") + trust("WORK"), git: true, make: map[string]string{"work/.git/HEAD": "ref: refs/heads/main\n", "work/sub/mark": "", "work/sub/d/": ""}, args: []string{"-C", "WORK/sub/d"}, file: "work/sub/d"},
		{name: "marker root inside a git top inside another, the inner top trusted, its file", user: markers(".git", "mark") + trust("WORK"), git: true, make: map[string]string{"work/.git/HEAD": "ref: refs/heads/main\n", "work/sub/mark": "", "work/sub/d/": ""}, args: []string{"-C", "WORK/sub/d"}, file: "work"},
		{name: "submodule's .git file, the superproject trusted", user: trust("TOP"), git: true, make: map[string]string{"work/.git": "gitdir: ../.git/modules/work\n"}},
		{name: "submodule's .git file, the superproject trusted, its file", user: trust("TOP"), git: true, make: map[string]string{"work/.git": "gitdir: ../.git/modules/work\n"}, file: "."},
		{name: "marker with a NUL", user: "project_root_markers = [\"a\\u0000b\", \"mark\"]\n" + trust("TOP"), make: map[string]string{"mark": ""}, loads: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := New(t, Codex, Say("done"))
			installOwnPlugin(t, a, ownMarketplace, ownPlugin, "")
			top := filepath.Dir(a.Workdir)
			abs := filepath.Join(t.TempDir(), "abs-marker")
			writeFile(t, filepath.Dir(abs), filepath.Base(abs), "", 0o644)
			names := strings.NewReplacer("WORK", a.Workdir, "TOP", top, "HOME", a.Home, "ABS", abs)
			a.CodexConfig = names.Replace(c.user)
			if c.profile != "" {
				writeFile(t, a.ConfigDir(), "p.config.toml", names.Replace(c.profile), 0o644)
			}
			if c.etc != "" {
				a.Launcher = overlayEtc(t, map[string]string{"config.toml": names.Replace(c.etc)})
			}
			if c.git {
				gitRun(t, "init", "-q", top)
			}
			// Directories and files first, then links, each in name order:
			// a link may go into a directory the same case makes (a map's
			// order is random, and a link made first failed).
			paths := slices.Collect(maps.Keys(c.make))
			isLink := func(p string) int {
				if strings.Contains(p, " -> ") {
					return 1
				}
				return 0
			}
			slices.SortFunc(paths, func(a, b string) int {
				return cmp.Or(cmp.Compare(isLink(a), isLink(b)), strings.Compare(a, b))
			})
			for _, path := range paths {
				content := c.make[path]
				switch from, to, isLink := strings.Cut(path, " -> "); {
				case isLink:
					if err := os.Symlink(to, filepath.Join(top, from)); err != nil {
						t.Fatal(err)
					}
				case strings.HasSuffix(path, "/"):
					if err := os.MkdirAll(filepath.Join(top, path), 0o755); err != nil {
						t.Fatal(err)
					}
				default:
					writeFile(t, top, path, content, 0o644)
				}
			}
			writeFile(t, filepath.Join(top, cmp.Or(c.file, "work")), ".codex/config.toml", on, 0o644)
			a.Args = []string{"-c", "features.plugins=true"}
			for _, arg := range c.args {
				a.Args = append(a.Args, names.Replace(arg))
			}
			res := a.Run(t, "hi")
			if (res.Exit != 0) != c.fails {
				t.Fatalf("codex exit %d, want failure %v\n%s", res.Exit, c.fails, res)
			}
			if c.fails {
				return
			}
			if got := ownLoaded(a, ownPlugin); got != c.loads {
				t.Errorf("own plugin loaded: %v, want %v (found by trying Codex 0.171)\n%s", got, c.loads, res)
			}
		})
	}
}

// TestExecCodexCdLinkLoop: Codex 0.171 does not start with -C naming a
// directory through a symbolic link loop, even one a ".." then leaves
// (TestCodexProjectCases), so bundlectl exec says it cannot tell the
// plugins of the user's own that project files enable there, rather
// than name the one the directory the path cleans to enables, and names
// none config.toml enables either. It once cleaned the path and named
// it as loading, and then still named the one config.toml enables.
func TestExecCodexCdLinkLoop(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), markerName)
	turns, _, _, _ := execScript(Codex, marker)
	a := New(t, Codex, turns...)
	top := filepath.Dir(a.Workdir)
	f := newTrustedFixture(t, a, marker)
	allowExecTools(a)
	a.Launcher = f.launcher(t)
	installOwnPlugin(t, a, ownMarketplace, ownPlugin, "")
	if err := os.Symlink("loop", filepath.Join(top, "loop")); err != nil {
		t.Fatal(err)
	}
	// config.toml enables the plugin too: no session reads it either.
	a.CodexConfig = fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n\n[plugins.%q]\nenabled = true\n\n", a.Workdir, ownPluginID) + a.CodexConfig
	writeFile(t, a.Workdir, ".codex/config.toml", fmt.Sprintf("[plugins.%q]\nenabled = true\n", ownPluginID), 0o644)
	cd := filepath.Join(top, "loop") + "/../" + filepath.Base(a.Workdir)
	a.Args = append(a.Args, "-C", cd)
	res := a.Run(t, execPrompt(Codex))
	if res.Exit == 0 || !strings.Contains(res.Stderr, "Symbolic link loop") {
		t.Fatalf("Codex started: this test's premise (Codex 0.171) no longer holds\n%s", res)
	}
	if named := fmt.Sprintf("your own plugin %q loads", ownPluginID); strings.Contains(res.Stderr, named) {
		t.Errorf("stderr names a plugin of a session that does not start: %q\n%s", named, res)
	}
	if want := fmt.Sprintf("bundlectl: codex: cannot read %q (the -C directory: too many levels of symbolic links; Codex does not start there)", cd); !strings.Contains(res.Stderr, want) {
		t.Errorf("stderr lacks %q\n%s", want, res)
	}
}

// TestExecCodexOwnPluginUntrustedWorkspace: in a working directory the
// user marked trust_level = "untrusted", Codex 0.171 (through bundlectl
// exec) does not load a plugin of the user's own that the directory's
// .codex/config.toml enables, but does load one that the file of a
// trusted marker root above it enables, or that config.toml enables;
// bundlectl exec names exactly those that load.
func TestExecCodexOwnPluginUntrustedWorkspace(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		user  string // more of config.toml; TOP stands for the working directory's parent
		file  string // the directory, under TOP, whose .codex/config.toml enables the plugin; "" for none
		loads bool
	}{
		{name: "its own file", file: "work"},
		{name: "a trusted marker root's file", user: "project_root_markers = [\"" + rootMarker + "\"]\n[projects.\"TOP\"]\ntrust_level = \"trusted\"\n", file: ".", loads: true},
		{name: "config.toml", user: "[plugins.\"" + ownPluginID + "\"]\nenabled = true\n", loads: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), markerName)
			turns, _, _, shellTurn := execScript(Codex, marker)
			a := New(t, Codex, turns...)
			top := filepath.Dir(a.Workdir)
			writeFile(t, top, rootMarker, "", 0o644)
			f := newTrustedFixture(t, a, marker)
			allowExecTools(a)
			a.Launcher = f.launcher(t)
			installOwnPlugin(t, a, ownMarketplace, ownPlugin, "")
			a.CodexConfig = strings.ReplaceAll(c.user, "TOP", top) + fmt.Sprintf("\n[projects.%q]\ntrust_level = \"untrusted\"\n\n", a.Workdir) + a.CodexConfig
			if c.file != "" {
				writeFile(t, filepath.Join(top, c.file), ".codex/config.toml", fmt.Sprintf("[plugins.%q]\nenabled = true\n", ownPluginID), 0o644)
			}
			res := a.Run(t, execPrompt(Codex))
			f.checkGuard(t, a, res, shellTurn)
			if got := ownLoaded(a, ownPlugin); got != c.loads {
				t.Fatalf("the own plugin loaded: %v, want %v: this test's premise (Codex 0.171) no longer holds\n%s", got, c.loads, res)
			}
			note := fmt.Sprintf("bundlectl: codex: your own plugin %q loads beside the views", ownPluginID)
			if named := strings.Contains(res.Stderr, note); named != c.loads {
				t.Errorf("stderr names the own plugin: %v, want %v\n%s", named, c.loads, res)
			}
		})
	}
}

// TestCodexTrustedWorkspaceNoAskForTop: Codex 0.171 started
// interactively, in a terminal, in a working directory its own
// [projects] entry trusts, below a git top whose entry says untrusted
// (or that has none), does not ask whether to trust the folder, and does
// not read the top's .codex/config.toml: its features.hooks = false
// leaves setup's lines running, and the guard blocks the marker command.
// No session started there reads that file until the user edits
// config.toml; where the top says untrusted, none started below it
// either, so bundlectl setup writes its lines and list calls them wired
// (hosts/codex projectTrust.decides). Where the top has no entry, Codex
// asks in a folder below the workspace and then reads it
// (TestCodexTrustedWorkspaceSubdirAsks): setup refuses, and list says
// the lines are off there.
func TestCodexTrustedWorkspaceNoAskForTop(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, top string
		verdict   verdict
	}{
		{name: "top untrusted", top: "untrusted", verdict: offVerdict(false, "", "")},
		{name: "top with no entry", verdict: offVerdict(true, "in a folder below the workspace", "")},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a, f := newHooksOffTopFixture(t, c.top)
			argv, env := interactiveCommand(t, a, "make the marker")
			dialogs := append([]string{"Trust this folder?", "Open restricted"}, interactiveDialogs...)
			out := runPty(t, a, argv, env, dialogs, func() bool { return len(sessionCalls(a, 1)) > 0 })
			checkInteractiveGuard(t, a, f, &Result{Stdout: out, Exit: -1, Requests: a.Model.Requests()})
			checkVerdict(t, a, f, nil, setupEnv(a), c.name, c.verdict)
		})
	}
}

// newHooksOffTopFixture is the workspace of TestCodexTrustedWorkspaceNoAskForTop
// and TestCodexTrustedWorkspaceSubdirAsks: a trusted bundle set up for
// Codex in a workspace below a git top whose .codex/config.toml sets
// features.hooks = false, the top's [projects] entry saying topLevel
// ("" for none), and a model that asks for the marker command, which
// setup's guard blocks where its lines run.
func newHooksOffTopFixture(t *testing.T, topLevel string) (*Agent, *execFixture) {
	t.Helper()
	marker := filepath.Join(t.TempDir(), markerName)
	a := New(t, Codex, ShellCall(Codex, "touch "+marker), Say("done"))
	top := filepath.Dir(a.Workdir)
	gitRun(t, "init", "-q", top)
	f := newTrustedFixture(t, a, marker)
	f.runSetup(t, a, "hello")
	allowExecTools(a)
	if topLevel != "" {
		a.CodexConfig += fmt.Sprintf("\n[projects.%q]\ntrust_level = %q\n", top, topLevel)
	}
	writeFile(t, top, ".codex/config.toml", "[features]\nhooks = false\n", 0o644)
	return a, f
}
