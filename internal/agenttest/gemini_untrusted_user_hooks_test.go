package agenttest

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestGeminiUntrustedFolderUserHooks: in a working directory Gemini CLI
// 0.61 does not trust, an interactive session runs an extension's hooks
// but no hook of any settings file, the user's settings.json included
// (its hookRegistry registers every settings hook as the project's, and
// drops them all in a folder it does not trust: "Project hooks disabled
// because the folder is not trusted"). Setup's lines are settings hooks:
// they run in no interactive session there until the folder is trusted.
// With --skip-trust a -p session starts, trusted, and runs them.
func TestGeminiUntrustedFolderUserHooks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		trust       string // trustedFolders.json's rule for the working directory
		interactive bool
		args        []string
		want        []string // the hooks that ran
	}{
		{"untrusted-interactive", "DO_NOT_TRUST", true, nil, []string{"ext"}},
		{"untrusted-skip-trust", "DO_NOT_TRUST", false, []string{"--skip-trust"}, []string{"ext", "user"}},
		{"trusted-interactive", "TRUST_FOLDER", true, nil, []string{"ext", "user"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			a := New(t, GeminiCLI, Say("done"))
			beforeAgentExtension(t, filepath.Join(a.ConfigDir(), "extensions", "ext1"), "ext1", "touch "+filepath.Join(rec, "ext"))
			a.Settings = map[string]any{"hooks": map[string]any{"BeforeAgent": []any{map[string]any{
				"matcher": "*",
				"hooks":   []any{map[string]any{"type": "command", "command": "touch " + filepath.Join(rec, "user")}},
			}}}}
			a.Env = []string{"GEMINI_CLI_TRUST_WORKSPACE="}
			a.Args = tc.args
			ws, err := filepath.EvalSymlinks(a.Workdir)
			if err != nil {
				t.Fatal(err)
			}
			writeJSONFile(t, a.ConfigDir(), "trustedFolders.json", map[string]any{ws: tc.trust})
			var out string
			if tc.interactive {
				out = runInteractive(t, a, "hello")
			} else {
				res := a.Run(t, "hello")
				if res.Exit != 0 {
					t.Fatalf("%s", res)
				}
				out = res.String()
			}
			if len(a.Model.Requests()) == 0 {
				t.Fatalf("the session sent the model nothing\n%s", out)
			}
			if got := ranOwn(t, rec); !slices.Equal(got, tc.want) {
				t.Errorf("hooks that ran: %q, want %q\n%s", got, tc.want, out)
			}
		})
	}
}
