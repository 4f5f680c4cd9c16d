package hosts

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

// ViewSchema tags the digest that names a view directory. Bump it when the
// shape of views changes, so old views are rebuilt rather than reused.
const ViewSchema = "bundlectl-host-view-v1"

// Modes of a view: owner-only and read-only.
const (
	viewDirMode  fs.FileMode = 0o500
	viewFileMode fs.FileMode = 0o400
	viewExecMode fs.FileMode = 0o500
	// containers (views/, views/<token>/, views/<token>/<host>/) are
	// written by bundlectl only.
	containerMode fs.FileMode = 0o700
)

// MaxViewBytes bounds the content of one view held in memory while it is
// built and checked; the review warns of a bundle larger than it.
const MaxViewBytes = bundle.MaxViewBytes

// View is the content of one host view, built in memory from the verified
// snapshot and the receipt's inventory. Paths are slash-separated and
// relative to the view's root.
type View struct {
	files map[string]viewFile
	size  int64
	// Meta is what the host adapter needs at launch besides the files
	// (Codex: the hook trust entries); it is derived from the same input.
	Meta map[string]string
	// values: a file holds configured option values (HoldValues).
	values bool
}

// HoldValues marks the view as holding configured user option values (a
// remote MCP server's credential): it is then built in the session
// directory, owner-only and read-only, removed when the agent exits, and
// never in the shared views directory, where it would outlive the session
// and its manifest would record a digest of the value.
func (v *View) HoldValues() { v.values = true }

// HoldsValues reports whether HoldValues was called.
func (v *View) HoldsValues() bool { return v.values }

type viewFile struct {
	exec bool
	data []byte
}

// NewView returns an empty view.
func NewView() *View { return &View{files: map[string]viewFile{}, Meta: map[string]string{}} }

// cleanRel checks a view path: relative, clean, inside the view.
func cleanRel(rel string) (string, error) {
	c := path.Clean(rel)
	if rel == "" || c != rel || c == "." || strings.HasPrefix(c, "/") || c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("view path %s is not a clean relative path", bundle.Quote(rel))
	}
	return c, nil
}

// Add puts a file in the view; exec makes it executable (0500, else 0400).
func (v *View) Add(rel string, data []byte, exec bool) error {
	rel, err := cleanRel(rel)
	if err != nil {
		return err
	}
	if old, ok := v.files[rel]; ok {
		v.size -= int64(len(old.data))
	}
	v.size += int64(len(data))
	if v.size > MaxViewBytes {
		return fmt.Errorf("with %s the view would be larger than %d bytes (256 MiB), more than bundlectl builds one of", bundle.Quote(rel), MaxViewBytes)
	}
	v.files[rel] = viewFile{exec: exec, data: data}
	return nil
}

// AddJSON puts value in the view as indented JSON.
func (v *View) AddJSON(rel string, value any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(value); err != nil {
		return err
	}
	return v.Add(rel, buf.Bytes(), false)
}

// Remove takes rel out of the view.
func (v *View) Remove(rel string) { delete(v.files, rel) }

// Has reports whether the view holds rel.
func (v *View) Has(rel string) bool { _, ok := v.files[rel]; return ok }

// File returns the content of rel.
func (v *View) File(rel string) ([]byte, bool) {
	f, ok := v.files[rel]
	return f.data, ok
}

// Paths lists the view's files, sorted.
func (v *View) Paths() []string {
	out := make([]string, 0, len(v.files))
	for p := range v.files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Empty reports whether the view holds no file.
func (v *View) Empty() bool { return len(v.files) == 0 }

// CopyFile copies the snapshot's file srcRel to dstRel, keeping its
// executable bit. A link inside the snapshot is copied as the regular file
// it names (never as a link, never a hard link): the snapshot check refuses
// hard links, and a view must not lead out of itself.
func (v *View) CopyFile(snapshot, srcRel, dstRel string) error {
	data, exec, err := readSnapshotFile(snapshot, srcRel)
	if err != nil {
		return err
	}
	return v.Add(dstRel, data, exec)
}

// CopyDir copies every file under the snapshot's directory srcRel to
// dstRel, keeping relative paths.
func (v *View) CopyDir(snapshot, srcRel, dstRel string) error {
	root := filepath.Join(snapshot, filepath.FromSlash(srcRel))
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		return v.CopyFile(snapshot, path.Join(srcRel, rel), path.Join(dstRel, rel))
	})
}

// readSnapshotFile reads one file of the snapshot, following a link only
// when it resolves to a regular file inside the snapshot.
func readSnapshotFile(snapshot, rel string) ([]byte, bool, error) {
	p := filepath.Join(snapshot, filepath.FromSlash(rel))
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, false, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil, false, err
		}
		snapReal, err := filepath.EvalSymlinks(snapshot)
		if err != nil {
			return nil, false, err
		}
		if !within(real, snapReal) {
			return nil, false, fmt.Errorf("%s links out of the snapshot", bundle.Quote(rel))
		}
		p = real
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if !st.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%s is not a regular file", bundle.Quote(rel))
	}
	if st.Size() > MaxViewBytes {
		return nil, false, fmt.Errorf("%s is larger than %d bytes", bundle.Quote(rel), MaxViewBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxViewBytes+1))
	if err != nil {
		return nil, false, err
	}
	return data, st.Mode()&0o100 != 0, nil
}

func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

// ManifestEntry is one file of a view as its manifest records it.
type ManifestEntry struct {
	Path   string `json:"path"`
	Mode   string `json:"mode"`
	Size   int    `json:"size"`
	BLAKE3 string `json:"blake3"`
}

// Manifest is what a view holds, written next to it (<name>.manifest)
// for whoever audits the views directory; the launch check compares the
// view on disk with the manifest of the view it derives afresh.
type Manifest struct {
	Schema string          `json:"schema"`
	Host   string          `json:"host"`
	Token  string          `json:"token"`
	Bundle string          `json:"bundle"`
	Files  []ManifestEntry `json:"files"`
}

func (v *View) manifest(host, token, bundleName string) Manifest {
	m := Manifest{Schema: ViewSchema, Host: host, Token: token, Bundle: bundleName, Files: []ManifestEntry{}}
	for _, p := range v.Paths() {
		f := v.files[p]
		sum := blake3.Sum256(f.data)
		m.Files = append(m.Files, ManifestEntry{Path: p, Mode: fmt.Sprintf("%04o", f.mode()), Size: len(f.data), BLAKE3: hex.EncodeToString(sum[:])})
	}
	return m
}

func (f viewFile) mode() fs.FileMode {
	if f.exec {
		return viewExecMode
	}
	return viewFileMode
}

// digest names a view: BLAKE3 over the tag and its canonical manifest. Two
// views with the same name hold the same bytes.
func (m Manifest) digest() string {
	j, _ := json.Marshal(m)
	h := blake3.New()
	h.WriteString(ViewSchema + "\x00")
	h.Write(j)
	return hex.EncodeToString(h.Sum(nil))
}

// Materialize makes sure the view v of bundle bundleName (token) for host
// exists under viewsDir/<token>/<host>/<digest>/ exactly as v holds it,
// and returns that directory. An existing directory is reused only if
// every entry matches v (kind, mode, size, content, no hard link, nothing
// more, nothing less); otherwise it is moved aside and built again: into
// a temporary directory, made read-only, then renamed into place. A lock
// per host directory keeps two launches from building at once.
func Materialize(viewsDir, token, host, bundleName string, v *View) (string, error) {
	m := v.manifest(host, token, bundleName)
	name := m.digest()[:24]
	hostDir := filepath.Join(viewsDir, token, host)
	if err := ensureContainers(viewsDir, filepath.Join(viewsDir, token), hostDir); err != nil {
		return "", err
	}
	unlock, err := takeLock(filepath.Join(hostDir, ".lock"), "another bundlectl exec building the views of this bundle")
	if err != nil {
		return "", err
	}
	defer unlock()
	sweepLeftovers(hostDir)
	dir := filepath.Join(hostDir, name)
	err = v.check(dir)
	if err == nil {
		return dir, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		if err := discard(hostDir, dir); err != nil {
			return "", err
		}
	}
	if err := v.build(hostDir, dir); err != nil {
		return "", err
	}
	if err := v.check(dir); err != nil {
		return "", fmt.Errorf("the view just built at %s does not check: %w", bundle.Quote(dir), err)
	}
	mj, _ := json.MarshalIndent(m, "", "  ")
	mp := filepath.Join(hostDir, name+".manifest")
	os.Remove(mp)
	if err := os.WriteFile(mp, append(mj, '\n'), viewFileMode); err != nil {
		return "", err
	}
	return dir, nil
}

// MaterializeSession builds v, which holds configured values
// (HoldValues), in the session directory as views/<n>, and returns that
// directory. It is built afresh for every session and removed with it;
// no manifest is written.
func (s *Session) MaterializeSession(n int, v *View) (string, error) {
	sd, err := s.Dir()
	if err != nil {
		return "", err
	}
	parent := filepath.Join(sd, "views")
	if err := os.Mkdir(parent, containerMode); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	dir := filepath.Join(parent, strconv.Itoa(n))
	if err := v.build(parent, dir); err != nil {
		return "", err
	}
	if err := v.check(dir); err != nil {
		return "", fmt.Errorf("the view just built at %s does not check: %w", bundle.Quote(dir), err)
	}
	return dir, nil
}

// ensureContainers creates the directories that hold views, owner-only,
// and refuses any that is not a real directory of this user.
func ensureContainers(dirs ...string) error {
	uid := uint32(os.Geteuid())
	for _, d := range dirs {
		if err := os.Mkdir(d, containerMode); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		var st unix.Stat_t
		if err := unix.Lstat(d, &st); err != nil {
			return err
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return fmt.Errorf("%s is not a directory", bundle.Quote(d))
		}
		if st.Uid != uid {
			return fmt.Errorf("%s is not owned by the current user", bundle.Quote(d))
		}
		if fs.FileMode(st.Mode&0o777) != containerMode {
			if err := os.Chmod(d, containerMode); err != nil {
				return err
			}
		}
	}
	return nil
}

// ViewMismatchError says how a view on disk differs from what it should be.
type ViewMismatchError struct {
	Dir, Path, Problem string
}

func (e *ViewMismatchError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("view %s: %s", bundle.Quote(e.Dir), e.Problem)
	}
	return fmt.Sprintf("view %s: %s: %s", bundle.Quote(e.Dir), bundle.Quote(e.Path), e.Problem)
}

// check compares the directory dir with v. A missing dir wraps
// fs.ErrNotExist.
func (v *View) check(dir string) error {
	uid := uint32(os.Geteuid())
	bad := func(rel, format string, args ...any) error {
		return &ViewMismatchError{Dir: dir, Path: rel, Problem: fmt.Sprintf(format, args...)}
	}
	dirs := map[string]bool{"": true}
	for p := range v.files {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	seen := 0
	var walk func(rel string) error
	walk = func(rel string) error {
		abs := filepath.Join(dir, filepath.FromSlash(rel))
		var st unix.Stat_t
		if err := unix.Lstat(abs, &st); err != nil {
			if rel == "" && errors.Is(err, unix.ENOENT) {
				return fmt.Errorf("view %s: %w", bundle.Quote(dir), fs.ErrNotExist)
			}
			return err
		}
		if st.Uid != uid {
			return bad(rel, "not owned by the current user")
		}
		perm := fs.FileMode(st.Mode & 0o7777)
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			if !dirs[rel] {
				return bad(rel, "is a directory the view does not hold")
			}
			if perm != viewDirMode {
				return bad(rel, "has mode %04o, want %04o", perm, viewDirMode)
			}
			ents, err := os.ReadDir(abs)
			if err != nil {
				return err
			}
			for _, e := range ents {
				if err := walk(path.Join(rel, e.Name())); err != nil {
					return err
				}
			}
			return nil
		case unix.S_IFREG:
			f, ok := v.files[rel]
			if !ok {
				return bad(rel, "is a file the view does not hold")
			}
			if perm != f.mode() {
				return bad(rel, "has mode %04o, want %04o", perm, f.mode())
			}
			if st.Nlink != 1 {
				return bad(rel, "has %d hard links", st.Nlink)
			}
			if st.Size != int64(len(f.data)) {
				return bad(rel, "has changed size")
			}
			got, err := os.ReadFile(abs)
			if err != nil {
				return err
			}
			if !bytes.Equal(got, f.data) {
				return bad(rel, "has changed content")
			}
			seen++
			return nil
		}
		return bad(rel, "is neither a regular file nor a directory")
	}
	if err := walk(""); err != nil {
		return err
	}
	if seen != len(v.files) {
		return bad("", "misses %d of its files", len(v.files)-seen)
	}
	return nil
}

// NameCollisionError says that two entries of one directory of a view
// differ only in letter case or Unicode normalization (skills/Report and
// skills/report, two components of the bundle): a case-insensitive file
// system (macOS, Windows) takes them for one name, so the view cannot be
// built there. Views are checked for it on every OS, before any file is
// written, so a bundle behaves alike everywhere.
type NameCollisionError struct {
	A, B string // the two paths in the view, slash-separated
}

func (e *NameCollisionError) Error() string {
	if strings.HasPrefix(e.B, e.A+"/") {
		return fmt.Sprintf("its view would hold %s both as a file and as the directory of %s, which no file system allows; rename the file in the bundle and review it again", bundle.Quote(e.A), bundle.Quote(e.B))
	}
	return fmt.Sprintf("its view would hold both %s and %s, which differ only in letter case or Unicode normalization and are one name on a case-insensitive file system (macOS, Windows); rename one of the two components in the bundle and review it again", bundle.Quote(e.A), bundle.Quote(e.B))
}

// CheckNames refuses a view two of whose entries in one directory (files
// or the directories that hold them) have the same bundle.CollisionKey,
// and one with a file at the very path of a directory holding another (a
// context file named hooks beside the hooks/ of a guard), which could not
// be written either.
func (v *View) CheckNames() error {
	names := map[string]bool{}
	var clash *NameCollisionError
	for p := range v.files {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if _, file := v.files[d]; file && (clash == nil || d+"\x00"+p < clash.A+"\x00"+clash.B) {
				clash = &NameCollisionError{A: d, B: p}
			}
		}
		for ; p != "."; p = path.Dir(p) {
			names[p] = true
		}
	}
	if clash != nil {
		return clash
	}
	sorted := make([]string, 0, len(names))
	for p := range names {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	seen := map[[2]string]string{}
	for _, p := range sorted {
		k := [2]string{path.Dir(p), bundle.CollisionKey(path.Base(p))}
		if other, ok := seen[k]; ok {
			return &NameCollisionError{A: other, B: p}
		}
		seen[k] = p
	}
	return nil
}

// build writes v into a temporary directory beside dir, makes it
// read-only and renames it to dir. Nothing is synced: a view is derived
// and checked at every launch, so a torn one is rebuilt, never used.
func (v *View) build(hostDir, dir string) (err error) {
	if err := v.CheckNames(); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(hostDir, ".tmp-")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			removeAll(tmp)
		}
	}()
	var dirs []string
	made := map[string]bool{}
	for _, p := range v.Paths() {
		f := v.files[p]
		parent := path.Dir(p)
		if parent != "." && !made[parent] {
			if err := os.MkdirAll(filepath.Join(tmp, filepath.FromSlash(parent)), 0o700); err != nil {
				return err
			}
			for d := parent; d != "." && !made[d]; d = path.Dir(d) {
				made[d] = true
				dirs = append(dirs, d)
			}
		}
		out := filepath.Join(tmp, filepath.FromSlash(p))
		fh, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return err
		}
		_, werr := fh.Write(f.data)
		cerr := fh.Close()
		if werr != nil {
			return werr
		}
		if cerr != nil {
			return cerr
		}
		if err := os.Chmod(out, f.mode()); err != nil {
			return err
		}
	}
	// Deepest directories first, so a parent is made read-only last.
	sort.Slice(dirs, func(i, j int) bool { return strings.Count(dirs[i], "/") > strings.Count(dirs[j], "/") })
	for _, d := range dirs {
		if err := os.Chmod(filepath.Join(tmp, filepath.FromSlash(d)), viewDirMode); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, viewDirMode); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// sweepLeftovers removes the .tmp-* and .trash-* directories of hostDir: a
// launch builds and discards only under hostDir's lock, which the caller
// holds, so any there belong to a launch killed while it held it. gc
// removes a token's views only once no receipt holds the token, so
// without this they would stay as long as the bundle is trusted.
func sweepLeftovers(hostDir string) {
	ents, err := os.ReadDir(hostDir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.IsDir() && (strings.HasPrefix(e.Name(), ".tmp-") || strings.HasPrefix(e.Name(), ".trash-")) {
			removeAll(filepath.Join(hostDir, e.Name()))
		}
	}
}

// discard moves a view that failed its check out of the way and removes it.
func discard(hostDir, dir string) error {
	trash := filepath.Join(hostDir, ".trash-"+randomHex(8))
	if err := os.Rename(dir, trash); err != nil {
		return err
	}
	removeAll(trash)
	return nil
}

// removeAll removes a read-only tree.
func removeAll(root string) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	os.RemoveAll(root)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
