package hosts

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// A comment of a JSON file, found as Gemini CLI finds it: its settings
// loader blanks comments with strip-json-comments 3.1.1 and then calls
// JSON.parse. Outside strings, "//" starts a comment that ends before the
// next line feed or the end of the file (a carriage return just before
// either not included), and "/*"
// one that ends after the next "*/", or at the end of the file.
type comment struct {
	start, end int // data[start:end]
	line       bool
}

// jsonComments are the comments of data, in order. data is a whole file,
// or a part of one that starts outside strings and comments.
func jsonComments(data []byte) []comment {
	var out []comment
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			j := i + 2
			for j < len(data) && data[j] != '\n' {
				j++
			}
			end := j
			if data[j-1] == '\r' && j-1 >= i+2 {
				end = j - 1 // white space either way
			}
			out = append(out, comment{start: i, end: end, line: true})
			i = j - 1
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := len(data)
			if k := bytes.Index(data[i+2:], []byte("*/")); k >= 0 {
				end = i + 2 + k + 2
			}
			out = append(out, comment{start: i, end: end})
			i = end - 1
		}
	}
	return out
}

// closed reports whether a /* comment ends with its */.
func closed(block []byte) bool { return len(block) >= 4 && bytes.HasSuffix(block, []byte("*/")) }

// blankComments returns data with every byte of its comments but line
// feeds made a space, so that offsets and lines do not move.
func blankComments(data []byte, cs []comment) []byte {
	out := bytes.Clone(data)
	for _, c := range cs {
		for i := c.start; i < c.end; i++ {
			if out[i] != '\n' {
				out[i] = ' '
			}
		}
	}
	return out
}

// commentSpace finds, in the comments of data, a character JavaScript's
// \s takes for white space and JSON does not (U+00A0, a vertical tab, …):
// strip-json-comments keeps white space as it blanks a comment, and
// JSON.parse then refuses the file, so Gemini CLI reads none of it.
func commentSpace(data []byte, cs []comment) error {
	for _, c := range cs {
		for i := c.start; i < c.end; {
			r, n := utf8.DecodeRune(data[i:c.end])
			if jsOnlySpace(r) {
				return &SyntaxError{Line: 1 + bytes.Count(data[:i], []byte("\n")), Err: fmt.Errorf("a comment holds %U, white space to JavaScript and not to JSON: strip-json-comments keeps it, and JSON.parse then refuses the file", r)}
			}
			i += n
		}
	}
	return nil
}

// jsOnlySpace reports a rune JavaScript's \s matches and JSON's grammar
// does not take as white space (JSON's are space, tab, CR and LF).
func jsOnlySpace(r rune) bool {
	switch r {
	case '\v', '\f', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// endsInLineComment reports whether text, which starts outside strings
// and comments, ends inside a // comment: what follows it must start on
// a new line.
func endsInLineComment(text []byte) bool {
	cs := jsonComments(text)
	if len(cs) == 0 {
		return false
	}
	last := cs[len(cs)-1]
	return last.line && bytes.IndexByte(text[last.end:], '\n') < 0
}

// startsNewLine reports whether text starts with a line break, after
// spaces and tabs.
func startsNewLine(text []byte) bool {
	t := bytes.TrimLeft(text, " \t")
	return len(t) > 0 && (t[0] == '\n' || t[0] == '\r' && len(t) > 1 && t[1] == '\n')
}
