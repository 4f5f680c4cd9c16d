package hosts

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/inventory"
)

// Host is one agent CLI's adapter. Each host package registers one in its
// init function, as database/sql drivers do; the core never names a host.
type Host interface {
	// Name is the agent's program name: "claude", "codex", "gemini".
	Name() string
	// View returns the files of b's view for this host: content copied
	// from the snapshot, and every process the host would start for the
	// bundle rewritten to re-enter bundlectl through re. Notes are what
	// the user should know about parts that do not load.
	View(b *Bundle, re Reentry) (*View, error)
	// Launch returns how to start the agent with views loaded, given the
	// agent's argv (argv[0] is the program as the user named it) and the
	// environment bundlectl was started with.
	Launch(s *Session, views []BuiltView, argv, env []string) (*Launch, error)
}

// Installer is a Host that knows the command which installs its agent,
// for the hint of an agent exec cannot find.
type Installer interface {
	// Install is a command that installs the agent's program, as printed
	// to a user (it must run in sh, bash, dash, zsh and fish).
	Install() string
}

// BuiltView is a view on disk, ready for the agent to load.
type BuiltView struct {
	Bundle string // the bundle's name
	Dir    string // the view's root directory (read-only)
	// GuardOnly: the bundle's snapshot failed its check at launch, so the
	// view carries its hooks alone, which block the events they guard.
	GuardOnly bool
	// Meta is what the host adapter recorded when it made the view (e.g.
	// the hook trust entries Codex needs).
	Meta map[string]string
	// Hooks: the view gives the host hooks (a hooks file, or front-matter
	// hooks of a skill, command or agent).
	Hooks bool
}

// Launch is how to start the agent.
type Launch struct {
	Argv []string
	Env  []string
	// Cleanup, when set, undoes what the launch put in place for the
	// session; bundlectl then waits for the agent instead of replacing
	// itself with it.
	Cleanup func()
	// Notes are printed on stderr before the agent starts.
	Notes []string
}

var (
	mu       sync.RWMutex
	registry = map[string]Host{}
)

// Register makes a host adapter available by its name. It panics if the
// name is taken, as database/sql.Register does.
func Register(h Host) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[h.Name()]; dup {
		panic("hosts: Register called twice for " + h.Name())
	}
	registry[h.Name()] = h
}

// Lookup returns the adapter named name.
func Lookup(name string) (Host, bool) {
	mu.RLock()
	defer mu.RUnlock()
	h, ok := registry[name]
	return h, ok
}

// Names lists the registered adapters, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	var out []string
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Bundle is one loaded bundle as a host adapter reads it: the reviewed
// inventory, the snapshot, and the user's switches. Its methods return the
// components a host loads: those its own manifest declared and
// bundlectl's own (declared for no host), minus what is switched off.
type Bundle struct {
	harness.ActiveBundle
	host string
	// Notes collects what does not reach the host and why; the adapter
	// appends, the core prints.
	Notes []string
}

// NewBundle wraps a loaded bundle for the host named host.
func NewBundle(a harness.ActiveBundle, host string) *Bundle {
	return &Bundle{ActiveBundle: a, host: host}
}

// Host is the host the bundle is being viewed for.
func (b *Bundle) Host() string { return b.host }

// Note records a part of the bundle that does not reach the host.
func (b *Bundle) Note(format string, args ...any) {
	b.Notes = append(b.Notes, fmt.Sprintf(format, args...))
}

// For reports whether a component declared for hosts is the host's: its
// own manifest declared it, or bundlectl's own formats did (no host).
func (b *Bundle) For(hosts []string) bool {
	return len(hosts) == 0 || slices.Contains(hosts, b.host)
}

// Own reports whether a component declared for hosts came from the host's
// own manifest (not bundlectl's formats).
func (b *Bundle) Own(hosts []string) bool { return slices.Contains(hosts, b.host) }

func (b *Bundle) off(kind, name string) bool {
	for _, s := range b.Off {
		if s.Kind == kind && s.Name == name {
			return true
		}
	}
	return false
}

// Hooks returns the bundle-wide hooks for the host in precedence order
// (scoped front-matter hooks travel with their component: ScopedHooks).
func (b *Bundle) Hooks() []inventory.Hook {
	var out []inventory.Hook
	for _, h := range b.Inventory.Hooks {
		if h.Scope == "" && b.For(h.Hosts) && !b.off("hook", h.ID) {
			out = append(out, h)
		}
	}
	return out
}

// ScopedHooks returns the hooks a component's front matter declares; scope
// is "skill:<name>", "command:<name>" or "agent:<name>".
func (b *Bundle) ScopedHooks(scope string) []inventory.Hook {
	var out []inventory.Hook
	for _, h := range b.Inventory.Hooks {
		if h.Scope == scope && !b.off("hook", h.ID) {
			out = append(out, h)
		}
	}
	return out
}

// MCPServers returns the host's MCP servers, one per name: a name declared
// by the host's own manifest wins over bundlectl's own declaration.
func (b *Bundle) MCPServers() []inventory.MCPServer {
	var out []inventory.MCPServer
	idx := map[string]int{}
	for _, s := range b.Inventory.MCPServers {
		if !b.For(s.Hosts) || b.off("mcp", s.Name) {
			continue
		}
		if i, dup := idx[s.Name]; dup {
			if b.Own(s.Hosts) {
				out[i] = s
			}
			continue
		}
		idx[s.Name] = len(out)
		out = append(out, s)
	}
	return out
}

// LSPServers returns the host's language servers.
func (b *Bundle) LSPServers() []inventory.LSPServer {
	var out []inventory.LSPServer
	for _, l := range b.Inventory.LSPServers {
		if b.For(l.Hosts) && !b.off("lsp", l.Name) {
			out = append(out, l)
		}
	}
	return out
}

// Docs returns the host's documents of one kind: "skill", "command",
// "agent", "output style" or "context".
func (b *Bundle) Docs(kind string) []inventory.Doc {
	var src []inventory.Doc
	switch kind {
	case "skill":
		src = b.Inventory.Skills
	case "command":
		src = b.Inventory.Commands
	case "agent":
		src = b.Inventory.Agents
	case "output style":
		src = b.Inventory.OutputStyles
	case "context":
		src = b.Inventory.Contexts
	}
	var out []inventory.Doc
	for _, d := range src {
		if b.For(d.Hosts) {
			out = append(out, d)
		}
	}
	return out
}

// Tools returns bundlectl's own tools that are not switched off.
func (b *Bundle) Tools() []inventory.Tool {
	var out []inventory.Tool
	for _, t := range b.Inventory.Tools {
		if !b.off("tool", t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// Runs reports whether a hook is one bundlectl runs (command or http), as
// opposed to one the host's model evaluates (prompt, agent).
func Runs(h inventory.Hook) bool {
	return h.Type == bundle.HookCommand || h.Type == bundle.HookHTTP
}

// SafeName reports whether a bundle name can be used as a host's plugin
// name and in its configuration keys as is: ASCII letters, digits, '-'
// and '_', not starting with '-'.
func SafeName(name string) bool {
	if name == "" || strings.HasPrefix(name, "-") || len(name) > 64 {
		return false
	}
	for _, r := range name {
		if !(r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
