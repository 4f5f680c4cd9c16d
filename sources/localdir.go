package sources

import (
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/bundlectl/bundlectl/bundle"
)

// copyDir copies the directory sub (a clean relative path, "" for the
// root) below base into t, leaving out every .git (IsGitDirName: the
// repository of a checkout, or a submodule's, is not part of a bundle).
// base is trusted to exist; everything below it
// is not: sub must be reached through real directories (no link on the
// way), the walk never follows a link, a link is kept only under t's
// rules, a device, FIFO or socket is refused, and each file is opened
// without following links or blocking and checked to be the regular file
// the walk saw, read to exactly its walked size.
func copyDir(t *tree, base, sub string) error {
	r, err := os.OpenRoot(base)
	if err != nil {
		return &Error{Source: t.src, Reason: "cannot open the directory: " + errText(err), Err: err}
	}
	defer r.Close()
	if err := realDirPath(t, r, sub); err != nil {
		return withListing(err, base, "")
	}
	return withListing(copyWalk(t, r, sub, ""), base, sub)
}

// withListing gives a refusal of an entry of the directory base/under
// (its Path relative to that) the command that lists the entry's
// directory, where what was refused shows: a FIFO, a link and where it
// points, the names that collide; for a directory that is not there (a
// --path, a marketplace entry's path), the directory it was looked for
// in.
func withListing(err error, base, under string) error {
	var e *Error
	if !errors.As(err, &e) || e.Fix != "" || e.Path == "" || !errors.Is(err, ErrRefused) && !errors.Is(err, ErrNotFound) {
		return err
	}
	dir := filepath.Join(base, filepath.FromSlash(under), filepath.FromSlash(path.Dir(e.Path)))
	list := func(dir string) string {
		if hasControl(dir) {
			return ""
		}
		return "ls -la -- " + bundle.ShellArg(dir)
	}
	if errors.Is(err, errGitShape) {
		dir = filepath.Join(base, filepath.FromSlash(under), filepath.FromSlash(e.Path))
		if fix := InstallCopyWithout(filepath.Join(base, filepath.FromSlash(under)), e.Path); fix != "" {
			e.Fix, e.copyFix, e.listFix = fix, true, list(dir)
			return err
		}
	}
	e.Fix = list(dir)
	return err
}

// realDirPath checks that every element of sub below r is a directory and
// not a symbolic link.
func realDirPath(t *tree, r *os.Root, sub string) error {
	if sub == "" {
		return nil
	}
	cur := ""
	for _, e := range strings.Split(sub, "/") {
		cur = pathJoin(cur, e)
		fi, err := r.Lstat(cur)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return &Error{Source: t.src, Path: cur, Reason: "no such directory", Err: ErrNotFound}
		case err != nil:
			return &Error{Source: t.src, Path: cur, Reason: errText(err), Err: err}
		case fi.Mode()&os.ModeSymlink != 0:
			return &Error{Source: t.src, Path: cur, Reason: "is a symbolic link; bundlectl never follows links to find a bundle", Err: ErrRefused}
		case !fi.IsDir():
			return &Error{Source: t.src, Path: cur, Reason: "is not a directory", Err: ErrNotFound}
		}
	}
	return nil
}

// copyWalk copies the directory src (relative to r) to dst (relative to
// t's root).
func copyWalk(t *tree, r *os.Root, src, dst string) error {
	open := src
	if open == "" {
		open = "."
	}
	d, err := r.OpenFile(open, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return t.refuse(displayRel(dst), "cannot open the directory: %s", errText(err))
	}
	names, over, err := readNames(d, t.lim.MaxEntries)
	d.Close()
	if err != nil {
		return t.refuse(displayRel(dst), "cannot list the directory: %s", errText(err))
	}
	if over {
		return t.refuse(displayRel(dst), "the directory holds more than %d names", t.lim.MaxEntries)
	}
	sort.Strings(names)
	for _, name := range names {
		if IsGitDirName(name) {
			// A checkout's repository (or a submodule's .git file) is
			// not part of the bundle, at any depth, as git would
			// commit none of them.
			continue
		}
		sp, dp := pathJoin(src, name), pathJoin(dst, name)
		fi, err := r.Lstat(sp)
		if err != nil {
			return t.refuse(dp, "cannot stat: %s", errText(err))
		}
		m := fi.Mode()
		switch {
		case m.IsDir():
			if err := t.dir(dp); err != nil {
				return err
			}
			if err := copyWalk(t, r, sp, dp); err != nil {
				return err
			}
		case m.IsRegular():
			if err := copyFile(t, r, sp, dp, fi); err != nil {
				return err
			}
		case m&os.ModeSymlink != 0:
			target, err := r.Readlink(sp)
			if err != nil {
				return t.refuse(dp, "cannot read the symbolic link: %s", errText(err))
			}
			if err := t.link(dp, target); err != nil {
				return err
			}
		case m&os.ModeNamedPipe != 0:
			return t.refuse(dp, "named pipes (FIFOs) are not allowed in a bundle")
		case m&os.ModeSocket != 0:
			return t.refuse(dp, "sockets are not allowed in a bundle")
		case m&os.ModeDevice != 0:
			return t.refuse(dp, "device files are not allowed in a bundle")
		default:
			return t.refuse(dp, "unsupported file type")
		}
	}
	return nil
}

func copyFile(t *tree, r *os.Root, sp, dp string, walked os.FileInfo) error {
	c, err := t.reserve(dp, walked.Size())
	if err != nil {
		return err
	}
	// O_NONBLOCK: a FIFO swapped in after the walk cannot block the open.
	f, err := r.OpenFile(sp, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return t.refuse(dp, "cannot open: %s", errText(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return t.refuse(dp, "cannot stat: %s", errText(err))
	}
	if !fi.Mode().IsRegular() || !os.SameFile(fi, walked) {
		return t.refuse(dp, "the file was replaced while it was copied")
	}
	exec := fi.Mode().Perm()&0o111 != 0
	return t.write(c, exec, f)
}

// readNames lists a directory in chunks, stopping once it has seen more
// than max names, so a directory of millions of entries is not read whole.
func readNames(f *os.File, max int) (names []string, over bool, err error) {
	for {
		chunk, err := f.Readdirnames(1024)
		names = append(names, chunk...)
		if len(names) > max {
			return nil, true, nil
		}
		if err == io.EOF {
			return names, false, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}

func displayRel(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// InstallCopyWithout is the command that does what docs/sources.md says
// to do with a bundle in the directory root that holds a directory shaped
// as a git repository (rel, relative to root: a plugin's test fixture,
// most often): copy the bundle, without that directory, into a new
// temporary directory (under the same directory name, whose name the
// bundle takes where its manifest names none), and install the copy from
// there, to be reviewed as any install is; the copy stays, as the
// installed bundle's recorded source. It is a script of sh's given its
// words as arguments (so it runs as printed in any shell); bundlectl
// runs in it with the arguments after the third ("$@"), where the
// command line adds the --home and --workspace it was given. "" where
// root is not an absolute path, or rel not a plain relative one.
func InstallCopyWithout(root, rel string) string {
	name := filepath.Base(root)
	if !filepath.IsAbs(root) || hasControl(root) || name == "." || name == ".." || name == string(filepath.Separator) || !plainRel(rel) {
		return ""
	}
	return `sh -c 'd=$(mktemp -d) && cp -R "$1" "$d/$2" && rm -rf "$d/$2/$3" && p=$d/$2 && shift 3 && bundlectl "$@" install "$p"' sh ` +
		bundle.ShellArg(root) + " " + bundle.ShellArg(name) + " " + bundle.ShellArg(rel)
}
