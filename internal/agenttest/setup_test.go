package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// setupEnv is the environment under which bundlectl setup finds the host's
// configuration in the agent's throw-away home.
func setupEnv(a *Agent) []string {
	env := []string{"HOME=" + a.Home}
	switch a.Host {
	case Codex:
		env = append(env, "CODEX_HOME="+a.ConfigDir())
	case GeminiCLI:
		env = append(env, "GEMINI_CLI_HOME="+a.Home)
	}
	return env
}

// setupFiles are the files setup edits for the agent: the user's
// configuration, and the workspace's MCP file (none for Codex).
func setupFiles(a *Agent) (user, workspace string) {
	switch a.Host {
	case Claude:
		return filepath.Join(a.ConfigDir(), "settings.json"), filepath.Join(a.Workdir, ".mcp.json")
	case Codex:
		return filepath.Join(a.ConfigDir(), "config.toml"), ""
	default:
		return filepath.Join(a.ConfigDir(), "settings.json"), filepath.Join(a.Workdir, ".gemini", "settings.json")
	}
}

// runSetup runs bundlectl setup for the agent's host once the agent has
// written its own offline configuration (a.Command with prompt), and
// gives the agent what setup wrote to the user's configuration: as its
// Settings (Claude Code, Gemini CLI) or its CodexConfig. It returns what
// setup wrote there.
func (f *execFixture) runSetup(t *testing.T, a *Agent, prompt string) []byte {
	t.Helper()
	a.Command(t, prompt)
	userFile, _ := setupFiles(a)
	if out, errOut, err := BundlectlEnv(t, f.home, setupEnv(a), "--workspace", f.ws, "setup", string(a.Host)); err != nil {
		t.Fatalf("bundlectl setup %s: %v\n%s%s", a.Host, err, out, errOut)
	}
	wrote, err := os.ReadFile(userFile)
	if err != nil {
		t.Fatal(err)
	}
	if a.Host == Codex {
		a.CodexConfig = string(wrote)
		return wrote
	}
	var m map[string]any
	if err := json.Unmarshal(wrote, &m); err != nil {
		t.Fatal(err)
	}
	a.Settings = m
	return wrote
}

// TestSetup: `bundlectl setup <host>` writes the single-line wiring into the
// agent's own configuration; the agent started directly (not through exec)
// then runs the plugin's guard through `bundlectl hooks run` — from the
// snapshot — which blocks the marker command, and serves the plugin's MCP
// server through `bundlectl mcp`. Setup run again changes nothing, and
// --undo restores every file byte for byte.
func TestSetup(t *testing.T) {
	t.Parallel()
	for _, h := range hosts {
		t.Run(string(h), func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), markerName)
			server := "bundlectl-" + pluginName + "-fake"
			called := server
			if h == Codex {
				// Codex names an MCP namespace with '-' turned into '_'.
				called = strings.ReplaceAll(server, "-", "_")
			}
			a := New(t, h, MCPCall(h, called, "lookup", map[string]any{"query": "owl"}), ShellCall(h, "touch "+marker), Say("done"))
			f := newTrustedFixture(t, a, marker)
			// The agent's own offline configuration exists before setup.
			a.Command(t, "owls")
			userFile, wsFile := setupFiles(a)
			if h == GeminiCLI {
				commentGeminiSettings(t, userFile, wsFile)
			}
			before, err := os.ReadFile(userFile)
			if err != nil {
				t.Fatal(err)
			}
			wsBefore, _ := os.ReadFile(wsFile)
			env := setupEnv(a)
			setup := func(args ...string) string {
				out, errOut, err := BundlectlEnv(t, f.home, env, append([]string{"--workspace", f.ws, "setup", string(h)}, args...)...)
				if err != nil {
					t.Fatalf("bundlectl setup %s %v: %v\n%s%s", h, args, err, out, errOut)
				}
				return out
			}
			out := setup()
			if !strings.Contains(out, "wrote ") {
				t.Fatalf("setup wrote nothing:\n%s", out)
			}
			wrote, _ := os.ReadFile(userFile)
			if again := setup(); strings.Contains(again, "wrote ") {
				t.Errorf("setup run again changed files:\n%s", again)
			}
			if now, _ := os.ReadFile(userFile); string(now) != string(wrote) {
				t.Errorf("setup run again rewrote %s", userFile)
			}

			// The agent's launcher writes its configuration from Settings or
			// CodexConfig: hand it what setup wrote.
			switch h {
			case Codex:
				a.CodexConfig = string(wrote)
			case GeminiCLI:
				// The very bytes setup wrote, comments and all.
				for _, kept := range []string{geminiUserComment, "\"security\": { /* the user's */\r\n"} {
					if !strings.Contains(string(wrote), kept) {
						t.Errorf("setup did not keep %q in %s:\n%s", kept, userFile, wrote)
					}
				}
				a.SettingsFile = wrote
			default:
				var m map[string]any
				if err := json.Unmarshal(wrote, &m); err != nil {
					t.Fatal(err)
				}
				a.Settings = m
			}
			if h == Claude {
				a.Args = append(a.Args, "--allowedTools", "Bash,mcp__"+server+"__lookup")
			}
			res := a.Run(t, "tell me about owls")
			f.checkMCP(t, a, res, 0)
			f.checkGuard(t, a, res, 1)
			t.Logf("%s", res)

			// Undo restores exactly what was there.
			if err := os.WriteFile(userFile, wrote, 0o600); err != nil {
				t.Fatal(err)
			}
			setup("--undo")
			if after, _ := os.ReadFile(userFile); string(after) != string(before) {
				t.Errorf("--undo did not restore %s:\nbefore:\n%s\nafter:\n%s", userFile, before, after)
			}
			if wsFile != "" {
				now, err := os.ReadFile(wsFile)
				switch {
				case wsBefore == nil && err == nil:
					t.Errorf("--undo left %s, which setup created", wsFile)
				case wsBefore != nil && string(now) != string(wsBefore):
					t.Errorf("--undo did not restore %s:\nbefore:\n%s\nafter:\n%s", wsFile, wsBefore, now)
				}
			}
		})
	}
}

// geminiUserComment begins the Gemini CLI settings commentGeminiSettings
// writes: text in it that looks like JSON and other comments.
const geminiUserComment = "// offline settings: \"hooks\": {} /* not a block */\r\n"

// commentGeminiSettings gives Gemini CLI's settings.json comments of both
// kinds and CRLF line breaks, as Gemini CLI 0.61.0 reads them (it blanks
// comments with strip-json-comments before JSON.parse), and makes the
// workspace's settings.json one of comments and an empty object, which
// setup's MCP entry goes into.
func commentGeminiSettings(t *testing.T, userFile, wsFile string) {
	t.Helper()
	data, err := os.ReadFile(userFile)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(data), `"security": {`, `"security": { /* the user's */`, 1)
	s = geminiUserComment + strings.ReplaceAll(s, "\n", "\r\n") + "\r\n// the end, http://example.com/*"
	if err := os.WriteFile(userFile, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(wsFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wsFile, []byte("// this workspace's\n{ /* empty */ }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// installCodexHooks puts hooks where Codex reads them: for "installed" a
// plugin in Codex's plugin cache, enabled, with hook trust bypassed (as a
// user who installed it); for "setup" a trusted bundle holding them and
// `bundlectl setup codex`'s lines as Codex's configuration.
func installCodexHooks(t *testing.T, a *Agent, through string, hooks any) {
	t.Helper()
	if through == "installed" {
		root := versionDir(filepath.Join(a.ConfigDir(), "plugins", "cache"))
		writeJSONFile(t, root, ".codex-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
		writeJSONFile(t, root, "hooks/hooks.json", hooks)
		a.CodexConfig = "[plugins.\"" + codexPluginID + "\"]\nenabled = true\n"
		a.Args = append(a.Args, "-c", "features.plugins=true", "--dangerously-bypass-hook-trust")
		return
	}
	f := newExecFixture(t, a)
	writeJSONFile(t, f.src, "hooks/hooks.json", hooks)
	f.trust(t)
	f.runSetup(t, a, "hello")
}

// installGeminiHooks gives a Gemini CLI agent the hooks file hooks: in an
// installed extension named name for mode "direct" (Gemini CLI runs them
// itself), else in a trusted bundle: for mode "exec" started through
// bundlectl exec (the view's hooks each run through bundlectl hooks exec),
// else wired in by bundlectl setup gemini (the hooks run through bundlectl
// hooks run --host gemini). It returns the bundle's fixture (nil for
// "direct").
func installGeminiHooks(t *testing.T, a *Agent, mode, name string, hooks any) *execFixture {
	t.Helper()
	if mode == "direct" {
		root := filepath.Join(a.ConfigDir(), "extensions", name)
		writeJSONFile(t, root, "gemini-extension.json", map[string]any{"name": name, "version": "1.0.0"})
		writeJSONFile(t, root, "hooks/hooks.json", hooks)
		return nil
	}
	f := newExecFixture(t, a)
	writeJSONFile(t, f.src, "hooks/hooks.json", hooks)
	f.trust(t)
	if mode == "exec" {
		a.Launcher = f.launcher(t)
		return f
	}
	f.runSetup(t, a, "hello")
	return f
}
