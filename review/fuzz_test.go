package review

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
)

// FuzzNormalizeURL: no input panics; an accepted URL normalizes to a
// fixed point, keeps no userinfo and no fragment.
func FuzzNormalizeURL(f *testing.F) {
	for _, s := range []string{
		"https://api.example.com/mcp", "HTTPS://API.EXAMPLE.COM:443/Mcp", "http://[::1]:3000/mcp?a=b%20c",
		"http://localhost:80", "https://u:p@x/", "https://x/#f", "mailto:x@y", "https://[fe80::1%25en0]/", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := NormalizeURL(in)
		if err != nil {
			return
		}
		again, err := NormalizeURL(out)
		if err != nil || again != out {
			t.Fatalf("NormalizeURL(%q) = %q, but that normalizes to %q, %v", in, out, again, err)
		}
		if strings.Contains(out, "@") && !strings.ContainsAny(out[strings.Index(out, "://")+3:], "/?") {
			t.Fatalf("userinfo kept: %q", out)
		}
		if strings.Contains(out, "#") {
			t.Fatalf("fragment kept: %q", out)
		}
	})
}

// FuzzRenderInert puts arbitrary text into every kind of field and checks
// that neither form of the review carries a raw control, bidirectional or
// non-printing character, and that the JSON form stays valid and lossless.
func FuzzRenderInert(f *testing.F) {
	f.Add(hostile, "\x1b[2J")
	f.Add("\r\n\u202e", "\xff\xfe")
	f.Add("", "\u2028\u0085\U000e0041")
	f.Fuzz(func(t *testing.T, a, c string) {
		b := exampleBundle(t, "")
		b.Meta.Description = a
		b.Meta.DisplayName = c
		b.Components.Tools[0].Args = []string{a, c}
		b.Components.Hooks[0].Matcher = a
		b.Components.MCP[0].Env = map[string]string{c: a}
		b.Components.MCP[0].EnvFrom = map[string]string{a: c}
		b.Components.MCP[1].Headers = map[string]string{a: c}
		b.Components.Skills[0].Description = c
		b.Report.Warnf(a, c, "%s", a)
		b.Inactive = []bundle.Inactive{{Surface: a, Name: c, Detail: a}}
		rv := &Review{Bundle: b, Errors: b.Report.Errors(), Warnings: b.Report.Warnings()}
		if inv, err := Inventory(b); err == nil {
			rv.Inventory = inv
		}
		var h, j bytes.Buffer
		if err := Render(&h, rv, RenderOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := RenderJSON(&j, rv); err != nil {
			t.Fatal(err)
		}
		checkInert(t, "human", h.Bytes())
		checkInert(t, "json", j.Bytes())
		if !json.Valid(j.Bytes()) {
			t.Fatalf("invalid JSON: %s", j.Bytes())
		}
	})
}
