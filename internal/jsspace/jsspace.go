// Package jsspace is JavaScript's white space: WhiteSpace and
// LineTerminator of ECMA-262, the set String.prototype.trim drops, Number()
// ignores at either end and a regular expression's \s matches. The hosts
// bundlectl models (Claude Code, Codex's and Gemini CLI's JavaScript
// parts) read names, urls, numbers and .env lines with it, so every model
// of theirs uses this one set.
//
// Invariant: U+FEFF is in the set and U+0085 is not, unlike Go's
// unicode.IsSpace; Is, Trim and Class name the same runes.
package jsspace

import "strings"

// Is reports whether r is JavaScript white space or a line terminator.
func Is(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return 0x2000 <= r && r <= 0x200a
}

// Trim is String.prototype.trim.
func Trim(s string) string { return strings.TrimFunc(s, Is) }

// Class is the set as the body of an RE2 character class ("[" + Class +
// "]").
const Class = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`
