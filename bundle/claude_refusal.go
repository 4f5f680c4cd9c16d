package bundle

import (
	"fmt"
	"slices"
	"strings"
)

// claudeRefusal is a finding that makes Claude Code refuse to load the
// whole plugin (a PreToolUse or PermissionRequest hook that fails its
// hooks schema), held until every reader has read: only then is it known
// whether another host loads the bundle.
type claudeRefusal struct {
	path, rule, why, event, fix string
}

// claudeRefuses records that Claude Code loads nothing of the plugin
// because of the hook field at path; settleClaudeRefusal decides what
// that means for the bundle.
func (b *Bundle) claudeRefuses(path, rule, why, event, fix string) {
	b.claudeRefused = append(b.claudeRefused, claudeRefusal{path, rule, why, event, fix})
}

// settleClaudeRefusal applies the refusals claudeRefuses recorded. Claude
// Code (2.1.332) then loads no skill, command, agent, server or hook of
// the plugin (internal/agenttest TestClaudeHookShellField,
// TestClaudeGuardHookFieldType), but Codex, which reads the same
// hooks/hooks.json and ignores "shell" (TestCodexHookShellIgnored), still
// loads it. So the refusal is Claude Code's alone: a bundle no other host
// reads is refused, as Claude Code refuses it; one another host reads is
// reviewed for those hosts only, each refusal a warning, and nothing of it
// is Claude Code's (neither hooks run --host claude nor exec -- claude
// runs any of it).
func settleClaudeRefusal(b *Bundle) {
	if len(b.claudeRefused) == 0 {
		return
	}
	others := hostsBesides(b, HostClaude)
	for _, f := range b.claudeRefused {
		if len(others) == 0 {
			b.Report.Errorf(f.path, f.rule, "%s: for a %s hook that fails its hooks schema Claude Code refuses to load the whole plugin (no skill, command, agent, server or hook of it), and no other host reads this bundle, so bundlectl refuses it; %s", f.why, f.event, f.fix)
			continue
		}
		b.Report.Warnf(f.path, f.rule, "%s: for a %s hook that fails its hooks schema Claude Code refuses to load the whole plugin (no skill, command, agent, server or hook of it); the bundle is reviewed for %s only, and neither bundlectl hooks run --host claude nor bundlectl exec runs any of it for Claude Code; %s for Claude Code to load it", f.why, f.event, hostList(others), f.fix)
	}
	if len(others) == 0 {
		b.claudeRefused = nil
		return
	}
	b.Notes = append(b.Notes, fmt.Sprintf("Claude Code refuses to load this plugin (%s: a %s hook fails its hooks schema); it is reviewed for %s only", b.claudeRefused[0].path, b.claudeRefused[0].event, hostList(others)))
	b.claudeRefused = nil
	dropHostFrom(b, HostClaude)
}

// hostsBesides returns the hosts other than h that read something of b,
// in the order of HostClaude, HostCodex, HostGemini; bundlectl's own
// formats count as "bundlectl".
func hostsBesides(b *Bundle, h Host) []Host {
	var seen []Host
	add := func(hosts []Host) {
		for _, x := range hosts {
			if x != h {
				seen = addHost(seen, x)
			}
		}
	}
	if b.codexFallback {
		seen = addHost(seen, HostCodex)
	}
	for _, f := range b.Formats {
		switch f {
		case FormatAgentPlugins, FormatTOML:
			seen = addHost(seen, "bundlectl")
		case FormatCodex:
			add([]Host{HostCodex})
		case FormatGemini:
			add([]Host{HostGemini})
		}
	}
	for _, l := range b.locs {
		add([]Host{l.host})
	}
	c := &b.Components
	for _, x := range c.Hooks {
		add(x.Hosts)
	}
	for _, x := range c.MCP {
		add(x.Hosts)
	}
	for _, x := range c.LSP {
		add(x.Hosts)
	}
	for _, x := range c.Monitors {
		add(x.Hosts)
	}
	for _, x := range c.Apps {
		add(x.Hosts)
	}
	for _, x := range c.Policies {
		add(x.Hosts)
	}
	slices.SortFunc(seen, func(a, b Host) int { return strings.Compare(string(a), string(b)) })
	return seen
}

func hostList(hosts []Host) string {
	var names []string
	for _, h := range hosts {
		names = append(names, HostTitle(h))
	}
	return strings.Join(names, " and ")
}

// dropHostFrom takes h out of every location and component of b: one
// that no other host reads is gone from the bundle.
func dropHostFrom(b *Bundle, h Host) {
	b.locs = slices.DeleteFunc(b.locs, func(l docLocation) bool { return l.host == h })
	c := &b.Components
	c.Skills = withoutHost(c.Skills, h, func(x *Skill) *[]Host { return &x.Hosts })
	c.Commands = withoutHost(c.Commands, h, func(x *Document) *[]Host { return &x.Hosts })
	c.Agents = withoutHost(c.Agents, h, func(x *Document) *[]Host { return &x.Hosts })
	c.OutputStyles = withoutHost(c.OutputStyles, h, func(x *Document) *[]Host { return &x.Hosts })
	c.Contexts = withoutHost(c.Contexts, h, func(x *Document) *[]Host { return &x.Hosts })
	c.Hooks = withoutHost(c.Hooks, h, func(x *Hook) *[]Host { return &x.Hosts })
	c.MCP = withoutHost(c.MCP, h, func(x *MCPServer) *[]Host { return &x.Hosts })
	c.LSP = withoutHost(c.LSP, h, func(x *LSPServer) *[]Host { return &x.Hosts })
	c.Monitors = withoutHost(c.Monitors, h, func(x *Monitor) *[]Host { return &x.Hosts })
	c.Apps = withoutHost(c.Apps, h, func(x *App) *[]Host { return &x.Hosts })
	c.Policies = withoutHost(c.Policies, h, func(x *Policy) *[]Host { return &x.Hosts })
	b.UserConfig = withoutHost(b.UserConfig, h, func(x *UserOption) *[]Host { return &x.Hosts })
}

// withoutHost removes h from each element's hosts and drops an element
// whose hosts it empties (nil hosts, bundlectl's own, stay).
func withoutHost[T any](list []T, h Host, hosts func(*T) *[]Host) []T {
	out := list[:0]
	for _, x := range list {
		hs := hosts(&x)
		if i := slices.Index(*hs, h); i >= 0 {
			if len(*hs) == 1 {
				continue
			}
			*hs = slices.Delete(slices.Clone(*hs), i, i+1)
		}
		out = append(out, x)
	}
	return out
}
