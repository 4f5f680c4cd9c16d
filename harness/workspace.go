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
//
// When no ancestor is a trusted workspace and dir lies in a linked git
// worktree (git worktree add, codex --worktree), the directory of the
// main checkout that dir's place in the worktree mirrors, and its
// ancestors up to the checkout, nearest first, are asked the same way,
// before any .bundlectl directory: a worktree made outside the checkout
// (under $CODEX_HOME/worktrees, say) then runs the checkout's guards, and
// its own committed .bundlectl, whose bundles nobody trusted there, does
// not hide them (linkedWorktreeMain). This step is reached only when the
// search above found nothing, so it can add a trusted workspace's guards,
// never take any away, and costs nothing when a trusted workspace is
// found among the ancestors.
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
	if len(ids) > 0 {
		if main, top := linkedWorktreeMain(resolved); main != "" {
			// The directory of the main checkout that dir's place in the
			// worktree mirrors, and its ancestors up to the checkout,
			// nearest first: a workspace below the git top has its
			// counterpart in the worktree too.
			if rel, err := filepath.Rel(top, resolved); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				for q := filepath.Join(main, rel); ; q = filepath.Dir(q) {
					owns := (bundle.Roots{Workspace: q}).OwnerAsWritten()
					for _, id := range ids {
						if owns(id) {
							return q
						}
					}
					if q == main || len(q) <= len(main) {
						break
					}
				}
			}
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

// gitFileLimit bounds each read of git's own small files (.git, commondir,
// gitdir): each holds one path.
const gitFileLimit = 4096

// linkedWorktreeMain returns the main worktree of the linked git worktree
// dir lies in and the top of that linked worktree, or "", "". Of dir and its ancestors, nearest first, the first
// whose .git is a regular file (never through a link) reading
// "gitdir: <dir>", where <dir> holds a commondir file naming the common
// git directory, a directory named .git, and a gitdir file naming this
// .git file back (the same file), as git worktree add writes them; the
// main worktree is the parent of that common directory. A nearer .git
// that is not such a file (a nested repository, a submodule) does not stop
// the search. git's files are read directly, a few kilobytes at most, and
// no git process runs.
func linkedWorktreeMain(dir string) (main, top string) {
	for p := dir; ; {
		if main := worktreeMainOf(p); main != "" {
			return main, p
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", ""
		}
		p = parent
	}
}

// worktreeMainOf returns the main worktree if p is the top of a linked
// git worktree, else "".
func worktreeMainOf(p string) string {
	dotGit := filepath.Join(p, ".git")
	var st unix.Stat_t
	if unix.Lstat(dotGit, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return ""
	}
	b, ok := readGitFile(dotGit)
	if !ok {
		return ""
	}
	line := strings.TrimSpace(b)
	if !strings.HasPrefix(line, "gitdir:") {
		return ""
	}
	gitdir := gitPath(p, strings.TrimSpace(strings.TrimPrefix(line, "gitdir:")))
	if gitdir == "" {
		return ""
	}
	back, ok := readGitFile(filepath.Join(gitdir, "gitdir"))
	if !ok {
		return ""
	}
	back = gitPath(gitdir, strings.TrimSpace(back))
	var bst unix.Stat_t
	if back == "" || unix.Lstat(back, &bst) != nil || bst.Dev != st.Dev || bst.Ino != st.Ino {
		return ""
	}
	common, ok := readGitFile(filepath.Join(gitdir, "commondir"))
	if !ok {
		return ""
	}
	common = gitPath(gitdir, strings.TrimSpace(common))
	var cst unix.Stat_t
	if common == "" || filepath.Base(common) != ".git" || unix.Lstat(common, &cst) != nil || cst.Mode&unix.S_IFMT != unix.S_IFDIR {
		return ""
	}
	return filepath.Dir(common)
}

// gitPath is a path git wrote in a file, taken from base when relative,
// cleaned; "" if empty or holding a NUL or a newline.
func gitPath(base, p string) string {
	if p == "" || strings.ContainsAny(p, "\x00\n\r") {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// readGitFile reads a regular file, never through a link at its last
// component and never blocking on a FIFO, of at most gitFileLimit bytes.
func readGitFile(path string) (string, bool) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > gitFileLimit {
		return "", false
	}
	buf := make([]byte, gitFileLimit+1)
	n := 0
	for n < len(buf) {
		m, err := unix.Read(fd, buf[n:])
		if m <= 0 || err != nil {
			break
		}
		n += m
	}
	if n > gitFileLimit {
		return "", false
	}
	return string(buf[:n]), true
}
