package claude

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/bundlectl/bundlectl/hosts"

	"github.com/bundlectl/bundlectl/internal/jsspace"
)

// readSettings reads a settings file as Claude Code 2.1.332 reads it
// (found with the real CLI, internal/agenttest
// TestSetupClaudeSettingsSpellings): a leading UTF-8 byte order mark is
// skipped, and the rest must be plain JSON, an object: a file with a
// comment or a trailing comma, or one holding an array, it ignores whole,
// as if it were not there; an empty file, or one of white space only
// (TestClaudeSettingsEmpty), it reads as {}, and so does readSettings.
// A missing file (or JSON null) is (nil, nil).
// A file Claude Code ignores is an error here, a *hosts.SyntaxError
// naming the line when it does not parse: the caller decides whether
// ignoring it is safe. A file Claude Code reads that encoding/json
// cannot (UTF-16, a number beyond float64, nesting deeper than 10000:
// TestExecClaudeSettingsParse) is a *hosts.UnreadableError saying which,
// never a *hosts.SyntaxError: taken for one Claude Code
// ignores, its "disableAllHooks": true would count for nothing while
// Claude Code keeps the guards from running.
func readSettings(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parseSettings(data)
}

// parseSettings is readSettings of the file's content, data.
func parseSettings(data []byte) (map[string]any, error) {
	if why := behindUTF8BOM(data); why != nil {
		return nil, why
	}
	data = bytes.TrimPrefix(data, utf8BOM)
	if jsTrimmed(string(data)) {
		return map[string]any{}, nil
	}
	if why := inUTF32(data); why != nil {
		return nil, why
	}
	if why := inUTF16(data); why != nil {
		return nil, why
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		if why := beyondDecoder(data, err); why != nil {
			return nil, why
		}
		line := 1
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line = lineAt(data, se.Offset)
		}
		return nil, &hosts.SyntaxError{Line: line, Err: errors.New("not JSON as Claude Code reads it (it takes no comments or trailing commas, and ignores the whole file): " + err.Error())}
	}
	switch m := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return m, nil
	}
	return nil, &hosts.SyntaxError{Line: 1, Err: errors.New("not a JSON object (Claude Code ignores the whole file)")}
}

// jsTrimmed reports whether s is empty once JavaScript's String.trim
// takes its white space and line terminators off: Claude Code reads such
// a settings file as {} (it takes a byte order mark for white space too).
func jsTrimmed(s string) bool {
	return jsspace.Trim(s) == ""
}

// utf8BOM is the byte order mark Claude Code skips before a settings file.
var utf8BOM = []byte("\xef\xbb\xbf")

// inUTF16 is the refusal of data, a settings file less its UTF-8 byte
// order mark, when it is UTF-16 as Claude Code decodes it: little-endian
// behind its mark (big-endian, or without the mark, it ignores; UTF-32
// little-endian, whose mark starts as this one does, too: inUTF32);
// else nil.
func inUTF16(data []byte) *hosts.UnreadableError {
	if bytes.HasPrefix(data, utf16LEBOM) && !bytes.HasPrefix(data, utf32LEBOM) {
		return &hosts.UnreadableError{Why: hosts.BeyondUTF16, Title: title, Leftovers: recodeLeftovers(data, 2, binary.LittleEndian)}
	}
	return nil
}

// The byte order marks of UTF-16 and UTF-32, little- and big-endian.
var (
	utf16LEBOM = []byte("\xff\xfe")
	utf16BEBOM = []byte("\xfe\xff")
	utf32LEBOM = []byte("\xff\xfe\x00\x00")
	utf32BEBOM = []byte("\x00\x00\xfe\xff")
)

// inUTF32 is why Claude Code ignores data, a settings file less its UTF-8
// byte order mark, when it is UTF-32 behind its mark, either byte order
// (it decodes little-endian as UTF-16 and big-endian as UTF-8, and finds
// no JSON: internal/agenttest TestExecClaudeSettingsParse): a
// *hosts.SyntaxError whose hint rewrites it as UTF-8; else nil. It was
// once taken for UTF-16, which Claude Code reads, and refused with a
// hint that rewrote it from UTF-16, into nothing Claude Code reads.
//
// A UTF-16 little-endian file whose first character is U+0000 starts
// with the same four bytes: Claude Code ignores it too (internal/agenttest
// TestExecClaudeSettingsParse), but it is named as what it is, with a
// hint that drops the NULs (utf16WithLeadingNUL).
func inUTF32(data []byte) *hosts.SyntaxError {
	if !bytes.HasPrefix(data, utf32LEBOM) && !bytes.HasPrefix(data, utf32BEBOM) {
		return nil
	}
	return &hosts.SyntaxError{Line: 1, Err: markedEncoding(data)}
}

// behindUTF8BOM is why Claude Code ignores data, a settings file, when a
// UTF-8 byte order mark stands before UTF-16's or UTF-32's: it skips the
// UTF-8 mark, decodes the rest as UTF-8 and finds no JSON
// (internal/agenttest TestExecClaudeSettingsParse); a *hosts.SyntaxError
// whose hint cuts that mark off and rewrites the rest as UTF-8; else
// nil. Such a UTF-16 file was once refused as one Claude Code reads, and
// both got an iconv hint that fails on the UTF-8 mark.
func behindUTF8BOM(data []byte) *hosts.SyntaxError {
	rest, ok := bytes.CutPrefix(data, utf8BOM)
	if !ok || !bytes.HasPrefix(rest, utf16LEBOM) && !bytes.HasPrefix(rest, utf16BEBOM) && !bytes.HasPrefix(rest, utf32BEBOM) {
		return nil
	}
	e := markedEncoding(rest)
	e.BehindUTF8BOM = true
	return &hosts.SyntaxError{Line: 1, Err: e}
}

// markedEncoding is what data, starting with the byte order mark of
// UTF-16 or UTF-32 (either byte order), is written in, as an
// *hosts.EncodingError: UTF-16 little-endian behind NULs
// (utf16WithLeadingNUL), UTF-32 or UTF-16, each with what a recode hint
// must leave out for iconv to take the rest (recodeLeftovers).
func markedEncoding(data []byte) *hosts.EncodingError {
	switch {
	case utf16WithLeadingNUL(data):
		nuls := leadingNULs(data)
		return &hosts.EncodingError{Name: "UTF-16", Title: title, LeadingNULs: nuls, Leftovers: recodeLeftovers(data[2+2*nuls:], 2, binary.LittleEndian)}
	case bytes.HasPrefix(data, utf32LEBOM):
		return &hosts.EncodingError{Name: "UTF-32", Title: title, Leftovers: recodeLeftovers(data, 4, binary.LittleEndian)}
	case bytes.HasPrefix(data, utf32BEBOM):
		return &hosts.EncodingError{Name: "UTF-32", Title: title, Leftovers: recodeLeftovers(data, 4, binary.BigEndian)}
	case bytes.HasPrefix(data, utf16BEBOM):
		return &hosts.EncodingError{Name: "UTF-16", Title: title, Leftovers: recodeLeftovers(data, 2, binary.BigEndian)}
	}
	return &hosts.EncodingError{Name: "UTF-16", Title: title, Leftovers: recodeLeftovers(data, 2, binary.LittleEndian)}
}

// utf16WithLeadingNUL reports whether data starts as UTF-32 little-endian
// does (FF FE 00 00) and is no UTF-32: what follows the mark is not a
// whole number of code units, each a Unicode scalar value. It is then
// UTF-16 little-endian behind its mark whose first character is U+0000
// (an editor keeping a NUL it was handed), and iconv -f UTF-32 fails on
// it. A file both could be (every other UTF-16 character a NUL) is taken
// for UTF-32.
func utf16WithLeadingNUL(data []byte) bool {
	rest, ok := bytes.CutPrefix(data, utf32LEBOM)
	if !ok {
		return false
	}
	if len(rest)%4 != 0 {
		return true
	}
	for i := 0; i < len(rest); i += 4 {
		if !utf8.ValidRune(rune(binary.LittleEndian.Uint32(rest[i:]))) {
			return true
		}
	}
	return false
}

// leadingNULs is how many U+0000 characters data, UTF-16 little-endian
// behind its byte order mark, starts with. A hint that skipped the first
// one only left the others in the file, which Claude Code then ignored
// still.
func leadingNULs(data []byte) int {
	n := 0
	for rest := data[len(utf16LEBOM):]; len(rest) >= 2 && rest[0] == 0 && rest[1] == 0; rest = rest[2:] {
		n++
	}
	return n
}

// recodeLeftovers is what of data, what a recode hint gives iconv, in
// code units of unit bytes (2 or 4) in order, iconv fails on: a last
// part of a code unit, and code units that make no character (half a
// surrogate pair; in UTF-32, a surrogate or one past U+10FFFF). A hint
// that handed them to iconv failed as printed (a five-byte FF FE 00 00
// 7B: "incomplete character").
//
// A UTF-16 file whose last whole code unit is the first half of a
// surrogate pair ends in part of a character too: iconv -c drops such a
// unit anywhere else, but at the end it fails ("incomplete character or
// shift sequence at end of buffer"), and the hint left the file as it
// was and its temporary file beside it; that unit is cut with the rest.
func recodeLeftovers(data []byte, unit int, order binary.ByteOrder) hosts.Leftovers {
	l := hosts.Leftovers{PartialUnit: len(data)%unit != 0}
	data = data[:len(data)/unit*unit]
	if n := len(data); unit == 2 && n >= 2 && isHighSurrogate(order.Uint16(data[n-2:])) {
		l.PartialUnit, l.HalfAtEnd, data = true, true, data[:n-2]
	}
	if unit == 4 {
		for i := 0; i < len(data); i += 4 {
			l.Invalid = l.Invalid || !utf8.ValidRune(rune(order.Uint32(data[i:])))
		}
		return l
	}
	for i := 0; i < len(data); i += 2 {
		switch u := order.Uint16(data[i:]); {
		case u >= 0xd800 && u < 0xdc00 && i+4 <= len(data) && isLowSurrogate(order.Uint16(data[i+2:])):
			i += 2
		case u >= 0xd800 && u < 0xe000:
			l.Invalid = true
		}
	}
	return l
}

// isHighSurrogate reports whether u is the first half of a UTF-16
// surrogate pair.
func isHighSurrogate(u uint16) bool { return u >= 0xd800 && u < 0xdc00 }

// isLowSurrogate reports whether u is the second half of a UTF-16
// surrogate pair.
func isLowSurrogate(u uint16) bool { return u >= 0xdc00 && u < 0xe000 }

// title is Claude Code as bundlectl's messages name it.
const title = "Claude Code"

// beyondDecoder is the refusal of data when err, encoding/json's, refuses
// JSON that JavaScript's JSON.parse takes: a number beyond float64
// (JSON.parse makes it Infinity) or nesting deeper than its fixed 10000
// (Claude Code reads the file, cutting the values deeper than 64); else
// nil.
func beyondDecoder(data []byte, err error) *hosts.UnreadableError {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		return &hosts.UnreadableError{Why: hosts.BeyondNumber, Title: title, Line: lineAt(data, te.Offset)}
	case errors.As(err, &se) && strings.Contains(se.Error(), "exceeded max depth"):
		return &hosts.UnreadableError{Why: hosts.BeyondDepth, Title: title, Line: lineAt(data, se.Offset)}
	}
	return nil
}

// lineAt is the line of data that encoding/json's offset falls on (the
// offset is past the byte it stopped at).
func lineAt(data []byte, offset int64) int {
	return 1 + bytes.Count(data[:min(max(offset-1, 0), int64(len(data)))], []byte("\n"))
}
