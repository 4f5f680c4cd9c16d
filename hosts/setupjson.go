package hosts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/inventory"
)

// Helpers for the JSON settings files of Claude Code and Gemini CLI, whose
// hooks are {"hooks": {"<Event>": [{"matcher": …, "hooks": [{"type":
// "command", "command": …}]}]}} and whose MCP servers are {"mcpServers":
// {"<name>": {"command": …, "args": […]}}}.

// SetupHook is one event's wiring: a matcher group holding one command.
type SetupHook struct {
	Event, Matcher, Command string
	Timeout                 int
}

// OwnHookCommand reports whether a hook command is one setup writes for
// host: `<bundlectl> … hooks run <Event> --host <host>`.
func OwnHookCommand(cmd, host string) bool {
	return strings.Contains(cmd, " hooks run ") && strings.HasSuffix(cmd, " --host "+host)
}

// OwnServer reports whether an MCP entry is one setup writes: named
// "bundlectl-…" and calling a bundlectl binary.
func OwnServer(name string, e *JSON) bool {
	if !strings.HasPrefix(name, "bundlectl-") {
		return false
	}
	c, _ := e.Get("command")
	return strings.HasPrefix(filepath.Base(c.String()), "bundlectl")
}

// ServerEntryName is the name setup gives a bundle's server in a host's
// MCP configuration.
func ServerEntryName(bundleName, server string) string {
	return "bundlectl-" + bundleName + "-" + server
}

// ApplyJSONHooks takes setup's earlier groups out of root's hooks and
// appends one group per entry of hs, in order.
func ApplyJSONHooks(root *JSON, host string, hs []SetupHook) {
	stripJSONHooks(root, host, len(hs) > 0)
	hooks, ok := root.Get("hooks")
	if !ok || hooks.Kind != JSONObject {
		hooks = NewObject()
		root.Set("hooks", hooks)
	}
	for _, h := range hs {
		arr, ok := hooks.Get(h.Event)
		if !ok || arr.Kind != JSONArray {
			arr = &JSON{Kind: JSONArray}
			hooks.Set(h.Event, arr)
		}
		cmd := NewObject()
		cmd.Set("type", ValueOf("command"))
		cmd.Set("command", ValueOf(h.Command))
		cmd.Set("timeout", ValueOf(h.Timeout))
		g := NewObject()
		if h.Matcher != "" {
			g.Set("matcher", ValueOf(h.Matcher))
		}
		g.Set("hooks", &JSON{Kind: JSONArray, Items: []*JSON{cmd}})
		arr.Items = append(arr.Items, g)
	}
}

// StripJSONHooks removes setup's groups from root's hooks, and the event
// lists and hooks object they leave empty.
func StripJSONHooks(root *JSON, host string) { stripJSONHooks(root, host, false) }

// stripJSONHooks keeps the containers in place when keep is set, so that
// entries added again land where they were.
func stripJSONHooks(root *JSON, host string, keep bool) {
	hooks, ok := root.Get("hooks")
	if !ok || hooks.Kind != JSONObject {
		return
	}
	for _, ev := range append([]string(nil), hooks.Keys...) {
		arr := hooks.Fields[ev]
		if arr.Kind != JSONArray {
			continue
		}
		kept := arr.Items[:0:0]
		removed := false
		for _, g := range arr.Items {
			if ownGroup(g, host) {
				removed = true
				continue
			}
			kept = append(kept, g)
		}
		arr.Items = kept
		if removed && len(kept) == 0 && !keep {
			hooks.Delete(ev)
		}
	}
	if len(hooks.Keys) == 0 && !keep {
		root.Delete("hooks")
	}
}

func ownGroup(g *JSON, host string) bool {
	hs, ok := g.Get("hooks")
	if !ok || hs.Kind != JSONArray || len(hs.Items) == 0 {
		return false
	}
	for _, h := range hs.Items {
		c, _ := h.Get("command")
		if !OwnHookCommand(c.String(), host) {
			return false
		}
	}
	return true
}

// ApplyJSONServers replaces setup's MCP entries in root[key] with servers
// (name → entry), keeping every other entry and its place.
func ApplyJSONServers(root *JSON, key string, names []string, servers map[string]any) {
	stripJSONServers(root, key, len(names) > 0)
	if len(names) == 0 {
		return
	}
	m, ok := root.Get(key)
	if !ok || m.Kind != JSONObject {
		m = NewObject()
		root.Set(key, m)
	}
	for _, n := range names {
		m.Set(n, ValueOf(servers[n]))
	}
}

// ShortJSONServerTimeouts names the entries of servers (setup's, as
// Apply writes them) that root[key] in cur, read as syntax, holds with a
// "timeout" missing or other than the one setup writes now.
func ShortJSONServerTimeouts(cur []byte, syntax JSONSyntax, key string, names []string, servers map[string]any) []string {
	root, err := ParseJSONAs(cur, syntax)
	if err != nil || root.Kind != JSONObject {
		return nil
	}
	m, ok := root.Get(key)
	if !ok || m.Kind != JSONObject {
		return nil
	}
	var short []string
	for _, n := range names {
		want, ok := servers[n].(map[string]any)["timeout"].(int)
		e, there := m.Fields[n]
		if !ok || !there || !OwnServer(n, e) {
			continue
		}
		got := 0.0
		if v, ok := e.Get("timeout"); ok && v.Kind == JSONScalar {
			json.Unmarshal(v.Scalar, &got)
		}
		if got != float64(want) {
			short = append(short, n)
		}
	}
	return short
}

// StripJSONServers removes setup's MCP entries from root[key], and the
// object when that leaves it empty.
func StripJSONServers(root *JSON, key string) { stripJSONServers(root, key, false) }

func stripJSONServers(root *JSON, key string, keep bool) {
	m, ok := root.Get(key)
	if !ok || m.Kind != JSONObject {
		return
	}
	removed := false
	for _, n := range append([]string(nil), m.Keys...) {
		if OwnServer(n, m.Fields[n]) {
			m.Delete(n)
			removed = true
		}
	}
	if removed && len(m.Keys) == 0 && !keep {
		root.Delete(key)
	}
}

// ApplyNames replaces the "bundlectl-" names of a string list root[key]
// with names (Claude Code's enabledMcpjsonServers).
func ApplyNames(root *JSON, key string, names []string) {
	stripNames(root, key, len(names) > 0)
	if len(names) == 0 {
		return
	}
	l, ok := root.Get(key)
	if !ok || l.Kind != JSONArray {
		l = &JSON{Kind: JSONArray}
		root.Set(key, l)
	}
	for _, n := range names {
		l.Items = append(l.Items, ValueOf(n))
	}
}

// StripNames removes the "bundlectl-" names from root[key].
func StripNames(root *JSON, key string) { stripNames(root, key, false) }

func stripNames(root *JSON, key string, keep bool) {
	l, ok := root.Get(key)
	if !ok || l.Kind != JSONArray {
		return
	}
	kept := l.Items[:0:0]
	for _, it := range l.Items {
		if !strings.HasPrefix(it.String(), "bundlectl-") {
			kept = append(kept, it)
		}
	}
	removed := len(kept) != len(l.Items)
	l.Items = kept
	if removed && len(kept) == 0 && !keep {
		root.Delete(key)
	}
}

// EditJSON is EditJSONAs for a plain JSON file.
func EditJSON(change func(root *JSON)) func([]byte) ([]byte, error) {
	return EditJSONAs(PlainJSON, change)
}

// EditJSONAs adapts a change of a parsed JSON document, read as its host
// reads it (syntax), to FileEdit's shape; a missing file that the change
// leaves empty stays missing. The file is written back as it was but for
// what the change took out, replaced or added (Marshal), each of its
// comments kept: an edit that would lose or repeat one is refused.
func EditJSONAs(syntax JSONSyntax, change func(root *JSON)) func([]byte) ([]byte, error) {
	return func(cur []byte) ([]byte, error) {
		root, err := ParseJSONAs(cur, syntax)
		if err != nil {
			return nil, &notJSONError{syntax: syntax, err: err}
		}
		if root.Kind != JSONObject {
			return nil, errJSONObject
		}
		change(root)
		if cur == nil && len(root.Keys) == 0 {
			return nil, nil
		}
		next := root.Marshal()
		if err := commentsKept(cur, next); err != nil {
			return nil, err
		}
		return next, nil
	}
}

// notJSONError is a file that does not parse as its host reads it.
type notJSONError struct {
	syntax JSONSyntax
	err    error
}

func (e *notJSONError) Error() string {
	if e.syntax == PlainJSON {
		return "not plain JSON at " + e.err.Error()
	}
	return "not JSON at " + e.err.Error()
}

func (e *notJSONError) Unwrap() error { return e.err }

// edits says what setup edits, for a refusal.
func (e *notJSONError) edits() string {
	if e.syntax == PlainJSON {
		return "plain JSON without comments or trailing commas"
	}
	return "JSON, with comments or without, and no trailing comma, repeated key or byte order mark"
}

// CommentError is a comment of a settings file that setup's edit would
// not write back once, in its place among the others: setup refuses the
// edit rather than lose it.
type CommentError struct{ Line int }

func (e *CommentError) Error() string {
	return fmt.Sprintf("line %d: setup's edit would not keep this comment as written", e.Line)
}

// commentsKept checks that next holds the comments of cur, byte for byte
// and in their order, and nothing more: setup writes none of its own.
func commentsKept(cur, next []byte) error {
	was, now := jsonComments(cur), jsonComments(next)
	for i, c := range was {
		if i >= len(now) || !bytes.Equal(cur[c.start:c.end], next[now[i].start:now[i].end]) {
			return &CommentError{Line: 1 + bytes.Count(cur[:c.start], []byte("\n"))}
		}
	}
	if len(now) > len(was) {
		line := 1
		if len(was) > 0 {
			line += bytes.Count(cur[:was[len(was)-1].start], []byte("\n"))
		}
		return &CommentError{Line: line}
	}
	return nil
}

type setupError string

func (e setupError) Error() string { return string(e) }

const errJSONObject = setupError("the file is not a JSON object")

// StdioServers returns the setup MCP entries of bundles' stdio servers:
// names in order and each entry {"command", "args"} calling `bundlectl mcp`,
// with, when timeout is set (a host that reads an entry's "timeout"), the
// "timeout" it returns for the server, as exec's view gives it.
// extra, when set, completes an entry for its host, or returns false to
// leave the server out (after a note on the bundle saying why).
func StdioServers(bundles []*Bundle, re Reentry, timeout func(inventory.MCPServer) (int, bool), extra func(b *Bundle, name string, s inventory.MCPServer, e map[string]any) bool) ([]string, map[string]any) {
	var names []string
	servers := map[string]any{}
	for _, b := range bundles {
		for _, s := range b.MCPServers() {
			if s.Transport != "stdio" {
				b.Note("its MCP server %s is remote, so setup does not wire it (bundlectl wires the processes it runs; add the server to the host yourself if you want it)", bundle.Quote(s.Name))
				continue
			}
			n := ServerEntryName(b.Name, s.Name)
			if _, taken := servers[n]; taken {
				// "a" with server "b-c" and "a-b" with server "c" are both
				// bundlectl-a-b-c: wiring the second would replace the first.
				b.Note("its MCP server %s is not wired: the name setup gives it, %s, is already another bundle's server's; rename one of the two servers", bundle.Quote(s.Name), bundle.Quote(n))
				continue
			}
			argv := re.MCP(b.Name, s.Name)
			e := map[string]any{"command": argv[0], "args": argv[1:]}
			if timeout != nil {
				if ms, ok := timeout(s); ok {
					e["timeout"] = ms
				}
			}
			if extra != nil && !extra(b, n, s, e) {
				continue
			}
			names = append(names, n)
			servers[n] = e
		}
	}
	return names, servers
}
