package sources

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/bundlectl/bundlectl/bundle"
)

// gitWorkDir finds, once per fetch, the working directory every git
// command runs in: the scratch directory, entered through its descriptor
// where the system allows (heldWorkDir), else by its path, but only when
// no other user can write any directory on that path (privateWorkDir):
// then nobody but this user and root can rename one away and put a link
// in its place while git runs. Otherwise the fetch is refused, naming the
// directory.
func (f *fetcher) gitWorkDir(src string) (string, error) {
	if f.workDir != "" {
		return f.workDir, nil
	}
	if p, ok := f.heldWorkDir(); ok {
		f.workDir, f.viaFD = p, true
		return p, nil
	}
	p, err := f.privateWorkDir(src)
	if err != nil {
		return "", err
	}
	f.workDir = p
	return p, nil
}

// privateWorkDir returns the scratch directory's path, its links
// resolved, when every directory on it belongs to this user or root and
// none may be written by another user (but for a sticky one, such as
// /tmp, in which only an entry's owner may rename it), and the path
// leads to the scratch directory held.
func (f *fetcher) privateWorkDir(src string) (string, error) {
	path := filepath.Join(f.parent, f.scratchN)
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", f.workDirError(src, path, "cannot be resolved: "+errText(err), "ls -ld -- "+bundle.ShellArg(path))
	}
	uid := uint32(os.Geteuid())
	for d := real; ; d = filepath.Dir(d) {
		fi, err := os.Lstat(d)
		if err != nil {
			return "", f.workDirError(src, d, "cannot be read: "+errText(err), "ls -ld -- "+bundle.ShellArg(d))
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || !fi.IsDir() {
			return "", f.workDirError(src, d, "is not a directory", "ls -ld -- "+bundle.ShellArg(d))
		}
		mode := fi.Mode()
		switch {
		case st.Uid != uid && st.Uid != 0:
			return "", f.workDirError(src, d, fmt.Sprintf("belongs to user %d, not to this user (%d) or root", st.Uid, uid), "ls -ld -- "+bundle.ShellArg(d))
		case mode.Perm()&0o022 != 0 && mode&os.ModeSticky == 0:
			fix := "ls -ld -- " + bundle.ShellArg(d)
			if st.Uid == uid {
				fix = "chmod go-w -- " + bundle.ShellArg(d)
			}
			return "", f.workDirError(src, d, fmt.Sprintf("may be written by other users (mode %o)", mode.Perm()), fix)
		}
		if parent := filepath.Dir(d); parent == d {
			break
		}
	}
	fi, err := os.Stat(real)
	held, herr := f.scratchF.Stat()
	if err != nil || herr != nil || !os.SameFile(fi, held) {
		return "", f.workDirError(src, path, "no longer leads to the scratch directory this fetch made (it, or a directory above it, was replaced)", "ls -ld -- "+bundle.ShellArg(path))
	}
	return real, nil
}

// workDirError refuses to start git: dir, on the scratch directory's
// path, could be swapped by another user while git runs, and there is no
// way to start git in the directory held open.
func (f *fetcher) workDirError(src, dir, why, fix string) error {
	return &Error{Source: src,
		Reason: fmt.Sprintf("git cannot be started safely in the fetch's scratch directory: %s, so git cannot be started there by its descriptor; by its path it cannot either, as %s %s, so a swap of it while git runs could send git's writes elsewhere; nothing was fetched (a home on the root's file system fetches into its own tmp, which only its user may write)",
			noHeldDir, bundle.Quote(dir), why),
		Fix: fix, Err: ErrRefused}
}
