package bundle

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sys/unix"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Walk lists and validates the tree below dir without following any
// symbolic link and without opening anything but directories, so a FIFO or
// device cannot block it. Every violation of the tree rules (docs/tree-rules.md)
// is an Error finding in the returned report; the walk goes on past them so
// that one run reports them all, but stops descending once a bound is
// exceeded. dir must be absolute and canonical. The returned tree is nil
// only when dir itself cannot be opened as a directory.
//
// A symbolic link below dir is read, never followed. One whose text
// resolves inside the tree to a regular file (resolveLink) is a KindLink
// entry; any other is left out of the tree with a Skip finding (rule
// tree.symlink): it is not part of the bundle, and whatever names it
// fails its own check. dir itself being a link is an Error.
func Walk(dir string, lim Limits) (*Tree, Report) { return walk(dir, lim, true) }

// WalkSerial is Walk on the calling goroutine alone, for a caller that
// already walks many trees at once on its own workers.
func WalkSerial(dir string, lim Limits) (*Tree, Report) { return walk(dir, lim, false) }

func walk(dir string, lim Limits, parallel bool) (*Tree, Report) {
	lim = lim.WithDefaults()
	w := &walker{lim: lim, tree: &Tree{Root: dir}}
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		w.rep.Errorf(".", "tree.unreadable", "cannot read the bundle directory: %v", errnoText(err))
		return nil, w.rep
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		w.rep.Errorf(".", "tree.symlink", "the bundle directory is a symbolic link; bundlectl never follows links")
		return nil, w.rep
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		w.rep.Errorf(".", "tree.type", "the bundle path is not a directory")
		return nil, w.rep
	}
	if st.Mode&(unix.S_ISUID|unix.S_ISGID|unix.S_ISVTX) != 0 {
		w.rep.Errorf(".", "tree.mode", "the bundle directory has a setuid, setgid or sticky bit")
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		w.rep.Errorf(".", "tree.unreadable", "cannot open the bundle directory: %v", errnoText(err))
		return nil, w.rep
	}
	var rst unix.Stat_t
	if err := unix.Fstat(fd, &rst); err != nil {
		unix.Close(fd)
		w.rep.Errorf(".", "tree.unreadable", "cannot read the bundle directory: %v", errnoText(err))
		return nil, w.rep
	}
	w.tree.RootDev, w.tree.RootIno = uint64(rst.Dev), uint64(rst.Ino)
	// The system calls of a walk (list, stat, open) dominate its cost, so
	// they run first on a few workers (prescan); the rules then apply in
	// one deterministic pass over what was seen. When the prescan cannot
	// be used (no openat2, a bound exceeded, a directory replaced while it
	// was read) the same pass reads the file system directly.
	var root dirSource
	if raw, ok := prescanIf(parallel, fd, lim); ok {
		unix.Close(fd)
		root = &rawDir{all: raw, rel: ""}
	} else {
		root = newFdDir(fd)
	}
	scratch := takeScratch()
	w.tree.Entries = *scratch
	w.walkDir(root, "", 0)
	sortEntries(w.tree.Entries)
	if w.links > 0 {
		w.resolveLinks()
	}
	w.tree.Entries = settle(scratch, w.tree.Entries)
	return w.tree, w.rep
}

// scratchEntries holds the growing entry lists of walks that finished, for
// the next walk to grow into: a walk appends one entry at a time, and
// growing a fresh list to a few hundred entries allocates three times its
// final size, which a listing of many bundles pays in page faults.
var scratchEntries = sync.Pool{New: func() any { return new([]Entry) }}

func takeScratch() *[]Entry {
	s := scratchEntries.Get().(*[]Entry)
	*s = (*s)[:0]
	return s
}

// settle returns a copy of es (which grew in scratch) of exactly its
// length, and gives scratch back for another walk.
func settle(scratch *[]Entry, es []Entry) []Entry {
	out := slices.Clone(es)
	release(scratch, es)
	return out
}

// release gives scratch back, es being what grew in it; nothing of es is
// kept alive by the pool.
func release(scratch *[]Entry, es []Entry) {
	clear(es)
	*scratch = es[:0]
	scratchEntries.Put(scratch)
}

type walker struct {
	lim     Limits
	tree    *Tree
	rep     Report
	stopped bool // a bound was exceeded; no further entries are recorded
	links   int  // KindLink entries still holding the raw text they read
	paths   pathArena
}

var folder = cases.Fold()

// walkDir applies the rules to the directory src (which it closes),
// relative path rel ("" for the root), at depth elements below the root.
func (w *walker) walkDir(src dirSource, rel string, depth int) {
	defer src.close()
	names, over, err := src.list(w.lim.MaxEntries)
	if err != nil {
		w.rep.Errorf(dispPath(rel), "tree.unreadable", "cannot list the directory: %v", err)
		return
	}
	if over {
		// Every name is an entry or a finding, so a directory this large
		// breaks the bound whatever it holds; reading on would only cost
		// memory and time.
		w.rep.Errorf(dispPath(rel), "bounds.entries", "the directory holds more than %d names; the walk stopped here", w.lim.MaxEntries)
		w.stopped = true
		return
	}
	// Names a file system keeps apart can collide only when one has an
	// upper-case or non-ASCII letter; only then is the map needed.
	var seen map[string]string
	if mayCollide(names) {
		seen = make(map[string]string, len(names))
	}
	for i, name := range names {
		if w.stopped {
			return
		}
		p := w.paths.join(rel, name)
		nameOK := w.checkName(p, name)
		if nameOK && seen != nil {
			key := collisionKey(name)
			if other, dup := seen[key]; dup {
				w.rep.Errorf(dispPath(p), "name.collision", "name collides with %s under Unicode NFC and case folding", Quote(pathJoin(rel, other)))
			} else {
				seen[key] = name
			}
		}
		if len(p) > w.lim.MaxPathBytes {
			w.rep.Errorf(dispPath(p), "bounds.path", "path is %d bytes, longer than the limit of %d", len(p), w.lim.MaxPathBytes)
			continue
		}
		if depth+1 > w.lim.MaxDepth {
			w.rep.Errorf(dispPath(p), "bounds.depth", "path is deeper than the limit of %d elements", w.lim.MaxDepth)
			continue
		}
		st, err := src.stat(i, name)
		if err != nil {
			w.rep.Errorf(dispPath(p), "tree.unreadable", "cannot stat: %v", errnoText(err))
			continue
		}
		if len(w.tree.Entries) >= w.lim.MaxEntries {
			w.rep.Errorf(dispPath(p), "bounds.entries", "the bundle has more than %d entries; the walk stopped here", w.lim.MaxEntries)
			w.stopped = true
			return
		}
		mode := uint32(st.Mode) & 0o7777
		if mode&(unix.S_ISUID|unix.S_ISGID|unix.S_ISVTX) != 0 {
			w.rep.Errorf(dispPath(p), "tree.mode", "setuid, setgid and sticky bits are not allowed")
		}
		mt, ct := statTimes(&st)
		e := Entry{Path: p, Size: 0, Mode: mode, Dev: uint64(st.Dev), Ino: uint64(st.Ino), MtimeNs: mt, CtimeNs: ct}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			e.Kind = KindDir
			w.tree.Entries = append(w.tree.Entries, e)
			if !nameOK {
				continue // never descend into a directory with a rejected name
			}
			child, err := src.child(name, p)
			if err != nil {
				w.rep.Errorf(dispPath(p), "tree.unreadable", "cannot open the directory: %v", errnoText(err))
				continue
			}
			w.walkDir(child, p, depth+1)
		case unix.S_IFREG:
			e.Kind = KindFile
			if mode&0o111 != 0 {
				e.Kind = KindExec
			}
			e.Size = st.Size
			if st.Nlink > 1 {
				w.rep.Errorf(dispPath(p), "tree.hardlink", "file has %d hard links; a bundle file must have exactly one", st.Nlink)
			}
			if st.Size > w.lim.MaxFileBytes {
				w.rep.Errorf(dispPath(p), "bounds.file", "file is %d bytes, larger than the limit of %d", st.Size, w.lim.MaxFileBytes)
			}
			w.tree.Files++
			w.tree.Bytes += st.Size
			if w.tree.Bytes > w.lim.MaxTotalBytes {
				w.rep.Errorf(dispPath(p), "bounds.total", "the bundle's files exceed the limit of %d bytes in total; the walk stopped here", w.lim.MaxTotalBytes)
				w.stopped = true
			}
			w.tree.Entries = append(w.tree.Entries, e)
		case unix.S_IFLNK:
			// Recorded with the text it holds, and resolved once the whole
			// tree is known (resolveLinks): it is kept as an entry only if
			// it names a regular file of the tree. Never followed.
			lst := st // a copy: st itself stays on the stack
			target, err := src.readlink(i, name, &lst)
			if err != nil {
				w.rep.Errorf(dispPath(p), "tree.unreadable", "cannot read the symbolic link: %v", errnoText(err))
				continue
			}
			e.Kind, e.Target = KindLink, target
			w.links++
			w.tree.Entries = append(w.tree.Entries, e)
		case unix.S_IFIFO:
			w.rep.Errorf(dispPath(p), "tree.special", "named pipes (FIFOs) are not allowed in a bundle")
		case unix.S_IFSOCK:
			w.rep.Errorf(dispPath(p), "tree.special", "sockets are not allowed in a bundle")
		case unix.S_IFCHR, unix.S_IFBLK:
			w.rep.Errorf(dispPath(p), "tree.special", "device files are not allowed in a bundle")
		default:
			w.rep.Errorf(dispPath(p), "tree.special", "unsupported file type")
		}
	}
}

// readNames lists the open directory fd with getdents, stopping once it
// has seen more than max names (over is then true), so that a directory
// of millions of entries is not read into memory whole. "." and ".." are
// left out.
func readNames(fd int, max int) (names []string, over bool, err error) {
	return appendReadNames(fd, max, nil)
}

// appendReadNames is readNames appending to names, which must be empty:
// a walk that forgets the names of a directory once it is done reuses
// their slice.
func appendReadNames(fd int, max int, names []string) (_ []string, over bool, err error) {
	buf := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(buf)
	for {
		n, err := getdents(fd, *buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, false, err
		}
		if n <= 0 {
			return names, false, nil
		}
		names = appendNames(names, (*buf)[:n])
		if len(names) > max {
			return nil, true, nil
		}
	}
}

// direntBufs are getdents buffers, one per directory being listed.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 16<<10); return &b }}

// CollisionKey is the name as name.collision compares names: two names of
// one directory with the same key are one name on a case-insensitive file
// system (APFS on macOS, NTFS on Windows, which also take NFC and NFD
// forms of a name for one).
func CollisionKey(name string) string { return collisionKey(name) }

// collisionKey is the name under Unicode NFC and full case folding. ASCII
// is already in NFC and folds to its lower case, so the common case
// allocates nothing or one string instead of running two transformers.
func collisionKey(name string) string {
	upper := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= utf8.RuneSelf {
			return folder.String(norm.NFC.String(name))
		}
		upper = upper || 'A' <= c && c <= 'Z'
	}
	if !upper {
		return name
	}
	return strings.ToLower(name)
}

// checkName applies the name rules to one path element (at path p) and
// reports whether it passed.
func (w *walker) checkName(p, name string) bool {
	if msg, rule := CheckName(name); msg != "" {
		w.rep.Errorf(dispPath(p), rule, "%s", msg)
		return false
	}
	return true
}

// mayCollide reports whether two of names (distinct, as a directory holds
// them) can have the same collisionKey: only if one of them has a byte
// that NFC or case folding can change (upper-case ASCII or non-ASCII).
func mayCollide(names []string) bool {
	for _, n := range names {
		for i := 0; i < len(n); i++ {
			if c := n[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
				return true
			}
		}
	}
	return false
}

// CheckName applies the tree name rules to one path element. It returns ""
// for an acceptable name, otherwise the message and rule identifier.
func CheckName(name string) (msg, rule string) {
	switch {
	case name == "" || name == "." || name == "..":
		return "\".\" and \"..\" and empty names are not allowed", "name.dot"
	case !utf8.ValidString(name):
		return "name is not valid UTF-8", "name.utf8"
	case strings.ContainsRune(name, '/'):
		return "name contains a slash", "name.control"
	}
	for _, r := range name {
		switch {
		case r == '\n' || r == '\r':
			return "name contains a newline or carriage return", "name.control"
		case unicode.IsControl(r):
			return "name contains a control character", "name.control"
		case IsBidi(r):
			return "name contains a bidirectional control character", "name.bidi"
		}
	}
	if strings.ContainsRune(name, '\\') {
		return "name contains a backslash, a path separator on Windows", "name.windows"
	}
	if windowsReserved(name) {
		return "name is reserved on Windows", "name.windows"
	}
	return "", ""
}

// IsBidi reports whether r is a bidirectional formatting character that can
// reorder how text is displayed.
func IsBidi(r rune) bool {
	switch {
	case r == 0x061C, r == 0x200E, r == 0x200F:
		return true
	case r >= 0x202A && r <= 0x202E:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

var windowsDevices = map[string]bool{
	"CON": true, "PRN": true, "AUX": true, "NUL": true,
	"COM1": true, "COM2": true, "COM3": true, "COM4": true, "COM5": true, "COM6": true, "COM7": true, "COM8": true, "COM9": true,
	"LPT1": true, "LPT2": true, "LPT3": true, "LPT4": true, "LPT5": true, "LPT6": true, "LPT7": true, "LPT8": true, "LPT9": true,
	"CONIN$": true, "CONOUT$": true,
}

// windowsReserved reports names Windows cannot create or treats specially:
// device names with or without an extension, trailing dots or spaces, and
// the characters < > : " \ | ? *.
func windowsReserved(name string) bool {
	if strings.ContainsAny(name, `<>:"\|?*`) {
		return true
	}
	if strings.HasSuffix(name, ".") || strings.HasSuffix(name, " ") {
		return true
	}
	base := name
	if i := strings.IndexByte(base, '.'); i >= 0 {
		base = base[:i]
	}
	base = strings.TrimRight(base, " ")
	if len(base) < 3 || len(base) > len("CONOUT$") {
		return false // no device name has this length; skip the allocation
	}
	var up [len("CONOUT$")]byte
	for i := 0; i < len(base); i++ {
		c := base[i]
		if c >= utf8.RuneSelf {
			return windowsDevices[strings.ToUpper(base)]
		}
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		up[i] = c
	}
	return windowsDevices[string(up[:len(base)])] // no allocation: every name of the walk passes here
}

func dispPath(rel string) string {
	if rel == "" {
		return "."
	}
	return EscapePath(rel)
}

func pathJoin(dir, name string) string {
	if dir == "" {
		return name
	}
	return path.Join(dir, name)
}

func errnoText(err error) string {
	return strings.TrimPrefix(fmt.Sprint(err), "lstat ")
}
