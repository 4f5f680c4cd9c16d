package harness

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/bundlectl/bundlectl/internal/overflowid"
)

const overflowLevelEnv = "BUNDLECTL_HARNESS_TEST_LEVEL_OUT"

// TestContainmentLevelAsUserProcess is the process
// TestOverflowUIDGetsNoUserNamespace runs as another uid: it writes the
// level a child would start at and the level a probe finds.
func TestContainmentLevelAsUserProcess(t *testing.T) {
	out := os.Getenv(overflowLevelEnv)
	if out == "" {
		t.Skip("run by TestOverflowUIDGetsNoUserNamespace")
	}
	got := presumedLevel().String() + " " + Containment().String()
	if err := os.WriteFile(out, []byte(got), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A bundlectl running as the overflow uid (nobody, 65534) never starts a
// child in a user namespace mapping only its own ids: there every file
// another user owns, root's included, would look like the child's own,
// and git's refusal of a repository another user owns, or ssh's of a
// config file, would pass. Here the test binary runs as uid 65534 and
// reports the level it would start a child at, and the one it probes.
func TestOverflowUIDGetsNoUserNamespace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a process as uid 65534")
	}
	if !overflowid.IsUID(65534) {
		t.Skip("this system's overflow uid is not 65534")
	}
	shared := t.TempDir()
	top := filepath.Dir(filepath.Dir(shared))
	for d := shared; d != "/" && d != top; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(shared, "harness.test")
	copyTestBinary(t, os.Args[0], bin)
	out := filepath.Join(shared, "level")
	cmd := exec.Command(bin, "-test.run=^TestContainmentLevelAsUserProcess$", "-test.count=1")
	cmd.Dir = shared
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + shared, overflowLevelEnv + "=" + out}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the process as uid 65534: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(got); s != "subreaper subreaper" && s != "process-group process-group" {
		t.Fatalf("uid 65534: presumed and probed levels %q; want no user namespace (the subreaper, or the process group alone)", s)
	}
}

// copyTestBinary copies the program at from to a new file to, mode 0755.
func copyTestBinary(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
