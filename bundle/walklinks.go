package bundle

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// maxLinkText bounds the text of a symbolic link the walk reads. Linux
// stores at most PATH_MAX-1 (4095) bytes; a full buffer means more.
const maxLinkText = 4096

// errLinkReplaced: the name was a different inode when its text was read.
var errLinkReplaced = errors.New("the link was replaced while it was read")

// readlinkChecked reads the text of the symbolic link name in the
// directory dirfd, whose lstat was st, and lstats it again afterwards: a
// link's text cannot change in place, so the same inode with the same
// ctime is the link st describes, and the text belongs to it.
func readlinkChecked(dirfd int, name string, st *unix.Stat_t) (string, error) {
	buf := make([]byte, maxLinkText)
	n, err := unix.Readlinkat(dirfd, name, buf)
	if err != nil {
		return "", err
	}
	if n >= len(buf) {
		return "", unix.ENAMETOOLONG
	}
	var again unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &again, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return "", err
	}
	_, ct := statTimes(st)
	_, ct2 := statTimes(&again)
	if again.Mode&unix.S_IFMT != unix.S_IFLNK || again.Dev != st.Dev || again.Ino != st.Ino || ct != ct2 {
		return "", errLinkReplaced
	}
	return string(buf[:n]), nil
}

// resolveLinks replaces the text of every KindLink entry by the path of
// the regular file it names, and drops from the tree, with a Skip finding,
// every link that names anything else. The entries must be sorted.
func (w *walker) resolveLinks() {
	t := w.tree
	refused := make([]bool, len(t.Entries))
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.Kind != KindLink {
			continue
		}
		// resolveLink looks only at kinds, never at another link's
		// Target, so resolving in place does not depend on the order.
		target, why := resolveLink(t, e.Path, e.Target)
		if why != "" {
			w.rep.Skipf(dispPath(e.Path), "tree.symlink", "the link is not part of the bundle: %s", why)
			refused[i] = true
			t.RefusedLinks = append(t.RefusedLinks, e.Path)
			continue
		}
		e.Target = target
	}
	kept := t.Entries[:0]
	for i, e := range t.Entries {
		if !refused[i] {
			kept = append(kept, e)
		}
	}
	clear(t.Entries[len(kept):])
	t.Entries = kept
	w.links = 0
}

// resolveLink is ResolveLink against the walked tree t.
func resolveLink(t *Tree, linkPath, raw string) (target, why string) {
	return ResolveLink(linkPath, raw, func(rel string) (Kind, bool) {
		e, ok := t.Lookup(rel)
		return e.Kind, ok
	})
}

// ResolveLink resolves the text raw of a symbolic link at linkPath (both
// relative to a tree's root) against that tree, whose entries kindOf
// describes (the kind of the entry at a clean relative path; false when
// there is none), element by element as the kernel would but without
// following anything: the text must be relative; "." and empty elements
// stay, ".." goes up and never above the root; every element followed by
// another must be a directory (not a link, not a file); and the last must
// name a regular file (not a directory, not another link, not missing).
// It returns the target's clean path relative to the root, or why the
// link is refused. Because every element on the way is a real directory
// of the tree, the kernel resolves the text to the same file. This is the
// rule of Walk (docs/tree-rules.md); a source that installs a tree can
// apply it to keep exactly the links a walk will accept.
func ResolveLink(linkPath, raw string, kindOf func(rel string) (Kind, bool)) (target, why string) {
	q := Quote(raw)
	switch {
	case raw == "":
		return "", "its target is empty"
	case strings.HasPrefix(raw, "/"):
		return "", fmt.Sprintf("its target %s is an absolute path; only relative links to a file of the bundle are kept", q)
	}
	var stack []string
	if d := path.Dir(linkPath); d != "." {
		stack = strings.Split(d, "/")
	}
	elems := strings.Split(raw, "/")
	for k, el := range elems {
		switch el {
		case "", ".":
			continue
		case "..":
			if len(stack) == 0 {
				return "", fmt.Sprintf("its target %s leaves the bundle directory", q)
			}
			stack = stack[:len(stack)-1]
			continue
		}
		stack = append(stack, el)
		if k == len(elems)-1 {
			continue // the last element: checked below
		}
		p := strings.Join(stack, "/")
		k, ok := kindOf(p)
		switch {
		case !ok:
			return "", fmt.Sprintf("its target %s does not exist in the bundle", q)
		case k == KindLink:
			return "", fmt.Sprintf("its target %s goes through the link %s; links are never followed", q, Quote(p))
		case k != KindDir:
			return "", fmt.Sprintf("its target %s goes through %s, which is not a directory", q, Quote(p))
		}
	}
	if len(stack) == 0 {
		return "", fmt.Sprintf("its target %s is the bundle directory; only links to a file are kept", q)
	}
	target = strings.Join(stack, "/")
	k, ok := kindOf(target)
	switch {
	case !ok:
		return "", fmt.Sprintf("its target %s does not exist in the bundle", q)
	case k == KindDir:
		return "", fmt.Sprintf("its target %s is a directory; only links to a file are kept", q)
	case k == KindLink:
		return "", fmt.Sprintf("its target %s is another link; links to links are not kept", q)
	case !k.Regular():
		return "", fmt.Sprintf("its target %s is not a regular file", q)
	}
	return target, ""
}

// LinkText is the text bundlectl writes for a link at linkPath to the
// regular file target (both relative to the root, target as resolved by
// the walk): the shortest relative path, "../" only for the directories
// the two do not share. Resolved element by element it leads through
// directories of the tree only, so the kernel reaches target, and a walk
// resolves it to target again.
func LinkText(linkPath, target string) string {
	var from []string
	if d := path.Dir(linkPath); d != "." {
		from = strings.Split(d, "/")
	}
	to := strings.Split(target, "/")
	common := 0
	for common < len(from) && common < len(to)-1 && from[common] == to[common] {
		common++
	}
	return strings.Repeat("../", len(from)-common) + strings.Join(to[common:], "/")
}
