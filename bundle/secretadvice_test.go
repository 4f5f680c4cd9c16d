package bundle

import (
	"strings"
	"testing"
)

// Codex (0.171) expands no ${…} in a plugin server's env: the advice to
// reference a host variable must say how Codex passes one (env_vars) when
// Codex reads the server, and stay ${…} alone when only hosts that expand
// it do.
func TestPlaceholderAdviceNamesEnvVarsForCodex(t *testing.T) {
	server := `{"srv": {"command": "npx", "args": ["-y", "srv"], "env": {"API_TOKEN": "YOUR_API_TOKEN"}}}`
	for _, tc := range []struct {
		name    string
		files   map[string]string
		envVars bool
	}{
		{"Claude Code plugin, which Codex reads too", map[string]string{ManifestClaude: `{"name": "p"}`, ".mcp.json": `{"mcpServers": ` + server + `}`}, true},
		{"Gemini CLI extension", map[string]string{"gemini-extension.json": `{"name": "p", "version": "1.0.0", "mcpServers": ` + server + `}`}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := writeTree(t, "p", tc.files)
			f := requireFinding(t, b, Warning, "secret.placeholder", "API_TOKEN")
			if !strings.Contains(f.Message, "${API_TOKEN}") {
				t.Errorf("advice without ${API_TOKEN}: %s", f.Message)
			}
			if got := strings.Contains(f.Message, "env_vars"); got != tc.envVars {
				t.Errorf("advice names env_vars: %v, want %v: %s", got, tc.envVars, f.Message)
			}
		})
	}
}
