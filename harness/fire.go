package harness

import (
	"context"
)

// Hooks lists the loaded hooks for event in precedence order (roots first,
// then manifest order within a bundle). Event "" lists every hook.
func (r *Registry) Hooks(event string) []HookInfo {
	var out []HookInfo
	for _, e := range r.entries {
		for _, h := range e.b.Components.Hooks {
			if event == "" || h.Event == event {
				out = append(out, HookInfo{Bundle: e.b.Name, Event: h.Event, Matcher: h.Matcher, Argv: append([]string{h.Command}, r.expand(e, h.Args)...)})
			}
		}
	}
	return out
}

// FireHooks fires every loaded hook for event whose matcher matches, in
// precedence order, serially, stopping at the first block. input is the
// Claude Code hook input object; its hook_event_name is replaced by event.
// Each hook's bundle is re-checked immediately before its spawn: a hook of
// a bundle that lost its authority does not run and is reported in
// Outcome.Errors.
func (r *Registry) FireHooks(ctx context.Context, event string, input []byte) (Outcome, error) {
	ev, err := ParseHookEvent(input, event)
	if err != nil {
		// Fail closed: an event bundlectl cannot pass on blocks, loudly,
		// rather than letting the action proceed unguarded.
		o := NewOutcome(event)
		o.Blocked, o.Reason = true, "bundlectl: "+err.Error()
		return o, err
	}
	var chain []RunnableHook
	for _, e := range r.entries {
		for i, h := range e.b.Components.Hooks {
			if h.Event != event {
				continue
			}
			e := e
			env := BuildEnv(r.opts.Environ, nil, nil, e.snapshot, e.data)
			argv0, rerr := r.resolve(e, h.Command, env)
			chain = append(chain, RunnableHook{
				Bundle:  e.b.Name,
				Index:   i,
				Matcher: h.Matcher,
				Spec: Spec{
					Argv:      append([]string{argv0}, r.expand(e, h.Args)...),
					Dir:       r.opts.Workspace,
					Env:       env,
					Timeout:   r.timeout(h.TimeoutSec, orDefault(r.opts.HookTimeout, DefaultHookTimeout)),
					MaxOutput: r.opts.MaxOutput,
				},
				Verify: func(context.Context) error {
					if rerr != nil {
						return rerr
					}
					return r.authorize(e)
				},
			})
		}
	}
	return FireChain(ctx, chain, ev)
}
