package jsjson

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/bundlectl/bundlectl/internal/jsnum"
)

// MaxDepth bounds how deep Parse nests (encoding/json's own limit); a
// JSON.parse would run out of stack somewhat earlier.
const MaxDepth = 10000

// Kind is the JavaScript type of a parsed JSON value.
type Kind uint8

const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// Value is a JSON value as JSON.parse makes it.
type Value struct {
	kind  Kind
	b     bool
	num   float64
	units []uint16 // a string's UTF-16 code units
	elems []*Value
	obj   *object
}

// object is a JavaScript object's own properties: each key (its UTF-16
// code units, packed two bytes each into a Go string so it can index a
// map) with its value, keys in the order first set.
type object struct {
	keys []string
	vals map[string]*Value
}

// Kind is v's type.
func (v *Value) Kind() Kind { return v.kind }

// SyntaxError is a text Parse refuses, with the byte offset where.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("not JSON at byte %d: %s", e.Offset, e.Msg)
}

// Parse reads data as JSON.parse reads the text Node.js decodes from it.
func Parse(data []byte) (*Value, error) {
	p := &parser{data: data}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.data) {
		return nil, p.fail("more after the value")
	}
	return v, nil
}

type parser struct {
	data []byte
	i    int
}

func (p *parser) fail(msg string) error { return &SyntaxError{Offset: p.i, Msg: msg} }

// space skips JSON's white space, which is all JSON.parse skips.
func (p *parser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (*Value, error) {
	if p.i >= len(p.data) {
		return nil, p.fail("unexpected end")
	}
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		u, err := p.str()
		if err != nil {
			return nil, err
		}
		return &Value{kind: String, units: u}, nil
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	}
	for _, lit := range []struct {
		text string
		v    Value
	}{{"true", Value{kind: Bool, b: true}}, {"false", Value{kind: Bool}}, {"null", Value{kind: Null}}} {
		if len(p.data)-p.i >= len(lit.text) && string(p.data[p.i:p.i+len(lit.text)]) == lit.text {
			p.i += len(lit.text)
			v := lit.v
			return &v, nil
		}
	}
	return nil, p.fail("unexpected character")
}

func (p *parser) object(depth int) (*Value, error) {
	if depth > MaxDepth {
		return nil, p.fail("nested too deep")
	}
	p.i++ // {
	o := &object{vals: map[string]*Value{}}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return &Value{kind: Object, obj: o}, nil
	}
	for {
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return nil, p.fail("want a member name")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return nil, p.fail("want ':'")
		}
		p.i++
		p.space()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		o.set(packKey(k), v)
		p.space()
		if p.i >= len(p.data) {
			return nil, p.fail("unexpected end")
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return &Value{kind: Object, obj: o}, nil
		default:
			return nil, p.fail("want ',' or '}'")
		}
	}
}

func (p *parser) array(depth int) (*Value, error) {
	if depth > MaxDepth {
		return nil, p.fail("nested too deep")
	}
	p.i++ // [
	a := &Value{kind: Array, elems: []*Value{}}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		return a, nil
	}
	for {
		p.space()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		a.elems = append(a.elems, v)
		p.space()
		if p.i >= len(p.data) {
			return nil, p.fail("unexpected end")
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return a, nil
		default:
			return nil, p.fail("want ',' or ']'")
		}
	}
}

// number reads JSON's number grammar; its value is the nearest double,
// as JavaScript's (±Infinity past the range, ±0 below it).
func (p *parser) number() (*Value, error) {
	start := p.i
	if p.data[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.data) && '0' <= p.data[p.i] && p.data[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	switch {
	case p.i < len(p.data) && p.data[p.i] == '0':
		p.i++
	case digits() == 0:
		return nil, p.fail("want a digit")
	}
	if p.i < len(p.data) && p.data[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.fail("want a digit after '.'")
		}
	}
	if p.i < len(p.data) && (p.data[p.i] == 'e' || p.data[p.i] == 'E') {
		p.i++
		if p.i < len(p.data) && (p.data[p.i] == '+' || p.data[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.fail("want a digit in the exponent")
		}
	}
	f, err := strconv.ParseFloat(string(p.data[start:p.i]), 64)
	var ne *strconv.NumError
	if err != nil && !(errors.As(err, &ne) && ne.Err == strconv.ErrRange) {
		return nil, &SyntaxError{Offset: start, Msg: "not a number"}
	}
	return &Value{kind: Number, num: f}, nil
}

// str reads a JSON string into UTF-16 code units, keeping a lone
// surrogate escape as JavaScript does.
func (p *parser) str() ([]uint16, error) {
	p.i++ // "
	units := []uint16{}
	for {
		if p.i >= len(p.data) {
			return nil, p.fail("unterminated string")
		}
		c := p.data[p.i]
		switch {
		case c == '"':
			p.i++
			return units, nil
		case c < 0x20:
			return nil, p.fail("control character in a string")
		case c == '\\':
			u, err := p.escape()
			if err != nil {
				return nil, err
			}
			units = append(units, u)
		case c < utf8.RuneSelf:
			units = append(units, uint16(c))
			p.i++
		default:
			r, n := decodeRune(p.data[p.i:])
			units = utf16.AppendRune(units, r)
			p.i += n
		}
	}
}

func (p *parser) escape() (uint16, error) {
	if p.i+1 >= len(p.data) {
		return 0, p.fail("unterminated escape")
	}
	c := p.data[p.i+1]
	p.i += 2
	switch c {
	case '"', '\\', '/':
		return uint16(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		if p.i+4 > len(p.data) {
			return 0, p.fail("short \\u escape")
		}
		n, err := strconv.ParseUint(string(p.data[p.i:p.i+4]), 16, 16)
		if err != nil || !isHex4(p.data[p.i:p.i+4]) {
			return 0, p.fail("bad \\u escape")
		}
		p.i += 4
		return uint16(n), nil
	}
	p.i -= 2
	return 0, p.fail("unknown escape")
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// DecodeUTF8 is the text Node.js decodes from b (Buffer's
// toString("utf8"), fs.readFileSync(path, "utf8"), a directory entry's
// name), as UTF-8: each maximal invalid subpart of b is one U+FFFD,
// where Go (encoding/json, a range over a string) gives one for each
// byte, so "sk\xf0\x9f\x98p" is "sk\ufffdp" to Node.js and
// "sk\ufffd\ufffd\ufffdp" to Go. Valid UTF-8 is returned as it is.
func DecodeUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		r, n := decodeRune(b[i:])
		out = utf8.AppendRune(out, r)
		i += n
	}
	return out
}

// decodeRune decodes the UTF-8 at the start of b as Node.js's decoder
// (WHATWG) does: an invalid sequence is one U+FFFD for its maximal
// subpart — the bytes that begin a valid sequence before the one that
// breaks it, at least one — where utf8.DecodeRune takes one byte at a
// time.
func decodeRune(b []byte) (rune, int) {
	r, n := utf8.DecodeRune(b)
	if r != utf8.RuneError || n != 1 {
		return r, n
	}
	lo, hi, need := byte(0x80), byte(0xBF), 0
	switch c := b[0]; {
	case 0xC2 <= c && c <= 0xDF:
		need = 1
	case c == 0xE0:
		lo, need = 0xA0, 2
	case 0xE1 <= c && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		hi, need = 0x9F, 2
	case c == 0xF0:
		lo, need = 0x90, 3
	case 0xF1 <= c && c <= 0xF3:
		need = 3
	case c == 0xF4:
		hi, need = 0x8F, 3
	}
	n = 1
	for ; n <= need && n < len(b); n++ {
		if b[n] < lo || b[n] > hi {
			break
		}
		lo, hi = 0x80, 0xBF
	}
	return utf8.RuneError, n
}

// packKey makes a map key of UTF-16 code units.
func packKey(units []uint16) string {
	b := make([]byte, 2*len(units))
	for i, u := range units {
		b[2*i], b[2*i+1] = byte(u>>8), byte(u)
	}
	return string(b)
}

func unpackKey(k string) []uint16 {
	units := make([]uint16, len(k)/2)
	for i := range units {
		units[i] = uint16(k[2*i])<<8 | uint16(k[2*i+1])
	}
	return units
}

// set is CreateDataProperty: a key already there keeps its place.
func (o *object) set(key string, v *Value) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// ownKeys is [[OwnPropertyKeys]] of an ordinary object: array indexes
// ascending, then the other keys in the order first set.
func (o *object) ownKeys() []string {
	keys := slices.Clone(o.keys)
	slices.SortStableFunc(keys, func(a, b string) int {
		ia, aIndex := arrayIndex(a)
		ib, bIndex := arrayIndex(b)
		switch {
		case aIndex && bIndex:
			return cmp.Compare(ia, ib)
		case aIndex:
			return -1
		case bIndex:
			return 1
		}
		return 0
	})
	return keys
}

// arrayIndex reports whether the packed key is an array index to
// JavaScript (the canonical decimal form of an integer below 2^32-1),
// and its value.
func arrayIndex(k string) (uint64, bool) {
	units := unpackKey(k)
	if len(units) == 0 || len(units) > 10 || len(units) > 1 && units[0] == '0' {
		return 0, false
	}
	var n uint64
	for _, u := range units {
		if u < '0' || u > '9' {
			return 0, false
		}
		n = n*10 + uint64(u-'0')
	}
	return n, n < 1<<32-1
}

// Spread is {...vs[0], ...vs[1], …}: an object spreads its own keys, an
// array its indexes, a string its UTF-16 code units by index; null,
// booleans and numbers spread nothing.
func Spread(vs ...*Value) *Value {
	o := &object{vals: map[string]*Value{}}
	for _, v := range vs {
		if v == nil {
			continue
		}
		switch v.kind {
		case Object:
			for _, k := range v.obj.ownKeys() {
				o.set(k, v.obj.vals[k])
			}
		case Array:
			for i, e := range v.elems {
				o.set(indexKey(i), e)
			}
		case String:
			for i, u := range v.units {
				o.set(indexKey(i), &Value{kind: String, units: []uint16{u}})
			}
		}
	}
	return &Value{kind: Object, obj: o}
}

func indexKey(i int) string {
	units := []uint16{}
	for _, c := range strconv.Itoa(i) {
		units = append(units, uint16(c))
	}
	return packKey(units)
}

// Concat is vs[0] + vs[1] + … on strings, as JavaScript joins them: their
// UTF-16 code units one after the other, so a lone surrogate at the end
// of one stays lone, or pairs with a low surrogate starting the next.
// ok is false when a value is not a string.
func Concat(vs ...*Value) (joined *Value, ok bool) {
	var units []uint16
	for _, v := range vs {
		if v == nil || v.kind != String {
			return nil, false
		}
		units = append(units, v.units...)
	}
	return &Value{kind: String, units: units}, true
}

// Stringify is JSON.stringify(v).
func (v *Value) Stringify() []byte { return v.appendTo(nil) }

func (v *Value) appendTo(b []byte) []byte {
	switch v.kind {
	case Null:
		return append(b, "null"...)
	case Bool:
		return strconv.AppendBool(b, v.b)
	case Number:
		if math.IsInf(v.num, 0) || math.IsNaN(v.num) {
			return append(b, "null"...)
		}
		return append(b, jsnum.Format(v.num)...)
	case String:
		return appendQuoted(b, v.units)
	case Array:
		b = append(b, '[')
		for i, e := range v.elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.appendTo(b)
		}
		return append(b, ']')
	}
	b = append(b, '{')
	for i, k := range v.obj.ownKeys() {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendQuoted(b, unpackKey(k))
		b = append(b, ':')
		b = v.obj.vals[k].appendTo(b)
	}
	return append(b, '}')
}

// appendQuoted is QuoteJSONString: the short escapes, \u00xx for the
// other control characters and \udxxx for a lone surrogate, lower-case
// hex; every other code point as UTF-8.
func appendQuoted(b []byte, units []uint16) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(units); i++ {
		u := units[i]
		switch {
		case u == '"' || u == '\\':
			b = append(b, '\\', byte(u))
		case u == '\b':
			b = append(b, '\\', 'b')
		case u == '\t':
			b = append(b, '\\', 't')
		case u == '\n':
			b = append(b, '\\', 'n')
		case u == '\f':
			b = append(b, '\\', 'f')
		case u == '\r':
			b = append(b, '\\', 'r')
		case u < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[u>>4], hex[u&0xF])
		case utf16.IsSurrogate(rune(u)):
			if u < 0xDC00 && i+1 < len(units) && 0xDC00 <= units[i+1] && units[i+1] <= 0xDFFF {
				b = utf8.AppendRune(b, utf16.DecodeRune(rune(u), rune(units[i+1])))
				i++
				continue
			}
			b = append(b, '\\', 'u', hex[u>>12], hex[u>>8&0xF], hex[u>>4&0xF], hex[u&0xF])
		default:
			b = utf8.AppendRune(b, rune(u))
		}
	}
	return append(b, '"')
}
