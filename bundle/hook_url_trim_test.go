package bundle

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestHookURLClaudeTrim: an http hook's url with a leading or trailing
// space, a tab or line break anywhere, a leading C0 control or a white
// space JavaScript's trim takes off (U+00A0, U+FEFF, U+3000, U+1680,
// U+2000–U+200A, U+202F, U+205F, U+2028, U+2029, form feed) is read as
// Claude Code 2.1.332 reads it — trimmed (ClaudeURLTrim), then as
// JavaScript's URL starts on it — to the host testdata/jsurl/
// claude_trim.json records it posting to (internal/agenttest
// TestClaudeHTTPHookURLTrim holds the real CLI to the same file). A guard
// so written is kept, its host listed and checked, and hooks run posts
// there (JSURLRequestTarget), where Go's parser, judging the url whole,
// refused the bundle ("is not a valid URL"). A form Claude Code refuses
// ("\u0001\u00a0https://…": its trim stops at the control; U+180E,
// U+0085 and U+200B, which are no white space to it) is dropped by the
// hooks schema, as Claude Code drops it. A url holding a control
// character (a tab, a line break, U+0001) is read the same way, but the
// bundle is refused for it whatever it names (text.control).
func TestHookURLClaudeTrim(t *testing.T) {
	for _, v := range jsURLVectors(t, "claude_trim.json") {
		url, want := v[0], v[1]
		raw, _ := json.Marshal(bashHTTPGuard(url))
		b := writeTree(t, "p", map[string]string{ManifestClaude: `{"name": "p"}`, "hooks/hooks.json": string(raw)})
		if want == "refused" {
			if !claudeURLRefuses(url) || !hasRule(b, "hook.schema") && !hasRule(b, "hook.url") {
				t.Errorf("%q: Claude Code refuses it, but the model reads it%s", url, dumpFindings(b))
			}
			continue
		}
		if h, msg := hookURLHost(url); h != want || msg != "" {
			t.Errorf("hookURLHost(%q) = %q, %q; Claude Code posts to %s", url, h, msg, want)
		}
		if origin, _, _, ok := JSURLRequestTarget(url); !ok || origin != "https://"+want {
			t.Errorf("JSURLRequestTarget(%q) origin %q, %v; Claude Code posts to https://%s", url, origin, ok, want)
		}
		if strings.ContainsFunc(url, isControlText) {
			// A control character refuses the bundle whatever host it
			// names (text.control): no terminal shows it as it is.
			if !hasRule(b, "text.control") {
				t.Errorf("%q: no text.control refusal%s", url, dumpFindings(b))
			}
			continue
		}
		for _, f := range b.Report.Findings {
			if f.Severity != Warning {
				t.Errorf("%q: %s %s: %s", url, f.Path, f.Rule, f.Message)
			}
		}
		if len(b.Components.Hooks) != 1 || !slices.Equal(b.Permissions.NetworkHosts, []string{want}) {
			t.Errorf("%q: hooks %d, network hosts %v, want the guard kept and %s listed", url, len(b.Components.Hooks), b.Permissions.NetworkHosts, want)
		}
		if posted := JSURLPostURL(url); strings.ContainsAny(posted, " \t\n\r\u00a0\ufeff\u3000\u0001") {
			t.Errorf("JSURLPostURL(%q) = %q keeps what Claude Code trims", url, posted)
		}
	}
}

// isControlText reports whether r is a character checkText refuses as a
// control (text.control): a C0 or C1 control, U+2028 or U+2029.
func isControlText(r rune) bool { return unicode.IsControl(r) || r == 0x2028 || r == 0x2029 }

// hasRule reports whether b's report has a finding of rule.
func hasRule(b *Bundle, rule string) bool {
	return slices.ContainsFunc(b.Report.Findings, func(f Finding) bool { return f.Rule == rule })
}

// TestHookURLHostJSOnlyChars: a guard's url whose host holds '{', '}' or
// '`', which JavaScript's URL takes and real Claude Code 2.1.332 posts
// to ("CONNECT a{b.example:443" through a proxy), still refuses the
// bundle, and the message says which character, that Claude Code posts
// to it, and what to write, where it said only "is not a valid URL".
func TestHookURLHostJSOnlyChars(t *testing.T) {
	for _, c := range []struct{ url, char string }{
		{"https://a{b.example/i", `"{"`},
		{"https://a`b.example/j", "\"`\""},
		{"https://a}b.example:8443/k", `"}"`},
	} {
		raw, _ := json.Marshal(bashHTTPGuard(c.url))
		b := writeTree(t, "p", map[string]string{ManifestClaude: `{"name": "p"}`, "hooks/hooks.json": string(raw)})
		found := false
		for _, f := range b.Report.Findings {
			found = found || f.Severity == Error && f.Rule == "hook.url" && strings.Contains(f.Message, "holds "+c.char) &&
				strings.Contains(f.Message, "Claude Code posts to it as written") && strings.Contains(f.Message, "write the host as a DNS name")
		}
		if !found {
			t.Errorf("%s: no hook.url refusal naming %s and what to write:%s", c.url, c.char, dumpFindings(b))
		}
	}
}
