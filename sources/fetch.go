package sources

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strconv"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
)

// DefaultTimeout bounds a whole fetch when Options.Timeout is zero:
// generous, because a slow network is not an attack; a fetch that hangs
// is stopped, never waited for forever.
const DefaultTimeout = 10 * time.Minute

// Prefixes of the directories a fetch creates inside its parent. A crash
// can leave them behind; a caller that holds its lock (so no fetch runs)
// may delete every entry of the parent with one of these prefixes.
const (
	TempPrefix    = ".fetch-"
	ScratchPrefix = ".scratch-"
)

// Options tune a fetch. The zero value is usable.
type Options struct {
	// Limits bound the fetched tree (bundle.DefaultLimits when zero).
	Limits bundle.Limits
	// Timeout bounds the whole fetch (DefaultTimeout when zero).
	Timeout time.Duration
	// Name is the bundle name to use instead of the derived one (the
	// plugin name of a marketplace entry, else the last element of the
	// subdirectory, directory, repository or archive).
	Name string
	// Taken, when set, reports names already in use in the destination
	// (the caller compares under CollisionKey); a fetch whose name is
	// taken is refused.
	Taken func(name string) bool
	// GitPath is the git program ("git", found on PATH, when empty).
	GitPath string
	// NoCopyHint says the fetch is not an install's (an update's, a
	// sync's): a tree refused for a directory shaped as a git repository
	// hints that directory's listing, not the install of a copy without
	// it (InstallCopyWithout), which would be a second bundle beside the
	// one updated, or be refused for its name.
	NoCopyHint bool
	// Parent, when set, is the parent directory, already opened and
	// checked by the caller; the parent argument then only names it (in
	// messages and Result.Dir). Every entry a fetch makes, writes or reads
	// back is reached through the opened directory, never by resolving
	// the parent's path again: a directory above it renamed away and a
	// link put in its place redirects nothing. The caller keeps it open
	// until the fetch returns. When nil, Fetch opens the parent itself,
	// once, after checking it.
	Parent *os.Root
}

// Result is a fetched tree, not yet trusted or installed.
type Result struct {
	// Dir is a fresh directory inside the parent given to Fetch (its
	// name there is filepath.Base(Dir)) holding
	// exactly the bundle tree (directories 0755, files 0644 or 0755). The
	// caller validates it and renames it into place, or calls Discard.
	Dir string
	// Name is the bundle name (Options.Name or derived), already checked
	// with CheckName and Options.Taken.
	Name string
	// Source records where the tree came from, for state and lockfiles.
	Source Resolved
	// Generated lists the files the fetch wrote itself rather than copied
	// from the source (a marketplace entry's definitions written as
	// .claude-plugin/plugin.json), so a review can say where they came from.
	Generated []string
	// archiveRoot is, for an archive, its directory the tree was
	// extracted from (ValidateHint).
	archiveRoot string
}

// Discard removes the fetched tree.
func (r *Result) Discard() error { return os.RemoveAll(r.Dir) }

// Fetch resolves q and fetches it into a new temporary directory inside
// parent (created 0700 if missing; a link or non-directory is refused).
// Nothing it fetches is trusted: see the package documentation for what
// is refused. On any failure nothing is left in parent. Network access
// happens only when q names a remote source, and only to it.
func Fetch(ctx context.Context, parent string, q Request, opts Options) (*Result, error) {
	s, err := classify(q)
	if err != nil {
		return nil, err
	}
	return fetchSpec(ctx, parent, s, opts, nil)
}

// FetchLocked fetches exactly what r records: the same commits (the
// marketplace's and the plugin's), the same archive pin, the same
// directory. The result's Source equals r, or the fetch fails with
// ErrPinMismatch and leaves nothing behind. A directory has no pin: its
// content is whatever it holds now (the caller's token check decides).
func FetchLocked(ctx context.Context, parent string, r Resolved, opts Options) (*Result, error) {
	if err := r.Validate(); err != nil {
		return nil, &Error{Source: r.String(), Reason: "the recorded source is malformed: " + err.Error(), Err: ErrInvalid}
	}
	s, err := classify(r.Request())
	if err != nil {
		return nil, err
	}
	s.locked = &r
	switch r.Kind {
	case KindGit:
		s.pinned = r.Commit
	case KindMarketplace:
		s.pinned = r.Commit
		if r.Marketplace.Commit != "" {
			s.pinMkt = r.Marketplace.Commit
		}
	}
	// The check runs inside the fetch, so that a refused tree is removed
	// through the parent opened, like any failed fetch's.
	return fetchSpec(ctx, parent, s, opts, func(res *Result) error {
		if !reflect.DeepEqual(res.Source, r) {
			return &Error{Source: r.String(), Reason: "fetched " + res.Source.String() + ", not the recorded source", Err: ErrPinMismatch}
		}
		return nil
	})
}

// fetcher is one fetch in progress. Everything it creates is reached
// through proot (the parent, opened once) and scratch (its scratch
// directory, opened from proot), by names relative to them; the paths
// only name entries in messages.
type fetcher struct {
	ctx      context.Context
	timeout  time.Duration
	lim      bundle.Limits
	gitPath  string
	parent   string   // the parent's path, for messages
	proot    *os.Root // the parent
	out      string   // the output directory's name in proot
	scratchN string   // the scratch directory's name in proot
	scratch  *os.Root // the scratch directory
	scratchF *os.File // the scratch directory, for git's working directory
	workDir  string   // git's working directory (gitWorkDir), once found
	viaFD    bool     // workDir enters the scratch directory by its descriptor
	nrepo    int
	name     string // the bundle's name (deriveName), for a hint's copy
}

// fetchSpec fetches s; check, when set, may refuse the result, which is
// then removed.
func fetchSpec(ctx context.Context, parent string, s *spec, opts Options, check func(*Result) error) (res *Result, err error) {
	if opts.NoCopyHint {
		defer func() { err = withoutCopyHint(err) }()
	}
	f := &fetcher{timeout: opts.Timeout, lim: opts.Limits.WithDefaults(), gitPath: opts.GitPath, parent: parent}
	if f.timeout <= 0 {
		f.timeout = DefaultTimeout
	}
	if f.gitPath == "" {
		f.gitPath = "git"
	}
	var cancel context.CancelFunc
	f.ctx, cancel = context.WithTimeout(ctx, f.timeout)
	defer cancel()
	// The name is known from the request: a bad or taken name costs no
	// fetch. A local directory that is no marketplace is said first.
	if err := checkLocalMarketplace(s); err != nil {
		return nil, err
	}
	name, err := deriveName(s, opts)
	if err != nil {
		return nil, err
	}
	f.name = name
	f.proot = opts.Parent
	if f.proot == nil {
		if err := ensureParent(parent); err != nil {
			return nil, &Error{Source: s.display, Reason: err.Error(), Err: err}
		}
		if f.proot, err = os.OpenRoot(parent); err != nil {
			return nil, &Error{Source: s.display, Reason: "cannot open the fetch directory: " + errText(err), Err: err}
		}
		defer f.proot.Close()
	}
	if f.out, err = mkdirTemp(f.proot, TempPrefix); err != nil {
		return nil, &Error{Source: s.display, Reason: fmt.Sprintf("cannot create a temporary directory in %s: %s", bundle.Quote(parent), errText(err)), Err: err}
	}
	out := filepath.Join(parent, f.out)
	if testOnlyOutputMade != nil {
		testOnlyOutputMade()
	}
	defer func() {
		if f.scratch != nil {
			f.scratchF.Close()
			f.scratch.Close()
			f.proot.RemoveAll(f.scratchN)
		}
		if err != nil {
			f.proot.RemoveAll(f.out)
		}
	}()
	res = &Result{Dir: out, Name: name}
	switch s.kind {
	case KindDir:
		err = f.fetchDir(s, res)
	case KindGit:
		err = f.fetchGit(s, res)
	case KindArchive:
		err = f.fetchArchive(s, res)
	case KindMarketplace:
		err = f.fetchMarketplace(s, res)
	default:
		err = invalid(s.display, "unknown source kind")
	}
	if f.ctx.Err() != nil {
		err = f.ctxError(s.display) // whatever failed, the deadline is why
	}
	if err == nil && check != nil {
		err = check(res)
	}
	if err != nil {
		return nil, err
	}
	if err = f.proot.Chmod(f.out, 0o755); err != nil {
		return nil, err
	}
	return res, nil
}

func (f *fetcher) ctxError(display string) error {
	if errors.Is(f.ctx.Err(), context.DeadlineExceeded) {
		return &Error{Source: display, Reason: fmt.Sprintf("the fetch did not finish within %s and was stopped", f.timeout), Err: ErrTimeout}
	}
	reason := "the fetch was cancelled"
	if c := context.Cause(f.ctx); c != nil && c != f.ctx.Err() {
		reason += " (" + c.Error() + ")" // "interrupted by SIGINT"
	}
	return &Error{Source: display, Reason: reason, Err: f.ctx.Err()}
}

// ensureParent creates parent (0700) when it is missing and refuses one
// that is a symbolic link or not a directory.
func ensureParent(parent string) error {
	fi, err := os.Lstat(parent)
	if errors.Is(err, os.ErrNotExist) {
		return os.MkdirAll(parent, 0o700)
	}
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("the fetch directory %q is a symbolic link", parent)
	}
	if !fi.IsDir() {
		return fmt.Errorf("the fetch directory %q is not a directory", parent)
	}
	return nil
}

// testOnlyOutputMade runs in a fetch once it made its output directory
// in the parent, before anything else is made or written.
var testOnlyOutputMade func()

// mkdirTemp makes a new directory (0700) named prefix and a random
// suffix in r, and returns its name.
func mkdirTemp(r *os.Root, prefix string) (string, error) {
	for attempt := 0; ; attempt++ {
		name := prefix + strconv.FormatUint(rand.Uint64(), 36)
		err := r.Mkdir(name, 0o700)
		if err == nil || !errors.Is(err, fs.ErrExist) || attempt >= 100 {
			return name, err
		}
	}
}

// scratchDir returns the name, in the fetch's scratch directory (made on
// first use, removed when the fetch ends), of a new entry for a
// repository or a download; the caller makes it.
func (f *fetcher) scratchDir() (string, error) {
	if f.scratch == nil {
		n, err := mkdirTemp(f.proot, ScratchPrefix)
		if err != nil {
			return "", err
		}
		r, err := f.proot.OpenRoot(n)
		if err != nil {
			f.proot.Remove(n)
			return "", err
		}
		d, err := r.Open(".")
		if err != nil {
			r.Close()
			f.proot.Remove(n)
			return "", err
		}
		f.scratchN, f.scratch, f.scratchF = n, r, d
	}
	f.nrepo++
	return strconv.Itoa(f.nrepo), nil
}

// newTree opens the output directory, through the parent, to write a
// tree into.
func (f *fetcher) newTree(what, display string, links bool) (*tree, error) {
	r, err := f.proot.OpenRoot(f.out)
	if err != nil {
		return nil, err
	}
	t := newTreeIn(r, f.lim, links, what, display)
	t.ctx = f.ctx
	return t, nil
}

func (f *fetcher) fetchDir(s *spec, res *Result) error {
	t, err := f.newTree("directory", s.display, true)
	if err != nil {
		return err
	}
	defer t.close()
	if err := copyDir(t, s.path, s.subdir); err != nil {
		return err
	}
	// The links are checked last: a refused one is listed too.
	if err := withListing(t.finish(), s.path, s.subdir); err != nil {
		return err
	}
	res.Source = Resolved{Kind: KindDir, Path: s.path, Subdir: s.subdir}
	return nil
}

func (f *fetcher) openRepo(url, path, display string) (*gitRepo, error) {
	dir, err := f.scratchDir()
	if err != nil {
		return nil, err
	}
	remote := url
	if remote == "" {
		remote = path
	}
	return f.newGitRepo(dir, remote, display)
}

func (f *fetcher) fetchGit(s *spec, res *Result) error {
	g, err := f.openRepo(s.url, s.path, s.display)
	if err != nil {
		return err
	}
	want, fallback := s.ref, ""
	if s.pinned != "" {
		want, fallback = s.pinned, s.ref
	}
	commit, err := g.fetch(want, fallback)
	if err != nil {
		return err
	}
	if err := f.extractGit(g, commit, s.subdir, s.display); err != nil {
		return err
	}
	res.Source = Resolved{Kind: KindGit, URL: s.url, Path: s.path, Ref: s.ref, Commit: commit, Subdir: s.subdir}
	return nil
}

func (f *fetcher) extractGit(g *gitRepo, commit, sub, display string) error {
	oid, err := g.subtree(commit, sub)
	if err != nil {
		return withGitListing(err, g.remote, commit, "")
	}
	t, err := f.newTree("repository", display, true)
	if err != nil {
		return err
	}
	defer t.close()
	if err := g.extract(t, oid); err != nil {
		return withGitListing(err, g.remote, commit, sub)
	}
	return withGitListing(withGitCopyWithout(t.finish(), g.remote, commit, sub, f.name), g.remote, commit, sub)
}

// deriveName picks and checks the bundle name.
func deriveName(s *spec, opts Options) (string, error) {
	name := opts.Name
	if name == "" {
		switch {
		case s.kind == KindMarketplace:
			name = s.plugin
		case s.subdir != "":
			name = path.Base(s.subdir)
		case s.url != "":
			name = baseName(s.url)
		default:
			name = baseName(s.path)
		}
	}
	if err := CheckName(name); err != nil {
		return "", &Error{Source: s.display, Reason: fmt.Sprintf("bundle name %s: %v; choose another name with --name", bundle.Quote(name), err), Err: ErrRefused, Fix: "bundlectl install --help"}
	}
	if opts.Taken != nil && opts.Taken(name) {
		return "", &Error{Source: s.display, Reason: fmt.Sprintf("a bundle named %s already exists", bundle.Quote(name)), Err: ErrRefused}
	}
	return name, nil
}
