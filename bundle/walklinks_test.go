package bundle

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// linkKeys renders the walk's kept links as "path -> target" and its
// tree.symlink findings as "skip path", each sorted; any other finding
// is returned in other.
func linkKeys(tree *Tree, rep Report) (kept, skipped, other []string) {
	kept, skipped, other = []string{}, []string{}, []string{}
	for _, e := range tree.Entries {
		if e.Kind == KindLink {
			kept = append(kept, e.Path+" -> "+e.Target)
		}
	}
	for _, f := range rep.Findings {
		if f.Rule == "tree.symlink" && f.Severity == Skip {
			skipped = append(skipped, f.Path)
		} else {
			other = append(other, f.Severity.String()+" "+f.Rule+" "+f.Path)
		}
	}
	sort.Strings(kept)
	sort.Strings(skipped)
	return kept, skipped, other
}

// TestWalkLinks walks one link of each accepted and refused form, each in
// a bundle of its own holding AGENTS.md, docs/guide.md, scripts/tool.sh
// (executable), skills/a/run.sh and an empty skills/b, through both walk
// paths (prescan and direct).
func TestWalkLinks(t *testing.T) {
	tests := []struct {
		name, link, text string
		target           string // kept with this target; "" = skipped
		why              string // part of the skip message
		extra            func(t *testing.T, dir string)
	}{
		{name: "same directory", link: "CLAUDE.md", text: "AGENTS.md", target: "AGENTS.md"},
		{name: "dot slash", link: "CLAUDE.md", text: "./AGENTS.md", target: "AGENTS.md"},
		{name: "file in another directory", link: "skills/b/run.sh", text: "../a/run.sh", target: "skills/a/run.sh"},
		{name: "down into a directory", link: "guide.md", text: "docs/guide.md", target: "docs/guide.md"},
		{name: "dot dot inside the root", link: "skills/b/tool", text: "../../scripts/tool.sh", target: "scripts/tool.sh"},
		{name: "up and back down", link: "docs/x.md", text: ".././docs/../docs//guide.md", target: "docs/guide.md"},
		{name: "to an executable", link: "bin-tool", text: "scripts/tool.sh", target: "scripts/tool.sh"},

		{name: "absolute outside", link: "abs", text: "/etc/passwd", why: "absolute"},
		{name: "absolute into the bundle", link: "abs", text: "@ROOT@/AGENTS.md", why: "absolute"},
		{name: "escapes to the parent", link: "escape-link", text: "..", why: "leaves the bundle"},
		{name: "escapes from below", link: "skills/b/x", text: "../../../x", why: "leaves the bundle"},
		// The kernel would come back in through the bundle's own name;
		// lexically it leaves the root, and that is the rule.
		{name: "escapes and comes back", link: "CLAUDE.md", text: "../demo/AGENTS.md", why: "leaves the bundle"},
		{name: "dangling", link: "gone", text: "missing.md", why: "does not exist"},
		{name: "dangling directory on the way", link: "gone", text: "nodir/x", why: "does not exist"},
		{name: "to a directory", link: "d", text: "docs", why: "is a directory"},
		{name: "to a directory with a slash", link: "d", text: "docs/", why: "is a directory"},
		{name: "trailing slash after a file", link: "d", text: "AGENTS.md/", why: "not a directory"},
		{name: "to the root", link: "skills/r", text: "..", why: "bundle directory"},
		{name: "to the root by dot", link: "r", text: ".", why: "bundle directory"},
		{name: "through a file", link: "f", text: "AGENTS.md/../AGENTS.md", why: "not a directory"},
		{name: "to itself", link: "self", text: "self", why: "another link"},
		{name: "chain", link: "chain", text: "CLAUDE.md", why: "another link", extra: func(t *testing.T, dir string) {
			must(t, os.Symlink("AGENTS.md", filepath.Join(dir, "CLAUDE.md")))
		}},
		{name: "through a link to a directory", link: "via", text: "dlink/guide.md", why: "through the link", extra: func(t *testing.T, dir string) {
			must(t, os.Symlink("docs", filepath.Join(dir, "dlink")))
		}},
		{name: "to a fifo", link: "ff", text: "pipe", why: "does not exist", extra: func(t *testing.T, dir string) {
			must(t, unix.Mkfifo(filepath.Join(dir, "pipe"), 0o644))
		}},
	}
	for _, tt := range tests {
		for _, parallel := range []bool{true, false} {
			name := tt.name + map[bool]string{true: " prescan", false: " direct"}[parallel]
			t.Run(name, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "demo")
				mkfile(t, dir, "AGENTS.md", "# agents\n", 0o644)
				mkfile(t, dir, "docs/guide.md", "guide\n", 0o644)
				mkfile(t, dir, "scripts/tool.sh", "#!/bin/sh\n", 0o755)
				mkfile(t, dir, "skills/a/run.sh", "run\n", 0o644)
				mkdir(t, dir, "skills/b")
				if tt.extra != nil {
					tt.extra(t, dir)
				}
				text := strings.ReplaceAll(tt.text, "@ROOT@", dir)
				must(t, os.Symlink(text, filepath.Join(dir, filepath.FromSlash(tt.link))))

				tree, rep := walk(dir, Limits{}, parallel)
				if tree == nil {
					t.Fatalf("no tree: %v", rep.Findings)
				}
				kept, skipped, other := linkKeys(tree, rep)
				if tt.name == "chain" {
					kept = slicesWithout(kept, "CLAUDE.md -> AGENTS.md")
				}
				if tt.name == "through a link to a directory" {
					skipped = slicesWithout(skipped, "dlink")
				}
				if tt.name == "to a fifo" {
					other = slicesWithout(other, "error tree.special pipe")
				}
				if len(other) != 0 {
					t.Errorf("other findings: %q", other)
				}
				if tt.target != "" {
					if want := []string{tt.link + " -> " + tt.target}; !reflect.DeepEqual(kept, want) || len(skipped) != 0 {
						t.Fatalf("kept %q skipped %q, want %q", kept, skipped, want)
					}
					e, _ := tree.Lookup(tt.link)
					if e.Kind != KindLink || e.Size != 0 || e.Ino == 0 {
						t.Errorf("entry %+v", e)
					}
					if r, ok := tree.Resolve(tt.link); !ok || r.Path != tt.target || !r.Kind.Regular() {
						t.Errorf("Resolve = %+v, %v", r, ok)
					}
					return
				}
				if !reflect.DeepEqual(skipped, []string{tt.link}) || len(kept) != 0 {
					t.Fatalf("kept %q skipped %q, want only %s skipped", kept, skipped, tt.link)
				}
				if _, ok := tree.Lookup(tt.link); ok {
					t.Errorf("a refused link is an entry of the tree")
				}
				for _, f := range rep.Findings {
					if f.Path == tt.link && f.Rule == "tree.symlink" {
						if !strings.Contains(f.Message, tt.why) || !strings.HasPrefix(f.Message, "the link is not part of the bundle: ") {
							t.Errorf("message %q does not say %q", f.Message, tt.why)
						}
						if !safeText(f.Message) {
							t.Errorf("message %q is not safe to print", f.Message)
						}
					}
				}
				if rep.Rejected() && tt.name != "to a fifo" {
					t.Errorf("a refused link rejected the bundle: %v", rep.Findings)
				}
			})
		}
	}
}

func slicesWithout(s []string, drop string) []string {
	out := []string{}
	for _, x := range s {
		if x != drop {
			out = append(out, x)
		}
	}
	return out
}

// TestWalkLinkLoop: two links naming each other are both refused, and
// the walk returns (it never follows either).
func TestWalkLinkLoop(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "b")
	mkdir(t, dir, ".")
	must(t, os.Symlink("b", filepath.Join(dir, "a")))
	must(t, os.Symlink("a", filepath.Join(dir, "b")))
	tree, rep := walkWithTimeout(t, dir, Limits{})
	kept, skipped, other := linkKeys(tree, rep)
	if len(kept)+len(other) != 0 || !reflect.DeepEqual(skipped, []string{"a", "b"}) {
		t.Fatalf("kept %q skipped %q other %q", kept, skipped, other)
	}
}

// TestWalkLinksCountTowardTheBound: every link is an entry while the walk
// runs, kept or not, so a tree of refused links cannot grow the report
// without bound.
func TestWalkLinksCountTowardTheBound(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "b")
	mkfile(t, dir, "a", "", 0o644)
	mkdir(t, dir, "d")
	for _, n := range []string{"l1", "l2"} {
		must(t, os.Symlink("/nowhere", filepath.Join(dir, "d", n)))
	}
	_, rep := walkWithTimeout(t, dir, Limits{MaxEntries: 3})
	if got := findingKeys(rep); !reflect.DeepEqual(got, []string{"bounds.entries d/l2"}) {
		t.Fatalf("findings %q", got)
	}
}

// TestLinkText: the text Stage writes for a link resolves, through the
// walk's own rules, to the target it was written for, for every pair of
// a link place and a file in a small tree; and it is the shortest form.
func TestLinkText(t *testing.T) {
	for _, tt := range []struct{ link, target, want string }{
		{"CLAUDE.md", "AGENTS.md", "AGENTS.md"},
		{"skills/b/run.sh", "skills/a/run.sh", "../a/run.sh"},
		{"a/b/c/l", "x", "../../../x"},
		{"l", "a/b/c", "a/b/c"},
		{"a/l", "a/f", "f"},
		{"a/b/l", "a/bb/f", "../bb/f"},
		{"a/l", "a", "../a"}, // a file named like the link's directory's prefix
	} {
		if got := LinkText(tt.link, tt.target); got != tt.want {
			t.Errorf("LinkText(%q, %q) = %q, want %q", tt.link, tt.target, got, tt.want)
		}
	}
	dir := filepath.Join(t.TempDir(), "b")
	files := []string{"f", "a/f", "a/b/f", "a/b/c/f", "x/f", "x/a/f", "ab/f"}
	for _, f := range files {
		mkfile(t, dir, f, f, 0o644)
	}
	tree, rep := walkWithTimeout(t, dir, Limits{})
	if len(rep.Findings) != 0 {
		t.Fatal(rep.Findings)
	}
	for _, target := range files {
		for _, d := range []string{"", "a", "a/b", "a/b/c", "x", "x/a", "ab"} {
			link := path.Join(d, "link")
			text := LinkText(link, target)
			if got, why := resolveLink(tree, link, text); got != target || why != "" {
				t.Errorf("link %s -> %q resolves to %q (%s), want %s", link, text, got, why, target)
			}
		}
	}
}

// TestTreeOpensALinksTarget: Open and ReadFile of an accepted link read
// the target entry, checked like any file; the link is never followed.
func TestTreeOpensALinksTarget(t *testing.T) {
	build := func(t *testing.T) (*Tree, string) {
		dir := filepath.Join(t.TempDir(), "b")
		mkfile(t, dir, "AGENTS.md", "# the agents file\n", 0o644)
		mkfile(t, dir, "skills/a/run.sh", "echo run\n", 0o755)
		mkdir(t, dir, "skills/b")
		must(t, os.Symlink("AGENTS.md", filepath.Join(dir, "CLAUDE.md")))
		must(t, os.Symlink("../a/run.sh", filepath.Join(dir, "skills/b/run.sh")))
		tree, rep := walkWithTimeout(t, dir, Limits{})
		if len(rep.Findings) != 0 {
			t.Fatal(rep.Findings)
		}
		return tree, dir
	}
	tree, dir := build(t)
	data, err := tree.ReadFile("CLAUDE.md", 100)
	if err != nil || string(data) != "# the agents file\n" {
		t.Fatalf("ReadFile(CLAUDE.md) = %q, %v", data, err)
	}
	f, e, err := tree.Open("skills/b/run.sh")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if e.Path != "skills/a/run.sh" || e.Kind != KindExec {
		t.Errorf("Open returned the entry %+v, want the target's", e)
	}
	op := tree.NewOpener()
	defer op.Close()
	f, e, err = op.Open("CLAUDE.md")
	if err != nil || e.Path != "AGENTS.md" {
		t.Fatalf("Opener.Open(CLAUDE.md) = %+v, %v", e, err)
	}
	f.Close()
	if tree.Files != 2 || tree.Bytes != int64(len("# the agents file\n")+len("echo run\n")) {
		t.Errorf("files %d bytes %d: links must not count", tree.Files, tree.Bytes)
	}

	// The target is checked like any file: replaced after the walk, the
	// read through the link is refused.
	must(t, os.WriteFile(filepath.Join(dir, "AGENTS.md.new"), []byte("# the agents FILE\n"), 0o644))
	must(t, os.Rename(filepath.Join(dir, "AGENTS.md.new"), filepath.Join(dir, "AGENTS.md")))
	if _, err := tree.ReadFile("CLAUDE.md", 100); !errors.Is(err, ErrChanged) {
		t.Errorf("ReadFile through a link to a replaced file = %v, want ErrChanged", err)
	}

	// The link itself is never opened: retargeted after the walk to a file
	// outside, a read of it still reads the walked target, checked.
	tree, dir = build(t)
	outside := filepath.Join(t.TempDir(), "secret")
	must(t, os.WriteFile(outside, []byte("outside\n"), 0o644))
	must(t, os.Remove(filepath.Join(dir, "CLAUDE.md")))
	must(t, os.Symlink(outside, filepath.Join(dir, "CLAUDE.md")))
	if data, err := tree.ReadFile("CLAUDE.md", 100); err != nil || string(data) != "# the agents file\n" {
		t.Errorf("ReadFile after a retarget = %q, %v; want the walked target's bytes", data, err)
	}

	// A refused link is no entry: reading it fails like a missing file.
	must(t, os.Symlink("/etc/passwd", filepath.Join(dir, "abs")))
	tree, _ = walkWithTimeout(t, dir, Limits{})
	if _, err := tree.ReadFile("abs", 100); !errors.Is(err, ErrChanged) {
		t.Errorf("ReadFile of a refused link = %v, want ErrChanged (not a walked file)", err)
	}
}

// TestLoadManifestThroughLink: a manifest that is an accepted link is read
// from its target; one that is a refused link is still reported as a
// manifest that is not a regular file, besides the skipped link.
func TestLoadManifestThroughLink(t *testing.T) {
	dir := writeBundle(t, "demo", files{"real.json": minimalPlugin, "config/mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "node"}}`)})
	must(t, os.Symlink("real.json", filepath.Join(dir, "plugin.json")))
	must(t, os.Symlink("config/mcp.json", filepath.Join(dir, "mcp.json")))
	b := Load(dir, ScopeDir, Limits{})
	requireClean(t, b)
	if b.Name != "demo" || len(b.Components.MCP) != 1 || b.Components.MCP[0].Name != "s" {
		t.Fatalf("name %q mcp %+v; findings:%s", b.Name, b.Components.MCP, dumpFindings(b))
	}

	dir = writeBundle(t, "demo", files{})
	must(t, os.Symlink("/etc/passwd", filepath.Join(dir, "plugin.json")))
	b = Load(dir, ScopeDir, Limits{})
	requireFinding(t, b, Skip, "tree.symlink", "plugin.json")
	requireFinding(t, b, Error, "manifest.type", "plugin.json")
}

// TestLoadRecoveryShape is the shape of the Agent Plugins conformance
// fixture "recovery": a link escape-link -> .. leaves the root. Only the
// link is refused (skipped), and only the servers that name it fail their
// own checks; the rest of the plugin loads and can be trusted.
func TestLoadRecoveryShape(t *testing.T) {
	dir := writeBundle(t, "demo", files{
		"plugin.json":       minimalPlugin,
		"dist/probe.mjs":    "// probe\n",
		"skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\nbody\n",
		"mcp.json": mcpJSON(`{
			"recovery-valid": {"type": "stdio", "command": "node", "args": ["${PLUGIN_ROOT}/dist/probe.mjs"]},
			"recovery-command-through-link": {"type": "stdio", "command": "./escape-link/bin/tool"},
			"recovery-cwd-symlink-escape": {"type": "stdio", "command": "node", "args": ["${PLUGIN_ROOT}/dist/probe.mjs"], "cwd": "./escape-link"}
		}`),
	})
	must(t, os.Symlink("..", filepath.Join(dir, "escape-link")))
	b := Load(dir, ScopeDir, Limits{})
	if b.Rejected() {
		t.Fatalf("the plugin was rejected:%s", dumpFindings(b))
	}
	requireFinding(t, b, Skip, "tree.symlink", "escape-link")
	requireFinding(t, b, Skip, "command.missing", "recovery-command-through-link")
	if _, ok := b.Tree.Lookup("escape-link"); ok {
		t.Error("the escaping link is an entry of the tree")
	}
	loaded := map[string]bool{}
	for _, s := range b.Components.MCP {
		loaded[s.Name] = true
	}
	if !loaded["recovery-valid"] || loaded["recovery-command-through-link"] || len(b.Components.Skills) != 1 {
		t.Fatalf("servers %v skills %d; findings:%s", loaded, len(b.Components.Skills), dumpFindings(b))
	}
	if loaded["recovery-cwd-symlink-escape"] {
		t.Errorf("the server whose cwd goes through the refused link is still loaded")
	}
	requireFinding(t, b, Skip, "mcp.cwd", "recovery-cwd-symlink-escape")
}
