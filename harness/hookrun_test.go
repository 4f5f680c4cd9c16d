package harness_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/lifecycle"
)

func hookRun(event string, host bundle.Host) (harness.HookRun, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return harness.HookRun{Event: event, Host: host, Stdout: &out, Stderr: &errOut}, &out, &errOut
}

func exitOf(t *testing.T, err error) int {
	t.Helper()
	var he *harness.HookExit
	switch {
	case err == nil:
		return 0
	case errors.As(err, &he):
		return he.Code
	}
	t.Fatalf("%T %v, want nil or a *HookExit", err, err)
	return -1
}

// TestHookRunCheckLine: a line naming another host's event is mis-wired,
// and the error names the help that fixes it; a mistyped name is left to
// Refuse.
func TestHookRunCheckLine(t *testing.T) {
	for _, c := range []struct {
		host         bundle.Host
		event        string
		reason, hint string
	}{
		{"", "PreToolUse", "", ""},
		{"", "PreCompact", "", ""},
		{bundle.HostGemini, "BeforeTool", "", ""},
		{"", "NoSuchEvent", "", ""},
		{"", "BeforeTool", `"BeforeTool" is a Gemini CLI event, for which bundlectl's own hooks fire only under --host gemini`, "bundlectl hooks run --host gemini BeforeTool"},
		{bundle.HostGemini, "PreToolUse", `"PreToolUse" is not an event Gemini CLI fires, so no guard would run for it: a hook line with --host gemini names that host's own events`, "bundlectl hooks run --help"},
	} {
		r, _, _ := hookRun(c.event, c.host)
		err := r.CheckLine()
		var le *harness.HookLineError
		if c.reason == "" {
			if err != nil {
				t.Errorf("host %q %s: %v, want nil", c.host, c.event, err)
			}
			continue
		}
		if !errors.As(err, &le) || le.Error() != c.reason || harness.HintOf(err) != c.hint {
			t.Errorf("host %q %s: %v (hint %q), want %q (hint %q)", c.host, c.event, err, harness.HintOf(err), c.reason, c.hint)
		}
	}
}

// TestHookRunRefuseUnread: an input that cannot be read fails closed in
// the form the host honours.
func TestHookRunRefuseUnread(t *testing.T) {
	readErr := errors.New("input/output error")
	r, out, errOut := hookRun("PreToolUse", "")
	if code := exitOf(t, r.RefuseUnread(readErr)); code != 2 || !strings.Contains(errOut.String(), "cannot read the input on stdin: input/output error") {
		t.Errorf("PreToolUse: exit %d, stdout %q, stderr %q; want 2 and the reason", code, out, errOut)
	}
	r, out, _ = hookRun("PreCompact", bundle.HostCodex)
	if code := exitOf(t, r.RefuseUnread(readErr)); code != 0 || !strings.Contains(out.String(), `"continue":false`) {
		t.Errorf("Codex PreCompact: exit %d, stdout %q; want 0 and a stop", code, out)
	}
	// A host that is not one is not honoured (the caller refuses it
	// later, after reading): bundlectl's own contract answers.
	r, out, _ = hookRun("PreCompact", "nosuch")
	if code := exitOf(t, r.RefuseUnread(readErr)); code != 2 || strings.Contains(out.String(), `"continue":false`) {
		t.Errorf("unknown host PreCompact: exit %d, stdout %q; want 2, no stop", code, out)
	}
}

// TestHookRunAnswerUnguarded: when which guards apply cannot be told, a
// guard's event fails closed with the fix as fix prints it; another event
// is left to the caller.
func TestHookRunAnswerUnguarded(t *testing.T) {
	fix := func(cmd string) string { return cmd + " --home /h" }
	err := fmt.Errorf("state file: %w", lifecycle.ErrStateUnusable)
	r, out, errOut := hookRun("PreToolUse", bundle.HostClaude)
	ok, exit := r.AnswerUnguarded(err, fix)
	want := "bundlectl cannot tell which guards apply, so PreToolUse is blocked: state file: " + lifecycle.ErrStateUnusable.Error() + "\nbundlectl: hint: bundlectl list --home /h\n"
	if code := exitOf(t, exit); !ok || code != 2 || errOut.String() != want {
		t.Errorf("PreToolUse: answered %v, exit %d, stdout %q, stderr %q; want 2 and %q", ok, code, out, errOut, want)
	}
	r, out, _ = hookRun("AfterModel", bundle.HostGemini)
	ok, exit = r.AnswerUnguarded(err, fix)
	if code := exitOf(t, exit); !ok || code != 0 || !strings.Contains(out.String(), `"continue":false`) {
		t.Errorf("AfterModel: answered %v, exit %d, stdout %q; want 0 and a stop", ok, code, out)
	}
	r, out, _ = hookRun("BeforeToolSelection", bundle.HostGemini)
	ok, exit = r.AnswerUnguarded(err, fix)
	if code := exitOf(t, exit); !ok || code != 0 || !strings.Contains(out.String(), `"NONE"`) || !strings.Contains(out.String(), "so no tools are offered") || !strings.Contains(out.String(), "bundlectl list --home /h") {
		t.Errorf("BeforeToolSelection: answered %v, exit %d, stdout %q; want 0 and no tools", ok, code, out)
	}
	r, out, errOut = hookRun("SessionEnd", bundle.HostClaude)
	if ok, exit = r.AnswerUnguarded(err, fix); ok || exit != nil || out.Len()+errOut.Len() != 0 {
		t.Errorf("SessionEnd: answered %v (%v), stdout %q, stderr %q; want nothing", ok, exit, out, errOut)
	}
}

// TestHookRunRefuseAndWrite: an input that does not parse blocks, with
// the help that lists the event names and says what the input must be
// (for a mistyped event name too); an error that
// did not block is bundlectl's own failure; Gemini CLI is told of a
// block it ignores in a systemMessage.
func TestHookRunRefuseAndWrite(t *testing.T) {
	perr := &harness.HookEventError{Problem: "not JSON"}
	r, out, errOut := hookRun("PreToolUse", "")
	o, err := r.Refuse(perr)
	if code := exitOf(t, r.Write(o, err)); code != 2 || errOut.String() != "bundlectl: "+perr.Error()+"\nbundlectl: hint: bundlectl hooks run --help\n" || !strings.Contains(out.String(), `"permissionDecision":"deny"`) {
		t.Errorf("PreToolUse not JSON: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	r, _, errOut = hookRun("PreToolUze", "")
	o, err = r.Refuse(perr)
	if code := exitOf(t, r.Write(o, err)); code != 2 || !strings.HasSuffix(errOut.String(), "\nbundlectl: hint: bundlectl hooks run --help\n") {
		t.Errorf("mistyped event: exit %d, stderr %q; want 2 and the help", code, errOut)
	}
	r, out, _ = hookRun("SessionStart", bundle.HostGemini)
	o, err = r.Refuse(perr)
	if code := exitOf(t, r.Write(o, err)); !strings.Contains(out.String(), `"systemMessage"`) || !strings.Contains(out.String(), "not JSON") {
		t.Errorf("Gemini CLI SessionStart: exit %d, stdout %q; want the reason in a systemMessage", code, out)
	}
	r, out, errOut = hookRun("SessionEnd", "")
	own := errors.New("a hook failed")
	var he *harness.HookExit
	if err := r.Write(harness.NewOutcome("SessionEnd"), own); !errors.As(err, &he) || he.Code != 1 || he.Err != own || out.Len()+errOut.Len() != 0 {
		t.Errorf("unblocked error: %v, stdout %q, stderr %q; want a HookExit of 1 carrying it, nothing written", err, out, errOut)
	}
}
