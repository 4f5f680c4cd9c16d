package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
)

// Catalog is what the harness exposes now. Reading it re-checks every
// bundle: one that lost its authority or whose snapshot fails its check is
// left out and listed in Refused.
type Catalog struct {
	Skills   []DocInfo    `json:"skills"`
	Commands []DocInfo    `json:"commands"`
	Agents   []DocInfo    `json:"agents"`
	Tools    []ToolInfo   `json:"tools"`
	Hooks    []HookInfo   `json:"hooks"`
	MCP      []ServerInfo `json:"mcp_servers"`
	LSP      []ServerInfo `json:"lsp_servers"`
	// Inactive are the bundles Load did not load, with their status.
	Inactive []Inactive `json:"inactive"`
	// Refused are loaded bundles whose check failed just now.
	Refused []Refusal `json:"refused"`
	// Containment is how children are contained on this host
	// (Containment().String()).
	Containment string `json:"containment"`
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
	ID      string   `json:"id"`
	Event   string   `json:"event"`
	Matcher string   `json:"matcher"`
	Type    string   `json:"type"`
	Argv    []string `json:"argv,omitempty"`  // exec form
	Shell   string   `json:"shell,omitempty"` // shell form, as reviewed
	URL     string   `json:"url,omitempty"`   // http
	Scope   string   `json:"scope,omitempty"`
	Off     bool     `json:"off,omitempty"` // switched off
}

// ServerInfo describes an MCP or LSP server: a launch spec for stdio, the
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
	Off          bool              `json:"off,omitempty"` // switched off
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
		Hooks: []HookInfo{}, MCP: []ServerInfo{}, LSP: []ServerInfo{}, Inactive: r.Inactive(), Refused: []Refusal{},
		Containment: Containment().String()}
	if c.Inactive == nil {
		c.Inactive = []Inactive{}
	}
	ok := map[*entry]bool{}
	for _, e := range r.entries {
		if err := r.authorize(e); err != nil {
			c.Refused = append(c.Refused, refusal(e.name, err))
			continue
		}
		ok[e] = true
	}
	for _, k := range sortedKeys(r.docs) {
		d := r.docs[k]
		if !ok[d.e] {
			continue
		}
		info := DocInfo{Name: k, Bundle: d.e.name, Path: d.doc.Path}
		if data, err := r.readChecked(d.e, d.doc.Path); err == nil {
			info.Description = bundle.FrontMatterDescription(data)
		}
		switch d.kind {
		case "skill":
			c.Skills = append(c.Skills, info)
		case "command":
			c.Commands = append(c.Commands, info)
		default:
			c.Agents = append(c.Agents, info)
		}
	}
	for _, k := range sortedKeys(r.tools) {
		t := r.tools[k]
		if !ok[t.e] || r.isOff(t.e, "tool", t.tool.Name) {
			continue
		}
		schema := t.tool.Params
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		// A copy: CallTool validates input against the registry's own.
		c.Tools = append(c.Tools, ToolInfo{Name: k, Bundle: t.e.name, Description: t.tool.Description, InputSchema: slices.Clone(schema)})
	}
	for _, e := range r.entries {
		if !ok[e] {
			continue
		}
		for _, h := range e.hooks {
			info := HookInfo{Bundle: e.name, ID: h.ID, Event: h.Event, Matcher: h.Matcher, Type: h.Type, URL: h.URL, Scope: h.Scope, Off: r.isOff(e, "hook", h.ID)}
			if h.Type == bundle.HookCommand {
				if h.Shell {
					info.Shell = h.Command
				} else {
					info.Argv = append([]string{h.Command}, h.Args...)
				}
			}
			c.Hooks = append(c.Hooks, info)
		}
	}
	for _, k := range sortedKeys(r.servers) {
		s := r.servers[k]
		if !ok[s.e] {
			continue
		}
		info := ServerInfo{Name: k, Bundle: s.e.name, Server: s.srv.Name, Transport: s.srv.Transport,
			// Copies: ServeMCP enforces the registry's own lists.
			ToolsInclude: slices.Clone(s.srv.ToolsInclude), ToolsExclude: slices.Clone(s.srv.ToolsExclude), Off: r.isOff(s.e, "mcp", s.srv.Name)}
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
			info.Argv, info.Cwd, info.EnvNames = spec.Argv, spec.Dir, envNames(spec.Env)
		}
		c.MCP = append(c.MCP, info)
	}
	for _, k := range sortedKeys(r.lsps) {
		l := r.lsps[k]
		if !ok[l.e] {
			continue
		}
		info := ServerInfo{Name: k, Bundle: l.e.name, Server: l.srv.Name, Transport: "stdio", Off: r.isOff(l.e, "lsp", l.srv.Name)}
		v := l.srv
		if spec, err := r.processSpec(l.e, v.Name, v.Command, v.Args, v.Env, nil, "", v.Hosts, v.HostVariables); err == nil {
			info.Argv, info.Cwd, info.EnvNames = spec.Argv, spec.Dir, envNames(spec.Env)
		}
		c.LSP = append(c.LSP, info)
	}
	return c
}

func envNames(env []string) []string {
	var out []string
	for _, kv := range env {
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' {
				out = append(out, kv[:i])
				break
			}
		}
	}
	return out
}

func refusal(name string, err error) Refusal {
	var ae *AuthorityError
	if errors.As(err, &ae) {
		return Refusal{Bundle: name, Reason: ae.Reason, Fix: ae.Fix}
	}
	return Refusal{Bundle: name, Reason: err.Error()}
}

// readSnapshot reads a file of e's snapshot without following any link,
// at most bundle.MaxManifestBytes.
func (r *Registry) readSnapshot(e *entry, rel string) ([]byte, error) {
	f, err := bundle.OpenNoFollow(e.snapshot, rel)
	if err != nil && errors.Is(err, syscall.ELOOP) {
		// An accepted link of the bundle (a SKILL.md shared by two
		// skills): the snapshot holds it as a link to a file of the
		// snapshot. Resolve it by the walk's own rule, never by following.
		target, terr := snapshotLinkTarget(e.snapshot, rel)
		if terr != nil {
			return nil, terr
		}
		f, err = bundle.OpenNoFollow(e.snapshot, target)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, bundle.MaxManifestBytes))
}

// snapshotLinkTarget resolves the link rel of a snapshot to the regular
// file it names, applying the walk's link rule (bundle.ResolveLink) to
// what is on disk: every element a real directory, the last a regular
// file, never above the snapshot root.
func snapshotLinkTarget(root, rel string) (string, error) {
	text, err := os.Readlink(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return "", err
	}
	kindOf := func(p string) (bundle.Kind, bool) {
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		switch {
		case err != nil:
			return 0, false
		case fi.IsDir():
			return bundle.KindDir, true
		case fi.Mode()&os.ModeSymlink != 0:
			return bundle.KindLink, true
		case fi.Mode().IsRegular():
			return bundle.KindFile, true
		}
		return 0, false
	}
	target, why := bundle.ResolveLink(rel, text, kindOf)
	if why != "" {
		return "", fmt.Errorf("%s in the snapshot: %s", bundle.Quote(rel), why)
	}
	return target, nil
}

// Content returns a skill, command or agent document ("<bundle>:<name>")
// read from the snapshot after re-checking the bundle's authority and the
// snapshot's integrity.
func (r *Registry) Content(name string) ([]byte, error) {
	d, ok := r.docs[name]
	if !ok {
		return nil, &UnknownError{What: "skill, command or agent", Name: name}
	}
	if err := r.authorize(d.e); err != nil {
		return nil, err
	}
	return r.readChecked(d.e, d.doc.Path)
}

// testOnlyBeforeSnapshotRead and testOnlyAfterSnapshotRead, when set, are
// called with the snapshot directory just before and just after
// readChecked reads a file of it: a test changes the snapshot around the
// read and runs another check of the bundle meanwhile.
var testOnlyBeforeSnapshotRead, testOnlyAfterSnapshotRead func(snapshot string)

// readChecked reads a file of e's snapshot between two checks of the
// bundle. With change notification, the read counts only if the
// snapshot's generation did not move from just after the check before it
// to just before the check after it (a write undone before the check
// after it would pass a re-verification); otherwise it is read again, a
// few times, then refused. The generation is this read's own: a check
// another goroutine makes meanwhile re-verifies, but cannot hide from it
// an event that came during the read. Without notification the check
// after the read sees a change that is still there.
func (r *Registry) readChecked(e *entry, rel string) ([]byte, error) {
	for try := 0; ; try++ {
		if try > 0 {
			if err := r.authorize(e); err != nil {
				return nil, err
			}
		}
		w := r.watch.Load()
		var gen uint64
		if w != nil {
			gen = w.generation(e.idx)
		}
		if hook := testOnlyBeforeSnapshotRead; hook != nil {
			hook(e.snapshot)
		}
		data, err := r.readSnapshot(e, rel)
		if err != nil {
			return nil, err
		}
		if hook := testOnlyAfterSnapshotRead; hook != nil {
			hook(e.snapshot)
		}
		changed := w != nil && w.generation(e.idx) != gen
		if !changed {
			if err := r.authorize(e); err != nil {
				return nil, err
			}
			return data, nil
		}
		if try == 3 {
			return nil, refuse(e.name, ErrTampered, "bundlectl review "+bundle.ShellArg(e.name), "its snapshot kept changing while %s was read", bundle.Quote(rel))
		}
	}
}

// supervise runs fn, the child of e's component kind/name, with a context
// that is cancelled as soon as e loses its authority, the component is
// switched off, or the snapshot loses its integrity (checked every
// PollInterval), and reports that loss.
func (r *Registry) supervise(ctx context.Context, e *entry, kind, name string, fn func(context.Context) (*Result, error)) (*Result, error) {
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
				if err := r.use(e, kind, name); err != nil {
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
		ce := &CanceledError{Bundle: e.name, Cause: l}
		if h := hintOf(l); h != "" {
			ce.Fix = r.fixCommand(h)
		}
		return res, ce
	default:
	}
	return res, err
}

// CanceledError reports a child killed because its bundle lost authority
// while it ran (disabled, revoked, removed, tampered), or its component was
// switched off.
type CanceledError struct {
	Bundle string
	Cause  error
	// Fix is the command that restores the bundle's authority, when the
	// cause has one (a tampered snapshot: review it again), as the
	// registry's FixCommand writes it. A hook chain it blocks names it;
	// a CLI reports the cause's own hint.
	Fix string
}

func (e *CanceledError) Error() string {
	return "bundle " + bundle.Quote(e.Bundle) + ": the running process was cancelled and killed with every descendant: " + e.Cause.Error()
}
func (e *CanceledError) Unwrap() error { return e.Cause }
