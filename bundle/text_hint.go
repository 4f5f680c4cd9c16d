package bundle

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// charHint is the hint of a text.control or text.bidi refusal: retype
// the text, and a command that prints, made visible by cat -v, the lines
// of the file that hold r, as the character itself or as any escape JSON,
// TOML or YAML spells it with. The refusal never echoes the text, so the
// reader needs the command to find it. The file is the one the finding's
// path names ("hooks/hooks.json: hooks.Stop…"), else the bundle's
// directory, searched whole. It is a fixed-string grep (-F), with the
// character itself given by printf's octal escapes, so that the command
// works as printed in any POSIX shell and with BSD grep, which has no -P.
func charHint(b *Bundle, path string, r rune) string {
	target, recurse := b.Dir, "-r "
	if f, _, ok := strings.Cut(path, ": "); ok && filepath.IsLocal(f) && b.Dir != "" {
		if fi, err := os.Lstat(filepath.Join(b.Dir, f)); err == nil && fi.Mode().IsRegular() {
			target, recurse = filepath.Join(b.Dir, f), ""
		}
	}
	if target == "" {
		target, recurse = ".", "-r "
	}
	var pats []string
	for _, p := range charSpellings(r) {
		pats = append(pats, "-e "+p)
	}
	return fmt.Sprintf("retype the text without it; to see where it is: LC_ALL=C grep %s-n -a -i -F %s %s | cat -v", recurse, strings.Join(pats, " "), Operands(target))
}

// charSpellings are r's spellings as grep operands: its UTF-8 bytes
// (printf's octal escapes in a command substitution: none for NUL, which
// no argument holds, or a newline, which the substitution drops), and
// its escapes in JSON (\u001b, \n), TOML (\U0000001b, \e) and YAML
// (\x1b, \a, \N, \L). -i also takes \u001B and \U0000001B.
func charSpellings(r rune) []string {
	var out []string
	if r != 0 && r != '\n' {
		var oct strings.Builder
		for _, c := range []byte(string(r)) {
			fmt.Fprintf(&oct, `\%03o`, c)
		}
		out = append(out, `"$(printf '`+oct.String()+`')"`)
	}
	out = append(out, fmt.Sprintf(`'\u%04x'`, r), fmt.Sprintf(`'\U%08x'`, r))
	if r <= 0xff {
		out = append(out, fmt.Sprintf(`'\x%02x'`, r))
	}
	if c := shortEscape(r); c != 0 {
		out = append(out, `'\`+string(c)+`'`)
	}
	return out
}

// shortEscape is the one-letter escape JSON, TOML or YAML spells the
// control or line separator r with, 0 when none does. A switch, not a
// map: nothing is built at package initialisation (DEVELOPERS.md).
func shortEscape(r rune) byte {
	const from, to = "\x00\x07\x08\x09\x0a\x0b\x0c\x0d\x1b", "0abtnvfre"
	if i := strings.IndexRune(from, r); i >= 0 {
		return to[i]
	}
	switch r {
	case 0x85:
		return 'N'
	case 0x2028:
		return 'L'
	case 0x2029:
		return 'P'
	}
	return 0
}
