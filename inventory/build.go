package inventory

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
)

// Of builds the inventory of a loaded, valid bundle model. Named
// components are sorted by name (then path), hooks keep manifest order
// (their precedence), argv keeps its order, and sets are sorted.
func Of(b *bundle.Bundle) *Inventory {
	c := b.Components
	inv := &Inventory{Schema: Schema, Name: b.Name}
	for _, f := range b.Formats {
		inv.Formats = append(inv.Formats, string(f))
	}
	for _, s := range sortedBy(c.Skills, func(s bundle.Skill) string { return s.Name + "\x00" + s.Path }) {
		inv.Skills = append(inv.Skills, Doc{Name: s.Name, Path: s.Path, Hosts: hosts(s.Hosts), Grants: grants(s.Grants), ShellLines: s.ShellLines})
	}
	docs := func(ds []bundle.Document) []Doc {
		var out []Doc
		for _, d := range sortedBy(ds, func(d bundle.Document) string { return d.Name + "\x00" + d.Path }) {
			out = append(out, Doc{Name: d.Name, Path: d.Path, Hosts: hosts(d.Hosts), Grants: grants(d.Grants), ShellLines: d.ShellLines})
		}
		return out
	}
	inv.Commands, inv.Agents, inv.OutputStyles, inv.Contexts = docs(c.Commands), docs(c.Agents), docs(c.OutputStyles), docs(c.Contexts)
	for _, t := range sortedBy(c.Tools, func(t bundle.Tool) string { return t.Name }) {
		inv.Tools = append(inv.Tools, Tool{Name: t.Name, Description: t.Description, Command: t.Command, Args: t.Args, Params: t.Params, TimeoutSec: t.TimeoutSec})
	}
	for _, h := range c.Hooks {
		typ := h.Type
		if typ == "" {
			typ = bundle.HookCommand
		}
		ih := Hook{
			Event: h.Event, Matcher: h.Matcher, Type: typ, Command: h.Command, Args: h.Args, Shell: h.Shell,
			URL: h.URL, Headers: h.Headers, AllowedEnvVars: set(h.AllowedEnvVars), Prompt: h.Prompt, Model: h.Model, Env: h.Env,
			TimeoutSec: h.TimeoutSec, Async: h.Async, Other: h.Other, Scope: h.Scope, Hosts: hosts(h.Hosts),
			HostVariables: hookVars(h),
		}
		ih.ID = HookID(ih)
		inv.Hooks = append(inv.Hooks, ih)
	}
	for _, s := range sortedBy(c.MCP, func(s bundle.MCPServer) string { return s.Name + "\x00" + strings.Join(hosts(s.Hosts), ",") }) {
		inv.MCPServers = append(inv.MCPServers, MCPServer{
			Name: s.Name, Transport: s.Transport, Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd,
			URL: s.URL, Headers: s.Headers, EnvFrom: s.EnvFrom, BearerTokenEnvVar: s.BearerTokenEnvVar,
			EnvHeaders: s.EnvHeaders, ToolsInclude: set(s.ToolsInclude), ToolsExclude: set(s.ToolsExclude),
			TimeoutSec: s.TimeoutSec, Trust: s.Trust, Other: s.Other, Hosts: hosts(s.Hosts),
			HostVariables: serverVars(s),
		})
	}
	for _, l := range sortedBy(c.LSP, func(l bundle.LSPServer) string { return l.Name + "\x00" + strings.Join(hosts(l.Hosts), ",") }) {
		inv.LSPServers = append(inv.LSPServers, LSPServer{
			Name: l.Name, Command: l.Command, Args: l.Args, Env: l.Env, Transport: l.Transport, Languages: l.Languages,
			Other: l.Other, Hosts: hosts(l.Hosts), HostVariables: argvVars(l.Hosts, l.Command, l.Args, l.Env),
		})
	}
	for _, m := range sortedBy(c.Monitors, func(m bundle.Monitor) string { return m.Name }) {
		inv.Monitors = append(inv.Monitors, Monitor{Name: m.Name, Command: m.Command, Other: m.Other, Hosts: hosts(m.Hosts), HostVariables: bundle.HostVarRefs(m.Command, true)})
	}
	for _, a := range sortedBy(c.Apps, func(a bundle.App) string { return a.Name }) {
		inv.Apps = append(inv.Apps, App{Name: a.Name, Spec: a.Spec, Hosts: hosts(a.Hosts)})
	}
	for _, p := range sortedBy(c.Policies, func(p bundle.Policy) string { return p.Path }) {
		inv.Policies = append(inv.Policies, Policy{Path: p.Path, Rules: p.Rules, Hosts: hosts(p.Hosts)})
	}
	for _, o := range sortedBy(b.UserConfig, func(o bundle.UserOption) string { return o.Key }) {
		inv.UserConfig = append(inv.UserConfig, UserOption{Key: o.Key, Type: o.Type, Sensitive: o.Sensitive, Required: o.Required, Default: o.Default, Min: o.Min, Max: o.Max, Multiple: o.Multiple, Options: o.Choices, EnvVar: o.EnvVar, Hosts: hosts(o.Hosts)})
	}
	inv.ExcludeTools = set(b.ExcludeTools)
	inv.Executables = set(b.Executables)
	inv.HostVariables = set(b.HostVars)
	if len(b.ManifestOther) > 0 {
		inv.Manifest = map[string]json.RawMessage{}
		for k, v := range b.ManifestOther {
			inv.Manifest[k] = v
		}
	}
	var hostsLower []string
	for _, h := range b.Permissions.NetworkHosts {
		hostsLower = append(hostsLower, strings.ToLower(h))
	}
	inv.Permissions = Permissions{
		NetworkHosts: set(hostsLower), NetworkDeclared: b.Permissions.NetworkDeclared,
		FilesystemRoots: set(b.Permissions.FilesystemRoots), LifecycleMutation: b.Permissions.LifecycleMutation,
	}
	inv.When = When{OS: set(b.When.OS), Binaries: set(b.When.Binaries)}
	for _, d := range sortedBy(b.Inactive, func(d bundle.Inactive) string { return d.Surface + "\x00" + d.Name }) {
		inv.Inactive = append(inv.Inactive, Inactive{Surface: d.Surface, Name: d.Name, Spec: d.Spec})
	}
	return inv
}

func hosts(hs []bundle.Host) []string {
	var out []string
	for _, h := range hs {
		out = append(out, string(h))
	}
	return set(out)
}

func grants(g bundle.Grants) Grants {
	return Grants{
		AllowedTools: g.AllowedTools, DisallowedTools: g.DisallowedTools, Tools: g.Tools, NoTools: g.NoTools, Model: g.Model,
		PermissionMode: g.PermissionMode, Skills: g.Skills, MCPServers: g.MCPServers, Other: g.Other,
		Ignored: g.Ignored,
	}
}

// textVars is the host variables a string of a component reads: only a
// host format's strings read any (docs/harness.md); in bundlectl's own
// formats "${X}" is literal text, and what a component reads from the host
// is named by env_from, env_headers, bearer_token_env_var and
// allowedEnvVars alone.
func textVars(hosts []bundle.Host, s string, shell bool) []string {
	if len(hosts) == 0 {
		return nil
	}
	return bundle.HostVarRefs(s, shell)
}

func hookVars(h bundle.Hook) []string {
	if len(h.Hosts) == 0 {
		return set(h.AllowedEnvVars)
	}
	vs := bundle.HostVarRefs(h.Command, h.Shell)
	for _, a := range h.Args {
		vs = append(vs, bundle.HostVarRefs(a, false)...)
	}
	// No host expands a variable in an http hook's url (Claude Code
	// 2.1.332 sends it as written; bundle reports hook.url): it reads
	// nothing of the host.
	for _, v := range h.Headers {
		vs = append(vs, bundle.HostVarRefs(v, false)...)
	}
	vs = append(vs, h.AllowedEnvVars...)
	for _, v := range h.Env {
		vs = append(vs, bundle.HostVarRefs(v, false)...)
	}
	return set(vs)
}

func argvVars(hosts []bundle.Host, cmd string, args []string, env map[string]string) []string {
	vs := textVars(hosts, cmd, false)
	for _, a := range args {
		vs = append(vs, textVars(hosts, a, false)...)
	}
	for _, v := range env {
		vs = append(vs, textVars(hosts, v, false)...)
	}
	return set(vs)
}

func serverVars(s bundle.MCPServer) []string {
	// Gemini CLI also expands a bare $VAR in every string of its manifest.
	// (any case, as bundle.GeminiVarRefs reads it).
	refs := func(s bundle.MCPServer, text string) []string { return textVars(s.Hosts, text, false) }
	if slices.Contains(s.Hosts, bundle.HostGemini) {
		refs = func(_ bundle.MCPServer, text string) []string { return bundle.GeminiVarRefs(text) }
	}
	vs := refs(s, s.Command)
	for _, a := range s.Args {
		vs = append(vs, refs(s, a)...)
	}
	for _, v := range s.Env {
		vs = append(vs, refs(s, v)...)
	}
	vs = append(vs, refs(s, s.Cwd)...)
	if !bundle.CodexSendsAsWritten(s) {
		vs = append(vs, refs(s, s.URL)...)
		for _, v := range s.Headers {
			vs = append(vs, refs(s, v)...)
		}
	}
	for _, v := range s.EnvFrom {
		vs = append(vs, v)
	}
	for _, v := range s.EnvHeaders {
		vs = append(vs, v)
	}
	if s.BearerTokenEnvVar != "" {
		vs = append(vs, s.BearerTokenEnvVar)
	}
	return set(vs)
}
