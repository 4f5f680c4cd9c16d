package jsonobj

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

// tokenCheck is Scan's reference, the walk harness made before Scan:
// encoding/json's Decoder.Token over every value, each object's names
// kept in a set (folded, below the top level, under UniqueFoldedInside).
func tokenCheck(data []byte, rule KeyRule) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if tokenWalk(dec, 0, rule) != nil {
		return false
	}
	_, err := dec.Token()
	return err == io.EOF
}

func tokenWalk(dec *json.Decoder, depth int, rule KeyRule) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	if depth++; depth > MaxDepth {
		return errors.New("too deep")
	}
	seen := map[string]bool{}
	for dec.More() {
		if d == '{' {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k := kt.(string)
			if rule == UniqueFoldedInside && depth > 1 {
				k = strings.Map(func(r rune) rune {
					least := r
					for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
						least = min(least, f)
					}
					return least
				}, k)
			}
			if rule != AnyKeys && seen[k] {
				return errors.New("duplicate")
			}
			seen[k] = true
		}
		if err := tokenWalk(dec, depth, rule); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	return err
}

var scanSeeds = []string{``, ` `, `{}`, `[]`, `{"a":1,"a":2}`, `{"a":{"b":[1,{"c":null}]}}`, `{"a"`, `[`, `{"a":1}{}`, `null`,
	` {"\u0061":"x","a":[true,false,null,-1.5e3]} `, `{"a":"\ud800"}`, "{\"a\":\"\xff\"}", "{\"\xff\":1,\"\xfe\":2}",
	`{"x":{"K":1,"` + "\u212a" + `":2}}`, `{"x":{"s":1,"` + "\u017f" + `":2}}`, `{"K":1,"k":2}`, `{"x":[{"Ab":1,"aB":2}]}`,
	`{"x":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"A":18}}`,
	`-0`, `01`, `1.`, `1e`, `1E+5`, `-`, `.5`, `"\x"`, `"\u12"`, `"\u123g"`, "\"\t\"", `tru`, `nul`, `{"a" 1}`, `{,}`, `[1,]`, `{"a":1,}`,
	`"\/\b\f\n\r\t\"\\"`, `{"a\u0000b":1,"a\u0000B":2}`}

// FuzzScan: Scan accepts exactly what the Decoder.Token walk accepts
// under each rule, and an accepted object's members, merged last name
// winning, are what json.Unmarshal gives, in the order Members gives.
func FuzzScan(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, rule := range []KeyRule{AnyKeys, UniqueKeys, UniqueFoldedInside} {
			ms, isObject, ok := Scan(data, rule)
			if want := tokenCheck(data, rule); ok != want {
				t.Fatalf("Scan(%q, %d) ok %v, the token walk %v", data, rule, ok, want)
			}
			if ok != json.Valid(data) && rule == AnyKeys {
				t.Fatalf("Scan(%q) ok %v, json.Valid differs", data, ok)
			}
			if !ok {
				continue
			}
			var whole map[string]json.RawMessage
			wantObject := json.Unmarshal(data, &whole) == nil && whole != nil || bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{"))
			if isObject != wantObject {
				t.Fatalf("Scan(%q) isObject %v", data, isObject)
			}
			if !isObject {
				if ms != nil {
					t.Fatalf("Scan(%q) gave members of no object", data)
				}
				continue
			}
			want, _ := Members(data)
			if len(ms) != len(want) {
				t.Fatalf("Scan(%q) members %v, Members %v", data, ms, want)
			}
			for i := range ms {
				if ms[i].Key != want[i].Key || !bytes.Equal(ms[i].Val, want[i].Val) {
					t.Fatalf("Scan(%q) member %d %q:%s, Members %q:%s", data, i, ms[i].Key, ms[i].Val, want[i].Key, want[i].Val)
				}
			}
			merged := map[string]json.RawMessage{}
			for _, m := range ms {
				merged[m.Key] = m.Val
			}
			if !reflect.DeepEqual(merged, whole) && !(len(merged) == 0 && len(whole) == 0) {
				t.Fatalf("Scan(%q) merged %v, json.Unmarshal %v", data, merged, whole)
			}
		}
	})
}

// TestScanDepth: Scan's nesting limit is encoding/json's.
func TestScanDepth(t *testing.T) {
	for _, n := range []int{MaxDepth, MaxDepth + 1} {
		for _, open := range []string{"[", `{"a":`} {
			close := map[string]string{"[": "]", `{"a":`: "}"}[open]
			data := []byte(strings.Repeat(open, n) + "1" + strings.Repeat(close, n))
			if _, _, ok := Scan(data, UniqueFoldedInside); ok != json.Valid(data) || ok != (n <= MaxDepth) {
				t.Errorf("%d deep %s: Scan ok %v, json.Valid %v", n, open, ok, json.Valid(data))
			}
		}
	}
}

// TestScanManyNames: an object of many names is checked through a set,
// and a name repeated far from its first is still found.
func TestScanManyNames(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"x":{`)
	for i := range 5000 {
		b.WriteString(`"k` + strings.Repeat("a", i%7) + string(rune('a'+i%26)) + `_` + itoa(i) + `":1,`)
	}
	in := b.String()
	if _, _, ok := Scan([]byte(in+`"z":1}}`), UniqueFoldedInside); !ok {
		t.Fatal("refused distinct names")
	}
	for _, dup := range []string{`"k` + "a" + `_0":1}}`, `"Ka_0":1}}`, `"` + "\u212a" + `a_0":1}}`} {
		_, _, ok := Scan([]byte(in+dup), UniqueFoldedInside)
		_, _, exactOK := Scan([]byte(in+dup), UniqueKeys)
		if ok || exactOK != (dup != `"k`+"a"+`_0":1}}`) {
			t.Errorf("%s after 5000 names: folded ok %v, exact ok %v", dup, ok, exactOK)
		}
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func BenchmarkScan(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"content":"`)
	for sb.Len() < 1<<20 {
		sb.WriteString(`\tfmt.Printf(\"line: caf` + "\u00e9" + ` \\\\ %q\\n\", x) // <&>\n`)
	}
	sb.WriteString(`","items":[`)
	for i := 0; sb.Len() < 2<<20; i++ {
		sb.WriteString(`{"id":1,"name":"item-1","path":"/tmp/work/src/pkg1/file1.go","tags":["a","b\"c"],"meta":{"size":1234.5,"ok":true},"kids":[{"x":true},{"y":false}]},`)
	}
	sb.WriteString(`{}]}`)
	in := []byte(sb.String())
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, _, ok := Scan(in, UniqueFoldedInside); !ok {
			b.Fatal("refused")
		}
	}
}

// FuzzAppendCompact: AppendCompact writes what json.Compact and
// MarshalNoEscape's unescaping write, and refuses what json.Compact
// refuses.
func FuzzAppendCompact(f *testing.F) {
	for _, s := range append(scanSeeds, ` { "a" : [ 1 , "\u2028 \\u2029" , "\\\u2029" ] } `, "\"\u2028\"", `"\u20289"`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		got, err := AppendCompact([]byte("x"), src)
		var want bytes.Buffer
		werr := json.Compact(&want, src)
		if (err == nil) != (werr == nil) {
			t.Fatalf("AppendCompact(%q) error %v, json.Compact %v", src, err, werr)
		}
		if err != nil {
			if string(got) != "x" {
				t.Fatalf("AppendCompact(%q) refused but wrote %q", src, got)
			}
			return
		}
		if w := "x" + string(unescapeLineSeparators(want.Bytes())); string(got) != w {
			t.Fatalf("AppendCompact(%q) = %q, want %q", src, got, w)
		}
	})
}

// TestScanFoldAtThreshold: two names equal in letter case only under
// Unicode's folding (the Kelvin sign and "k", "ſ" and "s", "ǅ" and "ǆ",
// "µ" and "μ", an escaped spelling of either, a surrogate pair) are
// refused inside the top level whether the object compares its names one
// by one (up to smallObject) or through the set (past it), with the
// second name just before, at and after the switch; names that only look
// alike (dotless "ı" and "i", "İ" and "i", "ß" and "ss") are not, and
// nothing here is decided otherwise than by the token walk. Two lone
// surrogates, or an escaped and a plain spelling, are the same name
// (U+FFFD, "tool") even at the top level.
func TestScanFoldAtThreshold(t *testing.T) {
	for _, c := range []struct {
		a, b        string
		same, exact bool // equal folded; equal as encoding/json decodes them
	}{
		{`K`, "\u212a", true, false}, {`k`, `\u212A`, true, false}, {`s`, "\u017f", true, false}, {`S`, `\u017f`, true, false},
		{"\u01c4", "\u01c5", true, false}, {"\u01c5", `\u01c6`, true, false}, {"\u00b5", "\u039c", true, false}, {"\u03c3", "\u03c2", true, false},
		{`\ud801\udc00`, "\U00010428", true, false}, {`a\u0000`, `A\u0000`, true, false}, {`\u0074ool`, `TOOL`, true, false},
		{"i", "\u0131", false, false}, {"i", "\u0130", false, false}, {"ss", "\u00df", false, false}, {`\ud800`, `\udc00`, true, true}, {`\u0074ool`, `tool`, true, true},
	} {
		for fillers := smallObject - 2; fillers <= smallObject+1; fillers++ {
			for _, inside := range []bool{false, true} {
				var b strings.Builder
				b.WriteString(`{`)
				for i := range fillers {
					b.WriteString(`"f` + itoa(i) + `":1,`)
				}
				b.WriteString(`"` + c.a + `":1,"` + c.b + `":2}`)
				data := b.String()
				if inside {
					data = `{"tool_input":` + data + `}`
				}
				_, _, ok := Scan([]byte(data), UniqueFoldedInside)
				if want := tokenCheck([]byte(data), UniqueFoldedInside); ok != want || ok == (c.exact || inside && c.same) {
					t.Errorf("%q then %q after %d names (inside %v): Scan ok %v, the token walk %v", c.a, c.b, fillers, inside, ok, want)
				}
			}
		}
	}
}

// TestAppendCompactDecodesNoName: AppendCompact only copies an object's
// names, so it decodes none: a tool_input of a million escaped names
// ("\u0041…") took seconds when its check collected the top-level
// members, each name decoded by json.Unmarshal, and threw them away.
func TestAppendCompactDecodesNoName(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{`)
	for i := range 1000 {
		b.WriteString(`"\u0041` + itoa(i) + `":1,`)
	}
	b.WriteString(`"z":1}`)
	src := []byte(b.String())
	dst := make([]byte, 0, 2*len(src))
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := AppendCompact(dst, src); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 10 {
		t.Errorf("AppendCompact of 1000 escaped names: %v allocations, want none a name", allocs)
	}
}
