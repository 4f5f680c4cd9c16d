package sources

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
)

// Request is what a person asked to install, as the CLI received it.
type Request struct {
	// Source is a local directory, a git repository (path, file://,
	// https:// or ssh:// URL, or scp-like user@host:path), an archive
	// (.tar.gz, .tgz or .zip: path or https:// URL), or
	// <plugin>@<marketplace> where the marketplace is a directory or a git
	// repository.
	Source string
	// Kind forces the kind of Source; "" detects it (see Classify).
	Kind Kind
	// Ref is a branch, tag or full commit id of a git source, or of a git
	// marketplace; "" means the remote's default branch (HEAD).
	Ref string
	// Subdir is the bundle's directory inside a dir, git or archive source.
	Subdir string
	// SHA256 pins an archive: 64 hex digits in either case, optionally
	// prefixed "sha256:" (in either case, as SHA256: is often written).
	// Required for archives, refused for everything else.
	SHA256 string
	// Format chooses the catalogue of a marketplace that has both:
	// FormatClaude (the default) or FormatCodex.
	Format string

	// marketplaceGit: the marketplace path is a git repository even
	// without a ref (set by Resolved.Request).
	marketplaceGit bool
}

// spec is a classified, validated request.
type spec struct {
	display string // the source as asked, for errors
	kind    Kind
	url     string // remote location (git or archive)
	path    string // absolute local location
	ref     string
	subdir  string
	sha256  string
	// marketplace
	plugin  string
	market  *spec // the marketplace location: kind dir or git
	format  string
	pinned  string // FetchLocked: the plugin's commit
	pinMkt  string // FetchLocked: the marketplace's commit
	locked  *Resolved
	isLocal bool // the location is on this machine (path or file://)
}

func invalid(display, format string, args ...any) error {
	return &Error{Source: display, Reason: fmt.Sprintf(format, args...), Err: ErrInvalid}
}

// scpLike matches git's scp-like syntax [user@]host:path, where the part
// before the colon has no slash.
var scpLike = lazyRegexp(`^(?:[A-Za-z0-9._~-]+@)?[A-Za-z0-9][A-Za-z0-9.-]*:(?:[^/]|/[^/]).*$`)

// Classify validates q and says which kind of source it names, without
// fetching anything. A local path is a directory unless Kind is KindGit,
// Ref is set, or it is a bare git repository (HEAD, objects/ and refs/);
// to install the committed state of a checkout, pass a ref or a file://
// URL.
func Classify(q Request) (Kind, error) {
	s, err := classify(q)
	if err != nil {
		return "", err
	}
	return s.kind, nil
}

func classify(q Request) (*spec, error) {
	src := q.Source
	d := redact(src)
	switch {
	case src == "":
		return nil, invalid(d, "no source given")
	case strings.HasPrefix(src, "-"):
		return nil, invalid(d, "a source must not start with \"-\"")
	case hasControl(src):
		return nil, invalid(d, "the source contains a control character")
	}
	s := &spec{display: d, ref: q.Ref, sha256: strings.TrimPrefix(strings.ToLower(q.SHA256), "sha256:"), format: q.Format}
	if q.Ref != "" {
		if err := checkRef(q.Ref); err != nil {
			return nil, invalid(d, "--ref: %v", err)
		}
	}
	if q.Subdir != "" {
		sub, err := cleanSubdir(q.Subdir)
		if err != nil {
			return nil, invalid(d, "--path: %v", err)
		}
		s.subdir = sub
	}
	if q.Format != "" && q.Format != FormatClaude && q.Format != FormatCodex {
		return nil, invalid(d, "format must be %q or %q", FormatClaude, FormatCodex)
	}
	if q.SHA256 != "" && !isSHA256(s.sha256) {
		return nil, invalid(d, "--sha256 wants 64 hex digits")
	}
	if q.Kind == KindMarketplace || q.Kind == "" {
		if plugin, market, ok := splitMarketplace(src); ok {
			s.kind = KindMarketplace
			s.plugin = plugin
			if err := CheckName(plugin); err != nil {
				return nil, invalid(d, "plugin name: %v", err)
			}
			if s.subdir != "" {
				return nil, invalid(d, "--path does not apply to a marketplace plugin; its entry names the directory")
			}
			if q.SHA256 != "" {
				return nil, invalid(d, "--sha256 applies only to archives")
			}
			if archiveExt(market) != "" {
				return nil, invalid(d, "a marketplace is a directory or a git repository, not an archive")
			}
			mk := Request{Source: market, Ref: q.Ref}
			if q.marketplaceGit {
				mk.Kind = KindGit
			}
			m, err := classify(mk)
			if err != nil {
				var e *Error
				if errors.As(err, &e) {
					e.Source = d
					e.Reason = "marketplace: " + strings.Replace(e.Reason, sourceKinds, "a marketplace is a directory or a git repository", 1)
				}
				return nil, err
			}
			if m.kind != KindDir && m.kind != KindGit {
				return nil, invalid(d, "a marketplace is a directory or a git repository, not %s", noun(m.kind))
			}
			s.market = m
			s.isLocal = m.isLocal
			return s, nil
		}
		if q.Kind == KindMarketplace {
			return nil, invalid(d, "a marketplace source is <plugin>@<marketplace>")
		}
	}
	if q.Format != "" {
		return nil, invalid(d, "a format applies only to marketplace sources")
	}
	switch {
	case strings.Contains(src, "://"):
		if err := s.classifyURL(src, q.Kind); err != nil {
			return nil, err
		}
	case scpLike().MatchString(src) && !strings.HasPrefix(src, "/") && !strings.HasPrefix(src, "."):
		u, err := checkGitURL(src)
		if err != nil {
			return nil, invalid(d, "%v", err)
		}
		s.kind, s.url = KindGit, u
	default:
		if err := s.classifyPath(src, q); err != nil {
			return nil, err
		}
	}
	if q.Kind != "" && q.Kind != s.kind {
		return nil, invalid(d, "the source is %s, not %s", noun(s.kind), noun(q.Kind))
	}
	switch {
	case s.kind == KindArchive && q.SHA256 == "":
		return nil, invalid(d, "an archive needs its sha256 pin (--sha256)")
	case s.kind != KindArchive && q.SHA256 != "":
		return nil, invalid(d, "--sha256 applies only to archives")
	case s.kind != KindGit && q.Ref != "":
		return nil, invalid(d, "--ref applies only to git repositories")
	}
	return s, nil
}

func (s *spec) classifyURL(src string, want Kind) error {
	u, err := url.Parse(src)
	if err != nil {
		return invalid(s.display, "not a valid URL")
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme == "file" {
		p, err := fileURLPath(u)
		if err != nil {
			return invalid(s.display, "%v", err)
		}
		if archiveExt(p) != "" && want != KindGit {
			s.kind, s.path, s.isLocal = KindArchive, p, true
			return nil
		}
		if _, err := checkGitURL(src); err != nil {
			return invalid(s.display, "%v", err)
		}
		s.kind, s.url, s.isLocal = KindGit, src, true
		return nil
	}
	if archiveExt(u.Path) != "" && want != KindGit {
		a, err := checkArchiveURL(src)
		if err != nil {
			return invalid(s.display, "%v", err)
		}
		s.kind, s.url = KindArchive, a
		return nil
	}
	g, err := checkGitURL(src)
	if err != nil {
		return invalid(s.display, "%v", err)
	}
	s.kind, s.url = KindGit, g
	return nil
}

func (s *spec) classifyPath(src string, q Request) error {
	abs, err := filepath.Abs(src)
	if err != nil {
		return invalid(s.display, "%v", err)
	}
	// The path is the user's own choice: links in it are followed, and the
	// resolved path is what is recorded.
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return notThere(s.display, src, abs, q.Kind == "" && !q.marketplaceGit)
		}
		return &Error{Source: s.display, Reason: errText(err), Err: err}
	}
	fi, err := os.Stat(real)
	if err != nil {
		return &Error{Source: s.display, Reason: errText(err), Err: err}
	}
	s.path, s.isLocal = real, true
	switch {
	case fi.Mode().IsRegular() && archiveExt(real) != "":
		s.kind = KindArchive
	case fi.IsDir():
		if q.Ref != "" && q.Kind != KindGit && !q.marketplaceGit && !isBareRepo(real) {
			top, ok := workTreeTop(real)
			switch {
			case !ok:
				return invalid(s.display, "--ref applies only to git sources, and this directory is in no git repository (no .git in it or above it): install it without --ref")
			case top != real:
				// git reads a ref from the repository, not from one of
				// its subdirectories: name both.
				rel, _ := filepath.Rel(top, real)
				return invalid(s.display, "--ref reads the git repository at %s, not a subdirectory of it: name the repository and the subdirectory (bundlectl install %s --path %s --ref %s)", bundle.Quote(top), bundle.ShellArg(top), bundle.ShellArg(filepath.ToSlash(rel)), bundle.ShellArg(q.Ref))
			}
		}
		if q.Kind == KindGit || q.Ref != "" || q.marketplaceGit || isBareRepo(real) {
			s.kind = KindGit
		} else {
			s.kind = KindDir
		}
	case fi.Mode().IsRegular():
		return invalid(s.display, "a file source must be a .tar.gz, .tgz or .zip archive")
	default:
		return &Error{Source: s.display, Reason: "not a directory, git repository or archive", Err: ErrRefused, Fix: "ls -l " + bundle.ShellArg(real)}
	}
	return nil
}

// sourceKinds says what a source may be, for a message about one that is
// none.
const sourceKinds = "a source is a directory, a git repository, an archive, or <plugin>@<marketplace>"

// ownerRepo matches "owner/repo", the GitHub shorthand some agent CLIs
// take, which bundlectl reads as a relative path.
var ownerRepo = lazyRegexp(`^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+$`)

// notThere is the error of a local source that does not exist: where it
// was looked for, what a source may be, and the listing of the nearest
// directory that does exist, where a mistyped name shows.
// typed is false for a source read back from a record (update, sync),
// whose kind is known.
func notThere(display, src, abs string, typed bool) error {
	reason := "no such file or directory (looked for " + bundle.Quote(abs) + ")"
	if typed {
		reason += "; " + sourceKinds
	}
	if typed && ownerRepo().MatchString(src) && !strings.HasPrefix(src, ".") {
		reason += "; a GitHub repository is named by its URL (https://github.com/" + src + ".git)"
	}
	e := &Error{Source: display, Reason: reason, Err: ErrNotFound}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			if !hasControl(dir) {
				e.Fix = "ls -A " + bundle.ShellArg(dir)
			}
			break
		}
		if dir == filepath.Dir(dir) {
			break
		}
	}
	return e
}

// noun names a kind with its article, for messages.
func noun(k Kind) string {
	switch k {
	case KindDir:
		return "a directory"
	case KindGit:
		return "a git repository"
	case KindArchive:
		return "an archive"
	case KindMarketplace:
		return "a marketplace plugin"
	}
	return "a " + string(k)
}

// isBareRepo reports a directory that is itself a git directory: a bare
// repository or a .git directory.
func isBareRepo(dir string) bool {
	for _, n := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Lstat(filepath.Join(dir, n)); err != nil {
			return false
		}
	}
	return true
}

// splitMarketplace splits <plugin>@<marketplace> at the first "@" when the
// whole is not itself a URL (https://user@host/...) or scp-like git
// address (git@host:path), and the plugin part has no separator.
func splitMarketplace(src string) (plugin, market string, ok bool) {
	at := strings.IndexByte(src, '@')
	if at <= 0 || at == len(src)-1 {
		return "", "", false
	}
	if i := strings.Index(src, "://"); i >= 0 && i < at {
		return "", "", false
	}
	if scpLike().MatchString(src) {
		return "", "", false
	}
	plugin, market = src[:at], src[at+1:]
	if strings.ContainsAny(plugin, "/\\:") {
		return "", "", false
	}
	return plugin, market, true
}

// fileURLPath returns the absolute path of a file:// URL.
func fileURLPath(u *url.URL) (string, error) {
	if u.Host != "" && u.Host != "localhost" {
		return "", errors.New("a file:// URL names a path on this machine (no host)")
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", errors.New("a file:// URL has no user, query or fragment")
	}
	if !filepath.IsAbs(u.Path) || filepath.Clean(u.Path) != u.Path {
		return "", errors.New("a file:// URL needs a clean absolute path")
	}
	return u.Path, nil
}

// checkGitURL accepts https://, ssh:// and file:// URLs and scp-like
// addresses, and refuses everything git could be tricked with: other
// transports (ext::, git://, http://), credentials in the URL (bundlectl
// records URLs in state and lockfiles), queries and fragments, options.
func checkGitURL(raw string) (string, error) {
	if strings.HasPrefix(raw, "-") {
		return "", errors.New("a URL must not start with \"-\"")
	}
	if hasControl(raw) || strings.ContainsAny(raw, " \t") {
		return "", errors.New("the URL contains a space or control character")
	}
	if !strings.Contains(raw, "://") {
		if !scpLike().MatchString(raw) {
			return "", errors.New("not a git URL")
		}
		if strings.Contains(raw, "::") {
			return "", errors.New("transport helpers (\"::\") are refused")
		}
		if looksLikeSCPCredentials(raw) {
			return "", errors.New("credentials in a URL are refused (state and lockfiles record source URLs); use a credential-free URL")
		}
		return raw, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", errors.New("not a valid URL")
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		if u.User != nil {
			return "", errors.New("credentials in a URL are refused (state and lockfiles record source URLs); use a credential-free URL")
		}
	case "ssh":
		if _, set := u.User.Password(); set {
			return "", errors.New("credentials in a URL are refused (state and lockfiles record source URLs); use a credential-free URL")
		}
		if strings.HasPrefix(u.User.Username(), "-") {
			return "", errors.New("the URL's user must not start with \"-\"")
		}
	case "file":
		if _, err := fileURLPath(u); err != nil {
			return "", err
		}
		return raw, nil
	case "http":
		return "", errors.New("plain http is refused; use https")
	default:
		return "", errors.New("this transport is refused; use https, ssh or file")
	}
	if u.Host == "" || strings.HasPrefix(u.Host, "-") {
		return "", errors.New("the URL has no valid host")
	}
	if u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", errors.New("a URL with a query or fragment is refused")
	}
	return raw, nil
}

// checkArchiveURL accepts https:// URLs (and file:// for local archives).
func checkArchiveURL(raw string) (string, error) {
	if hasControl(raw) || strings.ContainsAny(raw, " \t") {
		return "", errors.New("the URL contains a space or control character")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", errors.New("not a valid URL")
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		return "", errors.New("plain http is refused; use https")
	default:
		return "", errors.New("an archive URL must be https")
	}
	if u.User != nil {
		return "", errors.New("credentials in a URL are refused (state and lockfiles record source URLs); use a credential-free URL")
	}
	if u.Host == "" {
		return "", errors.New("the URL has no host")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", errors.New("a URL with a query or fragment is refused")
	}
	if archiveExt(u.Path) == "" {
		return "", errors.New("an archive URL must end in .tar.gz, .tgz or .zip")
	}
	return raw, nil
}

// looksLikeSCPCredentials reports whether an scp-like address carries a
// password: "user:TOKEN@host:path" (or "user:TOKEN@host/path") reads as
// host "user" with a path holding "TOKEN@host". Without a user@ of its
// own before the first ":", an "@" in the rest is taken for one.
func looksLikeSCPCredentials(src string) bool {
	if !scpLike().MatchString(src) {
		return false
	}
	host, path, _ := strings.Cut(src, ":")
	return !strings.Contains(host, "@") && strings.Contains(path, "@")
}

// bareSSHUser reports whether userinfo is an ssh:// URL's login name
// alone ("git" in ssh://git@host/…): the account ssh logs in as, not a
// secret. checkGitURL accepts it and state and lockfiles record it, as the
// scp-like git@host:… is, so it is shown and hinted like that one. A
// password (anything after ":") or a user on another scheme (https://TOKEN@…)
// is never repeated.
func bareSSHUser(scheme, userinfo string) bool {
	return strings.EqualFold(scheme, "ssh") && userinfo != "" && !strings.ContainsAny(userinfo, ":%") && !strings.HasPrefix(userinfo, "-")
}

// redact returns src for display with any userinfo of a URL removed, so an
// error about a URL carrying a token never repeats the token.
func redact(src string) string {
	i := strings.Index(src, "://")
	if i < 0 {
		if looksLikeSCPCredentials(src) {
			return "[redacted]@" + src[strings.LastIndexByte(src, '@')+1:]
		}
		return src
	}
	rest := src[i+3:]
	end := strings.IndexAny(rest, "/?#")
	host := rest
	if end >= 0 {
		host = rest[:end]
	}
	out := src
	if at := strings.LastIndexByte(host, '@'); at >= 0 && !bareSSHUser(src[:i], host[:at]) {
		out = src[:i+3] + "[redacted]@" + rest[at+1:]
	}
	// A query or fragment is refused, and often holds a token
	// (?token=…, a signed URL's signature): it is never repeated.
	if q := strings.IndexAny(out[i+3:], "?#"); q >= 0 {
		out = out[:i+3+q+1] + "[redacted]"
	}
	return out
}

func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// workTreeTop returns the directory at or above dir that holds .git: the
// top of the git work tree a ref is read from.
func workTreeTop(dir string) (string, bool) {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
