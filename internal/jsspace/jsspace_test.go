package jsspace

import (
	"regexp"
	"testing"
	"unicode"
)

// Is, Class and ECMA-262's definition (Unicode's Zs, the line
// terminators, tab, vertical tab, form feed and U+FEFF) name the same
// runes, every one of them.
func TestOneSet(t *testing.T) {
	class := regexp.MustCompile(`^[` + Class + `]$`)
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if 0xd800 <= r && r <= 0xdfff {
			continue
		}
		ecma := unicode.Is(unicode.Zs, r) || r == '\t' || r == '\v' || r == '\f' || r == 0xfeff ||
			r == '\n' || r == '\r' || r == 0x2028 || r == 0x2029
		if Is(r) != ecma || class.MatchString(string(r)) != ecma {
			t.Errorf("U+%04X: Is %v, Class %v, ECMA-262 %v", r, Is(r), class.MatchString(string(r)), ecma)
		}
	}
	if got := Trim("\ufeff\u00a0 a\u0085\u3000"); got != "a\u0085" {
		t.Errorf("Trim: %q", got)
	}
}
