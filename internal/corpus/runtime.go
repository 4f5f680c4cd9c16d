package corpus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"golang.org/x/sys/unix"
)

// runtimeCase builds one bundle that git cannot hold, or that would not
// check out everywhere, below the directory dir (the bundle directory,
// which exists and holds a valid plugin.json).
type runtimeCase struct {
	name   string
	build  func(t testing.TB, dir string) error
	wants  []string
	limits bundle.Limits
	// secret, if set, is written by build and must never be echoed.
	secret string
}

const tomlSecret = "corpus-secret-toml-many-5e6f"

// replaceManifest swaps the case's plugin.json for another manifest file.
func replaceManifest(dir, name, content string) error {
	if err := os.Remove(filepath.Join(dir, "plugin.json")); err != nil {
		return err
	}
	return write(dir, name, content, 0o644)
}

// flood returns a plugin.json of just under MaxManifestBytes whose
// dev.bundlectl extension is open, then as many items as fit, comma
// separated, then close. item is a string or a func() string.
func flood(name, open string, item any, close string) string {
	var b strings.Builder
	b.WriteString(`{"$schema":"` + bundle.PluginSchemaV1 + `","name":"` + name + `","extensions":{"dev.bundlectl":{` + open)
	tail := close + "}}}\n"
	for i := 0; ; i++ {
		var it string
		switch v := item.(type) {
		case string:
			it = v
		case func() string:
			it = v()
		}
		if b.Len()+len(it)+1+len(tail) > bundle.MaxManifestBytes {
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(it)
	}
	b.WriteString(tail)
	return b.String()
}

func manifest(name string) string {
	return `{"$schema": "` + bundle.PluginSchemaV1 + `", "name": "` + name + `"}` + "\n"
}

func write(dir, rel, content string, mode os.FileMode) error {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		return err
	}
	return os.Chmod(p, mode) // the umask must not decide a mode a case tests
}

// files writes each name as a small regular file.
func files(names ...string) func(testing.TB, string) error {
	return func(_ testing.TB, dir string) error {
		for _, n := range names {
			if err := write(dir, n, "x\n", 0o644); err != nil {
				return err
			}
		}
		return nil
	}
}

func chmod(rel string, mode os.FileMode, isDir bool) func(testing.TB, string) error {
	return func(_ testing.TB, dir string) error {
		p := filepath.Join(dir, rel)
		if isDir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		} else if err := write(dir, rel, "#!/bin/sh\n", 0o755); err != nil {
			return err
		}
		return os.Chmod(p, mode)
	}
}

func mknod(rel string, mode uint32, dev int) func(testing.TB, string) error {
	return func(t testing.TB, dir string) error {
		err := unix.Mknod(filepath.Join(dir, rel), mode|0o644, dev)
		if errors.Is(err, unix.EPERM) && mode == unix.S_IFCHR {
			t.Skip("creating a device node needs CAP_MKNOD")
		}
		return err
	}
}

var runtimeCases = []runtimeCase{
	// ---- types ----
	// A link to a regular file of the bundle is an entry of the tree
	// (read through, hashed with its target); every other link is left
	// out with a skipped tree.symlink, and the rest of the bundle loads.
	{name: "rt-symlink-file", build: func(_ testing.TB, d string) error {
		return os.Symlink("plugin.json", filepath.Join(d, "link.json"))
	}, wants: []string{"valid"}},
	{name: "rt-symlink-shared-script", build: func(_ testing.TB, d string) error {
		// One script shared by two skills, and CLAUDE.md -> AGENTS.md.
		for _, s := range []string{"a", "b"} {
			if err := write(d, "skills/"+s+"/SKILL.md", "---\nname: "+s+"\ndescription: x\n---\n", 0o644); err != nil {
				return err
			}
		}
		if err := write(d, "skills/a/scripts/run.sh", "#!/bin/sh\necho run\n", 0o755); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(d, "skills", "b", "scripts"), 0o755); err != nil {
			return err
		}
		if err := os.Symlink("../../a/scripts/run.sh", filepath.Join(d, "skills", "b", "scripts", "run.sh")); err != nil {
			return err
		}
		if err := write(d, "AGENTS.md", "# agents\n", 0o644); err != nil {
			return err
		}
		return os.Symlink("AGENTS.md", filepath.Join(d, "CLAUDE.md"))
	}, wants: []string{"valid"}},
	{name: "rt-symlink-command", build: func(_ testing.TB, d string) error {
		// A hook command that is a link to an executable of the bundle
		// runs it: no "not executable" warning, and it counts as code.
		if err := write(d, "scripts/guard.sh", "#!/bin/sh\nexit 0\n", 0o755); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(d, "bin"), 0o755); err != nil {
			return err
		}
		if err := os.Symlink("../scripts/guard.sh", filepath.Join(d, "bin", "guard")); err != nil {
			return err
		}
		if err := write(d, "hooks/hooks.json", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/bin/guard", "args": ["stop"]}]}]}}`, 0o644); err != nil {
			return err
		}
		return replaceManifest(d, ".claude-plugin/plugin.json", `{"name": "rt-symlink-command", "version": "1.0.0"}`)
	}, wants: []string{"warning hook.unknown-field hooks/hooks.json: hooks.Stop[0].hooks[0].args"}}, // Codex loads it too, without args
	{name: "rt-symlink-dir-outside", build: func(_ testing.TB, d string) error {
		return os.Symlink("/etc", filepath.Join(d, "etc"))
	}, wants: []string{"skipped tree.symlink etc"}},
	{name: "rt-symlink-escape", build: func(_ testing.TB, d string) error {
		// The conformance fixture "recovery": a relative link out of the root.
		return os.Symlink("..", filepath.Join(d, "escape-link"))
	}, wants: []string{"skipped tree.symlink escape-link"}},
	{name: "rt-symlink-dangling", build: func(_ testing.TB, d string) error {
		return os.Symlink("missing.md", filepath.Join(d, "README.md"))
	}, wants: []string{"skipped tree.symlink README.md"}},
	{name: "rt-symlink-chain", build: func(_ testing.TB, d string) error {
		// first -> plugin.json is kept; second -> first is a link to a link.
		if err := os.Symlink("plugin.json", filepath.Join(d, "first.json")); err != nil {
			return err
		}
		return os.Symlink("first.json", filepath.Join(d, "second.json"))
	}, wants: []string{"skipped tree.symlink second.json"}},
	{name: "rt-symlink-skill-dir", build: func(_ testing.TB, d string) error {
		// A skill reached through a link to a directory is never loaded.
		if err := write(d, "real/helper/SKILL.md", "---\nname: helper\ndescription: x\n---\n", 0o644); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(d, "skills"), 0o755); err != nil {
			return err
		}
		return os.Symlink("../real/helper", filepath.Join(d, "skills", "helper"))
	}, wants: []string{"skipped tree.symlink skills/helper"}},
	{name: "rt-symlink-manifest", build: func(_ testing.TB, d string) error {
		// Read through the link, from real.json.
		if err := os.Rename(filepath.Join(d, "plugin.json"), filepath.Join(d, "real.json")); err != nil {
			return err
		}
		return os.Symlink("real.json", filepath.Join(d, "plugin.json"))
	}, wants: []string{"valid"}},
	{name: "rt-symlink-manifest-outside", build: func(t testing.TB, d string) error {
		outside := filepath.Join(t.TempDir(), "plugin.json")
		if err := os.Rename(filepath.Join(d, "plugin.json"), outside); err != nil {
			return err
		}
		return os.Symlink(outside, filepath.Join(d, "plugin.json"))
	}, wants: []string{"skipped tree.symlink plugin.json", "error manifest.type plugin.json"}},
	{name: "rt-symlink-mcp-json", build: func(_ testing.TB, d string) error {
		return os.Symlink("/etc/passwd", filepath.Join(d, "mcp.json"))
	}, wants: []string{"skipped tree.symlink mcp.json"}},
	{name: "rt-hardlink", build: func(_ testing.TB, d string) error {
		if err := write(d, "notes-a.txt", "x\n", 0o644); err != nil {
			return err
		}
		return os.Link(filepath.Join(d, "notes-a.txt"), filepath.Join(d, "notes-b.txt"))
	}, wants: []string{"error tree.hardlink notes-"}},
	{name: "rt-hardlink-outside", build: func(t testing.TB, d string) error {
		out := filepath.Join(t.TempDir(), "outside.txt")
		if err := os.WriteFile(out, []byte("x\n"), 0o644); err != nil {
			return err
		}
		return os.Link(out, filepath.Join(d, "inside.txt"))
	}, wants: []string{"error tree.hardlink inside.txt"}},
	{name: "rt-fifo", build: func(_ testing.TB, d string) error {
		return unix.Mkfifo(filepath.Join(d, "pipe"), 0o644)
	}, wants: []string{"error tree.special pipe"}},
	{name: "rt-fifo-manifest", build: func(_ testing.TB, d string) error {
		// The manifest itself is a FIFO: reading it would block forever.
		if err := os.Remove(filepath.Join(d, "plugin.json")); err != nil {
			return err
		}
		return unix.Mkfifo(filepath.Join(d, "plugin.json"), 0o644)
	}, wants: []string{"error tree.special plugin.json", "error manifest.type plugin.json"}},
	{name: "rt-fifo-skill", build: func(_ testing.TB, d string) error {
		if err := os.MkdirAll(filepath.Join(d, "skills", "helper"), 0o755); err != nil {
			return err
		}
		return unix.Mkfifo(filepath.Join(d, "skills", "helper", "SKILL.md"), 0o644)
	}, wants: []string{"error tree.special skills/helper/SKILL.md"}},
	{name: "rt-socket", build: mknod("sock", unix.S_IFSOCK, 0),
		wants: []string{"error tree.special sock"}},
	{name: "rt-device", build: mknod("null", unix.S_IFCHR, int(unix.Mkdev(1, 3))),
		wants: []string{"error tree.special null"}},
	{name: "rt-setuid-file", build: chmod("bin/tool", 0o755|os.ModeSetuid, false),
		wants: []string{"error tree.mode bin/tool"}},
	{name: "rt-setgid-file", build: chmod("bin/tool", 0o755|os.ModeSetgid, false),
		wants: []string{"error tree.mode bin/tool"}},
	{name: "rt-setgid-dir", build: chmod("shared", 0o755|os.ModeSetgid, true),
		wants: []string{"error tree.mode shared"}},
	{name: "rt-sticky-dir", build: chmod("tmp", 0o777|os.ModeSticky, true),
		wants: []string{"error tree.mode tmp"}},
	{name: "rt-setgid-bundle-dir", build: func(_ testing.TB, d string) error {
		return os.Chmod(d, 0o755|os.ModeSetgid)
	}, wants: []string{"error tree.mode ."}},

	// ---- names ----
	{name: "rt-name-newline", build: files("fake\nline.txt"), wants: []string{`error name.control "fake\nline.txt"`}},
	{name: "rt-name-carriage-return", build: files("a\rb"), wants: []string{`error name.control "a\rb"`}},
	{name: "rt-name-escape", build: files("red\x1b[31m.txt"), wants: []string{`error name.control "red\x1b[31m.txt"`}},
	{name: "rt-name-del", build: files("del\x7f"), wants: []string{`error name.control "del\x7f"`}},
	{name: "rt-name-bidi", build: files("invoice\u202etxt.exe"), wants: []string{`error name.bidi "invoice\u202etxt.exe"`}},
	{name: "rt-name-invalid-utf8", build: files("bad\xff.txt"), wants: []string{`error name.utf8 "bad\xff.txt"`}},
	{name: "rt-name-bad-dir-not-entered", build: files("dir\nname/evil\x1b.txt"), wants: []string{`error name.control "dir\nname"`}},
	{name: "rt-name-windows-aux", build: files("aux.txt"), wants: []string{"error name.windows aux.txt"}},
	{name: "rt-name-windows-con", build: files("CON"), wants: []string{"error name.windows CON"}},
	{name: "rt-name-windows-com1", build: files("docs/com1.md"), wants: []string{"error name.windows docs/com1.md"}},
	{name: "rt-name-trailing-dot", build: files("notes."), wants: []string{"error name.windows notes."}},
	{name: "rt-name-trailing-space", build: files("notes "), wants: []string{"error name.windows notes "}},
	{name: "rt-name-colon", build: files("a:b"), wants: []string{"error name.windows a:b"}},
	{name: "rt-name-nfc-nfd", build: files("caf\u00e9.md", "cafe\u0301.md"), wants: []string{"error name.collision caf"}},
	{name: "rt-name-case", build: files("README.md", "readme.md"), wants: []string{"error name.collision readme.md"}},
	{name: "rt-name-fold", build: files("skills/STRASSE", "skills/stra\u00dfe"), wants: []string{"error name.collision skills/stra"}},

	{name: "rt-name-c1-csi", build: files("csi\u009b2J"), wants: []string{`error name.control "csi\u009b2J"`}},

	// ---- host formats: component file names the walker must refuse
	// before any reader turns them into a command or agent name ----
	{name: "rt-claude-command-name-control", build: func(_ testing.TB, d string) error {
		if err := replaceManifest(d, ".claude-plugin/plugin.json", `{"name": "rt-claude-command-name-control"}`+"\n"); err != nil {
			return err
		}
		return write(d, "commands/dep\x1b[2Jloy.md", "Deploy.\n", 0o644)
	}, wants: []string{`error name.control "commands/dep\x1b[2Jloy.md"`}},
	{name: "rt-claude-agent-name-newline", build: func(_ testing.TB, d string) error {
		if err := replaceManifest(d, ".claude-plugin/plugin.json", `{"name": "rt-claude-agent-name-newline"}`+"\n"); err != nil {
			return err
		}
		return write(d, "agents/review\nsystem.md", "Review.\n", 0o644)
	}, wants: []string{`error name.control "agents/review\nsystem.md"`}},
	{name: "rt-gemini-command-name-bidi", build: func(_ testing.TB, d string) error {
		if err := replaceManifest(d, "gemini-extension.json", `{"name": "rt-gemini-command-name-bidi", "version": "1.0.0"}`+"\n"); err != nil {
			return err
		}
		return write(d, "commands/sync\u202elmot.toml", "prompt = \"Sync.\"\n", 0o644)
	}, wants: []string{`error name.bidi "commands/sync\u202elmot.toml"`}},
	{name: "rt-codex-skill-dir-control", build: func(_ testing.TB, d string) error {
		if err := replaceManifest(d, ".codex-plugin/plugin.json", `{"name": "rt-codex-skill-dir-control"}`+"\n"); err != nil {
			return err
		}
		return write(d, "skills/tri\x07age/SKILL.md", "---\nname: triage\ndescription: x\n---\n", 0o644)
	}, wants: []string{`error name.control "skills/tri\aage"`}},

	// ---- raw terminal control in content (git could hold these bytes, but
	// the repository keeps none) ----
	{name: "rt-raw-escape-in-skill-body", build: func(_ testing.TB, d string) error {
		// Content is not manifest text: valid, and never printed raw.
		return write(d, "skills/helper/SKILL.md", "---\nname: helper\ndescription: x\n---\n\x1b[2J\x1b]0;owned\x07\u202e\n", 0o644)
	}, wants: []string{"valid"}},
	{name: "rt-raw-escape-in-command-doc", build: func(_ testing.TB, d string) error {
		return write(d, "dev.bundlectl/commands/deploy.md", "\x1b[31mred\x1b[0m\r\n", 0o644)
	}, wants: []string{"valid"}},
	{name: "rt-raw-escape-in-json-string", build: func(_ testing.TB, d string) error {
		// JSON forbids raw control characters in a string.
		return write(d, "plugin.json", `{"$schema": "`+bundle.PluginSchemaV1+`", "name": "rt-raw-escape-in-json-string", "description": "`+"\x1b[2J"+`"}`, 0o644)
	}, wants: []string{"error manifest.json plugin.json"}},
	{name: "rt-raw-bidi-in-json-string", build: func(_ testing.TB, d string) error {
		return write(d, "plugin.json", `{"$schema": "`+bundle.PluginSchemaV1+`", "name": "rt-raw-bidi-in-json-string", "description": "`+"ok \u202e exe.txt"+`"}`, 0o644)
	}, wants: []string{"error text.bidi plugin.json: description"}},
	{name: "rt-raw-bidi-in-toml-string", build: func(_ testing.TB, d string) error {
		if err := os.Remove(filepath.Join(d, "plugin.json")); err != nil {
			return err
		}
		return write(d, "plugin.toml", "schema_version = 1\n[plugin]\nname = \"rt-raw-bidi-in-toml-string\"\ndescription = \"ok \u2067 x\"\n", 0o644)
	}, wants: []string{"error text.bidi plugin.toml: description"}},
	{name: "rt-invalid-utf8-in-json", build: func(_ testing.TB, d string) error {
		return write(d, "plugin.json", `{"$schema": "`+bundle.PluginSchemaV1+`", "name": "rt-invalid-utf8-in-json", "description": "`+"\xff\xfe"+`"}`, 0o644)
	}, wants: []string{"error manifest.json plugin.json"}},
	{name: "rt-invalid-utf8-in-skill", build: func(_ testing.TB, d string) error {
		return write(d, "skills/helper/SKILL.md", "---\nname: helper\ndescription: \xff\n---\n", 0o644)
	}, wants: []string{"skipped skill.front-matter skills/helper/SKILL.md"}},

	// ---- parsed files too large or unreadable ----
	{name: "rt-manifest-too-large", build: func(_ testing.TB, d string) error {
		m := strings.TrimSuffix(manifest("rt-manifest-too-large"), "}\n")
		pad := strings.Repeat(" ", bundle.MaxManifestBytes)
		return write(d, "plugin.json", m+pad+"}\n", 0o644)
	}, wants: []string{"error manifest.read plugin.json"}},
	{name: "rt-skill-too-large", build: func(_ testing.TB, d string) error {
		return write(d, "skills/helper/SKILL.md", "---\nname: helper\ndescription: x\n---\n"+strings.Repeat("x", bundle.MaxManifestBytes), 0o644)
	}, wants: []string{"skipped skill.read skills/helper/SKILL.md"}},

	{name: "rt-mcp-json-too-large", build: func(_ testing.TB, d string) error {
		return write(d, "mcp.json", `{"$schema": "`+bundle.MCPSchemaV1+`", "mcpServers": {}}`+strings.Repeat(" ", bundle.MaxManifestBytes), 0o644)
	}, wants: []string{"skipped mcp.read mcp.json", "warning mcp.disabled mcp.json"}},
	{name: "rt-gemini-policy-too-large", build: func(_ testing.TB, d string) error {
		if err := replaceManifest(d, "gemini-extension.json", `{"name": "rt-gemini-policy-too-large", "version": "1.0.0"}`+"\n"); err != nil {
			return err
		}
		return write(d, "policies/big.toml", "# "+strings.Repeat("x", bundle.MaxManifestBytes)+"\n", 0o644)
	}, wants: []string{"skipped policy.read policies/big.toml"}},
	{name: "rt-command-doc-too-large", build: func(_ testing.TB, d string) error {
		return write(d, "dev.bundlectl/commands/deploy.md", strings.Repeat("x", bundle.MaxManifestBytes+1), 0o644)
	}, wants: []string{"skipped document.read dev.bundlectl/commands/deploy.md"}},
	{name: "rt-toml-too-many-keys", build: func(_ testing.TB, d string) error {
		var b strings.Builder
		b.WriteString("schema_version = 1\n[plugin]\nname = \"rt-toml-too-many-keys\"\n[[tools]]\nname = \"t\"\ncommand = \"x\"\n[tools.params]\n")
		for i := 0; i < 5000; i++ {
			fmt.Fprintf(&b, "k%d = %d\n", i, i)
		}
		return replaceManifest(d, "plugin.toml", b.String())
	}, wants: []string{"error toml.size plugin.toml"}},
	{name: "rt-toml-many-unknown-keys", build: func(_ testing.TB, d string) error {
		var b strings.Builder
		b.WriteString("schema_version = 1\n[plugin]\nname = \"rt-toml-many-unknown-keys\"\n")
		for i := 0; i < 200; i++ {
			fmt.Fprintf(&b, "extra%d = \"%s\"\n", i, tomlSecret)
		}
		return replaceManifest(d, "plugin.toml", b.String())
	}, wants: []string{"error toml.unknown plugin.toml"}, secret: tomlSecret},
	// ---- work bombs: a 1 MiB manifest must validate in well under the
	// 5 s guard (compiling each regular expression took minutes) ----
	{name: "rt-hook-matcher-flood", build: func(_ testing.TB, d string) error {
		return write(d, "plugin.json", flood("rt-hook-matcher-flood", `"hooks":{"Stop":[`, `{"matcher":"x{1,1000}x{1,1000}","hooks":[{"type":"command","command":"true"}]}`, `]}`), 0o644)
	}, wants: []string{"valid"}},
	{name: "rt-params-pattern-flood", build: func(_ testing.TB, d string) error {
		n := 0
		return write(d, "plugin.json", flood("rt-params-pattern-flood", `"tools":[`, func() string {
			n++
			return fmt.Sprintf(`{"name":"t%d","command":"true","params":{"pattern":"x{1,1000}x{1,1000}"}}`, n)
		}, `]`), 0o644)
	}, wants: []string{"valid"}},
	{name: "rt-bundle-path-is-file", build: func(_ testing.TB, d string) error {
		if err := os.RemoveAll(d); err != nil {
			return err
		}
		return os.WriteFile(d, []byte(manifest("rt-bundle-path-is-file")), 0o644)
	}, wants: []string{"error tree.type ."}},
	{name: "rt-bundle-dir-symlink", build: func(t testing.TB, d string) error {
		real := filepath.Join(t.TempDir(), "rt-bundle-dir-symlink")
		if err := os.Rename(d, real); err != nil {
			return err
		}
		return os.Symlink(real, d)
	}, wants: []string{"error tree.symlink ."}},

	// ---- bounds, with small limits ----
	{name: "rt-bounds-entries-dir", build: files("many/1", "many/2", "many/3", "many/4", "many/5", "many/6"),
		limits: bundle.Limits{MaxEntries: 5}, wants: []string{"error bounds.entries many"}},
	{name: "rt-bounds-entries-tree", build: files("a/1", "a/2", "b/1", "b/2"),
		limits: bundle.Limits{MaxEntries: 5}, wants: []string{"error bounds.entries b/"}},
	{name: "rt-bounds-total", build: func(_ testing.TB, d string) error {
		if err := write(d, "a.bin", strings.Repeat("a", 300), 0o644); err != nil {
			return err
		}
		return write(d, "b.bin", strings.Repeat("b", 300), 0o644)
	}, limits: bundle.Limits{MaxTotalBytes: 500}, wants: []string{"error bounds.total b.bin"}},
	{name: "rt-bounds-file", build: func(_ testing.TB, d string) error {
		return write(d, "big.bin", strings.Repeat("z", 200), 0o644)
	}, limits: bundle.Limits{MaxFileBytes: 150}, wants: []string{"error bounds.file big.bin"}},
	{name: "rt-bounds-depth", build: files("a/b/c/d.txt"),
		limits: bundle.Limits{MaxDepth: 3}, wants: []string{"error bounds.depth a/b/c/d.txt"}},
	{name: "rt-bounds-path", build: files("dir/" + strings.Repeat("n", 40)),
		limits: bundle.Limits{MaxPathBytes: 30}, wants: []string{"error bounds.path dir/nnn"}},
}

// Runtime builds every runtime case below a fresh t.TempDir and returns
// them. A case that needs a privilege the test lacks skips only itself
// (see Build).
func Runtime(t testing.TB) []Case {
	root := t.TempDir()
	var out []Case
	for _, rc := range runtimeCases {
		c := Case{Name: rc.name, Dir: filepath.Join(root, rc.name), Limits: rc.limits, Runtime: true}
		var err error
		if c.Wants, c.Blocked, err = ParseWant([]byte(strings.Join(rc.wants, "\n"))); err != nil {
			t.Fatalf("runtime case %s: %v", rc.name, err)
		}
		if rc.secret != "" {
			c.Secrets = []string{rc.secret}
		}
		out = append(out, c)
	}
	return out
}

// Build creates the bundle directory of a runtime case. It must run inside
// the subtest of the case, so that a missing privilege skips that case only.
func Build(t testing.TB, c Case) {
	t.Helper()
	for _, rc := range runtimeCases {
		if rc.name != c.Name {
			continue
		}
		if err := write(c.Dir, "plugin.json", manifest(c.Name), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := rc.build(t, c.Dir); err != nil {
			t.Fatalf("building %s: %v", c.Name, err)
		}
		return
	}
	t.Fatalf("%s is not a runtime case", c.Name)
}
