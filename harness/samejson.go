package harness

import (
	"encoding/json"
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonNumber is a JSON number as written; jsonText a JSON string as its
// UTF-16 code units (two bytes each), as JavaScript holds it.
type (
	jsonNumber string
	jsonText   string
)

// decodeExact decodes the JSON document raw for comparison: numbers as
// written (float64 would take 9007199254740993 for 9007199254740992) and
// strings, keys included, as UTF-16 code units, so a lone surrogate
// ("\ud800") stays itself where encoding/json reads it, and any other,
// as U+FFFD; an object's repeated key takes its last value, as JSON.parse
// does.
func decodeExact(raw json.RawMessage) (any, error) {
	if !json.Valid(raw) {
		return nil, errors.New("not one JSON value")
	}
	d := exactDecoder{b: raw}
	return d.value(), nil
}

// exactDecoder walks a document json.Valid accepted.
type exactDecoder struct {
	b []byte
	i int
}

func (d *exactDecoder) skipSpace() {
	for d.i < len(d.b) && (d.b[d.i] == ' ' || d.b[d.i] == '\t' || d.b[d.i] == '\r' || d.b[d.i] == '\n') {
		d.i++
	}
}

func (d *exactDecoder) value() any {
	d.skipSpace()
	switch d.b[d.i] {
	case '{':
		d.i++
		m := map[jsonText]any{}
		for {
			d.skipSpace()
			if d.b[d.i] == '}' {
				d.i++
				return m
			}
			if d.b[d.i] == ',' {
				d.i++
				d.skipSpace()
			}
			k := d.text()
			d.skipSpace()
			d.i++ // ':'
			m[k] = d.value()
		}
	case '[':
		d.i++
		a := []any{}
		for {
			d.skipSpace()
			if d.b[d.i] == ']' {
				d.i++
				return a
			}
			if d.b[d.i] == ',' {
				d.i++
			}
			a = append(a, d.value())
		}
	case '"':
		return d.text()
	case 't':
		d.i += 4
		return true
	case 'f':
		d.i += 5
		return false
	case 'n':
		d.i += 4
		return nil
	}
	start := d.i
	for d.i < len(d.b) && (d.b[d.i] == '-' || d.b[d.i] == '+' || d.b[d.i] == '.' || d.b[d.i] == 'e' || d.b[d.i] == 'E' || d.b[d.i] >= '0' && d.b[d.i] <= '9') {
		d.i++
	}
	return jsonNumber(d.b[start:d.i])
}

// text decodes the string at d.i into its UTF-16 code units.
func (d *exactDecoder) text() jsonText {
	d.i++ // '"'
	var units []byte
	unit := func(u uint16) { units = append(units, byte(u>>8), byte(u)) }
	for d.b[d.i] != '"' {
		c := d.b[d.i]
		if c != '\\' {
			r, n := utf8.DecodeRune(d.b[d.i:]) // invalid UTF-8: U+FFFD, as encoding/json reads it
			d.i += n
			if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
				unit(uint16(r1))
				unit(uint16(r2))
			} else {
				unit(uint16(r))
			}
			continue
		}
		e := d.b[d.i+1]
		d.i += 2
		switch e {
		case 'u':
			var u uint16
			for _, h := range d.b[d.i : d.i+4] {
				u <<= 4
				switch {
				case h >= '0' && h <= '9':
					u |= uint16(h - '0')
				case h >= 'a' && h <= 'f':
					u |= uint16(h - 'a' + 10)
				default:
					u |= uint16(h - 'A' + 10)
				}
			}
			d.i += 4
			unit(u)
		case 'b':
			unit('\b')
		case 'f':
			unit('\f')
		case 'n':
			unit('\n')
		case 'r':
			unit('\r')
		case 't':
			unit('\t')
		default: // '"', '\\', '/'
			unit(uint16(e))
		}
	}
	d.i++
	return jsonText(units)
}
