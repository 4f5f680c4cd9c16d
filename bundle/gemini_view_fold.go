package bundle

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// GeminiContextReadsAsMore reports whether Gemini CLI reads a file at rel
// in an extension's directory as something other than a context file: the
// manifest, the install metadata (.gemini-extension-install.json, whose
// "link" type sends Gemini CLI to another directory for the whole
// extension), the extension's settings (.env, whose values fill the
// manifest's variables), hooks, commands, skills, agents, policies. Any
// other file at the top whose name starts with a dot counts too: those are
// the names Gemini CLI keeps for itself. bundlectl exec's Gemini CLI view
// leaves such a context file out (with a note), so the review does not
// fold its path either. Names are compared as a case-insensitive file
// system (macOS, Windows) compares them (collisionKey: Unicode case
// folding and NFC), which finds Hooks/ as hooks/, and also ſkills/ (long
// s) as skills/ and hooKs/ (Kelvin sign) as hooks/, which lowercasing
// alone did not.
func GeminiContextReadsAsMore(rel string) bool {
	if strings.HasPrefix(rel, ".") {
		return true
	}
	top, _, nested := strings.Cut(rel, "/")
	switch collisionKey(top) {
	case "gemini-extension.json":
		return !nested
	case "hooks", "commands", "skills", "agents", "policies":
		return nested
	}
	return false
}

// geminiViewEntry is a path bundlectl exec's Gemini CLI view writes (a
// file, or a directory on the way to one) and what it writes it for.
type geminiViewEntry struct {
	path, what string
}

// geminiViewEntries are the paths, other than its context files, that
// bundlectl exec's Gemini CLI view (hosts/gemini View) may write for b,
// each directory on the way included. It errs towards more: a hook is
// counted when Gemini CLI has its event, whatever its matcher, and an
// agent whatever its front matter, so a context file is refused when the
// view would hold a folded name, and at worst when it might.
func geminiViewEntries(b *Bundle) []geminiViewEntry {
	var out []geminiViewEntry
	add := func(p, what string) {
		for ; p != "."; p = path.Dir(p) {
			out = append(out, geminiViewEntry{p, what})
		}
	}
	gemini := func(hosts []Host) bool { return len(hosts) == 0 || slices.Contains(hosts, HostGemini) }
	add("gemini-extension.json", "its manifest")
	for _, h := range b.Components.Hooks {
		_, translated := GeminiEvents[h.Event]
		if h.Type == HookCommand && (slices.Contains(h.Hosts, HostGemini) || len(h.Hosts) == 0 && translated) {
			add("hooks/hooks.json", "its hooks")
			break
		}
	}
	for _, s := range b.Components.Skills {
		if gemini(s.Hosts) {
			add("skills/"+s.Name+"/SKILL.md", "skill "+Quote(s.Name))
		}
	}
	for _, d := range b.Components.Commands {
		if gemini(d.Hosts) && strings.HasSuffix(d.Path, ".toml") {
			add("commands/"+strings.ReplaceAll(d.Name, ":", "/")+".toml", "command "+Quote(d.Name))
		}
	}
	for _, d := range b.Components.Agents {
		if gemini(d.Hosts) && !strings.Contains(d.Name, "/") {
			add("agents/"+strings.ReplaceAll(d.Name, ":", "/")+".md", "agent "+Quote(d.Name))
		}
	}
	for _, p := range b.Components.Policies {
		if gemini(p.Hosts) {
			add(p.Path, "policy "+Quote(p.Path))
		}
	}
	return out
}

// checkGeminiContextFolds refuses a Gemini CLI context file whose path in
// bundlectl exec's Gemini CLI view (its own path) folds, under Unicode NFC
// and case folding, onto a path the view writes for something else:
// HOOKS beside the hooks/ of a guard, Commands beside commands/. A
// case-insensitive file system (macOS, Windows) takes the two for one, so
// exec cannot build the view (hosts.View.CheckNames) and loads only the
// bundle's hooks. The tree rule name.collision finds such a pair only
// when both are in the bundle's tree; a view path such as hooks/hooks.json
// may come from a manifest's hooks alone. A context file at the very path
// of a directory the view writes (a file "hooks") is refused too: the
// view could not hold both.
func checkGeminiContextFolds(b *Bundle) {
	var contexts []Document
	for _, d := range b.Components.Contexts {
		if (len(d.Hosts) == 0 || slices.Contains(d.Hosts, HostGemini)) && !GeminiContextReadsAsMore(d.Path) {
			contexts = append(contexts, d)
		}
	}
	if len(contexts) == 0 {
		return
	}
	byKey := map[string][]geminiViewEntry{}
	for _, e := range geminiViewEntries(b) {
		k := path.Dir(e.path) + "\x00" + collisionKey(path.Base(e.path))
		byKey[k] = append(byKey[k], e)
	}
	for _, d := range contexts {
		if e, other, ok := geminiContextFold(d.Path, byKey); ok {
			b.Report.Errorf(d.Path, "context.collision", "%s", geminiContextFoldMsg(d.Path, e, other))
		}
	}
}

// geminiContextFold is the first path on the way to the context file rel
// (rel itself, or a directory holding it) that folds onto a path the
// view writes for something else, and that path.
func geminiContextFold(rel string, byKey map[string][]geminiViewEntry) (string, geminiViewEntry, bool) {
	var mine []string
	for p := rel; p != "."; p = path.Dir(p) {
		mine = append(mine, p)
	}
	sort.Strings(mine) // outermost first: the directory the user renames
	for _, p := range mine {
		for _, o := range byKey[path.Dir(p)+"\x00"+collisionKey(path.Base(p))] {
			if o.path != p || p == rel {
				return p, o, true
			}
		}
	}
	return "", geminiViewEntry{}, false
}

func geminiContextFoldMsg(rel, mine string, other geminiViewEntry) string {
	if mine == other.path {
		return fmt.Sprintf("context file %s: bundlectl exec's Gemini CLI view writes the directory %s for %s, so it cannot hold a file of that name too; rename the context file (and its contextFileName entry)", Quote(rel), Quote(other.path), other.what)
	}
	as := Quote(mine)
	if mine != rel {
		as = "under " + Quote(mine)
	}
	return fmt.Sprintf("context file %s: bundlectl exec's Gemini CLI view would write it %s and %s for %s, and %s and %s differ %s, which a case-insensitive file system (macOS, Windows) takes for one name; rename the context file (and its contextFileName entry)", Quote(rel), as, Quote(other.path), other.what, Quote(mine), Quote(other.path), foldHow(path.Base(mine), path.Base(other.path)))
}

// foldHow says how two names with one collision key differ: only in
// letter case, only in Unicode normalization (named, as they look
// alike), or in both.
func foldHow(a, b string) string {
	switch {
	case norm.NFC.String(a) == norm.NFC.String(b):
		return fmt.Sprintf("only in Unicode normalization (%+q and %+q: one composed, one decomposed)", a, b)
	case folder.String(a) != folder.String(b):
		return "only in letter case and Unicode normalization"
	}
	return "only in letter case"
}
