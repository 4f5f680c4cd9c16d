package harness

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
)

// A shell-form hook (a host hook with a command string only) runs with
// the shell its host would run it with, so that the same string parses
// and exits alike under `hooks run` and in the host: a bash-only test
// such as [[ … ]] is a syntax error under dash, whose exit status 2 the
// hook protocol reads as a block, and other differences can let a tool
// through. Found by trying each CLI (internal/agenttest
// TestHookShellParity) and read from their code:
//
//   - Claude Code 2.1.332: /bin/sh -c (its spawn with shell: true; $SHELL
//     and a hook's "shell": "bash" change nothing on POSIX).
//   - Codex 0.171: the user's shell as Codex picks it, with -c: the login
//     shell of the password database when it is bash, zsh or sh, else
//     bash (PATH, then /bin/bash), else zsh (PATH, then /bin/zsh), else
//     /bin/sh; $SHELL is not read.
//   - Gemini CLI 0.61: bash -c, bash looked up in PATH; with none the hook
//     cannot start and Gemini CLI runs the tool anyway.
//
// bundlectl's own formats have no shell form; a hook that no host's
// manifest declares keeps /bin/sh.

// HookShellError is a shell-form hook whose host's shell cannot be found.
// For an event a hook can block, the event is blocked (a guard never fails
// open, where Gemini CLI would run the tool); otherwise the hook does not
// run and the outcome says so.
type HookShellError struct {
	Bundle, HookID string
	Host           bundle.Host
	Shell          string // what the host would run, e.g. "bash -c"
	Err            error
}

func (e *HookShellError) Error() string {
	fix := "put it in the PATH the host starts with"
	if e.Host == bundle.HostCodex {
		fix = "install it, or make your login shell one that is installed"
	}
	return fmt.Sprintf("hook %s is a %s hook, which %s runs with %s, and that shell cannot be found (%v): %s",
		e.HookID, hostName(e.Host), hostName(e.Host), e.Shell, e.Err, fix)
}

func (e *HookShellError) Unwrap() error { return e.Err }

// Hint switches off just this hook: the user's explicit choice to go
// without the guard until its shell is there.
func (e *HookShellError) Hint() string {
	return "bundlectl disable " + bundle.ShellArg(e.Bundle) + " --hook " + e.HookID
}

func hostName(h bundle.Host) string {
	switch h {
	case bundle.HostClaude:
		return "Claude Code"
	case bundle.HostCodex:
		return "Codex"
	case bundle.HostGemini:
		return "Gemini CLI"
	}
	return "bundlectl"
}

// shellHost is the host whose shell runs a shell-form hook declared by
// hosts: the host hooks run was started for (--host), when it declares
// the hook, else the first that does.
func (r *Registry) shellHost(hosts []string) bundle.Host {
	if r.opts.Host != "" && slices.Contains(hosts, string(r.opts.Host)) {
		return r.opts.Host
	}
	if len(hosts) > 0 {
		return bundle.Host(hosts[0])
	}
	return ""
}

// shellName is how the error names host's shell.
func shellName(host bundle.Host) string {
	switch host {
	case bundle.HostGemini:
		return "bash -c"
	case bundle.HostCodex:
		return "your login shell (-c)"
	}
	return "/bin/sh -c"
}

// testOnlyPasswd is the password database codexShell reads.
var testOnlyPasswd = "/etc/passwd"

// hookShell returns the argv before the command string with which host
// runs a shell-form hook; path is the PATH the hook gets (the host's).
func hookShell(host bundle.Host, path string) ([]string, error) {
	switch host {
	case bundle.HostGemini:
		sh, err := LookPath("bash", path)
		if err != nil {
			return nil, err
		}
		return []string{sh, "-c"}, nil
	case bundle.HostCodex:
		sh := codexShell(path)
		if fi, err := os.Stat(sh); err != nil || !fi.Mode().IsRegular() {
			// A login shell that is not there: Codex cannot start the hook.
			return nil, &LookPathError{Name: sh, Err: os.ErrNotExist}
		}
		return []string{sh, "-c"}, nil
	}
	return []string{"/bin/sh", "-c"}, nil
}

// codexShell is the shell Codex runs a command hook with (its
// default_user_shell): the password database's login shell when it is
// bash, zsh or sh, else bash, else zsh, else /bin/sh.
func codexShell(path string) string {
	login := passwdShell(testOnlyPasswd, os.Getuid())
	kind := shellKind(login)
	find := func(name, fallback string) string {
		if login != "" && kind == name {
			return login // Codex takes it as it is, without checking it exists
		}
		if p, err := LookPath(name, path); err == nil {
			return p
		}
		if fileExists(fallback) {
			return fallback
		}
		return ""
	}
	switch kind {
	case "bash", "zsh", "sh":
		if p := find(kind, "/bin/"+kind); p != "" {
			return p
		}
	}
	for _, name := range []string{"bash", "zsh"} {
		if p := find(name, "/bin/"+name); p != "" {
			return p
		}
	}
	return "/bin/sh"
}

// shellKind is Codex's detect_shell_type for the POSIX shells: the name,
// or the file name without its extension.
func shellKind(p string) string {
	name := filepath.Base(p)
	if i := strings.IndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	switch name {
	case "bash", "zsh", "sh":
		return name
	}
	return ""
}

// passwdShell is the login shell file gives uid, or "".
func passwdShell(file string, uid int) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	want := strconv.Itoa(uid)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) == 7 && fields[2] == want {
			return fields[6]
		}
	}
	return ""
}

// pathOf is the PATH entry of env.
func pathOf(env []string) string {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	return path
}
