package harness

import (
	"strings"
	"testing"
)

// FuzzCheckValue: checkValue, which asks jsonobj.Scan, accepts exactly
// what encoding/json's Decoder.Token walk (walkCheck) accepts, with and
// without the letter-case check inside the top-level object, and words a
// refusal as the walk does.
func FuzzCheckValue(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"a":1,"a":2}`, `{"x":{"K":1,"` + "\u212a" + `":2}}`, `{"K":1,"k":2}`, `{"x":[{"s":1,"` + "\u017f" + `":2}]}`,
		`{"a":"\ud800"}`, "{\"\xff\":1,\"\xfe\":2}", `[1,2,]`, `{"a":1} x`, `-01`, `"\u00e9"`, `{"x":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"A":18}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, fold := range []bool{false, true} {
			got, want := checkValue(in, fold), walkCheck(in, fold)
			if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
				t.Fatalf("checkValue(%q, %v) = %v; the Token walk says %v", in, fold, got, want)
			}
		}
	})
}

// TestCheckValueDepth: the nesting limit is the walk's.
func TestCheckValueDepth(t *testing.T) {
	for _, n := range []int{maxInputDepth, maxInputDepth + 1} {
		in := []byte(`{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + "}")
		if got, want := checkValue(in, true), walkCheck(in, true); (got == nil) != (want == nil) || (got == nil) != (n <= maxInputDepth) {
			t.Errorf("%d deep: checkValue %v, the walk %v", n, got, want)
		}
	}
}
