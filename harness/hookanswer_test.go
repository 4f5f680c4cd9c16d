package harness_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
)

// answerRun is a HookRun for Answer over an empty home, whose caller's
// workspace is ws, whose fixes say the workspace they name, and whose
// setup check finds every setup stale.
func answerRun(t *testing.T, event string, host bundle.Host, ws string) (r harness.HookRun, out, errOut *strings.Builder, checked *[]string) {
	t.Helper()
	home := t.TempDir()
	out, errOut, checked = &strings.Builder{}, &strings.Builder{}, &[]string{}
	r = harness.HookRun{Event: event, Host: host, Stdout: out, Stderr: errOut,
		Roots: func() (bundle.Roots, error) { return bundle.Roots{Home: home, Workspace: ws}, nil },
		Home:  func() (string, error) { return home, nil },
		Fix: func(cmd, workspace string) string {
			if workspace == "" {
				return cmd
			}
			return cmd + " in " + workspace
		},
		SetupCheck: func(h string, host bundle.Host, environ []string) (string, string) {
			if h != home || len(environ) == 0 {
				t.Errorf("SetupCheck(%q, %q, %d variables), want the home %q and the environment", h, host, len(environ), home)
			}
			*checked = append(*checked, string(host))
			return "the hook lines are older than this bundlectl", "bundlectl setup " + string(host)
		},
	}
	return r, out, errOut, checked
}

func answerCtx() context.Context { return context.Background() }

// systemMessage is the systemMessage of a JSON answer.
func systemMessage(t *testing.T, out string) string {
	t.Helper()
	if out == "" {
		return ""
	}
	var o struct {
		SystemMessage string `json:"systemMessage"`
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatalf("answer %q: %v", out, err)
	}
	return o.SystemMessage
}

// nestedWorkspace is a workspace (it holds .bundlectl) with a directory
// two levels below it.
func nestedWorkspace(t *testing.T) (ws, sub string) {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sub = filepath.Join(ws, "a", "b")
	for _, d := range []string{filepath.Join(ws, ".bundlectl"), sub} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return ws, sub
}

// TestHookRunAnswerChoosesTheWorkspace: without a workspace the caller
// names, the event's cwd chooses it, else the current directory does, as
// the nearest ancestor holding .bundlectl; the fixes name it whenever it
// came from the event or is not the current directory, and never when the
// caller named its own.
func TestHookRunAnswerChoosesTheWorkspace(t *testing.T) {
	ws, sub := nestedWorkspace(t)
	elsewhere := t.TempDir()
	event := func(cwd string) []byte {
		b, _ := json.Marshal(map[string]string{"hook_event_name": "SessionStart", "cwd": cwd})
		return b
	}
	for _, c := range []struct {
		name   string
		callWS string // the caller's workspace: its current directory, or the one it names
		named  bool
		input  []byte
		fixIn  string // the workspace the fix names
	}{
		{"the event's cwd", elsewhere, false, event(sub), ws},
		{"the event's cwd, a workspace itself", elsewhere, false, event(ws), ws},
		{"the event's cwd, relative", elsewhere, false, event("."), mustGetwd(t)},
		{"no cwd: the current directory below the workspace", sub, false, []byte(`{"hook_event_name":"SessionStart"}`), ws},
		{"no cwd: the current directory is the workspace", ws, false, []byte(`{"hook_event_name":"SessionStart"}`), ""},
		{"--workspace: the event's cwd is not asked", elsewhere, true, event(sub), ""},
	} {
		r, out, errOut, checked := answerRun(t, "SessionStart", bundle.HostClaude, c.callWS)
		r.WorkspaceNamed = c.named
		if err := r.Answer(answerCtx, c.input); err != nil {
			t.Errorf("%s: Answer = %v, want nil (stderr %q)", c.name, err, errOut)
			continue
		}
		want := "bundlectl: the hook lines are older than this bundlectl\nbundlectl: hint: bundlectl setup claude"
		if c.fixIn != "" {
			want += " in " + c.fixIn
		}
		if got := systemMessage(t, out.String()); got != want || len(*checked) != 1 {
			t.Errorf("%s: systemMessage %q (setup checked %d times), want %q once", c.name, got, len(*checked), want)
		}
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// TestHookRunAnswerChecksSetupAtSessionStartOnly: the setup check runs at
// the start of a session under a host, never on a tool call (its hot
// path) nor for bundlectl's own contract, and a current setup says
// nothing.
func TestHookRunAnswerChecksSetupAtSessionStartOnly(t *testing.T) {
	for _, c := range []struct {
		event string
		host  bundle.Host
		want  bool
	}{
		{"SessionStart", bundle.HostClaude, true},
		{"SessionStart", bundle.HostCodex, true},
		{"SessionStart", bundle.HostGemini, true},
		{"SessionStart", "", false},
		{"PreToolUse", bundle.HostClaude, false},
		{"BeforeTool", bundle.HostGemini, false},
		{"UserPromptSubmit", bundle.HostCodex, false},
	} {
		r, out, _, checked := answerRun(t, c.event, c.host, t.TempDir())
		input := `{"hook_event_name":"` + c.event + `","tool_name":"Bash","tool_input":{},"prompt":"x"}`
		if err := r.Answer(answerCtx, []byte(input)); err != nil {
			t.Errorf("%s %q: Answer = %v", c.event, c.host, err)
		}
		if got := len(*checked) == 1; got != c.want {
			t.Errorf("%s %q: setup checked %d times, want %v", c.event, c.host, len(*checked), c.want)
		}
		if got := strings.Contains(out.String(), "older than this bundlectl"); got != c.want {
			t.Errorf("%s %q: answer %q, want the stale setup said: %v", c.event, c.host, out, c.want)
		}
	}
	r, out, _, _ := answerRun(t, "SessionStart", bundle.HostClaude, t.TempDir())
	r.SetupCheck = func(string, bundle.Host, []string) (string, string) { return "", "" }
	if err := r.Answer(answerCtx, []byte(`{"hook_event_name":"SessionStart"}`)); err != nil || systemMessage(t, out.String()) != "" {
		t.Errorf("current setup: Answer = %v, answer %q, want nil and no systemMessage", err, out)
	}
}

// TestHookRunAnswerWithoutRoots: the current directory is not needed when
// the event names its workspace; without one, a guard fails closed and an
// event no guard blocks reports the caller's own error.
func TestHookRunAnswerWithoutRoots(t *testing.T) {
	errGone := errors.New("the current directory is gone")
	_, sub := nestedWorkspace(t)
	withCwd := []byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{},"cwd":` + strconvQuote(sub) + `}`)
	noCwd := []byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}`)
	for _, c := range []struct {
		name  string
		event string
		named bool
		input []byte
		exit  int   // the answer's exit status, when the error is not the caller's
		err   error // the caller's error, returned
	}{
		{"the event names its workspace", "PreToolUse", false, withCwd, 0, nil},
		{"a guard without roots", "PreToolUse", false, noCwd, 2, nil},
		{"a guard without roots under --workspace", "PreToolUse", true, withCwd, 2, nil},
		{"no guard without roots", "SessionStart", false, []byte(`{"hook_event_name":"SessionStart"}`), 0, errGone},
	} {
		r, _, errOut, _ := answerRun(t, c.event, "", "")
		r.WorkspaceNamed = c.named
		r.Roots = func() (bundle.Roots, error) { return bundle.Roots{}, errGone }
		err := r.Answer(answerCtx, c.input)
		if c.err != nil {
			if err != c.err {
				t.Errorf("%s: Answer = %v, want the caller's error", c.name, err)
			}
			continue
		}
		if got := exitOf(t, err); got != c.exit {
			t.Errorf("%s: exit %d, want %d (stderr %q)", c.name, got, c.exit, errOut)
		}
		if c.exit == 2 && !strings.Contains(errOut.String(), "bundlectl cannot tell which guards apply, so PreToolUse is blocked: "+errGone.Error()) {
			t.Errorf("%s: stderr %q, want the block naming the error", c.name, errOut)
		}
	}
}

// TestHookRunAnswerUnusableState: guards that cannot be listed block the
// event they guard; on any other event bundlectl's own failure is a
// *HookExit of 1 carrying the error.
func TestHookRunAnswerUnusableState(t *testing.T) {
	for _, c := range []struct {
		event string
		exit  int
	}{{"PreToolUse", 2}, {"SessionStart", 1}} {
		r, _, errOut, _ := answerRun(t, c.event, "", t.TempDir())
		roots, _ := r.Roots()
		if err := os.WriteFile(filepath.Join(roots.Home, "state.json"), []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
		err := r.Answer(answerCtx, []byte(`{"hook_event_name":"`+c.event+`","tool_name":"Bash","tool_input":{}}`))
		var he *harness.HookExit
		if !errors.As(err, &he) || he.Code != c.exit || (c.exit == 1) != (he.Err != nil) {
			t.Errorf("%s: Answer = %#v, want a *HookExit of %d (stderr %q)", c.event, err, c.exit, errOut)
		}
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
