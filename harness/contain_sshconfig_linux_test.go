package harness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/testtree"
)

const sshConfigEnv = "BUNDLECTL_HARNESS_TEST_SSH_OUT"

// TestSSHConfigAsMadeUser is the process TestUserNamespaceSSHRootConfig
// runs as a user made for it: it runs ssh -G (which reads and checks
// ~/.ssh/config, and connects nowhere) as a tool, at the level this user
// presumes and at the subreaper, and writes each outcome.
func TestSSHConfigAsMadeUser(t *testing.T) {
	out := os.Getenv(sshConfigEnv)
	if out == "" {
		t.Skip("run by TestUserNamespaceSSHRootConfig")
	}
	ssh, err := exec.LookPath("ssh")
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Argv: []string{ssh, "-G", "example.invalid"}, Dir: "/", Env: []string{"HOME=" + os.Getenv("HOME")}}
	var b strings.Builder
	for _, l := range []ContainmentLevel{presumedLevel(), ContainSubreaper} {
		testOnlyContainment = l
		res, err := Run(context.Background(), spec)
		if err != nil {
			t.Fatalf("at %s: %v", l, err)
		}
		fmt.Fprintf(&b, "%s: exit %d: %s\n", l, res.ExitCode, strings.TrimSpace(string(res.Stderr)))
	}
	testOnlyContainment = 0
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A user without CAP_SYS_ADMIN gets its tools, hooks and servers in a
// user and PID namespace, so that nothing they start outlives a SIGKILLed
// bundlectl. That namespace maps only the user's own ids: root's files
// show as the overflow id (65534), and ssh, which trusts a ~/.ssh/config
// owned by root or the user, refuses one root owns there ("Bad owner or
// permissions"). bundlectl keeps the namespace (docs/harness.md says why
// and what to do); this pins, with real ssh as a user made for the test,
// that the refusal is ssh's and the namespace's: the same tool at the
// subreaper level reads the config, and so does it in the namespace once
// the user owns the config.
func TestUserNamespaceSSHRootConfig(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("ssh is not installed")
	}
	if !namespaceWorks(ContainUserPIDNamespace) {
		t.Skip("this host makes no user namespace")
	}
	const uid = 61235
	shared, bin := testtree.SharedTestBinary(t)
	home := filepath.Join(shared, "home")
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "config"), []byte("Host *\n  StrictHostKeyChecking yes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{home, filepath.Join(home, ".ssh")} {
		if err := os.Chown(d, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(home, "outcome")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + home, sshConfigEnv + "=" + out}
	if b, err := testtree.RunAsMadeUser(t, uid, home, env, bin, "-test.run=^TestSSHConfigAsMadeUser$", "-test.count=1"); err != nil {
		t.Fatalf("the process as the made user: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ssh -G as a tool:\n%s", got)
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "user+pid-namespace: exit 255: ") || !strings.Contains(lines[0], "Bad owner or permissions") {
		t.Errorf("at the user and PID namespace level: %q; want ssh's refusal of the config root owns", lines[0])
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "subreaper: exit 0: ") || strings.Contains(lines[1], "Bad owner") {
		t.Errorf("at the subreaper level: %q; want ssh to read the config", lines[len(lines)-1])
	}

	// The fix docs/harness.md gives: the user owns the config.
	if err := os.Chown(filepath.Join(home, ".ssh", "config"), uid, uid); err != nil {
		t.Fatal(err)
	}
	if b, err := testtree.RunAsMadeUser(t, uid, home, env, bin, "-test.run=^TestSSHConfigAsMadeUser$", "-test.count=1"); err != nil {
		t.Fatalf("the process as the made user: %v\n%s", err, b)
	}
	if got, err = os.ReadFile(out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), "user+pid-namespace: exit 0: ") || strings.Contains(string(got), "Bad owner") {
		t.Errorf("a config the user owns, at the user and PID namespace level: %q; want ssh to read it", got)
	}
}
