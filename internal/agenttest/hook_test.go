package agenttest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// blockReason is what the guard hook prints on stderr when it blocks.
const blockReason = "agenttest-guard: shell commands are blocked here"

// writeGuard writes a hook script that records its stdin, environment and
// working directory under rec and then blocks with exit 2.
func writeGuard(t *testing.T, dir, rec string) string {
	t.Helper()
	p := filepath.Join(dir, "guard.sh")
	script := fmt.Sprintf(`#!/bin/sh
cat > %[1]s/stdin.json
env | sort > %[1]s/env.txt
pwd > %[1]s/cwd.txt
printf '%%s\n' "$0" "$@" > %[1]s/argv.txt
echo %[2]q >&2
exit 2
`, rec, blockReason)
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// hookInput decodes what the guard read on stdin.
func hookInput(t *testing.T, rec string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(rec, "stdin.json"))
	if err != nil {
		t.Fatalf("the hook never ran: %v", err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("hook stdin is not JSON: %v\n%s", err, b)
	}
	return v
}

// TestHookBlocksShell: a PreToolUse/BeforeTool hook configured the host's own
// way that exits 2 stops the shell command (the marker is never created) and
// its reason reaches the model in the next request.
func TestHookBlocksShell(t *testing.T) {
	t.Parallel()
	for _, h := range hosts {
		t.Run(string(h), func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			rec := filepath.Join(tmp, "rec")
			os.Mkdir(rec, 0o755)
			guard := writeGuard(t, tmp, rec)
			marker := filepath.Join(tmp, "marker")
			a := New(t, h, ShellCall(h, "touch "+marker), Say("blocked, fine"))
			allowShell(a)
			switch h {
			case Claude:
				a.Settings = map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
					"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": guard}},
				}}}}
			case GeminiCLI:
				a.Settings = map[string]any{"hooks": map[string]any{"BeforeTool": []any{map[string]any{
					"matcher": "run_shell_command", "hooks": []any{map[string]any{"type": "command", "command": guard}},
				}}}}
			case Codex:
				a.CodexConfig = CodexTrustedHookTOML(a.ConfigDir(), "PreToolUse", "Bash", guard)
			}
			res := a.Run(t, "make the marker")
			in := hookInput(t, rec)
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("the blocked command ran\n%s", res)
			}
			next := a.Model.CallsAt(1)
			if len(next) == 0 || !next[len(next)-1].Contains(strings.TrimPrefix(blockReason, "")) {
				t.Fatalf("block reason did not reach the model\n%s\n%s", res, a.Model.Dump())
			}
			t.Logf("hook stdin: %v", in)
			env, _ := os.ReadFile(filepath.Join(rec, "env.txt"))
			cwd, _ := os.ReadFile(filepath.Join(rec, "cwd.txt"))
			t.Logf("hook cwd: %s\nhook env:\n%s", cwd, env)
		})
	}
}

// TestCodexHookTrust: Codex runs a user hook only when [hooks.state] holds
// the hash CodexHookHash computes (or with --dangerously-bypass-hook-trust);
// an untrusted or mis-hashed hook is skipped silently and the command runs.
func TestCodexHookTrust(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		config  func(home, guard string) string
		args    []string
		blocked bool
	}{
		{"untrusted", func(home, guard string) string {
			return untrust(CodexTrustedHookTOML(home, "PreToolUse", "Bash", guard), "")
		}, nil, false},
		{"wrong-hash", func(home, guard string) string {
			return untrust(CodexTrustedHookTOML(home, "PreToolUse", "Bash", guard), CodexHookHash("PreToolUse", "Bash", guard, 599))
		}, nil, false},
		{"untrusted-bypass", func(home, guard string) string {
			return untrust(CodexTrustedHookTOML(home, "PreToolUse", "Bash", guard), "")
		}, []string{"--dangerously-bypass-hook-trust"}, true},
		{"trusted", func(home, guard string) string {
			return CodexTrustedHookTOML(home, "PreToolUse", "Bash", guard)
		}, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			rec := filepath.Join(tmp, "rec")
			os.Mkdir(rec, 0o755)
			guard := writeGuard(t, tmp, rec)
			marker := filepath.Join(tmp, "marker")
			a := New(t, Codex, ShellCall(Codex, "touch "+marker), Say("ok"))
			a.CodexConfig = c.config(a.ConfigDir(), guard)
			a.Args = c.args
			res := a.Run(t, "make the marker")
			_, ranHook := os.Stat(filepath.Join(rec, "stdin.json"))
			_, made := os.Stat(marker)
			if c.blocked != (ranHook == nil) || c.blocked != (made != nil) {
				t.Fatalf("want blocked=%v; hook ran=%v, marker made=%v\n%s", c.blocked, ranHook == nil, made == nil, res)
			}
		})
	}
}

// untrust replaces the trusted_hash line of a CodexTrustedHookTOML text with
// hash, or drops the state table when hash is empty.
func untrust(toml, hash string) string {
	i := strings.Index(toml, "[hooks.state.")
	if hash == "" {
		return toml[:i]
	}
	j := strings.Index(toml[i:], "trusted_hash = ")
	return toml[:i+j] + fmt.Sprintf("trusted_hash = %q\n", hash)
}
