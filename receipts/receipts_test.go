package receipts

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

const (
	hexA = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	hexB = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
)

func TestParseDigest(t *testing.T) {
	d, err := Parse(hexA)
	if err != nil {
		t.Fatal(err)
	}
	if d.String() != hexA || d.Short() != hexA[:12] || d.IsZero() {
		t.Errorf("round trip: %s %s %v", d, d.Short(), d.IsZero())
	}
	if !(Digest{}).IsZero() {
		t.Error("zero digest is not zero")
	}
	bad := map[string]string{
		"empty":       "",
		"short":       hexA[:63],
		"long":        hexA + "0",
		"upper":       strings.ToUpper(hexA),
		"one upper":   hexA[:10] + "A" + hexA[11:],
		"non-hex":     hexA[:63] + "g",
		"space":       " " + hexA[1:],
		"trailing nl": hexA[:63] + "\n",
		"0x prefix":   "0x" + hexA[2:],
		"non-ascii":   hexA[:62] + "é",
		"nul":         hexA[:63] + "\x00",
	}
	for name, s := range bad {
		if _, err := Parse(s); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: Parse(%q) = %v, want ErrMalformed", name, s, err)
		}
	}
}

func TestParseToken(t *testing.T) {
	s := hexA + "." + hexB
	tok, err := ParseToken(s)
	if err != nil {
		t.Fatal(err)
	}
	if tok.String() != s || tok.Content.String() != hexA || tok.Capability.String() != hexB {
		t.Errorf("round trip: %s", tok)
	}
	bad := map[string]string{
		"empty":            "",
		"content only":     hexA,
		"missing dot":      hexA + hexB,
		"missing dot +1":   hexA + "0" + hexB,
		"other separator":  hexA + ":" + hexB,
		"dash separator":   hexA + "-" + hexB,
		"extra dot":        hexA + ".." + hexB[1:],
		"dot inside":       hexA[:63] + "." + "." + hexB,
		"two dots":         hexA[:32] + "." + hexA[33:] + "." + hexB,
		"trailing dot":     hexA + "." + hexB + ".",
		"leading space":    " " + hexA + "." + hexB,
		"trailing space":   hexA + "." + hexB + " ",
		"trailing newline": hexA + "." + hexB + "\n",
		"inner space":      hexA + " ." + hexB[1:],
		"tab":              hexA + "." + hexB[:63] + "\t",
		"upper content":    strings.ToUpper(hexA) + "." + hexB,
		"upper capability": hexA + "." + strings.ToUpper(hexB),
		"short content":    hexA[:63] + "." + hexB + "0",
		"short capability": hexA + "0." + hexB[:63],
		"long":             hexA + "." + hexB + "00",
		"short":            hexA + "." + hexB[:62],
		"non-hex":          hexA + "." + hexB[:63] + "z",
	}
	for name, in := range bad {
		if _, err := ParseToken(in); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: ParseToken(%q) = %v, want ErrMalformed", name, in, err)
		}
	}
}

func TestTokenJSON(t *testing.T) {
	tok, _ := ParseToken(hexA + "." + hexB)
	type wrap struct {
		Token  Token  `json:"token"`
		Digest Digest `json:"digest"`
	}
	in := wrap{Token: tok, Digest: tok.Content}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"token":"` + hexA + "." + hexB + `","digest":"` + hexA + `"}`
	if string(data) != want {
		t.Errorf("marshal: %s\nwant %s", data, want)
	}
	var out wrap
	if err := json.Unmarshal(data, &out); err != nil || out != in {
		t.Errorf("unmarshal: %v %+v", err, out)
	}
	for _, bad := range []string{
		`{"token":"` + strings.ToUpper(hexA) + "." + hexB + `"}`,
		`{"token":"` + hexA + `"}`,
		`{"digest":"` + hexA[:60] + `"}`,
		`{"digest":12}`,
	} {
		if err := json.Unmarshal([]byte(bad), &out); err == nil {
			t.Errorf("unmarshal %s: no error", bad)
		}
	}
	// Text round trip.
	txt, _ := tok.MarshalText()
	var back Token
	if err := back.UnmarshalText(txt); err != nil || back != tok {
		t.Errorf("text round trip: %v", err)
	}
}

func TestReceiptJSON(t *testing.T) {
	c, _ := Parse(hexA)
	k, _ := Parse(hexB)
	r := Receipt{
		BundleID: "user/0123456789ab/example", ContentHash: c, CapabilityHash: k,
		Inventory: json.RawMessage(`{"name":"example"}`), Snapshot: "/store/" + hexA,
		ReviewedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Generation: 7,
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Receipt
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Token() != r.Token() || back.BundleID != r.BundleID || string(back.Inventory) != string(r.Inventory) ||
		!back.ReviewedAt.Equal(r.ReviewedAt) || back.Generation != 7 || back.Snapshot != r.Snapshot {
		t.Errorf("round trip: %+v", back)
	}
	if r.Token().String() != hexA+"."+hexB {
		t.Errorf("token %s", r.Token())
	}
}

func FuzzParseToken(f *testing.F) {
	f.Add(hexA + "." + hexB)
	f.Add(hexA + hexB)
	f.Add(strings.ToUpper(hexA) + "." + hexB)
	f.Add(hexA + "." + hexB + "\n")
	f.Add("")
	f.Add(".")
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := ParseToken(s)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error does not wrap ErrMalformed: %v", err)
			}
			return
		}
		// Accepted input is exactly the canonical form.
		if tok.String() != s {
			t.Fatalf("accepted %q but it prints as %q", s, tok.String())
		}
		again, err := ParseToken(tok.String())
		if err != nil || again != tok {
			t.Fatalf("round trip: %v", err)
		}
	})
}

func FuzzParseDigest(f *testing.F) {
	f.Add(hexA)
	f.Add(strings.ToUpper(hexA))
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error does not wrap ErrMalformed: %v", err)
			}
			return
		}
		if d.String() != s {
			t.Fatalf("accepted %q but it prints as %q", s, d)
		}
	})
}
