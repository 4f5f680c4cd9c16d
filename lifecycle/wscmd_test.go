package lifecycle_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/sources"
)

// wsCmd is a workspace made ready for one of the commands that move a
// workspace bundle's tree (install, update, uninstall, sync) of the
// plugin "good", so that a test can plant or swap something in its way
// and then run the command.
type wsCmd struct {
	cmd          string
	dir, ws, src string
	lockPath     string
	m            *lifecycle.Manager
	ctx          context.Context
}

// prepareWSCmd makes the workspace under a new temporary directory: for
// update and uninstall "good" is installed (and its source changed, for
// update); for sync a first home installs, trusts, locks and uninstalls
// it, and the command is a second home's.
func prepareWSCmd(t *testing.T, cmd string) *wsCmd {
	t.Helper()
	dir := t.TempDir()
	c := &wsCmd{cmd: cmd, dir: dir, ws: filepath.Join(dir, "ws"), src: filepath.Join(dir, "src", "good"), ctx: context.Background()}
	writePlugin(t, c.src, "good")
	must(t, os.MkdirAll(filepath.Join(c.ws, ".bundlectl"), 0o755))
	c.m = manager(filepath.Join(dir, "home"), c.ws)
	if cmd != "install" {
		if _, err := c.m.Install(c.ctx, sources.Request{Source: c.src}, lifecycle.InstallOptions{Scope: bundle.ScopeWorkspace}); err != nil {
			t.Fatal(err)
		}
	}
	if cmd != "sync" {
		must(t, os.WriteFile(filepath.Join(c.src, "README.md"), []byte("v2\n"), 0o644))
		return c
	}
	if _, err := c.m.Trust("good", tokenOf(t, c.m, "good")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.m.Lock(lifecycle.LockOptions{AllowUnpinned: true}); err != nil {
		t.Fatal(err)
	}
	var err error
	if c.lockPath, err = c.m.LockPath(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.m.Uninstall("good", lifecycle.UninstallOptions{}); err != nil {
		t.Fatal(err)
	}
	c.m = manager(filepath.Join(dir, "home2"), c.ws)
	return c
}

// run runs the command; sync's one problem is returned as its error.
func (c *wsCmd) run() error {
	var err error
	switch c.cmd {
	case "install":
		_, err = c.m.Install(c.ctx, sources.Request{Source: c.src}, lifecycle.InstallOptions{Scope: bundle.ScopeWorkspace})
	case "update":
		_, err = c.m.Update(c.ctx, "good", lifecycle.UpdateOptions{})
	case "uninstall":
		_, err = c.m.Uninstall("good", lifecycle.UninstallOptions{})
	default:
		_, err = c.m.SyncLocked(c.ctx, c.lockPath, lifecycle.SyncOptions{})
		var se *lifecycle.SyncError
		if errors.As(err, &se) && len(se.Problems) == 1 {
			err = se.Problems[0].Err
		}
	}
	return err
}
