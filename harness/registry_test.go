package harness_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/inventory"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/state"
)

// fixture is a home and a workspace with one trusted, enabled bundle.
type fixture struct {
	home, ws, src string
	m             *lifecycle.Manager
}

const toolManifest = `{
  "$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
  "name": "kit",
  "version": "1.0.0",
  "extensions": {"dev.bundlectl": {
    "tools": [
      {"name": "echo", "description": "echo stdin", "command": "./bin/echo", "args": ["${PLUGIN_ROOT}"],
       "params": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
      {"name": "env", "command": "./bin/env"},
      {"name": "sleep", "command": "./bin/sleep", "timeout_sec": 30},
      {"name": "touch", "command": "./bin/touch"}
    ]
  }}
}`

const mcpManifest = `{
  "$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json",
  "mcpServers": {"echo": {"type": "stdio", "command": "./bin/srv", "args": ["${PLUGIN_DATA}"]}}
}`

var toolScripts = map[string]string{
	"mcp.json": mcpManifest,
	"bin/srv": "#!/bin/sh\nread -r p _ < /proc/self/stat; echo $p > \"$1/srv.pid\"\n" +
		"sh -c 'read -r p _ < /proc/self/stat; echo $p > \"$0/srvchild.tmp\"; mv \"$0/srvchild.tmp\" \"$0/srvchild.pid\"; exec sleep 60' \"$1\" &\ncat\n",
	"bin/echo": "#!/bin/sh\necho \"root=$1\"\ncat\n",
	"bin/env":  "#!/bin/sh\nenv\n",
	"bin/sleep": "#!/bin/sh\nread -r p _ < /proc/self/stat; echo $p > \"$PLUGIN_DATA/main.pid\"\n" +
		"sh -c 'read -r p _ < /proc/self/stat; echo $p > \"$PLUGIN_DATA/child.tmp\"; mv \"$PLUGIN_DATA/child.tmp\" \"$PLUGIN_DATA/child.pid\"; exec sleep 60' &\nwait\n",
	"bin/touch": "#!/bin/sh\ntouch \"$PLUGIN_DATA/ran\"\n",
}

func writeBundle(t *testing.T, dir, manifest string, scripts map[string]string) {
	t.Helper()
	must(t, os.MkdirAll(dir, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "plugin.json"), []byte(manifest), 0o644))
	for rel, body := range scripts {
		p := filepath.Join(dir, rel)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(body), 0o755))
	}
}

// writeGuard writes bundle "g" at dir: one PreToolUse hook, for every
// tool, that touches marker when it runs.
func writeGuard(t *testing.T, dir, marker string) {
	t.Helper()
	writeBundle(t, dir, `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "g",
  "extensions": {"dev.bundlectl": {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "./hook"}]}]}}}}`,
		map[string]string{"hook": "#!/bin/sh\ncat >/dev/null\ntouch " + marker + "\n"})
}

// fireBash loads a registry of home and ws and fires a PreToolUse event
// for Bash through it.
func fireBash(t *testing.T, opts harness.Options) harness.Outcome {
	t.Helper()
	r, err := harness.Load(opts)
	must(t, err)
	defer r.Close()
	out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash"}`))
	must(t, err)
	return out
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureOf(t, toolManifest)
}

// newFixtureOf is newFixture with kit's manifest given.
func newFixtureOf(t *testing.T, manifest string) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{home: filepath.Join(root, "home"), ws: filepath.Join(root, "ws")}
	f.src = filepath.Join(f.ws, ".bundlectl", "bundles", "kit")
	writeBundle(t, f.src, manifest, toolScripts)
	f.m = lifecycle.New(bundle.Roots{Home: f.home, Workspace: f.ws}, bundle.Limits{})
	f.trust(t)
	if _, err := f.m.Enable("kit"); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) trust(t *testing.T) {
	t.Helper()
	d := f.m.Discover()
	b, err := f.m.Find(d, "kit")
	must(t, err)
	if !b.Valid() {
		t.Fatalf("fixture bundle invalid: %v", b.Report.Err())
	}
	h, err := lifecycle.Compute(b)
	must(t, err)
	if _, err := f.m.Trust("kit", h.Token()); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) load(t *testing.T, env ...string) *harness.Registry {
	t.Helper()
	return f.loadOpts(t, harness.Options{Environ: env})
}

// loadOpts loads with opts, filling in the fixture's home and workspace.
func (f *fixture) loadOpts(t *testing.T, opts harness.Options) *harness.Registry {
	t.Helper()
	opts.Home, opts.Workspace = f.home, f.ws
	r, err := harness.Load(opts)
	must(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

func (f *fixture) dataDir() string {
	d := f.m.Discover()
	b, _ := f.m.Find(d, "kit")
	return filepath.Join(f.home, "data", filepath.FromSlash(b.ID))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// activate reviews, trusts and enables the bundle name as a user would,
// and returns it as discovered.
func activate(t *testing.T, m *lifecycle.Manager, name string) *bundle.Bundle {
	t.Helper()
	b, err := m.Find(m.Discover(), name)
	must(t, err)
	if !b.Valid() {
		t.Fatalf("bundle %s invalid: %v", name, b.Report.Err())
	}
	h, err := lifecycle.Compute(b)
	must(t, err)
	_, err = m.Trust(name, h.Token())
	must(t, err)
	_, err = m.Enable(name)
	must(t, err)
	return b
}

func TestCallToolRunsFromSnapshotWithInputOnStdin(t *testing.T) {
	f := newFixture(t)
	r := f.load(t)
	in := `{"text":"$(touch PWNED) ; rm -rf /"}`
	res, err := r.CallTool(context.Background(), "plugin__kit__echo", []byte(in))
	must(t, err)
	out := string(res.Stdout)
	root, _, _ := strings.Cut(strings.TrimPrefix(out, "root="), "\n")
	if !strings.HasPrefix(root, filepath.Join(f.home, "store")+"/") {
		t.Errorf("PLUGIN_ROOT = %q, want inside the store", root)
	}
	if !strings.Contains(out, in) {
		t.Errorf("stdin not passed through verbatim: %q", out)
	}
	for _, dir := range []string{f.ws, f.src, f.home, root} {
		if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
			t.Errorf("input reached a shell: %s/PWNED exists", dir)
		}
	}
}

func TestCallToolRefusesInputFailingParams(t *testing.T) {
	f := newFixture(t)
	r := f.load(t)
	_, err := r.CallTool(context.Background(), "plugin__kit__echo", []byte(`{"text": 5}`))
	if !errors.Is(err, harness.ErrInput) {
		t.Fatalf("err = %v, want ErrInput", err)
	}
}

func TestChildEnvironmentHoldsNoHostSecrets(t *testing.T) {
	f := newFixture(t)
	host := []string{"PATH=/usr/bin:/bin::relative", "HOME=/root", "SECRET_TOKEN=s3cr3t", "AWS_SECRET_ACCESS_KEY=aws", "LD_PRELOAD=/evil.so", "NODE_OPTIONS=--require /evil.js"}
	r := f.load(t, host...)
	res, err := r.CallTool(context.Background(), "plugin__kit__env", []byte(`{}`))
	must(t, err)
	env := string(res.Stdout)
	for _, bad := range []string{"SECRET_TOKEN", "AWS_SECRET_ACCESS_KEY", "LD_PRELOAD", "NODE_OPTIONS", "relative"} {
		if strings.Contains(env, bad) {
			t.Errorf("child environment holds %s:\n%s", bad, env)
		}
	}
	if !strings.Contains(env, "PLUGIN_ROOT="+filepath.Join(f.home, "store")) {
		t.Errorf("PLUGIN_ROOT not in the store:\n%s", env)
	}
	if !strings.Contains(env, "PLUGIN_DATA="+f.dataDir()) {
		t.Errorf("PLUGIN_DATA missing:\n%s", env)
	}
}

// snapshotOf returns the snapshot directory of the fixture bundle.
func snapshotOf(t *testing.T, f *fixture) string {
	s, err := f.m.LoadState()
	must(t, err)
	d := f.m.Discover()
	b, _ := f.m.Find(d, "kit")
	rec, _ := s.Bundle(b.ID)
	return rec.Receipt.Snapshot
}

func TestTamperAfterEnableIsRefusedAndNothingRuns(t *testing.T) {
	cases := map[string]func(t *testing.T, snap string){
		"byte": func(t *testing.T, snap string) {
			p := filepath.Join(snap, "bin", "touch")
			must(t, os.Chmod(p, 0o700))
			must(t, os.WriteFile(p, []byte("#!/bin/sh\ntouch \"$PLUGIN_DATA/ran\"\n#"), 0o500))
		},
		"add": func(t *testing.T, snap string) {
			must(t, os.Chmod(snap, 0o700))
			must(t, os.WriteFile(filepath.Join(snap, "extra"), nil, 0o400))
		},
		"chmod": func(t *testing.T, snap string) { must(t, os.Chmod(filepath.Join(snap, "plugin.json"), 0o500)) },
		"symlink": func(t *testing.T, snap string) {
			must(t, os.Chmod(filepath.Join(snap, "bin"), 0o700))
			p := filepath.Join(snap, "bin", "env")
			must(t, os.Remove(p))
			must(t, os.Symlink("/usr/bin/env", p))
		},
	}
	for name, tamper := range cases {
		for _, noWatch := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/nowatch=%v", name, noWatch), func(t *testing.T) {
				f := newFixture(t)
				if noWatch {
					// Past the racy window, so the check under test is the
					// stat-only comparison rather than a full re-hash.
					time.Sleep(60 * time.Millisecond)
				}
				r := f.loadOpts(t, harness.Options{NoWatch: noWatch})
				// One clean call first, so the check under test is the
				// cheap one (events or stat-only), not the load's.
				if _, err := r.CallTool(context.Background(), "plugin__kit__env", []byte(`{}`)); err != nil {
					t.Fatal(err)
				}
				tamper(t, snapshotOf(t, f))
				_, err := r.CallTool(context.Background(), "plugin__kit__touch", []byte(`{}`))
				if !errors.Is(err, harness.ErrTampered) || !errors.Is(err, lifecycle.ErrRefused) {
					t.Fatalf("err = %v, want ErrTampered", err)
				}
				if _, err := os.Stat(filepath.Join(f.dataDir(), "ran")); err == nil {
					t.Fatal("the tool ran from a tampered snapshot")
				}
				// A one-shot load refuses it too.
				r2 := f.load(t)
				if err := r2.Ready("kit"); err == nil {
					t.Fatal("a fresh registry loaded a tampered bundle")
				}
			})
		}
	}
}

// An edited source is an update awaiting review: the registry never reads
// it, and the reviewed snapshot keeps running — including the manifest,
// whose new argv must not run either.
func TestSourceEditKeepsRunningTheSnapshot(t *testing.T) {
	for _, noWatch := range []bool{false, true} {
		f := newFixture(t)
		r := f.loadOpts(t, harness.Options{NoWatch: noWatch})
		must(t, os.WriteFile(filepath.Join(f.src, "README.md"), []byte("new\n"), 0o644))
		must(t, os.WriteFile(filepath.Join(f.src, "bin", "touch"), []byte("#!/bin/sh\ntouch \"$PLUGIN_DATA/edited\"\n"), 0o755))
		must(t, os.WriteFile(filepath.Join(f.src, "plugin.json"), []byte(strings.Replace(toolManifest, `"./bin/touch"`, `"./bin/env"`, 1)), 0o644))
		if _, err := r.CallTool(context.Background(), "plugin__kit__touch", []byte(`{}`)); err != nil {
			t.Fatalf("nowatch=%v: %v", noWatch, err)
		}
		if _, err := os.Stat(filepath.Join(f.dataDir(), "ran")); err != nil {
			t.Fatalf("nowatch=%v: the snapshot's tool did not run: %v", noWatch, err)
		}
		if _, err := os.Stat(filepath.Join(f.dataDir(), "edited")); err == nil {
			t.Fatalf("nowatch=%v: the edited source ran", noWatch)
		}
		// A fresh registry loads it too: the update is pending, not a stop.
		if err := f.loadOpts(t, harness.Options{NoWatch: true}).Ready("kit"); err != nil {
			t.Fatalf("nowatch=%v: a fresh registry refused a bundle with an update pending: %v", noWatch, err)
		}
	}
}

// The snapshot a bundle runs from is derived from the home and the content
// hash: a receipt whose snapshot field points elsewhere changes nothing.
func TestSnapshotPathIsDerivedNotRead(t *testing.T) {
	f := newFixture(t)
	decoy := filepath.Join(t.TempDir(), "decoy")
	writeBundle(t, decoy, toolManifest, map[string]string{"bin/touch": "#!/bin/sh\ntouch \"$PLUGIN_DATA/decoy\"\n"})
	statePath := filepath.Join(f.home, "state.json")
	data, err := os.ReadFile(statePath)
	must(t, err)
	snap := snapshotOf(t, f)
	must(t, os.WriteFile(statePath, []byte(strings.ReplaceAll(string(data), snap, decoy)), 0o600))
	r := f.load(t)
	if _, err := r.CallTool(context.Background(), "plugin__kit__touch", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(f.dataDir(), "decoy")); err == nil {
		t.Fatal("the tool ran from the directory named in state.json")
	}
	if _, err := os.Stat(filepath.Join(f.dataDir(), "ran")); err != nil {
		t.Fatalf("the derived snapshot did not run: %v", err)
	}
}

// TestHelperTransition is not a test: run as a subprocess, it applies one
// state transition, as another bundlectl process would.
func TestHelperTransition(t *testing.T) {
	if os.Getenv("BUNDLECTL_HELPER") == "" {
		t.Skip("helper process")
	}
	m := lifecycle.New(bundle.Roots{Home: os.Getenv("H_HOME"), Workspace: os.Getenv("H_WS")}, bundle.Limits{})
	var err error
	switch os.Getenv("BUNDLECTL_HELPER") {
	case "disable":
		_, err = m.Disable("kit")
	case "revoke":
		_, err = m.Revoke("kit")
	case "switch":
		_, err = m.SetSwitches("kit", []state.Switch{{Kind: "tool", Name: "sleep"}}, true)
	case "retrust":
		// The same content reviewed and trusted again: a new receipt.
		b, ferr := m.Find(m.Discover(), "kit")
		must(t, ferr)
		h, herr := lifecycle.Compute(b)
		must(t, herr)
		_, err = m.Trust("kit", h.Token())
	}
	if err != nil {
		t.Fatal(err)
	}
}

// A stdio MCP server served with stdio passed through is killed with its
// process group when another process revokes the bundle.
func TestRevokeFromAnotherProcessKillsMCPServer(t *testing.T) {
	f := newFixture(t)
	r := f.load(t)
	inR, inW, err := os.Pipe()
	must(t, err)
	defer inW.Close()
	out, err := os.CreateTemp(t.TempDir(), "out")
	must(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := r.ServeMCP(context.Background(), harness.ServerName("kit", "echo"), harness.Stdio{In: inR, Out: out, Err: out})
		done <- err
	}()
	pidFile := filepath.Join(f.dataDir(), "srvchild.pid")
	waitFor(t, func() bool { _, err := os.Stat(pidFile); return err == nil })
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperTransition$")
	cmd.Env = append(os.Environ(), "BUNDLECTL_HELPER=revoke", "H_HOME="+f.home, "H_WS="+f.ws)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("helper: %v\n%s", err, b)
	}
	// A hang guard only: what is asserted is that it was cancelled.
	select {
	case err = <-done:
	case <-time.After(5 * time.Minute):
		t.Fatal("the MCP server was not cancelled")
	}
	var ce *harness.CanceledError
	if !errors.As(err, &ce) || !errors.Is(err, harness.ErrRevoked) {
		t.Fatalf("err = %v, want a CanceledError for a revoke", err)
	}
	for _, name := range []string{"srv.pid", "srvchild.pid"} {
		data, err := os.ReadFile(filepath.Join(f.dataDir(), name))
		must(t, err)
		pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
		waitFor(t, func() bool { return syscall.Kill(pid, 0) != nil })
	}
}

// A disable, a revoke, or switching the tool itself off, by another
// process, cancels the running tool and kills its process group.
func TestTransitionFromAnotherProcessCancelsRunningTool(t *testing.T) {
	for _, action := range []string{"disable", "revoke", "switch"} {
		t.Run(action, func(t *testing.T) {
			f := newFixture(t)
			r := f.load(t)
			done := make(chan error, 1)
			go func() {
				_, err := r.CallTool(context.Background(), "plugin__kit__sleep", []byte(`{}`))
				done <- err
			}()
			pidFile := filepath.Join(f.dataDir(), "child.pid")
			waitFor(t, func() bool { _, err := os.Stat(pidFile); return err == nil })
			time.Sleep(50 * time.Millisecond)
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperTransition$")
			cmd.Env = append(os.Environ(), "BUNDLECTL_HELPER="+action, "H_HOME="+f.home, "H_WS="+f.ws)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("helper: %v\n%s", err, out)
			}
			var err error
			select {
			case err = <-done:
			case <-time.After(5 * time.Minute): // a hang guard only
				t.Fatal("the running tool was not cancelled")
			}
			var ce *harness.CanceledError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a CanceledError", err)
			}
			if action == "switch" && !errors.Is(err, harness.ErrSwitchedOff) {
				t.Errorf("err = %v, want ErrSwitchedOff in its chain", err)
			}
			for _, name := range []string{"child.pid", "main.pid"} {
				data, err := os.ReadFile(filepath.Join(f.dataDir(), name))
				must(t, err)
				pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
				waitFor(t, func() bool { return syscall.Kill(pid, 0) != nil })
			}
		})
	}
}

// waitFor polls cond; the bound is a hang guard a busy machine never
// reaches, not an assertion about speed.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCatalogNamesAndRefusals(t *testing.T) {
	f := newFixture(t)
	r := f.load(t)
	c := r.Catalog()
	var names []string
	for _, tl := range c.Tools {
		names = append(names, tl.Name)
	}
	if len(names) != 4 || names[0] != "plugin__kit__echo" {
		t.Fatalf("tools = %v", names)
	}
	var schema map[string]any
	must(t, json.Unmarshal(c.Tools[0].InputSchema, &schema))
	if schema["type"] != "object" {
		t.Errorf("input schema = %s", c.Tools[0].InputSchema)
	}
	if got := harness.ServerName("kit", "srv"); got != "plugin-3-kit-srv" {
		t.Errorf("ServerName = %q", got)
	}
	if _, err := f.m.Disable("kit"); err != nil {
		t.Fatal(err)
	}
	c = r.Catalog()
	if len(c.Tools) != 0 || len(c.Refused) != 1 {
		t.Fatalf("after disable: tools %v refused %v", c.Tools, c.Refused)
	}
}

// PLUGIN_DATA is created 0700 and survives an update of the bundle (a new
// review, trust and snapshot).
func TestPluginDataSurvivesUpdates(t *testing.T) {
	f := newFixture(t)
	r := f.load(t)
	if _, err := r.CallTool(context.Background(), "plugin__kit__touch", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	data := f.dataDir()
	fi, err := os.Stat(data)
	must(t, err)
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("PLUGIN_DATA mode %04o, want 0700", fi.Mode().Perm())
	}
	must(t, os.WriteFile(filepath.Join(f.src, "CHANGELOG.md"), []byte("v2\n"), 0o644))
	f.trust(t)
	r2 := f.load(t)
	if err := r2.Ready("kit"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(data, "ran")); err != nil {
		t.Fatalf("PLUGIN_DATA lost its contents across an update: %v", err)
	}
}

// A watch follows its inode: after a snapshot directory is replaced by an
// identical copy, the next check passes and must watch the new directory,
// so that a later change inside it is still caught.
func TestReplacedSnapshotDirectoryIsWatchedAgain(t *testing.T) {
	f := newFixture(t)
	r := f.load(t)
	if err := r.Ready("kit"); err != nil {
		t.Fatal(err)
	}
	snap := snapshotOf(t, f)
	bin := filepath.Join(snap, "bin")
	moved := filepath.Join(t.TempDir(), "bin")
	must(t, os.Chmod(snap, 0o700))
	must(t, os.Rename(bin, moved))
	must(t, os.Mkdir(bin, 0o700))
	for name, body := range toolScripts {
		if strings.HasPrefix(name, "bin/") {
			must(t, os.WriteFile(filepath.Join(snap, name), []byte(body), 0o500))
		}
	}
	must(t, os.Chmod(bin, 0o500))
	must(t, os.Chmod(snap, 0o500))
	if err := r.Ready("kit"); err != nil {
		t.Fatalf("identical replacement refused: %v", err)
	}
	must(t, os.Chmod(filepath.Join(bin, "echo"), 0o700))
	must(t, os.WriteFile(filepath.Join(bin, "echo"), []byte("#!/bin/sh\necho changed\n"), 0o500))
	must(t, os.Chmod(filepath.Join(bin, "echo"), 0o500))
	if err := r.Ready("kit"); !errors.Is(err, harness.ErrTampered) {
		t.Fatalf("a change in a replaced directory went unseen: %v", err)
	}
}

// A long-lived registry sees a write through another hard link of a
// snapshot file and a swapped ancestor of the snapshot, neither of which
// raises an event on a directory watch.
func TestLongLivedRegistrySeesHardLinkWritesAndAncestorSwaps(t *testing.T) {
	t.Run("hard link", func(t *testing.T) {
		f := newFixture(t)
		r := f.load(t)
		if err := r.Ready("kit"); err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(snapshotOf(t, f), "bin", "touch")
		link := filepath.Join(t.TempDir(), "elsewhere")
		must(t, os.Link(target, link))
		must(t, os.Chmod(link, 0o700))
		must(t, os.WriteFile(link, []byte("#!/bin/sh\ntouch \"$PLUGIN_DATA/pwned\"\n"), 0o700))
		if _, err := r.CallTool(context.Background(), "plugin__kit__touch", []byte(`{}`)); !errors.Is(err, harness.ErrTampered) {
			t.Fatalf("a write through another link went unseen: %v", err)
		}
		if _, err := os.Stat(filepath.Join(f.dataDir(), "pwned")); err == nil {
			t.Fatal("tampered code ran")
		}
	})
	t.Run("ancestor swap", func(t *testing.T) {
		f := newFixture(t)
		r := f.load(t)
		if err := r.Ready("kit"); err != nil {
			t.Fatal(err)
		}
		// Swap the whole store for a copy whose snapshot runs other code:
		// every watched inode is untouched.
		store := filepath.Join(f.home, "store")
		snapName := filepath.Base(snapshotOf(t, f))
		fake := filepath.Join(f.home, "fake-store")
		writeBundle(t, filepath.Join(fake, snapName), toolManifest, map[string]string{"bin/touch": "#!/bin/sh\ntouch \"$PLUGIN_DATA/pwned\"\n"})
		must(t, os.Rename(store, filepath.Join(f.home, "old-store")))
		must(t, os.Rename(fake, store))
		if _, err := r.CallTool(context.Background(), "plugin__kit__touch", []byte(`{}`)); !errors.Is(err, harness.ErrTampered) {
			t.Fatalf("a swapped ancestor went unseen: %v", err)
		}
		if _, err := os.Stat(filepath.Join(f.dataDir(), "pwned")); err == nil {
			t.Fatal("code from the swapped store ran")
		}
	})
}

// A one-shot registry hashes nothing when the snapshot's fingerprint
// record proves it unchanged, and hashes as soon as anything differs: a
// tampered snapshot, a malformed, unsafe, foreign or stale record. The
// source is never read at all.
func TestOneShotTrustsFingerprintRecords(t *testing.T) {
	f := newFixture(t)
	time.Sleep(60 * time.Millisecond) // past the racy window of the trust's own record
	use := func() (error, int64) {
		before := harness.FullVerifications.Load()
		r := f.loadOpts(t, harness.Options{NoWatch: true})
		err := r.Ready("kit")
		return err, harness.FullVerifications.Load() - before
	}
	use() // re-records: the trust's record was racy (the snapshot had just been written)
	if err, n := use(); err != nil || n != 0 {
		t.Fatalf("a proven snapshot: %d full verifications (%v), want 0", n, err)
	}
	// The source is not read: editing it costs nothing and changes nothing.
	must(t, os.WriteFile(filepath.Join(f.src, "bin", "touch"), []byte("#!/bin/sh\nexit 1\n"), 0o755))
	if err, n := use(); err != nil || n != 0 {
		t.Fatalf("after a source edit: %d full verifications (%v), want 0 and ready", n, err)
	}

	dir := filepath.Join(f.home, "cache", "verified")
	recPath := ""
	ents, err := os.ReadDir(dir)
	must(t, err)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "snapshot-") {
			recPath = filepath.Join(dir, e.Name())
		}
	}
	if recPath == "" {
		t.Fatalf("no snapshot record in %v", ents)
	}
	good, err := os.ReadFile(recPath)
	must(t, err)
	for name, mangle := range map[string]func(){
		"world-readable": func() { must(t, os.Chmod(recPath, 0o644)) },
		"malformed":      func() { must(t, os.WriteFile(recPath, good[:len(good)/2], 0o600)) },
		"other digest": func() {
			must(t, os.WriteFile(recPath, []byte(strings.Replace(string(good), `"digest":"`, `"digest":"0`, 1)), 0o600))
		},
		"stale": func() {
			must(t, os.WriteFile(recPath, []byte(strings.Replace(string(good), `"started_ns":`, `"started_ns":1`, 1)), 0o600))
		},
	} {
		mangle()
		if err, n := use(); err != nil || n != 1 {
			t.Errorf("%s record: %d full verifications (%v), want 1", name, n, err)
		}
		must(t, os.WriteFile(recPath, good, 0o600))
		must(t, os.Chmod(recPath, 0o600))
	}
	if _, n := use(); n != 0 {
		t.Fatalf("the restored record was not used (%d full verifications): the cases above prove nothing", n)
	}
	snap := snapshotOf(t, f)
	must(t, os.Chmod(filepath.Join(snap, "plugin.json"), 0o500))
	if err, n := use(); n != 1 || !errors.Is(err, harness.ErrTampered) {
		t.Fatalf("after tampering: %d full verifications, err %v; want 1 and ErrTampered", n, err)
	}
}

// gc prunes the fingerprint records nothing refers to any more.
func TestGCPrunesFingerprintRecords(t *testing.T) {
	f := newFixture(t)
	if err := f.loadOpts(t, harness.Options{NoWatch: true}).Ready("kit"); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(f.home, "cache", "verified")
	count := func() int { ents, _ := os.ReadDir(dir); return len(ents) }
	if count() == 0 {
		t.Fatal("no records after a trust and a use")
	}
	if _, err := f.m.GC(); err != nil {
		t.Fatal(err)
	}
	if count() == 0 {
		t.Fatal("gc removed the records of a trusted bundle")
	}
	if _, err := f.m.Revoke("kit"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.GC(); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		ents, _ := os.ReadDir(dir)
		t.Fatalf("gc kept %d records of a revoked bundle: %v", n, ents)
	}
}

// Hooks of two bundles run in precedence order (user root before
// workspace root) and the chain stops at the first block: the second
// bundle's hook never runs.
func TestHooksRunInPrecedenceOrderAndStopAtBlock(t *testing.T) {
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	hookManifest := func(name string) string {
		return `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "` + name + `",
  "extensions": {"dev.bundlectl": {"hooks": {"PreToolUse": [{"matcher": "Bash|Edit", "hooks": [{"type": "command", "command": "./hook"}]}]}}}}`
	}
	// "zeta" sorts after "alpha", so only root precedence can put it first.
	writeBundle(t, filepath.Join(home, "bundles", "zeta"), hookManifest("zeta"), map[string]string{
		"hook": "#!/bin/sh\ncat >/dev/null\necho \"zeta says no\" >&2\nexit 2\n",
	})
	writeBundle(t, filepath.Join(ws, ".bundlectl", "bundles", "alpha"), hookManifest("alpha"), map[string]string{
		"hook": "#!/bin/sh\ncat >/dev/null\ntouch \"$PLUGIN_DATA/alpha-ran\"\n",
	})
	m := lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{})
	for _, name := range []string{"zeta", "alpha"} {
		activate(t, m, name)
	}
	// A registry that serves hooks only (hooks run's) fires them alike.
	for _, hooksOnly := range []bool{false, true} {
		r, err := harness.Load(harness.Options{Home: home, Workspace: ws, HooksOnly: hooksOnly})
		must(t, err)
		defer r.Close()
		hooks := r.Hooks("PreToolUse")
		if len(hooks) != 2 || hooks[0].Bundle != "zeta" || hooks[1].Bundle != "alpha" {
			t.Fatalf("HooksOnly %v: hooks in order %+v, want zeta (user) then alpha (workspace)", hooksOnly, hooks)
		}
		out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`))
		must(t, err)
		if !out.Blocked || !strings.Contains(out.Reason, "zeta says no") {
			t.Fatalf("HooksOnly %v: outcome %+v, want blocked by zeta", hooksOnly, out)
		}
		b, _ := m.Find(m.Discover(), "alpha")
		if _, err := os.Stat(filepath.Join(home, "data", filepath.FromSlash(b.ID), "alpha-ran")); err == nil {
			t.Fatalf("HooksOnly %v: the second bundle's hook ran after the first blocked", hooksOnly)
		}
		// A tool the matcher does not name runs neither hook.
		out, err = r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Read","tool_input":{}}`))
		must(t, err)
		if out.Blocked {
			t.Fatalf("HooksOnly %v: a non-matching tool was blocked: %+v", hooksOnly, out)
		}
	}
}

// A registry that serves hooks only reads of each inventory at load only
// what matching needs, so a receipt whose inventory is whole for that but
// not for this bundlectl (here an unknown field, under a capability hash
// recomputed to match) is loaded — and its guard, when it matches, blocks
// the event instead of running: the whole inventory is parsed before
// anything of the bundle runs. A full registry does not load it at all.
func TestHooksOnlyRegistryParsesTheWholeInventoryBeforeAHookRuns(t *testing.T) {
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	marker := filepath.Join(root, "ran")
	writeBundle(t, filepath.Join(home, "bundles", "guard"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "guard",
  "extensions": {"dev.bundlectl": {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./hook"}]}]}}}}`,
		map[string]string{"hook": "#!/bin/sh\ncat >/dev/null\ntouch " + marker + "\n"})
	must(t, os.MkdirAll(ws, 0o755))
	m := lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{})
	b := activate(t, m, "guard")

	statePath := filepath.Join(home, "state.json")
	data, err := os.ReadFile(statePath)
	must(t, err)
	var st map[string]any
	must(t, json.Unmarshal(data, &st))
	rc := st["bundles"].(map[string]any)[b.ID].(map[string]any)["receipt"].(map[string]any)
	inv := rc["inventory"].(map[string]any)
	inv["zzz_from_a_newer_bundlectl"] = true
	var canon strings.Builder
	enc := json.NewEncoder(&canon)
	enc.SetEscapeHTML(false)
	must(t, enc.Encode(inv))
	rc["capability_hash"] = inventory.Digest([]byte(strings.TrimSuffix(canon.String(), "\n"))).String()
	edited, err := json.Marshal(st)
	must(t, err)
	must(t, os.WriteFile(statePath, edited, 0o600))

	full, err := harness.Load(harness.Options{Home: home, Workspace: ws, NoWatch: true})
	must(t, err)
	defer full.Close()
	if err := full.Loaded("guard"); !errors.Is(err, harness.ErrNotActive) || !errors.Is(err, harness.ErrReceiptUnusable) || !strings.Contains(err.Error(), "receipt cannot be used") {
		t.Fatalf("a full registry loaded a receipt whose inventory does not parse: %v", err)
	}

	r, err := harness.Load(harness.Options{Home: home, Workspace: ws, NoWatch: true, HooksOnly: true})
	must(t, err)
	defer r.Close()
	out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`))
	must(t, err)
	if !out.Blocked || !strings.Contains(out.Reason, "receipt cannot be used") || !strings.Contains(out.Reason, "bundlectl review guard") {
		t.Fatalf("outcome %+v, want blocked, naming the receipt and the review", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the hook of a bundle whose inventory does not parse ran")
	}
	out, err = r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Read","tool_input":{}}`))
	must(t, err)
	if out.Blocked {
		t.Fatalf("an event its guard does not match was blocked: %+v", out)
	}
}

// Twelve bundles hooking the same event all run: there is no limit on how
// many hooks match (an eleventh used to block every call).
func TestTwelveBundlesHookingOneEventAllRun(t *testing.T) {
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	marks := t.TempDir()
	m := lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{})
	for i := range 12 {
		name := fmt.Sprintf("guard%02d", i)
		writeBundle(t, filepath.Join(home, "bundles", name), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "`+name+`",
  "extensions": {"dev.bundlectl": {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./hook"}]}]}}}}`,
			map[string]string{"hook": "#!/bin/sh\ncat >/dev/null\ntouch " + filepath.Join(marks, name) + "\n"})
		activate(t, m, name)
	}
	must(t, os.MkdirAll(ws, 0o755))
	r, err := harness.Load(harness.Options{Home: home, Workspace: ws, NoWatch: true})
	must(t, err)
	defer r.Close()
	out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`))
	must(t, err)
	if !out.Proceed() {
		t.Fatalf("outcome %+v, want proceed", out)
	}
	ents, err := os.ReadDir(marks)
	must(t, err)
	if len(ents) != 12 {
		t.Fatalf("%d of 12 hooks ran", len(ents))
	}
}

// A long-lived registry re-checks the receipt before every spawn: after
// the bundle is trusted again (a new receipt), the registry that loaded
// the old one refuses with ErrStale until it is reloaded.
func TestRetrustMakesALoadedRegistryStale(t *testing.T) {
	f := newFixture(t)
	r := f.load(t)
	if _, err := r.CallTool(context.Background(), "plugin__kit__env", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	f.trust(t) // the same content: a new receipt, a new generation
	_, err := r.CallTool(context.Background(), "plugin__kit__touch", []byte(`{}`))
	if !errors.Is(err, harness.ErrStale) {
		t.Fatalf("err = %v, want ErrStale", err)
	}
	// The fix is a command that works as printed, not prose.
	var h interface{ Hint() string }
	if !errors.As(err, &h) || h.Hint() != "bundlectl show kit" {
		t.Errorf("hint of %v: want bundlectl show kit", err)
	}
	if _, err := os.Stat(filepath.Join(f.dataDir(), "ran")); err == nil {
		t.Fatal("a tool ran under a receipt that is no longer current")
	}
	if _, err := f.load(t).CallTool(context.Background(), "plugin__kit__touch", []byte(`{}`)); err != nil {
		t.Fatalf("a reloaded registry: %v", err)
	}
}

// Each hook's bundle is re-checked immediately before the hook runs in a
// long-lived registry: a bundle disabled after the registry loaded does not
// run its hook, and the outcome says why.
func TestFireHooksRechecksEachHookBundle(t *testing.T) {
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	marker := filepath.Join(t.TempDir(), "ran")
	writeGuard(t, filepath.Join(home, "bundles", "g"), marker)
	must(t, os.MkdirAll(ws, 0o755))
	m := lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{})
	activate(t, m, "g")
	r, err := harness.Load(harness.Options{Home: home, Workspace: ws})
	must(t, err)
	defer r.Close()
	_, err = m.Disable("g")
	must(t, err)
	out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash"}`))
	must(t, err)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the hook of a bundle disabled after load ran")
	}
	if len(out.Errors) != 1 || !strings.Contains(out.Errors[0].Message, "disabled") {
		t.Fatalf("the skipped hook is not reported: %+v", out)
	}
}

// A guard's directory deleted after the registry loaded, while the state
// still trusts and enables it, is not the user's choice (uninstall forgets
// the record first): its event is blocked, naming the fix, and nothing runs.
func TestFireHooksBlocksWhenAGuardsDirectoryIsDeleted(t *testing.T) {
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	marker := filepath.Join(t.TempDir(), "ran")
	dir := filepath.Join(home, "bundles", "g")
	writeGuard(t, dir, marker)
	must(t, os.MkdirAll(ws, 0o755))
	m := lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{})
	activate(t, m, "g")
	r, err := harness.Load(harness.Options{Home: home, Workspace: ws})
	must(t, err)
	defer r.Close()
	must(t, os.RemoveAll(dir))
	out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash"}`))
	must(t, err)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the hook of a bundle whose directory is gone ran")
	}
	if !out.Blocked || !strings.Contains(out.Reason, "is gone from its root") || !strings.Contains(out.Reason, "\nbundlectl: hint: bundlectl revoke g") {
		t.Fatalf("the event was not blocked with the fix: %+v", out)
	}

	// Loaded afresh, the bundle is inactive and still blocks its event.
	fresh := harness.Options{Home: home, Workspace: ws, HooksOnly: true}
	if out := fireBash(t, fresh); !out.Blocked || !strings.Contains(out.Reason, "is gone from its root") {
		t.Fatalf("a fresh registry let the event through: %+v", out)
	}
	// Revoked, as the fix says, nothing of it is left to block.
	_, err = m.Revoke("g")
	must(t, err)
	if out := fireBash(t, fresh); out.Blocked {
		t.Fatalf("a revoked bundle still blocks: %+v", out)
	}
}

// An untrusted bundle that takes a trusted guard's name in an earlier root
// after the registry loaded does not switch the guard off: its event is
// blocked and nothing runs.
func TestFireHooksBlocksWhenAnUntrustedBundleShadowsAGuard(t *testing.T) {
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	marker := filepath.Join(t.TempDir(), "ran")
	writeGuard(t, filepath.Join(ws, ".bundlectl", "bundles", "g"), marker)
	m := lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{})
	activate(t, m, "g")
	// A bundle of the same name trusted and enabled in another workspace
	// is not the one that shadows it here.
	ws2 := filepath.Join(root, "ws2")
	writeBundle(t, filepath.Join(ws2, ".bundlectl", "bundles", "g"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "g"}`, nil)
	activate(t, lifecycle.New(bundle.Roots{Home: home, Workspace: ws2}, bundle.Limits{}), "g")
	r, err := harness.Load(harness.Options{Home: home, Workspace: ws})
	must(t, err)
	defer r.Close()
	writeBundle(t, filepath.Join(home, "bundles", "g"), `{"name": "g"}`, nil)
	out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash"}`))
	must(t, err)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the hook of a shadowed bundle ran")
	}
	if !out.Blocked || !strings.Contains(out.Reason, "not trusted and enabled now shadows it") {
		t.Fatalf("the event was not blocked: %+v", out)
	}
}

// The runtime runs from the receipt's inventory only when it still hashes
// to the receipt's capability hash: an inventory edited in state.json (a
// hook's command pointed elsewhere) makes the bundle inactive.
func TestEditedReceiptInventoryIsRefused(t *testing.T) {
	f := newFixture(t)
	statePath := filepath.Join(f.home, "state.json")
	data, err := os.ReadFile(statePath)
	must(t, err)
	edited := strings.Replace(string(data), `"./bin/touch"`, `"./bin/env"`, 1)
	if edited == string(data) {
		t.Fatal("the fixture's inventory does not name ./bin/touch")
	}
	must(t, os.WriteFile(statePath, []byte(edited), 0o600))
	r := f.load(t)
	if err := r.Loaded("kit"); !errors.Is(err, harness.ErrNotActive) {
		t.Fatalf("a receipt whose inventory no longer matches its capability hash was loaded: %v", err)
	}
}

// A skill whose SKILL.md is an accepted link of the bundle (two skills
// sharing one document) is read from the snapshot through the link's
// target; without resolving it, opening the link fails with ELOOP.
func TestContentReadsASkillThatIsALink(t *testing.T) {
	root := t.TempDir()
	f := &fixture{home: filepath.Join(root, "home"), ws: filepath.Join(root, "ws")}
	f.src = filepath.Join(f.ws, ".bundlectl", "bundles", "kit")
	must(t, os.MkdirAll(filepath.Join(f.src, ".claude-plugin"), 0o755))
	must(t, os.WriteFile(filepath.Join(f.src, ".claude-plugin", "plugin.json"), []byte(`{"name": "kit", "version": "1.0.0"}`), 0o644))
	must(t, os.MkdirAll(filepath.Join(f.src, "skills", "a"), 0o755))
	must(t, os.MkdirAll(filepath.Join(f.src, "skills", "b"), 0o755))
	doc := "---\ndescription: shared\n---\nshared body\n"
	must(t, os.WriteFile(filepath.Join(f.src, "skills", "a", "SKILL.md"), []byte(doc), 0o644))
	must(t, os.Symlink("../a/SKILL.md", filepath.Join(f.src, "skills", "b", "SKILL.md")))
	f.m = lifecycle.New(bundle.Roots{Home: f.home, Workspace: f.ws}, bundle.Limits{})
	f.trust(t)
	if _, err := f.m.Enable("kit"); err != nil {
		t.Fatal(err)
	}
	r := f.load(t)
	for _, name := range []string{"kit:a", "kit:b"} {
		got, err := r.Content(name)
		if err != nil {
			t.Fatalf("Content(%q): %v", name, err)
		}
		if string(got) != doc {
			t.Errorf("Content(%q) = %q, want the shared document", name, got)
		}
	}
}

// A bundle is prepared (its data directory made) only when one of its hooks
// matches: an event no hook matches creates nothing. A guard whose data
// directory cannot be made blocks its event rather than being skipped.
func TestHookBundlePreparedOnlyWhenItsHookMatches(t *testing.T) {
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	writeBundle(t, filepath.Join(home, "bundles", "guard"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "guard",
  "extensions": {"dev.bundlectl": {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./hook"}]}]}}}}`,
		map[string]string{"hook": "#!/bin/sh\ncat >/dev/null\n"})
	must(t, os.MkdirAll(ws, 0o755))
	m := lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{})
	activate(t, m, "guard")
	dataRoot := filepath.Join(home, "data")
	must(t, os.RemoveAll(dataRoot))

	for _, hooksOnly := range []bool{false, true} {
		r, err := harness.Load(harness.Options{Home: home, Workspace: ws, NoWatch: true, HooksOnly: hooksOnly})
		must(t, err)
		out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Read","tool_input":{}}`))
		must(t, err)
		r.Close()
		if out.Blocked {
			t.Fatalf("HooksOnly %v: an event no hook matches was blocked: %+v", hooksOnly, out)
		}
		if _, err := os.Lstat(dataRoot); err == nil {
			t.Fatalf("HooksOnly %v: an event no hook matches made %s", hooksOnly, dataRoot)
		}
	}

	// The data root is a file: the guard's data directory cannot be made.
	must(t, os.WriteFile(dataRoot, nil, 0o600))
	r, err := harness.Load(harness.Options{Home: home, Workspace: ws, NoWatch: true, HooksOnly: true})
	must(t, err)
	defer r.Close()
	out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`))
	must(t, err)
	if !out.Blocked || !strings.Contains(out.Reason, "data directory cannot be made") {
		t.Fatalf("outcome %+v, want blocked naming the data directory", out)
	}
}

// hookSleepManifest is kit with one PreToolUse hook, for every tool, that
// starts a grandchild and waits (bin/sleep of toolScripts).
const hookSleepManifest = `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "kit",
  "extensions": {"dev.bundlectl": {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "./bin/sleep", "timeout": 60}]}]}}}}`

// A running hook is cancelled, with every descendant, by a revoke from
// another process, or by that hook being switched off, as a running tool
// is; by a tamper with its snapshot too, and then its event is blocked,
// naming the fix. A trust of a new receipt from another process (what
// trust after update does) cancels it too, and the event is blocked: the
// guard that was reviewed did not finish, and the new one was not loaded,
// so nothing decided it.
func TestRunningHookIsCancelled(t *testing.T) {
	for _, action := range []string{"revoke", "switch", "tamper", "retrust"} {
		t.Run(action, func(t *testing.T) {
			f := newFixtureOf(t, hookSleepManifest)
			r := f.load(t)
			type fired struct {
				out harness.Outcome
				err error
			}
			done := make(chan fired, 1)
			go func() {
				out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`))
				done <- fired{out, err}
			}()
			pidFile := filepath.Join(f.dataDir(), "child.pid")
			waitFor(t, func() bool { _, err := os.Stat(pidFile); return err == nil })
			switch action {
			case "revoke", "retrust":
				cmd := exec.Command(os.Args[0], "-test.run=^TestHelperTransition$")
				cmd.Env = append(os.Environ(), "BUNDLECTL_HELPER="+action, "H_HOME="+f.home, "H_WS="+f.ws)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("helper: %v\n%s", err, out)
				}
			case "switch":
				hs := r.Hooks("PreToolUse")
				if len(hs) != 1 {
					t.Fatalf("hooks %+v", hs)
				}
				if _, err := f.m.SetSwitches("kit", []state.Switch{{Kind: "hook", Name: hs[0].ID}}, true); err != nil {
					t.Fatal(err)
				}
			case "tamper":
				s, err := f.m.LoadState()
				must(t, err)
				b, err := f.m.Find(f.m.Discover(), "kit")
				must(t, err)
				rec, _ := s.Bundle(b.ID)
				snap := filepath.Join(f.home, "store", rec.Receipt.ContentHash.String())
				p := filepath.Join(snap, "bin", "echo")
				must(t, os.Chmod(filepath.Dir(p), 0o700))
				must(t, os.Chmod(p, 0o700))
				must(t, os.WriteFile(p, []byte("#!/bin/sh\necho tampered\n"), 0o700))
			}
			var got fired
			select {
			case got = <-done:
			case <-time.After(5 * time.Minute): // a hang guard only
				t.Fatal("the running hook was not cancelled")
			}
			for _, name := range []string{"child.pid", "main.pid"} {
				data, err := os.ReadFile(filepath.Join(f.dataDir(), name))
				must(t, err)
				pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
				waitFor(t, func() bool { return syscall.Kill(pid, 0) != nil })
			}
			switch action {
			case "revoke", "switch": // the user's choice: reported, not a block
				if got.out.Blocked || !strings.Contains(fmt.Sprint(got.out.Errors), "cancelled") {
					t.Fatalf("outcome %+v (err %v), want the cancel reported and no block", got.out, got.err)
				}
			case "tamper":
				if !got.out.Blocked || !strings.Contains(got.out.Reason, "cancelled") || !strings.Contains(got.out.Reason, "\nbundlectl: hint: bundlectl review kit") {
					t.Fatalf("outcome %+v (err %v), want a block naming the fix", got.out, got.err)
				}
			case "retrust":
				if !got.out.Blocked || !strings.Contains(got.out.Reason, "cancelled") || !strings.Contains(got.out.Reason, "trusted again") {
					t.Fatalf("outcome %+v (err %v), want a block saying it was trusted again", got.out, got.err)
				}
			}
		})
	}
}

// An Options.Host bundlectl does not know would skip every host
// manifest's hooks silently: Load refuses it.
func TestLoadRefusesUnknownHost(t *testing.T) {
	f := newFixture(t)
	for _, h := range []bundle.Host{"Claude", "claude-code", "x"} {
		if r, err := harness.Load(harness.Options{Home: f.home, Workspace: f.ws, Host: h}); err == nil {
			r.Close()
			t.Errorf("Load with Host %q: no error", h)
		}
	}
	for _, h := range []bundle.Host{"", bundle.HostClaude, bundle.HostCodex, bundle.HostGemini} {
		r, err := harness.Load(harness.Options{Home: f.home, Workspace: f.ws, Host: h})
		must(t, err)
		r.Close()
	}
}

// What Catalog and Inactive return is the caller's: changing it changes
// nothing the registry decides.
func TestCatalogInactiveIsACopy(t *testing.T) {
	f := newFixture(t)
	writeBundle(t, filepath.Join(f.ws, ".bundlectl", "bundles", "other"), toolManifest, toolScripts)
	r := f.load(t)
	c := r.Catalog()
	if len(c.Inactive) == 0 {
		t.Fatal("no inactive bundle")
	}
	c.Inactive[0].Name = "changed"
	c.Inactive[0].Reasons[0] = "changed"
	if in := r.Inactive(); in[0].Name == "changed" || in[0].Reasons[0] == "changed" {
		t.Fatalf("Catalog().Inactive aliases the registry: %+v", in[0])
	}
}

func TestFireEventNilBlocks(t *testing.T) {
	f := newFixture(t)
	r := f.load(t)
	o, err := r.FireEvent(context.Background(), nil)
	if err == nil || !o.Blocked {
		t.Fatalf("FireEvent(nil) = %+v, %v; want blocked with an error", o, err)
	}
}

// What Active and Bundles return is the caller's: a host adapter that
// rewrites a hook's command to build its view changes nothing the
// registry runs.
func TestActiveInventoryIsACopy(t *testing.T) {
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	writeBundle(t, filepath.Join(ws, ".bundlectl", "bundles", "deny"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "deny",
  "extensions": {"dev.bundlectl": {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./hook", "args": ["no"]}]}]}}}}`,
		map[string]string{"hook": "#!/bin/sh\ncat >/dev/null\necho \"deny says $1\" >&2\nexit 2\n"})
	activate(t, lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{}), "deny")
	r, err := harness.Load(harness.Options{Home: home, Workspace: ws})
	must(t, err)
	defer r.Close()
	active, refused := r.Active()
	if len(active) != 1 || len(refused) != 0 {
		t.Fatalf("active %d, refused %v", len(active), refused)
	}
	for _, bs := range [][]harness.ActiveBundle{active, r.Bundles()} {
		for i := range bs[0].Inventory.Hooks {
			bs[0].Inventory.Hooks[i].Command = "/bin/true"
			bs[0].Inventory.Hooks[i].Args[0] = "yes"
		}
	}
	out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`))
	must(t, err)
	if !out.Blocked || !strings.Contains(out.Reason, "deny says no") {
		t.Fatalf("outcome %+v after the caller changed its copy of the inventory, want blocked by the reviewed hook", out)
	}
}

// Options a registry could not honour are refused at Load, not at the
// first call; a Registry Load did not make blocks rather than proceeds.
func TestLoadRefusesBadTimeoutsAndZeroRegistryBlocks(t *testing.T) {
	f := newFixture(t)
	for _, o := range []harness.Options{{ToolTimeout: 24 * time.Hour}, {HookTimeout: -time.Second}} {
		o.Home, o.Workspace = f.home, f.ws
		if r, err := harness.Load(o); err == nil {
			r.Close()
			t.Errorf("Load(%+v): no error", o)
		}
	}
	var zero harness.Registry
	o, err := zero.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash"}`))
	if err == nil || !o.Blocked {
		t.Fatalf("a zero Registry answered %+v, %v; want blocked with an error", o, err)
	}
}
