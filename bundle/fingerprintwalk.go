package bundle

import (
	"golang.org/x/sys/unix"
)

// FingerprintWalk lists the tree at dir as Walk would when the tree is
// one Walk accepted without a finding, for a fingerprint comparison only:
// directories and regular files, with the same paths, kinds, sizes,
// modes, identities and times, sorted as Walk sorts them. It applies no
// rule. It gives up (ok false) on anything else — a symbolic link, a
// special file, an unreadable entry, a bound of lim exceeded — and the
// caller then walks with Walk.
//
// It can only stand in for Walk where a mismatch is harmless: the caller
// compares the entries with the record of a full verification, and any
// difference from what that verification's Walk saw, entries it would
// have left out included, fails the comparison and leads to a full
// verification. Nothing is ever followed or opened but directories, each
// with O_NOFOLLOW relative to its parent's descriptor.
//
// The tree is handed to use, and is valid only until use returns: a
// fingerprint check compares and forgets, so the walk's memory is reused
// by the next one (a listing checks every trusted bundle's snapshot).
func FingerprintWalk(dir string, lim Limits, use func(*Tree)) (ok bool) {
	lim = lim.WithDefaults()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	scratch := takeScratch()
	fw := fingerprintWalker{lim: lim, tree: &Tree{Root: dir, Entries: *scratch}}
	ok = fw.dir(fd, "", 0)
	unix.Close(fd)
	if ok {
		sortEntries(fw.tree.Entries)
		use(fw.tree)
	}
	release(scratch, fw.tree.Entries)
	return ok
}

type fingerprintWalker struct {
	lim   Limits
	tree  *Tree
	paths pathArena
	names [][]string // a names buffer per depth, reused from one directory to the next
}

// dir lists and stats the directory fd (relative path rel, at depth
// elements below the root) and descends into its subdirectories.
func (fw *fingerprintWalker) dir(fd int, rel string, depth int) bool {
	if depth == len(fw.names) {
		fw.names = append(fw.names, nil)
	}
	names, over, err := appendReadNames(fd, fw.lim.MaxEntries, fw.names[depth][:0])
	if err != nil || over {
		return false
	}
	fw.names[depth] = names
	sortStrings(names) // depth-first over sorted names is (almost always) the order of the tree
	var st unix.Stat_t
	for _, name := range names {
		p := fw.paths.join(rel, name)
		if len(fw.tree.Entries) >= fw.lim.MaxEntries || len(p) > fw.lim.MaxPathBytes || depth+1 > fw.lim.MaxDepth {
			return false
		}
		if lstatAt(fd, name, &st) != nil {
			return false
		}
		mode := uint32(st.Mode) & 0o7777
		mt, ct := statTimes(&st)
		e := Entry{Path: p, Mode: mode, Dev: uint64(st.Dev), Ino: uint64(st.Ino), MtimeNs: mt, CtimeNs: ct}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			e.Kind = KindDir
			fw.tree.Entries = append(fw.tree.Entries, e)
			cfd, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				return false
			}
			ok := fw.dir(cfd, p, depth+1)
			unix.Close(cfd)
			if !ok {
				return false
			}
		case unix.S_IFREG:
			e.Kind = KindFile
			if mode&0o111 != 0 {
				e.Kind = KindExec
			}
			e.Size = st.Size
			fw.tree.Files++
			fw.tree.Bytes += st.Size
			fw.tree.Entries = append(fw.tree.Entries, e)
		default:
			return false // a link or a special file: Walk decides
		}
	}
	return true
}
