package bundle

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// mkbundle creates a minimal valid plugin.toml bundle named name in root.
func mkbundle(t testing.TB, root, name string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	mkfile(t, dir, ManifestTOML, fmt.Sprintf("schema_version = 1\n[plugin]\nname = %q\n", name), 0o644)
	return dir
}

type testRoots struct {
	Roots
	builtin, user, workspace string // the bundle directories of each root
}

func newRoots(t testing.TB) testRoots {
	base := t.TempDir()
	r := testRoots{Roots: Roots{
		Builtin:   filepath.Join(base, "builtin"),
		Home:      filepath.Join(base, "home"),
		Workspace: filepath.Join(base, "ws"),
	}}
	r.builtin = r.Builtin
	r.user = filepath.Join(r.Home, "bundles")
	r.workspace = filepath.Join(r.Workspace, ".bundlectl", "bundles")
	for _, d := range []string{r.builtin, r.user, r.workspace} {
		mkdir(t, d, ".")
	}
	return r
}

func summary(d *Discovery) []string {
	var out []string
	for _, b := range d.Bundles {
		s := string(b.Scope) + " " + b.Name
		if b.ShadowedBy != "" {
			s += " shadowed-by " + b.ShadowedBy
		}
		out = append(out, s)
	}
	return out
}

func TestDiscoverPrecedence(t *testing.T) {
	r := newRoots(t)
	mkbundle(t, r.workspace, "shared")
	mkbundle(t, r.user, "shared")
	mkbundle(t, r.builtin, "shared")
	mkbundle(t, r.user, "mine")
	mkbundle(t, r.workspace, "mine")
	mkbundle(t, r.workspace, "repo")
	mkbundle(t, r.workspace, "alpha")
	mkfile(t, r.user, "README", "not a bundle", 0o644) // files in a root are not bundles

	d := Discover(r.Roots, Limits{})
	if len(d.Problems) != 0 {
		t.Fatalf("problems: %+v", d.Problems)
	}
	ids := map[string]string{}
	for _, b := range d.Bundles {
		if b.ShadowedBy == "" {
			ids[b.Name] = b.ID
		}
		if b.Rejected() {
			t.Errorf("%s rejected: %v", b.ID, b.Report.Findings)
		}
	}
	want := []string{
		"builtin shared",
		"user mine",
		"user shared shadowed-by " + ids["shared"],
		"workspace alpha",
		"workspace mine shadowed-by " + ids["mine"],
		"workspace repo",
		"workspace shared shadowed-by " + ids["shared"],
	}
	if got := summary(d); !reflect.DeepEqual(got, want) {
		t.Errorf("bundles:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(ids["shared"], "builtin/") || !strings.HasPrefix(ids["mine"], "user/") {
		t.Errorf("winners %v", ids)
	}
	got := d.Lookup("shared")
	if len(got) != 3 || got[0].Scope != ScopeBuiltin || got[1].Scope != ScopeUser || got[2].Scope != ScopeWorkspace {
		t.Errorf("Lookup(shared) = %v", summary(&Discovery{Bundles: got}))
	}
	if len(d.Lookup("missing")) != 0 {
		t.Error("Lookup found a missing bundle")
	}
}

// TestDiscoverInvalidStillShadows: an invalid user bundle keeps a
// workspace bundle of the same name from winning (fail closed).
func TestDiscoverInvalidStillShadows(t *testing.T) {
	r := newRoots(t)
	mkfile(t, r.user, "tool/plugin.toml", "this is not toml", 0o644)
	mkbundle(t, r.workspace, "tool")
	d := Discover(r.Roots, Limits{})
	if len(d.Bundles) != 2 || !d.Bundles[0].Rejected() || d.Bundles[1].ShadowedBy != d.Bundles[0].ID {
		t.Errorf("bundles %v", summary(d))
	}
}

func TestDiscoverIdentity(t *testing.T) {
	r := newRoots(t)
	a := mkbundle(t, r.user, "same")
	b := mkbundle(t, r.workspace, "same")
	d := Discover(r.Roots, Limits{})
	if len(d.Bundles) != 2 {
		t.Fatalf("bundles %v", summary(d))
	}
	idRe := regexp.MustCompile(`^(builtin|user|workspace)/[0-9a-f]{12}/same$`)
	for _, bd := range d.Bundles {
		if !idRe.MatchString(bd.ID) {
			t.Errorf("id %q has the wrong form", bd.ID)
		}
	}
	if d.Bundles[0].ID == d.Bundles[1].ID {
		t.Error("the same tree in two scopes has one id")
	}
	if d.Bundles[0].Dir != a || d.Bundles[1].Dir != b {
		t.Errorf("dirs %q %q", d.Bundles[0].Dir, d.Bundles[1].Dir)
	}
	// The same scope at another path is another bundle.
	other := newRoots(t)
	must(t, os.Rename(a, filepath.Join(other.user, "same")))
	d2 := Discover(Roots{Home: other.Home}, Limits{})
	if len(d2.Bundles) != 1 || d2.Bundles[0].ID == d.Bundles[0].ID {
		t.Errorf("a moved bundle kept its id: %v", summary(d2))
	}
	// The same path and scope always gives the same id.
	if Identity(ScopeUser, a, "same") != d.Bundles[0].ID {
		t.Error("Identity is not the discovered id")
	}
	if Identity(ScopeUser, a, "same") == Identity(ScopeWorkspace, a, "same") {
		t.Error("the scope is not bound into the id")
	}
}

func TestDiscoverSymlinkedRoots(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, r testRoots) string // returns the symlink
		scope Scope
	}{
		{"user bundles dir", func(t *testing.T, r testRoots) string { return replaceWithLink(t, r.user) }, ScopeUser},
		{"workspace .bundlectl", func(t *testing.T, r testRoots) string {
			return replaceWithLink(t, filepath.Dir(r.workspace))
		}, ScopeWorkspace},
		{"workspace bundles dir", func(t *testing.T, r testRoots) string { return replaceWithLink(t, r.workspace) }, ScopeWorkspace},
		{"builtin root", func(t *testing.T, r testRoots) string { return replaceWithLink(t, r.builtin) }, ScopeBuiltin},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRoots(t)
			mkbundle(t, r.user, "u")
			mkbundle(t, r.workspace, "w")
			mkbundle(t, r.builtin, "b")
			link := tt.setup(t, r)
			d := Discover(r.Roots, Limits{})
			if len(d.Problems) != 1 || d.Problems[0].Scope != tt.scope || !strings.Contains(d.Problems[0].Message, "symbolic link") ||
				!strings.Contains(d.Problems[0].Message, link) {
				t.Fatalf("problems %+v", d.Problems)
			}
			for _, b := range d.Bundles {
				if b.Scope == tt.scope {
					t.Errorf("bundle %s scanned through a symlinked root", b.ID)
				}
			}
			if len(d.Bundles) != 2 {
				t.Errorf("bundles %v, want the two other roots", summary(d))
			}
		})
	}
}

// replaceWithLink moves dir aside and puts a symbolic link to it in its place.
func replaceWithLink(t *testing.T, dir string) string {
	t.Helper()
	must(t, os.Rename(dir, dir+".real"))
	must(t, os.Symlink(filepath.Base(dir)+".real", dir))
	return dir
}

func TestDiscoverRootProblems(t *testing.T) {
	base := t.TempDir()
	mkfile(t, base, "home/bundles", "a file", 0o644)
	d := Discover(Roots{Home: filepath.Join(base, "home"), Workspace: filepath.Join(base, "no-such-ws")}, Limits{})
	if len(d.Problems) != 1 || d.Problems[0].Scope != ScopeUser || !strings.Contains(d.Problems[0].Message, "not a directory") {
		t.Errorf("problems %+v", d.Problems)
	}
	if len(d.Bundles) != 0 {
		t.Errorf("bundles %v", summary(d))
	}
}

func TestDiscoverSymlinkedBundle(t *testing.T) {
	r := newRoots(t)
	real := mkbundle(t, t.TempDir(), "linked")
	must(t, os.Symlink(real, filepath.Join(r.user, "linked")))
	must(t, os.Symlink(filepath.Join(r.user, "missing"), filepath.Join(r.user, "dangling")))
	d := Discover(r.Roots, Limits{})
	if len(d.Bundles) != 2 {
		t.Fatalf("bundles %v", summary(d))
	}
	for _, b := range d.Bundles {
		if !b.Rejected() || b.Tree != nil {
			t.Errorf("%s: a symlinked bundle directory was accepted", b.ID)
		}
		if got := findingKeys(b.Report); !reflect.DeepEqual(got, []string{"tree.symlink ."}) {
			t.Errorf("%s: findings %q", b.ID, got)
		}
		if b.Format != "" {
			t.Errorf("%s: the manifest behind the link was read", b.ID)
		}
	}
}

// TestDiscoverWritesNothing compares a full listing of every root, with
// modes, sizes, modification and change times, before and after.
func TestDiscoverWritesNothing(t *testing.T) {
	r := newRoots(t)
	mkbundle(t, r.builtin, "one")
	mkbundle(t, r.user, "two")
	mkfile(t, r.user, "two/skills/s/SKILL.md", "---\nname: s\ndescription: d\n---\n", 0o644)
	mkbundle(t, r.workspace, "three")
	mkfile(t, r.workspace, "bad/plugin.toml", "[[[", 0o644)
	must(t, unix.Mkfifo(filepath.Join(r.workspace, "three", "pipe"), 0o644))
	base := filepath.Dir(r.Builtin)
	before := listing(t, base)
	d := Discover(r.Roots, Limits{})
	if len(d.Bundles) != 4 {
		t.Fatalf("bundles %v", summary(d))
	}
	after := listing(t, base)
	if !reflect.DeepEqual(before, after) {
		t.Errorf("discovery changed the roots:\nbefore %q\nafter  %q", before, after)
	}
}

func listing(t *testing.T, base string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(base, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s mode=%o size=%d ino=%d mtime=%d ctime=%d", p, st.Mode, st.Size, st.Ino, st.Mtim.Nano(), st.Ctim.Nano()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// Owns answers for the ids these roots would discover: every user id,
// the workspace id of <workspace>/.bundlectl/bundles/<name> (existing or
// not), and no id of another workspace or of another scope's root.
func TestRootsOwns(t *testing.T) {
	base := t.TempDir()
	r := Roots{Home: filepath.Join(base, "home"), Workspace: filepath.Join(base, "ws")}
	root := filepath.Join(r.Workspace, ".bundlectl", "bundles")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	canon, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	here := Identity(ScopeWorkspace, filepath.Join(canon, "kit"), "kit")
	other := Identity(ScopeWorkspace, filepath.Join(base, "other", ".bundlectl", "bundles", "kit"), "kit")
	renamed := Identity(ScopeWorkspace, filepath.Join(canon, "kit-dir"), "kit")
	for id, want := range map[string]bool{
		here:    true,
		other:   false,
		renamed: false,
		Identity(ScopeUser, "/anywhere/kit", "kit"):       true,
		Identity(ScopeBuiltin, "/builtin/kit", "kit"):     false, // the CLI has no builtin root
		Identity(ScopeWorkspace, "/x/kit", "kit") + "/..": false,
		"garbage": false,
	} {
		if got := r.Owns(id); got != want {
			t.Errorf("Owns(%q) = %v, want %v", id, got, want)
		}
		if got := r.Owner()(id); got != want {
			t.Errorf("Owner()(%q) = %v, want %v", id, got, want)
		}
	}

	// A workspace reached through a link, whose .bundlectl is gone: its
	// ids are still its own (a guard deleted with its root is found).
	realDir := filepath.Join(base, "real")
	if err := os.MkdirAll(realDir, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(realDir, link); err != nil {
		t.Fatal(err)
	}
	realCanon, err := filepath.EvalSymlinks(realDir)
	if err != nil {
		t.Fatal(err)
	}
	gone := Identity(ScopeWorkspace, filepath.Join(realCanon, ".bundlectl", "bundles", "kit"), "kit")
	r2 := Roots{Home: r.Home, Workspace: link}
	if !r2.Owns(gone) || !r2.Owner()(gone) {
		t.Errorf("the id of a bundle in a deleted root is not owned: Owns %v, Owner %v", r2.Owns(gone), r2.Owner()(gone))
	}
	if r2.Owns(here) || r2.Owner()(here) {
		t.Error("another workspace's id is owned")
	}
}
