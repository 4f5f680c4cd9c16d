package hosts

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func testView(t *testing.T) *View {
	t.Helper()
	v := NewView()
	if err := v.Add("a/b/c.txt", []byte("content"), false); err != nil {
		t.Fatal(err)
	}
	if err := v.Add("run.sh", []byte("#!/bin/sh\n"), true); err != nil {
		t.Fatal(err)
	}
	if err := v.AddJSON("x.json", map[string]any{"k": "<v>"}); err != nil {
		t.Fatal(err)
	}
	return v
}

func writable(root string) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
}

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// TestMaterialize: a view is built read-only and owner-only, named by its
// content, reused while it matches, and rebuilt when anything in it
// changed — content, mode, an extra or missing file, a hard link.
func TestMaterialize(t *testing.T) {
	views := filepath.Join(t.TempDir(), "views")
	t.Cleanup(func() { writable(views) })
	v := testView(t)
	dir, err := Materialize(views, "tok", "claude", "b", v)
	if err != nil {
		t.Fatal(err)
	}
	modes := map[string]fs.FileMode{"": 0o500, "a": 0o500, "a/b": 0o500, "a/b/c.txt": 0o400, "run.sh": 0o500, "x.json": 0o400}
	for rel, want := range modes {
		fi, err := os.Lstat(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s has mode %04o, want %04o", rel, fi.Mode().Perm(), want)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "x.json")); !strings.Contains(string(got), `"<v>"`) {
		t.Errorf("x.json = %s", got)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), filepath.Base(dir)+".manifest")); err != nil {
		t.Errorf("no manifest next to the view: %v", err)
	}
	ino := inode(t, dir)
	again, err := Materialize(views, "tok", "claude", "b", testView(t))
	if err != nil || again != dir || inode(t, dir) != ino {
		t.Fatalf("an intact view was not reused: %v %s", err, again)
	}

	other := testView(t)
	other.Add("extra", []byte("x"), false)
	if d, _ := Materialize(views, "tok", "claude", "b", other); d == dir {
		t.Errorf("a view of other content got the same directory")
	}

	for _, c := range []struct {
		name   string
		tamper func(dir string) error
	}{
		{"content", func(dir string) error {
			p := filepath.Join(dir, "a/b/c.txt")
			os.Chmod(p, 0o600)
			if err := os.WriteFile(p, []byte("CONTENT"), 0o600); err != nil {
				return err
			}
			return os.Chmod(p, 0o400)
		}},
		{"mode", func(dir string) error { return os.Chmod(filepath.Join(dir, "run.sh"), 0o700) }},
		{"extra file", func(dir string) error {
			os.Chmod(dir, 0o700)
			defer os.Chmod(dir, 0o500)
			return os.WriteFile(filepath.Join(dir, "new"), nil, 0o400)
		}},
		{"missing file", func(dir string) error {
			os.Chmod(dir, 0o700)
			defer os.Chmod(dir, 0o500)
			return os.Remove(filepath.Join(dir, "x.json"))
		}},
		{"hard link", func(dir string) error {
			return os.Link(filepath.Join(dir, "x.json"), filepath.Join(filepath.Dir(dir), "outside-link"))
		}},
		{"removed", func(dir string) error { writable(dir); return os.RemoveAll(dir) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.tamper(dir); err != nil {
				t.Fatal(err)
			}
			if err := testView(t).check(dir); err == nil {
				t.Fatalf("check passed a view whose %s changed", c.name)
			}
			got, err := Materialize(views, "tok", "claude", "b", testView(t))
			if err != nil || got != dir {
				t.Fatalf("Materialize = %s, %v", got, err)
			}
			if err := testView(t).check(dir); err != nil {
				t.Fatalf("the rebuilt view does not check: %v", err)
			}
			os.Remove(filepath.Join(filepath.Dir(dir), "outside-link"))
		})
	}
}

// TestMaterializeRefusesLinkedContainer: a views directory that is a
// symbolic link is refused, never followed.
func TestMaterializeRefusesLinkedContainer(t *testing.T) {
	tmp := t.TempDir()
	if err := os.Mkdir(filepath.Join(tmp, "elsewhere"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(tmp, "elsewhere"), filepath.Join(tmp, "views")); err != nil {
		t.Fatal(err)
	}
	if _, err := Materialize(filepath.Join(tmp, "views"), "tok", "claude", "b", testView(t)); err == nil {
		t.Fatal("Materialize followed a linked views directory")
	}
}

func TestViewPaths(t *testing.T) {
	v := NewView()
	for _, bad := range []string{"", "/abs", "../up", "a/../b", "a//b", "."} {
		if err := v.Add(bad, nil, false); err == nil {
			t.Errorf("Add(%q) accepted", bad)
		}
	}
}

// TestCopyFile: a link inside the snapshot is copied as the file it names;
// one that leads out of the snapshot is refused.
func TestCopyFile(t *testing.T) {
	snap := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("secret"), 0o600)
	os.MkdirAll(filepath.Join(snap, "skills/s"), 0o700)
	os.WriteFile(filepath.Join(snap, "skills/s/SKILL.md"), []byte("body"), 0o400)
	os.WriteFile(filepath.Join(snap, "tool"), []byte("#!"), 0o500)
	os.Symlink("SKILL.md", filepath.Join(snap, "skills/s/alias.md"))
	os.Symlink(outside, filepath.Join(snap, "skills/s/leak.md"))
	v := NewView()
	if err := v.CopyFile(snap, "skills/s/alias.md", "alias.md"); err != nil {
		t.Fatal(err)
	}
	if d, _ := v.File("alias.md"); string(d) != "body" {
		t.Errorf("alias.md = %q", d)
	}
	if err := v.CopyFile(snap, "skills/s/leak.md", "leak.md"); err == nil {
		t.Errorf("a link out of the snapshot was copied")
	}
	if err := v.CopyFile(snap, "tool", "tool"); err != nil || !v.files["tool"].exec {
		t.Errorf("the executable bit was not kept: %v", err)
	}
	if err := v.CopyFile(snap, "missing", "m"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestSetFrontMatter(t *testing.T) {
	doc := "---\nname: s\ndescription: d # kept\nhooks:\n  PreToolUse:\n    - hooks:\n        - command: ./x.sh\n---\n\n# Body\n\n---\nnot front matter\n"
	body := "\n# Body\n\n---\nnot front matter\n"
	out, err := SetFrontMatter([]byte(doc), "hooks", map[string]any{"PreToolUse": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "/bin/bundlectl"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if !strings.HasSuffix(s, body) || !strings.Contains(s, "/bin/bundlectl") || strings.Contains(s, "./x.sh") || !strings.Contains(s, "description: d") {
		t.Errorf("replaced:\n%s", s)
	}
	out, err = SetFrontMatter([]byte(doc), "hooks", nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(out); strings.Contains(s, "hooks") || !strings.HasSuffix(s, body) || !strings.HasPrefix(s, "---\nname: s\n") {
		t.Errorf("removed:\n%s", s)
	}
	plain := "no front matter\n"
	if out, err := SetFrontMatter([]byte(plain), "hooks", nil); err != nil || string(out) != plain {
		t.Errorf("a document without front matter changed: %q %v", out, err)
	}
}

// TestFrontMatterAgrees: a document is loaded into a view only when the
// hosts read its front matter as the review did: Claude Code's pattern
// (a BOM dropped, "---", any JavaScript white space, a line feed, up to the
// next "---" anywhere) and Codex's (any line that trims to "---").
func TestFrontMatterAgrees(t *testing.T) {
	for _, c := range []struct {
		doc  string
		want bool
	}{
		{"---\nname: a\n---\nbody\n", true},
		{"---  \r\nname: a\r\n---\r\nbody\r\n", true},
		{"\ufeff---\nname: a\n---\nbody\n", true},
		{"---\n\n\nname: a\n---\n", true}, // blank lines the host skips
		{"# no front matter\n---\n", true},
		{"---\nonly a rule, never closed\n", true},
		{"---\u00a0\nhooks: x\n---\nbody\n", false},     // Claude Code: JavaScript's \s
		{"---\u0085\nhooks: x\n---\nbody\n", false},     // Codex: Rust's trim
		{"---\ndescription: a---b\n---\nbody\n", false}, // Claude Code ends at the first "---"
		{"---\nname: a\n  ---\nhooks: x\n---\n", false}, // Codex closes at the indented line
	} {
		if got := FrontMatterAgrees([]byte(c.doc)); got != c.want {
			t.Errorf("FrontMatterAgrees(%q) = %v, want %v", c.doc, got, c.want)
		}
	}
}

// TestGeminiAgent: an agent's front matter as Gemini CLI's loader reads it
// (remote by list, kind, agent card or auth; inline mcp_servers), and what
// cannot be read for certain.
func TestGeminiAgent(t *testing.T) {
	for _, c := range []struct {
		doc                  string
		remote, servers, odd bool
	}{
		{"---\nname: a\ndescription: d\n---\nbody", false, false, false},
		{"---\nname: a\ndescription: d\nmcp_servers:\n  s: {command: sh}\n---\n", false, true, false},
		{"---\nname: a\ndescription: d\nmcp_servers: null\n---\n", false, false, false},
		{"---\nname: a\nkind: remote\nagent_card_json: '{}'\n---\n", true, false, false},
		{"---\nname: a\nagent_card_url: https://x.example/c.json\n---\n", true, false, false},
		{"---\nname: a\nauth: {type: oauth}\n---\n", true, false, false},
		{"---\n- name: a\n  agent_card_url: https://x.example/c.json\n---\n", true, false, false},
		{"---\nname: a\n<<: {mcp_servers: {s: {command: sh}}}\n---\n", false, false, true},
		{"no front matter", false, false, true},
		{"---\njust text\n---\n", false, false, true},
	} {
		remote, servers, odd := GeminiAgent([]byte(c.doc))
		if remote != c.remote || servers != c.servers || odd != c.odd {
			t.Errorf("GeminiAgent(%q) = %v, %v, %v; want %v, %v, %v", c.doc, remote, servers, odd, c.remote, c.servers, c.odd)
		}
	}
}

// TestMaterializeSweepsWhatAKilledLaunchLeft: a launch SIGKILLed while it
// built a view (.tmp-*, made read-only as it goes) or discarded a tampered
// one (.trash-*) leaves the directory in the token's host directory, which
// gc keeps while the token is trusted; the next launch, under the same
// lock, removes it and nothing else.
func TestMaterializeSweepsWhatAKilledLaunchLeft(t *testing.T) {
	views := filepath.Join(t.TempDir(), "views")
	t.Cleanup(func() { writable(views) })
	dir, err := Materialize(views, "tok", "claude", "b", testView(t))
	if err != nil {
		t.Fatal(err)
	}
	hostDir := filepath.Dir(dir)
	left := []string{filepath.Join(hostDir, ".tmp-123456"), filepath.Join(hostDir, ".trash-0011223344556677")}
	for _, d := range left {
		if err := os.MkdirAll(filepath.Join(d, "a"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "a", "f"), []byte("x"), 0o400); err != nil {
			t.Fatal(err)
		}
		os.Chmod(filepath.Join(d, "a"), 0o500)
		os.Chmod(d, 0o500)
	}
	keep := filepath.Join(hostDir, "notes")
	if err := os.WriteFile(keep, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if again, err := Materialize(views, "tok", "claude", "b", testView(t)); err != nil || again != dir {
		t.Fatalf("%s, %v", again, err)
	}
	for _, d := range left {
		if _, err := os.Lstat(d); !os.IsNotExist(err) {
			t.Errorf("%s survived the next launch (%v)", d, err)
		}
	}
	for _, p := range []string{keep, dir} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}
