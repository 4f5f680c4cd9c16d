package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/inventory"
)

// expanderFor returns the expander of one component of e.
func (r *Registry) expanderFor(e *entry, hosts, vars []string) expander {
	hv := hostVars(r.opts.Environ, vars)
	for k, v := range e.settings {
		if !DeniedEnvName(k) { // as EnvSpec.Build drops it from the environment
			hv[k] = v // ${STORAGE_KEY} is the configured setting, as in Gemini CLI
		}
	}
	return expander{
		root: e.snapshot, data: e.data, workspace: r.opts.Workspace,
		host: len(hosts) > 0, vars: hv, options: e.options,
	}
}

// envFor builds a child's environment for one component of e.
func (r *Registry) envFor(e *entry, hosts, vars []string, reviewed, envFrom map[string]string) []string {
	return EnvSpec{
		Host: r.opts.Environ, Reviewed: reviewed, EnvFrom: envFrom, Vars: vars,
		PluginRoot: e.snapshot, PluginData: e.data,
		HostPlugin: len(hosts) > 0, ProjectDir: r.opts.Workspace, Options: e.options, Settings: e.settings,
	}.Build()
}

// resolve turns a reviewed command into an absolute path: a file of the
// bundle inside the snapshot, an absolute path as is, a bare name on the
// child's PATH.
func (r *Registry) resolve(e *entry, command string, env []string) (string, error) {
	if rel, ok := bundle.CommandInBundle(command); ok {
		return filepath.Join(e.snapshot, filepath.FromSlash(rel)), nil
	}
	if filepath.IsAbs(command) {
		return command, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	return LookPath(command, path)
}

func (r *Registry) timeout(sec int, def time.Duration) time.Duration {
	if sec > 0 {
		return time.Duration(sec) * time.Second
	}
	return def
}

// CallTool runs the tool exposed as name (plugin__<bundle>__<tool>) with
// input as JSON on stdin. The input is validated against the tool's params
// schema and the bundle's authority and snapshot re-checked before
// anything is spawned; the child runs from the snapshot, in the workspace,
// contained, and is cancelled if the bundle loses its authority while it
// runs. A tool that ran returns its Result even when it failed.
func (r *Registry) CallTool(ctx context.Context, name string, input []byte) (*Result, error) {
	t, ok := r.tools[name]
	if !ok {
		ue := &UnknownError{What: "tool", Name: name}
		if rest, ok := strings.CutPrefix(name, "plugin__"); ok {
			ue.Bundle, ue.Short, _ = strings.Cut(rest, "__")
			for _, ref := range r.tools {
				if ref.e.name == ue.Bundle {
					ue.Known = append(ue.Known, ref.tool.Name)
				}
			}
			slices.Sort(ue.Known)
		}
		return nil, ue
	}
	sch, err := CompileParams(t.tool.Params)
	if err != nil {
		return nil, err
	}
	if err := ValidateInput(sch, input); err != nil {
		return nil, fmt.Errorf("tool %s: %w: %w", bundle.Quote(name), ErrInput, err)
	}
	e := t.e
	if err := r.use(e, "tool", t.tool.Name); err != nil {
		return nil, err
	}
	x := r.expanderFor(e, nil, nil)
	env := r.envFor(e, nil, nil, nil, nil)
	argv0, err := r.resolve(e, t.tool.Command, env)
	if err != nil {
		return nil, err
	}
	spec := Spec{
		Argv:      append([]string{argv0}, expandAll(x, t.tool.Args)...),
		Dir:       r.opts.Workspace,
		Env:       env,
		Stdin:     input,
		Timeout:   r.timeout(t.tool.TimeoutSec, orDefault(r.opts.ToolTimeout, DefaultToolTimeout)),
		MaxOutput: r.opts.MaxOutput,
	}
	r.opts.Logger.Info("spawn tool", "tool", name, "argv0", argv0)
	return r.supervise(ctx, e, "tool", t.tool.Name, func(ctx context.Context) (*Result, error) { return Run(ctx, spec) })
}

func expandAll(x expander, args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = x.arg(a)
	}
	return out
}

// processSpec freezes a stdio server's launch: argv and cwd in the
// snapshot or the data directory, environment from nothing plus reviewed
// entries and the host variables the review listed.
func (r *Registry) processSpec(e *entry, name, command string, args []string, env map[string]string, envFrom map[string]string, cwd string, hosts, vars []string) (Spec, error) {
	x := r.expanderFor(e, hosts, vars)
	expanded := map[string]string{}
	for k, v := range env {
		expanded[k] = x.arg(v)
	}
	childEnv := r.envFor(e, hosts, vars, expanded, envFrom)
	argv0, err := r.resolve(e, command, childEnv)
	if err != nil {
		return Spec{}, err
	}
	dir := e.snapshot
	if cwd != "" {
		c := cwd
		if rel, ok := strings.CutPrefix(c, "./"); ok {
			c = filepath.Join(e.snapshot, filepath.FromSlash(rel))
		} else {
			c = filepath.Clean(x.arg(c))
		}
		if !within(c, e.snapshot) && !within(c, e.data) {
			return Spec{}, fmt.Errorf("server %s: cwd resolves outside the plugin root and data directory", bundle.Quote(name))
		}
		if within(c, e.data) {
			if err := os.MkdirAll(c, 0o700); err != nil {
				return Spec{}, err
			}
		}
		dir = c
	}
	return Spec{Argv: append([]string{argv0}, expandAll(x, args)...), Dir: dir, Env: childEnv, MaxOutput: r.opts.MaxOutput}, nil
}

func (r *Registry) serverSpec(s *serverRef) (Spec, error) {
	v := s.srv
	return r.processSpec(s.e, v.Name, v.Command, v.Args, v.Env, v.EnvFrom, v.Cwd, v.Hosts, v.HostVariables)
}

func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

// ToolFilterOf is the reviewed tool filter of an MCP server.
func ToolFilterOf(s inventory.MCPServer) ToolFilter {
	return ToolFilter{Include: s.ToolsInclude, Exclude: s.ToolsExclude}
}

// ServeMCP runs the stdio MCP server exposed as name with stdin, stdout and
// stderr passed through the tool filter the review promised, and each
// tool call the server does not answer within its reviewed per-call
// timeout (MCPCallTimeoutOf) answered by the proxy with an error and
// cancelled at the server, after the
// authority and integrity check, until it exits or ctx ends; it is killed
// with every descendant if the bundle loses its authority meanwhile.
//
// Like Exec, it relays SIGINT, SIGTERM, SIGHUP and SIGQUIT (ForwardedSignals)
// that reach this process to the server while it runs, and those signals
// do not end this process meanwhile: an embedding program that must stop
// on them cancels ctx from its own handler.
func (r *Registry) ServeMCP(ctx context.Context, name string, stdio Stdio) (*Result, error) {
	s, ok := r.servers[name]
	if !ok {
		return nil, r.unknownServer("mcp", name)
	}
	if s.srv.Remote() {
		return nil, &RemoteServerError{Name: name, URL: s.srv.URL}
	}
	if err := r.use(s.e, "mcp", s.srv.Name); err != nil {
		return nil, err
	}
	spec, err := r.serverSpec(s)
	if err != nil {
		return nil, err
	}
	pol := MCPPolicyOf(s.srv)
	who := "bundle " + bundle.Quote(s.e.name) + " MCP server " + bundle.Quote(s.srv.Name)
	return r.supervise(ctx, s.e, "mcp", s.srv.Name, func(ctx context.Context) (*Result, error) {
		return execFiltered(ctx, spec, stdio, pol, who)
	})
}

// unknownServer is the error for a server name of kind ("mcp" or "lsp")
// the registry does not hold, naming it as the user wrote it, with the
// servers of that kind its bundle does have, and the command for a server
// of the other kind that has the name.
func (r *Registry) unknownServer(kind, name string) *UnknownError {
	type ref struct{ bundle, server string }
	refs := map[string]map[string]ref{"mcp": {}, "lsp": {}}
	for n, s := range r.servers {
		refs["mcp"][n] = ref{s.e.name, s.srv.Name}
	}
	for n, l := range r.lsps {
		refs["lsp"][n] = ref{l.e.name, l.srv.Name}
	}
	ue := &UnknownError{What: kind + " server", Name: name}
	if b, short, ok := splitServerName(name); ok {
		ue.Bundle, ue.Short = b, short
		for _, x := range refs[kind] {
			if x.bundle == b {
				ue.Known = append(ue.Known, x.server)
			}
		}
		slices.Sort(ue.Known)
	}
	other := map[string]string{"mcp": "lsp", "lsp": "mcp"}[kind]
	if x, ok := refs[other][name]; ok {
		ue.Instead = "bundlectl " + other + " " + bundle.Operands(x.bundle, x.server)
	}
	return ue
}

// ServeLSP runs the language server exposed as name like ServeMCP (signals
// included), with stdio passed straight through.
func (r *Registry) ServeLSP(ctx context.Context, name string, stdio Stdio) (*Result, error) {
	l, ok := r.lsps[name]
	if !ok {
		return nil, r.unknownServer("lsp", name)
	}
	if err := r.use(l.e, "lsp", l.srv.Name); err != nil {
		return nil, err
	}
	v := l.srv
	spec, err := r.processSpec(l.e, v.Name, v.Command, v.Args, v.Env, nil, "", v.Hosts, v.HostVariables)
	if err != nil {
		return nil, err
	}
	return r.supervise(ctx, l.e, "lsp", l.srv.Name, func(ctx context.Context) (*Result, error) { return Exec(ctx, spec, stdio) })
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// splitServerName reads ServerName's plugin-<len>-<bundle>-<server> back.
func splitServerName(name string) (bundleName, server string, ok bool) {
	rest, ok := strings.CutPrefix(name, "plugin-")
	if !ok {
		return "", "", false
	}
	digits, rest, ok := strings.Cut(rest, "-")
	n, err := strconv.Atoi(digits)
	if !ok || err != nil || n < 0 || n >= len(rest) || rest[n] != '-' {
		return "", "", false
	}
	return rest[:n], rest[n+1:], true
}
