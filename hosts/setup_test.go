package hosts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/inventory"
)

const userSettings = `{
  "theme": "dark",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Edit",
        "hooks": [
          {
            "type": "command",
            "command": "my-own-check <x> & y"
          }
        ]
      }
    ]
  },
  "number": 1.50,
  "enabledMcpjsonServers": [
    "mine"
  ]
}
`

func TestJSONRoundTrip(t *testing.T) {
	j, err := ParseJSON([]byte(userSettings))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(j.Marshal()); got != userSettings {
		t.Errorf("round trip changed the file:\n%s", got)
	}
	for _, bad := range []string{`{"a":1} // c`, `{"a":1,"a":2}`, `{`} {
		if _, err := ParseJSON([]byte(bad)); err == nil {
			t.Errorf("ParseJSON(%q) accepted", bad)
		}
	}
}

func testHooks() []SetupHook {
	return []SetupHook{
		{Event: "PreToolUse", Matcher: "*", Command: "/bin/bundlectl --home /h hooks run PreToolUse --host claude", Timeout: 600},
		{Event: "Stop", Matcher: "*", Command: "/bin/bundlectl --home /h hooks run Stop --host claude", Timeout: 600},
	}
}

// TestJSONHooks: setup's groups go after the user's own, applying twice
// changes nothing, and stripping gives the user's file back.
func TestJSONHooks(t *testing.T) {
	apply := EditJSON(func(r *JSON) {
		ApplyJSONHooks(r, "claude", testHooks())
		ApplyNames(r, "enabledMcpjsonServers", []string{"bundlectl-b-s"})
		ApplyJSONServers(r, "mcpServers", []string{"bundlectl-b-s"}, map[string]any{"bundlectl-b-s": map[string]any{"command": "/bin/bundlectl", "args": []string{"mcp", "b", "s"}}})
	})
	strip := EditJSON(func(r *JSON) {
		StripJSONHooks(r, "claude")
		StripNames(r, "enabledMcpjsonServers")
		StripJSONServers(r, "mcpServers")
	})
	once, err := apply([]byte(userSettings))
	if err != nil {
		t.Fatal(err)
	}
	s := string(once)
	if !strings.Contains(s, "my-own-check <x> & y") || strings.Index(s, "my-own-check") > strings.Index(s, "hooks run PreToolUse") {
		t.Errorf("the user's hook is not kept first:\n%s", s)
	}
	twice, _ := apply(once)
	if string(twice) != s {
		t.Errorf("applying twice changed the file:\n%s\n---\n%s", s, twice)
	}
	back, _ := strip(once)
	if string(back) != userSettings {
		t.Errorf("strip did not give the user's file back:\n%s", back)
	}
	if out, err := strip(nil); err != nil || out != nil {
		t.Errorf("strip of a missing file = %q, %v", out, err)
	}
	empty, _ := apply(nil)
	if back, _ := strip(empty); string(back) != "{}\n" {
		t.Errorf("strip of setup's own file = %q", back)
	}
}

// fakeHost wires two files with the JSON helpers.
type fakeHost struct{ dir string }

func (fakeHost) Name() string                         { return "fake" }
func (fakeHost) View(*Bundle, Reentry) (*View, error) { return NewView(), nil }
func (fakeHost) Launch(*Session, []BuiltView, []string, []string) (*Launch, error) {
	return nil, nil
}
func (h fakeHost) Setup(in SetupInput) ([]FileEdit, error) {
	hooks := EditJSON(func(r *JSON) { ApplyJSONHooks(r, "claude", testHooks()) })
	return []FileEdit{
		{Path: filepath.Join(h.dir, "user.json"), Mode: 0o600, Apply: hooks, Strip: EditJSON(func(r *JSON) { StripJSONHooks(r, "claude") })},
		{Path: filepath.Join(h.dir, "created.json"), Mode: 0o644, Apply: hooks, Strip: EditJSON(func(r *JSON) { StripJSONHooks(r, "claude") })},
	}, nil
}

// commentedHost is fakeHost for a host whose own reader takes comments
// (Gemini CLI): its files are edited as CommentedJSON.
type commentedHost struct{ fakeHost }

func (h commentedHost) Setup(in SetupInput) ([]FileEdit, error) {
	apply := EditJSONAs(CommentedJSON, func(r *JSON) { ApplyJSONHooks(r, "claude", testHooks()) })
	strip := EditJSONAs(CommentedJSON, func(r *JSON) { StripJSONHooks(r, "claude") })
	return []FileEdit{
		{Path: filepath.Join(h.dir, "user.json"), Mode: 0o600, Apply: apply, Strip: strip},
		{Path: filepath.Join(h.dir, "created.json"), Mode: 0o644, Apply: apply, Strip: strip},
	}, nil
}

// commentedSettings is userSettings with comments, and a string that
// looks like one.
const commentedSettings = `// my settings
{
  "theme": "dark", /* the host's */
  "hooks": {
    // mine first
    "PreToolUse": [
      {
        "matcher": "Edit",
        "hooks": [{"type": "command", "command": "my-own-check // <x> & y"}] // inline
      }
    ]
  },
  "number": 1.50
}
`

// setupCase is a host and the user's file its setup edits: setup's data
// safety holds for a file with comments as for one without.
type setupCase struct {
	name     string
	host     func(dir string) Host
	settings string
	// light is the user's change of "theme": "dark" after setup.
	light string
}

var setupCases = []setupCase{
	{"plain", func(dir string) Host { return fakeHost{dir} }, userSettings, `"theme": "light"`},
	{"commented", func(dir string) Host { return commentedHost{fakeHost{dir}} }, commentedSettings, `"theme": /* since August */ "light"`},
}

// TestSetupUndo: setup backs up and writes atomically; undo restores the
// exact bytes and mode, removes the file it created, and — for a file the
// user changed since — takes out only setup's entries.
func TestSetupUndo(t *testing.T) {
	for _, c := range setupCases {
		t.Run(c.name, func(t *testing.T) { testSetupUndo(t, c) })
	}
}

func testSetupUndo(t *testing.T, c setupCase) {
	userSettings := c.settings
	home, dir := t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(userSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	h := c.host(dir)
	res, err := Setup(home, h, SetupInput{})
	if err != nil || len(res) != 2 || !res[0].Changed || !res[1].Changed || res[0].Backup == "" {
		t.Fatalf("Setup = %+v, %v", res, err)
	}
	if b, _ := os.ReadFile(res[0].Backup); string(b) != userSettings {
		t.Errorf("backup = %q", b)
	}
	res, err = Setup(home, h, SetupInput{})
	if err != nil || res[0].Changed || res[1].Changed {
		t.Fatalf("Setup again changed files: %+v %v", res, err)
	}
	undo, err := Undo(home, h, SetupInput{})
	if err != nil || len(undo) != 2 || !undo[0].Restored || !undo[1].Removed {
		t.Fatalf("Undo = %+v, %v", undo, err)
	}
	if b, _ := os.ReadFile(user); string(b) != userSettings {
		t.Errorf("undo did not restore the bytes:\n%s", b)
	}
	if fi, _ := os.Stat(user); fi.Mode().Perm() != 0o640 {
		t.Errorf("undo did not restore the mode: %v", fi.Mode())
	}
	if _, err := os.Stat(filepath.Join(dir, "created.json")); err == nil {
		t.Errorf("undo left the file setup created")
	}
	if _, err := os.Stat(recordPath(home, "fake")); err == nil {
		t.Errorf("undo left its record")
	}

	// The user edits the file after setup: undo keeps the edit.
	if _, err := Setup(home, h, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(user)
	edited := strings.Replace(string(b), `"theme": "dark"`, c.light, 1)
	os.WriteFile(user, []byte(edited), 0o640)
	undo, err = Undo(home, h, SetupInput{})
	if err != nil || undo[0].Restored {
		t.Fatalf("Undo = %+v, %v", undo, err)
	}
	want := strings.Replace(userSettings, `"theme": "dark"`, c.light, 1)
	if b, _ := os.ReadFile(user); string(b) != want {
		t.Errorf("undo of an edited file:\n%s", b)
	}
}

func TestShellJoin(t *testing.T) {
	got := ShellJoin([]string{"/a b/bundlectl", "--home", "/h", "it's", ""})
	if want := `'/a b/bundlectl' --home /h 'it'\''s' ''`; got != want {
		t.Errorf("ShellJoin = %s, want %s", got, want)
	}
	if !OwnHookCommand(ShellJoin((Reentry{Exe: "/x/bundlectl", Home: "/h"}).HooksRun("Stop", "codex")), "codex") {
		t.Error("OwnHookCommand does not know setup's line")
	}
}

// TestStdioServersRefusesAClashingName: "a" with server "b-c" and "a-b"
// with server "c" get the same setup name; the second is not wired over
// the first, and says why.
func TestStdioServersRefusesAClashingName(t *testing.T) {
	bundleWith := func(name, server string) *Bundle {
		return NewBundle(harness.ActiveBundle{Name: name, Inventory: &inventory.Inventory{
			MCPServers: []inventory.MCPServer{{Name: server, Transport: "stdio"}},
		}}, "claude")
	}
	a, ab := bundleWith("a", "b-c"), bundleWith("a-b", "c")
	names, servers := StdioServers([]*Bundle{a, ab}, Reentry{Exe: "/bin/bundlectl", Home: "/h", Workspace: "/w"}, nil, nil)
	if len(names) != 1 || len(servers) != 1 {
		t.Fatalf("names %v, servers %v; want one", names, servers)
	}
	args := servers["bundlectl-a-b-c"].(map[string]any)["args"].([]string)
	if !slices.Contains(args, "a") || !slices.Contains(args, "b-c") {
		t.Errorf("bundlectl-a-b-c runs %v, not bundle a's server b-c", args)
	}
	if len(ab.Notes) != 1 || !strings.Contains(ab.Notes[0], `is not wired: the name setup gives it, "bundlectl-a-b-c", is already another bundle's server's`) {
		t.Errorf("notes of a-b: %q", ab.Notes)
	}
}

// TestJSONStringsAsWritten: a string keeps its text, escapes included; a
// lone surrogate escape, which the hosts' JSON.parse keeps, once came
// back as U+FFFD, changing the user's value silently.
func TestJSONStringsAsWritten(t *testing.T) {
	in := "{\n  \"lone\": \"\\ud800\",\n  \"pair\": \"\\ud83d\\ude00\",\n  \"e\": \"caf\\u00e9 \\\"q\\\" \\\\ \\/\",\n  \"list\": [\n    \"a\\tb\",\n    \"<&>\"\n  ],\n  \"k\": {\n    \"x\": \"\\u2028\"\n  }\n}\n"
	j, err := ParseJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(j.Marshal()); got != in {
		t.Errorf("round trip changed the strings:\n%s\nwant\n%s", got, in)
	}
	if s := j.Fields["e"].String(); s != `café "q" \ /` {
		t.Errorf("String() = %q", s)
	}
}

// TestValueOfNoHTMLEscapes: a value setup adds (a hook command with "&",
// a path with "<") is written as the hosts write it, not as \u0026.
func TestValueOfNoHTMLEscapes(t *testing.T) {
	o := NewObject()
	o.Set("command", ValueOf("a && b > c <d>\u2028"))
	if got, want := string(o.Marshal()), "{\n  \"command\": \"a && b > c <d>\u2028\"\n}\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// FuzzParseJSON: no input panics, and an accepted one marshals to JSON
// that encoding/json reads as the same value and that marshals again to
// itself: to the input byte for byte, when that holds a value.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{userSettings, `{"a":"\ud800","b":[1,2.50,"\u00e9"]}`, `[]`, `""`, `{"n": 1e400}`, " {\"k\" : \"v\" , \"n\":null}\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := ParseJSON(data)
		if err != nil {
			return
		}
		out := j.Marshal()
		var a, b any
		if len(bytes.TrimSpace(data)) > 0 {
			if err := decodeNumbers(data, &a); err != nil {
				t.Fatalf("accepted what encoding/json refuses: %v", err)
			}
			if err := decodeNumbers(out, &b); err != nil {
				t.Fatalf("wrote invalid JSON %q: %v", out, err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("value changed: %q -> %q", data, out)
			}
		}
		again, err := ParseJSON(out)
		if err != nil || !bytes.Equal(again.Marshal(), out) {
			t.Fatalf("not stable: %q -> %q (%v)", data, out, err)
		}
		if len(bytes.Trim(data, " \t\r\n")) > 0 && !bytes.Equal(out, data) {
			t.Fatalf("not as written: %q -> %q", data, out)
		}
	})
}

// decodeNumbers is json.Unmarshal keeping numbers as their text, as
// ParseJSON does (1e400 is a number JSON allows).
func decodeNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// wsHost is fakeHost with a file in the workspace, as Claude Code's
// .mcp.json.
type wsHost struct{ fakeHost }

func (h wsHost) Setup(in SetupInput) ([]FileEdit, error) {
	hooks := EditJSON(func(r *JSON) { ApplyJSONHooks(r, "claude", testHooks()) })
	return []FileEdit{
		{Path: filepath.Join(h.dir, "user.json"), Mode: 0o600, Apply: hooks, Strip: EditJSON(func(r *JSON) { StripJSONHooks(r, "claude") })},
		{Path: filepath.Join(in.Reentry.Workspace, "ws.json"), Mode: 0o644, Apply: hooks, Strip: EditJSON(func(r *JSON) { StripJSONHooks(r, "claude") })},
	}, nil
}

// TestUndoOtherWorkspace: --undo run in another workspace than setup's
// takes setup's entries out of the first workspace's file, edited since,
// keeping the edit. It once stopped there, telling the user to restore
// the backup by hand, which has no edit in it.
func TestUndoOtherWorkspace(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	wsA, wsB := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.MkdirAll(wsA, 0o755)
	os.MkdirAll(wsB, 0o755)
	file := filepath.Join(wsA, "ws.json")
	if err := os.WriteFile(file, []byte(`{"theme": "dark"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	h := wsHost{fakeHost{dir}}
	if _, err := Setup(home, h, SetupInput{Reentry: Reentry{Workspace: wsA}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(file)
	edited := strings.Replace(string(b), `"theme": "dark"`, `"theme": "light"`, 1)
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Undo(home, h, SetupInput{Reentry: Reentry{Workspace: wsB}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), `"theme": "light"`) || strings.Contains(string(b), "hooks") {
		t.Errorf("undo from another workspace left:\n%s\nwant the edit without setup's lines", b)
	}
}

// TestSetupHooksOffHint: a setup refusal always ends with a command that
// works as printed. One naming a variable that lifts the setting for an
// exec session (Gemini CLI's GEMINI_CLI_TRUST_WORKSPACE, for a workspace
// that turns hooks back on in a folder it may not trust) once had none:
// exec's hint is its own command line, which setup has not.
func TestSetupHooksOffHint(t *testing.T) {
	off := &HooksOffError{Host: "gemini", File: "/home/a b/.gemini/settings.json", Setting: `"hooksConfig": {"enabled": false}`, Pattern: `"hooksConfig"`, SetEnv: "GEMINI_CLI_TRUST_WORKSPACE=true", Fix: "trust the folder"}
	e := &SetupHooksOffError{Host: "gemini", Off: off}
	if got, want := e.Hint(), `grep -n -E -- '"hooksConfig"' '/home/a b/.gemini/settings.json'`; got != want {
		t.Errorf("Hint() = %q, want %q", got, want)
	}
	// list, for a switch turned on after setup, shows it the same way
	if got, want := (&StaleSetup{Host: "gemini", Off: off}).Fix(), e.Hint(); got != want {
		t.Errorf("list's fix = %q, want %q", got, want)
	}
	off.Pattern = ""
	if got, want := e.Hint(), "bundlectl setup gemini"; got != want {
		t.Errorf("Hint() without a pattern = %q, want %q", got, want)
	}
}

// TestSetupRefusesHardLinks: setup writes a new file in the place of the
// one it edits (atomically, as every file), so a file with other hard
// links would leave those with the old content, without setup's entries,
// which a host or a dotfile manager may read. Setup once wrote it and
// added a note; it now writes nothing there and names the file, with a
// hint that lists the other names. The user's own fix (the other name a
// symbolic link to the file) is then edited where it points (realPath).
func TestSetupRefusesHardLinks(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	other := filepath.Join(dir, "dotfiles-user.json")
	if err := os.WriteFile(other, []byte(userSettings), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(other, user); err != nil {
		t.Fatal(err)
	}
	_, err := Setup(home, fakeHost{dir}, SetupInput{})
	var fe *SetupFileError
	var hl *HardLinksError
	if !errors.As(err, &fe) || !errors.As(err, &hl) || hl.Links != 2 || fe.Path != user {
		t.Fatalf("Setup = %v, want the hard links named", err)
	}
	if want := "find " + dir + " -xdev -samefile " + user; fe.Hint() != want {
		t.Errorf("hint %q, want %q", fe.Hint(), want)
	}
	if !strings.Contains(err.Error(), "has 2 hard links") || !strings.HasSuffix(err.Error(), "then run setup again (bundlectl setup fake)") {
		t.Errorf("message %q", err)
	}
	for _, p := range []string{user, other} {
		if b, _ := os.ReadFile(p); string(b) != userSettings {
			t.Errorf("%s changed:\n%s", p, b)
		}
	}
	// The other name made a link to the file: setup writes, and both
	// names read the same.
	if err := os.Remove(other); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(user, other); err != nil {
		t.Fatal(err)
	}
	if _, err := Setup(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(other); !strings.Contains(string(b), "hooks run PreToolUse") {
		t.Errorf("the other name does not read setup's lines:\n%s", b)
	}
}

// TestUndoKeepsAHardLinkedCreatedFile: --undo of a file setup created,
// which the user hard-linked since (a dotfiles folder's copy), once
// removed its one name, leaving the other holding setup's entries, out of
// any undo's reach, and said it removed the file. It now refuses, naming
// the links with a hint that finds them, and removes nothing; with the
// other name removed, --undo removes the file.
func TestUndoKeepsAHardLinkedCreatedFile(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "user.json"), []byte(userSettings), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Setup(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	created, other := filepath.Join(dir, "created.json"), filepath.Join(dir, "dotfiles-created.json")
	if err := os.Link(created, other); err != nil {
		t.Fatal(err)
	}
	_, err := Undo(home, fakeHost{dir}, SetupInput{})
	var fe *SetupFileError
	var hl *HardLinksError
	if !errors.As(err, &fe) || !errors.As(err, &hl) || fe.Path != created || !fe.Removes {
		t.Fatalf("Undo = %v, want the hard links of %s named", err, created)
	}
	if want := "find " + dir + " -xdev -samefile " + created; fe.Hint() != want {
		t.Errorf("hint %q, want %q", fe.Hint(), want)
	}
	if !strings.Contains(err.Error(), "does not remove it") || !strings.HasSuffix(err.Error(), "(bundlectl setup fake --undo)") {
		t.Errorf("message %q", err)
	}
	for _, p := range []string{created, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("--undo took %s away: %v", p, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "user.json")); !strings.Contains(string(b), "hooks run PreToolUse") {
		t.Errorf("the refused --undo undid another file:\n%s", b)
	}
	if err := os.Remove(other); err != nil {
		t.Fatal(err)
	}
	if _, err := Undo(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(created); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("--undo kept the file setup created: %v", err)
	}
}

// TestSetupRefusesReadOnly: a settings file its owner made read-only
// (0444) was replaced all the same (a rename needs only the directory),
// and stayed 0444 with setup's lines in it. Setup now writes nothing
// there and says so, its hint (chmod u+w) making it writable; setup run
// again then writes it, its mode kept. --undo refuses a file made
// read-only since setup the same way.
func TestSetupRefusesReadOnly(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(userSettings), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(user, 0o444); err != nil {
		t.Fatal(err)
	}
	_, err := Setup(home, fakeHost{dir}, SetupInput{})
	var fe *SetupFileError
	var ro *ReadOnlyError
	if !errors.As(err, &fe) || !errors.As(err, &ro) || fe.Path != user {
		t.Fatalf("Setup = %v, want the file named as read-only", err)
	}
	if want := "chmod u+w " + user; fe.Hint() != want {
		t.Errorf("hint %q, want %q", fe.Hint(), want)
	}
	if !strings.Contains(err.Error(), "is read-only (mode 0444)") || !strings.HasSuffix(err.Error(), "(bundlectl setup fake)") {
		t.Errorf("message %q", err)
	}
	if b, _ := os.ReadFile(user); string(b) != userSettings {
		t.Errorf("the read-only file changed:\n%s", b)
	}
	if ents, _ := os.ReadDir(filepath.Join(SetupDir(home), "backups")); len(ents) != 0 {
		t.Errorf("a backup of the refused file was kept: %v", ents)
	}
	if err := os.Chmod(user, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Setup(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(user); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v after setup, want 0644", fi.Mode())
	}
	if err := os.Chmod(user, 0o444); err != nil {
		t.Fatal(err)
	}
	_, err = Undo(home, fakeHost{dir}, SetupInput{})
	if !errors.As(err, &fe) || !errors.As(err, &ro) || !fe.Undo || !strings.HasSuffix(err.Error(), "(bundlectl setup fake --undo)") {
		t.Fatalf("Undo = %v, want the file named as read-only", err)
	}
	if b, _ := os.ReadFile(user); !strings.Contains(string(b), "hooks run PreToolUse") {
		t.Errorf("undo wrote the read-only file:\n%s", b)
	}
	if err := os.Chmod(user, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Undo(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(user); string(b) != userSettings {
		t.Errorf("undo left:\n%s", b)
	}
}

// TestUndoEditedKeepsOneLineContainers: --undo of a file changed since
// setup takes setup's entries out, and an object or list setup had
// spread over lines to add them (written on one line before setup) that
// holds again what it held then goes back to its one line. It stayed
// spread, the file other than it was but for the change.
func TestUndoEditedKeepsOneLineContainers(t *testing.T) {
	const before = `{
  "theme": "dark",
  "hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "mine"}]}]},
  "env": {"A": "1"}
}
`
	home, dir := t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(before), 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := Setup(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	wired, _ := os.ReadFile(user)
	if bytes.Contains(wired, []byte(`"hooks": {"PreToolUse"`)) {
		t.Fatalf("setup did not spread the hooks object:\n%s", wired)
	}
	edited := strings.Replace(string(wired), `"theme": "dark"`, `"theme": "light"`, 1)
	if err := os.WriteFile(user, []byte(edited), 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := Undo(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(before, `"theme": "dark"`, `"theme": "light"`, 1)
	if b, _ := os.ReadFile(user); string(b) != want {
		t.Errorf("undo left:\n%s\nwant the file as before setup, with the change:\n%s", b, want)
	}
}

// TestLayoutAsBeforeLeavesTheRest: only a container below the top that
// holds what it held before setup goes back to its one line; one the
// change reached, the top, a file with a comment and one that is not JSON
// stay as they are.
func TestLayoutAsBeforeLeavesTheRest(t *testing.T) {
	for _, c := range []struct{ name, next, before, want string }{
		{"unchanged container", "{\n  \"a\": {\n    \"b\": 1\n  },\n  \"c\": 2\n}\n", `{"a": {"b": 1}, "c": 1}`, "{\n  \"a\": {\"b\": 1},\n  \"c\": 2\n}\n"},
		{"changed container", "{\n  \"a\": {\n    \"b\": 2\n  }\n}\n", `{"a": {"b": 1}}`, "{\n  \"a\": {\n    \"b\": 2\n  }\n}\n"},
		{"the top", "{\n  \"a\": 1\n}\n", `{"a": 1}`, "{\n  \"a\": 1\n}\n"},
		{"whole list", "{\"l\": [\n  {\"a\": 1}\n]}\n", `{"l": [{"a": 1}]}`, "{\"l\": [{\"a\": 1}]}\n"},
		{"in a list", "{\"l\": [\n  {\"a\": {\n    \"b\": 1\n  }},\n  2\n]}\n", `{"l": [{"a": {"b": 1}}, 3]}`, "{\"l\": [\n  {\"a\": {\"b\": 1}},\n  2\n]}\n"},
		{"a comment", "{\n  \"a\": {\n    \"b\": 1 // mine\n  }\n}\n", `{"a": {"b": 1}}`, "{\n  \"a\": {\n    \"b\": 1 // mine\n  }\n}\n"},
		{"TOML", "[a]\nb = 1\n", "[a]\nb = 1\n", "[a]\nb = 1\n"},
	} {
		if got := string(layoutAsBefore([]byte(c.next), []byte(c.before))); got != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

// TestSetupRefusesReadOnlyDir: a settings file in a directory its owner
// made read-only (0555). Setup writes a new file there, so the file's own
// mode does not tell: as root it replaced the file (root may write the
// directory all the same); as another user the create failed after the
// record and backup were written, saying the file "cannot be read". It
// now writes nothing there, keeps no backup, and its hint (chmod u+w of
// the directory) lets setup run again. --undo refuses it the same way.
func TestSetupRefusesReadOnlyDir(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(userSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	_, err := Setup(home, fakeHost{dir}, SetupInput{})
	var fe *SetupFileError
	var rd *ReadOnlyDirError
	if !errors.As(err, &fe) || !errors.As(err, &rd) || fe.Path != user || rd.Dir != dir {
		t.Fatalf("Setup = %v, want the directory named as read-only", err)
	}
	if want := "chmod u+w " + dir; fe.Hint() != want {
		t.Errorf("hint %q, want %q", fe.Hint(), want)
	}
	if want := " is in " + `"` + dir + `"` + ", a read-only directory (mode 0555), so setup does not write it, taking that as meant"; !strings.Contains(err.Error(), want) || !strings.HasSuffix(err.Error(), "(bundlectl setup fake)") {
		t.Errorf("message %q, want it to hold %q", err, want)
	}
	if b, _ := os.ReadFile(user); string(b) != userSettings {
		t.Errorf("the file in the read-only directory changed:\n%s", b)
	}
	if ents, _ := os.ReadDir(filepath.Join(SetupDir(home), "backups")); len(ents) != 0 {
		t.Errorf("a backup of the refused file was kept: %v", ents)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Setup(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	_, err = Undo(home, fakeHost{dir}, SetupInput{})
	if !errors.As(err, &fe) || !errors.As(err, &rd) || !fe.Undo || !strings.HasSuffix(err.Error(), "(bundlectl setup fake --undo)") {
		t.Fatalf("Undo = %v, want the directory named as read-only", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Undo(home, fakeHost{dir}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(user); string(b) != userSettings {
		t.Errorf("undo left:\n%s", b)
	}
}

// TestReadOnlyOthersFile: a read-only settings file of another user's
// (root's, in the user's own directory) was named with the hint chmod u+w,
// which fails as printed ("Operation not permitted") for a user who does
// not own it; it is named as another user's, the hint showing whose it
// is. To root, or to its owner, the hint stays chmod u+w.
func TestReadOnlyOthersFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "user.json")
	if err := os.WriteFile(p, []byte(userSettings), 0o444); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	owner := int(st.Uid)
	other := owner + 1
	if owner == 0 {
		other = 65534
	}
	for _, c := range []struct {
		euid   int
		others bool
		hint   string
	}{
		{other, true, "ls -l " + p},
		{owner, false, "chmod u+w " + p},
		{0, false, "chmod u+w " + p},
	} {
		ro := readOnly(p, 0o444, c.euid)
		fe := &SetupFileError{Path: p, Host: "fake", Err: ro}
		if ro.Others != c.others || ro.Owner != owner || fe.Hint() != c.hint {
			t.Errorf("euid %d: %+v, hint %q; want others %v, owner %d, hint %q", c.euid, ro, fe.Hint(), c.others, owner, c.hint)
		}
		if c.others && !strings.Contains(fe.Error(), fmt.Sprintf("is read-only (mode 0444) and another user's (uid %d), so setup does not replace it", owner)) {
			t.Errorf("message %q", fe.Error())
		}
	}
}

// TestSetupRefusesMissingDirInReadOnly: a settings file in a directory
// setup would create, under one its owner made read-only: the directory
// setup creates it in is checked. The check once passed a missing
// directory by, and setup (as root) created it there all the same, or
// (as another user) failed at the create after writing the host's other
// files.
func TestSetupRefusesMissingDirInReadOnly(t *testing.T) {
	home, ro := t.TempDir(), t.TempDir()
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(ro, 0o755)
	dir := filepath.Join(ro, "sub", "dir")
	_, err := Setup(home, fakeHost{dir}, SetupInput{})
	var fe *SetupFileError
	var rd *ReadOnlyDirError
	if !errors.As(err, &fe) || !errors.As(err, &rd) || rd.Dir != ro {
		t.Fatalf("Setup = %v, want %s named as read-only", err, ro)
	}
	if want := "chmod u+w " + ro; fe.Hint() != want {
		t.Errorf("hint %q, want %q", fe.Hint(), want)
	}
	if _, err := os.Lstat(filepath.Join(ro, "sub")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("setup created a directory in the read-only one: %v", err)
	}
}

// twoNamesHost wires one file through two of its edits: the user's file
// and a link to it (a dotfile manager's), each adding its own entry.
type twoNamesHost struct{ fakeHost }

func (h twoNamesHost) Setup(in SetupInput) ([]FileEdit, error) {
	entry := func(key string) func([]byte) ([]byte, error) {
		return EditJSON(func(r *JSON) { ApplyNames(r, key, []string{"bundlectl-" + key}) })
	}
	strip := func(key string) func([]byte) ([]byte, error) {
		return EditJSON(func(r *JSON) { StripNames(r, key) })
	}
	return []FileEdit{
		{Path: filepath.Join(h.dir, "user.json"), Mode: 0o600, Apply: entry("first"), Strip: strip("first")},
		{Path: filepath.Join(h.dir, "link.json"), Mode: 0o600, Apply: entry("second"), Strip: strip("second")},
	}, nil
}

// TestSetupOneFileTwoEdits: two edits that reach one file (one through a
// link) are both written, the second over the first, as when setup wrote
// each file as it came to it; checking every file before writing any must
// not read the second from the file as it was before the first.
func TestSetupOneFileTwoEdits(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(`{"theme": "dark"}`), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(user, filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := Setup(home, twoNamesHost{fakeHost{dir}}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(user)
	if !strings.Contains(string(b), `"first"`) || !strings.Contains(string(b), `"second"`) {
		t.Fatalf("setup left:\n%s\nwant both entries", b)
	}
	if fi, _ := os.Stat(user); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 kept", fi.Mode())
	}
	if _, err := Undo(home, twoNamesHost{fakeHost{dir}}, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(user); string(b) != `{"theme": "dark"}` {
		t.Errorf("undo left:\n%s", b)
	}
}

// TestUndoEditedOneFileTwoEdits: --undo of a file two edits reach,
// changed since setup, takes out both edits' entries and keeps the
// change; it once ran the last edit's Strip alone, leaving the first's.
func TestUndoEditedOneFileTwoEdits(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, []byte(`{"theme": "dark"}`), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(user, filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	h := twoNamesHost{fakeHost{dir}}
	if _, err := Setup(home, h, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(user)
	if err := os.WriteFile(user, bytes.Replace(b, []byte(`"dark"`), []byte(`"light"`), 1), 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := Undo(home, h, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(user)
	if strings.Contains(string(b), "bundlectl") || !strings.Contains(string(b), `"light"`) {
		t.Errorf("undo left:\n%s\nwant the change without either edit's entries", b)
	}
}

// twoDirsHost is fakeHost with its two files in two directories, a and b.
type twoDirsHost struct{ fakeHost }

func (h twoDirsHost) Setup(in SetupInput) ([]FileEdit, error) {
	edits, _ := h.fakeHost.Setup(in)
	edits[0].Path = filepath.Join(h.dir, "a", "user.json")
	edits[1].Path = filepath.Join(h.dir, "b", "created.json")
	return edits, nil
}

// TestSetupRechecksEachFileBeforeItsWrite: a directory made read-only
// after setup checked every file, while it wrote the first, stops setup
// at the file in it, the first written and recorded (so --undo takes it
// back): checking every file before writing any once left the later
// files unchecked at their write, and (as root) setup wrote into the
// directory made read-only meanwhile; --undo the same for a file it
// removes.
func TestSetupRechecksEachFileBeforeItsWrite(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	defer os.Chmod(b, 0o755)
	if err := os.WriteFile(filepath.Join(a, "user.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err) // --undo then restores it, before it removes created.json
	}
	h := twoDirsHost{fakeHost{dir}}
	chmodBAtFirst := func(p string) {
		if p == filepath.Join(a, "user.json") {
			if err := os.Chmod(b, 0o555); err != nil {
				t.Error(err)
			}
		}
	}
	testOnlyBeforeConfigWrite = chmodBAtFirst
	defer func() { testOnlyBeforeConfigWrite = func(string) {} }()
	_, err := Setup(home, h, SetupInput{})
	var rd *ReadOnlyDirError
	if !errors.As(err, &rd) || rd.Dir != b {
		t.Fatalf("Setup = %v, want %s named as read-only", err, b)
	}
	if _, err := os.Lstat(filepath.Join(b, "created.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("setup wrote into the directory made read-only: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(a, "user.json")); !strings.Contains(string(data), "bundlectl") {
		t.Errorf("the first file was not written: %s", data)
	}

	os.Chmod(b, 0o755)
	testOnlyBeforeConfigWrite = func(string) {}
	if _, err := Setup(home, h, SetupInput{}); err != nil {
		t.Fatal(err)
	}
	testOnlyBeforeConfigWrite = chmodBAtFirst
	_, err = Undo(home, h, SetupInput{})
	var fe *SetupFileError
	if !errors.As(err, &fe) || !fe.Removes || !errors.As(err, &rd) || rd.Dir != b {
		t.Fatalf("Undo = %v, want the removal from %s refused", err, b)
	}
	if _, err := os.Lstat(filepath.Join(b, "created.json")); err != nil {
		t.Errorf("--undo removed a file from the directory made read-only: %v", err)
	}
}

// TestSetupNamesDanglingLinkInMissingDir: a settings file in a directory
// setup would create under a symbolic link to nothing (a dotfile
// manager's, its target gone) is refused before any file is written,
// naming the link with a hint that shows it; setup once planned it as a
// directory to create and failed at the write with the system's "mkdir
// …: file exists", naming no file of the user's.
func TestSetupNamesDanglingLinkInMissingDir(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	link := filepath.Join(dir, "dot")
	if err := os.Symlink(filepath.Join(dir, "gone"), link); err != nil {
		t.Fatal(err)
	}
	_, err := Setup(home, fakeHost{filepath.Join(link, "sub")}, SetupInput{})
	var fe *SetupFileError
	if !errors.As(err, &fe) || fe.Path != link {
		t.Fatalf("Setup = %v, want %s named", err, link)
	}
	if !strings.Contains(fe.Error(), "a symbolic link to nothing") {
		t.Errorf("message %q names no link to nothing", fe.Error())
	}
	if want := "ls -ld " + link; fe.Hint() != want {
		t.Errorf("hint %q, want %q", fe.Hint(), want)
	}
	if _, err := os.Lstat(recordPath(home, "fake")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("setup wrote its record: %v", err)
	}
}

// TestUndoOfARelativeHome: a setup run with a relative $HOME (".") once
// recorded "." as its $HOME, and a --undo run with HOME=. from another
// directory, another home, took it for its own and undid the first
// one's files. The $HOME recorded is now absolute (as the working
// directory makes it), so that --undo leaves them and names the home.
func TestUndoOfARelativeHome(t *testing.T) {
	home, dir, a, b := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "user.json"), []byte(userSettings), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(a)
	if _, err := Setup(home, fakeHost{dir}, SetupInput{Environ: []string{"HOME=."}}); err != nil {
		t.Fatal(err)
	}
	t.Chdir(b)
	res, err := Undo(home, fakeHost{dir}, SetupInput{Environ: []string{"HOME=."}})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "user.json")); !strings.Contains(string(got), "hooks run PreToolUse") {
		t.Errorf("a --undo with HOME=. in %s undid the setup run with HOME=. in %s:\n%s", b, a, got)
	}
	for _, r := range res {
		if r.OtherHome != a {
			t.Errorf("%s: other home %q, want %q", r.Path, r.OtherHome, a)
		}
	}
	t.Chdir(a)
	if _, err := Undo(home, fakeHost{dir}, SetupInput{Environ: []string{"HOME=" + a + "/"}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "user.json")); string(b) != userSettings {
		t.Errorf("--undo with that home left:\n%s", b)
	}
}
