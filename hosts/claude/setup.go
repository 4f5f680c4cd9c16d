package claude

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/inventory"
)

// SetupHookTimeout is the timeout of setup's hook lines, in seconds: a
// day. `hooks run` runs every matching hook in turn, each under its own
// timeout of at most 600 s, and a guard still running at its limit
// blocks; a host timeout of 600 s cut a chain of two slow guards (or one
// at its limit) first, and the host reads a killed hook as a failure, so
// the tool ran. A day is longer than any chain of up to 144 such hooks.
const SetupHookTimeout = 86400

// ConfigDir is Claude Code's user configuration directory:
// $CLAUDE_CONFIG_DIR, else ~/.claude.
func ConfigDir(env []string) (string, error) {
	var home string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "CLAUDE_CONFIG_DIR="); ok && v != "" {
			return filepath.Abs(v)
		}
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	if home == "" {
		return "", fmt.Errorf("neither CLAUDE_CONFIG_DIR nor HOME is set")
	}
	return filepath.Join(home, ".claude"), nil
}

// SetupHooks are the hook lines setup writes: one group with matcher "*"
// per event setup wires (SetupEvents).
func SetupHooks(re hosts.Reentry) []hosts.SetupHook {
	var hs []hosts.SetupHook
	for _, ev := range (Host{}).SetupEvents() {
		hs = append(hs, hosts.SetupHook{Event: ev, Matcher: "*", Command: hosts.ShellJoin(re.HooksRun(ev, "claude")), Timeout: SetupHookTimeout})
	}
	return hs
}

// Setup wires bundlectl into Claude Code: the hook lines in the user's
// settings file (HookConfig), and the active bundles' stdio MCP servers in the
// workspace's .mcp.json, approved in the workspace's
// .claude/settings.local.json (enabledMcpjsonServers), since bundlectl's
// review is their approval. Not in the user's settings: Claude Code
// approves a listed name in any project's .mcp.json, and a repository
// could ship a server under a name setup made (found by review).
//
// Its files are plain JSON (EditJSON): Claude Code 2.1.332 reads a
// settings file with a comment as malformed and loads nothing of it, its
// hooks included (agenttest TestClaudeSettingsComments).
func (Host) Setup(in hosts.SetupInput) ([]hosts.FileEdit, error) {
	dir, err := ConfigDir(in.Environ)
	if err != nil {
		return nil, err
	}
	hs := SetupHooks(in.Reentry)
	names, servers := hosts.StdioServers(in.Bundles, in.Reentry, hosts.ClaudeMCPTimeoutMs, func(_ *hosts.Bundle, _ string, _ inventory.MCPServer, e map[string]any) bool {
		e["type"] = "stdio"
		return true
	})
	user := userSettingsFiles(dir, in.Environ)[0]
	settings := hosts.FileEdit{
		Path: user,
		What: fmt.Sprintf("hooks for %d events calling bundlectl hooks run", len(hs)),
		Mode: 0o600,
		Apply: hosts.EditJSON(func(r *hosts.JSON) {
			hosts.ApplyJSONHooks(r, "claude", hs)
			hosts.StripNames(r, "enabledMcpjsonServers") // an earlier setup's approvals, for every project
		}),
		Strip: hosts.EditJSON(func(r *hosts.JSON) {
			hosts.StripJSONHooks(r, "claude")
			hosts.StripNames(r, "enabledMcpjsonServers")
		}),
		// A setup run with CLAUDE_CODE_USE_COWORK_PLUGINS other than now
		// wrote the other file: --undo of one run takes both back.
		StripsToo: otherUserSettings(dir, user),
	}
	approvals := hosts.FileEdit{
		Path:  filepath.Join(in.Reentry.Workspace, ".claude", "settings.local.json"),
		What:  fmt.Sprintf("%d MCP servers approved for this workspace", len(names)),
		Mode:  0o600,
		Apply: hosts.EditJSON(func(r *hosts.JSON) { hosts.ApplyNames(r, "enabledMcpjsonServers", names) }),
		Strip: hosts.EditJSON(func(r *hosts.JSON) { hosts.StripNames(r, "enabledMcpjsonServers") }),
	}
	mcp := hosts.FileEdit{
		Path:  filepath.Join(in.Reentry.Workspace, ".mcp.json"),
		What:  fmt.Sprintf("%d MCP servers calling bundlectl mcp", len(names)),
		Mode:  0o644,
		Apply: hosts.EditJSON(func(r *hosts.JSON) { hosts.ApplyJSONServers(r, "mcpServers", names, servers) }),
		Strip: hosts.EditJSON(func(r *hosts.JSON) { hosts.StripJSONServers(r, "mcpServers") }),
		ShortTimeouts: func(cur []byte) []string {
			return hosts.ShortJSONServerTimeouts(cur, hosts.PlainJSON, "mcpServers", names, servers)
		},
	}
	return []hosts.FileEdit{settings, mcp, approvals}, nil
}

// HookConfig is the user's settings file, where setup writes its hook
// lines: settings.json, or cowork_settings.json when Claude Code reads it
// instead (userSettingsFiles: under CLAUDE_CODE_USE_COWORK_PLUGINS it
// reads no hook of settings.json).
func (Host) HookConfig(environ []string) (string, error) {
	dir, err := ConfigDir(environ)
	if err != nil {
		return "", err
	}
	return userSettingsFiles(dir, environ)[0], nil
}

// OtherHookEnv is the assignment of CLAUDE_CODE_USE_COWORK_PLUGINS that
// makes Claude Code read its hook lines from the other user settings file
// than in environ (cowork_settings.json for settings.json, and back), and
// environ with it; false when the variable in its environment does not
// decide it (the global config's "env" sets it).
func (h Host) OtherHookEnv(environ []string) (string, []string, bool) {
	cur, err := h.HookConfig(environ)
	if err != nil {
		return "", nil, false
	}
	assign := coworkVar + "=1"
	if filepath.Base(cur) == "cowork_settings.json" {
		assign = coworkVar + "="
	}
	other := slices.DeleteFunc(slices.Clone(environ), func(kv string) bool { return strings.HasPrefix(kv, coworkVar+"=") })
	other = append(other, assign)
	if p, err := h.HookConfig(other); err != nil || p == cur {
		return "", nil, false
	}
	return assign, other, true
}

// SetupEvents are the events setup wires: every event Claude Code fires
// but WorktreeCreate and WorktreeRemove. A WorktreeCreate hook creates
// the worktree in Claude Code's place and prints its path (Claude Code
// 2.1.332 started no `claude --worktree` session under setup's line,
// which answers "{}": "worktree directory …/{} does not exist"), and a
// WorktreeRemove hook removes it in Claude Code's place; `hooks run` does
// neither. A bundle's hooks on them run under bundlectl exec, whose view
// carries them.
func (Host) SetupEvents() []string {
	return slices.DeleteFunc(slices.Clone(bundle.HookEvents), func(ev string) bool {
		return ev == "WorktreeCreate" || ev == "WorktreeRemove"
	})
}

// WiredEvents are the events settings.json holds setup's hook lines for,
// read past a leading UTF-8 byte order mark, as Claude Code reads it (the
// lines behind one run).
func (Host) WiredEvents(data []byte) []string {
	return hosts.WiredJSONEvents(bytes.TrimPrefix(data, utf8BOM), hosts.PlainJSON, "claude")
}

// ConfigUnreadable refuses a settings.json Claude Code reads and
// WiredEvents cannot: one in UTF-16, nested past 10000 (readSettings), or
// with a key written twice (JSON.parse takes the last). A number beyond
// float64, which encoding/json refuses, WiredEvents reads.
func (Host) ConfigUnreadable(data []byte) *hosts.UnreadableError {
	if behindUTF8BOM(data) != nil {
		return nil // UTF-16 behind a UTF-8 mark, one Claude Code ignores (ConfigSyntax)
	}
	data = bytes.TrimPrefix(data, utf8BOM)
	if jsTrimmed(string(data)) {
		return nil
	}
	if why := inUTF16(data); why != nil {
		return why
	}
	_, werr := hosts.ParseJSON(data)
	if werr == nil {
		return nil // WiredEvents read it
	}
	_, err := parseSettings(data)
	var ue *hosts.UnreadableError
	switch {
	case errors.As(err, &ue):
		return ue
	case err == nil:
		return hosts.JSONBeyond(werr, title)
	}
	return nil // one Claude Code ignores (ConfigSyntax)
}

// ConfigSyntax says where settings.json does not parse as Claude Code
// reads it (plain JSON, an object, after a UTF-8 byte order mark), which
// then ignores it whole, setup's lines included (parseSettings); nil for
// one it reads, and for one in UTF-16 (ConfigUnreadable).
func (Host) ConfigSyntax(data []byte) (*hosts.SyntaxError, string) {
	_, err := parseSettings(data)
	var se *hosts.SyntaxError
	if !errors.As(err, &se) {
		return nil, ""
	}
	return se, "" // se says Claude Code ignores the whole file
}

// SetupTimeout is the timeout setup gives each hook line, in seconds.
func (Host) SetupTimeout() (int, string) { return SetupHookTimeout, "s" }

// WiredTimeout is the shortest timeout of setup's hook lines in
// settings.json; a line without one gets Claude Code's default, 600 s.
func (Host) WiredTimeout(data []byte) (int, bool) {
	return hosts.WiredJSONTimeout(bytes.TrimPrefix(data, utf8BOM), hosts.PlainJSON, "claude", 600, 0) // Claude Code 2.1.332 waits for any size (TestHostsGuardTimeouts)
}

// SetupHooksOff checks the settings a Claude Code session in the
// workspace reads (sessionSources, with no arguments) for a switch that
// keeps setup's hook lines from running, found with the real CLI
// (internal/agenttest TestSetupClaudeHooksSwitches,
// TestSetupClaudeWorkspaceSwitches): a managed allowManagedHooksOnly
// (managedOnlyOff; set in the user's or the project's settings, setup's
// lines still run); CLAUDE_CODE_SIMPLE or CLAUDE_CODE_SAFE_MODE in the
// "env" of a settings file Claude Code applies to its environment
// (settingsEnv); and disableAllHooks, in Claude Code's precedence
// (disableAllHooksOff), a value that is not a boolean in the user's
// settings stopping setup's lines, which are that file's hooks. A file
// Claude Code ignores whole (readSettings: a comment, a trailing comma,
// no JSON object) or that cannot be read counts for nothing: a local
// file's false beside a comment does not undo the project's true. The
// switch that holds is named even when another file cannot be read (list
// says it); only when none holds is such a file the refusal
// (*hosts.SetupFileError: setup cannot tell what it was meant to switch,
// and list, for which it counts for nothing, says nothing).
func (Host) SetupHooksOff(in hosts.SetupInput) error {
	layers, err := readSwitchLayers(sessionSources(userArgs{}, in.Environ, in.Reentry.Workspace))
	if err != nil {
		return err
	}
	if o := managedOnlyOff(layers); o != nil {
		return o.refusal(switchFix)
	}
	for _, l := range settingsEnv(nil, in.Environ) {
		for _, k := range noPluginVars {
			if v, ok := l.env[k].(string); ok && truthy(v) {
				return &hosts.HooksOffError{Host: "claude", File: l.source, Setting: fmt.Sprintf("\"env\": {%q: %q}, Claude Code's minimal or safe mode (no hook runs)", k, v), Fix: "remove it", Pattern: hosts.SettingIn(l.source, hosts.JSONString(k))}
			}
		}
	}
	if err := userFileDropped(layers); err != nil {
		return err
	}
	if o, _ := disableAllHooksOff(layers, true); o != nil {
		return o.refusalIn(layers, switchFix)
	}
	for _, l := range layers {
		if _, schema := schemaDropped(l.unread); l.unread != nil && !schema {
			return &hosts.SetupFileError{Path: l.file, Host: "claude", Err: l.unread, Gate: true}
		}
	}
	return nil
}

// userFileDropped refuses a user settings file (the one setup writes its
// lines to) that Claude Code drops for a value its schema refuses
// (schemaDrop): setup's lines in it never run. A disableAllHooks that is
// not a boolean is named as the switch it is.
func userFileDropped(layers []switchLayer) error {
	for _, l := range layers {
		d, ok := schemaDropped(l.unread)
		if !ok || !l.user {
			continue
		}
		o := switchOff{layer: l, key: d.key, value: d.value}
		if d.key == "disableAllHooks" {
			return o.refusal(switchFix)
		}
		e := o.refusal(d.fix())
		e.Setting = d.setting() + " (Claude Code's settings schema wants " + d.want.phrase() + " there, and drops the whole file for another value)"
		return e
	}
	return nil
}

// switchFix is the fix of a switch that turns hooks off.
const switchFix = "remove it (or set it to false)"

// otherUserSettings is the user settings file of dir setup writes in the
// environment other than the one that picked user: settings.json and
// cowork_settings.json, each the other's.
func otherUserSettings(dir, user string) []string {
	var out []string
	for _, name := range []string{"settings.json", "cowork_settings.json"} {
		if p := filepath.Join(dir, name); p != user {
			out = append(out, p)
		}
	}
	return out
}
