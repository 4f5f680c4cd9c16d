package sources

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bundlectl/bundlectl/internal/overflowid"
	"github.com/bundlectl/bundlectl/internal/testtree"
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
	if !overflowid.IsUID(65534) {
		t.Skip("this system's overflow uid is not 65534")
	}
	r := pluginRepo(t)
	r.commit("one")
	// Everything the other uid reaches: the repository (read), the test
	// binary (run), the fetch's parent and the outcome file (write).
	shared, bin := testtree.SharedTestBinary(t)
	top := filepath.Dir(filepath.Dir(shared)) // the system's temporary directory
	for d := r.dir; d != "/" && d != top; d = filepath.Dir(d) {
		lockMust(t, os.Chmod(d, 0o755))
	}
	lockMust(t, os.Chmod(shared, 0o777))
	lockMust(t, exec.Command("chmod", "-R", "a+rX", r.dir).Run())
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

// ssh accepts a ~/.ssh/config that root owns (as configuration
// management writes one), and so must a fetch over ssh: git's ssh starts
// in no user namespace, where root would show as the overflow id and ssh
// would refuse the file ("Bad owner or permissions"). Here a user made
// for the test (a passwd file bound over /etc/passwd in a mount
// namespace of the test's own), whose ~/.ssh/config root owns, fetches
// over ssh from a listener that closes each connection: the fetch fails
// for the connection, not for the config. (In a user namespace, ssh
// refused the config: OpenSSH 9.2p1.)
func TestSSHFetchAcceptsRootOwnedConfig(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("ssh is not installed")
	}
	if !namespaceWorks(nsUserPID) {
		t.Skip("this host makes no user namespace")
	}
	const uid = 61234
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	lockMust(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	shared, bin := testtree.SharedTestBinary(t)
	home := filepath.Join(shared, "home")
	lockMust(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o755))
	config := filepath.Join(home, ".ssh", "config")
	lockMust(t, os.WriteFile(config, []byte("Host *\n  StrictHostKeyChecking yes\n"), 0o644))
	lockMust(t, os.Chown(home, uid, uid))
	lockMust(t, os.Chown(filepath.Join(home, ".ssh"), uid, uid))
	parent := filepath.Join(shared, "tmp")
	lockMust(t, os.Mkdir(parent, 0o700))
	lockMust(t, os.Chown(parent, uid, uid))
	out := filepath.Join(home, "outcome")

	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home,
		asUserEnv + "=ssh://" + ln.Addr().String() + "/r.git", asUserEnv + "_PARENT=" + parent, asUserEnv + "_OUT=" + out}
	if b, err := testtree.RunAsMadeUser(t, uid, home, env, bin, "-test.run=^TestFetchAsUserProcess$", "-test.count=1"); err != nil {
		t.Fatalf("the fetching process: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	lockMust(t, err)
	t.Logf("fetch: %s", got)
	if string(got) == "ok" || strings.Contains(string(got), "Bad owner or permissions") {
		t.Fatalf("a fetch over ssh by a user whose ~/.ssh/config root owns: %q; want it to fail for the closed connection, as ssh does outside a user namespace", got)
	}
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
