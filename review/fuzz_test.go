package review

import (
	"encoding/json"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
)

// FuzzRenderInert puts arbitrary text into every kind of field and checks
// that neither form of the review carries a raw control, bidirectional or
// non-printing character, and that the JSON form stays valid
// (docs/hashing.md, docs/protections.md).
func FuzzRenderInert(f *testing.F) {
	f.Add(hostile, "\x1b[2J")
	f.Add("\r\n\u202e", "\xff\xfe")
	f.Add("", "\u2028\u0085\U000e0041")
	f.Fuzz(func(t *testing.T, a, c string) {
		b := goldenBundle(t)
		b.Meta.Description = a
		b.Meta.DisplayName = c
		b.Components.Tools[0].Args = []string{a, c}
		b.Components.Hooks[0].Matcher = a
		b.Components.MCP[0].Env = map[string]string{c: a}
		b.Components.MCP[0].EnvFrom = map[string]string{a: c}
		b.Components.MCP[1].Headers = map[string]string{a: c}
		b.Components.Skills[0].Description = c
		b.Components.Commands[0].Description = a
		b.Report.Warnf(a, c, "%s", a)
		b.Inactive = []bundle.Inactive{{Surface: bundle.SurfaceNative, Name: c, Detail: a}} // a surface is one of bundlectl's constants
		human, js := renderBoth(t, b, false)
		checkInert(t, "human", human)
		checkInert(t, "json", js)
		if !json.Valid(js) {
			t.Fatalf("invalid JSON: %s", js)
		}
	})
}
