package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
)

// CallTool runs the tool exposed as name (plugin__<bundle>__<tool>) with
// input as JSON on stdin. The input is validated against the tool's params
// schema and the bundle's authority re-checked before anything is spawned;
// the child runs from the snapshot, in the workspace, in its own process
// group, and is cancelled if the bundle loses its authority while it runs.
// A tool that ran returns its Result even when it failed.
func (r *Registry) CallTool(ctx context.Context, name string, input []byte) (*Result, error) {
	t, ok := r.tools[name]
	if !ok {
		return nil, &UnknownError{What: "tool", Name: name}
	}
	if err := ValidateInput(t.schema, input); err != nil {
		return nil, fmt.Errorf("tool %s: %w: %w", bundle.Quote(name), ErrInput, err)
	}
	e := t.e
	if err := r.authorize(e); err != nil {
		return nil, err
	}
	env := BuildEnv(r.opts.Environ, nil, nil, e.snapshot, e.data)
	argv0, err := r.resolve(e, t.tool.Command, env)
	if err != nil {
		return nil, err
	}
	spec := Spec{
		Argv:      append([]string{argv0}, r.expand(e, t.tool.Args)...),
		Dir:       r.opts.Workspace,
		Env:       env,
		Stdin:     input,
		Timeout:   r.timeout(t.tool.TimeoutSec, orDefault(r.opts.ToolTimeout, DefaultToolTimeout)),
		MaxOutput: r.opts.MaxOutput,
	}
	r.opts.Logger.Info("spawn tool", "tool", name, "argv0", argv0)
	return r.supervise(ctx, e, func(ctx context.Context) (*Result, error) { return Run(ctx, spec) })
}

// serverSpec freezes a stdio server's launch: argv and cwd in the snapshot
// or the data directory, environment from nothing plus reviewed entries.
func (r *Registry) serverSpec(s *serverRef) (Spec, error) {
	e := s.e
	env := map[string]string{}
	for k, v := range s.srv.Env {
		env[k] = bundle.ExpandPlaceholders(v, e.snapshot, e.data)
	}
	childEnv := BuildEnv(r.opts.Environ, env, s.srv.EnvFrom, e.snapshot, e.data)
	argv0, err := r.resolve(e, s.srv.Command, childEnv)
	if err != nil {
		return Spec{}, err
	}
	cwd := e.snapshot
	if s.srv.Cwd != "" {
		c := s.srv.Cwd
		if rel, ok := strings.CutPrefix(c, "./"); ok {
			c = filepath.Join(e.snapshot, filepath.FromSlash(rel))
		} else {
			c = filepath.Clean(bundle.ExpandPlaceholders(c, e.snapshot, e.data))
		}
		if !within(c, e.snapshot) && !within(c, e.data) {
			return Spec{}, fmt.Errorf("server %s: cwd resolves outside the plugin root and data directory", bundle.Quote(s.srv.Name))
		}
		if within(c, e.data) {
			if err := os.MkdirAll(c, 0o700); err != nil {
				return Spec{}, err
			}
		}
		cwd = c
	}
	return Spec{Argv: append([]string{argv0}, r.expand(e, s.srv.Args)...), Dir: cwd, Env: childEnv, MaxOutput: r.opts.MaxOutput}, nil
}

func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

// ServeMCP runs the stdio MCP server exposed as name with stdin, stdout and
// stderr passed straight through, after the authority check, until it
// exits or ctx ends; it is killed with its process group if the bundle
// loses its authority meanwhile.
func (r *Registry) ServeMCP(ctx context.Context, name string, stdio Stdio) (*Result, error) {
	s, ok := r.servers[name]
	if !ok {
		return nil, &UnknownError{What: "mcp server", Name: name}
	}
	if s.srv.Remote() {
		return nil, &RemoteServerError{Name: name, URL: s.srv.URL}
	}
	if err := r.authorize(s.e); err != nil {
		return nil, err
	}
	spec, err := r.serverSpec(s)
	if err != nil {
		return nil, err
	}
	return r.supervise(ctx, s.e, func(ctx context.Context) (*Result, error) { return Exec(ctx, spec, stdio) })
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
