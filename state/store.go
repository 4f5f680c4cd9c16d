package state

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/gofrs/flock"
	"github.com/google/renameio/v2"
)

const (
	// FileName is the state file inside $BUNDLECTL_HOME.
	FileName = "state.json"
	// LockName is the lock file inside $BUNDLECTL_HOME. It is never renamed
	// or removed; only its flock matters.
	LockName = "state.lock"
)

// LockWait bounds how long Update waits for the lock before it returns a
// *LockError.
const LockWait = 10 * time.Second

// Test seams; never settings a user could flip.
var (
	testOnlyLockWait = LockWait
	// testOnlyBeforeRename runs between writing the temp file and renaming
	// it into place.
	testOnlyBeforeRename func()
	// testOnlyHomeEnsured runs in Update between making the home and
	// taking the lock.
	testOnlyHomeEnsured func()
)

// tempPrefix is how renameio names its temp files: "." + base + digits.
const tempPrefix = "." + FileName

// Store is the state of one $BUNDLECTL_HOME.
type Store struct {
	home string
}

// Open returns the Store of home. It touches nothing on disk.
func Open(home string) *Store { return &Store{home: filepath.Clean(home)} }

// Path returns the path of state.json.
func (st *Store) Path() string { return filepath.Join(st.home, FileName) }

func (st *Store) lockPath() string { return filepath.Join(st.home, LockName) }

// Load returns a read-only snapshot of the state, without the lock: a
// writer replaces state.json by an atomic rename, so a read sees one whole
// version. A missing home or state.json is the empty state (generation 0);
// Load creates nothing. Unsafe or malformed state is an error, never an
// empty state.
func (st *Store) Load() (*State, error) { return st.load(true) }

// LoadCurrent is Load for a reader of the current decisions only —
// enabled, receipt, generations, switches, source — such as the runtime
// before every spawn: it checks the records as Load does and does not
// decode the audit trails (in a schema 2 file it checks each to be a JSON
// array; in schema 3, where they come last, it checks only the file's
// end), so its cost does not grow with the history; the Records have
// empty audits. What it leaves unchecked is in docs/state.md. Commands
// that show or change the state use Load.
func (st *Store) LoadCurrent() (*State, error) { return st.load(false) }

func (st *Store) load(audit bool) (*State, error) {
	ok, err := checkHome(st.home)
	if err != nil {
		return nil, err
	}
	if !ok {
		return newState(), nil
	}
	if err := checkOptional(st.lockPath(), false); err != nil {
		return nil, err
	}
	return st.read(audit)
}

// Update runs fn on the current state under an exclusive lock on
// state.lock and persists the result if fn made a transition.
//
// It creates home (0700) if missing, takes the lock (waiting at most
// LockWait, then *LockError), re-reads state.json after acquiring it,
// removes temp files left by a writer that died, runs fn, and — if fn
// changed anything and returned nil — writes state.json atomically (temp
// file in home, fsync, rename, fsync home) with mode 0600. Unsafe or
// malformed state makes Update fail before fn runs, and nothing is
// modified. If fn returns an error nothing is written and the error is
// returned as is. The returned State is what is now on disk.
//
// fn runs under the lock, so it may also do work that must not interleave
// with state changes — e.g. stage a snapshot and record its receipt in one
// step, or remove snapshots no receipt references — and an fn that makes
// no transition writes nothing. fn must not call Update on the same home:
// the lock is not reentrant and the inner call would time out.
func (st *Store) Update(fn func(*State) error) (*State, error) {
	unlock, err := st.lockHome()
	if err != nil {
		return nil, err
	}
	defer unlock()

	s, err := st.read(true)
	if err != nil {
		return nil, err
	}
	if err := st.removeStaleTemps(); err != nil {
		return nil, err
	}
	before := s.generation
	if err := fn(s); err != nil {
		return nil, err
	}
	if s.generation == before {
		return s, nil
	}
	if err := st.write(s); err != nil {
		return nil, err
	}
	return s, nil
}

// ensureHome creates home 0700 if it is missing and checks it.
func (st *Store) ensureHome() error {
	ok, err := checkHome(st.home)
	if err != nil || ok {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(st.home), 0o700); err != nil {
		return fmt.Errorf("create state directory: %w", err)
	}
	if err := os.Mkdir(st.home, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create state directory: %w", err)
	} else if err == nil {
		if err := os.Chmod(st.home, 0o700); err != nil {
			return fmt.Errorf("create state directory: %w", err)
		}
	}
	_, err = checkHome(st.home)
	return err
}

// lockHome creates home if it is missing and takes the lock. A failed
// first install or sync removes again a home it created that holds
// nothing but its fetch lock (lifecycle's removeFresh); when it does so
// between the creation and the lock, the home is created again: the
// lock file, once made, keeps the home from being removed.
func (st *Store) lockHome() (unlock func(), err error) {
	for attempt := 0; ; attempt++ {
		if err := st.ensureHome(); err != nil {
			return nil, err
		}
		if testOnlyHomeEnsured != nil {
			testOnlyHomeEnsured()
		}
		unlock, err := st.lock()
		if errors.Is(err, fs.ErrNotExist) && attempt < homeAttempts {
			continue
		}
		return unlock, err
	}
}

// homeAttempts bounds lockHome's retries: each needs another command to
// have removed the home in between.
const homeAttempts = 100

// lock takes the exclusive lock on state.lock, creating it 0600 (never
// through a symlink), and checks it before and after.
func (st *Store) lock() (unlock func(), err error) {
	p := st.lockPath()
	if err := checkOptional(p, false); err != nil {
		return nil, err
	}
	fl := flock.New(p, flock.SetFlag(os.O_CREATE|os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC), flock.SetPermissions(0o600))
	waited, err := WaitLock(fl, false, testOnlyLockWait)
	switch {
	case waited:
		return nil, &LockError{Path: p, Waited: testOnlyLockWait}
	case errors.Is(err, syscall.ELOOP):
		return nil, unsafeSymlink(p)
	case err != nil:
		return nil, &LockError{Path: p, Err: err}
	}
	unlock = func() { _ = fl.Unlock() }
	if err := checkOptional(p, true); err != nil {
		unlock()
		return nil, err
	}
	return unlock, nil
}

// read reads and validates state.json, its audit trails too when audit is
// true; missing means empty.
func (st *Store) read(audit bool) (*State, error) {
	p := st.Path()
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return newState(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read state: %w", err)
	}
	if err := checkFile(p, fi); err != nil {
		return nil, err
	}
	// O_NOFOLLOW and O_NONBLOCK: a file swapped for a symlink or a FIFO
	// after the Lstat neither redirects nor hangs the read.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, unsafeSymlink(p)
		}
		if errors.Is(err, fs.ErrPermission) {
			return nil, &UnsafeError{Path: p, Reason: "cannot be read (permission denied)", Hint: "chmod 600 " + bundle.ShellArg(p)}
		}
		return nil, fmt.Errorf("read state: %w", err)
	}
	defer f.Close()
	ffi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read state: %w", err)
	}
	if err := checkFile(p, ffi); err != nil {
		return nil, err
	}
	// Sized from the stat, so that a file that did not change since is
	// read in one call.
	buf := bytes.NewBuffer(make([]byte, 0, min(ffi.Size(), MaxFileSize)+bytes.MinRead))
	_, err = buf.ReadFrom(io.LimitReader(f, MaxFileSize+1))
	data := buf.Bytes()
	if err != nil {
		return nil, fmt.Errorf("read state: %w", err)
	}
	if len(data) > MaxFileSize {
		return nil, malformed(p, fmt.Sprintf("larger than %d bytes", MaxFileSize))
	}
	s, err := parse(data, audit)
	if errors.As(err, new(errUnsupported)) {
		note, mv := moveAside(p)
		return nil, &MalformedError{Path: p, Reason: err.Error(), Note: "use the bundlectl that wrote it, or " + note, Hint: mv}
	}
	if err != nil {
		return nil, malformed(p, err.Error())
	}
	return s, nil
}

// write persists s atomically. The bytes are parsed back before the rename
// so that Update never writes a file Load would refuse.
func (st *Store) write(s *State) error {
	p := st.Path()
	data, err := s.marshal()
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	if _, err := parse(data, true); err != nil {
		return fmt.Errorf("encode state: refusing to write a state that does not parse back: %v", err)
	}
	if err := checkOptional(p, false); err != nil {
		return err
	}
	t, err := renameio.NewPendingFile(p, renameio.WithTempDir(st.home), renameio.WithStaticPermissions(0o600))
	if errors.Is(err, fs.ErrPermission) {
		// renameio's error names its temporary file; the directory is
		// what the user can fix.
		return &UnsafeError{Path: st.home, Reason: "cannot be written (permission denied), so the state cannot change", Hint: "chmod 700 " + bundle.ShellArg(st.home)}
	}
	if err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	defer t.Cleanup()
	if _, err := t.Write(data); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	if testOnlyBeforeRename != nil {
		testOnlyBeforeRename()
	}
	if err := t.CloseAtomicallyReplace(); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	if err := syncDir(st.home); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// removeStaleTemps removes ".state.json<digits>" regular files: renameio
// temp files of a writer that died before its rename. Only the lock holder
// writes, so under the lock every such file is stale.
func (st *Store) removeStaleTemps() error {
	ents, err := os.ReadDir(st.home)
	if err != nil {
		return fmt.Errorf("clean state directory: %w", err)
	}
	for _, e := range ents {
		if !isTempName(e.Name()) || e.Type() != 0 {
			continue
		}
		if err := os.Remove(filepath.Join(st.home, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("clean state directory: %w", err)
		}
	}
	return nil
}

func isTempName(n string) bool {
	digits, ok := strings.CutPrefix(n, tempPrefix)
	if !ok || digits == "" {
		return false
	}
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// checkHome reports whether home exists, and refuses an unsafe one.
func checkHome(home string) (exists bool, err error) {
	fi, err := os.Lstat(home)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("state directory: %w", err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return false, &UnsafeError{Path: home, Reason: "is a symlink", Note: fmt.Sprintf("pass the real directory: --home \"$(realpath %s)\"", bundle.ShellArg(home)), Hint: "realpath " + bundle.ShellArg(home)}
	case !fi.IsDir():
		return false, &UnsafeError{Path: home, Reason: "is not a directory", Note: "move it aside", Hint: fmt.Sprintf("mv %s %s", bundle.ShellArg(home), bundle.ShellArg(home+".bad"))}
	}
	if err := checkOwnerMode(home, fi, "chmod go-w %s"); err != nil {
		return false, err
	}
	return true, nil
}

// checkOptional checks p if it exists. With mustExist, a missing p is an
// error too (the lock file after locking).
func checkOptional(p string, mustExist bool) error {
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) && !mustExist {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s %q: %w", describe(p), p, err)
	}
	return checkFile(p, fi)
}

// checkFile refuses anything but a regular file owned by us and writable by
// nobody else.
func checkFile(p string, fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return unsafeSymlink(p)
	case fi.IsDir():
		note, mv := moveAside(p)
		return &UnsafeError{Path: p, Reason: "is a directory, not a regular file", Note: note, Hint: mv}
	case !fi.Mode().IsRegular():
		note, mv := moveAside(p)
		return &UnsafeError{Path: p, Reason: "is not a regular file", Note: note, Hint: mv}
	}
	return checkOwnerMode(p, fi, "chmod 600 %s")
}

func checkOwnerMode(p string, fi fs.FileInfo, chmodHint string) error {
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		if uid := os.Geteuid(); int(sys.Uid) != uid {
			note, mv := moveAside(p)
			return &UnsafeError{Path: p, Reason: fmt.Sprintf("is owned by uid %d, not by you (uid %d)", sys.Uid, uid),
				Note: fmt.Sprintf("if you trust its content, chown %d %s; otherwise %s", uid, bundle.ShellArg(p), note), Hint: mv}
		}
	}
	if m := fi.Mode().Perm(); m&0o022 != 0 {
		return &UnsafeError{Path: p, Reason: fmt.Sprintf("is group- or world-writable (mode %04o)", m), Hint: fmt.Sprintf(chmodHint, bundle.ShellArg(p))}
	}
	return nil
}

func unsafeSymlink(p string) error {
	note, mv := moveAside(p)
	return &UnsafeError{Path: p, Reason: "is a symlink", Note: "replace it with the file it points to, or " + note, Hint: mv}
}

// moveAside is the repair of a file bundlectl will not use: what to do
// around the command (note), and the command alone (mv), which a hint
// line prints so that it works pasted as printed.
func moveAside(p string) (note, mv string) {
	note = "move it aside"
	if filepath.Base(p) == FileName {
		note = "move it aside, then trust your bundles again"
	}
	return note, fmt.Sprintf("mv %s %s", bundle.ShellArg(p), bundle.ShellArg(p+".bad"))
}

func malformed(p, reason string) error {
	note, mv := moveAside(p)
	return &MalformedError{Path: p, Reason: reason, Note: note, Hint: mv}
}

// describe names what a path is for messages.
func describe(p string) string {
	switch filepath.Base(p) {
	case FileName:
		return "state file"
	case LockName:
		return "state lock"
	}
	return "state directory"
}
