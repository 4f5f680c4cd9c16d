package testtree

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// RunAsMadeUser runs bin with args and env as a user made for the test,
// uid and gid uid, whose home is home: the user's entry is appended to a
// copy of /etc/passwd bound over it in a mount namespace of the child's
// own (the host's file is untouched), so a program that looks the user
// up rather than reading $HOME — ssh — finds that home. It skips t unless
// it runs as root with unshare and setpriv installed, and returns the
// child's combined output. The child starts in /, which any user may enter.
func RunAsMadeUser(t *testing.T, uid int, home string, env []string, bin string, args ...string) ([]byte, error) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a user and a mount namespace")
	}
	for _, p := range []string{"unshare", "setpriv"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skip(p + " is not installed")
		}
	}
	passwd, err := os.ReadFile("/etc/passwd")
	if err != nil {
		t.Fatal(err)
	}
	id := strconv.Itoa(uid)
	file := filepath.Join(t.TempDir(), "passwd")
	entry := "bundlectltest:x:" + id + ":" + id + "::" + home + ":/bin/sh\n"
	if err := os.WriteFile(file, append(passwd, entry...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("unshare", append([]string{"-m", "--propagation", "private", "sh", "-c",
		`mount --bind "$1" /etc/passwd && shift && exec setpriv --reuid ` + id + ` --regid ` + id + ` --clear-groups "$@"`,
		"sh", file, bin}, args...)...)
	cmd.Dir = "/"
	cmd.Env = env
	return cmd.CombinedOutput()
}
