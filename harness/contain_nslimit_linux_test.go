//go:build linux

package harness

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const nsLimitEnv = "BUNDLECTL_HARNESS_TEST_NSLIMIT_OUT"

// TestNamespaceLimitInOwnNamespace is the process
// TestNamespaceLimitReachedMidRunFailsClosed starts in a user namespace
// of its own, as that namespace's root: it starts a child at the user and
// PID namespace level, lowers this namespace's own limit on user
// namespaces to none (/proc/sys/user/max_user_namespaces is per user
// namespace; the host's is untouched), starts another, and writes what
// the second start returned and whether its child ran.
func TestNamespaceLimitInOwnNamespace(t *testing.T) {
	out := os.Getenv(nsLimitEnv)
	if out == "" {
		t.Skip("run by TestNamespaceLimitReachedMidRunFailsClosed")
	}
	forceLevel(t, ContainUserPIDNamespace)
	marker := filepath.Join(t.TempDir(), "ran")
	spec := Spec{Argv: []string{"/bin/sh", "-c", `: > "$1"`, "sh", marker}, Dir: "/"}
	if _, err := Run(context.Background(), spec); err != nil {
		t.Fatalf("before the limit: %v", err)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatalf("the first child did not run: %v", err)
	}
	if err := os.WriteFile("/proc/sys/user/max_user_namespaces", []byte("0\n"), 0); err != nil {
		t.Fatalf("lowering this namespace's own limit: %v", err)
	}
	_, err := Run(context.Background(), spec)
	got := "started"
	var se *StartError
	if errors.As(err, &se) {
		got = "refused: " + err.Error()
		var h interface{ Hint() string }
		if errors.As(err, &h) {
			got += "\nhint: " + h.Hint()
		}
	} else if err != nil {
		got = "other error: " + err.Error()
	}
	if _, err := os.Stat(marker); err == nil {
		got += "\nthe child ran"
	}
	if err := os.WriteFile(out, []byte(got), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A harness that runs out of user namespaces mid-run (the user's limit,
// user.max_user_namespaces, reached by processes of its own) neither
// starts the child with weaker containment than the level in force nor
// says only "no space left on device": the start fails, nothing runs, and
// the error names the limit and ends with a command that lists the user
// namespaces. The test lowers the limit only inside a user namespace of
// its own.
func TestNamespaceLimitReachedMidRunFailsClosed(t *testing.T) {
	got := outcomeInOwnUserNamespace(t, "TestNamespaceLimitInOwnNamespace", nsLimitEnv)
	t.Logf("second start: %s", got)
	if !strings.HasPrefix(got, "refused: ") || strings.Contains(got, "the child ran") {
		t.Fatalf("a start after the user namespaces ran out: %q; want it refused and nothing run", got)
	}
	for _, want := range []string{"max_user_namespaces", "nothing ran", "\nhint: lsns -t user"} {
		if !strings.Contains(got, want) {
			t.Errorf("the refusal %q does not say %q", got, want)
		}
	}
}

const nsLimitFirstEnv = "BUNDLECTL_HARNESS_TEST_NSLIMIT_FIRST_OUT"

// TestNamespaceLimitFirstInOwnNamespace is the process
// TestNamespaceLimitReachedBeforeFirstChildFailsClosed starts in a user
// namespace of its own, as its root: it lowers this namespace's own limits
// on user and PID namespaces to one each, holds both with a child of its
// own that waits (another process of the same user using the namespaces
// up), and then starts the harness's first child, with nothing forced or
// probed before, and writes what the start returned, whether the child
// ran, and the level Containment reports.
func TestNamespaceLimitFirstInOwnNamespace(t *testing.T) {
	out := os.Getenv(nsLimitFirstEnv)
	if out == "" {
		t.Skip("run by TestNamespaceLimitReachedBeforeFirstChildFailsClosed")
	}
	for _, f := range []string{"max_user_namespaces", "max_pid_namespaces"} {
		if err := os.WriteFile("/proc/sys/user/"+f, []byte("1\n"), 0); err != nil {
			t.Fatalf("lowering this namespace's own %s: %v", f, err)
		}
	}
	hold := exec.Command("/bin/sh", "-c", "read x")
	hold.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID}
	w, err := hold.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := hold.Start(); err != nil {
		t.Fatalf("the process that holds the namespaces: %v", err)
	}
	defer func() { w.Close(); hold.Wait() }()
	marker := filepath.Join(t.TempDir(), "ran")
	spec := Spec{Argv: []string{"/bin/sh", "-c", `: > "$1"`, "sh", marker}, Dir: "/"}
	_, err = Run(context.Background(), spec)
	got := "started"
	var se *StartError
	if errors.As(err, &se) {
		got = "refused: " + err.Error()
	} else if err != nil {
		got = "other error: " + err.Error()
	}
	if _, err := os.Stat(marker); err == nil {
		got += "\nthe child ran"
	}
	got += "\nlevel: " + Containment().String()
	if err := os.WriteFile(out, []byte(got), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Another process of the same user (a bundle's MCP server, say, holding
// user namespaces it made) that uses up the user's namespaces before a
// bundlectl process starts its first child does not make that process
// run its children with the subreaper, whose orphans outlive a SIGKILLed
// bundlectl: the limit is above zero, so the host has namespaces, and the
// start fails closed as it does mid-run. (A limit of zero, namespaces
// turned off, still gives the subreaper.) The test lowers the limits only
// inside a user namespace of its own.
func TestNamespaceLimitReachedBeforeFirstChildFailsClosed(t *testing.T) {
	got := outcomeInOwnUserNamespace(t, "TestNamespaceLimitFirstInOwnNamespace", nsLimitFirstEnv)
	t.Logf("first start: %s", got)
	if !strings.HasPrefix(got, "refused: ") || strings.Contains(got, "the child ran") {
		t.Fatalf("a first start after the namespaces ran out: %q; want it refused and nothing run", got)
	}
	// As this namespace's root, the first start is at the PID namespace
	// level, whose limit is max_pid_namespaces.
	for _, want := range []string{"max_pid_namespaces", "nothing ran", "\nlevel: "} {
		if !strings.Contains(got, want) {
			t.Errorf("the refusal %q does not say %q", got, want)
		}
	}
	if strings.Contains(got, "\nlevel: "+ContainSubreaper.String()) || strings.Contains(got, "\nlevel: "+ContainProcessGroup.String()) {
		t.Errorf("the level in force weakened to a non-namespace one: %q", got)
	}
}

// outcomeInOwnUserNamespace runs the test named test of this binary in a
// user namespace of its own, as that namespace's root, with env naming the
// file it writes its outcome to, and returns that outcome.
func outcomeInOwnUserNamespace(t *testing.T, test, env string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "outcome")
	cmd := exec.Command(self, "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env+"="+out)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}},
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		if strings.Contains(err.Error(), "fork/exec") {
			t.Skipf("this host makes no user namespace: %v", err)
		}
		t.Fatalf("the process in a user namespace of its own: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	return got
}
