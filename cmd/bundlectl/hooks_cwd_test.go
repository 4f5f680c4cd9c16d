package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHooksRunCwdGone: a guard must not fail open because bundlectl's own
// current directory is gone (the agent's directory removed under it). The
// event names its workspace, so the user-scope guard runs and blocks; with
// no workspace in the event, the event is blocked, never exit 1.
func TestHooksRunCwdGone(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	g := filepath.Join(home, "bundles", "guard")
	if err := os.MkdirAll(filepath.Join(g, "tools"), 0o700); err != nil {
		t.Fatal(err)
	}
	manifest := `schema_version = 1
[plugin]
name = "guard"
version = "0.1.0"
description = "blocks every Bash call"
[[hooks]]
event = "PreToolUse"
matcher = "Bash"
command = "./tools/deny"
[capabilities]
network_hosts = []
`
	if err := os.WriteFile(filepath.Join(g, "plugin.toml"), []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(g, "tools", "deny"), []byte("#!/bin/sh\necho denied-by-guard >&2\nexit 2\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	cli := func(stdin string, args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(append([]string{"--home", home}, args...), strings.NewReader(stdin), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	code, out, errOut := cli("", "--workspace", ws, "review", "--json", "guard")
	if code != 0 {
		t.Fatalf("review: %d %s", code, errOut)
	}
	var rv struct{ Token string }
	if err := json.Unmarshal([]byte(out), &rv); err != nil {
		t.Fatal(err)
	}
	for _, a := range [][]string{{"trust", "guard", rv.Token}, {"enable", "guard"}} {
		if code, _, errOut := cli("", append([]string{"--workspace", ws}, a...)...); code != 0 {
			t.Fatalf("%v: %d %s", a, code, errOut)
		}
	}

	gone := filepath.Join(t.TempDir(), "gone")
	if err := os.Mkdir(gone, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(gone) // and back at the end
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PWD", gone)

	ev, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]string{"command": "rm -rf /"}, "cwd": ws, "session_id": "s"})
	if code, out, errOut := cli(string(ev), "hooks", "run", "PreToolUse"); code != 2 || !strings.Contains(errOut, "denied-by-guard") {
		t.Errorf("event with a cwd, bundlectl's own directory gone: exit %d, stdout %q, stderr %q; want 2 and the guard's reason", code, out, errOut)
	}
	ev, _ = json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]string{"command": "rm -rf /"}, "session_id": "s"})
	if code, out, errOut := cli(string(ev), "hooks", "run", "PreToolUse"); code != 2 {
		t.Errorf("event without a cwd, bundlectl's own directory gone: exit %d, stdout %q, stderr %q; want 2 (blocked)", code, out, errOut)
	}
}
