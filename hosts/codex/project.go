package codex

import (
	"cmp"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// defaultRootMarkers are the names Codex 0.171 finds a project's root by
// when no configuration sets project_root_markers.
var defaultRootMarkers = []string{".git"}

// projectTrust is what the configuration Codex reads before a project's
// own files says of the project: the settings that decide which of those
// files it reads (internal/agenttest TestCodexProjectRoot).
type projectTrust struct {
	// markers are the names a project's root holds (project_root_markers,
	// the last file or -c flag that sets it to a list of strings
	// winning); none makes the working directory the root.
	markers []string
	// levels is the trust_level of each [projects."<dir>"] entry that has
	// one, the key taken as written: "trusted" or anything else.
	levels map[string]string
}

// readProjectTrust merges project_root_markers and the projects table of
// docs, each over the one before, as Codex 0.171 does over the system's,
// the user's and the profile's config.toml and then the session's -c
// flags; a project's own .codex/config.toml is never one of them (a
// marker it names roots nothing).
func readProjectTrust(docs []map[string]any) projectTrust {
	p := projectTrust{markers: defaultRootMarkers, levels: map[string]string{}}
	for _, doc := range docs {
		p = p.with(doc)
	}
	return p
}

// with is p with doc's project_root_markers and projects entries merged
// over it.
func (p projectTrust) with(doc map[string]any) projectTrust {
	out := projectTrust{markers: p.markers, levels: maps.Clone(p.levels)}
	if list, ok := stringList(doc["project_root_markers"]); ok {
		out.markers = list
	}
	projects, _ := doc["projects"].(map[string]any)
	for dir, v := range projects {
		if t, ok := v.(map[string]any); ok {
			if level, ok := t["trust_level"].(string); ok {
				out.levels[dir] = level
			}
		}
	}
	return out
}

// stringList returns v as a list of strings, and whether it is one (Codex
// refuses to start on a project_root_markers that is not).
func stringList(v any) ([]string, bool) {
	items, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(items))
	for _, item := range items {
		s, ok := item.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// trusts reports whether Codex 0.171 reads the .codex/config.toml of dir,
// a directory from the project root down to the working directory: the
// first of dir, the project root and the git trust root (gitTrustRoot)
// that has an entry decides, so an entry that does not trust dir itself
// outranks a trusted root's. Each is looked up by its real path, then as
// spelled (a -C link's entry trusts it).
func (p projectTrust) trusts(dir, root, gitRoot string) bool {
	level, _ := p.level(dir, root, gitRoot)
	return level == "trusted"
}

// level is the trust_level of the first of dir, root and gitRoot that has
// a projects entry (its real path, then as spelled), and whether one has.
func (p projectTrust) level(dir, root, gitRoot string) (string, bool) {
	for _, key := range []string{dir, root, gitRoot} {
		if key == "" {
			continue
		}
		for _, spelling := range []string{realOrAsIs(key), key} {
			if level, ok := p.levels[spelling]; ok {
				return level, true
			}
		}
	}
	return "", false
}

// decides reports whether the user's configuration already decides
// Codex 0.171's trust for every session started in the workspace, in it
// or in a folder below it: an entry for the project root or the git trust
// root (level), trusted or not. Codex asks whether to trust the project
// only where none does; where one does, it does not ask, and a file it
// does not trust now is read by no session started there until the user
// edits that configuration. An entry for the workspace alone (below the
// root) decides for a session started in it, not for one started in a
// folder below it: Codex asks there, and once trusted writes its entry
// for the git top (savedByTrustFlag) and reads the top's file,
// features.hooks = false and all (internal/agenttest
// TestCodexTrustedWorkspaceSubdirAsks). Marked
// "untrusted": an interactive start offers only to open the project
// restricted, saved trust unchanged, and `codex exec --trust` stops with
// an error (internal/agenttest TestSetupCodexHooksLayers,
// TestCodexUntrustedEntryNoAsk). Trusted: a file above it whose own
// directory is marked untrusted, or has no entry that trusts it (a git
// top above a working directory trusted by its own entry), stays unread
// and unasked in that directory (TestCodexTrustedWorkspaceNoAskForTop),
// not below it.
func (p projectTrust) decides(root, gitRoot string) bool {
	_, ok := p.level("", root, gitRoot)
	return ok
}

// savedByTrustFlag is p, the trust the configuration files alone give
// (no -c flag: Codex 0.171 decides --trust by the saved configuration),
// as `codex exec --trust` leaves it for a session started in cwd, before
// the session reads its project files: where no entry decides (level
// finds none for cwd, the root or the git trust root), Codex saves one
// trusting the git trust root, else the project root (the working
// directory, with no marker and no git top), as its real path, and reads
// the files under it in that session and every later one; where one
// does, it saves nothing (an untrusted one stops it: "is marked as
// untrusted"). The session's -c flags are merged over the result: one
// untrusting the workspace keeps its file unread though the entry is
// saved, and one trusting it saves the git top's all the same
// (internal/agenttest TestCodexTrustFlagSavesEntry,
// TestExecCodexOwnPluginTrustFlag).
func (p projectTrust) savedByTrustFlag(cwd, root, gitRoot string) projectTrust {
	if _, decided := p.level(cwd, root, gitRoot); decided {
		return p
	}
	levels := maps.Clone(p.levels)
	levels[realOrAsIs(cmp.Or(gitRoot, root))] = "trusted"
	return projectTrust{markers: p.markers, levels: levels}
}

// startedIn is the working directory of a Codex session started in dir as
// Codex spells it: its real path (Codex reads its working directory from
// the system, not $PWD).
func startedIn(dir string) string {
	return realOrAsIs(dir)
}

// projectRoot is the nearest directory from dir up that holds one of
// markers (holdsMarker: a file, a directory or a link to either; a
// dangling link, or a .git directory with no HEAD, does not count), as Codex finds a project's root, or dir itself when none
// does or markers is empty.
func projectRoot(dir string, markers []string) string {
	if len(markers) == 0 {
		return dir
	}
	for d := dir; ; d = filepath.Dir(d) {
		for _, m := range markers {
			if holdsMarker(d, m) {
				return d
			}
		}
		if d == filepath.Dir(d) {
			return dir
		}
	}
}

// holdsMarker reports whether dir holds marker as Codex 0.171 looks for
// one: anything by that name, but for ".git" only what holdsGit takes
// for a git work tree's top (an empty .git directory roots nothing;
// internal/agenttest TestCodexProjectRoot).
func holdsMarker(dir, marker string) bool {
	if marker == ".git" {
		return holdsGit(dir)
	}
	_, err := os.Stat(joinMarker(dir, marker))
	return err == nil
}

// joinMarker is marker looked for in dir as Codex joins the two: an
// absolute marker replaces dir.
func joinMarker(dir, marker string) string {
	if filepath.IsAbs(marker) {
		return marker
	}
	return filepath.Join(dir, marker)
}

// gitTrustRoot is the directory whose [projects] entry Codex 0.171 also
// consults for a working directory in a git work tree, whatever the
// markers: the work tree's top, or for a linked worktree (`git worktree
// add`, whose .git is a file "gitdir: <main>/.git/worktrees/<name>") the
// main checkout's top, so a worktree is trusted through its main
// repository's entry. It is "" outside a git work tree, for a .git file
// that names another directory (a submodule's), and for a worktree whose
// records git's own files do not bear out (linkedWorktreeMain).
func gitTrustRoot(dir string) string {
	top := ""
	for d := dir; ; d = filepath.Dir(d) {
		if holdsGit(d) {
			top = d
			break
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
	dotGit := filepath.Join(top, ".git")
	if fi, err := os.Stat(dotGit); err == nil && fi.IsDir() {
		// As spelled: trusts looks it up by its real path and so, and
		// Codex takes an entry for either (a top found through a -C
		// link is trusted by the link's entry).
		return top
	}
	gitDir, ok := gitdirPointer(dotGit, top)
	if !ok {
		return ""
	}
	return linkedWorktreeMain(top, gitDir)
}

// holdsGit reports whether Codex 0.171 takes dir for the top of a git
// work tree: its .git is a file (or a link to one), or a directory (or a
// link to one) holding a HEAD (a file, a directory or a link to either;
// a dangling link is none). A .git directory without one is passed over
// for the next one up, so an empty .git a project ships does not hide a
// trusted repository around it (internal/agenttest TestCodexProjectRoot).
func holdsGit(dir string) bool {
	dotGit := filepath.Join(dir, ".git")
	fi, err := os.Stat(dotGit)
	if err != nil {
		return false
	}
	if !fi.IsDir() {
		return true
	}
	_, err = os.Stat(filepath.Join(dotGit, "HEAD"))
	return err == nil
}

// maxGitRecord bounds a file of git's that Codex reads for trust: a
// longer one is no record (Codex 0.171 takes none past 64 KiB).
const maxGitRecord = 64 << 10

// gitdirPointer reads the "gitdir: <path>" file at file (a gitRecord),
// the path resolved against base when relative.
func gitdirPointer(file, base string) (string, bool) {
	data, ok := gitRecord(file)
	dir, isPointer := strings.CutPrefix(data, "gitdir:")
	return resolveRecord(strings.TrimSpace(dir), base, ok && isPointer)
}

// resolveRecord is path resolved against base when relative, cleaned as
// a path (Codex 0.171 compares a record's "<dir>/x/../.git" or
// "<dir>/.git/" as <dir>/.git, whether or not x exists); ok is false for
// an empty path or when ok0 is.
func resolveRecord(path, base string, ok0 bool) (string, bool) {
	if !ok0 || path == "" {
		return "", false
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(base, path)
	}
	return filepath.Clean(path), true
}

// adminRecord reads the file name in a worktree's administrative
// directory admin (.git/worktrees/<name>/gitdir or commondir) as Codex
// 0.171 does: a gitRecord, its path resolved against admin when
// relative.
func adminRecord(admin, name string) (string, bool) {
	data, ok := gitRecord(filepath.Join(admin, name))
	return resolveRecord(data, admin, ok)
}

// gitRecord is the content, trimmed of surrounding white space, of file,
// one of git's records Codex 0.171 reads for trust (a .git file, a
// worktree's gitdir or commondir): a regular file, not a link, of 1 byte
// to 64 KiB. A link to one, or a longer one, is no record (internal/
// agenttest TestCodexProjectRoot), so a worktree whose .git file is
// either borrows no trust from its main repository.
func gitRecord(file string) (string, bool) {
	fi, err := os.Lstat(file)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 || fi.Size() > maxGitRecord {
		return "", false
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(data)), true
}

// linkedWorktreeMain is the main checkout's top, as the .git file spells
// it, of the linked worktree at top whose .git file names gitDir, when git's own records bear it out
// as Codex 0.171 checks them (internal/agenttest
// TestCodexProjectRoot): gitDir, as spelled, is a directory (not a
// link) <common>/worktrees/<name>, its gitdir file names top/.git back,
// its commondir file names <common>, and the main checkout, <common>'s
// parent as spelled, has a .git that is <common> or a file naming it;
// each file a gitRecord (top/.git too: gitTrustRoot reads it so). Codex
// takes these steps on the path the .git file spells, symbolic links
// followed only to compare: a link to the admin directory, or to the
// common directory under another name, leaves the worktree untrusted. A
// .git file pointing at another repository's worktree, or at one git
// never made, borrows no trust; else "".
func linkedWorktreeMain(top, gitDir string) string {
	admin := filepath.Clean(gitDir)
	if fi, err := os.Lstat(admin); err != nil || !fi.IsDir() {
		return ""
	}
	worktrees := filepath.Dir(admin)
	if filepath.Base(worktrees) != "worktrees" {
		return ""
	}
	back, ok := adminRecord(admin, "gitdir")
	if !ok || realOrAsIs(back) != realOrAsIs(filepath.Join(top, ".git")) {
		return ""
	}
	common := filepath.Dir(worktrees)
	named, ok := adminRecord(admin, "commondir")
	if !ok || realOrAsIs(named) != realOrAsIs(common) {
		return ""
	}
	main := filepath.Dir(common)
	if !mainGitIs(main, realOrAsIs(common)) {
		return ""
	}
	// As spelled: Codex takes an entry for it so or resolved (trusts
	// looks up both).
	return main
}

// mainGitIs reports whether the .git of the main checkout main is the
// common directory common (a real path): that directory itself, or a
// gitRecord naming it (git init --separate-git-dir).
func mainGitIs(main, common string) bool {
	mainGit := filepath.Join(main, ".git")
	if fi, err := os.Stat(mainGit); err == nil && fi.IsDir() {
		return realOrAsIs(mainGit) == common
	}
	named, ok := gitdirPointer(mainGit, main)
	return ok && realOrAsIs(named) == common
}

// realOrAsIs is path with its symbolic links resolved, or path as it is
// when that fails; "" stays "" (no working directory, not ".").
func realOrAsIs(path string) string {
	if path == "" {
		return ""
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

// flagsDoc is the table the session's -c flags (args, up to "--") make,
// each KEY=VALUE set as Codex 0.171 sets one: KEY split on every dot
// (quotes kept), VALUE read as a TOML value or else as a string with
// its surrounding quotes trimmed, a later flag over an earlier one.
func flagsDoc(args []string) map[string]any {
	doc := map[string]any{}
	for i := 0; i < len(args) && args[i] != "--"; i++ {
		var kv string
		kv, _, i = configArg(args, i)
		k, v, ok := strings.Cut(kv, "=")
		if !ok || configKey(k) == "" {
			continue
		}
		setDotted(doc, strings.Split(configKey(k), "."), flagValue(v))
	}
	return doc
}

// flagValue reads a -c flag's value as Codex does.
func flagValue(v string) any {
	v = strings.TrimSpace(v)
	var doc map[string]any
	if toml.Unmarshal([]byte("v = "+v), &doc) == nil {
		if parsed, ok := doc["v"]; ok {
			return parsed
		}
	}
	return strings.Trim(v, `"'`)
}

// setDotted sets doc[path[0]]…[path[n]] to v, making (or replacing with)
// a table at each step before the last, as Codex applies a -c flag to
// its table of flags (which then merges over the files).
func setDotted(doc map[string]any, path []string, v any) {
	for _, part := range path[:len(path)-1] {
		next, ok := doc[part].(map[string]any)
		if !ok {
			next = map[string]any{}
			doc[part] = next
		}
		doc = next
	}
	doc[path[len(path)-1]] = v
}
