package agenttest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGeminiDotEnvExcluded: Gemini CLI 0.61 keeps the variables of
// advanced.excludedEnvVars out of a .env whose path holds no ".gemini"
// (the folder's, ~/.env), merging the list across its settings files
// (the user's, the workspace's of a folder it trusts when it loads them,
// "$VAR" filled in from the environment) over the defaults DEBUG and
// DEBUG_MODE, and never out of a .gemini/.env. So GEMINI_RESTRICTED_MODE
// excluded that way untrusts nothing, and list and setup must agree with
// what a -p session in a folder a rule trusts does: stop untrusted (exit
// 55) or run, the settings hook too (hosts/gemini TestDotEnvExcluded).
func TestGeminiDotEnvExcluded(t *testing.T) {
	t.Parallel()
	exclude := func(list ...any) map[string]any {
		return map[string]any{"advanced": map[string]any{"excludedEnvVars": list}}
	}
	for _, tc := range []struct {
		name, file string
		user, ws   map[string]any // the user's and the workspace's settings
		env        []string
		untrusts   bool
		setupEnv   []string // setup's and list's alone
		// named: list and setup name the line though the session does
		// not load it, as another session's environment may.
		named bool
	}{
		{"none", ".env", nil, nil, nil, true, nil, false},
		{"user-excludes", ".env", exclude("GEMINI_RESTRICTED_MODE"), nil, nil, false, nil, false},
		{"workspace-excludes", ".env", nil, exclude("GEMINI_RESTRICTED_MODE"), nil, false, nil, false},
		{"env-ref", ".env", exclude("$X"), nil, []string{"X=GEMINI_RESTRICTED_MODE"}, false, nil, true},
		// The session's environment fills "$X" in, not setup's: a session
		// without X loads the line, so setup refuses and list says off
		// whatever X is where they run.
		{"env-ref-session-unset", ".env", exclude("$X"), nil, nil, true, []string{"X=GEMINI_RESTRICTED_MODE"}, false},
		{"home-env", "~/.env", exclude("GEMINI_RESTRICTED_MODE"), nil, nil, false, nil, false},
		{"gemini-dir", ".gemini/.env", exclude("GEMINI_RESTRICTED_MODE"), nil, nil, true, nil, false},
		{"user-gemini-dir", "~/.gemini/.env", exclude("GEMINI_RESTRICTED_MODE"), nil, nil, true, nil, false},
		// A list of its own replaces none of the defaults, nor the
		// others' entries: the lists are merged.
		{"other-name", ".env", exclude("DEBUG"), nil, nil, true, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, rec := dotEnvHooksSession(t, tc.file, "GEMINI_RESTRICTED_MODE=true", tc.user)
			if tc.ws != nil {
				writeJSONFile(t, a.Workdir, ".gemini/settings.json", tc.ws)
			}
			a.Env = append([]string{"GEMINI_CLI_TRUST_WORKSPACE="}, tc.env...)
			res := a.Run(t, "hello")
			if untrusted := res.Exit == 55; untrusted != tc.untrusts {
				t.Fatalf("Gemini CLI stopped untrusted: %v, want %v\n%s", untrusted, tc.untrusts, res)
			}
			if got := ranOwn(t, rec); !tc.untrusts && !slices.Contains(got, "user") {
				t.Errorf("hooks that ran: %q, want the settings hook too", got)
			}
			// setup wires with the line out; then it is put back.
			p := filepath.Join(a.Workdir, tc.file)
			if rest, ok := strings.CutPrefix(tc.file, "~/"); ok {
				p = filepath.Join(a.Home, rest)
			}
			writeFile(t, filepath.Dir(p), filepath.Base(p), "A=1\n", 0o644)
			f := newTrustedFixture(t, a, filepath.Join(t.TempDir(), markerName))
			senv := append(append(append(setupEnv(a), "GEMINI_CLI_TRUST_WORKSPACE="), tc.env...), tc.setupEnv...)
			if out, errOut, err := BundlectlEnv(t, f.home, senv, "--workspace", f.ws, "setup", "gemini"); err != nil {
				t.Fatalf("setup: %v\n%s%s", err, out, errOut)
			}
			writeFile(t, filepath.Dir(p), filepath.Base(p), "GEMINI_RESTRICTED_MODE=true\n", 0o644)
			st := setupStatus(t, f, senv)
			named := tc.untrusts || tc.named
			if off := st != nil && st["status"] == "off"; off != named {
				t.Errorf("list: %v, want off: %v", st, named)
			}
			_, errOut, err := BundlectlEnv(t, f.home, senv, "--workspace", f.ws, "setup", "gemini")
			if refused := err != nil; refused != named {
				t.Errorf("setup refused: %v, want %v\n%s", refused, named, errOut)
			}
		})
	}
}
