package agenttest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGeminiSettingsMCPOverView: Gemini CLI 0.61 merges a settings
// mcpServers entry over an extension's server of the same name (its
// McpClientManager.mergeMcpConfigs, the settings entry taking precedence
// for command, url and trust): the settings' command starts, the
// extension's does not. And mcp.excluded naming the server, or an
// mcp.allowed list leaving it out, keeps the extension's server from
// starting. Neither is said at startup; the extension's hook still runs.
// bundlectl exec names each (hosts/gemini settingsServerNotes).
func TestGeminiSettingsMCPOverView(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		write         func(fakemcp, rec string) map[string]any
		ext, settings bool // which server started
	}{
		{"none", func(string, string) map[string]any { return nil }, true, false},
		{"same-name", func(fakemcp, rec string) map[string]any {
			return map[string]any{"mcpServers": map[string]any{"srv": map[string]any{"command": fakemcp, "args": []string{"-record", filepath.Join(rec, "settings.jsonl")}}}}
		}, false, true},
		{"excluded", func(string, string) map[string]any {
			return map[string]any{"mcp": map[string]any{"excluded": []string{"srv"}}}
		}, false, false},
		{"allowed-other", func(string, string) map[string]any {
			return map[string]any{"mcp": map[string]any{"allowed": []string{"other"}}}
		}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			a := New(t, GeminiCLI, Say("done"))
			dir := filepath.Join(a.ConfigDir(), "extensions", "ext1")
			writeJSONFile(t, dir, "gemini-extension.json", map[string]any{"name": "ext1", "version": "1.0.0",
				"mcpServers": map[string]any{"srv": map[string]any{"command": FakeMCPServer(t), "args": []string{"-record", filepath.Join(rec, "ext.jsonl")}}}})
			writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"BeforeAgent": []any{map[string]any{
				"hooks": []any{map[string]any{"type": "command", "command": "touch " + filepath.Join(rec, "hook")}}}}}})
			a.Settings = tc.write(FakeMCPServer(t), rec)
			res := a.Run(t, "hello")
			if res.Exit != 0 {
				t.Fatalf("Gemini CLI: %s", res)
			}
			ran := func(n string) bool { _, err := os.Stat(filepath.Join(rec, n)); return err == nil }
			if !ran("hook") {
				t.Errorf("the extension's hook did not run\n%s", res)
			}
			if got := ran("ext.jsonl"); got != tc.ext {
				t.Errorf("the extension's server started: %v, want %v\n%s", got, tc.ext, res)
			}
			if got := ran("settings.jsonl"); got != tc.settings {
				t.Errorf("the settings' server started: %v, want %v\n%s", got, tc.settings, res)
			}
		})
	}
}

// TestGeminiSameServerTwoExtensions: of two extensions declaring an MCP
// server of the same name, Gemini CLI 0.61 starts one only (its
// McpClientManager skips the later one's, "as it already exists"), and
// says nothing in a -p session. bundlectl exec names such a server
// (hosts/gemini sharedServerNotes).
func TestGeminiSameServerTwoExtensions(t *testing.T) {
	t.Parallel()
	rec := t.TempDir()
	a := New(t, GeminiCLI, Say("done"))
	for _, n := range []string{"ext1", "ext2"} {
		dir := filepath.Join(a.ConfigDir(), "extensions", n)
		writeJSONFile(t, dir, "gemini-extension.json", map[string]any{"name": n, "version": "1.0.0",
			"mcpServers": map[string]any{"srv": map[string]any{"command": FakeMCPServer(t), "args": []string{"-record", filepath.Join(rec, n+".jsonl")}}}})
	}
	res := a.Run(t, "hello")
	if res.Exit != 0 {
		t.Fatalf("Gemini CLI: %s", res)
	}
	n := 0
	for _, e := range []string{"ext1", "ext2"} {
		if _, err := os.Stat(filepath.Join(rec, e+".jsonl")); err == nil {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d of the two same-named servers started, want 1\n%s", n, res)
	}
}
