//go:build unix

package hosts

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestSetupKilledAfterWriteUndoes: a setup SIGKILLed right after it wrote
// a file must not lose that file's content from before setup. It once
// wrote the record naming the file (and its backup) only after the file:
// the next setup then took the file, bundlectl's lines in it, for the one
// before setup, kept it as the backup, and --undo "restored" it with the
// lines still there.
func TestSetupKilledAfterWriteUndoes(t *testing.T) {
	if name := os.Getenv("BUNDLECTL_TEST_SETUP_KILL"); name != "" {
		home, dir := os.Getenv("BUNDLECTL_TEST_HOME"), os.Getenv("BUNDLECTL_TEST_DIR")
		testOnlyAfterConfigWrite = func(string) { syscall.Kill(os.Getpid(), syscall.SIGKILL) }
		for _, c := range setupCases {
			if c.name == name {
				Setup(home, c.host(dir), SetupInput{})
			}
		}
		t.Fatal("setup was not killed")
	}
	for _, c := range setupCases {
		t.Run(c.name, func(t *testing.T) { testSetupKilledAfterWriteUndoes(t, c) })
	}
}

func testSetupKilledAfterWriteUndoes(t *testing.T, c setupCase) {
	userSettings := c.settings
	home, dir := t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(userSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSetupKilledAfterWriteUndoes$")
	cmd.Env = append(os.Environ(), "BUNDLECTL_TEST_SETUP_KILL="+c.name, "BUNDLECTL_TEST_HOME="+home, "BUNDLECTL_TEST_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the setup process was not SIGKILLed: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(user); !strings.Contains(string(b), "hooks run PreToolUse") {
		t.Fatalf("the killed setup had not written the file:\n%s", b)
	}
	// Temporary files renameio leaves are its own, never the file.
	if _, err := Setup(home, c.host(dir), SetupInput{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Undo(home, c.host(dir), SetupInput{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(user); string(b) != userSettings {
		t.Errorf("undo after a killed setup left:\n%s\nwant the file as before setup:\n%s", b, userSettings)
	}
}

// TestSetupKeepsAConcurrentWrite: the host rewriting its settings between
// setup's read and its write (Claude Code rewrites settings.json itself)
// keeps its change: setup writes nothing to that file and says to run it
// again, which then wires the file with the change in it.
func TestSetupKeepsAConcurrentWrite(t *testing.T) {
	for _, c := range setupCases {
		t.Run(c.name, func(t *testing.T) { testSetupKeepsAConcurrentWrite(t, c) })
	}
}

func testSetupKeepsAConcurrentWrite(t *testing.T, c setupCase) {
	userSettings := c.settings
	home, dir := t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(userSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	hosts := strings.Replace(userSettings, `"theme": "dark"`, `"theme": "the host's"`, 1)
	testOnlyBeforeConfigWrite = func(p string) {
		if p == user {
			os.WriteFile(user, []byte(hosts), 0o640)
		}
	}
	defer func() { testOnlyBeforeConfigWrite = func(string) {} }()
	_, err := Setup(home, c.host(dir), SetupInput{})
	var fe *SetupFileError
	if !errors.As(err, &fe) || !errors.Is(err, errChanged) || fe.Hint() != "bundlectl setup fake" {
		t.Fatalf("Setup = %v, want the file named as changed", err)
	}
	if b, _ := os.ReadFile(user); string(b) != hosts {
		t.Fatalf("the host's write was lost:\n%s", b)
	}
	testOnlyBeforeConfigWrite = func(string) {}
	if _, err := Setup(home, c.host(dir), SetupInput{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(user); !strings.Contains(string(b), `"the host's"`) || !strings.Contains(string(b), "hooks run PreToolUse") {
		t.Errorf("setup run again:\n%s", b)
	}
	if _, err := Undo(home, c.host(dir), SetupInput{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(user); string(b) != hosts {
		t.Errorf("undo left:\n%s\nwant the host's write, without setup's lines:\n%s", b, hosts)
	}
}

// TestUndoKeepsAConcurrentWrite: the host rewriting its settings between
// --undo's read and its write keeps its change, as under setup
// (TestSetupKeepsAConcurrentWrite): undo writes nothing to that file and
// says to run it again, which then takes out setup's lines alone. Undo
// once restored the backup over the host's write.
func TestUndoKeepsAConcurrentWrite(t *testing.T) {
	for _, c := range setupCases {
		t.Run(c.name, func(t *testing.T) { testUndoKeepsAConcurrentWrite(t, c) })
	}
}

func testUndoKeepsAConcurrentWrite(t *testing.T, c setupCase) {
	userSettings := c.settings
	home, dir := t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(userSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := Setup(home, c.host(dir), SetupInput{}); err != nil {
		t.Fatal(err)
	}
	wired, err := os.ReadFile(user)
	if err != nil {
		t.Fatal(err)
	}
	hosts := strings.Replace(string(wired), `"theme": "dark"`, `"theme": "the host's"`, 1)
	testOnlyBeforeConfigWrite = func(p string) {
		if p == user {
			os.WriteFile(user, []byte(hosts), 0o640)
		}
	}
	defer func() { testOnlyBeforeConfigWrite = func(string) {} }()
	_, err = Undo(home, c.host(dir), SetupInput{})
	var fe *SetupFileError
	if !errors.As(err, &fe) || !errors.Is(err, errChanged) || fe.Hint() != "bundlectl setup fake --undo" || !strings.Contains(err.Error(), "(bundlectl setup fake --undo)") {
		t.Fatalf("Undo = %v, want the file named as changed", err)
	}
	if b, _ := os.ReadFile(user); string(b) != hosts {
		t.Fatalf("the host's write was lost:\n%s", b)
	}
	testOnlyBeforeConfigWrite = func(string) {}
	if _, err := Undo(home, c.host(dir), SetupInput{}); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(userSettings, `"theme": "dark"`, `"theme": "the host's"`, 1)
	if b, _ := os.ReadFile(user); string(b) != want {
		t.Errorf("undo run again left:\n%s\nwant the host's write, without setup's lines:\n%s", b, want)
	}
}

// TestSetupKilledPendingIsRemoved: a setup SIGKILLed with the new content
// in its temporary file, before the rename, leaves that file and its lock
// file beside the settings file (the file itself whole, as it was). The next setup
// removes it, and says so, where it once stayed there for good; it
// leaves alone a file it cannot prove is such a one: a file of the
// user's of a like name, and one of a setup whose process still runs.
func TestSetupKilledPendingIsRemoved(t *testing.T) {
	home, dir, user, pid := setupKilledAt(t, "TestSetupKilledPendingIsRemoved", &testOnlyPendingWritten)
	if b, _ := os.ReadFile(user); string(b) != userSettings {
		t.Fatalf("the killed setup changed the file:\n%s", b)
	}
	left := pendingBeside(t, user)
	if len(left) != 2 || left[1] != left[0]+lockSuffix {
		t.Fatalf("the killed setup left %q beside the file, want its one temporary file and its lock file", left)
	}
	// Not setup's to remove: the user's own files of a like name (one
	// naming the killed process, gone, but not as setup names its
	// files), and a temporary file of a setup that still runs (this
	// process).
	// Nor files named exactly as setup names its own, which it did not
	// make: a lock file alone, a temporary file with no lock file (as a
	// bundlectl before the lock files left, its process gone), and one
	// whose lock file holds no mark of setup's (setup once removed each).
	mine := filepath.Join(dir, ".user.json.bundlectl-setup-"+strconv.Itoa(pid)+"-")
	keep := []string{
		filepath.Join(dir, ".user.json5"),
		filepath.Join(dir, ".user.json.bundlectl-setup-"+strconv.Itoa(pid)+"-my copy.bak"),
		filepath.Join(dir, ".user.json.bundlectl-setup-"+strconv.Itoa(os.Getpid())+"-live"),
		mine + "lone" + lockSuffix,
		mine + "nolock",
		mine + "unmarked", mine + "unmarked" + lockSuffix,
	}
	for _, k := range keep {
		if err := os.WriteFile(k, []byte("mine"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Setup(home, fakeHost{dir}, SetupInput{})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keep)
	if got := pendingBeside(t, user); !slices.Equal(got, keep) {
		t.Errorf("beside the file after setup: %q, want only %q", got, keep)
	}
	if len(res) == 0 || !slices.ContainsFunc(res[0].Notes, func(n string) bool { return strings.Contains(n, filepath.Base(left[0])) }) {
		t.Errorf("setup did not say it removed %s: %+v", left[0], res)
	}
	if b, _ := os.ReadFile(user); !strings.Contains(string(b), "hooks run PreToolUse") {
		t.Errorf("setup after the kill did not wire the file:\n%s", b)
	}
}

// gateHost is fakeHost whose host's settings keep the hook lines from
// running (HooksGate): setup refuses before it plans any file.
type gateHost struct{ fakeHost }

func (h gateHost) SetupHooksOff(SetupInput) error {
	return &HooksOffError{Host: "fake", File: filepath.Join(h.dir, "user.json"), Setting: "disableAllHooks: true"}
}

// TestRefusedSetupRemovesWhatAKilledOneLeft: a setup refused — by the
// host's switch, or a file it cannot parse — after one SIGKILLed before
// its rename, still removes the temporary file and lock file that one
// left beside the settings file, and so does a --undo of that home,
// under the setup lock: they once stayed until a setup that went
// through. (Another home's --undo keeps them: they are not its own.)
func TestRefusedSetupRemovesWhatAKilledOneLeft(t *testing.T) {
	for _, c := range []struct {
		name   string
		host   func(dir string) Host
		broken bool
		undo   bool // a --undo of the killed setup's home, whose file it never wrote
	}{
		{"gate", func(dir string) Host { return gateHost{fakeHost{dir}} }, false, false},
		{"unparsed", func(dir string) Host { return fakeHost{dir} }, true, false},
		{"nothing to undo", func(dir string) Host { return fakeHost{dir} }, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			home, dir, user, _ := setupKilledAt(t, "TestRefusedSetupRemovesWhatAKilledOneLeft", &testOnlyPendingWritten)
			if left := pendingBeside(t, user); len(left) != 2 {
				t.Fatalf("the killed setup left %q, want its temporary file and lock file", left)
			}
			if c.broken {
				if err := os.WriteFile(user, []byte(`{"theme": "dark",}`), 0o640); err != nil {
					t.Fatal(err)
				}
			}
			if c.undo {
				if res, err := Undo(home, c.host(dir), SetupInput{}); err != nil {
					t.Fatalf("--undo of the killed setup's home = %v, %v", res, err)
				}
			} else if _, err := Setup(home, c.host(dir), SetupInput{}); err == nil {
				t.Fatal("setup was not refused")
			}
			if left := pendingBeside(t, user); len(left) != 0 {
				t.Errorf("left beside the file after a refused setup: %q", left)
			}
			if c.name != "gate" {
				return
			}
			// A refusal with a home that is not there (a mistyped
			// --home) creates none.
			missing := filepath.Join(t.TempDir(), "nohome")
			if _, err := Setup(missing, c.host(dir), SetupInput{}); err == nil {
				t.Fatal("setup was not refused")
			}
			if _, err := os.Lstat(missing); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a refused setup created the home %s: %v", missing, err)
			}
		})
	}
}

// pendingBeside lists the files beside p whose name starts with "." and
// p's name, as both setup's and renameio's temporary files do, sorted.
func pendingBeside(t *testing.T, p string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+"*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSetupKilledAfterExchange: a setup SIGKILLed after it exchanged the
// names, before it compared and removed the file it replaced, leaves the
// settings file wired and its temporary name holding the file as it was.
// The next setup removes that name, and its note does not say the file
// was not changed (it once did: it was); --undo then gives back the file
// as before setup.
func TestSetupKilledAfterExchange(t *testing.T) {
	home, dir, user, _ := setupKilledAt(t, "TestSetupKilledAfterExchange", &testOnlyAfterExchange)
	left := pendingBeside(t, user)
	if b, _ := os.ReadFile(user); !strings.Contains(string(b), "hooks run PreToolUse") || len(left) != 2 || left[1] != left[0]+lockSuffix {
		t.Fatalf("the killed setup left %q beside the file, and the file:\n%s", left, b)
	}
	if b, _ := os.ReadFile(left[0]); string(b) != userSettings {
		t.Fatalf("the temporary name holds:\n%s\nwant the file it replaced", b)
	}
	res, err := Setup(home, fakeHost{dir}, SetupInput{})
	if err != nil {
		t.Fatal(err)
	}
	if got := pendingBeside(t, user); len(got) != 0 {
		t.Errorf("left beside the file after setup: %q", got)
	}
	for _, n := range res[0].Notes {
		if strings.Contains(n, "not changed") {
			t.Errorf("note %q says the file was not changed; the killed setup had wired it", n)
		}
	}
	if _, err := Undo(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(user); string(b) != userSettings {
		t.Errorf("undo left:\n%s", b)
	}
}

// setupKilledAt runs the test named test again in a child process that
// sets up a fresh user settings file (userSettings) and SIGKILLs itself
// at seam, and returns the home, the settings directory, the file and the
// child's pid once it is known to have died of that SIGKILL. In the
// child it does not return.
func setupKilledAt(t *testing.T, test string, seam *func(string)) (home, dir, user string, pid int) {
	t.Helper()
	return setupKilledAtPath(t, test, seam, "")
}

// setupKilledAtPath is setupKilledAt, the child SIGKILLing itself at seam
// only for a path that holds when.
func setupKilledAtPath(t *testing.T, test string, seam *func(string), when string) (home, dir, user string, pid int) {
	t.Helper()
	if os.Getenv("BUNDLECTL_TEST_SETUP_KILL_AT") == test {
		*seam = func(p string) {
			if strings.Contains(p, os.Getenv("BUNDLECTL_TEST_SETUP_KILL_WHEN")) {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		}
		Setup(os.Getenv("BUNDLECTL_TEST_HOME"), fakeHost{os.Getenv("BUNDLECTL_TEST_DIR")}, SetupInput{})
		t.Fatal("setup was not killed")
	}
	home, dir = t.TempDir(), t.TempDir()
	user = filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(userSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), "BUNDLECTL_TEST_SETUP_KILL_AT="+test, "BUNDLECTL_TEST_SETUP_KILL_WHEN="+when, "BUNDLECTL_TEST_HOME="+home, "BUNDLECTL_TEST_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the setup process was not SIGKILLed: %v\n%s", err, out)
	}
	return home, dir, user, cmd.Process.Pid
}

// TestSetupKilledWritingItsOwnFiles: a setup SIGKILLed with its backup,
// its record, or its key of the tags (pendingKey), in renameio's temporary file, before the rename, leaves
// that file in $BUNDLECTL_HOME/setup/ (or its backups/), where it once
// stayed for good, one for every such kill. The next setup removes it,
// under the setup lock every writer there holds (so its writer is gone),
// and keeps a file there of another name; --undo then restores the file.
func TestSetupKilledWritingItsOwnFiles(t *testing.T) {
	for _, c := range []struct{ name, when, dir, temp string }{
		{"backup", string(filepath.Separator) + "backups" + string(filepath.Separator), "backups", ".fake-*"},
		{"record", "fake.json", "", ".fake.json*"},
		{"key", pendingKeyName, "", "." + pendingKeyName + "*"},
	} {
		t.Run(c.name, func(t *testing.T) {
			home, dir, user, _ := setupKilledAtPath(t, "TestSetupKilledWritingItsOwnFiles", &testOnlySetupTempWritten, c.when)
			where := filepath.Join(SetupDir(home), c.dir)
			left, err := filepath.Glob(filepath.Join(where, c.temp))
			if err != nil || len(left) != 1 {
				t.Fatalf("the killed setup left %q in %s, want one temporary file", left, where)
			}
			if b, _ := os.ReadFile(user); string(b) != userSettings {
				t.Fatalf("the killed setup changed the file:\n%s", b)
			}
			mine := filepath.Join(where, c.temp[:len(c.temp)-1]+"1.mine")
			if err := os.WriteFile(mine, []byte("mine"), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := Setup(home, fakeHost{dir}, SetupInput{}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Lstat(left[0]); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s stayed after the next setup (%v)", left[0], err)
			}
			if _, err := os.Lstat(mine); err != nil {
				t.Errorf("setup removed %s, not a temporary name of its own: %v", mine, err)
			}
			if _, err := Undo(home, fakeHost{dir}, SetupInput{}); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(user); string(b) != userSettings {
				t.Errorf("undo left:\n%s", b)
			}
		})
	}
}

// TestSetupPendingOfAnotherNamespaceKept: a setup still writing, whose
// pid, in its temporary file's name, is one of another pid namespace (a
// container's), so that kill(pid, 0) here says there is none, keeps its
// temporary file: another setup (another $BUNDLECTL_HOME) once removed
// it under it. A real second process holds its lock file; its pid in the
// names is made one that is gone here (a process that ran and was
// reaped), as another namespace's reads. Once that process is SIGKILLed,
// another home's setup still keeps both files (their tags are not of its
// key), and the next setup of the writer's home removes them, and an
// empty lock file alone of its own. A temporary file named as an older
// bundlectl named them, with no tag (an older bundlectl's, or the
// user's), whose process is gone, is kept: nothing proves it setup's (it
// was once removed).
func TestSetupPendingOfAnotherNamespaceKept(t *testing.T) {
	if os.Getenv("BUNDLECTL_TEST_SETUP_HOLD") != "" {
		testOnlyPendingWritten = func(string) {
			fmt.Println("pending")
			io.ReadAll(os.Stdin) // until the test kills this process
		}
		Setup(os.Getenv("BUNDLECTL_TEST_HOME"), fakeHost{os.Getenv("BUNDLECTL_TEST_DIR")}, SetupInput{})
		t.Fatal("setup was not killed")
	}
	home, other, dir := t.TempDir(), t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(userSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSetupPendingOfAnotherNamespaceKept$")
	cmd.Env = append(os.Environ(), "BUNDLECTL_TEST_SETUP_HOLD=1", "BUNDLECTL_TEST_HOME="+home, "BUNDLECTL_TEST_DIR="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "pending\n" {
		t.Fatalf("the writer said %q (%v), want it holding its temporary file", line, err)
	}
	left := pendingBeside(t, user)
	if len(left) != 2 || left[1] != left[0]+lockSuffix {
		t.Fatalf("beside the file: %q, want the writer's temporary file and its lock file", left)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(syscall.Kill(gone.Process.Pid, 0), syscall.ESRCH) {
		t.Skipf("pid %d was taken again at once", gone.Process.Pid)
	}
	// "<random>-<tag>": the pid is not in the tag
	_, rest, _ := strings.Cut(strings.TrimPrefix(filepath.Base(left[0]), ".user.json.bundlectl-setup-"), "-")
	prefix := filepath.Join(dir, ".user.json.bundlectl-setup-"+strconv.Itoa(gone.Process.Pid)+"-")
	pending := prefix + rest
	if err := os.Rename(left[0], pending); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(left[1], pending+lockSuffix); err != nil {
		t.Fatal(err)
	}
	older := prefix + "older"
	if err := os.WriteFile(older, []byte("an older bundlectl's"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Setup(other, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	// Glob's order: the writer's random name sorts either side of "older".
	if got, want := pendingBeside(t, user), slices.Sorted(slices.Values([]string{pending, pending + lockSuffix, older})); !slices.Equal(got, want) {
		t.Fatalf("beside the file while the writer runs: %q, want %q", got, want)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	killed = true
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the writer was not SIGKILLed: %v", cmd.ProcessState)
	}
	// Not the other home's to remove, the writer gone or not: nothing
	// proves them its own (another key).
	if _, err := Setup(other, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	if got, want := pendingBeside(t, user), slices.Sorted(slices.Values([]string{pending, pending + lockSuffix, older})); !slices.Equal(got, want) {
		t.Fatalf("beside the file after another home's setup: %q, want %q", got, want)
	}
	// and a lock file alone, empty, of a setup of this home killed the
	// moment after it created it
	lone := prefix + taggedRest(t, home, user, "lone1") + lockSuffix
	if err := os.WriteFile(lone, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := Setup(home, fakeHost{dir}, SetupInput{})
	if err != nil {
		t.Fatal(err)
	}
	if got := pendingBeside(t, user); !slices.Equal(got, []string{older}) {
		t.Errorf("beside the file once the writer was killed: %q, want only %q", got, older)
	}
	if len(res) == 0 || !slices.ContainsFunc(res[0].Notes, func(n string) bool { return strings.Contains(n, filepath.Base(pending)+`"`) }) {
		t.Errorf("setup did not say it removed %s: %+v", pending, res)
	}
}

// taggedRest is "<random>-<tag>", the end of a temporary name setup of
// home gives beside user with random part random.
func taggedRest(t *testing.T, home, user, random string) string {
	t.Helper()
	key, err := pendingKey(home, false)
	if err != nil || key == nil {
		t.Fatalf("the key of %s: %v, %v", home, key, err)
	}
	p, err := realPath(user)
	if err != nil {
		t.Fatal(err)
	}
	return random + "-" + pendingTag(key, p, random)
}

// keptHost is fakeHost with, first, a file setup leaves as it was (an
// .mcp.json with no server to add): its record holds the file's own
// digest, and its backup.
type keptHost struct{ fakeHost }

func (h keptHost) Setup(in SetupInput) ([]FileEdit, error) {
	edits, _ := h.fakeHost.Setup(in)
	same := func(cur []byte) ([]byte, error) { return cur, nil }
	kept := FileEdit{Path: filepath.Join(h.dir, "kept.json"), Mode: 0o644, Apply: same, Strip: same}
	return append([]FileEdit{kept}, edits[0]), nil
}

// TestUndoKilledBetweenFiles: a setup --undo SIGKILLed after it undid a
// file, before the next, is finished by the next --undo. It once removed
// the file's backup before the record that names it was written: killed
// between, the record still named the file, its backup gone, and every
// --undo after stopped on it ("the backup of …: no such file"), for a file
// setup had left as it was (an .mcp.json with no server to add).
func TestUndoKilledBetweenFiles(t *testing.T) {
	if at := os.Getenv("BUNDLECTL_TEST_UNDO_KILL"); at != "" {
		home, dir := os.Getenv("BUNDLECTL_TEST_HOME"), os.Getenv("BUNDLECTL_TEST_DIR")
		testOnlyAfterUndoRecord = func(p string) {
			if filepath.Base(p) == at {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		}
		Undo(home, keptHost{fakeHost{dir}}, SetupInput{})
		t.Fatal("undo was not killed")
	}
	// Killed at the first file, the next --undo has the second to undo;
	// at the last, nothing: either way it removes the backup the killed
	// one left (which once stayed for good), and the record.
	for _, at := range []string{"kept.json", "user.json"} {
		t.Run(at, func(t *testing.T) { testUndoKilledBetweenFiles(t, at) })
	}
}

func testUndoKilledBetweenFiles(t *testing.T, at string) {
	home, dir := t.TempDir(), t.TempDir()
	kept, user := filepath.Join(dir, "kept.json"), filepath.Join(dir, "user.json")
	for p, data := range map[string]string{kept: `{"mcpServers": {}}`, user: userSettings} {
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Setup(home, keptHost{fakeHost{dir}}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestUndoKilledBetweenFiles$")
	cmd.Env = append(os.Environ(), "BUNDLECTL_TEST_UNDO_KILL="+at, "BUNDLECTL_TEST_HOME="+home, "BUNDLECTL_TEST_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the undo process was not SIGKILLed: %v\n%s", err, out)
	}
	if _, err := Undo(home, keptHost{fakeHost{dir}}, SetupInput{}); err != nil {
		t.Fatalf("--undo after a killed --undo: %v", err)
	}
	if b, _ := os.ReadFile(user); string(b) != userSettings {
		t.Errorf("undo left:\n%s\nwant the file as before setup", b)
	}
	if _, err := os.Stat(recordPath(home, "fake")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the record stayed: %v", err)
	}
	if left, _ := os.ReadDir(filepath.Join(SetupDir(home), "backups")); len(left) != 0 {
		t.Errorf("backups left after the --undo that finished: %v", left)
	}
}

// TestSetupKilledPendingOfThisPidIsRemoved: a setup SIGKILLed before its
// rename, in another pid namespace whose setups get the same pid each
// run (a container's first process is pid 1 every time), leaves names
// with the pid the next setup has. Their tag and their free lock prove
// them a gone writer's of this home, and the next setup removes them:
// it once skipped every name of its own pid, so that such a leftover
// stayed for good. (The child's names are given this process's pid, as
// that namespace's next setup would see them: the tag does not cover the
// pid.)
func TestSetupKilledPendingOfThisPidIsRemoved(t *testing.T) {
	home, dir, user, pid := setupKilledAt(t, "TestSetupKilledPendingOfThisPidIsRemoved", &testOnlyPendingWritten)
	left := pendingBeside(t, user)
	if len(left) != 2 || left[1] != left[0]+lockSuffix {
		t.Fatalf("the killed setup left %q beside the file", left)
	}
	from, to := pendingMark+strconv.Itoa(pid)+"-", pendingMark+strconv.Itoa(os.Getpid())+"-"
	for _, l := range left {
		if err := os.Rename(l, filepath.Join(dir, strings.Replace(filepath.Base(l), from, to, 1))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Setup(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	if got := pendingBeside(t, user); len(got) != 0 {
		t.Errorf("left beside the file after setup: %q", got)
	}
}
