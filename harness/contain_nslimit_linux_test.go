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
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "outcome")
	cmd := exec.Command(self, "-test.run=^TestNamespaceLimitInOwnNamespace$", "-test.count=1")
	cmd.Env = append(os.Environ(), nsLimitEnv+"="+out)
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
