package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExecClaudeExclusiveCarriedUnmodelledDrop: exec --exclusive carries
// the user's own --settings into the one it gives Claude Code, beside the
// enabledPlugins entries that turn the user's plugins off. A value there
// for which Claude Code 2.1.332 drops the file took those entries down
// with it, and a plugin the user's settings turn on loaded in the
// exclusive session: a PreToolUse hook's "shell": "fish" or an http
// hook's "url": "x" (which the schema model now knows drop the file, so
// exec leaves that --settings out) and an http hook's
// "url": "http://xn--a-/x" (a Punycode label Bun's URL refuses, which
// the model leaves to IDNA and cannot tell from a URL Claude Code takes,
// so exec refuses to start), and one behind "\u0001\u00a0" (JavaScript's
// trim stops at the control, the URL parser then at the no-break space:
// the model took both off and vouched for it, so exec carried it). A
// settings marketplace listing a plugin of a kind Claude Code does not
// know, which drops the file, the model now knows: exec leaves it out;
// one listing a plugin of a known kind Claude Code reads, and exec
// carries it (both once refused, as any source listing plugins); one of
// another kind whose own fields fail (a github repo that is no string)
// listing such a plugin drops the file, which the model cannot tell:
// exec refuses it. An http url with percent-escapes and characters
// beyond ASCII outside its host Claude Code reads, and exec now carries
// it (it refused any url holding either); one with a percent-escape in
// its host, which the parser decodes, exec still refuses, but for a
// scheme that is not special, whose host the parser keeps opaque (no
// IDNA), it carries it, and a Punycode label or a character beyond ASCII
// there too (each once refused). Beside an extraKnownMarketplaces that
// is not null Claude Code ignores additionalMarketplaces: exec carries
// what it lists (once refused), and refuses it beside a null.
func TestExecClaudeExclusiveCarriedUnmodelledDrop(t *testing.T) {
	t.Parallel()
	hook := func(h map[string]any) map[string]any {
		return map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"hooks": []any{h}}}}}
	}
	// marketplace lists one plugin, its source pluginSource, in a
	// marketplace source of the kind: "settings" (named as its key), or
	// "github" with a repo that is no string.
	marketplace := func(kind string, pluginSource map[string]any) map[string]any {
		source := map[string]any{"source": kind, "plugins": []any{map[string]any{"name": "p", "source": pluginSource}}}
		if kind == "settings" {
			source["name"] = "m"
		} else {
			source["repo"] = 5
		}
		return map[string]any{"extraKnownMarketplaces": map[string]any{"m": map[string]any{"source": source}}}
	}
	// alias lists, under additionalMarketplaces beside an
	// extraKnownMarketplaces of extra, what marketplace("github", …)
	// lists: a source Claude Code drops the file for where it reads it.
	alias := func(extra any) map[string]any {
		m := marketplace("github", map[string]any{"source": "bogus"})
		return map[string]any{"extraKnownMarketplaces": extra, "additionalMarketplaces": m["extraKnownMarketplaces"]}
	}
	for _, c := range []struct {
		name    string
		flag    map[string]any
		refused bool
	}{
		{"shell fish", hook(map[string]any{"type": "command", "command": "true", "shell": "fish"}), false},
		{"http url x", hook(map[string]any{"type": "http", "url": "x"}), false},
		{"http url with a Punycode label Bun refuses", hook(map[string]any{"type": "http", "url": "http://xn--a-/x"}), true},
		{"http url behind a control and a no-break space", hook(map[string]any{"type": "http", "url": "\u0001\u00a0http://127.0.0.1:1/x"}), false},
		{"http url with percent-escapes and characters beyond ASCII outside its host", hook(map[string]any{"type": "http", "url": "http://é%zz@127.0.0.1:1/%zz/é?q=%ff&é#%é"}), false},
		{"http url with a percent-escape in its host", hook(map[string]any{"type": "http", "url": "http://%31%32%37.0.0.1:1/x"}), true},
		{"settings marketplace listing a plugin of an unknown kind", marketplace("settings", map[string]any{"source": "bogus"}), false},
		{"settings marketplace listing a plugin of a known kind", marketplace("settings", map[string]any{"source": "github", "repo": "o/r"}), false},
		{"github marketplace whose repo is no string listing a plugin of an unknown kind", marketplace("github", map[string]any{"source": "bogus"}), true},
		{"http url of a scheme not special with a host beyond ASCII", hook(map[string]any{"type": "http", "url": "a://é/x"}), false},
		{"http url of a scheme not special with a Punycode label", hook(map[string]any{"type": "http", "url": "a://xn--a-/x"}), false},
		{"http url of a scheme not special with a percent-escape in its host", hook(map[string]any{"type": "http", "url": "A://%zz.é:1/x"}), false},
		{"marketplace alias beside extraKnownMarketplaces", alias(map[string]any{}), false},
		{"marketplace alias beside a null extraKnownMarketplaces", alias(nil), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), markerName)
			a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
			f := newTrustedFixture(t, a, marker)
			r := &ownClaudeRun{a: a, f: f, rec: t.TempDir()}
			installOwnClaudePlugin(t, a, r.rec)
			a.Settings["enabledPlugins"] = map[string]any{ownClaudeID: true}
			b, err := json.Marshal(c.flag)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(a.Workdir, "flag.json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			a.Args = []string{"--allowedTools", "Bash", "--settings", "flag.json"}
			a.Launcher = f.launcher(t)
			a.Launcher = append(a.Launcher[:len(a.Launcher)-1], "--exclusive", "--")
			r.res = a.Run(t, "make the marker")
			if r.ownRan() || r.ownSkillOffered() {
				t.Fatalf("the own plugin loaded under --exclusive (hook ran %v, skill offered %v)\n%s", r.ownRan(), r.ownSkillOffered(), r.res)
			}
			if c.refused {
				if r.res.Exit == 0 || !strings.Contains(r.res.Stderr, "cannot keep your own plugins out") || !strings.Contains(r.res.Stderr, " exec -- ") {
					t.Errorf("exec --exclusive did not refuse\n%s", r.res)
				}
				return
			}
			if r.res.Exit != 0 {
				t.Fatalf("exec --exclusive did not start Claude Code\n%s", r.res)
			}
			r.f.checkGuard(t, r.a, r.res, 0)
			r.f.checkLeftovers(t, r.a)
		})
	}
}
