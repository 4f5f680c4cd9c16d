package lifecycle_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/sources"
)

// markersBrokenWorkspace installs the workspace bundle "good" from a
// directory source, changes the source (an update would replace the
// tree) and returns the manager, the tree's directory and the homes
// directory of the workspace's markers.
func markersBrokenWorkspace(t *testing.T) (m *lifecycle.Manager, tree, homes string) {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	src := filepath.Join(dir, "src", "good")
	writePlugin(t, src, "good")
	must(t, os.MkdirAll(filepath.Join(ws, ".bundlectl"), 0o755))
	m = manager(filepath.Join(dir, "home"), ws)
	_, err := m.Install(context.Background(), sources.Request{Source: src}, lifecycle.InstallOptions{Scope: bundle.ScopeWorkspace})
	must(t, err)
	must(t, os.WriteFile(filepath.Join(src, "README.md"), []byte("v2\n"), 0o644))
	return m, filepath.Join(ws, ".bundlectl", "bundles", "good"), filepath.Join(ws, ".bundlectl", lifecycle.HomesDir)
}

// breakMarkers makes the workspace's homes directory a regular file.
func breakMarkers(t *testing.T, homes string) {
	t.Helper()
	must(t, os.RemoveAll(homes))
	must(t, os.WriteFile(homes, []byte("not a directory\n"), 0o644))
}

// requireMarkersNamed fails t unless err is a refusal that names the
// unreadable markers at homes, as a *MarkersError, with its hint.
func requireMarkersNamed(t *testing.T, err error, homes string) {
	t.Helper()
	var me *lifecycle.MarkersError
	if err == nil || !errors.Is(err, lifecycle.ErrRefused) || !errors.As(err, &me) ||
		!strings.Contains(err.Error(), "markers in the workspace's "+bundle.Quote(homes)+" cannot be read") {
		t.Fatalf("the refusal does not name the unreadable markers %s: %v", homes, err)
	}
	var h interface{ Hint() string }
	if want := "ls -la -- " + bundle.ShellArg(filepath.Dir(homes)); !errors.As(err, &h) || h.Hint() != want {
		t.Errorf("hint: want %q, error %v", want, err)
	}
}

// An edited workspace tree whose markers cannot be read is not simply
// "edited since bundlectl placed it": another home's update may have
// placed it, and the refusal's fix (--discard-local) would be refused
// next by the markers. The refusal names the markers, says which two
// causes it cannot tell apart, and shows what is there. (Before, it said
// the tree was edited and hinted update --discard-local.)
func TestEditedTreeUnreadableMarkersNamed(t *testing.T) {
	m, tree, homes := markersBrokenWorkspace(t)
	must(t, os.WriteFile(filepath.Join(tree, "notes.txt"), []byte("mine\n"), 0o644))
	breakMarkers(t, homes)
	_, err := m.Update(context.Background(), "good", lifecycle.UpdateOptions{})
	requireMarkersNamed(t, err, homes)
	if !strings.Contains(err.Error(), "edited by hand, or another bundlectl home") || !strings.Contains(err.Error(), "bundlectl update --force --discard-local good") {
		t.Errorf("the refusal does not say what it cannot tell apart and how to go ahead: %v", err)
	}
	t.Log(err)
	if _, serr := os.Stat(filepath.Join(tree, "notes.txt")); serr != nil {
		t.Fatalf("the edited tree was replaced: %v", serr)
	}
	_, err = m.Update(context.Background(), "good", lifecycle.UpdateOptions{Force: true, DiscardLocal: true})
	must(t, err)
}

// A tree replaced while an update ran, with the markers unreadable, is
// refused saying whether another home did it is unknown, naming the
// markers. (Before, the refusal said nothing of other homes.)
func TestReplacedMeanwhileUnreadableMarkersNamed(t *testing.T) {
	m, tree, homes := markersBrokenWorkspace(t)
	lifecycle.OnUpdateFetched(t, func() {
		must(t, os.WriteFile(filepath.Join(tree, "notes.txt"), []byte("theirs\n"), 0o644))
		breakMarkers(t, homes)
	})
	_, err := m.Update(context.Background(), "good", lifecycle.UpdateOptions{Force: true})
	if err == nil || !errors.Is(err, lifecycle.ErrRefused) || !strings.Contains(err.Error(), "changed while it was being updated") {
		t.Fatalf("the update went ahead or failed otherwise: %v", err)
	}
	if !strings.Contains(err.Error(), "whether by the update of another bundlectl home that uses it too is unknown: the homes' markers in the workspace's "+bundle.Quote(homes)+" cannot be read") {
		t.Errorf("the refusal does not name the unreadable markers %s: %v", homes, err)
	}
	t.Log(err)
}
