package hosts

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Reentry is how a view calls bundlectl back: the binary by absolute path
// and the home and workspace by absolute paths, so that what a host starts
// for a bundle reaches the same state and roots whatever the host's
// environment and working directory.
type Reentry struct {
	Exe, Home, Workspace string
}

// Argv returns the bundlectl command line for args.
func (r Reentry) Argv(args ...string) []string {
	return append([]string{r.Exe, "--home", r.Home, "--workspace", r.Workspace}, args...)
}

// Hook is the command that runs one reviewed hook from the snapshot for
// host (claude, codex, gemini): a shell-form hook then runs under the
// shell that host would run it with, whichever hosts declare it. event is
// host's name of the event the line is wired to: hooks exec answers a
// guard that cannot run by it when the input on stdin does not name the
// event (it cannot be read, is not JSON, or has no hook_event_name), and
// refuses to run the hook when the input names another event.
func (r Reentry) Hook(host, event, bundleName, id string) []string {
	return r.Argv("hooks", "exec", "--host", host, "--event", event, bundleName, id)
}

// MCP is the command that serves one stdio MCP server from the snapshot.
func (r Reentry) MCP(bundleName, server string) []string {
	return r.Argv("mcp", bundleName, server)
}

// LSP is the command that serves one language server from the snapshot.
func (r Reentry) LSP(bundleName, server string) []string {
	return r.Argv("lsp", bundleName, server)
}

// ShellJoin quotes argv for a POSIX shell, for hosts whose hook commands
// are shell strings.
func ShellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = ShellWord(a)
	}
	return strings.Join(q, " ")
}

// ShellWord quotes s for a POSIX shell when it needs it.
func ShellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Executable returns the absolute path a view should call bundlectl by:
// the path this process was started as (argv0, searched on PATH when it
// is a bare name) when that is the running binary, so that a link a
// package manager keeps up to date stays in use; else the running
// binary's own path.
func Executable(argv0 string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	cand := argv0
	if cand != "" && !strings.Contains(cand, "/") {
		cand, _ = exec.LookPath(cand)
	}
	if cand != "" {
		if abs, err := filepath.Abs(cand); err == nil {
			a, err1 := os.Stat(abs)
			b, err2 := os.Stat(self)
			if err1 == nil && err2 == nil && os.SameFile(a, b) {
				return abs, nil
			}
		}
	}
	if !filepath.IsAbs(self) {
		return "", errors.New("cannot tell the absolute path of the running bundlectl")
	}
	return self, nil
}

// HooksRun is the single hook line of the setup wiring: every matching
// hook of every active bundle for one event, the workspace taken from the
// event's cwd (so one line serves every workspace).
func (r Reentry) HooksRun(event, host string) []string {
	return []string{r.Exe, "--home", r.Home, "hooks", "run", event, "--host", host}
}
