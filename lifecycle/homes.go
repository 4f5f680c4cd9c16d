package lifecycle

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/state"
	"golang.org/x/sys/unix"
)

// A workspace root is shared by every bundlectl home that names the
// workspace (two users, a CI home and a dev home), but each home records
// only its own installs. So that one home's uninstall never deletes a
// tree another home installed or recorded (sync, or an install that found
// the tree in place), install and sync leave a marker per home and bundle:
// <workspace>/.bundlectl/homes/<name>/<home key>, holding the home's path.
// Uninstall deletes the tree only when no other home's marker is there.

// HomesDir is the directory of the workspace's .bundlectl that holds the
// markers.
const HomesDir = "homes"

// homeKey names this home's markers: 12 hex digits of the SHA-256 of its
// absolute, clean path.
func (m *Manager) homeKey() string {
	p, err := filepath.Abs(m.Roots.Home)
	if err != nil {
		p = m.Roots.Home
	}
	sum := sha256.Sum256([]byte(filepath.Clean(p)))
	return hex.EncodeToString(sum[:6])
}

func homesDir(root, name string) string {
	return filepath.Join(filepath.Dir(root), HomesDir, name)
}

// The markers are used by descriptor: a user who may write the
// workspace's .bundlectl (one shared through a group) can rename homes,
// or a bundle's directory in it, away while a command runs and put a
// symbolic link to anywhere in its place. .bundlectl, homes and the
// bundle's directory are each opened with O_NOFOLLOW from the one before
// (a link is refused, or read as no markers), and every marker is
// written (a temporary file renamed over it), read and removed relative
// to the directory held: never through a link, never outside the
// workspace.

const dirNoFollow = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

// markerTmp is the name of the temporary file markHome writes this
// home's marker key to before renaming it over the marker: never a
// marker itself.
func markerTmp(key string) string { return "." + key + ".new" }

// isMarkerTmp reports whether name is a home's markerTmp (what a command
// killed while it wrote a marker left).
func isMarkerTmp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".new") && homeKeyName(strings.TrimSuffix(name[1:], ".new"))
}

// heldHomes is the workspace's .bundlectl and its homes directory, open.
type heldHomes struct {
	dot, fd int
	path    string // homes, for messages
}

// openHomes opens the workspace's .bundlectl and homes directory, not
// following a link; nil when either is missing, a link or no directory
// (a link is no marker of a home, and nothing is removed through one).
func openHomes(root string) *heldHomes {
	h, _ := openHomesErr(root)
	return h
}

// openHomesErr is openHomes that says why it could not open them: nil
// and no error when .bundlectl or homes does not exist (no markers),
// else a *MarkersError naming the one that cannot be opened.
func openHomesErr(root string) (*heldHomes, error) {
	dot := filepath.Dir(root)
	dfd, err := unix.Open(dot, dirNoFollow, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, nil
		}
		return nil, markersError(unix.AT_FDCWD, dot, dot, err)
	}
	homes := filepath.Join(dot, HomesDir)
	hfd, err := unix.Openat(dfd, HomesDir, dirNoFollow, 0)
	if err != nil {
		defer unix.Close(dfd)
		if errors.Is(err, unix.ENOENT) {
			return nil, nil
		}
		return nil, markersError(dfd, HomesDir, homes, err)
	}
	return &heldHomes{dot: dfd, fd: hfd, path: homes}, nil
}

// MarkersError reports that the homes' markers of a workspace bundle
// cannot be read for a reason other than their not existing: Path (the
// workspace's .bundlectl, its homes directory or the bundle's directory
// in it) is a symbolic link, not a directory, or cannot be opened or
// listed. Whether another home uses the bundle is then unknown, and the
// commands that would delete or replace the tree for every home
// (uninstall and update without --force) refuse; it matches ErrRefused.
type MarkersError struct {
	Bundle string
	Path   string
	Err    error
	what   string // what Path is, when that is why (markersError)
}

// markersError is the MarkersError of the entry name of the directory
// dirfd (path names it), which could not be opened or listed with err.
func markersError(dirfd int, name, path string, err error) *MarkersError {
	e := &MarkersError{Path: path, Err: err}
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			e.what = "it is a symbolic link, which bundlectl never follows there"
		case unix.S_IFDIR:
		default:
			e.what = "it is not a directory"
		}
	}
	return e
}

func (e *MarkersError) Error() string {
	b := ""
	if e.Bundle != "" {
		b = bundle.Quote(e.Bundle) + ": "
	}
	return b + e.unreadable() + ", so whether another bundlectl home uses this workspace bundle is unknown, and this command stopped rather than delete or replace a tree another home may use; nothing was changed. Look at what is there: move it aside (mv -- " + bundle.ShellArg(e.Path) + " " + bundle.ShellArg(e.Path+".moved") + ") if it is not bundlectl's, or run the command with --force if no other home uses the bundle"
}

// cause says why Path cannot be read: what it is, when that is why, else
// the error opening or listing it.
func (e *MarkersError) cause() string {
	if e.what != "" {
		return e.what
	}
	return e.Err.Error()
}

// unreadable is the clause naming Path and cause, for a message that
// cannot tell whether another home uses the bundle.
func (e *MarkersError) unreadable() string {
	return "the homes' markers in the workspace's " + bundle.Quote(e.Path) + " cannot be read (" + e.cause() + ")"
}

func (e *MarkersError) Unwrap() []error { return []error{ErrRefused, e.Err} }

// Hint shows what is there and who made it.
func (e *MarkersError) Hint() string { return "ls -la -- " + bundle.ShellArg(filepath.Dir(e.Path)) }

func (h *heldHomes) close() {
	unix.Close(h.fd)
	unix.Close(h.dot)
}

// names lists the entries of the directory dirfd holds.
func names(dirfd int, path string) []string {
	ns, _ := namesErr(dirfd, path)
	return ns
}

// namesErr is names, with the error that cut the listing short.
func namesErr(dirfd int, path string) ([]string, error) {
	fd, err := unix.Openat(dirfd, ".", dirNoFollow, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	return f.Readdirnames(-1)
}

// linked reports whether the entry name of dirfd is the directory fd
// holds (it was not renamed away or removed since fd was opened).
func linked(dirfd int, name string, fd int) bool {
	var a, b unix.Stat_t
	return unix.Fstatat(dirfd, name, &a, unix.AT_SYMLINK_NOFOLLOW) == nil && unix.Fstat(fd, &b) == nil &&
		a.Mode&unix.S_IFMT == unix.S_IFDIR && a.Dev == b.Dev && a.Ino == b.Ino
}

// markHome records, before the tree is placed or its source recorded,
// that this home uses the workspace bundle name; undo removes a marker it
// created, for a command that then fails. A kill after the marker
// and before the state write leaves a marker no record backs: it keeps
// another home's uninstall from deleting the tree (the safe side), and
// this home's next install, sync or uninstall of the name replaces or
// removes it.
//
// The marker is written to a temporary file in the bundle's directory
// held and renamed over the marker: a file planted under the marker's
// name (a hard link to a file of this user's elsewhere) is replaced,
// never written through, and a kill leaves the old marker or the new one.
// Afterwards homes and the bundle's directory must still be where they
// were opened: another home's gc may have removed the empty directory
// meanwhile (markHome makes it again), or a user who may write
// .bundlectl swapped it for a link (refused then).
func (m *Manager) markHome(root, name string) (undo func(), err error) {
	// undo is never nil, even with an error: callers assign it before
	// they look at the error, and call it when the command fails.
	dot := filepath.Dir(root)
	homes := filepath.Join(dot, HomesDir)
	dir := filepath.Join(homes, name)
	key := m.homeKey()
	p := filepath.Join(dir, key)
	home, _ := filepath.Abs(m.Roots.Home)
	dfd, err := openDirNoFollow(unix.AT_FDCWD, dot, dot)
	if err != nil {
		return func() {}, err
	}
	defer unix.Close(dfd)
	cannot := func(d string, err error) error {
		return fmt.Errorf("cannot record this home's use of %s in %s: %w", bundle.Quote(name), bundle.Quote(d), err)
	}
	for attempt := 0; ; attempt++ {
		hfd, err := markerDirAt(dfd, HomesDir, homes, name)
		if errors.Is(err, unix.ENOENT) && attempt < 3 {
			continue // another home's unmarkHome removed it meanwhile
		}
		if err != nil {
			return func() {}, err
		}
		nfd, err := markerDirAt(hfd, name, dir, name)
		if errors.Is(err, unix.ENOENT) && attempt < 3 {
			unix.Close(hfd)
			continue
		}
		if err != nil {
			unix.Close(hfd)
			return func() {}, err
		}
		if testOnlyMarkersOpened != nil {
			testOnlyMarkersOpened("mark")
		}
		had, err := writeMarker(nfd, key, home+"\n")
		if err != nil {
			unix.Close(nfd)
			unix.Close(hfd)
			return func() {}, cannot(p, err)
		}
		if !linked(dfd, HomesDir, hfd) || !linked(hfd, name, nfd) {
			// Written where no home looks: take it back, and make the
			// directory again (a link in its place is refused then).
			if !had {
				_ = unix.Unlinkat(nfd, key, 0)
			}
			unix.Close(nfd)
			unix.Close(hfd)
			if attempt < 3 {
				continue
			}
			return func() {}, wsTmpError(dir, "was removed or replaced each time this command wrote this home's marker in it, so the marker could not be recorded; find out who before running the command again",
				"ls -la -- "+bundle.ShellArg(homes))
		}
		unix.Close(nfd)
		unix.Close(hfd)
		undo = func() {}
		if !had { // new: a command that fails takes it back
			undo = func() { m.unmarkHome(root, name, false) }
		}
		return undo, nil
	}
}

// markerDirAt makes the directory name of dirfd when missing and opens
// it without following a link; path names it, and bundle the marker's
// bundle, in a refusal. The error wraps ENOENT when it was removed
// between the two (or homes, the directory dirfd holds, was).
//
// A directory it makes is 0755 whatever the umask (docs/sources.md: the
// other homes, maybe other users', read the markers in it; a
// set-group-ID bit it inherits stays), and its
// entry is synced to disk; one that was there keeps its mode (a group
// that shares the workspace may have made it 2775).
func markerDirAt(dirfd int, name, path, bundleName string) (int, error) {
	err := unix.Mkdirat(dirfd, name, 0o755)
	if err != nil && err != unix.EEXIST {
		return -1, fmt.Errorf("cannot record this home's use of %s in %s: %w", bundle.Quote(bundleName), bundle.Quote(path), err)
	}
	made := err == nil
	fd, err := unix.Openat(dirfd, name, dirNoFollow, 0)
	if err == nil {
		var st unix.Stat_t
		if made && unix.Fstat(fd, &st) == nil && int(st.Uid) == os.Geteuid() {
			// The set-group-ID bit a shared homes passes on stays.
			if want := uint32(st.Mode&unix.S_ISGID) | 0o755; uint32(st.Mode&0o7777) != want {
				_ = unix.Fchmod(fd, want)
			}
		}
		if made {
			_ = unix.Fsync(dirfd)
		}
		return fd, nil
	}
	var st unix.Stat_t
	if serr := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); serr == unix.ENOENT {
		err = unix.ENOENT
	} else if serr == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return -1, &SourceError{Reason: fmt.Sprintf("cannot record this home's use of %s: %s is not a directory (a symbolic link?); move it aside", bundle.Quote(bundleName), bundle.Quote(path)),
			Fix: "mv -- " + bundle.ShellArg(path) + " " + bundle.ShellArg(path+".moved"), Err: ErrRefused}
	}
	return -1, fmt.Errorf("cannot record this home's use of %s in %s: %w", bundle.Quote(bundleName), bundle.Quote(path), err)
}

// writeMarker makes the file key of the directory dirfd hold text: a
// regular file of this user's with one link that holds it already is
// kept; otherwise text is written to markerTmp(key) and renamed over
// key. had says whether key was there before.
func writeMarker(dirfd int, key, text string) (had bool, err error) {
	var st unix.Stat_t
	if unix.Fstatat(dirfd, key, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		had = true
		if st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink == 1 && int(st.Uid) == os.Geteuid() {
			if b, ok := readMarker(dirfd, key); ok && b == text {
				return true, nil
			}
		}
	}
	tmp := markerTmp(key)
	// What a kill left: this home's, and this home's commands mark under
	// its state lock.
	_ = unix.Unlinkat(dirfd, tmp, 0)
	fd, err := unix.Openat(dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return had, err
	}
	// 0644 whatever the umask: other homes read it. Synced, then the
	// rename and the directory, so that a crash leaves the old marker or
	// the whole new one, never an empty file.
	f := os.NewFile(uintptr(fd), tmp)
	err = f.Chmod(0o644)
	if err == nil {
		_, err = f.WriteString(text)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(dirfd, tmp, dirfd, key)
	}
	if err == nil {
		err = unix.Fsync(dirfd)
	}
	if err != nil {
		_ = unix.Unlinkat(dirfd, tmp, 0)
	}
	return had, err
}

// readMarker reads the marker key of the directory dirfd holds: a
// regular file of at most maxMarkerPath+1 bytes, not followed.
func readMarker(dirfd int, key string) (string, bool) {
	fd, err := unix.Openat(dirfd, key, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", false
	}
	f := os.NewFile(uintptr(fd), key)
	defer f.Close()
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > maxMarkerPath+1 {
		return "", false
	}
	b := make([]byte, maxMarkerPath+2)
	n, err := io.ReadFull(f, b)
	if n > maxMarkerPath+1 || (err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF)) {
		return "", false
	}
	return string(b[:n]), true
}

// otherHome is another home's marker of a workspace bundle: Who is the
// home's path as the marker holds it, or the marker's own path when the
// marker does not hold a path bundlectl would have written there (an
// absolute, clean path of at most maxMarkerPath bytes, plain text, whose
// key is the marker's name): a marker committed to a repository may be
// planted, and its text is not printed.
type otherHome struct {
	Who, Marker string
}

// maxMarkerPath bounds the home path a marker's text is shown as.
const maxMarkerPath = 512

// maxOtherHomes bounds how many other homes' markers are read and named.
const maxOtherHomes = 16

// otherHomes returns the homes, other than this one, whose markers say
// they use the workspace bundle name, sorted, at most maxOtherHomes, and
// how many more markers there are. A temporary file a killed markHome
// left is no marker. Markers that do not exist are none; markers that
// cannot be read — .bundlectl, homes or homes/<name> a symbolic link
// (never followed), not a directory, or not readable — are a
// *MarkersError: "no other home" would let an uninstall delete, or an
// update replace, a tree another home uses.
func (m *Manager) otherHomes(root, name string) (out []otherHome, more int, err error) {
	h, err := openHomesErr(root)
	if h == nil {
		if me, ok := err.(*MarkersError); ok {
			me.Bundle = name
		}
		return nil, 0, err
	}
	defer h.close()
	dir := homesDir(root, name)
	nfd, err := unix.Openat(h.fd, name, dirNoFollow, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil, 0, nil
	}
	if err != nil {
		e := markersError(h.fd, name, dir, err)
		e.Bundle = name
		return nil, 0, e
	}
	defer unix.Close(nfd)
	if testOnlyMarkersOpened != nil {
		testOnlyMarkersOpened("read")
	}
	ns, err := namesErr(nfd, dir)
	if err != nil {
		return nil, 0, &MarkersError{Bundle: name, Path: dir, Err: err}
	}
	own := m.homeKey()
	for _, n := range ns {
		if n == own || isMarkerTmp(n) {
			continue
		}
		if len(out) == maxOtherHomes {
			more++
			continue
		}
		p := filepath.Join(dir, n)
		out = append(out, otherHome{Who: markerHome(nfd, n, p), Marker: p})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Who < out[j].Who })
	return out, more, nil
}

// markerHome is the home path the marker key of the directory dirfd
// holds (p names it), when it is one bundlectl would have written there;
// else p itself.
func markerHome(dirfd int, key, p string) string {
	b, ok := readMarker(dirfd, key)
	if !ok {
		return p
	}
	h := strings.TrimSuffix(b, "\n")
	if h == "" || len(h) > maxMarkerPath || !filepath.IsAbs(h) || filepath.Clean(h) != h || bundle.EscapePath(h) != h {
		return p
	}
	sum := sha256.Sum256([]byte(h))
	if hex.EncodeToString(sum[:6]) != key {
		return p
	}
	return h
}

// homesNames is the other homes as a list for a message.
func homesNames(others []otherHome, more int) string {
	q := make([]string, len(others))
	for i, o := range others {
		q[i] = bundle.Quote(o.Who)
	}
	if more > 0 {
		q = append(q, fmt.Sprintf("and %d more", more))
	}
	return strings.Join(q, ", ")
}

// plantedNote tells how to remove the markers of others when they name no
// home that uses the workspace: the workspace is a repository, and a
// marker committed to it keeps the tree for a home that is not there.
// Marker names that are not plain text are not printed in a command.
func (m *Manager) plantedNote(root, name string, others []otherHome, more int) string {
	if len(others) == 0 {
		return ""
	}
	how := ""
	var rm []string
	for _, o := range others {
		if bundle.EscapePath(o.Marker) != o.Marker {
			rm = nil
			break
		}
		rm = append(rm, bundle.ShellArg(o.Marker))
	}
	if more == 0 && rm != nil {
		how = "rm -- " + strings.Join(rm, " ")
	} else {
		how = "remove every file but " + bundle.Quote(m.homeKey()) + " (this home's) in " + bundle.Quote(homesDir(root, name))
	}
	return "; those homes are named by markers in the workspace, and one committed to a repository may be planted: if no such home uses this workspace, remove the marker (" + how + ")"
}

// unmarkHome removes this home's marker for name (every home's, when all
// is set: the tree is deleted), and the name's directory once empty.
// So does the homes directory (markHome makes both again when another
// home removes them between its steps). Nothing is removed through a
// link: it is no marker of a home.
func (m *Manager) unmarkHome(root, name string, all bool) {
	if h := openHomes(root); h != nil {
		h.unmark(name, m.homeKey(), all)
		h.close()
	}
}

// unmark removes the marker key of the bundle name in h (every marker,
// when all is set), then the bundle's directory and homes once empty,
// and reports whether it removed the marker key.
func (h *heldHomes) unmark(name, key string, all bool) (removed bool) {
	nfd, err := unix.Openat(h.fd, name, dirNoFollow, 0)
	if err != nil {
		return false
	}
	if testOnlyMarkersOpened != nil {
		testOnlyMarkersOpened("unmark")
	}
	if all {
		for _, n := range names(nfd, filepath.Join(h.path, name)) {
			_ = unix.Unlinkat(nfd, n, 0)
		}
		removed = true
	} else {
		removed = unix.Unlinkat(nfd, key, 0) == nil
		_ = unix.Unlinkat(nfd, markerTmp(key), 0)
	}
	unix.Close(nfd)
	// Only when empty: another home's marker keeps them.
	_ = unix.Unlinkat(h.fd, name, unix.AT_REMOVEDIR)
	_ = unix.Unlinkat(h.dot, HomesDir, unix.AT_REMOVEDIR)
	return removed
}

// testOnlyMarkersOpened runs once a command opened a bundle's marker
// directory, before it writes ("mark"), reads ("read") or removes
// ("unmark") markers there.
var testOnlyMarkersOpened func(at string)

// pruneMarkers removes this home's markers in the workspace that no state
// record with a source backs: what an install or sync killed between its
// marker and its state write left, which would keep the tree from every
// other home's uninstall until --force. gc calls it under this home's
// state lock, the lock every install and sync of this home marks under,
// so none is between its marker and its state write. A marker taken for
// one with a record is wrong only in the safe direction: that home's
// record then reads as gone (its guards block), nothing runs unreviewed.
func (m *Manager) pruneMarkers(s *state.State) (removed []string) {
	root, err := m.rootDir(bundle.ScopeWorkspace)
	if err != nil {
		return nil
	}
	h := openHomes(root) // a link would make gc remove what it names
	if h == nil {
		return nil
	}
	defer h.close()
	key := m.homeKey()
	for _, name := range names(h.fd, h.path) {
		nfd, err := unix.Openat(h.fd, name, dirNoFollow, 0)
		if err != nil {
			continue
		}
		var st unix.Stat_t
		ok := unix.Fstatat(nfd, key, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG
		unix.Close(nfd)
		if !ok {
			continue
		}
		id, _, err := canonicalID(bundle.ScopeWorkspace, root, name)
		if err != nil {
			id = bundle.Identity(bundle.ScopeWorkspace, filepath.Join(root, name), name)
		}
		if rec, _ := s.Bundle(id); len(rec.Source) > 0 {
			continue
		}
		if h.unmark(name, key, false) {
			removed = append(removed, filepath.Join(h.path, name, key))
		}
	}
	return removed
}

// realDir reports whether p is a directory and not a symbolic link (of
// any owner: a workspace may be shared by users).
func realDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}

// lockWorkspaceDir takes a shared flock on the workspace's .bundlectl
// directory (made when missing), for a command of any home that is about
// to create or use the workspace root or its tmp. The fetch lock is per
// home and so excludes nothing another home does: a failed first install
// of home A removed the .bundlectl/bundles it had made while home B was
// between making sure of it and renaming its tree in. removeFresh removes
// workspace directories only while it holds this lock exclusively; like
// the fetch lock, a lock on a directory unlinked meanwhile is taken
// again. The wait is bounded as every lock's is.
func (m *Manager) lockWorkspaceDir(root string, fresh *[]string) (unlock func(), err error) {
	return m.lockWorkspace(root, true, fresh)
}

// lockWorkspaceExclusive takes the same lock exclusively (waiting, as
// lockWorkspaceDir does), for a workspace uninstall: it reads the other
// homes' markers and then deletes the tree, and no home's install may
// recover the tree and mark it in between (installs and syncs hold the
// lock shared from before they look at the root until their state write).
func (m *Manager) lockWorkspaceExclusive(root string) (unlock func(), err error) {
	return m.lockWorkspace(root, false, nil)
}

// lockWorkspace adds .bundlectl to fresh when it makes it (see
// lockFetchesFresh).
func (m *Manager) lockWorkspace(root string, shared bool, fresh *[]string) (unlock func(), err error) {
	dot := filepath.Dir(root)
	for attempt := 0; ; attempt++ {
		if err := os.Mkdir(dot, 0o755); err == nil {
			madeShared(dot)
			addFresh(fresh, dot)
		} else if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if fi, err := os.Lstat(dot); err == nil && !fi.IsDir() {
			if fi.Mode()&os.ModeSymlink != 0 {
				return nil, fmt.Errorf("%s is a symbolic link; bundlectl never follows links in its roots", bundle.Quote(dot))
			}
			return nil, fmt.Errorf("%s is not a directory", bundle.Quote(dot))
		}
		f, err := os.OpenFile(dot, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if errors.Is(err, fs.ErrNotExist) && attempt < fetchLockAttempts {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cannot use %s: %w", bundle.Quote(dot), err)
		}
		fl := &fileLock{path: dot, f: f}
		waited, err := state.WaitLock(fl, shared, testOnlyFetchLockWait)
		if waited {
			return nil, &FetchLockError{Path: dot, Waited: testOnlyFetchLockWait, Workspace: true}
		}
		if err != nil {
			fl.Unlock()
			return nil, fmt.Errorf("cannot lock %s: %w", bundle.Quote(dot), err)
		}
		if !fl.linked() {
			fl.Unlock() // another home's removeFresh removed it meanwhile
			if attempt < fetchLockAttempts {
				continue
			}
			return nil, fmt.Errorf("cannot lock %s: it was removed and created again %d times while this command waited; run this command again", bundle.Quote(dot), attempt+1)
		}
		return func() { fl.Unlock() }, nil
	}
}

// lockWorkspaceDirExclusive takes the workspace's .bundlectl lock
// exclusively without waiting, for removeFresh: nil when a command of
// any home holds it, or when it is not there.
func lockWorkspaceDirExclusive(dot string) *fileLock {
	f, err := os.OpenFile(dot, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	fl := &fileLock{path: dot, f: f}
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil || !fl.linked() {
		fl.Unlock()
		return nil
	}
	return fl
}
