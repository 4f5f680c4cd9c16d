package harness_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/lifecycle"
)

// execLine runs ExecHookLine for l with load, and returns its exit status
// (HookExit.Code, 0 for nil), the error it carries, stdout and stderr, and
// whether load was called.
func execLine(t *testing.T, l harness.HookLine, load func() (*harness.Registry, error)) (code int, ownErr error, stdout, stderr string, loaded bool) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := harness.ExecHookLine(context.Background, func() (*harness.Registry, error) {
		loaded = true
		return load()
	}, l, &out, &errOut)
	var he *harness.HookExit
	switch {
	case err == nil:
	case errors.As(err, &he):
		code, ownErr = he.Code, he.Err
	default:
		t.Fatalf("ExecHookLine returned %T %v, want nil or a *HookExit", err, err)
	}
	return code, ownErr, out.String(), errOut.String(), loaded
}

func failLoad(err error) func() (*harness.Registry, error) {
	return func() (*harness.Registry, error) { return nil, err }
}

// TestExecHookLineEventMismatch: a line fired for an event it was not
// written for does not run the hook (the registry is not even loaded),
// and the answer fails closed for the event the input names, in the form
// its host reads.
func TestExecHookLineEventMismatch(t *testing.T) {
	const why = `bundlectl: bundle "g" hook h1: the hook input names event `
	for _, c := range []struct {
		host          bundle.Host
		line, fired   string
		code          int
		stdout        string // a substring of stdout; "" for none at all
		stderrContain string
	}{
		{"", "PreToolUse", "UserPromptSubmit", 2, "", `"UserPromptSubmit" but the hook line is for "PreToolUse", so the hook did not run` + "\nbundlectl: hint: bundlectl hooks exec --help\n"},
		{bundle.HostClaude, "PreToolUse", "SessionEnd", 1, "", `"SessionEnd" but the hook line is for "PreToolUse", so the hook did not run`},
		{bundle.HostGemini, "BeforeTool", "AfterModel", 0, `"continue":false`, "the agent is stopped, as a block on AfterModel would still let the answer it judged through"},
		{bundle.HostCodex, "PreToolUse", "PreCompact", 0, `"continue":false`, "the agent is stopped, as Codex takes a block on PreCompact as a failed hook and goes ahead"},
		{bundle.HostGemini, "BeforeTool", "BeforeToolSelection", 0, `"NONE"`, "; no tools are offered\nbundlectl: hint: bundlectl hooks exec --help\n"},
	} {
		l := harness.HookLine{Bundle: "g", Hook: "h1", Host: c.host, Event: c.line, Input: []byte(`{"hook_event_name":"` + c.fired + `"}`)}
		code, ownErr, stdout, stderr, loaded := execLine(t, l, failLoad(errors.New("must not load")))
		name := fmt.Sprintf("host %q line %s fired %s", c.host, c.line, c.fired)
		if loaded {
			t.Errorf("%s: the registry was loaded for a refused line", name)
		}
		if code != c.code || ownErr != nil {
			t.Errorf("%s: exit %d (%v), want %d", name, code, ownErr, c.code)
		}
		if !strings.HasPrefix(stderr, why) || !strings.Contains(stderr, c.stderrContain) {
			t.Errorf("%s: stderr %q, want %q…%q", name, stderr, why, c.stderrContain)
		}
		if c.stdout == "" && stdout != "" || !strings.Contains(stdout, c.stdout) {
			t.Errorf("%s: stdout %q, want %q", name, stdout, c.stdout)
		}
	}
}

// TestExecHookLineSubagentStop: Claude Code runs a subagent's Stop hooks
// on SubagentStop, so that line is not refused there (it is elsewhere).
func TestExecHookLineSubagentStop(t *testing.T) {
	for _, c := range []struct {
		host    bundle.Host
		refused bool
	}{{"", false}, {bundle.HostClaude, false}, {bundle.HostCodex, true}, {bundle.HostGemini, true}} {
		l := harness.HookLine{Bundle: "g", Hook: "h1", Host: c.host, Event: "Stop", Input: []byte(`{"hook_event_name":"SubagentStop"}`)}
		_, _, _, stderr, loaded := execLine(t, l, failLoad(fmt.Errorf("bundle g: %w", harness.ErrDisabled)))
		if loaded == c.refused {
			t.Errorf("host %q: loaded %v, want refused %v (stderr %q)", c.host, loaded, c.refused, stderr)
		}
	}
}

// TestExecHookLineEventNameCase: hooks exec reads the input's event by
// the exact name hook_event_name, as the host reads it. encoding/json
// took a "HOOK_EVENT_NAME" written after it (or alone) for the event, so
// a Gemini CLI AfterModel line was refused as fired for BeforeTool: its
// hook did not run, and the exit 2 it answered does not stop Gemini CLI
// on AfterModel, where the host had fired the line's own event.
func TestExecHookLineEventNameCase(t *testing.T) {
	for _, in := range []string{
		`{"hook_event_name":"AfterModel","HOOK_EVENT_NAME":"BeforeTool"}`,
		`{"Hook_Event_Name":"BeforeTool"}`,
	} {
		l := harness.HookLine{Bundle: "g", Hook: "h1", Host: bundle.HostGemini, Event: "AfterModel", Input: []byte(in)}
		_, _, _, stderr, loaded := execLine(t, l, failLoad(fmt.Errorf("bundle g: %w", harness.ErrDisabled)))
		if !loaded {
			t.Errorf("%s: the line for AfterModel was refused: %s", in, stderr)
		}
	}
}

// TestExecHookLineUnread: an input that cannot be read is answered for
// the line's event: a block where a hook can block, a reported failure
// where none can, a stop or no tools where exit 2 would not hold.
func TestExecHookLineUnread(t *testing.T) {
	readErr := errors.New("read /dev/stdin: input/output error")
	for _, c := range []struct {
		host   bundle.Host
		line   string
		code   int
		stderr string
		stdout string
	}{
		{"", "", 2, `bundlectl: bundle "g": cannot read the hook input on stdin, so the event is blocked: ` + readErr.Error() + "\n", ""},
		{bundle.HostClaude, "PreToolUse", 2, `bundlectl: bundle "g": cannot read the hook input on stdin, so the event is blocked: ` + readErr.Error() + "\n", ""},
		{bundle.HostClaude, "SessionEnd", 1, `bundlectl: bundle "g": cannot read the hook input on stdin, so its hook did not run on SessionEnd: ` + readErr.Error() + "\n", ""},
		{bundle.HostGemini, "AfterModel", 0, "", `"continue":false`},
		{bundle.HostGemini, "BeforeToolSelection", 0, "", `"NONE"`},
	} {
		l := harness.HookLine{Bundle: "g", Hook: "h1", Host: c.host, Event: c.line, ReadErr: readErr}
		code, ownErr, stdout, stderr, _ := execLine(t, l, failLoad(errors.New("no registry")))
		if code != c.code || ownErr != nil || stderr != c.stderr || !strings.Contains(stdout, c.stdout) || c.stdout == "" && stdout != "" {
			t.Errorf("host %q line %q: exit %d (%v), stdout %q, stderr %q; want %d, %q, %q", c.host, c.line, code, ownErr, stdout, stderr, c.code, c.stdout, c.stderr)
		}
	}
}

// TestExecHookLineCannotLoad: a registry that cannot load blocks an
// event a hook can block, naming the fix as Fix prints it; a change the
// user made proceeds with a systemMessage; on another event bundlectl's
// own failure is returned for the caller to report (exit 1).
func TestExecHookLineCannotLoad(t *testing.T) {
	fix := func(cmd string) string { return cmd + " --home /h" }
	unusable := fmt.Errorf("state file: %w", lifecycle.ErrStateUnusable)

	l := harness.HookLine{Bundle: "g", Hook: "h1", Event: "PreToolUse", Input: []byte(`{"hook_event_name":"PreToolUse"}`), Fix: fix}
	code, ownErr, stdout, stderr, _ := execLine(t, l, failLoad(unusable))
	want := `bundlectl: bundle "g": its hook cannot run, so the event is blocked: ` + unusable.Error() + "\nbundlectl: hint: bundlectl list --home /h\n"
	if code != 2 || ownErr != nil || stdout != "" || stderr != want {
		t.Errorf("blocking event: exit %d (%v), stdout %q, stderr %q; want 2 and %q", code, ownErr, stdout, stderr, want)
	}

	disabled := fmt.Errorf("bundle g is disabled: %w", harness.ErrDisabled)
	code, ownErr, stdout, stderr, _ = execLine(t, l, failLoad(disabled))
	if code != 0 || ownErr != nil || stderr != "" || !strings.Contains(stdout, `"systemMessage":"bundlectl: bundle \"g\" did not run its hook: bundle g is disabled`) {
		t.Errorf("disabled: exit %d (%v), stdout %q, stderr %q; want 0 and a systemMessage", code, ownErr, stdout, stderr)
	}

	l.Event, l.Input = "SessionEnd", []byte(`{"hook_event_name":"SessionEnd"}`)
	code, ownErr, stdout, stderr, _ = execLine(t, l, failLoad(unusable))
	var he *harness.HookExit
	errors.As(harness.ExecHookLine(context.Background, failLoad(unusable), l, new(bytes.Buffer), new(bytes.Buffer)), &he)
	if code != 1 || !errors.Is(ownErr, unusable) || he == nil || he.Hint != "bundlectl list" || stdout != "" || stderr != "" {
		t.Errorf("non-blocking event: exit %d (%v, hint %+v), stdout %q, stderr %q; want 1 with the error and hint \"bundlectl list\", nothing written", code, ownErr, he, stdout, stderr)
	}
}

// TestExecHookLineRunsHook: a hook that can run passes its stdout,
// stderr and exit status through unchanged.
func TestExecHookLineRunsHook(t *testing.T) {
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	writeBundle(t, filepath.Join(home, "bundles", "g"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "g",
  "extensions": {"dev.bundlectl": {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "./hook"}]}]}}}}`,
		map[string]string{"hook": "#!/bin/sh\ncat >/dev/null\necho out\necho err >&2\nexit 3\n"})
	must(t, os.MkdirAll(ws, 0o755))
	m := lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{})
	activate(t, m, "g")
	load := func() (*harness.Registry, error) {
		return harness.Load(harness.Options{Home: home, Workspace: ws, Only: []string{"g"}, NoWatch: true})
	}
	reg, err := load()
	must(t, err)
	hooks := reg.Hooks("PreToolUse")
	reg.Close()
	if len(hooks) != 1 {
		t.Fatalf("%d hooks, want 1", len(hooks))
	}
	l := harness.HookLine{Bundle: "g", Hook: hooks[0].ID, Event: "PreToolUse", Input: []byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash"}`)}
	code, ownErr, stdout, stderr, _ := execLine(t, l, load)
	if code != 3 || ownErr != nil || stdout != "out\n" || stderr != "err\n" {
		t.Errorf("exit %d (%v), stdout %q, stderr %q; want 3, \"out\\n\", \"err\\n\"", code, ownErr, stdout, stderr)
	}
}

func TestLineEventName(t *testing.T) {
	for s, want := range map[string]bool{
		"PreToolUse": true, "": false, "Pre-ToolUse": false, "Pre ToolUse": false,
		"PreToolUse\n": false, strings.Repeat("A", 64): true, strings.Repeat("A", 65): false, "Événement": false,
	} {
		if got := harness.LineEventName(s); got != want {
			t.Errorf("LineEventName(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestAuthorityChange(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("x: %w", harness.ErrDisabled), true},
		{fmt.Errorf("x: %w", harness.ErrRevoked), true},
		{fmt.Errorf("x: %w", harness.ErrShadowed), true},
		{fmt.Errorf("x: %w", harness.ErrSwitchedOff), true},
		{fmt.Errorf("x: %w", harness.ErrTampered), false},
		{fmt.Errorf("x: %w", harness.ErrNotActive), false}, // not an *AuthorityError
		{errors.New("x"), false},
	} {
		if got := harness.AuthorityChange(c.err); got != c.want {
			t.Errorf("AuthorityChange(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
