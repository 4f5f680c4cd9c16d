package lifecycle_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/sources"
)

// A workspace (a cloned repository) ships .bundlectl/tmp, or this home's
// directory in it, as a symbolic link to a directory elsewhere. The
// install, update, uninstall and sync of a home that fetches into the
// workspace's tmp must refuse to follow it, name it, and hint the command
// that removes it; what it points to is left untouched. Once the link is
// removed as hinted, the command works.
func TestWorkspaceTmpLinkIsNotFollowed(t *testing.T) {
	lifecycle.UseWorkspaceTmp(t)
	for _, planted := range []string{"tmp", "key"} {
		for _, cmd := range []string{"install", "update", "uninstall", "sync"} {
			t.Run(planted+"/"+cmd, func(t *testing.T) {
				c := prepareWSCmd(t, cmd)
				dir, ws, m := c.dir, c.ws, c.m
				victim := filepath.Join(dir, "victim")
				must(t, os.MkdirAll(victim, 0o755))
				tmp := filepath.Join(ws, ".bundlectl", "tmp")
				must(t, os.RemoveAll(tmp))
				link := tmp
				if planted == "key" {
					must(t, os.Mkdir(tmp, 0o755))
					link = filepath.Join(tmp, lifecycle.HomeKey(m))
				}
				must(t, os.Symlink(victim, link))
				run := c.run
				err := run()
				if ents, _ := os.ReadDir(victim); len(ents) > 0 {
					t.Fatalf("%s wrote through the planted link %s into %s: %v (err %v)", cmd, link, victim, ents, err)
				}
				if err == nil {
					t.Fatalf("%s followed or ignored the planted link %s", cmd, link)
				}
				if !strings.Contains(err.Error(), bundle.Quote(link)) || !strings.Contains(err.Error(), "symbolic link") {
					t.Errorf("the error does not name the link: %v", err)
				}
				var h interface{ Hint() string }
				want := "rm -- " + bundle.ShellArg(link)
				if !errors.As(err, &h) || h.Hint() != want {
					t.Fatalf("hint: want %q, error %v", want, err)
				}
				must(t, os.Remove(link)) // as hinted
				if err := run(); err != nil {
					t.Fatalf("%s after the link was removed: %v", cmd, err)
				}
				if ents, _ := os.ReadDir(victim); len(ents) > 0 {
					t.Fatalf("%s wrote into %s: %v", cmd, victim, ents)
				}
			})
		}
	}
}

// gc removes what a killed command left in this home's directory in the
// workspace's tmp: through a planted link it would remove what is
// elsewhere.
func TestGCDoesNotFollowWorkspaceTmpLink(t *testing.T) {
	lifecycle.UseWorkspaceTmp(t)
	for _, planted := range []string{"tmp", "key"} {
		t.Run(planted, func(t *testing.T) {
			dir := t.TempDir()
			home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
			src := filepath.Join(dir, "src", "good")
			must(t, os.MkdirAll(filepath.Join(src, ".claude-plugin"), 0o755))
			must(t, os.WriteFile(filepath.Join(src, ".claude-plugin", "plugin.json"), []byte(`{"name":"good"}`), 0o644))
			must(t, os.MkdirAll(ws, 0o755))
			m := manager(home, ws)
			if _, err := m.Install(context.Background(), sources.Request{Source: src}, lifecycle.InstallOptions{Scope: bundle.ScopeWorkspace}); err != nil {
				t.Fatal(err)
			}
			victim := filepath.Join(dir, "victim")
			key := lifecycle.HomeKey(m)
			// Looks like leftovers wherever the link leads.
			for _, p := range []string{filepath.Join(victim, sources.TempPrefix+"1"), filepath.Join(victim, key, sources.TempPrefix+"2")} {
				must(t, os.MkdirAll(p, 0o755))
			}
			tmp := filepath.Join(ws, ".bundlectl", "tmp")
			must(t, os.RemoveAll(tmp))
			link := tmp
			if planted == "key" {
				must(t, os.Mkdir(tmp, 0o755))
				link = filepath.Join(tmp, key)
			}
			must(t, os.Symlink(victim, link))
			removed, err := m.GC()
			must(t, err)
			for _, p := range []string{filepath.Join(victim, sources.TempPrefix+"1"), filepath.Join(victim, key, sources.TempPrefix+"2")} {
				if _, err := os.Stat(p); err != nil {
					t.Fatalf("gc removed %s through the planted link %s: %v (removed %q)", p, link, err, removed)
				}
			}
			// The link itself may go (it is named as this home's
			// directory); what it points to stays.
		})
	}
}

// The workspace's tmp takes the permission bits of .bundlectl and the
// sticky bit, so every user who may install into the workspace can make
// a home's directory in it and none can remove another's; this home's
// directory is 0700, and one another user made is refused.
func TestWorkspaceTmpModes(t *testing.T) {
	lifecycle.UseWorkspaceTmp(t)
	dir := t.TempDir()
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	src := filepath.Join(dir, "src", "good")
	must(t, os.MkdirAll(filepath.Join(src, ".claude-plugin"), 0o755))
	must(t, os.WriteFile(filepath.Join(src, ".claude-plugin", "plugin.json"), []byte(`{"name":"good"}`), 0o644))
	dot := filepath.Join(ws, ".bundlectl")
	must(t, os.MkdirAll(dot, 0o755))
	must(t, os.Chown(dot, -1, 4243)) // shared by a group
	m := manager(home, ws)
	install := func() error {
		_, err := m.Install(context.Background(), sources.Request{Source: src}, lifecycle.InstallOptions{Scope: bundle.ScopeWorkspace})
		return err
	}
	tmp := filepath.Join(dot, "tmp")
	own := filepath.Join(tmp, lifecycle.HomeKey(m))
	mode := func(p string) uint32 {
		var st unix.Stat_t
		must(t, unix.Lstat(p, &st))
		return uint32(st.Mode & 0o7777)
	}
	// Without set-group-ID, the group is set by bundlectl, not inherited.
	for _, c := range []struct{ dot, tmp uint32 }{{0o775, 0o1775}, {0o2775, 0o3775}} {
		must(t, os.RemoveAll(tmp))
		must(t, unix.Chmod(dot, c.dot))
		must(t, install())
		if got := mode(tmp); got != c.tmp {
			t.Errorf(".bundlectl %o: the workspace's tmp is %o, want %o", c.dot, got, c.tmp)
		}
		if fi, err := os.Lstat(tmp); err != nil || fi.Sys().(*syscall.Stat_t).Gid != 4243 {
			t.Errorf(".bundlectl %o: the workspace's tmp is not in .bundlectl's group: %v", c.dot, err)
		}
		if c.dot == 0o775 {
			if _, err := m.Uninstall("good", lifecycle.UninstallOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A tmp every user may write without the sticky bit: any of them
	// could swap this home's directory for theirs after the check.
	must(t, unix.Chmod(tmp, 0o777))
	if err := install(); err == nil || !strings.Contains(err.Error(), "without the sticky bit") || !strings.Contains(err.Error(), bundle.Quote(tmp)) {
		t.Fatalf("an install through a tmp of mode 777: %v", err)
	}
	must(t, unix.Chmod(tmp, 0o1777)) // the hint's chmod
	// gc removes the home's directory once empty; make it again.
	must(t, os.MkdirAll(own, 0o755))
	if _, err := m.Uninstall("good", lifecycle.UninstallOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := mode(own); got != 0o700 {
		t.Errorf("this home's directory in the workspace's tmp is %o, want 700", got)
	}
	// Another user's directory under this home's name.
	must(t, os.Chown(own, 4242, 4242))
	err := install()
	if err == nil || !strings.Contains(err.Error(), "belongs to user 4242") || !strings.Contains(err.Error(), bundle.Quote(own)) {
		t.Fatalf("an install into another user's directory: %v", err)
	}
	if ents, _ := os.ReadDir(own); len(ents) > 0 {
		t.Fatalf("the install wrote into another user's directory: %v", ents)
	}
	if _, err := os.Stat(filepath.Join(dot, "bundles", "good")); !os.IsNotExist(err) {
		t.Fatalf("installed anyway: %v", err)
	}
}
