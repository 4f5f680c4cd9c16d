package bundle

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestHookURLHostReadsPathAsJS: an http guard whose path or query holds
// bytes Go's url parser refuses ("%zz", a lone '%') but JavaScript's URL
// takes is kept with its host listed, as Claude Code 2.1.332 posts it
// (internal/agenttest TestClaudeHTTPGuardPathGoRefuses); the url rules
// read its host only. Before, the rules read the whole url with Go's
// parser and refused the bundle ("is not a valid URL"). What is wrong
// with the authority is still found, the path notwithstanding.
func TestHookURLHostReadsPathAsJS(t *testing.T) {
	for _, c := range []struct {
		url, host, rule string
	}{
		{"https://h.example/a%zz", "h.example", ""},
		{"https://h.example/a%", "h.example", ""},
		{`https://h.example/a"b%zz?q=%`, "h.example", ""},
		{"https://h.example:443//x|y%", "h.example", ""},
		{"https://h.example/%zz/${X}", "h.example", ""},
		{"https://u@h.example/%zz", "", "hook.url"},
		{"https://h.example/%zz#f", "", "hook.url"},
		{"http://h.example/%zz", "", "hook.url"},
	} {
		raw, _ := json.Marshal(bashHTTPGuard(c.url))
		b := writeTree(t, "p", map[string]string{ManifestClaude: `{"name": "p"}`, "hooks/hooks.json": string(raw)})
		var rules []string
		for _, f := range b.Report.Findings {
			if f.Severity != Warning {
				rules = append(rules, f.Rule)
			}
		}
		if c.rule == "" {
			if len(rules) > 0 || len(b.Components.Hooks) != 1 || !slices.Equal(b.Permissions.NetworkHosts, []string{c.host}) {
				t.Errorf("%s: hooks %d, network hosts %v, want the guard kept and %s listed:%s", c.url, len(b.Components.Hooks), b.Permissions.NetworkHosts, c.host, dumpFindings(b))
			}
			continue
		}
		if !slices.Contains(rules, c.rule) {
			t.Errorf("%s: no %s refusal:%s", c.url, c.rule, dumpFindings(b))
		}
	}
}

// bashHTTPGuard is a Claude Code hooks file whose one hook is an http
// PreToolUse guard of Bash posting to url.
func bashHTTPGuard(url string) map[string]any {
	return map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "http", "url": url}}}}}}
}
