package codex

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/inventory"
	"github.com/pelletier/go-toml/v2"
)

// SetupHookTimeout is the timeout of setup's hook lines, in seconds (part
// of their trust hash): a day, as for Claude Code (claude.SetupHookTimeout
// says why).
const SetupHookTimeout = 86400

// Block markers: setup's part of config.toml is one marked block at its
// end, so it can be replaced or taken out without touching the rest.
const (
	blockStart = "# >>> bundlectl setup (bundlectl setup codex --undo takes this block out) >>>\n"
	blockEnd   = "# <<< bundlectl setup <<<\n"
)

// Setup wires bundlectl into Codex's config.toml: one hook per event
// calling `bundlectl hooks run <Event> --host codex`, each recorded as
// trusted under [hooks.state] with the hash Codex computes for it, and the
// active bundles' stdio MCP servers.
//
// Codex runs a user hook only when its definition's hash is recorded as
// trusted. Setup records it for exactly this line: Codex trusts the one
// bundlectl command, and what runs behind it is decided by bundlectl's
// receipts, which Codex never sees. Moving the block, or editing a hook's
// command, matcher or timeout, changes the hash or the key, and Codex
// then skips the hook silently: run setup again.
func (Host) Setup(in hosts.SetupInput) ([]hosts.FileEdit, error) {
	codexHome, err := Home(in.Environ)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(codexHome, "config.toml")
	// Codex gives a server only a few variables of its own and those its
	// env_vars name: bundlectl mcp needs the host variables the review
	// lists to give them to the server.
	names, servers := hosts.StdioServers(in.Bundles, in.Reentry, func(b *hosts.Bundle, _ string, s inventory.MCPServer, e map[string]any) bool {
		if !startsServer(b, s) {
			return false
		}
		if len(s.HostVariables) > 0 {
			e["env_vars"] = s.HostVariables
		}
		return true
	})
	apply := func(cur []byte) ([]byte, error) {
		base := stripBlock(cur)
		var doc map[string]any
		if err := toml.Unmarshal(base, &doc); err != nil {
			return nil, fmt.Errorf("not valid TOML, so bundlectl does not edit it: %v", err)
		}
		block, err := Block(path, in.Reentry, doc, names, servers)
		if err != nil {
			return nil, err
		}
		var out bytes.Buffer
		out.Write(base)
		if len(base) > 0 {
			if !bytes.HasSuffix(base, []byte("\n")) {
				out.WriteByte('\n')
			}
			out.WriteByte('\n')
		}
		out.WriteString(block)
		var check map[string]any
		if err := toml.Unmarshal(out.Bytes(), &check); err != nil {
			return nil, fmt.Errorf("bundlectl's entries clash with what the file holds (%v); take the clashing tables out, or wire Codex by hand", err)
		}
		return out.Bytes(), nil
	}
	strip := func(cur []byte) ([]byte, error) {
		out := stripBlock(cur)
		if cur == nil {
			return nil, nil
		}
		return out, nil
	}
	return []hosts.FileEdit{{
		Path:  path,
		What:  fmt.Sprintf("hooks for %d events calling bundlectl hooks run, trusted by hash, and %d MCP servers calling bundlectl mcp", len(Events), len(names)),
		Mode:  0o600,
		Apply: apply,
		Strip: strip,
		Notes: []string{"codex runs the bundlectl hook lines because setup recorded their trust hashes under [hooks.state]; edit or move a line and codex skips it silently until you run setup again (bundlectl setup codex)"},
	}}, nil
}

// Block is setup's block for the config file at path, given what the rest
// of the file declares (doc): hook groups go after the user's own, and
// each trust key names the group's index.
func Block(path string, re hosts.Reentry, doc map[string]any, names []string, servers map[string]any) (string, error) {
	var b strings.Builder
	b.WriteString(blockStart)
	var state []string
	for _, ev := range Events {
		g := 0
		if hooks, ok := doc["hooks"].(map[string]any); ok {
			switch v := hooks[ev].(type) {
			case []any:
				g = len(v)
			case nil:
			default:
				return "", fmt.Errorf("hooks.%s is not a list of matcher groups", ev)
			}
		}
		cmd := hosts.ShellJoin(re.HooksRun(ev, "codex"))
		fmt.Fprintf(&b, "[[hooks.%s]]\n[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %s\ntimeout = %d\n\n", ev, ev, tomlString(cmd), SetupHookTimeout)
		key := fmt.Sprintf("%s:%s:%d:0", path, EventKey(ev), g)
		state = append(state, fmt.Sprintf("[hooks.state.%s]\ntrusted_hash = %s\n", tomlString(key), tomlString(HookHash(ev, "", cmd, SetupHookTimeout, false))))
	}
	b.WriteString(strings.Join(state, "\n"))
	for _, n := range names {
		e := servers[n].(map[string]any)
		fmt.Fprintf(&b, "\n[mcp_servers.%s]\ncommand = %s\nargs = %s\n", tomlString(n), tomlString(e["command"].(string)), InlineTOML(e["args"]))
		if v, ok := e["env_vars"]; ok {
			fmt.Fprintf(&b, "env_vars = %s\n", InlineTOML(v))
		}
	}
	b.WriteString(blockEnd)
	return b.String(), nil
}

// stripBlock removes setup's block (and the blank line before it).
func stripBlock(cur []byte) []byte {
	i := bytes.Index(cur, []byte(blockStart))
	if i < 0 {
		return cur
	}
	j := bytes.Index(cur[i:], []byte(blockEnd))
	if j < 0 {
		return cur
	}
	out := append(append([]byte(nil), cur[:i]...), cur[i+j+len(blockEnd):]...)
	if i > 0 && bytes.HasSuffix(out[:i], []byte("\n\n")) && i == len(out) {
		out = out[:i-1]
	}
	return out
}

// startsServer reports whether Codex starts a plugin's MCP server s, and
// notes on b why not when it does not: Codex (0.171) starts no server that
// says "enabled": false. The view and setup both leave such a server out,
// so that neither starts what Codex itself would not.
func startsServer(b *hosts.Bundle, s inventory.MCPServer) bool {
	if string(s.Other["enabled"]) == "false" {
		b.Note("its MCP server %s is not loaded: it says \"enabled\": false, and Codex starts no such server", bundle.Quote(s.Name))
		return false
	}
	return true
}

// HookConfig is config.toml, where setup writes its block.
func (Host) HookConfig(environ []string) (string, error) {
	codexHome, err := Home(environ)
	if err != nil {
		return "", err
	}
	return filepath.Join(codexHome, "config.toml"), nil
}

// SetupEvents are the events setup wires: every event Codex fires.
func (Host) SetupEvents() []string { return Events }

// WiredEvents are the events setup's block in data holds a hook for: its
// [[hooks.<Event>]] headers, read without parsing the file, since `hooks
// run` asks on every event.
func (Host) WiredEvents(data []byte) []string {
	i := bytes.Index(data, []byte(blockStart))
	if i < 0 {
		return nil
	}
	block := data[i+len(blockStart):]
	if j := bytes.Index(block, []byte(blockEnd)); j >= 0 {
		block = block[:j]
	}
	var out []string
	for _, line := range strings.Split(string(block), "\n") {
		ev, ok := strings.CutPrefix(line, "[[hooks.")
		if !ok || !strings.HasSuffix(ev, "]]") || strings.Contains(ev, ".") {
			continue
		}
		out = append(out, strings.TrimSuffix(ev, "]]"))
	}
	return out
}

// SetupTimeout is the timeout setup gives each hook line, in seconds.
func (Host) SetupTimeout() (int, string) { return SetupHookTimeout, "s" }

// WiredTimeout is the shortest timeout of the hooks in setup's block in
// data, read line by line as WiredEvents reads; a hook without one gets
// Codex's default (DefaultHookTimeout).
func (Host) WiredTimeout(data []byte) (int, bool) {
	i := bytes.Index(data, []byte(blockStart))
	if i < 0 {
		return 0, false
	}
	block := data[i+len(blockStart):]
	if j := bytes.Index(block, []byte(blockEnd)); j >= 0 {
		block = block[:j]
	}
	least, found := 0, false
	inHook, t := false, 0
	done := func() {
		if inHook && (!found || t < least) {
			least, found = t, true
		}
		inHook = false
	}
	for _, line := range strings.Split(string(block), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			done()
			if strings.HasPrefix(line, "[[hooks.") && strings.HasSuffix(line, ".hooks]]") {
				inHook, t = true, DefaultHookTimeout
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "timeout"); ok && inHook {
			if v, ok = strings.CutPrefix(strings.TrimSpace(v), "="); ok {
				if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
					t = n
				}
			}
		}
	}
	done()
	return least, found
}
