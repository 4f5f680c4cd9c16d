package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLinkedWorktreeMain: a directory in a linked git worktree that
// git worktree add made (outside the main checkout) names the main
// checkout, from the worktree's top, below it, and below a repository
// nested in it; a planted .git file names a main checkout only when the
// git directory it names holds a commondir naming a .git directory and a
// gitdir naming that very .git file back — what someone could write only
// to add that checkout's guards — and never through a link, a FIFO, an
// oversized file, or a bare common directory.
func TestLinkedWorktreeMain(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v %s", args, err, out)
		}
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	main := filepath.Join(tmp, "main")
	wt := filepath.Join(tmp, "wt")
	git("init", "-q", main)
	git("-C", main, "commit", "-q", "--allow-empty", "-m", "one")
	git("-C", main, "worktree", "add", "-q", wt)
	sub := filepath.Join(wt, "a", "b")
	nested := filepath.Join(wt, "nested")
	git("init", "-q", nested)
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}

	// Planted files, each in a directory of its own.
	planted := func(name string) string { return filepath.Join(tmp, "planted", name) }
	// a .git file naming the worktree's git directory, which does not name it back
	write(planted("stolen")+"/.git", "gitdir: "+main+"/.git/worktrees/wt\n")
	// a link to the worktree's .git file
	if err := os.MkdirAll(planted("link"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(wt, ".git"), planted("link")+"/.git"); err != nil {
		t.Fatal(err)
	}
	// a FIFO: read, it would block the hook
	if err := os.MkdirAll(planted("fifo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(planted("fifo")+"/.git", 0o644); err != nil {
		t.Fatal(err)
	}
	// a git directory of its own, complete, naming main's .git: adds main
	fake := func(name, dotGit, commondir, gitdir string) {
		write(planted(name)+"/.git", dotGit)
		write(planted(name)+"/gd/commondir", commondir)
		write(planted(name)+"/gd/gitdir", gitdir)
	}
	fake("complete", "gitdir: "+planted("complete")+"/gd\n", main+"/.git\n", planted("complete")+"/.git\n")
	fake("relative", "gitdir: gd\n", "../../../main/.git\n", "../.git\n")
	fake("noback", "gitdir: "+planted("noback")+"/gd\n", main+"/.git\n", planted("elsewhere")+"/.git\n")
	fake("bare", "gitdir: "+planted("bare")+"/gd\n", planted("bare")+"/gd\n", planted("bare")+"/.git\n")
	fake("notgitdir", "gitdir "+planted("notgitdir")+"/gd\n", main+"/.git\n", planted("notgitdir")+"/.git\n")
	fake("huge", "gitdir: "+planted("huge")+"/gd\n"+strings.Repeat(" ", gitFileLimit), main+"/.git\n", planted("huge")+"/.git\n")

	for _, c := range []struct {
		dir, want string
	}{
		{wt, main},
		{sub, main},
		{nested, main},
		{main, ""},
		{filepath.Join(main, ".git"), ""},
		{tmp, ""},
		{filepath.Join(tmp, "gone"), ""},
		{planted("stolen"), ""},
		{planted("link"), ""},
		{planted("fifo"), ""},
		{planted("complete"), main},
		{planted("relative"), main},
		{planted("noback"), ""},
		{planted("bare"), ""},
		{planted("notgitdir"), ""},
		{planted("huge"), ""},
	} {
		if got, _ := linkedWorktreeMain(c.dir); got != c.want {
			t.Errorf("linkedWorktreeMain(%s) = %q, want %q", strings.TrimPrefix(c.dir, tmp), got, c.want)
		}
	}
}
