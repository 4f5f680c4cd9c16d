package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// TestDotEnvExcluded: a GEMINI_RESTRICTED_MODE=true line Gemini CLI 0.61
// keeps out of a project's .env by advanced.excludedEnvVars untrusts
// nothing, so setup wires and list is quiet (internal/agenttest
// TestGeminiDotEnvExcluded tries the first cases); the list merged as
// mergeSettings merges it, "$VAR" filled in, read as loadEnvironment reads
// it. Where Gemini CLI may load the line after all — a .gemini/.env, the
// workspace's list under --skip-trust, a list replaced below one that
// names it, a value includes() throws on — it is named.
func TestDotEnvExcluded(t *testing.T) {
	d := newTrustDir(t)
	home := filepath.Dir(d.user)
	base := []string{d.sys, "GEMINI_CLI_HOME=" + home}
	trusted := `{"` + d.ws + `": "TRUST_FOLDER"}`
	excludes := `{"advanced": {"excludedEnvVars": ["GEMINI_RESTRICTED_MODE"]}}`
	wsSettings := filepath.Join(d.ws, ".gemini", "settings.json")
	for _, tc := range []struct {
		name, file string
		user, ws   string // the user's and the workspace's settings
		env, args  []string
		named      bool
	}{
		{"none", ".env", "", "", nil, nil, true},
		{"user", ".env", excludes, "", nil, nil, false},
		{"workspace", ".env", "", excludes, nil, nil, false},
		{"workspace-skip-trust", ".env", "", excludes, nil, []string{"--skip-trust"}, true},
		{"user-skip-trust", ".env", excludes, "", nil, []string{"--skip-trust"}, false},
		// "$X" is filled in from the session's environment, which need
		// not be setup's or list's (internal/agenttest
		// TestGeminiDotEnvExcluded env-ref-session-unset), nor stay what
		// it was once Gemini CLI has loaded the .env: named either way.
		{"env-ref", ".env", `{"advanced": {"excludedEnvVars": ["$X"]}}`, "", []string{"X=GEMINI_RESTRICTED_MODE"}, nil, true},
		{"env-ref-default", ".env", `{"advanced": {"excludedEnvVars": ["${X:-GEMINI_RESTRICTED_MODE}"]}}`, "", nil, nil, true},
		{"env-ref-string", ".env", `{"advanced": 5}`, `{"advanced": {"excludedEnvVars": "${X:-GEMINI_RESTRICTED_MODE}"}}`, nil, nil, true},
		{"env-ref-beside", ".env", `{"advanced": {"excludedEnvVars": ["$X", "GEMINI_RESTRICTED_MODE"]}}`, "", []string{"X=GEMINI_RESTRICTED_MODE"}, nil, false},
		{"env-ref-unset", ".env", `{"advanced": {"excludedEnvVars": ["$X"]}}`, "", nil, nil, true},
		{"home", "~/.env", excludes, "", nil, nil, false},
		{"gemini-dir", ".gemini/.env", excludes, "", nil, nil, true},
		{"user-gemini-dir", "~/.gemini/.env", excludes, "", nil, nil, true},
		{"defaults-only", ".env", `{"advanced": {"excludedEnvVars": ["DEBUG"]}}`, "", nil, nil, true},
		{"lone-string-joins-the-list", ".env", `{"advanced": {"excludedEnvVars": "GEMINI_RESTRICTED_MODE"}}`, "", nil, nil, false},
		// An "advanced" that is not an object replaces the list below:
		// DEFAULT_EXCLUDED_ENV_VARS then, not the user's entry.
		{"replaced", ".env", excludes, `{"advanced": 5}`, nil, nil, true},
		// Over a replaced one, a string is includes()'s substring test.
		{"string-substring", ".env", `{"advanced": 5}`, `{"advanced": {"excludedEnvVars": "xGEMINI_RESTRICTED_MODEx"}}`, nil, nil, false},
		// A number throws in includes(): not modelled, named.
		{"throws", ".env", `{"advanced": 5}`, `{"advanced": {"excludedEnvVars": 7}}`, nil, nil, true},
		{"unreadable-settings", ".env", excludes, `{"advanced": `, nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(d.ws, tc.file)
			if rest, ok := strings.CutPrefix(tc.file, "~/"); ok {
				p = filepath.Join(home, rest)
			}
			writeTestFile(t, p, "GEMINI_RESTRICTED_MODE=true\n")
			t.Cleanup(func() { os.Remove(p) })
			if tc.ws != "" {
				writeTestFile(t, wsSettings, tc.ws)
				t.Cleanup(func() { os.Remove(wsSettings) })
			}
			d.put(t, trusted, tc.user)
			env := append(append([]string(nil), base...), tc.env...)
			_, _, file := dotEnvUntrusts(d.user, env, tc.args, d.ws, "")
			if named := file != ""; named != tc.named {
				t.Fatalf("dotEnvUntrusts named %q, want named: %v", file, tc.named)
			}
			if tc.args != nil || tc.name == "unreadable-settings" {
				return // setup knows no arguments; it refuses a file it cannot read
			}
			err := Host{}.SetupHooksOff(hosts.SetupInput{Environ: env, Reentry: hosts.Reentry{Workspace: d.ws}})
			if refused := err != nil; refused != tc.named {
				t.Errorf("SetupHooksOff = %v, want refused: %v", err, tc.named)
			}
		})
	}
}

// TestProjectEnvFile: Gemini CLI applies advanced.excludedEnvVars to a
// .env whose path holds no ".gemini" anywhere; bundlectl counts a file
// as surely a project's only when its path and the path with its
// directory's links resolved both hold none. The .env itself is not
// resolved: Gemini CLI 0.61 tests the path its walk made, and kept an
// excluded line out of a .env linked to a file under a .gemini directory
// (internal/agenttest TestGeminiEnvSettingsForms link-gemini-target).
func TestProjectEnvFile(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "x.gemini.y")
	os.MkdirAll(real, 0o700)
	writeTestFile(t, filepath.Join(real, ".env"), "A=1\n")
	link := filepath.Join(root, "plain")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(root, "ws")
	os.MkdirAll(ws, 0o700)
	if err := os.Symlink(filepath.Join(real, ".env"), filepath.Join(ws, ".env")); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(root, "dangling")
	os.MkdirAll(dangling, 0o700)
	if err := os.Symlink(filepath.Join(root, "nowhere"), filepath.Join(dangling, ".env")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		f           string
		sure, maybe bool
	}{
		{filepath.Join(real, ".env"), false, false},
		{filepath.Join(link, ".env"), false, true},
		{filepath.Join(root, ".env"), false, true},     // no such file
		{filepath.Join(ws, ".env"), true, true},        // a link into x.gemini.y
		{filepath.Join(dangling, ".env"), false, true}, // a link to nothing
	} {
		if got := projectEnvFile(tc.f); got != tc.sure {
			t.Errorf("projectEnvFile(%s) = %v, want %v", tc.f, got, tc.sure)
		}
		if got := mayProjectEnvFile(tc.f); got != tc.maybe {
			t.Errorf("mayProjectEnvFile(%s) = %v, want %v", tc.f, got, tc.maybe)
		}
	}
}

func writeTestFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
