package bundle

import (
	"encoding/hex"
	"strings"

	"github.com/zeebo/blake3"
)

// Identity returns the bundle id "<scope>/<12 hex>/<name>", where the hex
// is the start of BLAKE3-256(scope "\x00" canonical path). The same tree at
// another path, or in another scope, is another bundle and must be trusted
// on its own.
func Identity(scope Scope, canonicalPath, name string) string {
	h := blake3.New()
	h.Write([]byte(scope))
	h.Write([]byte{0})
	h.Write([]byte(canonicalPath))
	sum := h.Sum(nil)
	return string(scope) + "/" + hex.EncodeToString(sum[:6]) + "/" + name
}

// bundleName is the grammar of a name bundlectl can trust: what a shell
// command prints unquoted (docs/design.md).
var bundleName = lazyRegexp(`^[a-z0-9]([a-z0-9.-]{0,62}[a-z0-9])?$`)

// BundleNameRule says in words what ValidBundleName accepts.
const BundleNameRule = `1 to 64 lower-case letters, digits, "." and "-", starting and ending with a letter or digit, without "--" or ".."`

// ValidBundleName reports whether name can be a trusted bundle's name:
// lower-case letters, digits, "." and "-", at most 64 bytes, starting and
// ending with a letter or digit, without "--" or "..".
func ValidBundleName(name string) bool {
	return bundleName().MatchString(name) && !strings.Contains(name, "--") && !strings.Contains(name, "..")
}

// SuggestBundleName returns a valid bundle name close to name ("" when
// none is): lower case, every other character a "-", runs folded.
func SuggestBundleName(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	s := b.String()
	for strings.Contains(s, "--") || strings.Contains(s, "..") {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "--", "-"), "..", ".")
	}
	s = strings.Trim(s, "-.")
	if len(s) > 64 {
		s = strings.Trim(s[:64], "-.")
	}
	if !ValidBundleName(s) {
		return ""
	}
	return s
}
