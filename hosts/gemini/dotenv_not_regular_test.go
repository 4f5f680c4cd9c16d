//go:build unix

package gemini

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// TestDotEnvNotRegular: a folder's .env that links to a FIFO (or to
// /dev/stdin, a terminal) is picked by Gemini CLI's walk, which stats it;
// setup read it with os.ReadFile, whose open of a FIFO blocks until a
// writer comes: setup, list and exec hung. A .env that is not a regular
// file is now not opened, and sets nothing. The test stands a writer at
// the FIFO: its open returns only once a reader opens the FIFO, and it
// counts it before it closes, which ends such a reader's read, so whether
// setup opened the FIFO is known when setup returns, without a timer.
func TestDotEnvNotRegular(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	user, ws := filepath.Join(home, ".gemini"), filepath.Join(home, "ws")
	writeTestFile(t, filepath.Join(user, "trustedFolders.json"), `{"`+ws+`": "TRUST_FOLDER"}`)
	fifo := filepath.Join(root, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fifo, filepath.Join(ws, ".env")); err != nil {
		t.Fatal(err)
	}
	// The writer opens the FIFO again each time a reader has: setup read
	// the file more than once, and a reader with no writer blocks.
	var opened atomic.Int32
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil || stop.Load() {
				if err == nil {
					w.Close()
				}
				return
			}
			opened.Add(1)
			w.Close()
		}
	}()
	env := []string{"HOME=" + home, "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(root, "system.json")}
	if err := (Host{}).SetupHooksOff(hosts.SetupInput{Environ: env, Reentry: hosts.Reentry{Workspace: ws}}); err != nil {
		t.Errorf("SetupHooksOff = %v, want nil", err)
	}
	if n := opened.Load(); n > 0 {
		t.Errorf("setup opened the FIFO %s linked as the folder's .env %d times: with no writer it would have blocked", fifo, n)
	}
	// Let the writer's open return, and the writer end.
	stop.Store(true)
	if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
		<-done
		r.Close()
	}
}
