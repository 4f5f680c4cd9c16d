package sources

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
)

// MaxLinkTarget bounds the target of a symbolic link kept in a tree.
const MaxLinkTarget = 4096

// MaxPathNameBytes bounds one name of a fetched path: NAME_MAX on Linux, and
// no more than macOS (255 bytes of UTF-8) or Windows (255 UTF-16 units)
// takes. An archive or a git tree can carry a longer one.
const MaxPathNameBytes = 255

type entryKind uint8

const (
	kindDir entryKind = iota + 1
	kindFile
	kindLink
)

// tree writes a fetched tree into its output directory. Every entry, from
// whatever source, passes through it, so the rules are enforced in one
// place: canonical relative paths whose elements pass the tree name rules
// (no "..", no absolute paths), no two entries with the same path or with
// names that collide under NFC and case folding, the bundle limits
// (entries, per-file and total bytes, depth, path length) counted on what
// is declared before anything is read and on what is actually written,
// regular files and directories only, plus — where the source kind
// allows them — symbolic links whose target lies inside the tree and is a
// regular file there. Files are created O_EXCL below an os.Root, so
// nothing is written outside the output directory.
type tree struct {
	ctx      context.Context
	root     *os.Root
	lim      bundle.Limits
	links    bool   // internal symbolic links are allowed
	what     string // "archive", "repository", "directory": for messages
	src      string // display source
	kinds    map[string]entryKind
	keys     map[string]string // parent + "\x00" + CollisionKey(name) → name
	declared map[string]int64  // file → declared size
	written  map[string]bool
	pending  []pendingLink
	entries  int
	total    int64
	// archiveRoot is the archive's directory extractArchive wrote as
	// the tree's root ("" for the archive's own root).
	archiveRoot string
}

type pendingLink struct{ path, target string }

func newTree(dir string, lim bundle.Limits, links bool, what, src string) (*tree, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return newTreeIn(r, lim, links, what, src), nil
}

// newTreeIn is newTree of the directory r, which the tree closes.
func newTreeIn(r *os.Root, lim bundle.Limits, links bool, what, src string) *tree {
	return &tree{
		root: r, lim: lim.WithDefaults(), links: links, what: what, src: src,
		kinds: map[string]entryKind{"": kindDir}, keys: map[string]string{},
		declared: map[string]int64{}, written: map[string]bool{},
	}
}

func (t *tree) close() { t.root.Close() }

func (t *tree) refuse(p, format string, args ...any) error {
	return &Error{Source: t.src, Path: p, Reason: fmt.Sprintf(format, args...), Err: ErrRefused}
}

// clean validates the member path p and returns it canonical: no leading
// "./", no trailing "/", "" for the root itself.
func (t *tree) clean(p string) (string, error) {
	orig := p
	if strings.HasPrefix(p, "/") {
		return "", t.refuse(orig, "an absolute path is refused")
	}
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	p = strings.TrimSuffix(p, "/")
	if p == "" || p == "." {
		return "", nil
	}
	elems := strings.Split(p, "/")
	for _, e := range elems {
		if e == ".." {
			return "", t.refuse(orig, "the path leaves the tree (\"..\")")
		}
		if msg, _ := bundle.CheckName(e); msg != "" {
			return "", t.refuse(orig, "%s", msg)
		}
		if IsGitDirName(e) {
			return "", t.refuse(orig, "%s is the name of a git repository's directory, which a fetched tree may not hold: a repository there would run its configuration for any git command started in it", bundle.Quote(e))
		}
		if len(e) > MaxPathNameBytes {
			// Refused here, naming the source, rather than by the
			// create that would fail with ENAMETOOLONG.
			return "", t.refuse(orig, "a name in the path is %d bytes, longer than the %d a file system allows", len(e), MaxPathNameBytes)
		}
	}
	if len(p) > t.lim.MaxPathBytes {
		return "", t.refuse(orig, "the path is %d bytes, longer than the limit of %d", len(p), t.lim.MaxPathBytes)
	}
	if len(elems) > t.lim.MaxDepth {
		return "", t.refuse(orig, "the path is deeper than the limit of %d elements", t.lim.MaxDepth)
	}
	return p, nil
}

// add records the entry p (already clean) of kind k, creating missing
// parent directories, and creates directories on disk.
func (t *tree) add(p string, k entryKind) error {
	if p == "" {
		if k != kindDir {
			return t.refuse(".", "the root of the tree is not a directory")
		}
		return nil
	}
	if old, ok := t.kinds[p]; ok {
		if old == kindDir && k == kindDir {
			return nil
		}
		return t.refuse(p, "the %s holds this path twice", t.what)
	}
	parent := path.Dir(p)
	if parent == "." {
		parent = ""
	}
	if pk, ok := t.kinds[parent]; !ok {
		if err := t.add(parent, kindDir); err != nil {
			return err
		}
	} else if pk != kindDir {
		return t.refuse(p, "its parent %s is not a directory", bundle.Quote(parent))
	}
	name := path.Base(p)
	key := parent + "\x00" + CollisionKey(name)
	if other, dup := t.keys[key]; dup {
		return t.refuse(p, "the name collides with %s under Unicode NFC and case folding", bundle.Quote(pathJoin(parent, other)))
	}
	t.entries++
	if t.ctx != nil && t.entries%256 == 0 && t.ctx.Err() != nil {
		return &Error{Source: t.src, Reason: "the fetch was stopped: " + t.ctx.Err().Error(), Err: ErrTimeout}
	}
	if t.entries > t.lim.MaxEntries {
		return t.refuse(p, "the %s has more than %d entries", t.what, t.lim.MaxEntries)
	}
	t.keys[key] = name
	t.kinds[p] = k
	if k == kindDir {
		if err := t.root.Mkdir(p, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", bundle.Quote(p), err)
		}
		if err := t.root.Chmod(p, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// dir adds the directory p.
func (t *tree) dir(p string) error {
	c, err := t.clean(p)
	if err != nil {
		return err
	}
	return t.add(c, kindDir)
}

// reserve adds the regular file p without content yet; size is its
// declared size, -1 while unknown (then account must follow).
func (t *tree) reserve(p string, size int64) (string, error) {
	c, err := t.clean(p)
	if err != nil {
		return "", err
	}
	if c == "" {
		return "", t.refuse(".", "the root of the tree is not a directory")
	}
	if err := t.add(c, kindFile); err != nil {
		return "", err
	}
	if size >= 0 {
		if err := t.account(c, size); err != nil {
			return "", err
		}
	}
	return c, nil
}

// account checks the declared size of the reserved file c against the
// per-file and total bounds.
func (t *tree) account(c string, size int64) error {
	if size > t.lim.MaxFileBytes {
		return t.refuse(c, "the file is %d bytes, larger than the limit of %d", size, t.lim.MaxFileBytes)
	}
	t.declared[c] = size
	t.total += size
	if t.total > t.lim.MaxTotalBytes {
		return t.refuse(c, "the files of the %s exceed the limit of %d bytes in total", t.what, t.lim.MaxTotalBytes)
	}
	return nil
}

// write fills the reserved file c with exactly its declared size from r:
// more or fewer bytes are refused (a member that lies about its size, a
// local file that changed while it was copied).
func (t *tree) write(c string, exec bool, r io.Reader) error {
	size, ok := t.declared[c]
	if !ok || t.written[c] {
		return t.refuse(c, "the %s holds this path twice", t.what)
	}
	t.written[c] = true
	f, err := t.root.OpenFile(c, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("create %s: %w", bundle.Quote(c), err)
	}
	rr := &readErr{r: r}
	n, err := io.Copy(f, io.LimitReader(rr, size+1))
	if rr.err != nil && rr.err != io.EOF {
		f.Close()
		return t.refuse(c, "cannot read the file from the %s: %s", t.what, bundle.Sanitize(rr.err.Error()))
	}
	if err == nil {
		mode := os.FileMode(0o644)
		if exec {
			mode = 0o755
		}
		err = f.Chmod(mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		if _, ok := err.(*Error); ok {
			return err
		}
		return fmt.Errorf("write %s: %w", bundle.Quote(c), err)
	case n > size:
		return t.refuse(c, "the file holds more bytes than the %d it declared", size)
	case n < size:
		return t.refuse(c, "the file holds fewer bytes than the %d it declared", size)
	}
	return nil
}

// readErr remembers the error of the reader it wraps, so a failed read
// (a corrupt member) is told apart from a failed write.
type readErr struct {
	r   io.Reader
	err error
}

func (r *readErr) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil {
		r.err = err
	}
	return n, err
}

// file reserves and writes the regular file p in one step.
func (t *tree) file(p string, size int64, exec bool, r io.Reader) error {
	c, err := t.reserve(p, size)
	if err != nil {
		return err
	}
	return t.write(c, exec, r)
}

// link adds the symbolic link p; its target is checked once the whole
// tree is known (finish).
func (t *tree) link(p, target string) error {
	if !t.links {
		return t.refuse(p, "symbolic links are not allowed in an %s", t.what)
	}
	c, err := t.clean(p)
	if err != nil {
		return err
	}
	if c == "" {
		return t.refuse(".", "the root of the tree is a symbolic link")
	}
	if err := t.add(c, kindLink); err != nil {
		return err
	}
	t.pending = append(t.pending, pendingLink{c, target})
	return nil
}

// finish checks that every reserved file was written and creates the
// links whose target resolves, inside the tree, to a regular file of the
// tree. Every other link (absolute, leaving the tree, dangling, to a
// directory or to another link) is refused.
func (t *tree) finish() error {
	var missing []string
	for c := range t.declared {
		if !t.written[c] {
			missing = append(missing, c)
		}
	}
	for c, k := range t.kinds {
		if k == kindFile {
			if _, ok := t.declared[c]; !ok {
				missing = append(missing, c)
			}
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return t.refuse(missing[0], "the %s did not deliver this file", t.what)
	}
	for _, l := range t.pending {
		if err := t.checkLink(l); err != nil {
			return err
		}
		if err := t.root.Symlink(l.target, l.path); err != nil {
			return fmt.Errorf("create link %s: %w", bundle.Quote(l.path), err)
		}
	}
	// Last, once every entry is on disk: where the file system finds a
	// name under another letter case, it finds a link's too.
	if d, shape, ok := t.gitDirectory(); ok {
		return &Error{Source: t.src, Path: d, Err: errGitShape,
			Reason: "the directory holds " + shape + ", which a fetched tree may not hold: git takes such a directory (and every directory below it) for a repository and would run its configuration for any git command started in it"}
	}
	return nil
}

// errGitShape wraps ErrRefused: a directory of the tree has a git
// directory's shape (gitDirectory). Its hint installs a copy of the
// bundle without that directory (InstallCopyWithout,
// InstallGitCopyWithout); where none can be printed, its listing is that
// directory's own, where the names that make the shape show
// (withListing, withGitListing).
var errGitShape = fmt.Errorf("%w: a git directory's shape", ErrRefused)

// gitNamesFold says that git finds HEAD, objects, refs and commondir
// under any letter case (and other names CollisionKey folds together)
// wherever the tree may end up: so on macOS and Windows, whose file
// systems compare names that way by default, and where a tree fetched on
// a case-sensitive volume may later be copied to one that is not. On
// Linux git opens those exact names, and a file system finds them under
// another case only in a case-folding directory (ext4 or tmpfs casefold,
// vfat, CIFS): the tree itself is asked (gitFinds). A test sets it.
var gitNamesFold = runtime.GOOS != "linux"

// gitDirectory returns the first directory of the tree (by path; "." for
// the root) that git would take for a git directory, and what makes it
// one: a HEAD it can read (a file or a link) beside objects and refs (a
// bare repository: git's is_git_directory asks only that it may enter
// them, so any kind counts), or beside commondir (a linked worktree's
// git directory: git looks for objects and refs, and reads the config,
// in the directory commondir names, which may be anywhere, the tree's
// own root included). Names are compared as git finds them (gitFinds):
// exactly, and under case folding where a file system may fold them. The name ".git" is
// refused on its own (IsGitDirName); this is the same repository under
// any other name, which git finds when a command starts in it or below
// it.
func (t *tree) gitDirectory() (dir, shape string, ok bool) {
	var dirs []string
	shapes := map[string]string{}
	for p, k := range t.kinds {
		if k != kindDir || !t.gitFinds(p, "HEAD", kindFile, kindLink) {
			continue
		}
		switch {
		case t.gitFinds(p, "objects") && t.gitFinds(p, "refs"):
			shapes[p] = "HEAD, objects and refs, the shape of a bare git repository"
		case t.gitFinds(p, "commondir"):
			shapes[p] = "HEAD and commondir, the shape of a linked worktree's git directory (its objects, refs and config are where commondir says)"
		default:
			continue
		}
		dirs = append(dirs, p)
	}
	if len(dirs) == 0 {
		return "", "", false
	}
	sort.Strings(dirs)
	if dirs[0] == "" {
		return ".", shapes[""], true
	}
	return dirs[0], shapes[dirs[0]], true
}

// gitFinds reports whether git, opening name in the directory dir
// (clean), finds an entry of the tree of one of kinds (any kind when none
// is given): one of that exact name, or of a name CollisionKey folds
// together with it where gitNamesFold says names fold, or where the file
// system the tree is written on resolves name to that entry (a
// case-folding directory on Linux).
func (t *tree) gitFinds(dir, name string, kinds ...entryKind) bool {
	got, ok := t.keys[dir+"\x00"+CollisionKey(name)]
	if !ok || len(kinds) > 0 && !slices.Contains(kinds, t.kinds[pathJoin(dir, got)]) {
		return false
	}
	if got == name || gitNamesFold {
		return true
	}
	asked, err := t.root.Lstat(pathJoin(dir, name))
	if err != nil {
		return false
	}
	held, err := t.root.Lstat(pathJoin(dir, got))
	return err == nil && os.SameFile(asked, held)
}

func (t *tree) checkLink(l pendingLink) error {
	tg := l.target
	switch {
	case tg == "":
		return t.refuse(l.path, "the symbolic link has an empty target")
	case len(tg) > MaxLinkTarget:
		return t.refuse(l.path, "the symbolic link's target is longer than %d bytes", MaxLinkTarget)
	case strings.HasPrefix(tg, "/"):
		return t.refuse(l.path, "the symbolic link points outside the tree (absolute target)")
	case strings.ContainsRune(tg, 0) || hasControl(tg):
		return t.refuse(l.path, "the symbolic link's target contains a control character")
	}
	// The walk's own rule, so the tree holds exactly the links a walk of
	// it keeps: element by element, each a directory of the tree, the last
	// a regular file, never above the root.
	kindOf := func(p string) (bundle.Kind, bool) {
		switch k, ok := t.kinds[p]; {
		case !ok:
			return 0, false
		case k == kindDir:
			return bundle.KindDir, true
		case k == kindLink:
			return bundle.KindLink, true
		}
		return bundle.KindFile, true
	}
	if _, why := bundle.ResolveLink(l.path, tg, kindOf); why != "" {
		return t.refuse(l.path, "the symbolic link does not point to a regular file of the tree (%s); only links to files inside the tree are kept", why)
	}
	return nil
}

// has reports whether p (clean) is an entry of kind k.
func (t *tree) has(p string, k entryKind) bool { return t.kinds[p] == k }

func pathJoin(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
