package harness

import (
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/state"
)

// chooseWorkspace picks the workspace of a directory (a hook event's
// cwd), after the state is read. Of dir and its ancestors, nearest first:
// the first that is the workspace of a bundle the state trusts and
// enables; else the first holding a .bundlectl directory the user owns;
// else dir. A .bundlectl directory made in a subdirectory — by the agent a
// guard guards, say — therefore does not hide the guards of the workspace
// around it, and neither does deleting that workspace's .bundlectl, nor
// replacing a directory on the way with a symbolic link: the ancestors of
// dir as written are asked first, then those of the directory it resolves
// to, each matched only as written (bundle.Roots.OwnerAsWritten: a
// subdirectory linked to another trusted workspace is not that
// workspace), and the registry then matches the chosen workspace's
// trusted bundles in every form of its path (bundle.Roots.Owner).
func chooseWorkspace(dir string, s *state.State) string {
	lexical, err := filepath.Abs(dir)
	if err != nil {
		lexical = dir
	}
	resolved := lexical
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		resolved = r
	}
	var ids []string
	for _, id := range s.IDs() {
		if strings.HasPrefix(id, string(bundle.ScopeWorkspace)+"/") {
			if rec, _ := s.Bundle(id); rec.Enabled && rec.Receipt != nil {
				ids = append(ids, id)
			}
		}
	}
	// The ancestors as written first: a directory reached through a link
	// (a subdirectory linked elsewhere, a workspace moved and a link left
	// at its path) still lies in the workspace it was reached from.
	starts := []string{lexical}
	if resolved != lexical {
		starts = append(starts, resolved)
	}
	for _, start := range starts {
		if len(ids) == 0 {
			break
		}
		for p := start; ; {
			owns := (bundle.Roots{Workspace: p}).OwnerAsWritten()
			for _, id := range ids {
				if owns(id) {
					return p
				}
			}
			parent := filepath.Dir(p)
			if parent == p {
				break
			}
			p = parent
		}
	}
	uid := uint32(os.Geteuid())
	for p := resolved; ; {
		var st unix.Stat_t
		if unix.Lstat(filepath.Join(p, ".bundlectl"), &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && st.Uid == uid {
			return p
		}
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	return resolved
}
