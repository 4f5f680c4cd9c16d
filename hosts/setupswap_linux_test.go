package hosts

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// TestSetupKeepsAHostWriteWhenTheFileGoes: a host's write renamed into
// place after setup's re-read (so the exchange hands setup the host's
// file), and the settings file then removed before setup could exchange
// back (a host that saves by removing and re-creating it, or the user):
// the host's content is only under setup's temporary name. Setup once
// removed that name on its way out, and the user's settings were gone;
// it now puts the file back where it was and says to run setup again.
func TestSetupKeepsAHostWriteWhenTheFileGoes(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(userSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	hosts := strings.Replace(userSettings, `"theme": "dark"`, `"theme": "the host's"`, 1)
	testOnlyBeforeRename = func(p string) {
		if p == user {
			hostWrite(t, user, hosts)
		}
	}
	testOnlyAfterExchange = func(p string) {
		if p == user {
			if out, err := exec.Command("rm", "-f", user).CombinedOutput(); err != nil {
				t.Fatalf("rm: %v\n%s", err, out)
			}
		}
	}
	defer func() { testOnlyBeforeRename, testOnlyAfterExchange = func(string) {}, func(string) {} }()
	_, err := Setup(home, fakeHost{dir}, SetupInput{})
	if !errors.Is(err, errChanged) {
		t.Fatalf("Setup = %v, want the file named as changed", err)
	}
	if b, err := os.ReadFile(user); err != nil || string(b) != hosts {
		t.Fatalf("the host's write was lost: %v\n%s", err, b)
	}
	if left := pendingBeside(t, user); len(left) != 0 {
		t.Errorf("left beside the file: %q", left)
	}
}

// otherSetupHost is a second host whose setup edits fakeHost's user.json
// too, under another $BUNDLECTL_HOME (so no lock of setup's keeps the
// two apart).
type otherSetupHost struct{ fakeHost }

func (otherSetupHost) Name() string { return "other" }
func (h otherSetupHost) Setup(SetupInput) ([]FileEdit, error) {
	e := EditJSON(func(r *JSON) { ApplyNames(r, "enabledMcpjsonServers", []string{"other"}) })
	return []FileEdit{{Path: filepath.Join(h.dir, "user.json"), Mode: 0o600, Apply: e, Strip: e}}, nil
}

// TestSetupKeepsAHostWriteUnderAnotherSetup: a host's write renamed into
// place after setup's re-read (the exchange hands it to setup), and,
// before setup can exchange back, a second setup (another
// $BUNDLECTL_HOME) writing the file, built on the first's version: the
// host's write is only under the first setup's temporary name. Setup
// once removed it there, saying it kept the change; it now keeps that
// file under a name of its own, names it, and its hint compares the two.
func TestSetupKeepsAHostWriteUnderAnotherSetup(t *testing.T) {
	home, home2, dir := t.TempDir(), t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(userSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	hosts := strings.Replace(userSettings, `"theme": "dark"`, `"theme": "the host's"`, 1)
	wrote, second := false, false
	testOnlyBeforeRename = func(p string) {
		if p == user && !wrote {
			wrote = true
			hostWrite(t, user, hosts)
		}
	}
	testOnlyAfterExchange = func(p string) {
		if p == user && !second {
			second = true
			if _, err := Setup(home2, otherSetupHost{fakeHost{dir}}, SetupInput{}); err != nil {
				t.Fatalf("the second setup: %v", err)
			}
		}
	}
	defer func() { testOnlyBeforeRename, testOnlyAfterExchange = func(string) {}, func(string) {} }()
	_, err := Setup(home, fakeHost{dir}, SetupInput{})
	var fe *SetupFileError
	var kept *replacedKeptError
	if !errors.As(err, &fe) || !errors.As(err, &kept) {
		t.Fatalf("Setup = %v, want the file it replaced named as kept", err)
	}
	if b, err := os.ReadFile(kept.Kept); err != nil || string(b) != hosts {
		t.Fatalf("the host's write is not at %s: %v\n%s", kept.Kept, err, b)
	}
	if want := "diff " + kept.Kept + " " + user; fe.Hint() != want {
		t.Errorf("hint %q, want %q", fe.Hint(), want)
	}
	if !strings.Contains(err.Error(), "another file took its place since") || !strings.Contains(err.Error(), kept.Kept) {
		t.Errorf("message %q", err)
	}
	// Not a killed setup's file: the next setup leaves it.
	testOnlyBeforeRename, testOnlyAfterExchange = func(string) {}, func(string) {}
	if _, err := Setup(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(kept.Kept); err != nil || string(b) != hosts {
		t.Errorf("the next setup did not leave %s: %v", kept.Kept, err)
	}
}

// TestSetupKilledAfterExchangeKeepsAHostWrite: a host's write renamed
// into place after setup's re-read, and setup SIGKILLed right after the
// exchange, before it could see that the file it replaced is not the one
// it read and exchange back: the temporary name holds the host's write,
// the only copy of it. The next setup once removed it as a killed
// setup's leftover; it now keeps it under a kept name, says so, and
// its note compares it with the settings file.
func TestSetupKilledAfterExchangeKeepsAHostWrite(t *testing.T) {
	hosts := strings.Replace(userSettings, `"theme": "dark"`, `"theme": "the host's"`, 1)
	if os.Getenv("BUNDLECTL_TEST_SETUP_KILL_AT") == "TestSetupKilledAfterExchangeKeepsAHostWrite" {
		user := filepath.Join(os.Getenv("BUNDLECTL_TEST_DIR"), "user.json")
		testOnlyBeforeRename = func(p string) {
			if p == user {
				hostWrite(t, user, hosts)
			}
		}
	}
	home, dir, user, _ := setupKilledAt(t, "TestSetupKilledAfterExchangeKeepsAHostWrite", &testOnlyAfterExchange)
	left := pendingBeside(t, user)
	if len(left) != 2 || left[1] != left[0]+lockSuffix {
		t.Fatalf("the killed setup left %q beside the file", left)
	}
	if b, _ := os.ReadFile(left[0]); string(b) != hosts {
		t.Fatalf("the temporary name holds:\n%s\nwant the host's write", b)
	}
	res, err := Setup(home, fakeHost{dir}, SetupInput{})
	if err != nil {
		t.Fatal(err)
	}
	kept := strings.Replace(left[0], pendingMark, ".bundlectl-kept-", 1)
	if b, err := os.ReadFile(kept); err != nil || string(b) != hosts {
		t.Fatalf("the host's write is not at %s: %v\n%s", kept, err, b)
	}
	if got := pendingBeside(t, user); !slices.Equal(got, []string{kept}) {
		t.Errorf("beside the file after setup: %q, want only %q", got, kept)
	}
	want := "diff " + kept + " " + user
	if len(res) == 0 || !slices.ContainsFunc(res[0].Notes, func(n string) bool { return strings.HasPrefix(n, "kept ") && strings.HasSuffix(n, want) }) {
		t.Errorf("setup did not say it kept %s (ending %q): %+v", kept, want, res)
	}
	// And the next setup leaves it.
	if _, err := Setup(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(kept); err != nil || string(b) != hosts {
		t.Errorf("the next setup did not leave %s: %v", kept, err)
	}
}

// TestSetupKeepsAHostWriteItCouldNotRename: as
// TestSetupKeepsAHostWriteUnderAnotherSetup, with the kept name taken by
// a directory, so keepReplaced's rename fails (as ENOSPC or EDQUOT would
// fail it): the host's write stays under setup's temporary name, its
// lock file removed, and the error names that name. The next setup once
// removed it there as a killed setup's leftover; it now keeps it (it
// holds neither what setup wrote nor what it read), and says where.
func TestSetupKeepsAHostWriteItCouldNotRename(t *testing.T) {
	home, home2, dir := t.TempDir(), t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(userSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	hosts := strings.Replace(userSettings, `"theme": "dark"`, `"theme": "the host's"`, 1)
	wrote, second := false, false
	testOnlyBeforeRename = func(p string) {
		if p == user && !wrote {
			wrote = true
			hostWrite(t, user, hosts)
		}
	}
	testOnlyAfterExchange = func(p string) {
		if p == user && !second {
			second = true
			for _, l := range pendingBeside(t, user) {
				if !strings.HasSuffix(l, lockSuffix) {
					kept := strings.Replace(l, pendingMark, ".bundlectl-kept-", 1)
					if err := os.MkdirAll(filepath.Join(kept, "in"), 0o700); err != nil {
						t.Fatal(err)
					}
				}
			}
			if _, err := Setup(home2, otherSetupHost{fakeHost{dir}}, SetupInput{}); err != nil {
				t.Fatalf("the second setup: %v", err)
			}
		}
	}
	defer func() { testOnlyBeforeRename, testOnlyAfterExchange = func(string) {}, func(string) {} }()
	_, err := Setup(home, fakeHost{dir}, SetupInput{})
	var fe *SetupFileError
	var kept *replacedKeptError
	if !errors.As(err, &fe) || !errors.As(err, &kept) {
		t.Fatalf("Setup = %v, want the file it replaced named as kept", err)
	}
	if !strings.Contains(kept.Kept, pendingMark) {
		t.Fatalf("kept as %s: the rename to the kept name was not refused", kept.Kept)
	}
	if b, err := os.ReadFile(kept.Kept); err != nil || string(b) != hosts {
		t.Fatalf("the host's write is not at %s: %v\n%s", kept.Kept, err, b)
	}
	if want := "diff " + kept.Kept + " " + user; fe.Hint() != want || !strings.Contains(err.Error(), kept.Kept) {
		t.Errorf("message %q, hint %q, want %q", err, fe.Hint(), want)
	}
	testOnlyBeforeRename, testOnlyAfterExchange = func(string) {}, func(string) {}
	for range 2 {
		res, err := Setup(home, fakeHost{dir}, SetupInput{})
		if err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(kept.Kept); err != nil || string(b) != hosts {
			t.Fatalf("the next setup did not leave %s: %v", kept.Kept, err)
		}
		want := "diff " + kept.Kept + " " + user
		if len(res) == 0 || !slices.ContainsFunc(res[0].Notes, func(n string) bool { return strings.HasPrefix(n, "kept ") && strings.HasSuffix(n, want) }) {
			t.Errorf("setup did not say it kept %s: %+v", kept.Kept, res)
		}
	}
}

// The same leftover found by --undo rather than setup: --undo's cleanup
// kept it too, but said nothing of it (removeLeftovers' answer was
// dropped), so the host's write went out of sight under a hidden name.
func TestUndoKilledAfterExchangeSaysItKeptAHostWrite(t *testing.T) {
	hosts := strings.Replace(userSettings, `"theme": "dark"`, `"theme": "the host's"`, 1)
	if os.Getenv("BUNDLECTL_TEST_SETUP_KILL_AT") == "TestUndoKilledAfterExchangeSaysItKeptAHostWrite" {
		user := filepath.Join(os.Getenv("BUNDLECTL_TEST_DIR"), "user.json")
		testOnlyBeforeRename = func(p string) {
			if p == user {
				hostWrite(t, user, hosts)
			}
		}
	}
	home, dir, user, _ := setupKilledAt(t, "TestUndoKilledAfterExchangeSaysItKeptAHostWrite", &testOnlyAfterExchange)
	left := pendingBeside(t, user)
	if len(left) != 2 || left[1] != left[0]+lockSuffix {
		t.Fatalf("the killed setup left %q beside the file", left)
	}
	res, _ := Undo(home, fakeHost{dir}, SetupInput{})
	kept := strings.Replace(left[0], pendingMark, ".bundlectl-kept-", 1)
	if b, err := os.ReadFile(kept); err != nil || string(b) != hosts {
		t.Fatalf("the host's write is not at %s: %v\n%s", kept, err, b)
	}
	want := "diff " + kept + " " + user
	if !slices.ContainsFunc(res, func(u UndoResult) bool {
		return u.Path == user && strings.HasPrefix(u.Kept, "kept ") && strings.HasSuffix(u.Kept, want)
	}) {
		t.Errorf("--undo did not say it kept %s (ending %q): %+v", kept, want, res)
	}
}
