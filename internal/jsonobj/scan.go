package jsonobj

import (
	"bytes"
	"encoding/json"
	"unicode"
	"unicode/utf8"
)

// KeyRule says which object member names Scan refuses.
type KeyRule int

const (
	// AnyKeys accepts a name given twice, as encoding/json does.
	AnyKeys KeyRule = iota
	// UniqueKeys refuses an object with the same name twice (as
	// encoding/json decodes names: "a" and "\u0061" are the same).
	UniqueKeys
	// UniqueFoldedInside is UniqueKeys that also refuses, in an object
	// below the top level, two names equal under Unicode simple case
	// folding (strings.EqualFold: "K" and the Kelvin sign, "s" and "ſ"),
	// which encoding/json matches to the same struct field.
	UniqueFoldedInside
)

// MaxDepth is encoding/json's nesting limit, which Scan keeps.
const MaxDepth = 10000

// Scan reports whether data is exactly one JSON value, with nothing but
// whitespace around it, that json.Valid accepts, nested at most MaxDepth
// deep, whose objects hold no names rule refuses. When that value is an
// object, members are its members in the order written (names decoded as
// encoding/json decodes them, values as written, sharing data's bytes).
// It reads data once, in one pass, where encoding/json's Decoder.Token
// walk took 70–130 ms for a 1 MB hook event. It says only whether:
// callers that must say why ask encoding/json again on the rare refusal.
func Scan(data []byte, rule KeyRule) (members []Member, isObject, ok bool) {
	s := scanner{b: data, rule: rule}
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '{' {
		isObject = true
		s.top = &members
	}
	if !s.whole() {
		return nil, false, false
	}
	return members, isObject, true
}

// valid is Scan without the members: it decodes no name rule does not
// need, where decoding each of a million escaped names of a value
// AppendCompact only copies took seconds.
func valid(data []byte, rule KeyRule) bool {
	s := scanner{b: data, rule: rule}
	s.space()
	return s.whole()
}

// whole reads one value and nothing but whitespace after it.
func (s *scanner) whole() bool {
	if !s.value(0) {
		return false
	}
	s.space()
	return s.i == len(s.b)
}

// scanner walks data by recursive descent. keys holds the decoded names
// of every object being walked, innermost last, for the duplicate check.
type scanner struct {
	b    []byte
	i    int
	rule KeyRule
	top  *[]Member // where the top-level object's members go, if wanted
	keys [][]byte
}

// smallObject is how many names an object's duplicate check compares one
// by one; past it the check uses a set, so a hostile object of a million
// names costs a million lookups, not a trillion comparisons.
const smallObject = 16

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) value(depth int) bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return depth < MaxDepth && s.object(depth+1)
	case c == '[':
		return depth < MaxDepth && s.array(depth+1)
	case c == '"':
		_, ok := s.str()
		return ok
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		return s.number()
	}
	return false
}

func (s *scanner) literal(lit string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		return false
	}
	s.i += len(lit)
	return true
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *scanner) number() bool {
	if s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.digits() == 0:
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *scanner) digits() int {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

// stringStop marks the bytes a string's fast loop stops at: its end, an
// escape, and the control characters JSON refuses in a string.
var stringStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// str reads the string at s.i and returns its bytes between the quotes
// as written, or, when it holds an escape, with its quotes, for
// decodeName to decode.
func (s *scanner) str() (raw []byte, ok bool) {
	start := s.i + 1
	escaped := false
	for i := start; i < len(s.b); i++ {
		c := s.b[i]
		if !stringStop[c] {
			continue
		}
		switch {
		case c == '"':
			s.i = i + 1
			if escaped {
				return s.b[start-1 : i+1], true // with its quotes, for decoding
			}
			return s.b[start:i], true
		case c < 0x20:
			return nil, false
		}
		// A backslash.
		escaped = true
		if i++; i >= len(s.b) {
			return nil, false
		}
		switch s.b[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			if i+4 >= len(s.b) || !isHex(s.b[i+1]) || !isHex(s.b[i+2]) || !isHex(s.b[i+3]) || !isHex(s.b[i+4]) {
				return nil, false
			}
			i += 4
		default:
			return nil, false
		}
	}
	return nil, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func (s *scanner) array(depth int) bool {
	s.i++ // '['
	s.space()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true
	}
	for {
		if !s.value(depth) {
			return false
		}
		s.space()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ']':
			s.i++
			return true
		case ',':
			s.i++
			s.space()
		default:
			return false
		}
	}
}

func (s *scanner) object(depth int) bool {
	s.i++ // '{'
	first := len(s.keys)
	defer func() { s.keys = s.keys[:first] }()
	fold := s.rule == UniqueFoldedInside && depth > 1
	var set map[string]struct{} // past smallObject names
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return false
		}
		raw, ok := s.str()
		if !ok {
			return false
		}
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.space()
		if s.rule != AnyKeys || depth == 1 && s.top != nil {
			key := decodeName(raw)
			if s.rule != AnyKeys {
				if set, ok = s.addName(key, first, fold, set); !ok {
					return false
				}
			}
			if depth == 1 && s.top != nil {
				start := s.i
				if !s.value(depth) {
					return false
				}
				*s.top = append(*s.top, Member{Key: string(key), Val: s.b[start:s.i]})
			} else if !s.value(depth) {
				return false
			}
		} else if !s.value(depth) {
			return false
		}
		s.space()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case '}':
			s.i++
			return true
		case ',':
			s.i++
			s.space()
		default:
			return false
		}
	}
}

// addName checks key against the names before it in its object (s.keys
// from first, or set once there are more than smallObject) and adds it.
func (s *scanner) addName(key []byte, first int, fold bool, set map[string]struct{}) (map[string]struct{}, bool) {
	if set == nil {
		for _, k := range s.keys[first:] {
			if bytes.Equal(k, key) || fold && bytes.EqualFold(k, key) {
				return nil, false
			}
		}
		s.keys = append(s.keys, key)
		if len(s.keys)-first <= smallObject {
			return nil, true
		}
		set = make(map[string]struct{}, 2*smallObject)
		for _, k := range s.keys[first:] {
			set[setKey(k, fold)] = struct{}{}
		}
		return set, true
	}
	k := setKey(key, fold)
	if _, dup := set[k]; dup {
		return set, false
	}
	set[k] = struct{}{}
	return set, true
}

// setKey is the set entry of a name: itself, or folded, the smallest rune
// of each rune's case-folding orbit, so that names strings.EqualFold calls
// equal have the same entry (an ASCII letter's is its upper case).
func setKey(key []byte, fold bool) string {
	if !fold {
		return string(key)
	}
	if ascii := asciiUpper(key); ascii != nil {
		return string(ascii)
	}
	out := make([]rune, 0, len(key))
	for _, r := range string(key) {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		out = append(out, least)
	}
	return string(out)
}

// asciiUpper is the ASCII key in upper case, each letter's smallest
// fold (the Kelvin sign and "ſ" fold onto "K" and "S", never below
// them), or nil when key is not ASCII.
func asciiUpper(key []byte) []byte {
	up := make([]byte, len(key))
	for i, c := range key {
		switch {
		case c >= 0x80:
			return nil
		case 'a' <= c && c <= 'z':
			c -= 'a' - 'A'
		}
		up[i] = c
	}
	return up
}

// decodeName is a name as encoding/json decodes it: raw is the name's
// bytes between its quotes when it has no escape (kept when valid UTF-8),
// else the whole quoted name.
func decodeName(raw []byte) []byte {
	if len(raw) > 0 && raw[0] == '"' || !utf8.Valid(raw) {
		if raw[0] != '"' {
			raw = append(append([]byte{'"'}, raw...), '"')
		}
		var k string
		if json.Unmarshal(raw, &k) != nil {
			return raw // not reached: Scan read it as a string
		}
		return []byte(k)
	}
	return raw
}
