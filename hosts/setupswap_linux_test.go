package hosts

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hostWrite has another process write content to p as a host that saves
// its settings atomically does: a new file renamed into place.
func hostWrite(t *testing.T, p, content string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", `printf %s "$1" > "$2.host-tmp" && mv -f "$2.host-tmp" "$2"`, "sh", content, p)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the host's write: %v\n%s", err, out)
	}
}

// TestSetupKeepsAWriteBeforeRename: a host process saving its settings
// (a new file renamed into place) after setup's re-read and before its
// rename keeps its write: setup exchanges the two names in one step and
// finds the file it replaced is not the one it read, so it puts the
// host's back and says to run setup again. With a plain rename the host's
// write was lost; the re-read before it does not see a write that late.
// A file the host creates there, where setup found none, is kept too.
func TestSetupKeepsAWriteBeforeRename(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	created := filepath.Join(dir, "created.json")
	if err := os.WriteFile(user, []byte(userSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	hosts := strings.Replace(userSettings, `"theme": "dark"`, `"theme": "the host's"`, 1)
	testOnlyBeforeRename = func(p string) {
		switch p {
		case user:
			hostWrite(t, user, hosts)
		case created:
			hostWrite(t, created, `{"the host's": true}`)
		}
	}
	defer func() { testOnlyBeforeRename = func(string) {} }()
	_, err := Setup(home, fakeHost{dir}, SetupInput{})
	var fe *SetupFileError
	if !errors.As(err, &fe) || !errors.Is(err, errChanged) || fe.Path != user {
		t.Fatalf("Setup = %v, want %s named as changed", err, user)
	}
	if b, _ := os.ReadFile(user); string(b) != hosts {
		t.Fatalf("the host's write was lost:\n%s", b)
	}
	testOnlyBeforeRename = func(p string) {
		if p == created {
			hostWrite(t, created, `{"the host's": true}`)
		}
	}
	_, err = Setup(home, fakeHost{dir}, SetupInput{})
	if !errors.As(err, &fe) || !errors.Is(err, errChanged) || fe.Path != created {
		t.Fatalf("Setup = %v, want %s named as changed", err, created)
	}
	if b, _ := os.ReadFile(created); string(b) != `{"the host's": true}` {
		t.Fatalf("the host's new file was replaced:\n%s", b)
	}
	if left := pendingBeside(t, user); len(left) != 0 {
		t.Errorf("left beside the file: %q", left)
	}
	testOnlyBeforeRename = func(string) {}
	if _, err := Setup(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(user); !strings.Contains(string(b), `"the host's"`) || !strings.Contains(string(b), "hooks run PreToolUse") {
		t.Errorf("setup run again:\n%s", b)
	}
}

// TestSetupKeepsAnInPlaceWriteAfterExchange: a host writing its settings
// in place (truncate, write) through a file it opened before setup's
// rename writes into the file setup replaced; caught after the exchange
// (what it replaced is no longer what setup read), the host's file is
// put back, and setup says to run it again.
func TestSetupKeepsAnInPlaceWriteAfterExchange(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(userSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	hosts := strings.Replace(userSettings, `"theme": "dark"`, `"theme": "the host's"`, 1)
	var held *os.File
	testOnlyBeforeRename = func(p string) {
		if p == user {
			f, err := os.OpenFile(user, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			held = f
		}
	}
	testOnlyAfterExchange = func(p string) {
		if p == user {
			held.Truncate(0)
			held.WriteAt([]byte(hosts), 0)
			held.Close()
		}
	}
	defer func() { testOnlyBeforeRename, testOnlyAfterExchange = func(string) {}, func(string) {} }()
	_, err := Setup(home, fakeHost{dir}, SetupInput{})
	if !errors.Is(err, errChanged) {
		t.Fatalf("Setup = %v, want the file named as changed", err)
	}
	if b, _ := os.ReadFile(user); string(b) != hosts {
		t.Fatalf("the host's write was lost:\n%s", b)
	}
}

// TestSetupConcurrentHostWriterLosesNothing: another process rewrites
// the settings file again and again (each a new file renamed into place,
// as a host saves them), each time reading it first and checking that it
// holds the write it made last, while setup runs over and over. A setup
// that renamed its file over a write of the host's it had not read would
// put back an earlier one, which the host's next read sees, whatever the
// timing; and the file ends with the host's last write. Setup's refusals
// (errChanged) are expected; any other error fails.
func TestSetupConcurrentHostWriterLosesNothing(t *testing.T) {
	const writes = 3000
	if p := os.Getenv("BUNDLECTL_TEST_HOST_WRITER"); p != "" {
		theme := func(i int) string { return fmt.Sprintf(`"theme": "w%d"`, i) }
		for i := 1; i <= writes; i++ {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if i > 1 && !strings.Contains(string(b), theme(i-1)) {
				t.Fatalf("write %d was lost; the file holds:\n%s", i-1, b)
			}
			content := strings.Replace(userSettings, `"theme": "dark"`, theme(i), 1)
			if err := os.WriteFile(p+".w", []byte(content), 0o640); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(p+".w", p); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	home, dir := t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(userSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSetupConcurrentHostWriterLosesNothing$")
	cmd.Env = append(os.Environ(), "BUNDLECTL_TEST_HOST_WRITER="+user)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	runs := 0
	for finished := false; !finished; runs++ {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("the writer: %v\n%s", err, out.Bytes())
			}
			finished = true
		default:
		}
		if _, err := Setup(home, fakeHost{dir}, SetupInput{}); err != nil && !errors.Is(err, errChanged) {
			t.Fatalf("setup run %d: %v", runs, err)
		}
	}
	last := fmt.Sprintf(`"theme": "w%d"`, writes)
	if b, _ := os.ReadFile(user); !strings.Contains(string(b), last) {
		t.Errorf("after %d setups beside %d writes, the file does not hold the last write (%s):\n%s", runs, writes, last, b)
	}
}
