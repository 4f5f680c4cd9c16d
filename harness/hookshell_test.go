package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
)

// TestHookShell: each host's shell for a shell-form hook (internal/agenttest
// TestHookWhichShell found them with the real CLIs), and Codex's choice of
// the user's shell as its default_user_shell makes it.
func TestHookShell(t *testing.T) {
	bin := t.TempDir()
	for _, name := range []string{"bash", "zsh"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/true\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	passwd := filepath.Join(t.TempDir(), "passwd")
	old := testOnlyPasswd
	testOnlyPasswd = passwd
	t.Cleanup(func() { testOnlyPasswd = old })
	setLogin := func(sh string) {
		line := fmt.Sprintf("other:x:%d:0::/:/bin/ksh\nme:x:%d:0::/home/me:%s\n", os.Getuid()+1, os.Getuid(), sh)
		if err := os.WriteFile(passwd, []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		host  bundle.Host
		login string // "" no entry
		path  string
		want  string
	}{
		{bundle.HostClaude, "/usr/local/bin/bash", bin, "/bin/sh"},
		{"", "/usr/local/bin/bash", bin, "/bin/sh"},
		{bundle.HostGemini, "/bin/sh", bin, filepath.Join(bin, "bash")},
		// Codex takes a bash, zsh or sh login shell as it is.
		{bundle.HostCodex, filepath.Join(bin, "zsh"), "/nonexistent", filepath.Join(bin, "zsh")},
		{bundle.HostCodex, "/bin/sh", bin, "/bin/sh"},
		// Another login shell: bash from PATH.
		{bundle.HostCodex, "/usr/bin/fish", bin, filepath.Join(bin, "bash")},
		{bundle.HostCodex, "", bin, filepath.Join(bin, "bash")},
	} {
		setLogin(tc.login)
		if tc.login == "" {
			os.WriteFile(passwd, nil, 0o644)
		}
		got, err := hookShell(tc.host, tc.path)
		if err != nil || !slices.Equal(got, []string{tc.want, "-c"}) {
			t.Errorf("hookShell(%q) with login shell %q = %q, %v; want [%s -c]", tc.host, tc.login, got, err, tc.want)
		}
	}

	// Codex with a login shell that is not there: Codex takes it as it
	// is and cannot start the hook; an error the hook reports.
	setLogin("/opt/zsh/bin/zsh")
	if _, err := hookShell(bundle.HostCodex, bin); err == nil {
		t.Errorf("hookShell(codex) with a missing login shell: no error")
	}

	// Gemini CLI with no bash in PATH: an error the hook reports.
	_, err := hookShell(bundle.HostGemini, t.TempDir())
	var lp *LookPathError
	if !errors.As(err, &lp) || lp.Name != "bash" {
		t.Errorf("hookShell(gemini) with no bash = %v, want a LookPathError for bash", err)
	}
}
