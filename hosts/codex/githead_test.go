package codex

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
			data, _, _, ok := gitHead(top)
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("git ran the repository's program %s", prog)
			}
			if ok {
				t.Errorf("read %q from a blob the repository does not hold", data)
			}
		})
	}
}

// TestWorktreeHooksOffHeadForms: HEAD's file as a --worktree session's
// checkout has it. A .codex that HEAD commits as a link into the tree
// (.codex -> conf) is read through it, as Codex 0.171 reads the
// checkout (internal/agenttest TestSetupCodexWorktreeLinked), and the
// hint shows the blob (git show HEAD:./.codex/config.toml follows no
// link, and so never showed it); a link to an absolute path, as .codex
// or as config.toml, is the file it names, which the checkout reads
// there; an empty committed file sets nothing,
// so the user's false holds (gitHead returns it non-nil, where doc would
// read the working copy's file).
func TestWorktreeHooksOffHeadForms(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	const off, on = "[features]\nhooks = false\n", "[features]\nhooks = true\n"
	for _, c := range []struct {
		name     string
		user     string
		commit   func(t *testing.T, top, outside string) // lays out what HEAD holds
		wantFile string                                  // relative to top, "outside/…" or "home/config.toml"
		hooksOff bool                                    // the hint shows "hooks = false"
	}{
		{name: "a link into the tree", commit: func(t *testing.T, top, _ string) {
			mustWrite(t, filepath.Join(top, "conf", "config.toml"), off)
			mustLink(t, "conf", filepath.Join(top, ".codex"))
		}, wantFile: ".codex/config.toml", hooksOff: true},
		{name: "an absolute link as .codex", commit: func(t *testing.T, top, outside string) {
			mustWrite(t, filepath.Join(outside, "config.toml"), off)
			mustLink(t, outside, filepath.Join(top, ".codex"))
		}, wantFile: "outside/config.toml", hooksOff: true},
		{name: "an absolute link as config.toml", commit: func(t *testing.T, top, outside string) {
			mustWrite(t, filepath.Join(outside, "c.toml"), off)
			mustWrite(t, filepath.Join(top, ".codex", "keep"), "")
			mustLink(t, filepath.Join(outside, "c.toml"), filepath.Join(top, ".codex", "config.toml"))
		}, wantFile: "outside/c.toml", hooksOff: true},
		{name: "an empty file under the user's false", user: off, commit: func(t *testing.T, top, _ string) {
			mustWrite(t, filepath.Join(top, ".codex", "config.toml"), "")
		}, wantFile: "home/config.toml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			top, outside, home := filepath.Join(root, "top"), filepath.Join(root, "outside"), filepath.Join(root, "home")
			mustWrite(t, filepath.Join(home, "config.toml"), c.user)
			mustWrite(t, filepath.Join(top, "keep"), "")
			c.commit(t, top, outside)
			for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-qm", "HEAD"}} {
				cmd := exec.Command("git", append([]string{"-C", top, "-c", "user.name=t", "-c", "user.email=t@example.invalid"}, args...)...)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %q: %v %s", args, err, out)
				}
			}
			// The working copy turns hooks on.
			if err := os.RemoveAll(filepath.Join(top, ".codex")); err != nil {
				t.Fatal(err)
			}
			mustWrite(t, filepath.Join(top, ".codex", "config.toml"), on)
			cwd := startedIn(top)
			got := worktreeHooksOff(home, cwd)
			if got == nil {
				t.Fatal("no caveat")
			}
			want := ""
			if c.wantFile == "home/config.toml" {
				want = filepath.Join(home, "config.toml")
			} else if rel, ok := strings.CutPrefix(c.wantFile, "outside/"); ok {
				want = filepath.Join(outside, rel)
			} else {
				want = filepath.Join(cwd, c.wantFile)
			}
			if got.File != want {
				t.Errorf("File %q, want %q", got.File, want)
			}
			if c.hooksOff {
				hint := got.Hint()
				out, err := exec.Command("sh", "-c", hint).CombinedOutput()
				if err != nil || !strings.Contains(string(out), "hooks = false") {
					t.Errorf("the hint %q shows no hooks = false: %v\n%s", hint, err, out)
				}
			}
		})
	}
}

func mustWrite(t *testing.T, file, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustLink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
