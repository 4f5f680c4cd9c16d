package agenttest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestClaudeHTTPURLSchema: Claude Code 2.1.332's hooks schema takes an
// http hook's url only as a string JavaScript's URL parses. One it does
// not parse fails the schema as a missing url does: on PreToolUse Claude
// Code loads nothing of the plugin (no hook, no skill; the tool runs), on
// PostToolUse it drops that hook alone. Such urls: "foo" (no scheme),
// "http://" (no host), blank, a zoned IPv6 literal
// "https://[fe80::1%25eth0]/" (WHATWG's IPv6 parser takes no zone, though
// Go's url.Parse does), and hosts WHATWG's host parser refuses, as node 20
// does, while Go's url.Parse takes them: "https://bc3e.9/" and
// "https://a.0x/" (the last label is a number, so the host must be an IPv4
// address, and is not), "https://c%/" (a '%' that encodes nothing) and
// "https://a%2Fb/" (a '/' once decoded). "https://a.0x1g/", whose last
// label is no number, parses. bundlectl's review shows for Claude Code
// exactly what it ran: it read such a url as one Claude Code would post
// the event to, so it showed the plugin's hooks and skill for Claude Code
// on PreToolUse, and kept the hook on PostToolUse, saying skipping it
// would let the event through unguarded. A url JavaScript parses but
// Claude Code cannot post to ("ftp://x") passes the schema: the plugin
// loads and the hook fails (TestClaudeHTTPHookAnswers: bundlectl shows it
// with a hook.url warning and runs it the same way).
func TestClaudeHTTPURLSchema(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		url    string
		schema bool
	}{{"foo", true}, {"http://", true}, {"  ", true}, {"https://[fe80::1%25eth0]/", true}, {"https://bc3e.9/", true}, {"https://c%/", true}, {"https://a.0x/", true}, {"https://a%2Fb/", true}, {"https://a.0x1g/", false}, {"ftp://x", false}} {
		for _, ev := range []string{"PreToolUse", "PostToolUse"} {
			t.Run(strings.TrimSpace(c.url)+"/"+ev, func(t *testing.T) {
				t.Parallel()
				rec := t.TempDir()
				dir := filepath.Join(t.TempDir(), "hu")
				hook := func(n string) map[string]any {
					return map[string]any{"type": "command", "command": "echo ran > " + filepath.Join(rec, n)}
				}
				writeJSONFile(t, dir, ".claude-plugin/plugin.json", map[string]any{"name": "hu", "version": "1.0.0"})
				hooks := map[string]any{
					"PreToolUse":  []any{map[string]any{"matcher": "Bash", "hooks": []any{hook("pre")}}},
					"PostToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{hook("post")}}},
				}
				other := map[string]string{"PreToolUse": "post", "PostToolUse": "pre"}[ev]
				hooks[ev] = []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "http", "url": c.url}, hook("ingroup")}}}
				writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": hooks})
				got, res := runSkillThenBash(t, dir, "hu", rec)
				want := []string{"ingroup", other, "tool-ran", "SKILL"}
				if c.schema && ev == "PreToolUse" {
					want = []string{"tool-ran"}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("Claude Code ran %q, want %q (found by trying Claude Code 2.1.332)\n%s", got, want, res)
				}
				if !c.schema {
					return
				}
				review, out := reviewDir(t, dir)
				if shown := review.shownForClaude(); ev == "PreToolUse" && shown != 0 {
					t.Errorf("the review shows %d hooks and skills for Claude Code, which loads nothing of the plugin\n%s", shown, out)
				}
				// The manifest makes the bundle a Codex plugin too: Claude
				// Code's refusal of the plugin is a hook.schema warning.
				// (The Codex copy of the hook, which bundlectl exec would
				// post for Codex, still refuses the bundle by its url.)
				says := "is not a URL (JavaScript's URL does not parse it), so Claude Code's hooks schema drops this hook"
				switch {
				case ev == "PreToolUse" && strings.TrimSpace(c.url) == "":
					says = "this http hook has no url string: for a PreToolUse hook that fails its hooks schema Claude Code refuses to load the whole plugin"
				case ev == "PreToolUse":
					says = "is not a URL (JavaScript's URL does not parse it): for a PreToolUse hook that fails its hooks schema Claude Code refuses to load the whole plugin"
				}
				if !strings.Contains(out, says) {
					t.Errorf("the review does not say %q\n%s", says, out)
				}
			})
		}
	}
}
