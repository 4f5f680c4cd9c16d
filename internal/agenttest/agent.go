package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Host names an agent CLI.
type Host string

const (
	Claude    Host = "claude" // @anthropic-ai/claude-code
	Codex     Host = "codex"  // @openai/codex
	GeminiCLI Host = "gemini" // @google/gemini-cli
)

// API returns the model API the host speaks.
func (h Host) API() API {
	switch h {
	case Claude:
		return Anthropic
	case Codex:
		return OpenAI
	case GeminiCLI:
		return Gemini
	}
	panic("agenttest: unknown host " + string(h))
}

// AgentsDir is where .ci/install-agents.sh installs the CLIs:
// $BUNDLECTL_AGENTS_DIR, else ~/.cache/bundlectl-agents.
func AgentsDir() string {
	if d := os.Getenv("BUNDLECTL_AGENTS_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "bundlectl-agents")
	}
	return filepath.Join(home, ".cache", "bundlectl-agents")
}

// FindCLI returns the path of the installed CLI name ("claude", "codex",
// "gemini") under AgentsDir. When it is missing the test is skipped, except
// when the CI environment variable is set: CI must never skip these tests
// silently, so there a missing CLI fails the test.
func FindCLI(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(AgentsDir(), "node_modules", ".bin", name)
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
		return p
	}
	msg := fmt.Sprintf("agenttest: %q is not installed under %q; run .ci/install-agents.sh", name, AgentsDir())
	if os.Getenv("CI") != "" {
		t.Fatal(msg + " (CI is set: these tests must not skip)")
	}
	t.Skip(msg)
	return ""
}

var fakeMCP struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// FakeMCPServer builds ./fakemcp once per test process and returns the
// binary's path; copy it where a plugin expects its server.
func FakeMCPServer(t testing.TB) string {
	t.Helper()
	fakeMCP.once.Do(func() {
		fakeMCP.dir, fakeMCP.err = os.MkdirTemp("", "agenttest-fakemcp-")
		if fakeMCP.err != nil {
			return
		}
		fakeMCP.path = filepath.Join(fakeMCP.dir, "fakemcp")
		cmd := exec.Command("go", "build", "-o", fakeMCP.path, "github.com/bundlectl/bundlectl/internal/agenttest/fakemcp")
		out, err := cmd.CombinedOutput()
		if err != nil {
			fakeMCP.err = fmt.Errorf("go build fakemcp: %v\n%s", err, out)
		}
	})
	if fakeMCP.err != nil {
		t.Fatalf("agenttest: %v", fakeMCP.err)
	}
	return fakeMCP.path
}

// CleanupFakeMCP removes the built fakemcp; call it from TestMain after m.Run.
func CleanupFakeMCP() {
	if fakeMCP.dir != "" {
		os.RemoveAll(fakeMCP.dir)
	}
}

// HangGuard bounds one agent run. It only stops a hung CLI; no test asserts
// on time. Generous because the machine is small and shared.
const HangGuard = 5 * time.Minute

// Agent is one non-interactive run of a real agent CLI against a scripted
// model stand-in, in throw-away directories.
type Agent struct {
	Host  Host
	Bin   string // the CLI
	Model *Model
	// Home is the throw-away HOME; Codex's CODEX_HOME is Home/.codex and
	// Gemini CLI's GEMINI_CLI_HOME is Home.
	Home string
	// Workdir is the agent's working directory (a fresh empty directory).
	Workdir string
	// Settings is merged (objects key by key) over the host's offline
	// defaults and written as settings.json in ConfigDir (Claude, Gemini).
	Settings map[string]any
	// SettingsFile, when set, is written as settings.json byte for byte
	// instead (Settings and the defaults are not): a file with comments,
	// as setup leaves it.
	SettingsFile []byte
	// CodexConfig is written as $CODEX_HOME/config.toml (Codex).
	CodexConfig string
	// Env adds KEY=VALUE entries to the CLI's environment.
	Env []string
	// Args are extra CLI flags, placed before the prompt.
	Args []string
	// Timeout is the hang guard (HangGuard when zero).
	Timeout time.Duration
	// Launcher, when set, is put before the CLI's argv: the CLI is started
	// through it (for example bundlectl ... exec --).
	Launcher []string
}

// New finds host's CLI, starts a model stand-in scripted with script and
// prepares throw-away directories.
func New(t testing.TB, host Host, script ...Turn) *Agent {
	t.Helper()
	bin := FindCLI(t, string(host))
	root := t.TempDir()
	a := &Agent{
		Host:    host,
		Bin:     bin,
		Model:   NewModel(t, host.API(), script...),
		Home:    filepath.Join(root, "home"),
		Workdir: filepath.Join(root, "work"),
	}
	for _, d := range []string{a.Home, a.Workdir, a.ConfigDir()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

// ConfigDir is the host's user configuration directory in the throw-away
// home: Home/.claude, $CODEX_HOME (Home/.codex) or Home/.gemini.
func (a *Agent) ConfigDir() string {
	switch a.Host {
	case Claude:
		return filepath.Join(a.Home, ".claude")
	case Codex:
		return filepath.Join(a.Home, ".codex")
	default:
		return filepath.Join(a.Home, ".gemini")
	}
}

// Result is what one run did.
type Result struct {
	Stdout, Stderr string
	Exit           int // -1 when killed by the hang guard
	Requests       []Request
}

func (r *Result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s\n--- stderr\n%s", r.Exit, r.Stdout, r.Stderr)
}

// Command returns the argv and environment Run would use, with settings
// files written; exposed so that benchmarks and notes can show the exact line.
func (a *Agent) Command(t testing.TB, prompt string) (argv, env []string) {
	t.Helper()
	env = []string{
		"HOME=" + a.Home,
		"PATH=" + os.Getenv("PATH"),
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
		"TMPDIR=" + os.TempDir(),
		// Anything a CLI still tries to fetch over HTTPS (catalogs,
		// telemetry the switches below miss) fails at once on a closed
		// local port instead of leaving the machine or waiting on DNS.
		"HTTPS_PROXY=http://127.0.0.1:9",
		"https_proxy=http://127.0.0.1:9",
		"NO_PROXY=127.0.0.1,localhost",
		"no_proxy=127.0.0.1,localhost",
	}
	switch a.Host {
	case Claude:
		env = append(env,
			"ANTHROPIC_BASE_URL="+a.Model.URL,
			"ANTHROPIC_API_KEY=sk-ant-agenttest",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
			"DISABLE_AUTOUPDATER=1",
			"DISABLE_TELEMETRY=1",
			"DISABLE_ERROR_REPORTING=1",
			"ENABLE_TOOL_SEARCH=false",
		)
		a.writeSettings(t, map[string]any{})
		// The prompt goes first: variadic flags such as --allowedTools
		// would take a prompt that follows them as one more value.
		argv = append([]string{a.Bin, "-p", prompt}, a.Args...)
	case Codex:
		env = append(env,
			"CODEX_HOME="+a.ConfigDir(),
			"AGENTTEST_API_KEY=sk-agenttest",
		)
		if err := os.WriteFile(filepath.Join(a.ConfigDir(), "config.toml"), []byte(a.CodexConfig), 0o644); err != nil {
			t.Fatal(err)
		}
		argv = []string{a.Bin, "exec",
			"--skip-git-repo-check",
			"--sandbox", "danger-full-access",
			"-c", `approval_policy="never"`,
			"-c", "model_provider=agenttest",
			"-c", fmt.Sprintf(`model_providers.agenttest={name="agenttest",base_url=%q,wire_api="responses",env_key="AGENTTEST_API_KEY",request_max_retries=0,stream_max_retries=0}`, a.Model.URL+"/v1"),
			"-c", `model="gpt-5.5"`,
			"-c", "check_for_update_on_startup=false",
			// Else Codex exports usage metrics over OTLP at exit.
			"-c", "analytics.enabled=false",
			// The plugins feature syncs a curated plugin catalog from GitHub
			// at startup; a test that loads plugins turns it back on.
			"-c", "features.plugins=false",
		}
		argv = append(argv, a.Args...)
		argv = append(argv, prompt)
	case GeminiCLI:
		env = append(env,
			"GEMINI_CLI_HOME="+a.Home,
			"GOOGLE_GEMINI_BASE_URL="+a.Model.URL,
			"GEMINI_API_KEY=agenttest-key",
			"GEMINI_CLI_TRUST_WORKSPACE=true",
		)
		a.writeSettings(t, map[string]any{
			"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
			"privacy":  map[string]any{"usageStatisticsEnabled": false},
			"general":  map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
		})
		argv = append([]string{a.Bin, "-m", "gemini-2.5-flash", "--approval-mode", "yolo"}, a.Args...)
		argv = append(argv, "-p", prompt)
	}
	env = append(env, a.Env...)
	return argv, env
}

func (a *Agent) writeSettings(t testing.TB, defaults map[string]any) {
	t.Helper()
	merged := merge(defaults, a.Settings)
	j, err := json.MarshalIndent(merged, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if a.SettingsFile != nil {
		j = a.SettingsFile
	}
	if err := os.WriteFile(filepath.Join(a.ConfigDir(), "settings.json"), j, 0o644); err != nil {
		t.Fatal(err)
	}
}

func merge(dst, src map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range dst {
		out[k] = v
	}
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := out[k].(map[string]any); ok {
				out[k] = merge(dm, sm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// Run runs the agent once on prompt and returns what it did. Only a hang
// guard bounds it; the caller asserts on files and recorded requests.
func (a *Agent) Run(t testing.TB, prompt string) *Result {
	t.Helper()
	argv, env := a.Command(t, prompt)
	if len(a.Launcher) > 0 {
		argv = append(append([]string(nil), a.Launcher...), argv...)
	}
	guard := a.Timeout
	if guard == 0 {
		guard = HangGuard
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = a.Workdir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = nil // /dev/null: no CLI may wait for input
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 30 * time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		// The agent's own process group: MCP servers or hooks it left behind.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	res := &Result{Stdout: stdout.String(), Stderr: stderr.String(), Requests: a.Model.Requests()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		res.Exit = -1
		t.Fatalf("agenttest: %s still running after the %v hang guard (%s)\n%s", a.Host, guard, strings.Join(argv, " "), res)
	case errors.As(err, &ee):
		res.Exit = ee.ExitCode()
	default:
		t.Fatalf("agenttest: run %s: %v", a.Host, err)
	}
	return res
}

// ShellCall is a turn calling the host's shell tool with command.
func ShellCall(h Host, command string) Turn {
	switch h {
	case Claude:
		return Call("Bash", map[string]any{"command": command, "description": "agenttest"})
	case Codex:
		return Call("exec_command", map[string]any{"cmd": command})
	default:
		return Call("run_shell_command", map[string]any{"command": command})
	}
}

// MCPCall is a turn calling tool of MCP server with args, named the way the
// host offers it: Claude "mcp__<server>__<tool>", Codex namespace
// "mcp__<server>" and the bare tool, Gemini CLI "mcp_<server>_<tool>". For a
// Claude plugin's server, server is "plugin_<plugin>_<server>".
func MCPCall(h Host, server, tool string, args map[string]any) Turn {
	switch h {
	case Claude:
		return Call("mcp__"+server+"__"+tool, args)
	case Codex:
		return Turn{Tool: &ToolCall{Name: tool, Namespace: "mcp__" + server, Args: args}}
	default:
		return Call("mcp_"+server+"_"+tool, args)
	}
}
