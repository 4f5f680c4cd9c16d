package sources

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const asUserEnv = "BUNDLECTL_SOURCES_TEST_AS_USER"

// TestFetchAsUserProcess is the process TestOverflowUIDGitRefusesOthersRepo
// starts under another uid: it fetches the source its environment names
// and writes the outcome to the file it names ("ok", or the error).
func TestFetchAsUserProcess(t *testing.T) {
	src := os.Getenv(asUserEnv)
	if src == "" {
		t.Skip("the process TestOverflowUIDGitRefusesOthersRepo starts")
	}
	parent, out := os.Getenv(asUserEnv+"_PARENT"), os.Getenv(asUserEnv+"_OUT")
	held, err := os.OpenRoot(parent)
	lockMust(t, err)
	outcome := "ok"
	if _, err := Fetch(context.Background(), parent, Request{Source: src}, Options{Parent: held}); err != nil {
		outcome = err.Error()
	}
	lockMust(t, os.WriteFile(out, []byte(outcome), 0o644))
}

// git refuses a repository another user owns ("dubious ownership"), as
// its configuration would run for this user. Run as the overflow uid
// (nobody, 65534) in a user namespace mapping only its own ids, git would
// see every other owner as that same id and take the repository for its
// own: so a process running as the overflow uid starts git in no user
// namespace. Here the test binary, run as uid 65534, fetches a
// repository root owns, and git must refuse it as it does outside a
// namespace. (With the user namespace, the fetch succeeded.)
func TestOverflowUIDGitRefusesOthersRepo(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a fetching process as uid 65534")
	}
	if !isOverflowUID(65534) {
		t.Skip("this system's overflow uid is not 65534")
	}
	r := pluginRepo(t)
	r.commit("one")
	// Everything the other uid reaches: the repository (read), the test
	// binary (run), the fetch's parent and the outcome file (write).
	shared := t.TempDir()
	top := filepath.Dir(filepath.Dir(shared)) // the system's temporary directory
	for d := r.dir; d != "/" && d != top; d = filepath.Dir(d) {
		lockMust(t, os.Chmod(d, 0o755))
	}
	lockMust(t, os.Chmod(shared, 0o777))
	lockMust(t, exec.Command("chmod", "-R", "a+rX", r.dir).Run())
	bin := filepath.Join(shared, "sources.test")
	copyExecutable(t, os.Args[0], bin)
	parent := filepath.Join(shared, "tmp")
	lockMust(t, os.Mkdir(parent, 0o700))
	lockMust(t, os.Chown(parent, 65534, 65534))
	out := filepath.Join(shared, "outcome")

	cmd := exec.Command(bin, "-test.run=^TestFetchAsUserProcess$", "-test.count=1")
	cmd.Dir = shared
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + shared,
		asUserEnv + "=" + r.url(), asUserEnv + "_PARENT=" + parent, asUserEnv + "_OUT=" + out}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the fetching process: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	lockMust(t, err)
	if !strings.Contains(string(got), "dubious ownership") {
		t.Fatalf("uid 65534 fetching a repository root owns: %q; want git's refusal (dubious ownership)", got)
	}
}

// copyExecutable copies the program at from to a new file to, mode 0755.
func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	lockMust(t, err)
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	lockMust(t, err)
	_, err = io.Copy(dst, src)
	lockMust(t, err)
	lockMust(t, dst.Close())
}

// An ssh remote's git starts in no user namespace, at any level: ssh
// refuses a ~/.ssh/config that neither root nor the user owns, and in a
// user namespace mapping only the user's ids root shows as the overflow
// id, so a config root owns (as ssh outside it accepts) is refused ("Bad
// owner or permissions"). Its PID namespace, which needs no mapping, is
// kept for root.
func TestSSHGitStartsInNoUserNamespace(t *testing.T) {
	setGitNamespaces(t, nsUserPID)
	if a := procAttr(true); a.Cloneflags&syscall.CLONE_NEWUSER != 0 || len(a.UidMappings) > 0 {
		t.Errorf("ssh remote at the user and PID namespace level: clone flags %#x, uid map %v; want no user namespace", a.Cloneflags, a.UidMappings)
	}
	if a := procAttr(false); a.Cloneflags&syscall.CLONE_NEWUSER == 0 {
		t.Errorf("other remote at the user and PID namespace level: clone flags %#x; want a user namespace", a.Cloneflags)
	}
	setGitNamespaces(t, nsPID)
	if a := procAttr(true); a.Cloneflags&syscall.CLONE_NEWPID == 0 {
		t.Errorf("ssh remote at the PID namespace level: clone flags %#x; want a PID namespace", a.Cloneflags)
	}
}
