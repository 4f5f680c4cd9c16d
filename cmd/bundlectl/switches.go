package main

import (
	"fmt"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/state"
	"github.com/spf13/cobra"
)

const switchHelp = `

With --hook ID, --mcp SERVER, --lsp SERVER or --tool TOOL (each
repeatable), disable switches off just those components of the bundle and
enable switches them back on, without touching its trust or its enabled
bit. A switch only ever removes authority: a switched-off hook is skipped,
a switched-off server or tool is refused. A hook is named by the id review
and show print; a component must be in the bundle's reviewed inventory.`

// switchFlags are the per-component flags of enable and disable.
type switchFlags struct {
	hook, mcp, lsp, tool []string
}

func (s *switchFlags) register(g *globals, c *cobra.Command, verb string) {
	f := c.Flags()
	f.StringArrayVar(&s.hook, "hook", nil, verb+" one hook, by its id (repeatable)")
	f.StringArrayVar(&s.mcp, "mcp", nil, verb+" one MCP server (repeatable)")
	f.StringArrayVar(&s.lsp, "lsp", nil, verb+" one LSP server (repeatable)")
	f.StringArrayVar(&s.tool, "tool", nil, verb+" one tool (repeatable)")
	for _, kind := range []string{"hook", "mcp", "lsp", "tool"} {
		c.RegisterFlagCompletionFunc(kind, func(c *cobra.Command, a []string, prefix string) ([]string, cobra.ShellCompDirective) {
			if len(a) == 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return g.componentNames(a[0], kind, prefix), cobra.ShellCompDirectiveNoFileComp
		})
	}
}

func (s *switchFlags) any() bool { return len(s.hook)+len(s.mcp)+len(s.lsp)+len(s.tool) > 0 }

func (s *switchFlags) list() []state.Switch {
	var out []state.Switch
	for _, kv := range []struct {
		kind  string
		names []string
	}{{"hook", s.hook}, {"mcp", s.mcp}, {"lsp", s.lsp}, {"tool", s.tool}} {
		for _, n := range kv.names {
			out = append(out, state.Switch{Kind: kv.kind, Name: n})
		}
	}
	return out
}

// switchOutput is `enable/disable --hook … --json`.
type switchOutput struct {
	Name     string         `json:"name"`
	Action   string         `json:"action"`
	Switches []switchResult `json:"switches"`
}

type switchResult struct {
	Kind      string `json:"kind"`
	Component string `json:"component"`
	Off       bool   `json:"off"`
	Changed   bool   `json:"changed"`
}

func runSwitches(g *globals, name string, sw switchFlags, off bool) error {
	m, err := g.manager()
	if err != nil {
		return err
	}
	res, err := m.SetSwitches(name, sw.list(), off)
	if err != nil {
		return err
	}
	action := "switch on"
	if off {
		action = "switch off"
	}
	if g.json {
		out := switchOutput{Name: name, Action: action, Switches: []switchResult{}}
		for _, r := range res {
			out.Switches = append(out.Switches, switchResult{Kind: r.Kind, Component: r.Name, Off: r.Off, Changed: r.Changed})
		}
		return writeJSON(g.stdout, out)
	}
	for _, r := range res {
		what := r.Kind
		if r.Kind == "mcp" || r.Kind == "lsp" {
			what += " server"
		}
		state := "on"
		if r.Off {
			state = "off"
		}
		if r.Changed {
			fmt.Fprintf(g.stdout, "switched %s %s %s of %s\n", state, what, bundle.Quote(r.Name), bundle.Quote(name))
		} else {
			fmt.Fprintf(g.stdout, "%s %s of %s was already %s; nothing changed\n", what, bundle.Quote(r.Name), bundle.Quote(name), state)
		}
	}
	return nil
}
