package gemini

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
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

// TestDotEnvParseQuotes: dotenv (17.1.0, in Gemini CLI 0.61) takes the
// quotes off each line of a value that begins and ends with one (its
// multiline replace), and in a value that began with a double quote
// makes \n and \r written out the characters; its values here taken from
// that package's parse run under node. A value that spans lines keeps
// its line end, so it is never "true".
func TestDotEnvParseQuotes(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"K=\"a\n\"true\"\nb\"\n", "\"a"},
		{"K='x\n'true'\n'\n", "'x"},
		{"K=x\u2028\"true\"\n", "x\u2028true"},
		{"K=\"true\"\u2028\"true\"\n", "true"},
		{"K=\"tr\\nue\"\n", "tr\nue"},
		{"K=\"a\\rb\"\n", "a\rb"},
		{"K='tr\\nue'\n", "tr\\nue"},
		{"K=`a\n`b`\n`\n", "`a"},
		{"K=\"\ntrue\n\"\n", "\ntrue\n"},
		{"K=a\u2029'b'\u2029c\n", "a\u2029b\u2029c"},
		{"K=\"a\nb\"\n", "a\nb"},
		{"K='\"true\"'\n", "\"true\""},
		{"K=\"'\n", "\"'"},
		{"K='\n", "'"},
	} {
		f := filepath.Join(t.TempDir(), ".env")
		if err := os.WriteFile(f, []byte(tc.text), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := dotEnvParse(f)["K"]; got != tc.want {
			t.Errorf("%q: %q, want %q", tc.text, got, tc.want)
		}
	}
}

// FuzzDotEnvValue: no value makes the reader panic, and a line end in a
// value is never taken out, so a value that spans lines is never "true".
func FuzzDotEnvValue(f *testing.F) {
	for _, s := range []string{"\"a\n\"true\"\nb\"", "x\u2028\"true\"", "a\u2029'b'\u2029c", "\"tr\\nue\"", "'", "``"} {
		f.Add(s)
	}
	ends := func(s string) int {
		return strings.Count(s, "\n") + strings.Count(s, "\r") + strings.Count(s, "\u2028") + strings.Count(s, "\u2029")
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := dotEnvValue(s)
		if ends(v) < ends(jsTrim(s)) {
			t.Fatalf("dotEnvValue(%q) = %q lost a line end", s, v)
		}
	})
}

// TestDotEnvReadLines: the lines list and setup name for a .env
// variable, and the command that shows them, count lines as sed does (by
// LF): a CRLF is one line end, a lone CR and a U+2028 (line ends for
// dotenv) none, so the line they hide on is the one named and shown,
// through cat -v; a name with "=true" on the next line is two lines; the
// last line that sets a variable is the one.
func TestDotEnvReadLines(t *testing.T) {
	for _, tc := range []struct {
		text        string
		first, last int
		show        string
	}{
		{"A=1\nK=true\n", 2, 2, "sed -n 2p F"},
		{"A=1\r\nK=true\r\n", 2, 2, "sed -n 2p F | cat -v"},
		{"A=1\rK=true\n", 1, 1, "sed -n 1p F | cat -v"},
		{"K\n=true\n", 1, 2, "sed -n 1,2p F"},
		{"# c\u2028K=true\n", 1, 1, "sed -n 1p F | cat -v"},
		{"B='a\nb'\nK=true\n", 3, 3, "sed -n 3p F"},
		{"K=false\nK=true", 2, 2, "sed -n 2p F"},
		{"K='x\ny'\n", 1, 2, "sed -n 1,2p F"},
	} {
		f := filepath.Join(t.TempDir(), ".env")
		if err := os.WriteFile(f, []byte(tc.text), 0o600); err != nil {
			t.Fatal(err)
		}
		v := dotEnvRead(f)["K"]
		if v.first != tc.first || v.last != tc.last {
			t.Errorf("%q: lines %d-%d, want %d-%d", tc.text, v.first, v.last, tc.first, tc.last)
		}
		if got, want := dotEnvShow(f, v.first, v.last), strings.ReplaceAll(tc.show, "F", f); got != want {
			t.Errorf("%q: %q, want %q", tc.text, got, want)
		}
	}
}
