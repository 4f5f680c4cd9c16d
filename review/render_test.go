package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bundlectl/bundlectl/bundle"
)

// goldenBundle is the example bundle over the 05-bundle tree, with a fixed
// directory so that the output does not depend on the temporary path.
func goldenBundle(t *testing.T) *bundle.Bundle {
	t.Helper()
	b := exampleBundle(t, exampleTree(t))
	b.Dir = "/home/u/.local/share/bundlectl/bundles/example"
	return b
}

const hostile = "evil\x1b[2J\x1b]0;title\x07\rfake line\u202eright-to-left\u2028sep\u200bzw\x7fdel\u0085nel\U000e0041tag"

func hostileBundle(t *testing.T) *bundle.Bundle {
	b := goldenBundle(t)
	b.Meta.Description = hostile + " " + strings.Repeat("word ", 30)
	b.Meta.DisplayName = hostile
	b.Meta.Version = hostile
	b.Components.Tools[0].Description = hostile
	b.Components.Tools[0].Args = append(b.Components.Tools[0].Args, hostile)
	b.Components.Tools[0].Params = json.RawMessage(`{"description":"` + "\u202e\u0085\u2066" + `\u001b[2J"}`)
	b.Components.Hooks[0].Matcher = hostile
	b.Components.Hooks[0].Args = []string{hostile}
	b.Components.MCP[0].Env[hostile] = hostile
	b.Components.MCP[0].EnvFrom["X"] = hostile
	b.Components.MCP[0].Cwd = hostile
	b.Components.MCP[1].Headers[hostile] = hostile
	b.Components.MCP[1].EnvHeaders["Y"] = hostile
	b.Components.MCP[1].ToolsInclude = []string{hostile}
	b.Components.Skills[0].Description = hostile
	b.Components.Skills[0].Grants.AllowedTools = []string{hostile}
	b.Components.Commands[0].Description = hostile
	b.Permissions.FilesystemRoots = []string{hostile}
	b.When.Binaries = []string{hostile}
	b.Inactive = []bundle.Inactive{{Surface: bundle.SurfaceNative, Name: hostile, Detail: hostile, Spec: json.RawMessage(`{"path":"` + "\u202e" + `"}`)}}
	b.Components.Hooks[1].Shell = true
	b.Components.Hooks[1].Command = hostile
	b.Components.Hooks[1].Args = nil
	b.HostVars = []string{hostile}
	b.Ignored = []string{hostile}
	b.Report.Warnf(hostile, hostile, "%s", hostile)
	b.Report.Skipf("skills/"+hostile, "skill.invalid", "%s", hostile)
	return b
}

func renderBoth(t *testing.T, b *bundle.Bundle, color bool) (human, js []byte) {
	t.Helper()
	rv, err := New(b)
	if err != nil {
		t.Fatal(err)
	}
	var h, j bytes.Buffer
	if err := Render(&h, rv, RenderOptions{Color: color}); err != nil {
		t.Fatal(err)
	}
	if err := RenderJSON(&j, rv); err != nil {
		t.Fatal(err)
	}
	return h.Bytes(), j.Bytes()
}

func TestRenderGolden(t *testing.T) {
	cases := map[string]func(t *testing.T) *bundle.Bundle{
		"example": goldenBundle,
		"blocked": func(t *testing.T) *bundle.Bundle {
			b := goldenBundle(t)
			b.Permissions.LifecycleMutation = true
			b.Inactive = []bundle.Inactive{
				{Surface: bundle.SurfaceNative, Name: "fast", Detail: "native library \"./lib/fast.so\"", Spec: json.RawMessage(`{"path":"./lib/fast.so"}`)},
				{Surface: bundle.SurfaceLifecycleMutation, Detail: "capabilities.lifecycle_mutation = true"},
			}
			return b
		},
		"skipped": func(t *testing.T) *bundle.Bundle {
			b := goldenBundle(t)
			b.Report.Skipf("skills/broken/SKILL.md", "skill.frontmatter", "front matter has no description; the skill is skipped")
			return b
		},
		"invalid": func(t *testing.T) *bundle.Bundle {
			b := goldenBundle(t)
			b.Components = bundle.Components{}
			b.Report.Errorf("plugin.json: name", "manifest.name", "name %q does not match the directory name %q", "other", "example")
			b.Report.Errorf("bin/link", "tree.symlink", "symbolic links are not allowed in a bundle")
			return b
		},
		"hostile": hostileBundle,
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			human, js := renderBoth(t, mk(t), false)
			checkGolden(t, name+".txt", human)
			checkGolden(t, name+".json", js)
			if name == "example" {
				colored, _ := renderBoth(t, mk(t), true)
				checkGolden(t, name+".color.txt", colored)
			}
		})
	}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; got:\n%s", name, got)
	}
}

// ourANSI are the only escape sequences Render writes, and only with Color.
var ourANSI = regexp.MustCompile(`\x1b\[(0|1|31|33)m`)

// checkInert fails on any byte or rune that could steer a terminal.
func checkInert(t *testing.T, what string, out []byte) {
	t.Helper()
	if !utf8.Valid(out) {
		t.Errorf("%s: output is not valid UTF-8", what)
	}
	for i, r := range string(out) {
		if r == '\n' {
			continue
		}
		if unsafeRune(r) {
			t.Errorf("%s: raw %U at byte %d: %q", what, r, i, context(out, i))
			return
		}
	}
}

func context(b []byte, i int) string {
	lo, hi := max(0, i-30), min(len(b), i+30)
	return string(b[lo:hi])
}

func TestRenderInert(t *testing.T) {
	for _, color := range []bool{false, true} {
		human, js := renderBoth(t, hostileBundle(t), color)
		if !color && bytes.Contains(human, []byte{0x1b}) {
			t.Error("ESC in uncoloured output")
		}
		checkInert(t, "human", ourANSI.ReplaceAll(human, nil))
		checkInert(t, "json", js)
		if !json.Valid(js) {
			t.Error("JSON output is not valid JSON")
		}
		for _, frag := range []string{`\x1b[2J`, `\r`, `\u202e`} {
			if !bytes.Contains(human, []byte(frag)) {
				t.Errorf("human output does not show %s escaped", frag)
			}
		}
	}
	// The JSON form still decodes to the bundle's exact strings.
	_, js := renderBoth(t, hostileBundle(t), false)
	var got struct {
		Components struct {
			Tools []struct{ Args []string }
		}
	}
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatal(err)
	}
	if a := got.Components.Tools[0].Args; a[len(a)-1] != hostile {
		t.Errorf("JSON argv is not lossless: %q", a[len(a)-1])
	}
}

// TestRenderWidth: every line fits 80 columns, except lines holding one
// unbreakable value (an argv element, a path, a hash, a schema) and the
// trust command. (Long hostile values may exceed it; they stay inert.)
func TestRenderWidth(t *testing.T) {
	for _, mk := range []func(*testing.T) *bundle.Bundle{goldenBundle} {
		human, _ := renderBoth(t, mk(t), false)
		for _, line := range strings.Split(string(human), "\n") {
			if utf8.RuneCountInString(line) <= 80 {
				continue
			}
			f := strings.Fields(line)
			if len(f) <= 2 || strings.HasPrefix(strings.TrimSpace(line), "bundlectl trust ") {
				continue
			}
			t.Errorf("line of %d columns: %s", utf8.RuneCountInString(line), line)
		}
	}
}

func TestReviewToken(t *testing.T) {
	rv, err := New(goldenBundle(t))
	if err != nil {
		t.Fatal(err)
	}
	if rv.Token == nil || rv.Token.Content != rv.ContentHash || rv.Token.Capability != rv.CapabilityHash {
		t.Fatalf("token %v", rv.Token)
	}
	want := "bundlectl trust example " + rv.ContentHash.String() + "." + rv.CapabilityHash.String()
	if rv.TrustCommand() != want {
		t.Errorf("trust command %q", rv.TrustCommand())
	}
	var human bytes.Buffer
	Render(&human, rv, RenderOptions{})
	if !strings.Contains(human.String(), "\n  "+want+"\n") {
		t.Error("review does not print the exact trust command")
	}

	// A skipped component does not stop trust: the rest of the bundle is
	// what the token covers, and the review says what will not load.
	skipped := goldenBundle(t)
	skipped.Report.Skipf("mcp.json", "mcp.x", "bad")
	if rv, err := New(skipped); err != nil || rv.Token == nil {
		t.Errorf("a bundle with a skipped component: token %v, err %v", rv.Token, err)
	} else {
		var h bytes.Buffer
		Render(&h, rv, RenderOptions{})
		if !strings.Contains(h.String(), "Will not load (1)") || !strings.Contains(h.String(), "bundlectl trust") {
			t.Errorf("review of a bundle with a skipped component:\n%s", h.String())
		}
	}

	refused := map[string]func(b *bundle.Bundle){
		"rejected": func(b *bundle.Bundle) { b.Report.Errorf("plugin.json", "manifest.x", "bad") },
		"blocked":  func(b *bundle.Bundle) { b.Inactive = []bundle.Inactive{{Surface: bundle.SurfaceNative}} },
		"shadowed": func(b *bundle.Bundle) { b.ShadowedBy = "user/000000000000/example" },
		"dir":      func(b *bundle.Bundle) { b.Scope = bundle.ScopeDir },
		"bad name": func(b *bundle.Bundle) { b.Name = "Example; rm -rf ~" },
	}
	for name, edit := range refused {
		b := goldenBundle(t)
		edit(b)
		rv, err := New(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if rv.Token != nil || rv.TrustCommand() != "" || len(rv.Refusals) == 0 {
			t.Errorf("%s: token %v, refusals %v", name, rv.Token, rv.Refusals)
		}
		var h, j bytes.Buffer
		Render(&h, rv, RenderOptions{})
		RenderJSON(&j, rv)
		if strings.Contains(h.String(), "bundlectl trust") || !strings.Contains(h.String(), "cannot be trusted") {
			t.Errorf("%s: human review offers trust or gives no reason:\n%s", name, h.String())
		}
		var out map[string]any
		if err := json.Unmarshal(j.Bytes(), &out); err != nil || out["token"] != nil {
			t.Errorf("%s: JSON token %v (%v)", name, out["token"], err)
		}
	}
}

func TestReviewJSONFields(t *testing.T) {
	_, js := renderBoth(t, goldenBundle(t), false)
	var out map[string]json.RawMessage
	if err := json.Unmarshal(js, &out); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"name", "content_hash", "capability_hash", "token", "components", "inactive", "errors", "warnings"} {
		if _, ok := out[k]; !ok {
			t.Errorf("JSON review lacks %q", k)
		}
	}
	var ws []map[string]string
	json.Unmarshal(out["warnings"], &ws)
	if len(ws) != 1 || ws[0]["path"] == "" || ws[0]["message"] == "" || ws[0]["rule"] == "" {
		t.Errorf("warnings %s", out["warnings"])
	}
}

// TestReviewChangedTree: a tree that changes between the walk and the
// review fails New with ErrChanged rather than producing a token.
func TestReviewChangedTree(t *testing.T) {
	dir := exampleTree(t)
	b := exampleBundle(t, dir)
	write(t, filepath.Join(dir, "README.md"), "# changed, and longer\n")
	if _, err := New(b); !errors.Is(err, bundle.ErrChanged) {
		t.Fatalf("got %v, want ErrChanged", err)
	}
}

// TestHookShellText: the review names the shell each host runs a
// shell-form hook with (harness/hookshell.go, internal/agenttest
// TestHookWhichShell).
func TestHookShellText(t *testing.T) {
	for _, tc := range []struct {
		hosts []string
		want  string
	}{
		{nil, "/bin/sh -c"},
		{[]string{"claude"}, "/bin/sh -c"},
		{[]string{"gemini"}, "bash -c (bash found in PATH)"},
		{[]string{"codex"}, "<your shell> -c (Codex: your login shell if it is bash, zsh or sh, else bash)"},
		{[]string{"claude", "gemini"}, "/bin/sh -c or bash -c (bash found in PATH), as the host that runs it does"},
	} {
		if got := hookShellText(tc.hosts); got != tc.want {
			t.Errorf("hookShellText(%q) = %q, want %q", tc.hosts, got, tc.want)
		}
	}
}
