//go:build unix

package hosts

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
)

// TestSetupNeverActsOnAPlantedPair: a repository can ship, beside a
// workspace settings file, a temporary name and a lock file named as
// setup names its own, the lock file holding the plain-text marks a
// bundlectl before the tags wrote (or a tag that is not this home's);
// with write access to the directory, as the user or a tool of theirs,
// the temporary name can be a hard link to a file of the user's, a
// symbolic link to one, a directory or a FIFO. Setup, --undo and the
// setup after it remove none of them, write through none, and leave the
// file each leads to as it was: setup once removed every planted regular
// file and hard link, and their lock files, as its own.
func TestSetupNeverActsOnAPlantedPair(t *testing.T) {
	home, dir, other := t.TempDir(), t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(userSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(other, "secret")
	if err := os.WriteFile(secret, []byte("the user's own\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const oldMarks = "bundlectl setup: the lock of a temporary file\nbundlectl setup: its temporary file was created\n"
	prefix := filepath.Join(dir, ".user.json.bundlectl-setup-999999-")
	plant := map[string]func(string) error{
		"regular": func(p string) error { return os.WriteFile(p, []byte("planted"), 0o644) },
		"hardlnk": func(p string) error { return os.Link(secret, p) },
		"symlink": func(p string) error { return os.Symlink(secret, p) },
		"dir":     func(p string) error { return os.Mkdir(p, 0o755) },
		"fifo":    func(p string) error { return syscall.Mkfifo(p, 0o644) },
	}
	type planted struct {
		name string
		fi   os.FileInfo
	}
	var all []planted
	for kind, make := range plant {
		for _, rest := range []string{
			kind,                                 // as a bundlectl before the tags named them
			kind + "-" + strings.Repeat("0", 32), // a tag not of this home's key
		} {
			name := prefix + rest
			if err := make(name); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name+lockSuffix, []byte(oldMarks), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, n := range []string{name, name + lockSuffix} {
				fi, err := os.Lstat(n)
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, planted{n, fi})
			}
		}
	}
	if _, err := Setup(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(user); !strings.Contains(string(b), "hooks run PreToolUse") {
		t.Errorf("setup did not wire the file:\n%s", b)
	}
	if _, err := Undo(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(user); string(b) != userSettings {
		t.Errorf("--undo left:\n%s", b)
	}
	if _, err := Setup(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range all {
		fi, err := os.Lstat(p.name)
		if err != nil || !os.SameFile(fi, p.fi) || fi.Mode() != p.fi.Mode() {
			t.Errorf("setup acted on the planted %s: %v", p.name, err)
		}
	}
	if b, _ := os.ReadFile(secret); string(b) != "the user's own\n" {
		t.Errorf("the user's file a planted name leads to is now %q", b)
	}
	if b, _ := os.ReadFile(prefix + "regular"); string(b) != "planted" {
		t.Errorf("a planted file is now %q", b)
	}
	for _, lock := range []string{prefix + "regular" + lockSuffix, prefix + "fifo" + lockSuffix} {
		if b, _ := os.ReadFile(lock); !bytes.Equal(b, []byte(oldMarks)) {
			t.Errorf("a planted lock file %s is now %q", lock, b)
		}
	}
}

// TestSetupKilledAtCreateIsRemoved: a setup SIGKILLed the moment after
// it created its lock file (before it locked it), or its temporary file
// (before anything was written to it), leaves an empty file, or two,
// beside the settings file; the next setup removes them (their names
// carry its home's tag), and --undo, of a setup killed so, too. They
// once stayed for good: the plain-text marks that proved them setup's
// were not yet written.
func TestSetupKilledAtCreateIsRemoved(t *testing.T) {
	for _, c := range []struct {
		name string
		seam *func(string)
		left int
		undo bool
	}{
		{"lock", &testOnlyLockCreated, 1, false},
		{"pending", &testOnlyPendingCreated, 2, false},
		{"pending then undo", &testOnlyPendingCreated, 2, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			home, dir, user, _ := setupKilledAt(t, "TestSetupKilledAtCreateIsRemoved/"+c.name, c.seam)
			left := pendingBeside(t, user)
			if len(left) != c.left {
				t.Fatalf("the killed setup left %q beside the file, want %d files", left, c.left)
			}
			for _, l := range left {
				if c.left == 2 && strings.HasSuffix(l, lockSuffix) {
					continue // empty now; a mark of old was in it here
				}
				if fi, err := os.Stat(l); err != nil || fi.Size() != 0 {
					t.Fatalf("%s: %v, want an empty file", l, err)
				}
			}
			var err error
			if c.undo {
				_, err = Undo(home, fakeHost{dir}, SetupInput{})
			} else {
				_, err = Setup(home, fakeHost{dir}, SetupInput{})
			}
			if err != nil {
				t.Fatal(err)
			}
			if left := pendingBeside(t, user); len(left) != 0 {
				t.Errorf("left beside the file after the next run: %q", left)
			}
		})
	}
}

// TestSetupRefusesADamagedKey: a key of the tags that is not 32 bytes
// stops setup and --undo before they write anything, naming the key and
// the command that removes it; once it is removed, setup makes another,
// owner-only.
func TestSetupRefusesADamagedKey(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(userSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	key := pendingKeyPath(home)
	if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, run := range []func() error{
		func() error { _, err := Setup(home, fakeHost{dir}, SetupInput{}); return err },
		func() error { _, err := Undo(home, fakeHost{dir}, SetupInput{}); return err },
	} {
		var ke *PendingKeyError
		if err := run(); !errors.As(err, &ke) || ke.Hint() != "rm "+bundle.ShellArg(key) || !strings.Contains(err.Error(), "5 bytes, not 32") {
			t.Fatalf("with a damaged key: %v", err)
		}
	}
	if b, _ := os.ReadFile(user); string(b) != userSettings {
		t.Errorf("setup with a damaged key wrote:\n%s", b)
	}
	if err := os.Remove(key); err != nil {
		t.Fatal(err)
	}
	if _, err := Setup(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(key); err != nil || fi.Size() != 32 || fi.Mode().Perm() != 0o600 {
		t.Errorf("the key setup made: %v, %v", fi, err)
	}
}

// TestSetupRefusesAKeyNotAFile: a key of the tags that is not a regular
// file stops setup with a hint that removes it as printed. A directory
// there was named with "rm <dir>", which rm refuses ("Is a directory");
// a FIFO was opened as a file, waiting for a writer under the setup lock
// (setup hung for good), and read as the key when one came.
func TestSetupRefusesAKeyNotAFile(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(userSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	key := pendingKeyPath(home)
	if err := os.MkdirAll(filepath.Join(key, "inside"), 0o700); err != nil {
		t.Fatal(err)
	}
	var ke *PendingKeyError
	if _, err := Setup(home, fakeHost{dir}, SetupInput{}); !errors.As(err, &ke) {
		t.Fatalf("with a directory for the key: %v", err)
	}
	if out, err := exec.Command("sh", "-c", ke.Hint()).CombinedOutput(); err != nil {
		t.Fatalf("the hint %q: %v\n%s", ke.Hint(), err, out)
	}
	if _, err := Setup(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatalf("setup after the hint: %v", err)
	}
	if _, err := Undo(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}

	if err := os.Remove(key); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(key, 0o600); err != nil {
		t.Fatal(err)
	}
	// A writer that gives the FIFO a key once a reader opens it: a
	// setup that waits for one reads it, and goes on.
	wrote := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(key, os.O_WRONLY, 0)
		if err == nil {
			// EPIPE when setup opened the FIFO and closed it unread.
			w.Write(bytes.Repeat([]byte{7}, 32))
			w.Close()
		}
		wrote <- err
	}()
	_, err := Setup(home, fakeHost{dir}, SetupInput{})
	ke = nil
	if !errors.As(err, &ke) || !strings.Contains(err.Error(), "named pipe") || ke.Hint() != "rm "+bundle.ShellArg(key) {
		t.Errorf("with a FIFO for the key: %v", err)
	}
	// Release the writer, if setup did not take it.
	if r, err := os.OpenFile(key, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
		defer r.Close()
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(user); string(b) != userSettings {
		t.Errorf("setup with a FIFO for the key wrote:\n%s", b)
	}
}

// TestUndoKeepsALinkToNoFile: a file setup created that is a symbolic
// link now is kept by --undo whatever it leads to: a directory, a FIFO,
// a link in a loop. --undo once read the link first, and refused each
// ("is not a regular file", "too many levels of symbolic links", no
// hint), undoing no other file either.
func TestUndoKeepsALinkToNoFile(t *testing.T) {
	for _, kind := range []string{"directory", "fifo", "loop"} {
		t.Run(kind, func(t *testing.T) {
			home, dir := t.TempDir(), t.TempDir()
			user := filepath.Join(dir, "user.json")
			if err := os.WriteFile(user, []byte(userSettings), 0o640); err != nil {
				t.Fatal(err)
			}
			if _, err := Setup(home, fakeHost{dir}, SetupInput{}); err != nil {
				t.Fatal(err)
			}
			created, target := filepath.Join(dir, "created.json"), filepath.Join(t.TempDir(), "target")
			if err := os.Remove(created); err != nil {
				t.Fatal(err)
			}
			var err error
			switch kind {
			case "directory":
				err = os.Mkdir(target, 0o700)
			case "fifo":
				err = syscall.Mkfifo(target, 0o600)
			case "loop":
				err = os.Symlink(created, target)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, created); err != nil {
				t.Fatal(err)
			}
			res, err := Undo(home, fakeHost{dir}, SetupInput{})
			if err != nil {
				t.Fatalf("undo: %v", err)
			}
			if i := slices.IndexFunc(res, func(u UndoResult) bool { return u.Path == created }); i < 0 || res[i].LinkKept == "" {
				t.Errorf("undo said of the link: %+v", res)
			}
			if fi, err := os.Lstat(created); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("the link: %v, %v", fi, err)
			}
			if b, _ := os.ReadFile(user); string(b) != userSettings {
				t.Errorf("undo left the other file:\n%s", b)
			}
		})
	}
}

// homeLinesHost is fakeHost whose hook lines call the home of the setup
// (in.Reentry.Home), as the real hosts' do.
type homeLinesHost struct{ dir string }

func (homeLinesHost) Name() string                         { return "fake" }
func (homeLinesHost) View(*Bundle, Reentry) (*View, error) { return NewView(), nil }
func (homeLinesHost) Launch(*Session, []BuiltView, []string, []string) (*Launch, error) {
	return nil, nil
}
func (h homeLinesHost) Setup(in SetupInput) ([]FileEdit, error) {
	hs := []SetupHook{{Event: "PreToolUse", Matcher: "*", Command: ShellJoin(Reentry{Exe: "/bin/bundlectl", Home: in.Reentry.Home}.HooksRun("PreToolUse", "claude")), Timeout: 600}}
	return []FileEdit{{
		Path: filepath.Join(h.dir, "user.json"), Mode: 0o600,
		Apply: EditJSON(func(r *JSON) { ApplyJSONHooks(r, "claude", hs) }),
		Strip: EditJSON(func(r *JSON) { StripJSONHooks(r, "claude") }),
	}}, nil
}

// TestUndoGivesBackAnotherHomesLines: a settings file another home's
// setup wired is new to this home's record; this home's setup replaces
// those lines with its own, and its --undo gives the file back as it was,
// the other home's lines in it. The backup of a file new to the record
// was once the file without any setup's lines, so --undo "restored" it
// without the other home's, whose guards then ran no more; a file that
// holds this home's own lines already (a dotfiles copy) is still backed
// up without them.
func TestUndoGivesBackAnotherHomesLines(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(userSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	first, second := t.TempDir(), t.TempDir()
	if _, err := Setup(first, homeLinesHost{dir}, SetupInput{Reentry: Reentry{Home: first}}); err != nil {
		t.Fatal(err)
	}
	wired, _ := os.ReadFile(user)
	if _, err := Setup(second, homeLinesHost{dir}, SetupInput{Reentry: Reentry{Home: second}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Undo(second, homeLinesHost{dir}, SetupInput{Reentry: Reentry{Home: second}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(user); string(b) != string(wired) {
		t.Errorf("the second home's --undo left:\n%s\nwant the file as its setup found it:\n%s", b, wired)
	}

	// This home's own lines, in a file new to its record: left out.
	if err := os.Remove(recordPath(first, "fake")); err != nil {
		t.Fatal(err)
	}
	if _, err := Setup(first, homeLinesHost{dir}, SetupInput{Reentry: Reentry{Home: first}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Undo(first, homeLinesHost{dir}, SetupInput{Reentry: Reentry{Home: first}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(user); strings.Contains(string(b), "hooks run") {
		t.Errorf("--undo of a file new to the record, this home's lines in it, left:\n%s", b)
	}
}

// TestSetupRefusesARecordNotAFile: a setup record that is a FIFO stops
// setup and --undo with a hint that removes it as printed. It was opened
// waiting for a writer, under the setup lock (both hung for good, and
// every setup of the home behind them), and read as the record when one
// came; a directory there takes "rm -r".
func TestSetupRefusesARecordNotAFile(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(userSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	rec := recordPath(home, "fake")
	if err := os.MkdirAll(filepath.Dir(rec), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, run := range []struct {
		name string
		f    func() error
	}{
		{"setup", func() error { _, err := Setup(home, fakeHost{dir}, SetupInput{}); return err }},
		{"undo", func() error { _, err := Undo(home, fakeHost{dir}, SetupInput{}); return err }},
	} {
		if err := syscall.Mkfifo(rec, 0o600); err != nil {
			t.Fatal(err)
		}
		// A writer that gives the FIFO a record once a reader opens it:
		// a setup that waits for one reads it, and goes on.
		wrote := make(chan error, 1)
		go func() {
			w, err := os.OpenFile(rec, os.O_WRONLY, 0)
			if err == nil {
				w.Write([]byte("{}\n")) // EPIPE when it was opened and closed unread
				w.Close()
			}
			wrote <- err
		}()
		err := run.f()
		var re *RecordError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), "named pipe") || re.Hint() != "rm "+bundle.ShellArg(rec) {
			t.Errorf("%s with a FIFO for the record: %v", run.name, err)
		}
		if r, err := os.OpenFile(rec, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			defer r.Close() // releases the writer, if setup did not take it
		}
		if err := <-wrote; err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(user); string(b) != userSettings {
			t.Errorf("%s with a FIFO for the record wrote:\n%s", run.name, b)
		}
		if re != nil {
			if out, err := exec.Command("sh", "-c", re.Hint()).CombinedOutput(); err != nil {
				t.Fatalf("the hint %q: %v\n%s", re.Hint(), err, out)
			}
		} else {
			os.Remove(rec)
		}
	}
	if err := os.MkdirAll(filepath.Join(rec, "inside"), 0o700); err != nil {
		t.Fatal(err)
	}
	var re *RecordError
	if _, err := Setup(home, fakeHost{dir}, SetupInput{}); !errors.As(err, &re) || re.Hint() != "rm -r "+bundle.ShellArg(rec) {
		t.Fatalf("with a directory for the record: %v", err)
	}
	if out, err := exec.Command("sh", "-c", re.Hint()).CombinedOutput(); err != nil {
		t.Fatalf("the hint %q: %v\n%s", re.Hint(), err, out)
	}
	if _, err := Setup(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatalf("setup after the hint: %v", err)
	}
}
