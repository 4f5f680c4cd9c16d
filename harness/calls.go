package harness

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
)

// Catalog is what the harness exposes now. Reading it re-checks every
// bundle: one that lost its authority since Load is left out and listed in
// Refused.
type Catalog struct {
	Skills   []DocInfo    `json:"skills"`
	Commands []DocInfo    `json:"commands"`
	Agents   []DocInfo    `json:"agents"`
	Tools    []ToolInfo   `json:"tools"`
	Hooks    []HookInfo   `json:"hooks"`
	MCP      []ServerInfo `json:"mcp_servers"`
	// Inactive are the bundles Load did not load, with their status.
	Inactive []Inactive `json:"inactive"`
	// Refused are loaded bundles whose authority check failed just now.
	Refused []Refusal `json:"refused"`
}

// DocInfo describes a skill, command or agent: "<bundle>:<name>".
type DocInfo struct {
	Name        string `json:"name"`
	Bundle      string `json:"bundle"`
	Description string `json:"description,omitempty"`
	Path        string `json:"path"`
}

// ToolInfo describes a tool as a model sees it.
type ToolInfo struct {
	Name        string          `json:"name"` // plugin__<bundle>__<tool>
	Bundle      string          `json:"bundle"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// HookInfo describes one hook.
type HookInfo struct {
	Bundle  string   `json:"bundle"`
	Event   string   `json:"event"`
	Matcher string   `json:"matcher"`
	Argv    []string `json:"argv"`
}

// ServerInfo describes an MCP server: a launch spec for stdio, the
// endpoint for remote ones.
type ServerInfo struct {
	Name      string `json:"name"` // plugin-<len>-<bundle>-<server>
	Bundle    string `json:"bundle"`
	Server    string `json:"server"`
	Transport string `json:"transport"`
	// stdio: frozen to the snapshot and the data directory.
	Argv []string `json:"argv,omitempty"`
	Cwd  string   `json:"cwd,omitempty"`
	// EnvNames are the names the child receives beyond the allowlist.
	EnvNames []string `json:"env_names,omitempty"`
	// remote
	URL          string            `json:"url,omitempty"`
	HeaderNames  []string          `json:"header_names,omitempty"`
	Credentials  map[string]string `json:"credential_sources,omitempty"` // header -> host variable
	ToolsInclude []string          `json:"tools_include,omitempty"`
	ToolsExclude []string          `json:"tools_exclude,omitempty"`
}

// Refusal is a bundle refused at a catalogue boundary.
type Refusal struct {
	Bundle string `json:"bundle"`
	Reason string `json:"reason"`
	Fix    string `json:"fix,omitempty"`
}

// Catalog re-checks every loaded bundle and lists what passes.
func (r *Registry) Catalog() Catalog {
	c := Catalog{Skills: []DocInfo{}, Commands: []DocInfo{}, Agents: []DocInfo{}, Tools: []ToolInfo{},
		Hooks: []HookInfo{}, MCP: []ServerInfo{}, Inactive: r.inactive, Refused: []Refusal{}}
	if c.Inactive == nil {
		c.Inactive = []Inactive{}
	}
	ok := map[*entry]bool{}
	for _, e := range r.entries {
		if err := r.authorize(e); err != nil {
			c.Refused = append(c.Refused, refusal(e.b.Name, err))
			continue
		}
		ok[e] = true
	}
	docs := func(m map[string]*docRef) []DocInfo {
		out := []DocInfo{}
		for _, k := range sortedKeys(m) {
			d := m[k]
			if ok[d.e] {
				out = append(out, DocInfo{Name: k, Bundle: d.e.b.Name, Description: d.Desc, Path: d.Path})
			}
		}
		return out
	}
	c.Skills, c.Commands, c.Agents = docs(r.skills), docs(r.commands), docs(r.agents)
	for _, k := range sortedKeys(r.tools) {
		t := r.tools[k]
		if !ok[t.e] {
			continue
		}
		schema := t.tool.Params
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		c.Tools = append(c.Tools, ToolInfo{Name: k, Bundle: t.e.b.Name, Description: t.tool.Description, InputSchema: schema})
	}
	for _, e := range r.entries {
		if !ok[e] {
			continue
		}
		for _, h := range e.b.Components.Hooks {
			c.Hooks = append(c.Hooks, HookInfo{Bundle: e.b.Name, Event: h.Event, Matcher: h.Matcher, Argv: append([]string{h.Command}, r.expand(e, h.Args)...)})
		}
	}
	for _, k := range sortedKeys(r.servers) {
		s := r.servers[k]
		if !ok[s.e] {
			continue
		}
		info := ServerInfo{Name: k, Bundle: s.e.b.Name, Server: s.srv.Name, Transport: s.srv.Transport,
			ToolsInclude: s.srv.ToolsInclude, ToolsExclude: s.srv.ToolsExclude}
		if s.srv.Remote() {
			info.URL = s.srv.URL
			info.HeaderNames = sortedKeys(s.srv.Headers)
			if len(s.srv.EnvHeaders) > 0 || s.srv.BearerTokenEnvVar != "" {
				info.Credentials = map[string]string{}
				for h, v := range s.srv.EnvHeaders {
					info.Credentials[h] = v
				}
				if s.srv.BearerTokenEnvVar != "" {
					info.Credentials["Authorization"] = s.srv.BearerTokenEnvVar
				}
			}
		} else if spec, err := r.serverSpec(s); err == nil {
			info.Argv, info.Cwd = spec.Argv, spec.Dir
			for _, kv := range spec.Env {
				info.EnvNames = append(info.EnvNames, kv[:strings.IndexByte(kv, '=')])
			}
		}
		c.MCP = append(c.MCP, info)
	}
	return c
}

func refusal(name string, err error) Refusal {
	var ae *AuthorityError
	if errors.As(err, &ae) {
		return Refusal{Bundle: name, Reason: ae.Reason, Fix: ae.Fix}
	}
	return Refusal{Bundle: name, Reason: err.Error()}
}

// Content returns a skill, command or agent document ("<bundle>:<name>")
// from the in-memory copy read from the snapshot at load, after
// re-checking the bundle's authority.
func (r *Registry) Content(name string) ([]byte, error) {
	for _, m := range []map[string]*docRef{r.skills, r.commands, r.agents} {
		if d, ok := m[name]; ok {
			if err := r.authorize(d.e); err != nil {
				return nil, err
			}
			return append([]byte(nil), d.content...), nil
		}
	}
	return nil, &UnknownError{What: "skill, command or agent", Name: name}
}

// expand applies ${PLUGIN_ROOT} (the snapshot) and ${PLUGIN_DATA}.
func (r *Registry) expand(e *entry, args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = bundle.ExpandPlaceholders(a, e.snapshot, e.data)
	}
	return out
}

// resolve turns a manifest command into an absolute path: "./x" inside the
// snapshot, a bare name on the child's PATH.
func (r *Registry) resolve(e *entry, command string, env []string) (string, error) {
	if rel, ok := strings.CutPrefix(command, "./"); ok {
		return filepath.Join(e.snapshot, filepath.FromSlash(rel)), nil
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

// supervise runs fn with a context that is cancelled as soon as e loses its
// authority (checked every PollInterval), and reports that loss.
func (r *Registry) supervise(ctx context.Context, e *entry, fn func(context.Context) (*Result, error)) (*Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lost := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(r.opts.PollInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if err := r.authorize(e); err != nil {
					lost <- err
					cancel()
					return
				}
			}
		}
	}()
	res, err := fn(ctx)
	close(done)
	select {
	case l := <-lost:
		return res, &CanceledError{Bundle: e.b.Name, Cause: l}
	default:
	}
	return res, err
}

// CanceledError reports a child killed because its bundle lost authority
// while it ran (disabled, revoked, drifted, tampered).
type CanceledError struct {
	Bundle string
	Cause  error
}

func (e *CanceledError) Error() string {
	return "bundle " + bundle.Quote(e.Bundle) + ": the running process was cancelled and its process group killed: " + e.Cause.Error()
}
func (e *CanceledError) Unwrap() error { return e.Cause }
