package agenttest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGeminiAllowedMCPServerNamesFlag: Gemini CLI 0.61's
// --allowed-mcp-server-names (in each spelling its parser reads: a
// comma-separated value, the "=" form, repeated) starts only the MCP
// servers it names, an extension's too, and says nothing in a -p session;
// given at all, it replaces the settings' mcp.allowed and turns
// mcp.excluded off (its loadCliConfig: blockedMcpServers undefined). A
// value that is all commas names nobody, and every server starts. (The
// flag with no value, the next argument an option, is refused: Gemini CLI
// prints its usage and exits 1.)
// bundlectl exec names each view's server the flag leaves out
// (hosts/gemini argServerNotes).
func TestGeminiAllowedMCPServerNamesFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		args     []string
		settings map[string]any
		started  bool
	}{
		{"leaves-out", []string{"--allowed-mcp-server-names", "other"}, nil, false},
		{"names-it", []string{"--allowed-mcp-server-names", "other,srv"}, nil, true},
		{"equals-form", []string{"--allowed-mcp-server-names=other"}, nil, false},
		{"repeated", []string{"--allowed-mcp-server-names", "other", "--allowed-mcp-server-names", "srv"}, nil, true},
		{"camel-case", []string{"--allowedMcpServerNames", "other"}, nil, false},
		{"only-commas", []string{"--allowed-mcp-server-names", ","}, nil, true},
		{"over-excluded", []string{"--allowed-mcp-server-names", "srv"}, map[string]any{"mcp": map[string]any{"excluded": []string{"srv"}}}, true},
		{"over-allowed", []string{"--allowed-mcp-server-names", "srv"}, map[string]any{"mcp": map[string]any{"allowed": []string{"other"}}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			a := New(t, GeminiCLI, Say("done"))
			dir := filepath.Join(a.ConfigDir(), "extensions", "ext1")
			writeJSONFile(t, dir, "gemini-extension.json", map[string]any{"name": "ext1", "version": "1.0.0",
				"mcpServers": map[string]any{"srv": map[string]any{"command": FakeMCPServer(t), "args": []string{"-record", filepath.Join(rec, "ext.jsonl")}}}})
			a.Settings = tc.settings
			a.Args = tc.args
			res := a.Run(t, "hello")
			if res.Exit != 0 {
				t.Fatalf("Gemini CLI: %s", res)
			}
			_, err := os.Stat(filepath.Join(rec, "ext.jsonl"))
			if got := err == nil; got != tc.started {
				t.Errorf("the extension's server started: %v, want %v\n%s", got, tc.started, res)
			}
		})
	}
}
