package jsnum

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"

	"github.com/bundlectl/bundlectl/internal/jsspace"
)

// Parse reads s as Claude Code reads a number option's input: trimmed of
// JavaScript white space and line terminators, then ECMAScript
// StringToNumber (a decimal literal with an optional sign, fraction and
// exponent, digits on either side of the point; or 0x, 0o, 0b digits with
// no sign). ok is false for an empty text, any other text, and a value that
// is not finite.
func Parse(s string) (n float64, ok bool) {
	s = jsspace.Trim(s)
	if s == "" {
		return 0, false
	}
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			return parseRadix(s[2:], base)
		}
	}
	if !isDecimal(s) {
		return 0, false
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
		return 0, false
	}
	return n, true
}

// parseRadix reads digits of base (no sign, no separator), rounded to
// the nearest float64 as JavaScript does.
func parseRadix(digits string, base int) (float64, bool) {
	for i := 0; i < len(digits); i++ {
		if d := digitValue(digits[i]); d < 0 || d >= base {
			return 0, false
		}
	}
	x, ok := new(big.Int).SetString(digits, base)
	if !ok {
		return 0, false
	}
	f, _ := new(big.Float).SetInt(x).Float64()
	if math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func digitValue(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'z':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'Z':
		return int(c-'A') + 10
	}
	return -1
}

// isDecimal reports whether s is an ECMAScript StrDecimalLiteral other
// than Infinity: [+-] (digits [. [digits]] | . digits) [(e|E) [+-] digits].
// strconv.ParseFloat alone would also take "inf", "0x1p4" and "1_0".
func isDecimal(s string) bool {
	i := 0
	if s[i] == '+' || s[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i - j
	}
	n := digits()
	if i < len(s) && s[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// Format is JavaScript's String(n) for a finite n (Number::toString):
// the shortest digits that read back as n, in plain form from 1e-6 up to
// 1e21 and with an exponent ("1e+21", "1.5e-7") beyond; -0 is "0".
func Format(n float64) string {
	if n == 0 {
		return "0" // -0 too
	}
	if math.IsInf(n, 0) || math.IsNaN(n) {
		// Not a value Parse returns; as JavaScript writes them.
		switch {
		case math.IsNaN(n):
			return "NaN"
		case n > 0:
			return "Infinity"
		}
		return "-Infinity"
	}
	// encoding/json writes a float64 by ES6's Number::toString rules.
	b, _ := json.Marshal(n)
	return string(b)
}
