package bundle

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Quote returns s as a double-quoted Go string literal in which every
// control, bidirectional and non-printing character is escaped, so that
// text from a bundle printed on a terminal cannot move the cursor, change
// colours, clear the screen or fake a line. It is the only way bundle text
// should reach a terminal.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	b.WriteString(escapeInner(s, true))
	b.WriteByte('"')
	return b.String()
}

// Sanitize returns s with the same escaping as Quote but without the
// surrounding quotes, for running text such as a description.
func Sanitize(s string) string { return escapeInner(s, false) }

// EscapePath escapes a path for display in findings; ordinary paths are
// returned unchanged.
func EscapePath(p string) string {
	if safeText(p) {
		return p
	}
	return Quote(p)
}

func safeText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unsafeRune(r) {
			return false
		}
	}
	return true
}

func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || IsBidi(r) || !unicode.IsPrint(r) && r != ' ' ||
		r == 0x2028 || r == 0x2029 || r == utf8.RuneError
}

func escapeInner(s string, quoted bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i]), 16))
		case quoted && (r == '"' || r == '\\'):
			b.WriteByte('\\')
			b.WriteRune(r)
		case unsafeRune(r):
			q := strconv.QuoteRuneToASCII(r) // e.g. '\x1b' or '\u202e'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// ShellArg returns s as one word a POSIX shell reads back as s: as is when
// it holds only characters no shell treats specially, else single-quoted,
// each quote and backslash in it written outside the quotes, after a
// backslash, so that fish, which reads a backslash before a quote or
// another backslash inside single quotes as an escape, reads back s too.
// A word starting with '=' or '%' is quoted too: zsh reads a bare "=ls"
// as the path of the command ls (and fails on "=x" when there is no such
// command), fish a bare "%self" as its own process id.
// A hint that prints a command uses it for every value from outside.
func ShellArg(s string) string {
	if s == "" {
		return "''"
	}
	plain := s[0] != '=' && s[0] != '%'
	for _, r := range s {
		if !plain {
			break
		}
		plain = r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r)
	}
	if plain {
		return s
	}
	return "'" + strings.NewReplacer("'", `'\''`, `\`, `'\\'`).Replace(s) + "'"
}

// Operands returns the operands of a printed command, each a ShellArg,
// joined by spaces, after "--" when one begins with "-": a name such as
// "-x" (a directory's, an MCP server's, an option's key) is then read as
// an operand, not taken for an option. The command's options go before
// them.
func Operands(operands ...string) string {
	q := make([]string, 0, len(operands)+1)
	for _, o := range operands {
		if strings.HasPrefix(o, "-") {
			q = append(q, "--")
			break
		}
	}
	for _, o := range operands {
		q = append(q, ShellArg(o))
	}
	return strings.Join(q, " ")
}

// CommandsIn rewrites each command text names with cmd (a caller's hint,
// adding the --home and --workspace it ran with). A command in a note, a
// notice or a problem is written "(bundlectl …)", "(run bundlectl …)" or
// "(…: bundlectl …)": from "bundlectl " to the closing parenthesis outside
// single quotes (ShellArg quotes a name holding one). After ": " the
// parenthesis must be open, so that prose such as "remote (URL): bundlectl
// runs only stdio servers (…)" is not taken for a command.
func CommandsIn(text string, cmd func(string) string) string {
	if cmd == nil {
		return text
	}
	var b strings.Builder
	for {
		i := strings.Index(text, "bundlectl ")
		if i < 0 {
			break
		}
		j := closingParen(text[i:])
		before := text[:i]
		if j < 0 || !(strings.HasSuffix(before, "(") || strings.HasSuffix(before, "(run ") || strings.HasSuffix(before, ": ") && inParens(before)) {
			b.WriteString(text[:i+len("bundlectl ")])
			text = text[i+len("bundlectl "):]
			continue
		}
		b.WriteString(before)
		b.WriteString(cmd(text[i : i+j]))
		text = text[i+j:]
	}
	b.WriteString(text)
	return b.String()
}

// inParens reports whether s ends inside a parenthesis: its last "(" comes
// after its last ")".
func inParens(s string) bool {
	return strings.LastIndexByte(s, '(') > strings.LastIndexByte(s, ')')
}

// closingParen is the index of the first ")" of s outside single quotes,
// or -1. Outside quotes a backslash escapes the next byte: for a quote in
// a name, ShellArg closes the quoting, writes \' and opens it again.
func closingParen(s string) int {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if !quoted {
				i++
			}
		case '\'':
			quoted = !quoted
		case ')':
			if !quoted {
				return i
			}
		}
	}
	return -1
}
