package sources

import (
	"errors"
	"path"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// MaxNameBytes bounds a bundle or plugin name.
const MaxNameBytes = 128

// CheckName reports whether name may name a bundle, a marketplace plugin
// or a marketplace: the tree name rules (bundle.CheckName: no controls,
// bidi, separators, "." or "..", Windows-reserved names), no leading dot
// (the caller's temporary directories start with one), no "@" (it
// separates <plugin>@<marketplace>), at most MaxNameBytes bytes. The error
// never repeats the name.
func CheckName(name string) error {
	if msg, _ := bundle.CheckName(name); msg != "" {
		return errors.New(msg)
	}
	switch {
	case strings.HasPrefix(name, "."):
		return errors.New("name starts with a dot")
	case strings.ContainsRune(name, '@'):
		return errors.New("name contains \"@\"")
	case len(name) > MaxNameBytes:
		return errors.New("name is longer than 128 bytes")
	case strings.TrimSpace(name) != name:
		return errors.New("name starts or ends with a space")
	}
	return nil
}

// IsGitDirName reports a name git takes for its repository directory,
// as git's own check of every tree it receives does (fsck's hasDotgit:
// ".git" in any letter case, with the characters HFS+ ignores inside it,
// or as NTFS's short name "git~1"). A fetched tree never holds one: a
// repository there would run its configuration (core.fsmonitor, an
// alias, a hook) for any git command started in that directory — a
// shell prompt's, once someone looks at the fetched tree — before it is
// reviewed.
func IsGitDirName(name string) bool {
	var b strings.Builder
	for _, r := range name {
		if !hfsIgnored(r) {
			b.WriteRune(r)
		}
	}
	n := strings.ToLower(b.String())
	return n == ".git" || n == "git~1"
}

// hfsIgnored reports the code points HFS+ leaves out of a name when it
// compares names (git's is_hfs_dotgit list).
func hfsIgnored(r rune) bool {
	switch {
	case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
		return true
	}
	return false
}

var folder = cases.Fold()

// CollisionKey is name under Unicode NFC and full case folding: two names
// with the same key cannot live side by side in one root on every file
// system, so they collide.
func CollisionKey(name string) string { return folder.String(norm.NFC.String(name)) }

// archiveExts are the archive suffixes, longest first.
var archiveExts = []string{".tar.gz", ".tgz", ".zip"}

// archiveExt returns the archive suffix of name ("" for none), compared
// without regard to case.
func archiveExt(name string) string {
	l := strings.ToLower(name)
	for _, e := range archiveExts {
		if strings.HasSuffix(l, e) {
			return e
		}
	}
	return ""
}

// baseName derives a bundle name from the last element of a path or URL
// path: without a trailing ".git" or archive suffix.
func baseName(p string) string {
	p = strings.TrimRight(p, "/")
	b := path.Base(p)
	if i := strings.LastIndexAny(b, ":"); i >= 0 && !strings.Contains(p, "/") {
		b = b[i+1:] // scp-like host:repo
	}
	if e := archiveExt(b); e != "" {
		b = b[:len(b)-len(e)]
	}
	b = strings.TrimSuffix(b, ".git")
	return b
}
