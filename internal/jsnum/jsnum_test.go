package jsnum

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// vector is [input, accepted, String(Number(input.trim()))], written by
// node 20 running Claude Code's own test: r = s.trim(), t = Number(r),
// accepted when r !== "" && Number.isFinite(t).
type vector struct {
	In   string
	OK   bool
	Text string
}

func (v *vector) UnmarshalJSON(b []byte) error {
	var a []any
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	v.In, v.OK, v.Text = a[0].(string), a[1].(bool), a[2].(string)
	return nil
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
	return vs
}

func check(t *testing.T, v vector) {
	t.Helper()
	n, ok := Parse(v.In)
	if ok != v.OK {
		t.Errorf("Parse(%q) ok = %v, JavaScript says %v", v.In, ok, v.OK)
		return
	}
	if ok && Format(n) != v.Text {
		t.Errorf("Format(Parse(%q)) = %q, JavaScript says %q", v.In, Format(n), v.Text)
	}
}

func TestVectors(t *testing.T) {
	vs := loadVectors(t)
	if len(vs) < 300 {
		t.Fatalf("only %d vectors", len(vs))
	}
	for _, v := range vs {
		check(t, v)
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		n    float64
		want string
	}{
		{5, "5"}, {-5, "-5"}, {math.Copysign(0, -1), "0"}, {1e21, "1e+21"}, {1e20, "100000000000000000000"},
		{1.23e21, "1.23e+21"}, {1e-6, "0.000001"}, {1e-7, "1e-7"}, {1.5e-7, "1.5e-7"}, {0.30000000000000004, "0.30000000000000004"},
		{5e-324, "5e-324"}, {math.MaxFloat64, "1.7976931348623157e+308"}, {-1.5, "-1.5"},
	} {
		if got := Format(c.n); got != c.want {
			t.Errorf("Format(%v) = %q, want %q", c.n, got, c.want)
		}
	}
}

// TestAgainstNode compares with node itself on generated text, when node
// is installed (it is not needed for the vectors above).
func TestAgainstNode(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	var in []string
	const alpha = "0123456789+-.eExXoObB_ \t"
	seed := uint32(7)
	for i := 0; i < 5000; i++ {
		var b strings.Builder
		seed = seed*1664525 + 1013904223
		for j := 0; j < 1+int(seed>>28)%9; j++ {
			seed = seed*1664525 + 1013904223
			b.WriteByte(alpha[int(seed>>16)%len(alpha)])
		}
		in = append(in, b.String())
	}
	data, _ := json.Marshal(in)
	cmd := exec.Command("node", "-e", `let d="";process.stdin.on("data",c=>d+=c).on("end",()=>{console.log(JSON.stringify(JSON.parse(d).map(s=>{const r=s.trim(),n=Number(r),ok=r!==""&&Number.isFinite(n);return[s,ok,ok?String(n):""]})))})`)
	cmd.Stdin = strings.NewReader(string(data))
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("node did not run: %v", err)
	}
	var vs []vector
	if err := json.Unmarshal(out, &vs); err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		check(t, v)
	}
}

// FuzzParse: no input panics, and what Parse accepts, written by Format,
// reads back as the same number (what configure stores is what the runtime
// passes).
func FuzzParse(f *testing.F) {
	for _, v := range loadVectors(f) {
		f.Add(v.In)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := Parse(s)
		if !ok {
			return
		}
		text := Format(n)
		m, ok := Parse(text)
		if !ok || m != n && !(m == 0 && n == 0) {
			t.Fatalf("Parse(%q) = %v, Format = %q, which reads back as %v, %v", s, n, text, m, ok)
		}
	})
}
