package bundle

import (
	"strings"
	"testing"
)

// TestClaudeOptionDeclarations: a userConfig declaration Claude Code
// refuses (its schema is strict; `claude plugin validate` and a session
// both refuse the plugin, internal/agenttest TestClaudeOptionDeclaration)
// is an option.declaration error naming the field; one it accepts is
// read with its bounds.
func TestClaudeOptionDeclarations(t *testing.T) {
	for _, c := range []struct {
		name, decl, field string // field "" when Claude Code accepts it
	}{
		{"unknown-field", `"level": {"type": "number", "title": "L", "description": "d", "placeholder": "3"}`, "userConfig.level.placeholder"},
		{"no-title", `"level": {"type": "number", "description": "d"}`, "userConfig.level"},
		{"no-type", `"level": {"title": "L", "description": "d"}`, "userConfig.level"},
		{"bad-type", `"level": {"type": "integer", "title": "L", "description": "d"}`, "userConfig.level.type"},
		{"bad-key", `"1level": {"type": "number", "title": "L", "description": "d"}`, "userConfig.1level"},
		{"null-default", `"level": {"type": "number", "title": "L", "description": "d", "default": null}`, "userConfig.level.default"},
		{"object-default", `"level": {"type": "string", "title": "L", "description": "d", "default": {"a": 1}}`, "userConfig.level.default"},
		{"min-string", `"level": {"type": "number", "title": "L", "description": "d", "min": "1"}`, "userConfig.level.min"},
		{"multiple-string", `"level": {"type": "string", "title": "L", "description": "d", "multiple": "yes"}`, "userConfig.level.multiple"},
		{"options-no-default", `"mode": {"type": "string", "title": "M", "description": "d", "options": ["a", "b"]}`, "userConfig.mode"},
		{"options-repeat", `"mode": {"type": "string", "title": "M", "description": "d", "options": ["a", "A"], "default": "a"}`, "userConfig.mode.options"},
		{"options-number", `"mode": {"type": "number", "title": "M", "description": "d", "options": ["1"], "default": "1"}`, "userConfig.mode.options"},
		{"options-default-outside", `"mode": {"type": "string", "title": "M", "description": "d", "options": ["a"], "default": "b"}`, "userConfig.mode.default"},
		{"empty-title", `"level": {"type": "number", "title": "", "description": ""}`, ""},
		{"min-on-string", `"level": {"type": "string", "title": "L", "description": "d", "min": 1}`, ""},
		{"array-default", `"level": {"type": "string", "title": "L", "description": "d", "default": ["x"]}`, ""},
		{"options-required", `"mode": {"type": "string", "title": "M", "description": "d", "options": ["a"], "required": true}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := writeTree(t, "p", map[string]string{".claude-plugin/plugin.json": `{"name": "p", "version": "1.0.0", "userConfig": {` + c.decl + `}}`})
			var got []Finding
			for _, f := range b.Report.Findings {
				if f.Rule == "option.declaration" {
					got = append(got, f)
				}
			}
			if c.field == "" {
				if len(got) > 0 || b.Rejected() {
					t.Fatalf("Claude Code accepts it, bundlectl reports %v", b.Report.Findings)
				}
				return
			}
			want := ManifestClaude + ": " + c.field
			if len(got) != 1 || got[0].Path != want || got[0].Severity != Error || !strings.Contains(got[0].Message, "Claude Code refuses to load the plugin (Codex ignores userConfig") || !b.Rejected() {
				t.Fatalf("want one option.declaration error at %q, got %v", want, b.Report.Findings)
			}
		})
	}
}

func TestClaudeOptionBoundsRead(t *testing.T) {
	b := writeTree(t, "p", map[string]string{".claude-plugin/plugin.json": `{"name": "p", "version": "1.0.0", "userConfig": {
		"level": {"type": "number", "title": "L", "description": "d", "min": -1.5, "max": 5},
		"mode": {"type": "string", "title": "M", "description": "d", "options": ["a", "b"], "default": "b"},
		"tags": {"type": "string", "title": "T", "description": "d", "multiple": true}}}`})
	if b.Rejected() || len(b.UserConfig) != 3 {
		t.Fatalf("%v %v", b.Report.Findings, b.UserConfig)
	}
	l, m, tg := b.UserConfig[0], b.UserConfig[1], b.UserConfig[2]
	if l.Min == nil || *l.Min != -1.5 || l.Max == nil || *l.Max != 5 {
		t.Errorf("level bounds %v %v", l.Min, l.Max)
	}
	if strings.Join(m.Choices, ",") != "a,b" || !tg.Multiple {
		t.Errorf("mode %v, tags multiple %v", m.Choices, tg.Multiple)
	}
}

// TestGeminiSensitiveNotBoolean: Gemini CLI 0.61 checks no type for a
// setting's "sensitive" (`if (setting.sensitive)`): 0 reads as not
// sensitive, "yes" as sensitive. bundlectl keeps each secret and says how
// Gemini CLI reads it.
func TestGeminiSensitiveNotBoolean(t *testing.T) {
	for _, v := range []string{`0`, `"yes"`, `null`} {
		b := writeTree(t, "gx", map[string]string{"gemini-extension.json": `{"name": "gx", "version": "1.0.0", "settings": [{"name": "Key", "description": "d", "envVar": "GX_KEY", "sensitive": ` + v + `}]}`})
		if len(b.UserConfig) != 1 || !b.UserConfig[0].Sensitive || b.Rejected() {
			t.Fatalf("sensitive %s: options %+v\n%s", v, b.UserConfig, dumpFindings(b))
		}
		var msg string
		for _, f := range b.Report.Findings {
			if f.Path == "gemini-extension.json: settings[0].sensitive" {
				msg = f.Message
			}
		}
		if !strings.Contains(msg, "Gemini CLI reads it as JavaScript truthiness") {
			t.Errorf("sensitive %s: the warning is %q\n%s", v, msg, dumpFindings(b))
		}
	}
}
