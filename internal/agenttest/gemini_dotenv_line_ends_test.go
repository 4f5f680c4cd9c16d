package agenttest

import (
	"path/filepath"
	"testing"
)

// TestGeminiDotEnvLineEnds: the dotenv package Gemini CLI 0.61 parses a
// .env with is a JavaScript regular expression whose ^ and $ (multiline)
// and . also take U+2028 and U+2029 for line ends, and whose value is cut
// with JavaScript's trim, which takes U+0085 for no space. So a line
// hidden after a comment and a U+2028 or U+2029 sets its variable, and
// one after a value does not (the unquoted value runs on), and
// "true\u0085" is not "true". Each .env, in a folder a rule trusts:
// whether a -p session stops there as untrusted (exit 55), and whether
// list says setup's lines are off, must agree (hosts/gemini
// TestDotEnvParseLineEnds).
func TestGeminiDotEnvLineEnds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, line string
		untrusts   bool
	}{
		{"ls-after-comment", "# note\u2028GEMINI_RESTRICTED_MODE=true", true},
		{"ps-after-inline-comment", "A=1 # note\u2029GEMINI_RESTRICTED_MODE=true", true},
		{"ls-after-value", "A=1\u2028GEMINI_RESTRICTED_MODE=true", false},
		{"nel-after-true", "GEMINI_RESTRICTED_MODE=true\u0085", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, _ := dotEnvHooksSession(t, ".env", tc.line, nil)
			a.Env = []string{"GEMINI_CLI_TRUST_WORKSPACE="}
			res := a.Run(t, "hello")
			if untrusted := res.Exit == 55; untrusted != tc.untrusts {
				t.Fatalf("Gemini CLI stopped untrusted: %v, want %v\n%s", untrusted, tc.untrusts, res)
			}
			// setup wires with a plain .env; then the line is put back.
			writeFile(t, a.Workdir, ".env", "A=1\n", 0o644)
			f := newTrustedFixture(t, a, filepath.Join(t.TempDir(), markerName))
			senv := append(setupEnv(a), "GEMINI_CLI_TRUST_WORKSPACE=")
			if out, errOut, err := BundlectlEnv(t, f.home, senv, "--workspace", f.ws, "setup", "gemini"); err != nil {
				t.Fatalf("setup: %v\n%s%s", err, out, errOut)
			}
			writeFile(t, a.Workdir, ".env", tc.line+"\n", 0o644)
			st := setupStatus(t, f, senv)
			if off := st != nil && st["status"] == "off"; off != tc.untrusts {
				t.Errorf("list: %v, want off: %v", st, tc.untrusts)
			}
			_, errOut, err := BundlectlEnv(t, f.home, senv, "--workspace", f.ws, "setup", "gemini")
			if refused := err != nil; refused != tc.untrusts {
				t.Errorf("setup refused: %v, want %v\n%s", refused, tc.untrusts, errOut)
			}
		})
	}
}
