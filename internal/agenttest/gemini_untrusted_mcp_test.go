package agenttest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGeminiUntrustedFolderMCP: in an interactive session in a folder it
// does not trust, Gemini CLI 0.61 starts no MCP server, an extension's
// included (its McpClientManager returns before connecting to any), while
// it still runs the extension's hooks; in a trusted folder it starts it.
// bundlectl exec names the views whose servers will not start (hosts/gemini
// mcpNotes). A .env holding GEMINI_RESTRICTED_MODE=true untrusts a folder
// a rule trusts once loaded: no server starts there either (hosts/gemini
// TestDotEnvUntrustsMCPNote).
func TestGeminiUntrustedFolderMCP(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		trust, dotEnv string
		started       bool
	}{
		{"DO_NOT_TRUST", "", false},
		{"TRUST_FOLDER", "", true},
		{"TRUST_FOLDER", "GEMINI_RESTRICTED_MODE=true", false},
	} {
		name := tc.trust
		if tc.dotEnv != "" {
			name += "-dotenv-restricted"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			a := New(t, GeminiCLI, Say("done"))
			dir := filepath.Join(a.ConfigDir(), "extensions", "ext1")
			writeJSONFile(t, dir, "gemini-extension.json", map[string]any{"name": "ext1", "version": "1.0.0",
				"mcpServers": map[string]any{"srv": map[string]any{"command": FakeMCPServer(t), "args": []string{"-record", filepath.Join(rec, "srv.jsonl")}}}})
			writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"BeforeAgent": []any{map[string]any{
				"hooks": []any{map[string]any{"type": "command", "command": "touch " + filepath.Join(rec, "hook")}}}}}})
			a.Env = []string{"GEMINI_CLI_TRUST_WORKSPACE="}
			ws, err := filepath.EvalSymlinks(a.Workdir)
			if err != nil {
				t.Fatal(err)
			}
			writeJSONFile(t, a.ConfigDir(), "trustedFolders.json", map[string]any{ws: tc.trust})
			if tc.dotEnv != "" {
				writeFile(t, a.Workdir, ".env", tc.dotEnv+"\n", 0o644)
			}
			out := runInteractive(t, a, "hello")
			if len(a.Model.Requests()) == 0 {
				t.Fatalf("the interactive session sent the model nothing\n%s", out)
			}
			if _, err := os.Stat(filepath.Join(rec, "hook")); err != nil {
				t.Errorf("the extension's hook did not run\n%s", out)
			}
			_, err = os.Stat(filepath.Join(rec, "srv.jsonl"))
			if started := err == nil; started != tc.started {
				t.Errorf("the extension's MCP server started: %v, want %v\n%s", started, tc.started, out)
			}
		})
	}
}
