package agenttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/testtree"
)

// TestGeminiTrustRuleSpellings: how Gemini CLI 0.61 reads a rule of
// trustedFolders.json written other than as it writes one, for the
// workspace @P/ws. A -p session starts where the rule trusts the folder,
// stops with exit 55 where it does not or no rule decides, and stops
// naming the file where Gemini CLI refuses it. Gemini CLI normalizes
// each key against its working directory when it loads the file, and
// compares the normalized rules: "@P/./././" is "@P", shorter than
// "@P/ws"; "@P/ws/" and "@P/ws" are one rule, the level written last;
// TRUST_PARENT on "@P/other/" covers "@P"; "." is the workspace. A level
// it does not know, or a file that is no object, stops it. A rule for a
// symbolic link to the workspace trusts it; one in other letter case, on
// Linux, does not; GEMINI_CLI_TRUST_WORKSPACE trusts only when "true".
// security.folderTrust.enabled false turns the question off from the
// user's settings (the string "false" too) or the system's (which wins
// over the user's), never from the workspace's own. IDE mode on
// (ide.enabled) with no IDE connected, as in a terminal, leaves the
// rules to decide: no rule, or DO_NOT_TRUST, does not trust.
// hosts/gemini TestTrustRuleSpellings holds bundlectl to the same
// verdicts, which list's report of setup's lines follows.
func TestGeminiTrustRuleSpellings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, rules, want, env string }{
		{"dot-segments-distrust", `{"@P/ws": "DO_NOT_TRUST", "@P/./././././././": "TRUST_FOLDER"}`, "untrusted", ""},
		{"dot-segments-trust", `{"@P/ws": "TRUST_FOLDER", "@P/./././././././": "DO_NOT_TRUST"}`, "trusted", ""},
		{"same-folder-last-distrusts", `{"@P/ws/": "TRUST_FOLDER", "@P/ws": "DO_NOT_TRUST"}`, "untrusted", ""},
		{"same-folder-last-trusts", `{"@P/ws": "DO_NOT_TRUST", "@P/ws/": "TRUST_FOLDER"}`, "trusted", ""},
		{"parent-trailing-slash", `{"@P/other/": "TRUST_PARENT"}`, "trusted", ""},
		{"relative", `{".": "TRUST_FOLDER"}`, "trusted", ""},
		{"relative-up", `{"../ws": "DO_NOT_TRUST"}`, "untrusted", ""},
		{"unknown-level", `{"@P/ws": "TRUST_FOLDER", "/x": "trust"}`, "refused", ""},
		{"not-an-object", `null`, "refused", ""},
		{"symlink-to-it", `{"@P/lnk": "TRUST_FOLDER"}`, "trusted", ""},
		{"other-case", `{"@P/WS": "TRUST_FOLDER"}`, "untrusted", ""},
		{"root", `{"/": "TRUST_FOLDER", "@P": "DO_NOT_TRUST"}`, "untrusted", ""},
		{"env-TRUE", `{}`, "untrusted", "GEMINI_CLI_TRUST_WORKSPACE=TRUE"},
		{"env-1", `{}`, "untrusted", "GEMINI_CLI_TRUST_WORKSPACE=1"},
		{"trust-off-in-workspace", `{}`, "untrusted", ""},
		{"trust-off-for-user", `{}`, "trusted", ""},
		{"trust-off-string-false", `{}`, "trusted", ""},
		{"trust-on-system-off-user", `{}`, "untrusted", ""},
		{"trust-off-system-on-user", `{}`, "trusted", ""},
		{"ide-mode-no-ide", `{}`, "untrusted", ""},
		{"ide-mode-no-ide-distrusted", `{"@P/ws": "DO_NOT_TRUST"}`, "untrusted", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := New(t, GeminiCLI, Say("done"))
			p, err := filepath.EvalSymlinks(filepath.Dir(a.Workdir))
			if err != nil {
				t.Fatal(err)
			}
			p = filepath.Join(p, "p")
			a.Workdir = filepath.Join(p, "ws")
			for _, d := range []string{a.Workdir, filepath.Join(p, "other")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(a.Workdir, filepath.Join(p, "lnk")); err != nil {
				t.Fatal(err)
			}
			a.Env = []string{"GEMINI_CLI_TRUST_WORKSPACE="}
			if tc.env != "" {
				a.Env = []string{tc.env}
			}
			writeFile(t, a.ConfigDir(), "trustedFolders.json", strings.ReplaceAll(tc.rules, "@P", p), 0o600)
			if ft, ok := folderTrustSettings[tc.name]; ok {
				a.Settings = ft.user
				if ft.workspace != nil {
					writeJSONFile(t, a.Workdir, ".gemini/settings.json", ft.workspace)
				}
				if ft.system != nil {
					// Read only in a directory only root may write to.
					dir := testtree.RootOwnedDir(t)
					writeJSONFile(t, dir, "system.json", ft.system)
					if err := os.Chmod(filepath.Join(dir, "system.json"), 0o644); err != nil {
						t.Fatal(err)
					}
					a.Env = append(a.Env, "GEMINI_CLI_SYSTEM_SETTINGS_PATH="+filepath.Join(dir, "system.json"))
				}
			}
			res := a.Run(t, "hello")
			got := "refused"
			switch {
			case res.Exit == 0 && len(res.Requests) > 0:
				got = "trusted"
			case res.Exit == 55 && strings.Contains(res.Stderr, "not running in a trusted directory"):
				got = "untrusted"
			case res.Exit == 0 || !strings.Contains(res.Stderr, "trustedFolders.json"):
				got = "unexpected"
			}
			if got != tc.want {
				t.Errorf("%s: Gemini CLI read it as %s, want %s\n%s", tc.rules, got, tc.want, res)

			}
		})
	}
}

// folderTrustSettings are the settings files of TestGeminiTrustRuleSpellings'
// cases that set security.folderTrust.enabled: Gemini CLI reads it from
// the system's settings over the user's, never from the workspace's (it
// decides whether to read those), and reads the string "false" as off.
var folderTrustSettings = map[string]struct{ user, workspace, system map[string]any }{
	"trust-off-in-workspace":     {workspace: folderTrust(false)},
	"trust-off-for-user":         {user: folderTrust(false)},
	"trust-off-string-false":     {user: folderTrust("false")},
	"trust-on-system-off-user":   {user: folderTrust(false), system: folderTrust(true)},
	"trust-off-system-on-user":   {user: folderTrust(true), system: folderTrust(false)},
	"ide-mode-no-ide":            {user: map[string]any{"ide": map[string]any{"enabled": true}}},
	"ide-mode-no-ide-distrusted": {user: map[string]any{"ide": map[string]any{"enabled": true}}},
}

func folderTrust(enabled any) map[string]any {
	return map[string]any{"security": map[string]any{"folderTrust": map[string]any{"enabled": enabled}}}
}
