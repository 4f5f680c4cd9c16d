package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/inventory"
	"github.com/bundlectl/bundlectl/lifecycle"
)

// Hooks lists the loaded hooks for event in precedence order (roots first,
// then manifest order within a bundle). Event "" lists every hook.
func (r *Registry) Hooks(event string) []HookInfo {
	var out []HookInfo
	for _, e := range r.entries {
		for _, h := range e.hooks {
			if event != "" && h.Event != event {
				continue
			}
			info := HookInfo{Bundle: e.name, ID: h.ID, Event: h.Event, Matcher: h.Matcher, Type: h.Type, URL: h.URL, Scope: h.Scope}
			if h.Type == bundle.HookCommand {
				if h.Shell {
					info.Shell = h.Command
				} else {
					info.Argv = append([]string{h.Command}, h.Args...)
				}
			}
			out = append(out, info)
		}
	}
	return out
}

// forHost reports whether a hook belongs to the host the registry serves:
// bundlectl's own hooks (no host) always do.
func (r *Registry) forHost(hosts []string) bool {
	return r.opts.Host == "" || len(hosts) == 0 || slices.Contains(hosts, string(r.opts.Host))
}

// FireHooks fires every loaded hook for event whose matcher matches, in
// precedence order, serially, stopping at the first block. input is the
// hook input object; its hook_event_name is replaced by event.
//
// Each hook's bundle is re-checked immediately before its hook runs. A
// guard never fails open: when the event is one a hook can block and an
// enabled bundle has hooks for it that cannot run — its snapshot failed
// its integrity check, its receipt is unusable, the state file is
// unusable — the event is blocked, and the reason names the bundle and
// the fix. A bundle that stopped for an authority change (disabled,
// revoked, removed from its root, shadowed) does not block, and, like
// every bundle that did not run for any reason, is named in
// Outcome.Errors ("not run: …"), which WriteOutcome writes as a system
// message: nothing is skipped silently.
//
// Hooks lists every loaded hook; with Options.Host set, FireHooks fires
// only bundlectl's own hooks and those that host's manifests declare.
func (r *Registry) FireHooks(ctx context.Context, event string, input []byte) (Outcome, error) {
	ev, err := ParseHookEvent(input, event)
	if err != nil {
		return RefuseEvent(event, err)
	}
	return r.FireEvent(ctx, ev)
}

// RefuseEvent is the outcome of an event whose input ParseHookEvent
// refused with err: blocked, loudly, rather than let the action proceed
// unguarded (fail closed); err is returned with it.
func RefuseEvent(event string, err error) (Outcome, error) {
	o := NewOutcome(event)
	o.Blocked, o.Reason = true, "bundlectl: "+err.Error()
	return o, err
}

// FireEvent is FireHooks for an event ParseHookEvent already read, for a
// caller that parses the input while the registry loads. The outcome's
// Host is Options.Host, so that WriteOutcome answers a guard that cannot
// run as that host honours (a stop on Codex's PreCompact, not exit 2).
func (r *Registry) FireEvent(ctx context.Context, ev *HookEvent) (Outcome, error) {
	o, err := r.fireEvent(ctx, ev)
	if r != nil {
		o.Host = r.opts.Host
	}
	return o, err
}

func (r *Registry) fireEvent(ctx context.Context, ev *HookEvent) (Outcome, error) {
	if ev == nil {
		return RefuseEvent("", &HookEventError{Problem: "no event"})
	}
	if r == nil || r.opts.Home == "" {
		// Not a registry Load made (a zero value): it knows no guard, so
		// it cannot say that none applies.
		return RefuseEvent(ev.HookEventName, errors.New("harness: the registry was not made by Load, so no guard could be checked"))
	}
	event := ev.HookEventName
	blocking := guardedEvent(r.opts.Host, event)
	// bundlectl's own hooks are written in Claude Code's names of events
	// and tools; under --host gemini they fire for Gemini CLI's event of
	// the same meaning, matched against the Claude Code name of its tool
	// (the names are equal for every other host).
	ownEvent := bundle.OwnEvent(r.opts.Host, event)
	var notes []string
	noTools := false
	for _, in := range r.inactive {
		if !in.Enabled {
			continue // never enabled (shadowed or not): nothing of it was meant to run
		}
		has := slices.Contains(in.Events, event) || ownEvent != "" && slices.Contains(in.Events, ownEvent)
		blocks := in.Blocks(event) || ownEvent != "" && in.Blocks(ownEvent)
		if !has && len(in.Events) > 0 && !blocks {
			continue
		}
		why := in.Status
		if len(in.Reasons) > 0 {
			why = in.Reasons[len(in.Reasons)-1]
		}
		msg := fmt.Sprintf("bundlectl: bundle %s is %s, so its hooks did not run: %s", bundle.Quote(in.Name), in.Status, why)
		if in.Status == lifecycle.StatusEnabled {
			// "enabled" is what the user asked for, not what is wrong
			// (a directory gone, a receipt that cannot be used): the
			// reason says that.
			msg = fmt.Sprintf("bundlectl: the hooks of bundle %s did not run: %s", bundle.Quote(in.Name), why)
		}
		if in.Fix != "" {
			msg = WithHint(msg, r.fixCommand(in.Fix))
		}
		// A receipt that cannot be used may have been edited: the events
		// it lists (none, when it did not decode) say nothing of what the
		// bundle guards, so it blocks every event a hook can block.
		if blocking && blocks {
			o := NewOutcome(event)
			o.block(HookRef{Bundle: in.Name, Hook: -1}, msg)
			return o, nil
		}
		if WithholdsTools(event) && blocks {
			noTools = true
			msg = strings.Replace(msg, "did not run: ", "did not run and no tools are offered: ", 1)
		}
		notes = append(notes, msg)
	}
	var chain []RunnableHook
	usesMatcher, value := EventUsesMatcher(event), matchValue(ev)
	onTool := matchField(event) == "tool_name"
	// A tool event that names no tool cannot be matched against a guard
	// written for some tools: a harness that sends nothing on stdin (or
	// drops tool_name) would otherwise pass every such guard by.
	var unmatched []string
	for _, e := range r.entries {
		for i, h := range e.hooks {
			hookEvent := event
			if len(h.Hosts) == 0 {
				hookEvent = ownEvent
			}
			if hookEvent == "" || h.Event != hookEvent || h.Scope != "" || !r.forHost(h.Hosts) {
				continue
			}
			match := r.matcher(h, onTool)
			if usesMatcher {
				// Only a hook that may run is prepared (its bundle's data
				// directory, options, environment): an event no hook
				// matches costs no bundle anything. A matcher that does not
				// compile stays in the chain, which reports it.
				if ok, err := match(value); err == nil && !ok {
					if onTool && value == "" && !slices.Contains(unmatched, e.name) {
						unmatched = append(unmatched, e.name)
					}
					continue
				}
			}
			if why, ok := r.claudeRefuses(e, h); ok {
				// The host never runs it, so it guards nothing there:
				// follow the host, and say so.
				notes = append(notes, fmt.Sprintf("bundlectl: bundle %s hook %s did not run: %s", bundle.Quote(e.name), h.ID, why))
				continue
			}
			switch h.Type {
			case bundle.HookCommand, bundle.HookHTTP:
				if r.opts.HooksOnly {
					// HooksOnly: the check before the hook runs parses
					// the whole inventory; start it now, beside the
					// preparation and the snapshot's check.
					go e.inventory()
				}
				rh := r.runnable(e, i, h, event)
				rh.Match = match
				rh.exit2FailsIn = exit2FailsIn(r.opts.Host, event)
				rh.codex = r.opts.Host == bundle.HostCodex
				rh.codexUnblockable = r.opts.Host == bundle.HostCodex && !bundle.Exit2Blocks(bundle.HostCodex, event)
				rh.geminiShared = r.opts.Host == bundle.HostGemini && geminiSharedEvent(event)
				rh.geminiSequential = r.opts.Host == bundle.HostGemini && bundle.GeminiSequential(h.Other)
				rh.onFailureBlock = slices.Contains(h.Hosts, string(bundle.HostClaude)) && (r.opts.Host == "" || r.opts.Host == bundle.HostClaude) &&
					!bundle.ClaudeHookBackground(h.Async, h.Other) && bundle.ClaudeOnFailureBlocks(h.Other) && !bundle.ClaudeOnFailureIgnoredOn(event) && bundle.BlockingEvent(event)
				rh.plainPasses = h.Type == bundle.HookCommand
				chain = append(chain, rh)
			default:
				notes = append(notes, fmt.Sprintf("bundlectl: bundle %s has a %s hook for %s, which the host's model evaluates; bundlectl hooks run does not (launch the agent with bundlectl exec)", bundle.Quote(e.name), h.Type, event))
			}
		}
	}
	if len(unmatched) > 0 {
		names := make([]string, len(unmatched))
		for i, n := range unmatched {
			names[i] = bundle.Quote(n)
		}
		msg := fmt.Sprintf("bundlectl: the %s input names no tool (tool_name is missing or empty), so the hooks of %s that match on a tool name could not be applied; the harness must send the event's JSON on stdin", event, strings.Join(names, ", "))
		// The block, and the note of an event no answer blocks, end with
		// the command that says what hooks run reads.
		msg = WithHint(msg, r.fixCommand(NoToolNameFix))
		if blocking {
			o := NewOutcome(event)
			o.block(HookRef{Bundle: unmatched[0], Hook: -1}, msg)
			o.NoToolName = true
			return o, nil
		}
		notes = append(notes, msg)
	}
	o, err := FireChain(ctx, chain, ev)
	o.NoToolName = o.NoToolName || len(unmatched) > 0
	o.SystemMessages = append(notes, o.SystemMessages...)
	o.NoTools = o.NoTools || noTools
	return o, err
}

// NoToolNameFix is the command a tool event whose input names no tool
// (Outcome.NoToolName) ends with: the help of hooks run says what input
// it reads on stdin.
const NoToolNameFix = "bundlectl hooks run --help"

// claudeHook reports whether Claude Code's rules for a plugin's command
// hook apply to h: it came from a Claude Code manifest, and hooks run
// serves Claude Code or no host in particular.
func (r *Registry) claudeHook(h inventory.Hook) bool {
	return h.Type == bundle.HookCommand && slices.Contains(h.Hosts, string(bundle.HostClaude)) &&
		(r.opts.Host == "" || r.opts.Host == bundle.HostClaude)
}

// unsetOption is an *OptionUnsetError for the first ${user_config.KEY} of
// an exec-form plugin hook (its command or args) whose option holds no
// stored value: Claude Code does not run such a hook ("Plugin option …
// isn't set"), whatever default the manifest declares, and does not
// declare, so a guard of it guards nothing until the user sets the value.
func (r *Registry) unsetOption(e *entry, h inventory.Hook) error {
	for _, s := range append([]string{h.Command}, h.Args...) {
		for _, k := range claudeOptionKeys(s) {
			if !e.stored[k] {
				_, declared := e.declared[k]
				return &OptionUnsetError{Bundle: e.name, HookID: h.ID, Key: k, Undeclared: !declared}
			}
		}
	}
	return nil
}

// claudeOptionKeys returns the KEY of each ${user_config.KEY} in s, as
// Claude Code finds them (\$\{user_config\.([^}]+)\}).
func claudeOptionKeys(s string) []string {
	const open = "${user_config."
	var keys []string
	for {
		i := strings.Index(s, open)
		if i < 0 {
			return keys
		}
		s = s[i+len(open):]
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return keys
		}
		if end > 0 {
			keys = append(keys, s[:end])
			s = s[end+1:]
		}
	}
}

// OptionUnsetError says a Claude Code plugin hook in exec form references
// an option that holds no value, so it does not run. It names the
// option, never a value.
type OptionUnsetError struct {
	Bundle, HookID, Key string
	// Undeclared: the reviewed manifest does not declare the option, so
	// no value can be set for it.
	Undeclared bool
}

func (e *OptionUnsetError) Error() string {
	if e.Undeclared {
		return fmt.Sprintf("hook %s references the option %s, which the reviewed manifest does not declare: Claude Code never runs a plugin hook whose command or args reference an option with no value", e.HookID, bundle.Quote(e.Key))
	}
	return fmt.Sprintf("hook %s references the option %s, which holds no value: Claude Code does not run a plugin hook whose command or args reference an option with no stored value (a default the manifest declares does not count)", e.HookID, bundle.Quote(e.Key))
}

// Hint is the command that sets the value (it asks for it), or, for an
// option no value can be set for, the one that switches the hook off.
func (e *OptionUnsetError) Hint() string {
	if e.Undeclared {
		return "bundlectl disable " + bundle.ShellArg(e.Bundle) + " --hook " + e.HookID
	}
	return "bundlectl configure " + bundle.Operands(e.Bundle, e.Key)
}

// claudeRefuses says why Claude Code never runs a plugin hook, when
// hooks run serves Claude Code (or no host in particular): a shell-form
// command with ${user_config.KEY} (bundle.ClaudeShellOptionRef), or a
// "shell" other than bash (bundle.ClaudeHookShell); for a skill's
// front-matter hook, ${CLAUDE_PLUGIN_DATA} in its command or args
// (bundle.ClaudeDataRef), or a hook of the same skill with a "shell" its
// schema rejects (bundle.ClaudeSkillHooksRejected). Neither does
// bundlectl.
func (r *Registry) claudeRefuses(e *entry, h inventory.Hook) (string, bool) {
	if !r.claudeHook(h) {
		return "", false
	}
	if strings.HasPrefix(h.Scope, "skill:") {
		var others []map[string]json.RawMessage
		for _, o := range e.hooks {
			if o.Scope == h.Scope {
				others = append(others, o.Other)
			}
		}
		if why := bundle.ClaudeSkillHooksRejected(others); why != "" {
			return why, true
		}
		for _, s := range append([]string{h.Command}, h.Args...) {
			if strings.Contains(s, bundle.ClaudeDataRef) {
				return "it references " + bundle.ClaudeDataRef + ", which Claude Code does not give a skill's front-matter hooks (it is plugin-only), so it fails before it starts and the event goes ahead", true
			}
		}
		return "", false
	}
	if h.Scope != "" {
		return "", false
	}
	if why := bundle.ClaudeHookShell(h.Other, h.Shell); why != "" {
		return why, true
	}
	if !h.Shell {
		return "", false
	}
	if ref, ok := bundle.ClaudeShellOptionRef(h.Command); ok {
		return fmt.Sprintf("its shell-form command references %s, and Claude Code refuses a plugin hook's shell-form command with ${user_config.*} (the bundle should pass the value in \"args\" or read $CLAUDE_PLUGIN_OPTION_<KEY>)", bundle.Quote(ref)), true
	}
	return "", false
}

// matcher is how h's matcher selects the event's match value under the
// host hooks run serves: bundlectl's own hooks name Claude Code's tools,
// so a host's tool is matched by its Claude Code name (under Codex, by
// each name Codex matches it by: apply_patch is also Write and Edit); a
// hook from Gemini CLI's, Claude Code's or Codex's own manifest is matched
// as that host matches it (GeminiMatch, or none on an event Gemini CLI
// does not match, ClaudeMatch, CodexMatch); any
// other by bundlectl's rule (MatchHook).
func (r *Registry) matcher(h inventory.Hook, onTool bool) func(string) (bool, error) {
	m, host := h.Matcher, r.opts.Host
	own := len(h.Hosts) == 0
	if host == bundle.HostCodex && (own && onTool || slices.Contains(h.Hosts, string(bundle.HostCodex))) {
		match := CodexMatch
		if own {
			match = MatchHook
		}
		return func(v string) (bool, error) {
			names := []string{v}
			if onTool {
				names = bundle.CodexMatchNames(v)
			}
			for _, name := range names {
				if ok, err := match(m, name); ok || err != nil {
					return ok, err
				}
			}
			return false, nil
		}
	}
	switch {
	case own && host != "" && onTool:
		return func(v string) (bool, error) { return MatchHook(m, bundle.OwnTool(host, v)) }
	case host == bundle.HostGemini && slices.Contains(h.Hosts, string(bundle.HostGemini)):
		if bundle.IgnoresMatcher(bundle.HostGemini, h.Event) {
			// Gemini CLI runs it on every such event (Notification
			// too, whatever its notification_type).
			return func(string) (bool, error) { return true, nil }
		}
		return func(v string) (bool, error) { return GeminiMatch(m, v, onTool) }
	case host == bundle.HostClaude && slices.Contains(h.Hosts, string(bundle.HostClaude)):
		return func(v string) (bool, error) { return ClaudeMatch(h.Event, m, v) }
	}
	return func(v string) (bool, error) { return MatchHook(m, v) }
}

// UnusableReceipt reports whether the bundle was meant to run (it is
// enabled and trusted) but its receipt cannot be used: it does not decode,
// or its inventory is not what the capability hash covers. Which events
// its hooks guard is then unknown.
func (in Inactive) UnusableReceipt() bool { return in.receiptUnusable }

// Blocks reports whether the bundle blocks event, when a hook can block
// it: the bundle was meant to guard it and cannot. That is a bundle whose
// receipt cannot be used (every such event: which it guards is unknown),
// and one whose directory is gone while the state still trusts and
// enables it (the events its receipt has hooks for).
func (in Inactive) Blocks(event string) bool {
	switch {
	case in.UnusableReceipt():
		return true
	case in.Gone:
		return !in.eventsKnown || slices.Contains(in.Events, event)
	}
	return false
}

// BlocksAny reports whether the bundle blocks any event a hook can block:
// a host started without it would fail open.
func (in Inactive) BlocksAny() bool {
	if in.UnusableReceipt() || in.Gone && !in.eventsKnown {
		return true
	}
	return in.Gone && slices.ContainsFunc(in.Events, bundle.BlockingEvent)
}

// runnable freezes one hook of e, fired for event (the host's name of
// h's event): a guard of it that cannot run is answered as that host
// honours (guardedEvent, StopsOnFailedGuardIn, WithholdsTools).
func (r *Registry) runnable(e *entry, index int, h inventory.Hook, event string) RunnableHook {
	blocking := guardedEvent(r.opts.Host, event)
	e.mu.Lock()
	prepErr := r.prepare(e) // options are part of the frozen environment
	e.mu.Unlock()
	rh := RunnableHook{
		Bundle:  e.name,
		Index:   index,
		ID:      h.ID,
		Matcher: h.Matcher,
		Spec: Spec{
			Dir:       r.opts.Workspace,
			Timeout:   r.timeout(h.TimeoutSec, orDefault(r.opts.HookTimeout, DefaultHookTimeout)),
			MaxOutput: r.opts.MaxOutput,
		},
		pastLimit: HookWaitsPastLimit(h),
		host:      r.opts.Host,
	}
	if rh.pastLimit && testOnlyLimit > 0 {
		rh.Spec.Timeout = testOnlyLimit
	}
	// A bundle that could not be prepared gets no spec: Verify returns
	// prepErr, so nothing is spawned (and its options, which another
	// goroutine's check may be writing, are not read).
	if prepErr == nil {
		x := r.expanderFor(e, h.Hosts, h.HostVariables)
		options := e.options
		switch {
		case !r.claudeHook(h):
		case strings.HasPrefix(h.Scope, "skill:"):
			// Claude Code gives a skill's hooks no plugin options: it
			// leaves ${user_config.KEY} as written and sets no
			// CLAUDE_PLUGIN_OPTION_<KEY> (TestClaudeHookOptionScopes).
			x.noOptions, options = true, nil
		case h.Scope == "" && !h.Shell:
			prepErr = r.unsetOption(e, h)
		}
		var reviewed map[string]string
		if len(h.Env) > 0 {
			reviewed = make(map[string]string, len(h.Env))
			for k, v := range h.Env {
				reviewed[k] = x.arg(v)
			}
		}
		rh.Spec.Env = EnvSpec{
			Host: r.opts.Environ, Reviewed: reviewed, Vars: h.HostVariables,
			PluginRoot: e.snapshot, PluginData: e.data,
			HostPlugin: len(h.Hosts) > 0, SkillHook: r.claudeHook(h) && strings.HasPrefix(h.Scope, "skill:"),
			ProjectDir: r.opts.Workspace, Options: options, Settings: e.settings,
		}.Build()
		switch {
		case h.Type == bundle.HookHTTP:
			rh.Run = r.postHook(x, h)
		case h.Shell:
			cmd, values := x.shell(h.Command)
			host := r.shellHost(h.Hosts)
			sh, err := hookShell(host, pathOf(rh.Spec.Env))
			if err != nil {
				prepErr = &HookShellError{Bundle: e.name, HookID: h.ID, Host: host, Shell: shellName(host), Err: err}
			}
			rh.Spec.Argv = append(sh, cmd)
			rh.Spec.Env = append(rh.Spec.Env, values...)
		case prepErr != nil:
		default:
			argv0, err := r.resolve(e, h.Command, rh.Spec.Env)
			prepErr = err
			rh.Spec.Argv = append([]string{argv0}, expandAll(x, h.Args)...)
		}
	}
	rh.Verify = func(context.Context) error {
		if r.isOffFresh(e, "hook", h.ID) {
			return errSkip
		}
		err := r.authorize(e)
		if err == nil && prepErr != nil {
			err = prepErr
		}
		if err != nil && blocking && failsClosed(err) {
			what := "the event is blocked"
			if StopsOnFailedGuardIn(r.opts.Host, event) {
				what = "the agent is stopped"
			}
			reason := fmt.Sprintf("bundlectl: bundle %s has a guard for this event that cannot run, so %s: %v", bundle.Quote(e.name), what, err)
			if h := hintOf(err); h != "" {
				reason = WithHint(reason, r.fixCommand(h))
			}
			return &BlockError{Reason: reason, Fix: hintOf(err)}
		}
		if err != nil && WithholdsTools(event) && failsClosed(err) {
			reason := fmt.Sprintf("bundlectl: bundle %s has a guard for this event that cannot run, so no tools are offered: %v", bundle.Quote(e.name), err)
			if h := hintOf(err); h != "" {
				reason = WithHint(reason, r.fixCommand(h))
			}
			return &noToolsError{reason: reason}
		}
		if h := hintOf(err); err != nil && h != "" {
			// Reported in a systemMessage: it names the fix, as the
			// message of a bundle skipped at load does.
			return &fixedError{err: err, fix: r.fixCommand(h)}
		}
		return err
	}
	// A revoke, disable, switch or tamper while the hook runs cancels it
	// as it cancels a tool.
	run := rh.Run
	if run == nil {
		run = Run
	}
	rh.Run = func(ctx context.Context, spec Spec) (*Result, error) {
		return r.supervise(ctx, e, "hook", h.ID, func(ctx context.Context) (*Result, error) { return run(ctx, spec) })
	}
	return rh
}

// isOffFresh reports whether a component is switched off, after the
// authority check read the state file afresh.
func (r *Registry) isOffFresh(e *entry, kind, name string) bool {
	r.mu.Lock()
	r.refreshState()
	r.mu.Unlock()
	return r.isOff(e, kind, name)
}

// fixCommand is cmd as the caller prints fix commands (Options.FixCommand).
func (r *Registry) fixCommand(cmd string) string { return printFix(r.opts.FixCommand, cmd) }

// failsClosed reports whether a failed check means the guard could not
// run (integrity, an unusable state, a receipt changed under it, its
// directory deleted outside bundlectl) rather than that the user took its
// authority away.
func failsClosed(err error) bool {
	switch {
	case errors.Is(err, ErrDisabled), errors.Is(err, ErrRevoked), errors.Is(err, ErrShadowed), errors.Is(err, ErrSwitchedOff):
		return false
	}
	return true
}

// noToolsError is a failed check of a guard of an event WithholdsTools:
// the chain answers no tools (Outcome.NoTools) for the reason given.
type noToolsError struct{ reason string }

func (e *noToolsError) Error() string { return e.reason }

// fixedError is a failed hook check whose message ends with the command
// that fixes it on a line of its own (WithHint), for a hook chain's report
// ("not run: …").
type fixedError struct {
	err error
	fix string
}

func (e *fixedError) Error() string { return WithHint(e.err.Error(), e.fix) }
func (e *fixedError) Unwrap() error { return e.err }

func hintOf(err error) string {
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		return h.Hint()
	}
	return ""
}

// TruncatedAnswer is the reason a blocking event is blocked when hook
// (of bundle) exited 0 with an answer cut short: over the output cap, or,
// for an http hook, a connection that broke off.
func TruncatedAnswer(bundleName, hook string, res *Result) string {
	why := fmt.Sprintf("wrote more than %d bytes to stdout", len(res.Stdout))
	if res.BrokenOff != "" {
		why = "gave an answer that broke off (" + bundle.Sanitize(res.BrokenOff) + ")"
	}
	return fmt.Sprintf("bundle %s hook %s %s, so its answer cannot be read whole and the event is blocked", bundle.Quote(bundleName), hook, why)
}

// maxHTTPHookBody bounds the answer of an http hook.
const maxHTTPHookBody = 1 << 20

// postHook runs an http hook: the event is POSTed as JSON to the
// reviewed URL with the reviewed headers, whose values may read only the
// host variables the hook lists in allowedEnvVars. A 2xx answer that is
// blank or a JSON object is read like a command hook's stdout on exit 0;
// any other body, status or error is a reported failure (exit status 1:
// non-blocking unless onFailure is "block"), as the host has it.
func (r *Registry) postHook(x expander, h inventory.Hook) func(context.Context, Spec) (*Result, error) {
	return func(ctx context.Context, spec Spec) (*Result, error) {
		ctx, cancel := context.WithTimeout(ctx, spec.Timeout)
		defer cancel()
		// The url as JavaScript's URL reads it, where Claude Code
		// posts: its host decoded ("c%41.example.com" is
		// ca.example.com, which Go's parser refuses) and its path
		// resolved ("/allow/../deny" is /deny, which Go sends as
		// written).
		// Refused by the address JavaScript's URL reads, before Go's
		// parser, which reads no host in some urls Claude Code reads one
		// in ("https://${X}@169.254.169.254/").
		if a, why := bundle.ClaudeHTTPURLRefused(h.URL); why != "" {
			return blockedAddress(a, why), nil
		}
		req, err := newHookRequest(ctx, h.URL, spec.Stdin)
		if err != nil {
			// A url Claude Code cannot post to fails the hook there, a
			// failure like any other (onFailure applies).
			return &Result{ExitCode: 1, Stderr: []byte("http hook: " + err.Error())}, nil
		}
		req.Header.Set("Content-Type", "application/json")
		for k, v := range h.Headers {
			switch strings.ToLower(strings.TrimSpace(k)) {
			case "content-length", "transfer-encoding":
				continue // the length is the body's, as the host has it
			}
			req.Header.Set(k, headerValue(v, h.AllowedEnvVars, x.vars))
		}
		if res := refuseHookAddress(req); res != nil {
			return res, nil
		}
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		// The proxy Claude Code chooses, and its tunnel (hook_proxy.go).
		switch p, perr := claudeHookProxy(hookProxyEnv, req); {
		case perr != nil:
			return problem(perr.Error()), nil
		case p == nil:
			client.Transport = directTransportFor(req)
		default:
			client.Transport = tunnelTransportFor(http.DefaultTransport.(*http.Transport), req, p)
		}
		resp, err := client.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return &Result{TimedOut: true, ExitCode: -1, Timeout: spec.Timeout}, nil
			}
			return &Result{ExitCode: 1, Stderr: []byte("http hook: " + err.Error())}, nil
		}
		defer resp.Body.Close()
		body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxHTTPHookBody+1))
		if resp.StatusCode/100 != 2 {
			return &Result{ExitCode: 1, Stderr: []byte(fmt.Sprintf("http hook answered %s", resp.Status))}, nil
		}
		switch {
		case len(body) > maxHTTPHookBody:
			// Cut, as a command hook's stdout is at the cap: a deny in it
			// cannot be read, so a blocking event is blocked.
			return &Result{ExitCode: 0, Stdout: body[:maxHTTPHookBody], StdoutTruncated: true}, nil
		case rerr != nil:
			// A 2xx whose answer broke off is an answer cut short.
			return &Result{ExitCode: 0, Stdout: body, StdoutTruncated: true, BrokenOff: rerr.Error()}, nil
		}
		if msg := httpAnswerNotJSON(body); msg != "" {
			// Claude Code (2.1.332) takes such an answer as a failed hook,
			// not as plain output: the event goes ahead, unless onFailure
			// is "block" (internal/agenttest TestClaudeHTTPHookAnswers).
			// Handed on as stdout after exit 0, hooks exec's command hook
			// would read as plain output, which passes.
			return &Result{ExitCode: 1, Stderr: []byte(msg)}, nil
		}
		return &Result{ExitCode: 0, Stdout: body}, nil
	}
}

// refuseHookAddress fails an http hook whose url's host is an IP literal
// Claude Code (2.1.332) refuses to post to — link-local or cloud metadata
// — before connecting, as Claude Code does ("HTTP hook blocked"; a
// failure, so onFailure applies; internal/agenttest
// TestClaudeHTTPHookPrivateAddress). A literal in a form JavaScript's URL
// reads ("0x0a000001", "10.1") is posted to the address it reads, as
// Claude Code does, not looked up as a name.
//
// An IPv6 literal with a zone ("[fe80::1%25eth0]") fails too: JavaScript's
// URL refuses it, so Claude Code never posts to it, where Go would
// connect to the link-local address it names.
func refuseHookAddress(req *http.Request) *Result {
	if strings.HasPrefix(req.URL.Host, "[") && strings.Contains(req.URL.Hostname(), "%") {
		return problem(fmt.Sprintf("http hook: url host [%s] has an IPv6 zone, which Claude Code's URL parser refuses, so it posts nothing to it; use the server's public address, or 127.0.0.1 or ::1 for a local server", bundle.Sanitize(req.URL.Hostname())))
	}
	a, ok := bundle.JSURLIPHost(req.URL.Hostname())
	if strings.HasPrefix(req.URL.Host, "[") {
		a, ok = bundle.JSURLIPHost("[" + req.URL.Hostname() + "]")
	}
	if !ok {
		return nil
	}
	if why := bundle.ClaudeHTTPRefusedAddr(a, true); why != "" {
		return blockedAddress(a, why)
	}
	if cur, err := netip.ParseAddr(req.URL.Hostname()); err == nil && cur == a {
		// Already written as JavaScript's URL writes it
		// ("[::ffff:7f00:1]", which netip writes "::ffff:127.0.0.1"):
		// the Host header, and a target in absolute form, keep it.
		return nil
	}
	host := a.String()
	if a.Is6() {
		host = "[" + host + "]"
	}
	if p := req.URL.Port(); p != "" {
		host += ":" + p
	}
	req.URL.Host = host
	req.Host = ""
	return nil
}

// blockedAddress is the failure of an http hook whose url's host is the
// IP literal a, which Claude Code refuses to post to (why its class).
func blockedAddress(a netip.Addr, why string) *Result {
	return problem(fmt.Sprintf("http hook blocked: %s is a %s address, which Claude Code does not post an http hook's event to; use the server's public address, or 127.0.0.1 or ::1 for a local server", a, why))
}

// problem is the failed run (exit status 1) of an http hook bundlectl
// did not post, for the reason msg, which ends in a hint and is shown
// whole (Result.Problem).
func problem(msg string) *Result {
	return &Result{ExitCode: 1, Stderr: []byte(msg), Problem: msg}
}

// directHookTransport posts an http hook's event when no proxy is in the
// way. Like Claude Code (2.1.332), it resolves a host name itself and
// refuses the name when any address it resolves to is private,
// link-local, unspecified or a cloud metadata address (loopback is
// allowed); it then connects only to the addresses it checked, so a
// second lookup cannot answer otherwise. An IP literal is connected to as
// written: refuseHookAddress has checked it. Through a proxy the proxy
// resolves, and nothing is checked, as in Claude Code. It is built on
// first use: every `hooks run` links it, few post an http hook.
var directHookTransport = sync.OnceValue(func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if _, err := netip.ParseAddr(host); err == nil {
			return d.DialContext(ctx, network, addr)
		}
		ips, err := testOnlyLookupHookHost(ctx, host)
		if err != nil {
			return nil, err
		}
		for _, ip := range ips {
			if why := bundle.ClaudeHTTPRefusedAddr(ip, false); why != "" {
				return nil, fmt.Errorf("http hook blocked: %s resolves to %s, a %s address, which Claude Code does not post an http hook's event to", host, ip.WithZone(""), why)
			}
		}
		err = fmt.Errorf("lookup %s: no address", host)
		for _, ip := range ips {
			var c net.Conn
			if c, err = d.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port)); err == nil {
				return c, nil
			}
		}
		return nil, err
	}
	return t
})

// testOnlyLookupHookHost resolves an http hook's host name; tests answer
// for names no resolver knows offline.
var testOnlyLookupHookHost = func(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// httpAnswerNotJSON is the failure Claude Code (2.1.332) reports for an
// http hook's 2xx body, or "" for a body it reads: after JavaScript's
// trim, a blank body is an empty answer, and any other must be a JSON
// object ("ok", HTML, "{not json" and "[1]" all fail the hook).
func httpAnswerNotJSON(body []byte) string {
	b := jsTrim(body)
	if len(b) == 0 || b[0] == '{' && json.Valid(b) {
		return ""
	}
	shown := string(b)
	if r := []rune(shown); len(r) > 200 {
		shown = string(r[:200]) + "…"
	}
	return "http hook answered with a body that is not a JSON object, so the hook failed: " + bundle.Sanitize(shown)
}

// headerValue is an http hook's header value as Claude Code sends it:
// each $NAME or ${NAME} (NAME of [A-Z_][A-Z0-9_]*, the longest such)
// becomes the host variable's value when NAME is in allowed, and nothing
// otherwise; then CR, LF and NUL are removed, so a value stays one
// header. Nothing else in a header value expands.
func headerValue(v string, allowed []string, vars map[string]string) string {
	var out strings.Builder
	for i := 0; i < len(v); {
		name, n := headerVar(v[i:])
		if n == 0 {
			if c := v[i]; c != '\r' && c != '\n' && c != 0 {
				out.WriteByte(c)
			}
			i++
			continue
		}
		if slices.Contains(allowed, name) {
			out.WriteString(strings.Map(func(r rune) rune {
				if r == '\r' || r == '\n' || r == 0 {
					return -1
				}
				return r
			}, vars[name]))
		}
		i += n
	}
	return out.String()
}

// headerVar reads a $NAME or ${NAME} reference at the start of s: the name
// and the length of the reference, or 0 when there is none.
func headerVar(s string) (string, int) {
	if len(s) < 2 || s[0] != '$' {
		return "", 0
	}
	word := func(s string) int {
		n := 0
		for n < len(s) && (s[n] == '_' || s[n] >= 'A' && s[n] <= 'Z' || n > 0 && s[n] >= '0' && s[n] <= '9') {
			n++
		}
		return n
	}
	if s[1] == '{' {
		if n := word(s[2:]); n > 0 && 2+n < len(s) && s[2+n] == '}' {
			return s[2 : 2+n], n + 3
		}
		return "", 0
	}
	if n := word(s[1:]); n > 0 {
		return s[1 : 1+n], n + 1
	}
	return "", 0
}

// BlockError is returned by a RunnableHook's Verify when the hook cannot
// run and the event must therefore be blocked (a guard never fails open).
type BlockError struct {
	Reason string
	Fix    string
}

func (e *BlockError) Error() string { return e.Reason }
func (e *BlockError) Hint() string  { return e.Fix }

// HookWaitsPastLimit reports whether h's host would wait for it longer
// than bundlectl's MaxTimeout: its reader kept the host's timeout as
// written in Other["timeout"] and gave h MaxTimeout (bundle hookTimeout).
func HookWaitsPastLimit(h inventory.Hook) bool {
	_, ok := h.Other["timeout"]
	return ok && len(h.Hosts) > 0
}

// pastLimitReason is the reason a guard that ran into bundlectl's limit
// blocks its event.
func pastLimitReason(bundleName, hookID string, limit time.Duration) string {
	return pastLimitText(bundleName, hookID, limit) + ", so the event is blocked"
}

// pastLimitText says that a guard ran into bundlectl's limit, for the
// caller to say what it did about it.
func pastLimitText(bundleName, hookID string, limit time.Duration) string {
	return fmt.Sprintf("bundlectl: bundle %s hook %s was still running after %s, bundlectl's limit, where its host would still wait for its answer (its timeout is longer)", bundle.Quote(bundleName), hookID, limit)
}

// testOnlyLimit, when set, replaces MaxTimeout for a hook whose host waits
// longer (HookWaitsPastLimit), so a test need not wait 600 s.
var testOnlyLimit time.Duration

// errSkip is returned by Verify for a hook that must not run and needs no
// report (it is switched off).
var errSkip = errors.New("switched off")

// ExecHook runs exactly one hook — hookID of the active bundle named
// bundleName — with stdin as its input, as a host's hook configuration
// would run the original: the caller passes the result through. It
// re-checks the bundle first; a hook switched off returns an empty,
// successful result. A check that fails is an error, and for an event a
// hook can block the caller must block (a guard never fails open).
func (r *Registry) ExecHook(ctx context.Context, bundleName, hookID string, stdin []byte) (*Result, error) {
	for _, e := range r.entries {
		if e.name != bundleName {
			continue
		}
		for i, h := range e.hooks {
			if h.ID != hookID {
				continue
			}
			if h.Type != bundle.HookCommand && h.Type != bundle.HookHTTP {
				return nil, fmt.Errorf("hook %s of bundle %s is a %s hook, which the host evaluates itself", hookID, bundle.Quote(bundleName), h.Type)
			}
			if why, ok := r.claudeRefuses(e, h); ok {
				// Claude Code would not run it: a non-blocking error
				// there (the event goes ahead), and here.
				return &Result{ExitCode: 1, Stderr: []byte(fmt.Sprintf("bundlectl: bundle %s hook %s did not run: %s\n", bundle.Quote(e.name), h.ID, why))}, nil
			}
			event := r.hostEvent(h)
			rh := r.runnable(e, i, h, event)
			if err := rh.Verify(ctx); err != nil {
				if errors.Is(err, errSkip) {
					return &Result{}, nil
				}
				if fe, ok := err.(*fixedError); ok {
					err = fe.err // the caller prints the hint itself
				}
				return nil, err
			}
			depth, err := hookDepth()
			if err != nil || depth >= MaxHookChain {
				return nil, &ChainError{Depth: depth, Problem: fmt.Sprintf("hooks are nested too deep (%s), the limit is %d", HookDepthEnv, MaxHookChain)}
			}
			spec := rh.Spec
			spec.Stdin = stdin
			spec.Env = withEnv(spec.Env, HookDepthEnv+"="+fmt.Sprint(depth+1))
			res, err := rh.Run(ctx, spec)
			if err == nil && res.TimedOut && rh.pastLimit && (StopsOnFailedGuardIn(r.opts.Host, event) || WithholdsTools(event)) {
				// The host would still be waiting for the guard's answer,
				// and no exit status holds there (Gemini CLI's AfterModel
				// and BeforeToolSelection; Codex's PreCompact, where exit
				// 2 is a failed hook and Codex compacts): the caller
				// stops the agent or offers no tools, as for a guard
				// that cannot start.
				return nil, errors.New(pastLimitText(e.name, h.ID, res.Timeout))
			}
			if err == nil && res.TimedOut && rh.pastLimit && bundle.BlockingEvent(event) {
				// The host would still be waiting for the guard's
				// answer: exit 2 blocks there, as the chain blocks.
				return &Result{ExitCode: 2, Stderr: []byte(pastLimitReason(e.name, h.ID, res.Timeout) + "\n"), Timeout: res.Timeout}, nil
			}
			return res, err
		}
		return nil, &UnknownError{What: "hook", Name: bundleName + " " + hookID}
	}
	return nil, r.Loaded(bundleName)
}

// hostEvent is the name r's host fires h's event under: under Gemini CLI
// bundlectl's own hooks (Claude Code's names) fire for its event of the
// same meaning (bundle.GeminiEvents), as FireEvent and the Gemini view
// fire them.
func (r *Registry) hostEvent(h inventory.Hook) string {
	if r.opts.Host == bundle.HostGemini && len(h.Hosts) == 0 {
		if g, ok := bundle.GeminiEvents[h.Event]; ok {
			return g
		}
	}
	return h.Event
}

// exit2FailsIn names the host that takes a hook's exit status 2 on event
// as a failed hook rather than a block, or is "" when exit 2 blocks there
// (or the host reads it otherwise). Codex 0.171 and Claude Code 2.1.332
// each run an event's other hooks and use their answers when one exits 2
// on an event they let no hook block (internal/agenttest
// TestCodexNonBlockingExit2, TestClaudeNonBlockingExit2); bundlectl's own
// contract is Claude Code's. Gemini CLI's answers are read by
// geminiExitAnswer on its own events and by geminiSharedAnswer on those
// where it lets no hook block (geminiSharedEvent).
func exit2FailsIn(host bundle.Host, event string) string {
	if bundle.Exit2Blocks(host, event) {
		return ""
	}
	switch host {
	case bundle.HostCodex:
		return "Codex"
	case bundle.HostClaude:
		return "Claude Code"
	case "":
		return "bundlectl's hook contract (Claude Code's)"
	}
	return ""
}

// geminiSharedEvent reports whether event is one Gemini CLI 0.61 fires
// and lets no hook block nor stop, using at most SessionStart's context
// and systemMessage: the events whose names it shares with Claude Code
// (SessionStart, SessionEnd, Notification) and PreCompress. Under --host
// gemini their hooks' answers are read as Gemini CLI reads them
// (geminiSharedAnswer, Outcome.addGeminiShared).
func geminiSharedEvent(event string) bool {
	switch event {
	case "SessionStart", "SessionEnd", "Notification", "PreCompress":
		return true
	}
	return false
}
