package sources

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
)

// Kind is the kind of a source.
type Kind string

const (
	// KindDir is a local directory, copied as it is.
	KindDir Kind = "dir"
	// KindGit is a git repository at one commit.
	KindGit Kind = "git"
	// KindMarketplace is one plugin of a Claude Code or Codex marketplace.
	KindMarketplace Kind = "marketplace"
	// KindArchive is a .tar.gz, .tgz or .zip file pinned by its sha256.
	KindArchive Kind = "archive"
)

// Marketplace formats.
const (
	FormatClaude = "claude" // .claude-plugin/marketplace.json
	FormatCodex  = "codex"  // .agents/plugins/marketplace.json
)

// Resolved records where a fetched bundle came from, exactly enough to
// fetch the same bytes again (FetchLocked) or to follow the same ref to
// newer ones (Request, for an update). It is what state and the lockfile
// store; it never holds a credential.
//
// For KindMarketplace the top-level URL, Path, Ref, Commit and Subdir say
// where the plugin's files came from (for an entry relative to the
// marketplace: the marketplace's own repository or directory and the
// entry's path), and Marketplace where the catalogue itself came from.
// A git fetch always has a Commit; a directory never has one.
type Resolved struct {
	Kind        Kind               `json:"kind"`
	Plugin      string             `json:"plugin,omitempty"`
	URL         string             `json:"url,omitempty"`
	Path        string             `json:"path,omitempty"`
	Ref         string             `json:"ref,omitempty"`
	Commit      string             `json:"commit,omitempty"`
	Subdir      string             `json:"subdir,omitempty"`
	SHA256      string             `json:"sha256,omitempty"`
	Marketplace *MarketplaceSource `json:"marketplace,omitempty"`
}

// MarketplaceSource is where a marketplace catalogue came from: a local
// directory (Path, no Commit) or a git repository (URL or Path, with the
// Ref asked for and the Commit it resolved to).
type MarketplaceSource struct {
	Name   string `json:"name"`   // as the catalogue declares it
	Format string `json:"format"` // FormatClaude or FormatCodex
	URL    string `json:"url,omitempty"`
	Path   string `json:"path,omitempty"`
	Ref    string `json:"ref,omitempty"`
	Commit string `json:"commit,omitempty"`
}

// Location is the URL, or else the path.
func (r Resolved) Location() string {
	if r.URL != "" {
		return r.URL
	}
	return r.Path
}

// Location is the URL, or else the path.
func (m MarketplaceSource) Location() string {
	if m.URL != "" {
		return m.URL
	}
	return m.Path
}

// String is a stable one-line description for display: the kind, the
// location, then the pins in a fixed order. Text that could move a
// terminal's cursor is escaped.
func (r Resolved) String() string {
	var b strings.Builder
	switch r.Kind {
	case KindMarketplace:
		fmt.Fprintf(&b, "marketplace %s", esc(r.Plugin))
		if m := r.Marketplace; m != nil {
			fmt.Fprintf(&b, "@%s (%s catalogue %s", esc(m.Name), esc(m.Format), esc(m.Location()))
			kv(&b, "ref", m.Ref)
			kv(&b, "commit", m.Commit)
			b.WriteString(")")
		}
		if r.Commit != "" {
			b.WriteString(" from git ")
		} else {
			b.WriteString(" from dir ")
		}
		b.WriteString(esc(r.Location()))
	default:
		fmt.Fprintf(&b, "%s %s", esc(string(r.Kind)), esc(r.Location()))
	}
	if r.Kind != KindMarketplace || r.Commit != "" {
		kv(&b, "ref", r.Ref)
		kv(&b, "commit", r.Commit)
	}
	kv(&b, "sha256", r.SHA256)
	kv(&b, "subdir", r.Subdir)
	return b.String()
}

func kv(b *strings.Builder, k, v string) {
	if v != "" {
		fmt.Fprintf(b, " %s=%s", k, esc(v))
	}
}

func esc(s string) string { return bundle.EscapePath(s) }

// Validate checks that r is complete and well-formed for its kind: what a
// state file or a lockfile may hold. The error names the field and never
// repeats its value.
func (r Resolved) Validate() error {
	if err := r.validate(); err != nil {
		return err
	}
	return nil
}

func (r Resolved) validate() error {
	field := func(name, msg string) error { return fmt.Errorf("%s: %s", name, msg) }
	loc := func(url, path, prefix string, git bool) error {
		switch {
		case url != "" && path != "":
			return field(prefix+"url", "a source has a url or a path, not both")
		case url == "" && path == "":
			return field(prefix+"url", "a source needs a url or a path")
		case url != "":
			if git {
				if _, err := checkGitURL(url); err != nil {
					return field(prefix+"url", err.Error())
				}
			} else if _, err := checkArchiveURL(url); err != nil {
				return field(prefix+"url", err.Error())
			}
		default:
			if err := checkAbsPath(path); err != nil {
				return field(prefix+"path", err.Error())
			}
		}
		return nil
	}
	if r.Subdir != "" {
		if err := checkSubdir(r.Subdir); err != nil {
			return field("subdir", err.Error())
		}
	}
	if r.Ref != "" {
		if err := checkRef(r.Ref); err != nil {
			return field("ref", err.Error())
		}
	}
	if r.Commit != "" && !isCommit(r.Commit) {
		return field("commit", "want a full commit id (40 or 64 lowercase hex digits)")
	}
	if r.SHA256 != "" && !isSHA256(r.SHA256) {
		return field("sha256", "want 64 lowercase hex digits")
	}
	none := func(name, v string) error {
		if v != "" {
			return field(name, fmt.Sprintf("does not apply to a %s source", r.Kind))
		}
		return nil
	}
	switch r.Kind {
	case KindDir:
		if err := firstErr(none("url", r.URL), none("ref", r.Ref), none("commit", r.Commit), none("sha256", r.SHA256), none("plugin", r.Plugin)); err != nil {
			return err
		}
		if r.Marketplace != nil {
			return field("marketplace", "does not apply to a dir source")
		}
		if r.Path == "" {
			return field("path", "a dir source needs a path")
		}
		return loc("", r.Path, "", false)
	case KindGit:
		if err := firstErr(none("sha256", r.SHA256), none("plugin", r.Plugin)); err != nil {
			return err
		}
		if r.Marketplace != nil {
			return field("marketplace", "does not apply to a git source")
		}
		if r.Commit == "" {
			return field("commit", "a git source needs the commit it resolved to")
		}
		return loc(r.URL, r.Path, "", true)
	case KindArchive:
		if err := firstErr(none("ref", r.Ref), none("commit", r.Commit), none("plugin", r.Plugin)); err != nil {
			return err
		}
		if r.Marketplace != nil {
			return field("marketplace", "does not apply to an archive source")
		}
		if r.SHA256 == "" {
			return field("sha256", "an archive source needs its sha256 pin")
		}
		return loc(r.URL, r.Path, "", false)
	case KindMarketplace:
		if err := none("sha256", r.SHA256); err != nil {
			return err
		}
		if err := CheckName(r.Plugin); err != nil {
			return field("plugin", err.Error())
		}
		m := r.Marketplace
		if m == nil {
			return field("marketplace", "a marketplace source needs its marketplace")
		}
		if err := CheckName(m.Name); err != nil {
			return field("marketplace.name", err.Error())
		}
		if m.Format != FormatClaude && m.Format != FormatCodex {
			return field("marketplace.format", fmt.Sprintf("want %q or %q", FormatClaude, FormatCodex))
		}
		if m.Ref != "" {
			if err := checkRef(m.Ref); err != nil {
				return field("marketplace.ref", err.Error())
			}
		}
		if m.Commit != "" && !isCommit(m.Commit) {
			return field("marketplace.commit", "want a full commit id (40 or 64 lowercase hex digits)")
		}
		if m.URL != "" && m.Commit == "" {
			return field("marketplace.commit", "a git marketplace needs the commit it resolved to")
		}
		if m.Commit == "" && m.Ref != "" {
			return field("marketplace.ref", "a directory marketplace has no ref")
		}
		if err := loc(m.URL, m.Path, "marketplace.", true); err != nil {
			return err
		}
		if r.URL != "" && r.Commit == "" {
			return field("commit", "a plugin fetched with git needs the commit it resolved to")
		}
		if r.Commit == "" && r.Ref != "" {
			return field("ref", "a plugin copied from a directory has no ref")
		}
		return loc(r.URL, r.Path, "", true)
	case "":
		return field("kind", "missing")
	default:
		return field("kind", fmt.Sprintf("want %q, %q, %q or %q", KindDir, KindGit, KindMarketplace, KindArchive))
	}
}

// Request returns the request that follows r's source again as it was
// asked for: the same ref (so a branch may have moved), the same archive
// pin. An update fetches this; FetchLocked fetches exactly r instead.
func (r Resolved) Request() Request {
	switch r.Kind {
	case KindMarketplace:
		q := Request{Kind: KindMarketplace, Source: r.Plugin + "@"}
		if m := r.Marketplace; m != nil {
			q.Source += m.Location()
			q.Ref = m.Ref
			q.Format = m.Format
			if m.URL == "" && m.Commit != "" {
				q.marketplaceGit = true // a local repository, not a directory
			}
		}
		return q
	case KindGit:
		return Request{Kind: KindGit, Source: r.Location(), Ref: r.Ref, Subdir: r.Subdir}
	case KindArchive:
		return Request{Kind: KindArchive, Source: r.Location(), Subdir: r.Subdir, SHA256: r.SHA256}
	default:
		return Request{Kind: r.Kind, Source: r.Path, Subdir: r.Subdir}
	}
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func checkAbsPath(p string) error {
	switch {
	case !filepath.IsAbs(p):
		return errors.New("not an absolute path")
	case filepath.Clean(p) != p:
		return errors.New("not a clean path")
	case hasControl(p):
		return errors.New("contains a control character")
	}
	return nil
}

// checkSubdir accepts a clean relative slash-separated path whose elements
// pass the tree name rules.
func checkSubdir(s string) error {
	if s == "" {
		return nil
	}
	if strings.HasPrefix(s, "/") {
		return errors.New("must be a relative path")
	}
	for _, e := range strings.Split(s, "/") {
		if e == ".." {
			return errors.New("must not contain \"..\"")
		}
		if msg, _ := bundle.CheckName(e); msg != "" {
			return errors.New(msg)
		}
		if IsGitDirName(e) {
			return fmt.Errorf("%s is the name of a git repository's directory, never a bundle's", bundle.Quote(e))
		}
	}
	return nil
}

// cleanSubdir turns "./a/b/", "a//b" or "." into the canonical "a/b" (""
// for the root), then checks it.
func cleanSubdir(s string) (string, error) {
	for strings.HasPrefix(s, "./") {
		s = s[2:]
	}
	s = strings.TrimSuffix(s, "/")
	if s == "." {
		s = ""
	}
	if s != "" && strings.Contains(s, "//") {
		return "", errors.New("must be a clean path")
	}
	return s, checkSubdir(s)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// isCommit reports a full SHA-1 or SHA-256 object name in lower case.
func isCommit(s string) bool { return (len(s) == 40 || len(s) == 64) && isHex(s) }

func isSHA256(s string) bool { return len(s) == 64 && isHex(s) }

// checkRef accepts what git accepts as a branch, tag or commit name and
// nothing that git could read as an option or a refspec: no leading "-",
// no ":", whitespace, controls, "..", "@{", "\", "~^?*[", no ".lock" or
// "/" or "." at the end.
func checkRef(s string) error {
	switch {
	case s == "":
		return errors.New("empty")
	case len(s) > 256:
		return errors.New("longer than 256 bytes")
	case strings.HasPrefix(s, "-"):
		return errors.New("must not start with \"-\"")
	case strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") || strings.Contains(s, "//"):
		return errors.New("not a valid ref name (slashes)")
	case strings.Contains(s, "..") || strings.Contains(s, "@{") || s == "@":
		return errors.New("not a valid ref name")
	case strings.HasSuffix(s, ".lock") || strings.HasSuffix(s, "."):
		return errors.New("not a valid ref name (ending)")
	case strings.ContainsAny(s, " :\\~^?*[\t\n\r\x7f"):
		return errors.New("not a valid ref name (character)")
	case hasControl(s):
		return errors.New("contains a control character")
	}
	for _, e := range strings.Split(s, "/") {
		if strings.HasPrefix(e, ".") {
			return errors.New("not a valid ref name (element starts with a dot)")
		}
	}
	return nil
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || bundle.IsBidi(r) || (r >= 0x80 && r < 0xa0) {
			return true
		}
	}
	return false
}
