package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var bundlectlBin struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// Bundlectl builds cmd/bundlectl once per test process and returns the
// binary's path: the end-to-end tests drive the real CLI, as a user would.
func Bundlectl(t testing.TB) string {
	t.Helper()
	bundlectlBin.once.Do(func() {
		bundlectlBin.dir, bundlectlBin.err = os.MkdirTemp("", "agenttest-bundlectl-")
		if bundlectlBin.err != nil {
			return
		}
		bundlectlBin.path = filepath.Join(bundlectlBin.dir, "bundlectl")
		out, err := exec.Command("go", "build", "-o", bundlectlBin.path, "github.com/bundlectl/bundlectl/cmd/bundlectl").CombinedOutput()
		if err != nil {
			bundlectlBin.err = fmt.Errorf("go build bundlectl: %v\n%s", err, out)
		}
	})
	if bundlectlBin.err != nil {
		t.Fatalf("agenttest: %v", bundlectlBin.err)
	}
	return bundlectlBin.path
}

// CleanupBundlectl removes the built bundlectl; call it from TestMain.
func CleanupBundlectl() {
	if bundlectlBin.dir != "" {
		os.RemoveAll(bundlectlBin.dir)
	}
}

// BundlectlRun runs the built bundlectl with args, HOME and BUNDLECTL_HOME
// set, and returns its stdout; a non-zero exit fails the test.
func BundlectlRun(t testing.TB, home string, args ...string) string {
	t.Helper()
	out, errOut, err := bundlectlRun(t, home, args...)
	if err != nil {
		t.Fatalf("bundlectl %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// ReviewWarnings runs `bundlectl review --json` on the bundle at root,
// in a fresh home, and returns its warnings' rule and field path, and the
// whole output for a failure message.
func ReviewWarnings(t testing.TB, root string) ([]ReviewWarning, string) {
	t.Helper()
	var review struct {
		Warnings []ReviewWarning `json:"warnings"`
	}
	out := BundlectlRun(t, t.TempDir(), "review", "--json", root)
	if err := json.Unmarshal([]byte(out), &review); err != nil {
		t.Fatalf("review --json: %v\n%s", err, out)
	}
	return review.Warnings, out
}

// ReviewWarning is one warning of `bundlectl review --json`.
type ReviewWarning struct {
	Rule    string `json:"rule"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

func bundlectlRun(t testing.TB, home string, args ...string) (string, string, error) {
	t.Helper()
	return BundlectlEnv(t, home, nil, args...)
}

// BundlectlEnv runs the built bundlectl with extra environment entries and
// returns its stdout, stderr and error.
func BundlectlEnv(t testing.TB, home string, env []string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), HangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, Bundlectl(t), append([]string{"--home", home}, args...)...)
	cmd.Env = append(append(os.Environ(), "BUNDLECTL_HOME="+home), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 30 * time.Second
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// Writable restores the owner's write bit under root (snapshots and views
// are read-only), so that a test's temporary directory can be removed.
func Writable(root string) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
}
