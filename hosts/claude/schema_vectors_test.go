package claude

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestSchemaVectors: schemaDrop takes each value of
// testdata/schema_vectors.txt as the file says bundlectl does, and never
// for dropped where Claude Code 2.1.332 reads the file (internal/agenttest
// TestClaudeSettingsSchemaVectors holds the first column to the real
// CLI): such a claim would count a true there for nothing, and exec would
// start a session whose guards it keeps off. bundlectl once took every
// value of the right JSON type for read: a "permissions": {"defaultMode":
// "bogus"} dropped setup's lines without a word.
func TestSchemaVectors(t *testing.T) {
	for _, v := range readSchemaVectors(t, "testdata/schema_vectors.txt") {
		if v.Claude == "reads" && v.Bundlectl == "drops" {
			t.Errorf("%s: the file claims a drop Claude Code does not make", v.Setting)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(v.Settings()), &m); err != nil {
			t.Fatalf("%s: %v", v.Setting, err)
		}
		d := schemaDrop(m)
		if got := map[bool]string{true: "drops", false: "reads"}[d != nil]; got != v.Bundlectl {
			t.Errorf("%s: schemaDrop %s (%v), want %s", v.Setting, got, d, v.Bundlectl)
		}
	}
}

// schemaVector is a line of testdata/schema_vectors.txt.
type schemaVector struct {
	Claude, Bundlectl, Setting string
}

// Settings is the settings file the vector is tried in.
func (v schemaVector) Settings() string {
	return fmt.Sprintf(`{"disableAllHooks": true, %s}`, v.Setting)
}

// readSchemaVectors reads a vector file: lines of "drops" or "reads"
// twice and a setting, "#" lines aside.
func readSchemaVectors(t testing.TB, path string) []schemaVector {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []schemaVector
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		w := strings.Fields(line)
		if len(w) < 3 || !isVerdict(w[0]) || !isVerdict(w[1]) {
			t.Fatalf("%s: %q: want drops|reads drops|reads setting", path, line)
		}
		setting := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(line, w[0])), w[1]))
		out = append(out, schemaVector{Claude: w[0], Bundlectl: w[1], Setting: setting})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func isVerdict(w string) bool { return w == "drops" || w == "reads" }

// TestSchemaDropSays: a drop names the value as written down to the one
// that fails, where it lies and what the schema wants there; a missing
// field is named on the object that lacks it.
func TestSchemaDropSays(t *testing.T) {
	for _, c := range []struct{ settings, setting, where, want string }{
		{`{"permissions": {"defaultMode": "bogus"}}`, `"permissions": {"defaultMode": "bogus"}`, "permissions.defaultMode", `one of "acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "manual", "plan"`},
		{`{"statusLine": {"command": "x"}}`, `"statusLine": {"command":"x"}`, "statusLine", `a "type" field`},
		{`{"hooks": {"PreToolUse": [{"hooks": []}, {"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]}}`, `"hooks": {"PreToolUse": […, {"hooks": [{"timeout": 0}]}]}`, "hooks.PreToolUse[1].hooks[0].timeout", "a number above 0"},
		{`{"model": null}`, `"model": null`, "model", "a string"},
		{`{"enabledPlugins": {"a@m": "yes"}}`, `"enabledPlugins": {"a@m": "yes"}`, "enabledPlugins.a@m", "true, false or an array of strings"},
		{`{"hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": "/hook"}]}]}}`, `"hooks": {"PreToolUse": [{"hooks": [{"url": "/hook"}]}]}`, "hooks.PreToolUse[0].hooks[0].url", urlWant},
		{`{"extraKnownMarketplaces": {"m": {"source": {"source": "settings", "name": "m", "plugins": [5, {"name": "p", "source": {"source": "bogus"}}]}}}}`, `"extraKnownMarketplaces": {"m": {"source": {"plugins": […, {"source": {"source": "bogus"}}]}}}`, "extraKnownMarketplaces.m.source.plugins[1].source.source", `one of "archive", "command", "git-subdir", "github", "npm", "url"`},
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(c.settings), &m); err != nil {
			t.Fatal(err)
		}
		d := schemaDrop(m)
		if d == nil || d.setting() != c.setting || d.where() != c.where || string(d.want) != c.want {
			t.Errorf("%s: %+v, want %s at %s, wanting %s", c.settings, d, c.setting, c.where, c.want)
		}
	}
}

// TestUnvouched: of a settings file schemaDrop reads, unvouched names a
// value Claude Code 2.1.332 may still drop it for that the model cannot
// tell: an http url whose host is left to IDNA (a Punycode label, which
// Bun refuses in "http://xn--a-/x"; a character beyond ASCII; a
// percent-escape, which the parser decodes there), or that the model
// does not split (file:), a
// hook field the model does not know, a plugin of a kind Claude Code
// does not know listed by a marketplace source of a known kind but
// "settings" (whose other fields decide whether Claude Code drops the
// file); and nothing in a plain http url, a modelled field, a
// marketplace of a known kind, or one listing plugins of known kinds
// only, which exec --exclusive once refused to carry all the same.
func TestUnvouched(t *testing.T) {
	hook := func(h string) string { return `{"hooks": {"PreToolUse": [{"hooks": [` + h + `]}]}}` }
	for _, c := range []struct{ settings, want string }{
		{hook(`{"type": "http", "url": "http://127.0.0.1:8080/hook", "timeout": 5, "headers": {"a": "b"}}`), ""},
		{hook(`{"type": "http", "url": "http://xn--a-/x"}`), "hooks.PreToolUse[0].hooks[0].url"},
		{hook(`{"type": "http", "url": "http://é.example/x"}`), "hooks.PreToolUse[0].hooks[0].url"},
		{hook(`{"type": "http", "url": "http://%41.example/x"}`), "hooks.PreToolUse[0].hooks[0].url"},
		{hook(`{"type": "http", "url": "http://127.0.0.1:1/%zz/é?q=%ff&é#%é"}`), ""},
		{hook(`{"type": "http", "url": "http://é%zz@127.0.0.1:1/x"}`), ""},
		{hook(`{"type": "http", "url": "HTTP:\\\\127.0.0.1:1\\é"}`), ""},
		{hook(`{"type": "http", "url": "http://127.0.0.1:1/xn--a-"}`), ""},
		{hook(`{"type": "http", "url": "a:é%zz"}`), ""},
		{hook(`{"type": "http", "url": "http:é.example/x"}`), "hooks.PreToolUse[0].hooks[0].url"},
		{hook(`{"type": "http", "url": "http://u@é.example/x"}`), "hooks.PreToolUse[0].hooks[0].url"},
		{hook(`{"type": "http", "url": "http://XN--a-.example:1/x"}`), "hooks.PreToolUse[0].hooks[0].url"},
		{hook(`{"type": "http", "url": "a://é/x"}`), ""},
		{hook(`{"type": "http", "url": "a://xn--a-/x"}`), ""},
		{hook(`{"type": "http", "url": "A://%zz.é:1/x"}`), ""},
		{hook(`{"type": "http", "url": "a://h/é"}`), ""},
		{hook(`{"type": "http", "url": "file:///é"}`), "hooks.PreToolUse[0].hooks[0].url"},
		{hook(`{"type": "http", "url": "http://a.\tb%41:1/x"}`), "hooks.PreToolUse[0].hooks[0].url"},
		{hook(`{"type": "http", "url": "http://a.\tb:1/%41"}`), ""},
		// Each read by Claude Code 2.1.332 (testdata/schema_vectors.txt):
		// a lone surrogate, which encoding/json makes U+FFFD; "xn--"
		// outside the host; an '@' past a backslash, '?' or '#'.
		{hook(`{"type": "http", "url": "http://\ud800@127.0.0.1:1/\ud800?\udc00#\ud800"}`), ""},
		{hook(`{"type": "http", "url": "http://xn--a-@127.0.0.1:1/xn--a-?xn--a-#xn--a-"}`), ""},
		{hook(`{"type": "http", "url": "http://u\\@xn--a-/x"}`), ""},
		{hook(`{"type": "http", "url": "http://127.0.0.1:1#@é.x/"}`), ""},
		{hook(`{"type": "http", "url": "http://127.0.0.1:1?@é.x/"}`), ""},
		{hook(`{"type": "http", "url": "a://u\\é@h/x"}`), ""},
		{hook(`{"type": "http", "url": "http://a\u00a0\u0001"}`), "hooks.PreToolUse[0].hooks[0].url"},
		{hook(`{"type": "http", "url": "\u00a0http://127.0.0.1:1/x\u00a0"}`), ""},
		{hook(`{"type": "command", "command": "x", "statusMessage": "s", "once": true}`), ""},
		{hook(`{"type": "command", "command": "x", "notAField": 5}`), "hooks.PreToolUse[0].hooks[0].notAField"},
		{`{"extraKnownMarketplaces": {"m": {"source": {"source": "github", "repo": "o/r"}}}}`, ""},
		{`{"extraKnownMarketplaces": {"m": {"source": {"source": "settings", "name": "m", "plugins": []}}}}`, ""},
		{`{"extraKnownMarketplaces": {"m": {"source": {"source": "settings", "name": "m", "plugins": [{"name": "p", "source": {"source": "github", "repo": "o/r"}}, {"name": "q", "source": "./q"}, {"name": "r", "source": {"source": 5}}]}}}}`, ""},
		{`{"extraKnownMarketplaces": {"m": {"source": {"source": "github", "repo": "o/r", "plugins": [{"name": "p", "source": {"source": "bogus"}}]}}}}`, "extraKnownMarketplaces.m.source.plugins[0].source.source"},
		{`{"additionalMarketplaces": {"m": {"source": {"source": "directory", "path": "/x", "plugins": [5, {"name": "p", "source": {"source": "Github"}}]}}}}`, "additionalMarketplaces.m.source.plugins[1].source.source"},
		// Beside an extraKnownMarketplaces that is not null Claude Code
		// ignores the alias (testdata/schema_vectors.txt): nothing there
		// needs vouching for.
		{`{"extraKnownMarketplaces": {}, "additionalMarketplaces": {"m": {"source": {"source": "github", "repo": 5, "plugins": [{"name": "p", "source": {"source": "bogus"}}]}}}}`, ""},
		{`{"extraKnownMarketplaces": {"a": {"source": {"source": "github", "repo": "o/r"}}}, "additionalMarketplaces": {"m": {"source": {"source": "github", "repo": 5, "plugins": [{"name": "p", "source": {"source": "bogus"}}]}}}}`, ""},
		{`{"extraKnownMarketplaces": null, "additionalMarketplaces": {"m": {"source": {"source": "github", "repo": 5, "plugins": [{"name": "p", "source": {"source": "bogus"}}]}}}}`, "additionalMarketplaces.m.source.plugins[0].source.source"},
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(c.settings), &m); err != nil {
			t.Fatal(err)
		}
		if d := schemaDrop(m); d != nil {
			t.Fatalf("%s: schemaDrop %v, want read", c.settings, d)
		}
		if got := unvouched(m); got != c.want {
			t.Errorf("%s: unvouched %q, want %q", c.settings, got, c.want)
		}
	}
}

// TestURLHost: the host is found where the WHATWG URL parser finds it:
// past slashes and backslashes after a special scheme's colon, up to a
// slash, backslash, '?' or '#' (for another scheme a backslash is in the
// host, and only "//" opens one), after the last '@', before a ':'
// outside brackets; tabs and line breaks out first. No scheme, or file:,
// is not split.
func TestURLHost(t *testing.T) {
	for _, c := range []struct {
		url, host string
		ok        bool
	}{
		{"http://u:p@h.example:80/x", "h.example", true},
		{"HTTP:\\\\/h\\é", "h", true},
		{"http:h?é", "h", true},
		{"http://a@b@h#é", "h", true},
		{"http://[::1]:1/x", "[::1]", true},
		{"h\tttp://h\né/x", "hé", true},
		{"a://h\\é/x", "h\\é", true},
		{"a:é//h", "", true},
		{"a+b.c-d://h/x", "h", true},
		{"1a://h/x", "", false},
		{"//h/x", "", false},
		{"file://é/x", "", false},
	} {
		if host, ok := urlHost(c.url); host != c.host || ok != c.ok {
			t.Errorf("urlHost(%q) = %q, %v, want %q, %v", c.url, host, ok, c.host, c.ok)
		}
	}
}
