package jsjson

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// vector is one case of testdata/vectors.json, whose "out" node 20
// wrote: JSON.stringify(JSON.parse(in)), the same of the text Node.js
// decodes from the bytes in_hex (Buffer's toString("utf8")), or
// JSON.stringify({...JSON.parse(base), ...JSON.parse(over)}). They were
// made by running, for each case c,
//
//	c.out = JSON.stringify(JSON.parse(c.in))
//	c.out = JSON.stringify(JSON.parse(Buffer.from(c.in_hex, "hex").toString("utf8")))
//	c.out = JSON.stringify({...JSON.parse(c.base), ...JSON.parse(c.over)})
type vector struct {
	In    *string `json:"in"`
	InHex string  `json:"in_hex"`
	Base  string  `json:"base"`
	Over  string  `json:"over"`
	Out   string  `json:"out"`
}

func loadVectors(t testing.TB) []vector {
	data, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []vector
	if err := json.Unmarshal(data, &vs); err != nil {
		t.Fatal(err)
	}
	if len(vs) < 80 {
		t.Fatalf("only %d vectors", len(vs))
	}
	return vs
}

func mustParse(t *testing.T, s string) *Value {
	t.Helper()
	v, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return v
}

// TestVectors: every case gives node's bytes.
func TestVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		var got []byte
		switch {
		case v.In != nil:
			got = mustParse(t, *v.In).Stringify()
		case v.InHex != "":
			b, err := hex.DecodeString(v.InHex)
			if err != nil {
				t.Fatal(err)
			}
			got = mustParse(t, string(b)).Stringify()
		default:
			got = Spread(mustParse(t, v.Base), mustParse(t, v.Over)).Stringify()
		}
		if string(got) != v.Out {
			t.Errorf("%+v: got %s, node writes %s", v, got, v.Out)
		}
	}
}

// TestParseRefuses: what is not one JSON text is refused, as JSON.parse
// refuses it.
func TestParseRefuses(t *testing.T) {
	for _, bad := range []string{``, ` `, `{`, `[1,]`, `{"a":1,}`, `01`, `1.`, `.5`, `1e`, `+1`, `-`, `"\x01"`, `"\u12"`, `"\u12g4"`,
		`"\x"`, `"abc`, `{"a" 1}`, `{a:1}`, `[1 2]`, `tru`, `nul`, `1 2`, `NaN`, `Infinity`, "\ufeff1", "\v1", `"\'"`} {
		if v, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q) = %s, want an error", bad, v.Stringify())
		}
	}
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	if _, err := Parse([]byte(deep)); err == nil {
		t.Error("nesting past MaxDepth accepted")
	}
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if _, err := Parse([]byte(ok)); err != nil {
		t.Errorf("nesting at MaxDepth: %v", err)
	}
}

// TestAgainstNode compares with node itself on generated JSON, when node
// is installed (it is not needed for the vectors above).
func TestAgainstNode(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	var in []string
	seed := uint32(11)
	next := func(n int) int {
		seed = seed*1664525 + 1013904223
		return int(seed>>16) % n
	}
	atoms := []string{`0`, `-0`, `1.0`, `1e2`, `1E-7`, `123456789.123456789e3`, `5e-324`, `1e400`, `-1e-400`, `0.1`, `7.0e20`, `7e21`,
		`"\ud800"`, `"\udfff\ud800"`, `"\u0041\u00e9\/"`, `"\b\u001f\u007f"`, `"\u2028"`, `"😀"`, `true`, `null`, `"<&>"`}
	keys := []string{`"a"`, `"b"`, `"0"`, `"7"`, `"01"`, `"4294967294"`, `"4294967295"`, `"\ud83d"`, `"A"`, `"\u0061"`, `"-1"`}
	var gen func(depth int) string
	gen = func(depth int) string {
		switch r := next(10); {
		case depth > 3 || r < 5:
			return atoms[next(len(atoms))]
		case r < 7:
			var parts []string
			for range next(4) {
				parts = append(parts, gen(depth+1))
			}
			return "[" + strings.Join(parts, ",") + "]"
		default:
			var parts []string
			for range next(5) {
				parts = append(parts, keys[next(len(keys))]+":"+gen(depth+1))
			}
			return "{" + strings.Join(parts, ",") + "}"
		}
	}
	for range 3000 {
		in = append(in, gen(0))
	}
	data, _ := json.Marshal(in)
	cmd := exec.Command("node", "-e", `let d="";process.stdin.on("data",c=>d+=c).on("end",()=>{console.log(JSON.stringify(JSON.parse(d).map(s=>JSON.stringify(JSON.parse(s)))))})`)
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("node did not run: %v", err)
	}
	var want []string
	if err := json.Unmarshal(out, &want); err != nil || len(want) != len(in) {
		t.Fatalf("node answered %d of %d: %v", len(want), len(in), err)
	}
	for i, s := range in {
		if got := mustParse(t, s).Stringify(); string(got) != want[i] {
			t.Errorf("%s: got %s, node writes %s", s, got, want[i])
		}
	}
}

// FuzzStringify: Parse accepts what json.Valid accepts (within MaxDepth)
// and never panics; what Stringify writes is valid JSON that reads back
// to itself, and, for UTF-8 input, holds the value encoding/json reads
// from the input (numbers as doubles, a repeated name's last value; a
// lone surrogate is U+FFFD to both).
func FuzzStringify(f *testing.F) {
	for _, v := range loadVectors(f) {
		switch {
		case v.In != nil:
			f.Add([]byte(*v.In))
		case v.InHex != "":
			b, _ := hex.DecodeString(v.InHex)
			f.Add(b)
		default:
			f.Add([]byte(v.Base))
			f.Add([]byte(v.Over))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if (err == nil) != json.Valid(data) {
			if err != nil && strings.Contains(err.Error(), "nested too deep") {
				return
			}
			t.Fatalf("Parse(%q): %v, but json.Valid says %v", data, err, json.Valid(data))
		}
		if err != nil {
			return
		}
		out := v.Stringify()
		if !json.Valid(out) {
			t.Fatalf("Stringify of %q = %q, not JSON", data, out)
		}
		again, err := Parse(out)
		if err != nil || !bytes.Equal(again.Stringify(), out) {
			t.Fatalf("Stringify of %q = %q, which does not read back to itself (%v)", data, out, err)
		}
		if !utf8.Valid(data) {
			return
		}
		var want, got any
		if json.Unmarshal(data, &want) != nil {
			return // a number past the double range: encoding/json refuses it
		}
		if err := json.Unmarshal(out, &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("Stringify of %q = %q, which encoding/json reads as %v, not %v (%v)", data, out, got, want, err)
		}
	})
}

// FuzzSpread: {...a, ...b} keeps every key of a that b does not set,
// sets every key of an object b to its value, and always is an object.
func FuzzSpread(f *testing.F) {
	for _, v := range loadVectors(f) {
		if v.In == nil && v.InHex == "" {
			f.Add([]byte(v.Base), []byte(v.Over))
		}
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		va, errA := Parse(a)
		vb, errB := Parse(b)
		if errA != nil || errB != nil {
			return
		}
		s := Spread(va, vb)
		if s.Kind() != Object {
			t.Fatalf("{...%s, ...%s} is not an object", a, b)
		}
		if va.Kind() == Object {
			for _, k := range va.obj.keys {
				if _, set := s.obj.vals[k]; !set {
					t.Fatalf("{...%s, ...%s} = %s lost a key of the first", a, b, s.Stringify())
				}
			}
		}
		if vb.Kind() == Object {
			for _, k := range vb.obj.keys {
				if s.obj.vals[k] != vb.obj.vals[k] {
					t.Fatalf("{...%s, ...%s} = %s: a key of the second is not its value", a, b, s.Stringify())
				}
			}
		}
	})
}

// TestDecodeUTF8: bytes that are not UTF-8 decode as Node.js 20 decodes
// them (Buffer.from(hex, "hex").toString("utf8"), the bytes below being
// what node wrote back), one U+FFFD for each maximal invalid subpart:
// a truncated four-byte sequence is one, where Go gives one a byte.
func TestDecodeUTF8(t *testing.T) {
	for _, c := range []struct{ in, node string }{
		{"736bf09f9870", "736befbfbd70"},
		{"eda080", "efbfbdefbfbdefbfbd"},
		{"c0af", "efbfbdefbfbd"},
		{"80", "efbfbd"},
		{"e282", "efbfbd"},
		{"f4908080", "efbfbdefbfbdefbfbdefbfbd"},
		{"f09f98", "efbfbd"},
		{"61ff62", "61efbfbd62"},
		{"efbbbf", "efbbbf"},
		{"e080af", "efbfbdefbfbdefbfbd"},
	} {
		in, _ := hex.DecodeString(c.in)
		if got := hex.EncodeToString(DecodeUTF8(in)); got != c.node {
			t.Errorf("DecodeUTF8(%s) = %s, node decodes %s", c.in, got, c.node)
		}
	}
}

// TestDecodeUTF8AgainstNode compares DecodeUTF8 with node itself on
// generated bytes, when node is installed.
func TestDecodeUTF8AgainstNode(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	seed := uint32(5)
	next := func(n int) int {
		seed = seed*1664525 + 1013904223
		return int(seed>>16) % n
	}
	// Bytes around the edges of UTF-8's sequences, and valid text.
	pieces := []byte{0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff}
	var in []string
	for range 3000 {
		b := make([]byte, 1+next(8))
		for i := range b {
			b[i] = pieces[next(len(pieces))]
		}
		in = append(in, hex.EncodeToString(b))
	}
	data, _ := json.Marshal(in)
	cmd := exec.Command("node", "-e", `let d="";process.stdin.on("data",c=>d+=c).on("end",()=>{console.log(JSON.stringify(JSON.parse(d).map(h=>Buffer.from(Buffer.from(h,"hex").toString("utf8"),"utf8").toString("hex"))))})`)
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("node did not run: %v", err)
	}
	var want []string
	if err := json.Unmarshal(out, &want); err != nil || len(want) != len(in) {
		t.Fatalf("node answered %d of %d: %v", len(want), len(in), err)
	}
	for i, h := range in {
		b, _ := hex.DecodeString(h)
		got := DecodeUTF8(b)
		if hex.EncodeToString(got) != want[i] {
			t.Errorf("DecodeUTF8(%s) = %x, node decodes %s", h, got, want[i])
		}
		if !utf8.Valid(got) {
			t.Errorf("DecodeUTF8(%s) = %x, not UTF-8", h, got)
		}
	}
}

// TestConcat: a + "\n\n" + b on strings, as Gemini CLI adds a hook's
// additionalContext to the prompt, written by JSON.stringify; the wants
// are node 20's JSON.stringify(JSON.parse(a) + "\n\n" + JSON.parse(b)).
// A lone surrogate stays its escape, also when the blank line parts it
// from the low surrogate that follows.
func TestConcat(t *testing.T) {
	sep := mustParse(t, `"\n\n"`)
	for _, c := range []struct{ a, b, want string }{
		{`"p"`, `"\ud800"`, `"p\n\n\ud800"`},
		{`"x\ud800"`, `"\udc00y"`, `"x\ud800\n\n\udc00y"`},
		{`"a"`, `"\u2028"`, "\"a\\n\\n\u2028\""},
	} {
		got, ok := Concat(mustParse(t, c.a), sep, mustParse(t, c.b))
		if !ok || string(got.Stringify()) != c.want {
			t.Errorf("%s + %s: got %v %s, want %s", c.a, c.b, ok, got.Stringify(), c.want)
		}
	}
	if _, ok := Concat(mustParse(t, `"a"`), mustParse(t, `1`)); ok {
		t.Errorf("a number joined as a string")
	}
	if got, ok := Concat(mustParse(t, `"\ud83d"`), mustParse(t, `"\ude00"`)); !ok || string(got.Stringify()) != "\"\U0001F600\"" {
		t.Errorf("two halves of a pair: %s", got.Stringify())
	}
}
