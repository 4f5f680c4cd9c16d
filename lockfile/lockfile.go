package lockfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/bundlectl/bundlectl/sources"
	"github.com/google/renameio/v2"
	"github.com/pelletier/go-toml/v2"
)

const (
	// FileName is the lockfile in a workspace.
	FileName = "bundlectl.lock"
	// Version is the format version this package reads and writes.
	Version = 1
	// MaxFileSize bounds a lockfile; anything larger is refused unread.
	MaxFileSize = 4 << 20
)

var (
	// ErrMalformed is wrapped by every *ParseError but a version mismatch.
	ErrMalformed = errors.New("malformed lockfile")
	// ErrUnsupportedVersion: the file is from another format version.
	ErrUnsupportedVersion = errors.New("unsupported lockfile version")
)

// File is a parsed lockfile.
type File struct {
	Bundles []Bundle
}

// Bundle is one locked bundle: where it comes from, exactly (a commit or
// an archive pin), and the token it was trusted under.
type Bundle struct {
	Name    string
	Scope   bundle.Scope // bundle.ScopeUser or bundle.ScopeWorkspace
	Source  sources.Resolved
	Token   receipts.Token
	Enabled bool
}

// Lookup returns the bundle named name.
func (f *File) Lookup(name string) (Bundle, bool) {
	for _, b := range f.Bundles {
		if b.Name == name {
			return b, true
		}
	}
	return Bundle{}, false
}

// ParseError names where a lockfile is wrong: the file (set by Read), the
// line (0 when unknown) and the field. It never repeats a value from the
// file.
type ParseError struct {
	File   string
	Line   int
	Field  string
	Reason string
	Err    error // ErrMalformed or ErrUnsupportedVersion
}

func (e *ParseError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

func (e *ParseError) Unwrap() error { return e.Err }

// The on-disk shape (docs/lockfile.md). Pointers tell a missing key from
// a zero value; the field order is the order Marshal writes.
type fileTOML struct {
	Version *int64       `toml:"version"`
	Bundle  []bundleTOML `toml:"bundle"`
}

type bundleTOML struct {
	Name    *string     `toml:"name"`
	Scope   *string     `toml:"scope"`
	Enabled *bool       `toml:"enabled"`
	Token   *string     `toml:"token"`
	Source  *sourceTOML `toml:"source"`
}

type sourceTOML struct {
	Kind        string      `toml:"kind"`
	Plugin      string      `toml:"plugin,omitempty"`
	URL         string      `toml:"url,omitempty"`
	Path        string      `toml:"path,omitempty"`
	Ref         string      `toml:"ref,omitempty"`
	Commit      string      `toml:"commit,omitempty"`
	Subdir      string      `toml:"subdir,omitempty"`
	SHA256      string      `toml:"sha256,omitempty"`
	Marketplace *marketTOML `toml:"marketplace,omitempty"`
}

type marketTOML struct {
	Name   string `toml:"name"`
	Format string `toml:"format"`
	URL    string `toml:"url,omitempty"`
	Path   string `toml:"path,omitempty"`
	Ref    string `toml:"ref,omitempty"`
	Commit string `toml:"commit,omitempty"`
}

// header starts every lockfile Marshal writes.
const header = `# bundlectl.lock: the reviewed bundles of this workspace, pinned.
# Written by "bundlectl lock"; "bundlectl sync --locked" installs exactly
# these sources and trusts each one only if its recomputed token matches.
`

// Parse decodes and validates a lockfile. Decoding is strict: an unknown
// key, a duplicate key or table, a value of the wrong type, a missing
// field, a malformed token or source, or two bundles with the same name
// is a *ParseError naming the line and field.
func Parse(data []byte) (*File, error) {
	if len(data) > MaxFileSize {
		return nil, &ParseError{Reason: fmt.Sprintf("the file is larger than %d bytes", MaxFileSize), Err: ErrMalformed}
	}
	var raw fileTOML
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, decodeError(err)
	}
	lines := indexLines(data)
	at := func(field string) int { return lines.find(field) }
	fail := func(field, format string, args ...any) error {
		return &ParseError{Line: at(field), Field: field, Reason: fmt.Sprintf(format, args...), Err: ErrMalformed}
	}
	if raw.Version == nil {
		return nil, fail("version", "missing (this bundlectl writes version = %d)", Version)
	}
	if *raw.Version != Version {
		return nil, &ParseError{Line: at("version"), Field: "version", Reason: fmt.Sprintf("unsupported version (this bundlectl reads version %d)", Version), Err: ErrUnsupportedVersion}
	}
	f := &File{Bundles: make([]Bundle, 0, len(raw.Bundle))}
	first := map[string]int{}
	for i, rb := range raw.Bundle {
		p := fmt.Sprintf("bundle[%d]", i+1)
		field := func(name string) string { return p + "." + name }
		var b Bundle
		switch {
		case rb.Name == nil:
			return nil, fail(field("name"), "missing")
		case rb.Scope == nil:
			return nil, fail(field("scope"), "missing")
		case rb.Enabled == nil:
			return nil, fail(field("enabled"), "missing")
		case rb.Token == nil:
			return nil, fail(field("token"), "missing")
		case rb.Source == nil:
			return nil, fail(field("source"), "missing")
		}
		if err := sources.CheckName(*rb.Name); err != nil {
			return nil, fail(field("name"), "%v", err)
		}
		if !bundle.ValidBundleName(*rb.Name) {
			// A lockfile lists trusted bundles, and only such a name is.
			return nil, fail(field("name"), "%s is not a name bundlectl can trust: a bundle name is %s", bundle.Quote(*rb.Name), bundle.BundleNameRule)
		}
		b.Name = *rb.Name
		if j, dup := first[sources.CollisionKey(b.Name)]; dup {
			return nil, fail(field("name"), "the same bundle name as bundle[%d] (line %d); a lockfile lists each bundle once", j+1, at(fmt.Sprintf("bundle[%d].name", j+1)))
		}
		first[sources.CollisionKey(b.Name)] = i
		switch bundle.Scope(*rb.Scope) {
		case bundle.ScopeUser, bundle.ScopeWorkspace:
			b.Scope = bundle.Scope(*rb.Scope)
		default:
			return nil, fail(field("scope"), "want %q or %q", bundle.ScopeUser, bundle.ScopeWorkspace)
		}
		b.Enabled = *rb.Enabled
		tok, err := receipts.ParseToken(*rb.Token)
		if err != nil {
			return nil, fail(field("token"), "malformed: want <64 lowercase hex>.<64 lowercase hex>")
		}
		if tok.Content.IsZero() || tok.Capability.IsZero() {
			return nil, fail(field("token"), "a zero digest is no digest")
		}
		b.Token = tok
		b.Source = fromTOML(rb.Source)
		if err := b.Source.Validate(); err != nil {
			name, reason, _ := strings.Cut(err.Error(), ": ")
			return nil, fail(field("source."+name), "%s", reason)
		}
		f.Bundles = append(f.Bundles, b)
	}
	return f, nil
}

// decodeError turns a go-toml error into a *ParseError with its line,
// without the Go type names go-toml puts in its messages or any value.
func decodeError(err error) error {
	var de *toml.DecodeError
	var se *toml.StrictMissingError
	switch {
	case errors.As(err, &se) && len(se.Errors) > 0:
		de = &se.Errors[0]
	case errors.As(err, &de):
	default:
		return &ParseError{Reason: "not valid TOML", Err: ErrMalformed}
	}
	line, _ := de.Position()
	key := keyText(de.Key())
	msg := strings.TrimPrefix(de.Error(), "toml: ")
	switch {
	case strings.HasPrefix(msg, "unknown field") || strings.HasPrefix(msg, "strict mode"):
		return &ParseError{Line: line, Field: key, Reason: "unknown key", Err: ErrMalformed}
	case strings.HasPrefix(msg, "cannot decode"):
		return &ParseError{Line: line, Field: key, Reason: "the value has the wrong type", Err: ErrMalformed}
	case strings.Contains(msg, "too large") || strings.Contains(msg, "out of range"):
		return &ParseError{Line: line, Field: key, Reason: "the number is out of range", Err: ErrMalformed}
	}
	if len(msg) > 120 {
		msg = msg[:120] + "…"
	}
	return &ParseError{Line: line, Field: key, Reason: "not valid TOML: " + bundle.Sanitize(msg), Err: ErrMalformed}
}

func keyText(k toml.Key) string {
	if len(k) == 0 {
		return ""
	}
	parts := make([]string, len(k))
	for i, p := range k {
		parts[i] = bundle.EscapePath(p)
		if len(parts[i]) > 64 {
			parts[i] = parts[i][:64] + "…"
		}
	}
	return strings.Join(parts, ".")
}

func fromTOML(s *sourceTOML) sources.Resolved {
	r := sources.Resolved{
		Kind: sources.Kind(s.Kind), Plugin: s.Plugin, URL: s.URL, Path: s.Path,
		Ref: s.Ref, Commit: s.Commit, Subdir: s.Subdir, SHA256: s.SHA256,
	}
	if m := s.Marketplace; m != nil {
		r.Marketplace = &sources.MarketplaceSource{Name: m.Name, Format: m.Format, URL: m.URL, Path: m.Path, Ref: m.Ref, Commit: m.Commit}
	}
	return r
}

func toTOML(r sources.Resolved) *sourceTOML {
	s := &sourceTOML{
		Kind: string(r.Kind), Plugin: r.Plugin, URL: r.URL, Path: r.Path,
		Ref: r.Ref, Commit: r.Commit, Subdir: r.Subdir, SHA256: r.SHA256,
	}
	if m := r.Marketplace; m != nil {
		s.Marketplace = &marketTOML{Name: m.Name, Format: m.Format, URL: m.URL, Path: m.Path, Ref: m.Ref, Commit: m.Commit}
	}
	return s
}

// Marshal validates f and encodes it: a fixed header, the version, then
// the bundles sorted by name, each with its fields in a fixed order. The
// same File always gives the same bytes, and Parse gives it back.
func Marshal(f *File) ([]byte, error) {
	bs := append([]Bundle(nil), f.Bundles...)
	sort.Slice(bs, func(i, j int) bool { return bs[i].Name < bs[j].Name })
	out := fileTOML{Version: ptr(int64(Version))}
	seen := map[string]bool{}
	for _, b := range bs {
		if err := sources.CheckName(b.Name); err != nil {
			return nil, fmt.Errorf("lockfile: bundle name: %v", err)
		}
		if seen[sources.CollisionKey(b.Name)] {
			return nil, fmt.Errorf("lockfile: bundle %s is listed twice", bundle.Quote(b.Name))
		}
		seen[sources.CollisionKey(b.Name)] = true
		if b.Scope != bundle.ScopeUser && b.Scope != bundle.ScopeWorkspace {
			return nil, fmt.Errorf("lockfile: bundle %s: scope must be %q or %q", bundle.Quote(b.Name), bundle.ScopeUser, bundle.ScopeWorkspace)
		}
		if b.Token.Content.IsZero() || b.Token.Capability.IsZero() {
			return nil, fmt.Errorf("lockfile: bundle %s has no token", bundle.Quote(b.Name))
		}
		if err := b.Source.Validate(); err != nil {
			return nil, fmt.Errorf("lockfile: bundle %s: source.%v", bundle.Quote(b.Name), err)
		}
		out.Bundle = append(out.Bundle, bundleTOML{
			Name: ptr(b.Name), Scope: ptr(string(b.Scope)), Enabled: ptr(b.Enabled),
			Token: ptr(b.Token.String()), Source: toTOML(b.Source),
		})
	}
	var buf bytes.Buffer
	buf.WriteString(header)
	enc := toml.NewEncoder(&buf)
	enc.SetIndentTables(false)
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("lockfile: %w", err)
	}
	// A writer never produces a file a reader refuses.
	if _, err := Parse(buf.Bytes()); err != nil {
		return nil, fmt.Errorf("lockfile: the encoding does not parse back: %w", err)
	}
	return buf.Bytes(), nil
}

func ptr[T any](v T) *T { return &v }

// Read reads and parses the lockfile at path. It refuses, unread, a path
// that is not a regular file (a link, a FIFO) or is larger than
// MaxFileSize; a *ParseError carries the path.
func Read(path string) (*File, error) {
	fd, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("lockfile %q is a symbolic link; bundlectl reads only a regular file", path)
		}
		return nil, err
	}
	defer fd.Close()
	fi, err := fd.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("lockfile %q is not a regular file", path)
	}
	if fi.Size() > MaxFileSize {
		return nil, &ParseError{File: path, Reason: fmt.Sprintf("the file is larger than %d bytes", MaxFileSize), Err: ErrMalformed}
	}
	data, err := io.ReadAll(io.LimitReader(fd, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	f, err := Parse(data)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.File = path
		}
		return nil, err
	}
	return f, nil
}

// Write marshals f and replaces path atomically (a synced temporary file
// in the same directory, renamed over it, then the directory synced),
// mode 0644 whatever the umask: teams commit the file. It refuses to
// replace anything but a regular file, and writes nothing when f is
// invalid.
func Write(path string, f *File) error {
	data, err := Marshal(f)
	if err != nil {
		return err
	}
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("lockfile %q exists and is not a regular file; bundlectl replaces only a regular file", path)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	// Beside the lockfile, never in $TMPDIR: one a killed write leaves is
	// where its owner sees it.
	t, err := renameio.NewPendingFile(path, renameio.WithTempDir(filepath.Dir(path)), renameio.WithStaticPermissions(0o644))
	if err != nil {
		return err
	}
	defer t.Cleanup()
	if _, err := t.Write(data); err != nil {
		return err
	}
	if err := t.CloseAtomicallyReplace(); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
