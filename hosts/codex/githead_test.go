package codex

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGitHeadRunsNoProgram: reading HEAD's .codex/config.toml runs no
// program a repository's config names. In a partial clone whose blob is
// missing, git cat-file fetches it from the promisor remote, which ran
// the repository's core.sshCommand (git 2.39), its
// remote.<name>.uploadpack, or an ext:: command it allows; gitHead
// keeps git from fetching (gitNoFetch), and reads nothing there.
func TestGitHeadRunsNoProgram(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, c := range []struct {
		name   string
		config func(marker string) [][2]string
	}{
		{"core.sshCommand", func(m string) [][2]string {
			return [][2]string{{"remote.origin.url", "ssh://example.invalid/x"}, {"core.sshCommand", m}}
		}},
		{"remote.origin.uploadpack", func(m string) [][2]string {
			return [][2]string{{"remote.origin.url", filepath.Dir(m)}, {"remote.origin.uploadpack", m}}
		}},
		{"ext:: allowed by the repository", func(m string) [][2]string {
			return [][2]string{{"remote.origin.url", "ext::" + m}, {"protocol.allow", "always"}, {"protocol.ext.allow", "always"}, {"protocol.bundlectl-no-transport.allow", "always"}}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			marker := filepath.Join(tmp, "ran")
			prog := filepath.Join(tmp, "prog.sh")
			if err := os.WriteFile(prog, []byte("#!/bin/sh\ntouch '"+marker+"'\nexit 1\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			top := filepath.Join(tmp, "top")
			if err := os.MkdirAll(filepath.Join(top, ".codex"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(top, ".codex", "config.toml"), []byte("[features]\nhooks = false\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			git := func(args ...string) string {
				cmd := exec.Command("git", append([]string{"-C", top, "-c", "user.name=t", "-c", "user.email=t@example.invalid"}, args...)...)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("git %q: %v %s", args, err, out)
				}
				return string(out)
			}
			git("init", "-q")
			git("add", "-A")
			git("commit", "-qm", "hooks off")
			blob := git("rev-parse", "HEAD:.codex/config.toml")[:40]
			if err := os.Remove(filepath.Join(top, ".git", "objects", blob[:2], blob[2:])); err != nil {
				t.Fatal(err)
			}
			git("config", "core.repositoryformatversion", "1")
			git("config", "extensions.partialClone", "origin")
			git("config", "remote.origin.promisor", "true")
			for _, kv := range c.config(prog) {
				git("config", kv[0], kv[1])
			}
			data, ok := gitHead(top, ".codex/config.toml")
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("git ran the repository's program %s", prog)
			}
			if ok {
				t.Errorf("read %q from a blob the repository does not hold", data)
			}
		})
	}
}
