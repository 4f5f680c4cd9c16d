package gemini

import (
	"maps"
	"os"
	"path/filepath"
	"testing"
)

// TestDotEnvParseLineEnds: dotEnvParse reads a .env as the dotenv
// package Gemini CLI 0.61 uses does (its values here taken from that
// package run under node): JavaScript's multiline ^ and $, and its .,
// take U+2028 and U+2029 for line ends, so a line after a comment and
// one of them sets its variable, while an unquoted or quoted value runs
// over them; and its trim leaves U+0085, so "true\u0085" is not "true"
// (internal/agenttest TestGeminiDotEnvLineEnds: real Gemini CLI stops as
// untrusted for the first two, not for the third or fourth).
func TestDotEnvParseLineEnds(t *testing.T) {
	for _, tc := range []struct {
		text string
		want map[string]string
	}{
		{"# note\u2028GEMINI_RESTRICTED_MODE=true\n", map[string]string{"GEMINI_RESTRICTED_MODE": "true"}},
		{"A=1 # note\u2029GEMINI_RESTRICTED_MODE=true\n", map[string]string{"A": "1", "GEMINI_RESTRICTED_MODE": "true"}},
		{"A=1\u2028GEMINI_RESTRICTED_MODE=true\n", map[string]string{"A": "1\u2028GEMINI_RESTRICTED_MODE=true"}},
		{"GEMINI_RESTRICTED_MODE=true\u0085\n", map[string]string{"GEMINI_RESTRICTED_MODE": "true\u0085"}},
		{"A='x\u2028y'\u2028B=2\n", map[string]string{"A": "x\u2028y", "B": "2"}},
		{"GEMINI_RESTRICTED_MODE\n=true\n", map[string]string{"GEMINI_RESTRICTED_MODE": "true"}},
		{"\u2028\u2029 \n\tK=v\u2029", map[string]string{"K": "v"}},
	} {
		f := filepath.Join(t.TempDir(), ".env")
		if err := os.WriteFile(f, []byte(tc.text), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := dotEnvParse(f); !maps.Equal(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestDotEnvUntrustsLineEnds: setup and list name a GEMINI_RESTRICTED_MODE
// line hidden after a comment and a U+2028 in a rule-trusted folder's
// .env, and not "true\u0085", which Gemini CLI does not take for true.
func TestDotEnvUntrustsLineEnds(t *testing.T) {
	d := newTrustDir(t)
	d.put(t, `{"`+d.ws+`": "TRUST_FOLDER"}`, "")
	env := []string{d.sys, "GEMINI_CLI_HOME=" + filepath.Dir(d.user)}
	for text, named := range map[string]bool{
		"# note\u2028GEMINI_RESTRICTED_MODE=true\n": true,
		"GEMINI_RESTRICTED_MODE=true\u0085\n":       false,
	} {
		if err := os.WriteFile(filepath.Join(d.ws, ".env"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if off := dotEnvUntrustOff(d.user, env, d.ws); (off != nil) != named {
			t.Errorf("%q: dotEnvUntrustOff = %v, want named: %v", text, off, named)
		}
	}
}
