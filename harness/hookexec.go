package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/internal/jsonobj"
	"github.com/bundlectl/bundlectl/lifecycle"
)

// A HookLine is one hook line of a host view (bundlectl hooks exec): it
// runs one reviewed hook of one bundle in place of the host's original
// line, with the event the host sends on stdin, and answers as the host
// reads it (ExecHookLine).
type HookLine struct {
	Bundle string      // the bundle's name
	Hook   string      // the hook's id, as review and show print it
	Host   bundle.Host // the host the view is for; "" is bundlectl's own contract
	// Event is the host's name of the event the line is wired to (a
	// view's --event), "" when the line names none. It decides the
	// answer when the input cannot tell the event; an input naming
	// another event is refused (the hook does not run).
	Event string
	// Input is the event as read from stdin (at most MaxHookEventBytes+1
	// bytes); ReadErr is why it could not be read, nil when it was.
	Input   []byte
	ReadErr error
	// Fix prints a fix command as the caller's user would run it
	// (Options.FixCommand); nil prints it bare.
	Fix func(cmd string) string
}

// A HookExit is how a hook command ends. With Err nil its answer is
// written and Code is its exit status; with Err set, bundlectl itself
// failed on an event no hook can block: nothing is written, and the
// caller reports Err with Hint and exits Code (1), which a host shows
// and goes on.
type HookExit struct {
	Code int
	Err  error
	Hint string
}

func (e *HookExit) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

func (e *HookExit) Unwrap() error { return e.Err }

// LineEventName reports whether s reads as an event name (letters only):
// the value of a hook line's --event, which names an event of the host.
func LineEventName(s string) bool {
	if len(s) > 64 {
		return false
	}
	for _, r := range s {
		if (r < 'A' || r > 'Z') && (r < 'a' || r > 'z') {
			return false
		}
	}
	return s != ""
}

// sameHostEvent reports whether host fires a hook wired to line with an
// input naming fired as a matter of course: Claude Code runs a subagent's
// Stop hooks (an agent's front matter) on SubagentStop.
func sameHostEvent(host bundle.Host, line, fired string) bool {
	return (host == "" || host == bundle.HostClaude) && line == "Stop" && fired == "SubagentStop"
}

// AuthorityChange reports whether err says the user took the bundle's
// authority away (disabled, revoked, removed, switched off, not active):
// its hook then simply does not run.
func AuthorityChange(err error) bool {
	for _, s := range []error{ErrDisabled, ErrRevoked, ErrShadowed, ErrSwitchedOff} {
		if errors.Is(err, s) {
			return true
		}
	}
	var ae *AuthorityError
	return errors.As(err, &ae) && errors.Is(err, ErrNotActive) && !errors.Is(err, ErrReceiptUnusable)
}

// HintOf is the fix err carries (a Hint method), else "bundlectl list"
// for an unusable state file, else "".
func HintOf(err error) string {
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		return h.Hint()
	}
	if errors.Is(err, lifecycle.ErrStateUnusable) {
		return "bundlectl list"
	}
	return ""
}

// withErrHint is reason with err's hint on a line of its own (WithHint)
// as fix prints it.
func withErrHint(reason string, err error, fix func(string) string) string {
	h := HintOf(err)
	if h == "" {
		return reason
	}
	return WithHint(reason, printFix(fix, h))
}

// printFix is cmd as fix prints it; a nil fix prints it bare.
func printFix(fix func(string) string, cmd string) string {
	if fix == nil {
		return cmd
	}
	return fix(cmd)
}

// WriteStop answers event, one where a block would still let through
// what the hook judged (StopsOnFailedGuardIn), with "continue": false,
// and reason as the stopReason and the systemMessage: exit 0, which the
// host reads. A failure to write is a *HookExit with Err set.
func WriteStop(stdout, stderr io.Writer, event, reason string) error {
	o := NewOutcome(event)
	o.Continue, o.StopReason = false, terminalSafe(reason)
	o.SystemMessages = []string{o.StopReason}
	if _, err := WriteOutcome(stdout, stderr, o); err != nil {
		return &HookExit{Code: 1, Err: err}
	}
	return nil
}

// WriteNoTools answers event, one no answer can block (WithholdsTools),
// with a tool configuration that offers no tools, and reason in the
// systemMessage: exit 0, which the host reads. A failure to write is a
// *HookExit with Err set.
func WriteNoTools(stdout, stderr io.Writer, event, reason string) error {
	o := NewOutcome(event)
	o.NoTools = true
	o.SystemMessages = []string{terminalSafe(reason)}
	if _, err := WriteOutcome(stdout, stderr, o); err != nil {
		return &HookExit{Code: 1, Err: err}
	}
	return nil
}

// refuseUnrunFix is the fix a refused hook line names.
const refuseUnrunFix = "bundlectl hooks exec --help"

// refuseUnrun answers event, under host, for a hook that was not run,
// in the form that fails closed there: a stop or no tools where exit 2
// would not hold, exit 2 where a hook can block, else exit 1 (a
// reported failure). The reason goes to stderr in every case.
func refuseUnrun(stdout, stderr io.Writer, host bundle.Host, event, reason string) error {
	switch {
	case StopsOnFailedGuardIn(host, event):
		reason = WithHint(reason+"; the agent is stopped, as "+StopWhy(host, event), refuseUnrunFix)
		io.WriteString(stderr, terminalSafe(reason)+"\n")
		return WriteStop(stdout, stderr, event, reason)
	case WithholdsTools(event):
		reason = WithHint(reason+"; no tools are offered", refuseUnrunFix)
		io.WriteString(stderr, terminalSafe(reason)+"\n")
		return WriteNoTools(stdout, stderr, event, reason)
	}
	io.WriteString(stderr, terminalSafe(WithHint(reason, refuseUnrunFix))+"\n")
	if bundle.BlockingEvent(event) {
		return &HookExit{Code: 2}
	}
	return &HookExit{Code: 1}
}

// ExecHookLine runs l's hook from its bundle's snapshot and writes the
// answer l's host reads to stdout and stderr. load loads the registry
// (restricted to l.Bundle, as Options.Only), and is not called when the
// line is refused before; ctx is called once, just before the hook runs.
//
// The hook's stdout, stderr and exit status pass through unchanged. When
// it cannot run, the answer fails closed for the event: a block (exit 2)
// on an event a hook can block, "continue": false where a block would not
// hold under l.Host (StopsOnFailedGuardIn), no tools on
// BeforeToolSelection; a change the user made (AuthorityChange) proceeds
// with a systemMessage naming the command that undoes it; on any other
// event bundlectl's failure is reported (exit 1). The event is the one
// the input names, else l.Event, else, when the input names none, the
// hook's own where that decides a stop or no tools. An input naming
// another event than l.Event is refused: the hook does not run.
//
// It returns nil for exit 0 and a *HookExit otherwise.
func ExecHookLine(ctx func() context.Context, load func() (*Registry, error), l HookLine, stdout, stderr io.Writer) error {
	name, id, host, readErr := l.Bundle, l.Hook, l.Host, l.ReadErr
	// unread answers an input that cannot be read: which event it is
	// cannot be known from it, so the hook's own event decides (when the
	// registry could tell it), as for an input that names no event: a
	// stop or no tools where exit 2 would not hold, else a block.
	unread := func(event string) error {
		why := "bundlectl: bundle " + bundle.Quote(name) + ": cannot read the hook input on stdin, so "
		switch {
		case StopsOnFailedGuardIn(host, event):
			return WriteStop(stdout, stderr, event, why+"the agent is stopped, as "+StopWhy(host, event)+": "+readErr.Error())
		case WithholdsTools(event):
			return WriteNoTools(stdout, stderr, event, why+"no tools are offered: "+readErr.Error())
		case event != "" && !bundle.BlockingEvent(event):
			// Known from the hook line: an event no answer blocks, where
			// exit 2 would only read as a block that did not happen.
			io.WriteString(stderr, why+"its hook did not run on "+event+": "+bundle.Sanitize(readErr.Error())+"\n")
			return &HookExit{Code: 1}
		}
		io.WriteString(stderr, why+"the event is blocked: "+bundle.Sanitize(readErr.Error())+"\n")
		return &HookExit{Code: 2}
	}
	event := ""
	var ev struct {
		Name string `json:"hook_event_name"`
	}
	// By its exact name, as the host reads the answer's event: a
	// "Hook_Event_Name" names none.
	if readErr == nil && jsonobj.UnmarshalExact(l.Input, &ev) == nil {
		event = ev.Name
	}
	switch {
	case event == "":
		// The input cannot tell the event: the hook line's decides.
		event = l.Event
	case l.Event != "" && event != l.Event && !sameHostEvent(host, l.Event, event):
		// The host fires this line for an event it was not written for
		// (a hand-edited or misplaced line): the reviewed hook is not run,
		// and the answer is the one the host reads for the event it fires.
		return refuseUnrun(stdout, stderr, host, event, "bundlectl: bundle "+bundle.Quote(name)+" hook "+id+": the hook input names event "+bundle.Quote(event)+" but the hook line is for "+bundle.Quote(l.Event)+", so the hook did not run")
	}
	blocking := event == "" || bundle.BlockingEvent(event)
	fail := func(err error) error {
		var be *BlockError
		switch {
		case StopsOnFailedGuardIn(host, event) && (errors.As(err, &be) || !AuthorityChange(err)):
			// A block there would still let the judged answer through,
			// or the host would not hold it: stop the agent instead.
			reason := "bundlectl: bundle " + bundle.Quote(name) + ": its hook cannot run, so the agent is stopped: " + err.Error()
			if be != nil {
				reason = "bundlectl: the agent is stopped, as " + StopWhy(host, event) + "\n" + be.Reason
			} else if strings.HasPrefix(err.Error(), "bundlectl: bundle ") {
				// The harness's own reason names the bundle and the hook
				// (a guard past bundlectl's limit).
				reason = err.Error() + ", so the agent is stopped"
			} else if h := HintOf(err); h != "" {
				reason = WithHint(reason, printFix(l.Fix, h))
			}
			return WriteStop(stdout, stderr, event, reason)
		case errors.As(err, &be) || blocking && !AuthorityChange(err):
			// A BlockError's reason already names the bundle and the fix.
			reason := ""
			if be != nil {
				reason = be.Reason
			} else {
				reason = "bundlectl: bundle " + bundle.Quote(name) + ": its hook cannot run, so the event is blocked: " + err.Error()
				reason = withErrHint(reason, err, l.Fix)
			}
			io.WriteString(stderr, terminalSafe(reason)+"\n")
			return &HookExit{Code: 2}
		case WithholdsTools(event) && !AuthorityChange(err):
			// No answer blocks this event: offer no tools instead.
			reason := err.Error()
			if strings.HasPrefix(reason, "bundlectl: bundle ") && !strings.Contains(reason, "no tools are offered") {
				reason += ", so no tools are offered"
			}
			if !strings.HasPrefix(reason, "bundlectl: bundle ") {
				// The harness's own reason already names the bundle,
				// what is done and the fix; another error does not.
				reason = withErrHint("bundlectl: bundle "+bundle.Quote(name)+": its hook cannot run, so no tools are offered: "+reason, err, l.Fix)
			}
			return WriteNoTools(stdout, stderr, event, reason)
		case AuthorityChange(err):
			// A change the user made (disable, revoke, a switch): the hook
			// proceeds, and the message names the command that undoes it.
			msg, _ := json.Marshal(map[string]string{"systemMessage": withErrHint("bundlectl: bundle "+bundle.Quote(name)+" did not run its hook: "+err.Error(), err, l.Fix)})
			stdout.Write(append(msg, '\n'))
			return nil
		}
		// Exit 1: the host shows stderr (Gemini CLI as a warning) and
		// goes on; the fix is printed with it.
		return &HookExit{Code: 1, Err: err, Hint: HintOf(err)}
	}
	reg, err := load()
	if err != nil && readErr != nil {
		return unread(event)
	}
	if err != nil {
		return fail(err)
	}
	defer reg.Close()
	if event == "" {
		// An input that names no event: the hook's own event decides how
		// a guard that cannot run is answered, for the events where exit 2
		// would not stop Gemini CLI (AfterModel, BeforeToolSelection).
		for _, h := range reg.Hooks("") {
			if h.Bundle == name && h.ID == id && (StopsOnFailedGuardIn(host, h.Event) || WithholdsTools(h.Event)) {
				event, blocking = h.Event, bundle.BlockingEvent(h.Event)
			}
		}
	}
	if readErr != nil {
		return unread(event)
	}
	res, err := reg.ExecHook(ctx(), name, id, l.Input)
	if err != nil {
		return fail(err)
	}
	if AnswerCut(event, res) && blocking && !StopsOnFailedGuardIn(host, event) {
		// The host would read a cut answer as plain text and proceed.
		io.WriteString(stderr, "bundlectl: "+CutAnswer(name, id, res)+"\n")
		return &HookExit{Code: 2}
	}
	if AnswerCut(event, res) && WithholdsTools(event) {
		return WriteNoTools(stdout, stderr, event, "bundlectl: "+strings.TrimSuffix(CutAnswer(name, id, res), " and the event is blocked")+"; no tools are offered")
	}
	if WithholdsTools(event) {
		if why := ToolConfigMisread(res); why != "" {
			// Gemini CLI would misread it, and may drop every hook's
			// configuration, another guard's "NONE" included.
			return WriteNoTools(stdout, stderr, event, "bundlectl: bundle "+bundle.Quote(name)+" hook "+id+": its "+why+", so it cannot be applied as written; no tools are offered")
		}
	}
	if AnswerCut(event, res) && StopsOnFailedGuardIn(host, event) {
		return WriteStop(stdout, stderr, event, "bundlectl: "+strings.TrimSuffix(CutAnswer(name, id, res), " and the event is blocked")+"; the agent is stopped")
	}
	if host == bundle.HostGemini && event == geminiBeforeTool && resetsToolInput(res) {
		// Gemini CLI runs the other hooks of the view too, and may have
		// run a rewrite this answer would undo (geminiArgs); this line
		// cannot see them, so it refuses.
		reason := WithHint("bundlectl: bundle "+bundle.Quote(name)+" hook "+id+" answered a hookSpecificOutput.tool_input that is not an object, which makes Gemini CLI run the model's arguments even after another hook rewrote them, so they may not have been judged by every hook (a hook alone in its session would be ignored, but this line cannot see the session's other hooks); refused: a hook that keeps the model's arguments leaves tool_input out, and one that changes them answers an object", printFix(l.Fix, "bundlectl show "+bundle.ShellArg(name)))
		io.WriteString(stderr, terminalSafe(reason)+"\n")
		return &HookExit{Code: 2}
	}
	stdout.Write(res.Stdout)
	stderr.Write(res.Stderr)
	if res.TimedOut {
		return &HookExit{Code: 1}
	}
	if res.ExitCode != 0 {
		code := res.ExitCode
		if code < 0 {
			code = 1
		}
		return &HookExit{Code: code}
	}
	return nil
}

// resetsToolInput reports whether res, a Gemini CLI BeforeTool hook's
// run, answers with a tool_input that is not an object and does not
// itself block: Gemini CLI keeps it as the last tool_input and so
// builds the call from the model's arguments, whatever an earlier hook
// rewrote them to.
func resetsToolInput(res *Result) bool {
	r := geminiExitAnswer(ParseHookOutput(res.ExitCode, res.Stdout, res.Stderr, res.TimedOut), res)
	return r.Failure == "" && !r.Blocked && r.Decision != geminiDeny && r.Continue &&
		len(bytes.TrimSpace(r.geminiChain.toolInput)) > 0 && r.GeminiToolInput == nil
}
