package codex

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/hosts"
)

// profileSuffix ends the name of a profile's file in $CODEX_HOME: Codex
// 0.171 reads <name>.config.toml over config.toml for a session started
// with --profile <name> (-p <name>). It refuses to start on the legacy
// forms (a top-level profile = "…", or a selected [profiles.<name>]
// table), and ignores a [profiles.<name>] table no session selects
// (internal/agenttest TestSetupCodexHooksLayers).
const profileSuffix = ".config.toml"

// configLayer is one configuration file a Codex session reads, for its
// [features] and [plugins] alike.
type configLayer struct {
	file string
	// untrusted: a project's file, which Codex reads only once the
	// project is trusted, and it is not now.
	untrusted bool
	// neverAsked: untrusted, in a working directory whose trust the
	// user's configuration already decides, either way, for it and every
	// folder below it (projectTrust.decides): Codex does not ask to
	// trust it, so no session started there reads the file.
	neverAsked bool
	// askedBelow: untrusted, not neverAsked, in a working directory whose
	// own entry decides for it alone: Codex asks in a folder below it.
	askedBelow bool
	// managed: /etc/codex/managed_config.toml, above the session's -c
	// flags (FindOwnPlugins adds it; configLayers does not).
	managed bool
	// ignored: the user's config.toml or the profile's file in a session
	// given --ignore-user-config, which reads neither (its projects
	// entries and project_root_markers neither).
	ignored bool
	// atHead: a project's file in a session given --worktree, which Codex
	// 0.171 runs in a new git worktree made from HEAD and reads that
	// worktree's file instead, as committed (internal/agenttest
	// TestExecCodexWorktree): this one is read for Known alone.
	atHead bool
	// head: the file as committed at HEAD (headLayers), read instead of
	// file, which names it; headBlob: its blob's name when a symbolic
	// link committed on the way led to it (gitHead).
	head     []byte
	headBlob string
}

// doc parses the layer: its file, or the text committed at HEAD.
func (l configLayer) doc() map[string]any {
	if l.head != nil {
		doc, err := parseTOML(l.head)
		if err != nil {
			return nil
		}
		return doc
	}
	doc, _ := readTOML(l.file)
	return doc
}

// configLayers are the files Codex 0.171 reads its configuration from for
// a session whose working directory is cwd as Codex spells it (startedIn
// for one started there; -C keeps the spelling given, symbolic links and
// all), selecting profile ("" for none), with the -c
// flags flags (flagsDoc; nil for none), each over the one before (found
// with the real CLI, internal/agenttest TestSetupCodexHooksLayers,
// TestCodexOwnPluginLayers, TestCodexProjectRoot):
//
//   - /etc/codex/config.toml;
//   - $CODEX_HOME/config.toml;
//   - $CODEX_HOME/<profile>.config.toml;
//   - .codex/config.toml of each directory from the project root down to
//     cwd, as spelled. The root is the nearest of them that holds one
//     of project_root_markers (default [".git"]), as the files above and
//     the -c flags set it, else cwd. Each file is read only when trusted
//     (projectTrust.trusts): by the projects entry of its own directory,
//     else of the root, else of the git trust root (gitTrustRoot: the git
//     work tree's top, or a linked worktree's main checkout), whichever
//     comes first; a trust given to a directory above a root covers
//     nothing in it. A .codex that is no directory, or is CODEX_HOME
//     itself, is skipped (projectDotCodex). A table's key names a
//     directory only as written, compared with the directory's real
//     path: "/w/" or "/x/../w" is no trust of /w to Codex
//     (TestSetupCodexConfigSpellings).
//
// (The session's -c flags, and managed_config.toml above them, come
// next.) With cwd "" there is no project file. o.trustFlag is `codex
// exec --trust` (or `codex review --trust`): the files are read under the
// entry it saves first (projectTrust.savedByTrustFlag).
// o.ignoreUserConfig is `codex exec --ignore-user-config`: the user's
// file and the profile's are ignored, for trust and markers too (Codex
// 0.171 reads the system's file, the project files trusted by it or by
// a -c flag, and the -c flags; internal/agenttest
// TestCodexIgnoreUserConfigLayers).
func configLayers(codexHome, cwd string, flags map[string]any, o sessionOpts) []configLayer {
	layers := []configLayer{{file: filepath.Join(testOnlySystemDir, "config.toml")}, {file: filepath.Join(codexHome, "config.toml"), ignored: o.ignoreUserConfig}}
	if o.profile != "" {
		layers = append(layers, configLayer{file: filepath.Join(codexHome, o.profile+profileSuffix), ignored: o.ignoreUserConfig})
	}
	if cwd == "" {
		return layers
	}
	files := layersTrust(layers, nil)
	trust := files.with(flags)
	root := projectRoot(cwd, trust.markers)
	gitRoot := gitTrustRoot(cwd)
	if o.trustFlag {
		trust = files.savedByTrustFlag(cwd, root, gitRoot).with(flags)
	}
	var dirs []string
	for d := cwd; ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if d == root || d == filepath.Dir(d) {
			break
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		dotCodex := filepath.Join(dirs[i], ".codex")
		if !projectDotCodex(dotCodex, codexHome) {
			continue
		}
		untrusted := !trust.trusts(dirs[i], root, gitRoot)
		neverAsked := untrusted && trust.decides(root, gitRoot)
		_, cwdDecides := trust.level(cwd, "", "")
		layers = append(layers, configLayer{file: filepath.Join(dotCodex, "config.toml"), untrusted: untrusted, neverAsked: neverAsked, askedBelow: untrusted && !neverAsked && cwdDecides, atHead: o.worktree})
	}
	return layers
}

// layersTrust is the projectTrust of the system's, the user's and the
// profile's files (layers, configLayers with no working directory; an
// ignored one left out) and the session's -c flags.
func layersTrust(layers []configLayer, flags map[string]any) projectTrust {
	var docs []map[string]any
	for _, l := range layers {
		if l.ignored {
			continue
		}
		doc, _ := readTOML(l.file)
		docs = append(docs, doc)
	}
	return readProjectTrust(append(docs, flags))
}

// trustFlagStops reports whether a session given --trust in cwd stops
// before it starts: Codex 0.171 does not override the entry of the
// configuration files (not the -c flags: one trusting the workspace does
// not lift the files' untrusted, nor does one untrusting it stop Codex)
// that decides for the working directory (projectTrust.level) where it
// marks the project untrusted ("is marked as untrusted. Update its trust
// setting first"; internal/agenttest TestExecCodexOwnPluginTrustFlag).
func trustFlagStops(codexHome, cwd string, flags map[string]any, o sessionOpts) bool {
	if cwd == "" {
		return false
	}
	files := layersTrust(configLayers(codexHome, "", nil, sessionOpts{profile: o.profile}), nil)
	level, decided := files.level(cwd, projectRoot(cwd, files.with(flags).markers), gitTrustRoot(cwd))
	return decided && level != "trusted"
}

// projectDotCodex reports whether Codex 0.171 reads dotCodex as a
// project's: a directory (or a link to one) that is not CODEX_HOME,
// spelled or resolved (a session started in the home directory reads
// ~/.codex/config.toml once, as the user's; internal/agenttest
// TestCodexProjectRoot).
func projectDotCodex(dotCodex, codexHome string) bool {
	fi, err := os.Stat(dotCodex)
	if err != nil || !fi.IsDir() {
		return false
	}
	return dotCodex != codexHome && realOrAsIs(dotCodex) != realOrAsIs(codexHome)
}

// hooksFeature returns the last of layers that sets features.hooks (to a
// boolean: Codex refuses to start on another value), the untrusted ones
// left out unless withUntrusted (the ignored ones always), and whether it
// sets it on; ok is false when none sets it (it is on by default). A file
// that cannot be read or parsed sets nothing: Codex does not start on it.
func hooksFeature(layers []configLayer, withUntrusted bool) (decides configLayer, on, ok bool) {
	for _, l := range layers {
		if l.ignored || l.untrusted && !withUntrusted {
			continue
		}
		doc := l.doc()
		features, _ := doc["features"].(map[string]any)
		if v, set := features["hooks"].(bool); set {
			decides, on, ok = l, v, true
		}
	}
	return decides, on, ok
}

// layersHooksOff returns the refusal of a session started in cwd with no
// profile whose layers turn the hooks feature off, or nil: the files it
// reads now, and those of the project it would read once the project is
// trusted (Codex asks when it starts in one it does not trust; whether
// the user will say yes cannot be known here, so such a file counts,
// as a Gemini CLI workspace's settings count in a folder it may not
// trust), unless the user's configuration already decides the working
// directory's trust, either way (projectTrust.decides): Codex does not
// ask there, and reads none of the files it does not trust now.
func layersHooksOff(codexHome, cwd string) error {
	layers := configLayers(codexHome, startedIn(cwd), nil, sessionOpts{})
	const setting = "features.hooks = false"
	off := func(file, fix string) error {
		return &hosts.HooksOffError{Host: "codex", File: file, Setting: setting, Fix: fix, Pattern: hosts.SettingIn(file, tomlKey(setting))}
	}
	l, on, ok := hooksFeature(layers, false)
	if ok && !on {
		fix := "remove it (or set it to true)"
		if u, uon, uok := hooksFeature(layers, true); uok && uon && u.untrusted {
			fix += fmt.Sprintf("; the project's %s sets it to true, but Codex reads that file only once the project is trusted, and it is not", bundle.Quote(u.file))
		}
		return off(l.file, fix)
	}
	if u, uon, uok := hooksFeature(layers, true); uok && !uon && u.untrusted && !u.neverAsked {
		if u.askedBelow {
			e := off(u.file, "Codex reads that file once the project is trusted (it asks when it starts in a folder below the workspace, which the workspace's own projects entry does not cover), and then runs no hook: remove it (or set it to true)").(*hosts.HooksOffError)
			e.When = "started in a folder below " + bundle.Quote(cwd) + " once Codex trusts the project"
			return e
		}
		e := off(u.file, "Codex reads that file once the project is trusted (it asks when it starts there), and then runs no hook: remove it (or set it to true)").(*hosts.HooksOffError)
		e.When = "started in " + bundle.Quote(cwd) + " once Codex trusts the project"
		return e
	}
	return nil
}

// headLayers are the layers of a `codex --worktree` session started in
// cwd (as Codex spells it): Codex 0.171 runs it in a new git worktree
// made from HEAD under $CODEX_HOME/worktrees/<id>/, and reads the
// .codex/config.toml files committed there, not the working copy's
// (internal/agenttest TestExecCodexWorktree, TestSetupCodexWorktree).
// They are the system's and the user's files, then each directory's
// .codex/config.toml from the project root down to cwd as committed at
// HEAD (gitHead), with head set. The worktree is trusted through the
// main checkout's [projects] entry; bundlectl takes every such file as
// read unless that entry marks the checkout untrusted, so that a
// mistaken reading names more, never less. Outside a git work tree, or
// with no commit at HEAD (headCommitted), there is no such session:
// session is then false.
func headLayers(codexHome, cwd string) (layers []configLayer, session bool) {
	layers = configLayers(codexHome, "", nil, sessionOpts{})
	gitRoot := gitTrustRoot(cwd)
	if gitRoot == "" || !headCommitted(cwd) {
		return layers, false
	}
	trust := layersTrust(layers, nil)
	if level, decided := trust.level(gitRoot, "", ""); decided && level != "trusted" {
		return layers, true
	}
	root := projectRoot(cwd, trust.markers)
	var dirs []string
	for d := cwd; ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if d == root || d == gitRoot || d == filepath.Dir(d) {
			break
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		data, linked, link, ok := gitHead(dirs[i])
		switch {
		case ok && link != "":
			layers = append(layers, configLayer{file: link})
		case ok:
			layers = append(layers, configLayer{file: filepath.Join(dirs[i], ".codex", "config.toml"), atHead: true, head: data, headBlob: linked})
		}
	}
	return layers, true
}

// gitHead returns the file .codex/config.toml below dir as committed at
// HEAD of the git repository dir is in, and whether there is one: git
// cat-file, which runs no filter, pager or hook of the repository's;
// with no GIT_… variable of bundlectl's environment, which could name
// another repository, but for gitNoFetch. A symbolic link HEAD commits
// on the way (.codex -> conf) is followed inside the tree, as the
// worktree Codex checks out from HEAD has it and Codex reads it
// (internal/agenttest TestSetupCodexWorktreeLinked); linked is then the
// blob's name, since `git show HEAD:./.codex/config.toml` does not follow
// it. A link to an absolute path (.codex itself, or config.toml) is
// checked out as it is, and Codex reads the file it names there: that
// file is returned as link, with no data (the same test). A relative
// link out of the tree is not followed (untried: it resolves beside the
// new worktree). The text, when there is one, is never nil (an empty
// file is read as empty, not as the working copy's).
func gitHead(dir string) (data []byte, linked, link string, ok bool) {
	git := func(stdin string, args ...string) ([]byte, error) { return gitIn(dir, stdin, args...) }
	const file = "HEAD:./.codex/config.toml"
	out, err := git("HEAD:./.codex\n"+file+"\n", "cat-file", "--batch", "--follow-symlinks")
	if err != nil {
		return nil, "", "", false
	}
	dotCodex, out := batchObject(out)
	config, _ := batchObject(out)
	switch {
	case config.kind == "blob":
		if _, err := git("", "cat-file", "-e", file); err != nil {
			linked = config.name
		}
		return config.body, linked, "", true
	case dotCodex.kind == "symlink" && filepath.IsAbs(string(dotCodex.body)):
		return nil, "", filepath.Join(string(dotCodex.body), "config.toml"), true
	case config.kind == "symlink" && filepath.IsAbs(string(config.body)):
		return nil, "", filepath.Clean(string(config.body)), true
	}
	// missing (no HEAD, or no such file), dangling, a loop, not a blob,
	// or a relative link out of the tree.
	return nil, "", "", false
}

// gitIn runs git in dir with stdin: no pager, and no GIT_… variable of
// bundlectl's environment, which could name another repository, but for
// gitNoFetch.
func gitIn(dir, stdin string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"--no-pager", "-C", dir}, args...)...)
	cmd.Env = []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, gitNoFetch...)
	cmd.Stdin = strings.NewReader(stdin)
	return cmd.Output()
}

// headCommitted reports whether the repository dir is in has a commit at
// HEAD: with none (a repository just made, or HEAD naming a branch that
// is gone) Codex cannot make a worktree from it, so no --worktree
// session starts there.
func headCommitted(dir string) bool {
	_, err := gitIn(dir, "", "cat-file", "-e", "HEAD^{commit}")
	return err == nil
}

// catFileObject is one answer of git cat-file --batch --follow-symlinks:
// kind "blob", "tree", …, with name, or "symlink", "dangling", "loop",
// "notdir", "missing"; body is the content, or the link's target.
type catFileObject struct {
	kind, name string
	body       []byte
}

// batchObject reads the first answer of out, and returns the rest.
func batchObject(out []byte) (catFileObject, []byte) {
	header, rest, found := bytes.Cut(out, []byte("\n"))
	if !found {
		return catFileObject{}, nil
	}
	f := strings.Fields(string(header))
	var o catFileObject
	sizeField := ""
	switch {
	case len(f) == 2 && f[1] == "missing":
		return catFileObject{kind: "missing"}, rest
	case len(f) == 2:
		o.kind, sizeField = f[0], f[1]
	case len(f) == 3:
		o.name, o.kind, sizeField = f[0], f[1], f[2]
	default:
		return catFileObject{}, nil
	}
	size, err := strconv.Atoi(sizeField)
	if err != nil || size < 0 || size >= len(rest) || rest[size] != '\n' {
		return catFileObject{}, nil
	}
	o.body = rest[:size:size]
	return o, rest[size+1:]
}

// gitNoFetch keeps git from fetching: in a partial clone (a promisor
// remote in the repository's config), reading an object that is not
// there fetches it from the remote, which runs the program the
// repository's config names for it — core.sshCommand,
// remote.<name>.uploadpack, a remote helper — and git 2.39's cat-file ran
// a core.sshCommand so (hosts/codex TestGitHeadRunsNoProgram).
// GIT_NO_LAZY_FETCH stops the fetch where git knows it (2.45 on);
// GIT_ALLOW_PROTOCOL, which outranks every protocol.*.allow of any
// config, allows only a transport no git has, so an older git refuses
// each one (ssh, file, ext, a helper "X::") before starting its program.
var gitNoFetch = []string{"GIT_NO_LAZY_FETCH=1", "GIT_ALLOW_PROTOCOL=bundlectl-no-transport"}

// worktreeHooksOff is the caveat of a `codex --worktree` session started
// in cwd whose layers (headLayers) turn the hooks feature off, asked
// where a session without --worktree runs setup's lines: a
// features.hooks = false committed at HEAD in a project file the working
// copy has changed (or removed), or the user's (or the system's) false
// that only the working copy's project file turns back on. nil when
// there is none.
func worktreeHooksOff(codexHome, cwd string) *hosts.HooksOffError {
	layers, session := headLayers(codexHome, cwd)
	if !session {
		return nil
	}
	l, on, ok := hooksFeature(layers, false)
	if !ok || on {
		return nil
	}
	const setting = "features.hooks = false"
	if l.head == nil {
		return &hosts.HooksOffError{Host: "codex", File: l.file, Setting: setting, Fix: "remove it (or set it to true)",
			Pattern: hosts.SettingIn(l.file, tomlKey(setting)),
			When:    "started with --worktree, which reads the project's .codex/config.toml files as committed at HEAD, where none turns hooks back on"}
	}
	dir := filepath.Dir(filepath.Dir(l.file))
	return &hosts.HooksOffError{Host: "codex", File: l.file, Lines: "HEAD's copy", Setting: setting,
		Fix:  "commit it without that setting (or with it set to true)",
		Show: "git -C " + bundle.ShellArg(dir) + " show " + cmp.Or(l.headBlob, "HEAD:./.codex/config.toml"),
		When: "started with --worktree, which reads the project's .codex/config.toml files as committed at HEAD, not the working copy's"}
}

// profiles are the names of the profiles in codexHome: each
// <name>.config.toml there, sorted.
func profiles(codexHome string) []string {
	ents, err := os.ReadDir(codexHome)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if name, ok := strings.CutSuffix(e.Name(), profileSuffix); ok && name != "" && !e.IsDir() {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
