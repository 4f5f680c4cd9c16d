package main

import (
	"fmt"
	"io"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/spf13/cobra"
)

func newHooksCmd(g *globals) *cobra.Command {
	hooks := &cobra.Command{
		Use:   "hooks",
		Short: "fire bundle hooks for an existing harness",
		Args:  args(cobra.NoArgs),
	}
	run := &cobra.Command{
		Use:   "run <Event>",
		Short: "fire every matching active hook for one event read on stdin",
		Long: `Hooks run reads one Claude-Code-style hook input object on stdin, fires
every matching hook of every active bundle in precedence order (serially,
stopping at the first block; each bundle re-checked before its hook runs),
and writes the combined outcome in the same contract. One line in an
existing harness's hook configuration puts every reviewed hook behind its
receipt:

    {"type": "command", "command": "bundlectl hooks run PreToolUse"}

Events: ` + fmt.Sprint(bundle.HookEvents) + `.` + exitStatus(
			"0  proceed (stdout may carry a JSON outcome)",
			"1  bundlectl itself failed (reported, non-blocking, as the hook convention has it)",
			"2  block: stderr is the reason"),
		Args: args(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, a []string) error { return runHooks(g, a[0]) },
	}
	hooks.AddCommand(run)
	return hooks
}

func runHooks(g *globals, event string) error {
	input, err := io.ReadAll(io.LimitReader(g.stdin, harness.MaxHookEventBytes+1))
	if err != nil {
		return err
	}
	reg, err := g.registry()
	if err != nil {
		// A harness treats exit 1 as a non-blocking error shown to the user.
		return &codeError{code: exitFailure, err: err}
	}
	defer reg.Close()
	o, err := reg.FireHooks(cmdContext(), event, input)
	if err != nil && !o.Blocked {
		return &codeError{code: exitFailure, err: err}
	}
	code, werr := harness.WriteOutcome(g.stdout, g.stderr, o)
	if werr != nil {
		return werr
	}
	if code != 0 {
		return &quietError{code: code}
	}
	return nil
}
