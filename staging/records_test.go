package staging

import (
	"bytes"
	"testing"

	"github.com/bundlectl/bundlectl/receipts"
)

// FuzzParseRecords: no input panics, and whatever is accepted is exactly
// what formatRecords writes for the parsed records.
func FuzzParseRecords(f *testing.F) {
	h := receipts.Digest{1, 2, 3}
	f.Add([]byte(recordsHeader + h.String() + "\n"))
	f.Add([]byte(recordsHeader + h.String() + "\nD - - a\nF 3 " + h.String() + " a/b c\nX 0 " + h.String() + " z\n"))
	f.Add([]byte(recordsHeader + h.String() + "\nF 03 " + h.String() + " a\n"))
	f.Add([]byte(recordsHeader + h.String() + "\nD - - b\nD - - a\n"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, ok := parseRecords(data, h)
		if !ok {
			return
		}
		if out := formatRecords(h, rs); !bytes.Equal(out, data) {
			t.Fatalf("accepted %q but it formats as %q", data, out)
		}
	})
}
