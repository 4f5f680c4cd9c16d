package main

import (
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/inventory"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/spf13/cobra"
)

// Shell completion of the names commands take: bundles (from the roots,
// without reading them), and a bundle's tools, MCP and LSP servers and
// hook ids (from its receipt), and hook event names.

type completer func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective)

// completeBundleNames completes the first argument with the names of the
// bundles in the roots.
func (g *globals) completeBundleNames() completer {
	return func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return g.bundleNames(toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

func (g *globals) bundleNames(prefix string) []string {
	roots, err := g.roots()
	if err != nil {
		return nil
	}
	cands, _ := bundle.ListCandidates(roots)
	var out []string
	for _, c := range cands {
		if c.ShadowedBy == "" && strings.HasPrefix(c.Name, prefix) {
			out = append(out, c.Name)
		}
	}
	return out
}

// completeComponent completes a bundle name, then one of its reviewed
// components of the given kind ("tool", "mcp", "lsp", "hook").
func (g *globals) completeComponent(kind string) completer {
	return func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		switch len(args) {
		case 0:
			return g.bundleNames(toComplete), cobra.ShellCompDirectiveNoFileComp
		case 1:
			return g.componentNames(args[0], kind, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// componentNames reads the named bundle's receipt inventory.
func (g *globals) componentNames(name, kind, prefix string) []string {
	inv := g.receiptInventory(name)
	if inv == nil {
		return nil
	}
	var names []string
	switch kind {
	case "tool":
		for _, t := range inv.Tools {
			names = append(names, t.Name)
		}
	case "mcp":
		for _, s := range inv.MCPServers {
			if !s.Remote() { // bundlectl mcp runs stdio servers only
				names = append(names, s.Name)
			}
		}
	case "lsp":
		for _, s := range inv.LSPServers {
			names = append(names, s.Name)
		}
	case "hook":
		for _, h := range inv.Hooks {
			names = append(names, h.ID+"\t"+h.Event+" "+h.Matcher)
		}
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

func (g *globals) receiptInventory(name string) *inventory.Inventory {
	roots, err := g.roots()
	if err != nil {
		return nil
	}
	m := lifecycle.New(roots, bundle.Limits{})
	s, err := m.LoadState()
	if err != nil {
		return nil
	}
	cands, _ := bundle.ListCandidates(roots)
	for _, c := range cands {
		if c.Name != name || c.ShadowedBy != "" {
			continue
		}
		rec, _ := s.Bundle(c.ID)
		if rec.Receipt == nil {
			return nil
		}
		inv, err := lifecycle.ReceiptInventory(rec.Receipt)
		if err != nil {
			return nil
		}
		return inv
	}
	return nil
}

// completeEvents completes hook event names.
func completeEvents(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, e := range bundle.AllHookEvents() {
		if strings.HasPrefix(e, toComplete) {
			out = append(out, e)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
