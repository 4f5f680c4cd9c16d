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
// around it, and neither does deleting that workspace's .bundlectl. dir is
// resolved through links first, so a linked path has the ancestors of the
// directory it names.
func chooseWorkspace(dir string, s *state.State) string {
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		dir = resolved
	}
	var ids []string
	for _, id := range s.IDs() {
		if strings.HasPrefix(id, string(bundle.ScopeWorkspace)+"/") {
			if rec, _ := s.Bundle(id); rec.Enabled && rec.Receipt != nil {
				ids = append(ids, id)
			}
		}
	}
	uid := uint32(os.Geteuid())
	withDir := ""
	for p := dir; ; {
		if len(ids) > 0 {
			owns := (bundle.Roots{Workspace: p}).Owner()
			for _, id := range ids {
				if owns(id) {
					return p
				}
			}
		}
		var st unix.Stat_t
		if withDir == "" && unix.Lstat(filepath.Join(p, ".bundlectl"), &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && st.Uid == uid {
			withDir = p
			if len(ids) == 0 {
				return p
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	if withDir != "" {
		return withDir
	}
	return dir
}
