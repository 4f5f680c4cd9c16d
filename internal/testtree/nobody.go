//go:build unix

package testtree

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// Nobody is the unprivileged uid and gid RerunAsNobody runs a test as.
const Nobody = 65534

// RerunAsNobody lets a test that needs a failing permission check run
// where tests run as root (CI, the sandbox), who passes every such check.
// As root it copies the test binary where any user can run it, re-runs
// only t (-test.run, anchored) as uid and gid Nobody, fails t with the
// child's output if that run fails or did not run t, and returns true:
// the caller returns at once. Not as root it returns false and the caller
// runs its body here, as the unprivileged run itself does.
//
// The child inherits the working directory (the package's, as under go
// test) and gets a fresh TMPDIR any user can enter, so t.TempDir works.
func RerunAsNobody(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	dir, self := SharedTestBinary(t)
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, 0o777); err != nil { // whatever the umask
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run="+anchoredRun(t.Name()), "-test.count=1", "-test.v")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + tmp, "TMPDIR=" + tmp}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: Nobody, Gid: Nobody}}
	out, err := cmd.CombinedOutput()
	t.Logf("re-ran as uid %d:\n%s", Nobody, out)
	switch {
	case err != nil:
		t.Fatalf("as uid %d: %v", Nobody, err)
	case strings.Contains(string(out), "--- SKIP: "+t.Name()+" "):
		t.Skipf("skipped as uid %d", Nobody)
	case !strings.Contains(string(out), "--- PASS: "+t.Name()+" "):
		t.Fatalf("as uid %d: %s did not run", Nobody, t.Name())
	}
	return true
}

// SharedTestBinary is a new temporary directory every user can enter and
// read (as can every directory t.TempDir made above it) and in it a copy
// of the running test binary every user can run, for a test that runs a
// test function of its own as another user: go test builds the binary in
// a directory only its owner may enter.
func SharedTestBinary(t *testing.T) (dir, bin string) {
	t.Helper()
	dir = worldDir(t)
	return dir, copyTestBinary(t, dir)
}

// worldDir is a new temporary directory every user can enter and read,
// as can every directory t.TempDir made above it.
func worldDir(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	for _, d := range []string{filepath.Dir(base), base} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

// copyTestBinary copies the running test binary into dir, executable by
// all: go test builds it in a directory only its owner may enter.
func copyTestBinary(t *testing.T, dir string) string {
	t.Helper()
	bin, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	self := filepath.Join(dir, filepath.Base(os.Args[0]))
	if err := os.WriteFile(self, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(self, 0o755); err != nil { // whatever the umask
		t.Fatal(err)
	}
	return self
}

// anchoredRun is the -test.run pattern matching the test (or subtest)
// name and nothing else: each level quoted and anchored.
func anchoredRun(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}
