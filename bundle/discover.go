package bundle

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Roots are the places bundles are discovered, in precedence order.
type Roots struct {
	// Builtin is a directory of bundles the embedding harness ships; the CLI
	// has none.
	Builtin string
	// Home is $BUNDLECTL_HOME; user bundles live in Home/bundles.
	Home string
	// Workspace is the workspace directory; its bundles live in
	// Workspace/.bundlectl/bundles.
	Workspace string
}

// Root is one directory of bundles.
type Root struct {
	Scope Scope
	Path  string
}

// List returns the roots in precedence order, skipping unset ones.
func (r Roots) List() []Root {
	var out []Root
	if r.Builtin != "" {
		out = append(out, Root{ScopeBuiltin, r.Builtin})
	}
	if r.Home != "" {
		out = append(out, Root{ScopeUser, filepath.Join(r.Home, "bundles")})
	}
	if r.Workspace != "" {
		out = append(out, Root{ScopeWorkspace, filepath.Join(r.Workspace, ".bundlectl", "bundles")})
	}
	return out
}

// Owns reports whether the bundle id would be found under these roots if
// its directory existed: a user or built-in id always (there is one root
// of each), a workspace id when it is the id of the directory an install
// gives a bundle in this workspace, <workspace>/.bundlectl/bundles/<name>.
// A bundle of another workspace answers false, and so does one of this
// workspace that was kept under another directory name.
//
// An id is recorded under the root's canonical path at trust time. A
// symbolic link made since — the workspace's .bundlectl or its bundles
// directory replaced by a link, the workspace moved and a link left at
// its path — changes what that path resolves to, so the root is matched
// in every form its path takes, from as written through each link, one at
// a time, to the canonical one: a trusted bundle of this workspace then
// stays this workspace's, and is gone when the root cannot be scanned.
func (r Roots) Owns(id string) bool { return r.Owner()(id) }

// Owner is Owns for many ids: each root is resolved once, so that asking
// about an id costs a hash per form of the root, not a walk of its path.
func (r Roots) Owner() func(id string) bool {
	type root struct {
		scope Scope
		forms []string // the root's paths; none when it cannot be resolved
	}
	var roots []root
	for _, rt := range r.List() {
		rr := root{scope: rt.Scope}
		if rt.Scope == ScopeWorkspace {
			rr.forms = pathForms(rt.Path)
			if p, err := canonicalMissing(filepath.Join(rt.Path, "x")); err == nil {
				rr.forms = append(rr.forms, filepath.Dir(p))
			}
		}
		roots = append(roots, rr)
	}
	return func(id string) bool {
		scope, rest, _ := strings.Cut(id, "/")
		name := rest[strings.LastIndexByte(rest, '/')+1:]
		for _, rt := range roots {
			if string(rt.scope) != scope {
				continue
			}
			if rt.scope != ScopeWorkspace {
				return true
			}
			for _, f := range rt.forms {
				if f != "" && f != "." && Identity(rt.scope, filepath.Join(f, name), name) == id {
					return true
				}
			}
			return false
		}
		return false
	}
}

// OwnerAsWritten is Owner matching a workspace's root only as its path is
// written (made absolute, no link resolved). Choosing which directory is
// the workspace must not follow links: a subdirectory that links to
// another trusted workspace, or whose .bundlectl does, would otherwise be
// taken for that workspace and hide the guards of the one around it.
func (r Roots) OwnerAsWritten() func(id string) bool {
	var ws string
	if r.Workspace != "" {
		if abs, err := filepath.Abs(filepath.Join(r.Workspace, ".bundlectl", "bundles")); err == nil {
			ws = abs
		}
	}
	return func(id string) bool {
		name := id[strings.LastIndexByte(id, '/')+1:]
		return ws != "" && strings.HasPrefix(id, string(ScopeWorkspace)+"/") && Identity(ScopeWorkspace, filepath.Join(ws, name), name) == id
	}
}

// pathForms returns the absolute form of path as written, then each path
// reached by replacing its first symbolic link with the link's target, one
// link at a time (at most 40), until no component is a link or one is
// missing.
func pathForms(path string) []string {
	cur, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	forms := []string{cur}
	for range 40 {
		next, ok := resolveFirstLink(cur)
		if !ok || slices.Contains(forms, next) {
			break
		}
		forms = append(forms, next)
		cur = next
	}
	return forms
}

// resolveFirstLink replaces the first component of the absolute path p
// that is a symbolic link with its target; false when none is (or a
// component is missing or unreadable).
func resolveFirstLink(p string) (string, bool) {
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	dir := "/"
	for i, c := range parts {
		q := filepath.Join(dir, c)
		fi, err := os.Lstat(q)
		if err != nil {
			return "", false
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			t, err := os.Readlink(q)
			if err != nil {
				return "", false
			}
			if !filepath.IsAbs(t) {
				t = filepath.Join(dir, t)
			}
			return filepath.Join(append([]string{t}, parts[i+1:]...)...), true
		}
		dir = q
	}
	return "", false
}

// canonicalMissing is canonicalDir for a path whose parents may be gone
// (a workspace whose .bundlectl was deleted): the deepest existing
// ancestor is resolved, and the rest appended as written.
func canonicalMissing(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	// As canonicalDir: the last element is never resolved.
	rest := filepath.Base(abs)
	for p := filepath.Dir(abs); ; {
		if rp, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(rp, rest), nil
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", fmt.Errorf("%q has no existing ancestor", path)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// RootProblem is a root that was not scanned because it is unsafe.
type RootProblem struct {
	Scope   Scope  `json:"scope"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Discovery is the result of scanning every root once.
type Discovery struct {
	// Bundles in precedence order: builtin, user, workspace, each sorted
	// by name. A shadowed bundle has ShadowedBy set.
	Bundles  []*Bundle
	Problems []RootProblem
}

// Lookup returns the bundles named name, the winner first.
func (d *Discovery) Lookup(name string) []*Bundle {
	var out []*Bundle
	for _, b := range d.Bundles {
		if b.Name == name {
			out = append(out, b)
		}
	}
	return out
}

// Discover scans the roots and loads every bundle in them. It is read-only:
// it writes nothing, launches no process and opens no connection. A root
// that is, or lies under, a symbolic link inside bundlectl's own layout is
// not scanned and is reported; a missing root is simply empty.
func Discover(roots Roots, lim Limits) *Discovery { return DiscoverNamed(roots, lim, nil) }

// DiscoverNamed is Discover restricted to the bundles named in only (all
// of them when only is empty). Shadowing depends only on names, so the
// result for those names is exactly Discover's; a one-shot caller that
// needs one bundle does not pay for loading the others.
func DiscoverNamed(roots Roots, lim Limits, only []string) *Discovery {
	d := &Discovery{}
	type job struct {
		dir       string
		scope     Scope
		slot      int
		canonical bool // dir's parent is resolved already
	}
	var jobs []job
	for _, root := range roots.List() {
		names, prob := scanRoot(root)
		if prob != nil {
			d.Problems = append(d.Problems, *prob)
			continue
		}
		// The root is resolved once, not once per bundle (each is a
		// lstat of every element of its path).
		parent := ""
		if len(names) > 0 {
			if c, err := canonicalDir(filepath.Join(root.Path, names[0])); err == nil {
				parent = filepath.Dir(c)
			}
		}
		for _, n := range names {
			if len(only) > 0 && !slices.Contains(only, n) {
				continue
			}
			j := job{filepath.Join(root.Path, n), root.Scope, len(jobs), false}
			if parent != "" {
				j.dir, j.canonical = filepath.Join(parent, n), true
			}
			jobs = append(jobs, j)
		}
	}
	d.Bundles = make([]*Bundle, len(jobs))
	var wg sync.WaitGroup
	ch := make(chan job)
	for i := 0; i < runtime.GOMAXPROCS(0); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				// Bundles load in parallel; a lone bundle's walk does.
				d.Bundles[j.slot] = load(j.dir, j.scope, lim, len(jobs) == 1, j.canonical)
			}
		}()
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()

	winner := map[string]string{}
	for _, b := range d.Bundles {
		if id, ok := winner[b.Name]; ok {
			b.ShadowedBy = id
			continue
		}
		winner[b.Name] = b.ID
	}
	return d
}

// scanRoot lists the candidate bundle directories of one root: every child
// that is a directory or a symbolic link (which Load then rejects, so it is
// reported rather than silently skipped).
func scanRoot(root Root) ([]string, *RootProblem) {
	// Every element bundlectl itself defines must be a real directory:
	// <home>/bundles, <workspace>/.bundlectl and <workspace>/.bundlectl/bundles.
	check := []string{root.Path}
	if root.Scope == ScopeWorkspace {
		check = []string{filepath.Dir(root.Path), root.Path}
	}
	for _, p := range check {
		fi, err := os.Lstat(p)
		if os.IsNotExist(err) {
			return nil, nil
		}
		if err != nil {
			return nil, &RootProblem{root.Scope, root.Path, "cannot read the root: " + err.Error()}
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return nil, &RootProblem{root.Scope, root.Path, Quote(p) + " is a symbolic link; bundlectl never follows links in its roots"}
		}
		if !fi.IsDir() {
			return nil, &RootProblem{root.Scope, root.Path, Quote(p) + " is not a directory"}
		}
	}
	f, err := os.Open(root.Path)
	if err != nil {
		return nil, &RootProblem{root.Scope, root.Path, "cannot read the root: " + err.Error()}
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, &RootProblem{root.Scope, root.Path, "cannot list the root: " + err.Error()}
	}
	var names []string
	for _, e := range ents {
		t := e.Type()
		if t.IsDir() || t&os.ModeSymlink != 0 {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// Candidate is a bundle directory found in a root, identified without
// reading it: what the runtime needs to match state records to roots.
type Candidate struct {
	Scope Scope
	Name  string
	Dir   string // canonical absolute path
	ID    string
	// ShadowedBy is the ID of the earlier candidate of the same name.
	ShadowedBy string
}

// ListCandidates lists the bundle directories of every root in precedence
// order, computing identities and shadowing from names alone: it walks no
// bundle and parses nothing, so its cost does not grow with what bundles
// hold. Roots that are unsafe are reported as Discover reports them.
func ListCandidates(roots Roots) ([]Candidate, []RootProblem) {
	var out []Candidate
	var problems []RootProblem
	winner := map[string]string{}
	for _, root := range roots.List() {
		names, prob := scanRoot(root)
		if prob != nil {
			problems = append(problems, *prob)
			continue
		}
		if len(names) == 0 {
			continue
		}
		parent, err := canonicalDir(filepath.Join(root.Path, names[0]))
		if err != nil {
			problems = append(problems, RootProblem{root.Scope, root.Path, "cannot resolve the root: " + err.Error()})
			continue
		}
		parent = filepath.Dir(parent)
		for _, n := range names {
			dir := filepath.Join(parent, n)
			c := Candidate{Scope: root.Scope, Name: n, Dir: dir, ID: Identity(root.Scope, dir, n)}
			if id, ok := winner[n]; ok {
				c.ShadowedBy = id
			} else {
				winner[n] = c.ID
			}
			out = append(out, c)
		}
	}
	return out, problems
}
