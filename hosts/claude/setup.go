package claude

import (
	"fmt"
	"path/filepath"
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
// per event bundlectl handles.
func SetupHooks(re hosts.Reentry) []hosts.SetupHook {
	var hs []hosts.SetupHook
	for _, ev := range bundle.HookEvents {
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
	settings := hosts.FileEdit{
		Path: userSettingsFiles(dir, in.Environ)[0],
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

// SetupEvents are the events setup wires: every event Claude Code fires.
func (Host) SetupEvents() []string { return bundle.HookEvents }

// WiredEvents are the events settings.json holds setup's hook lines for.
func (Host) WiredEvents(data []byte) []string {
	return hosts.WiredJSONEvents(data, hosts.PlainJSON, "claude")
}

// SetupTimeout is the timeout setup gives each hook line, in seconds.
func (Host) SetupTimeout() (int, string) { return SetupHookTimeout, "s" }

// WiredTimeout is the shortest timeout of setup's hook lines in
// settings.json; a line without one gets Claude Code's default, 600 s.
func (Host) WiredTimeout(data []byte) (int, bool) {
	return hosts.WiredJSONTimeout(data, hosts.PlainJSON, "claude", 600)
}

// SetupHooksOff checks the settings a Claude Code session in the
// workspace reads for a switch that keeps setup's hook lines from running,
// found with the real CLI (internal/agenttest
// TestSetupClaudeHooksSwitches, TestSetupClaudeWorkspaceSwitches):
// disableAllHooks, in Claude Code's precedence (disableAllHooksOff);
// allowManagedHooksOnly in the managed settings only (set in the user's
// or the project's settings, setup's lines still run); and
// CLAUDE_CODE_SIMPLE or CLAUDE_CODE_SAFE_MODE in the "env" of a settings
// file Claude Code applies to its environment (settingsEnv). A file that
// cannot be read is refused: Claude Code might read it.
func (Host) SetupHooksOff(in hosts.SetupInput) error {
	err := hosts.CheckSettings("claude", managedFiles(), func(m map[string]any) (string, string, string) {
		if v, set := m["allowManagedHooksOnly"]; set && v != false {
			setting, key := settingHooksOff(map[string]any{"allowManagedHooksOnly": v})
			return setting, key, switchFix
		}
		return "", "", ""
	})
	if err != nil {
		return err
	}
	for _, l := range settingsEnv(nil, in.Environ) {
		for _, k := range noPluginVars {
			if v, ok := l.env[k].(string); ok && truthy(v) {
				return &hosts.HooksOffError{Host: "claude", File: l.source, Setting: fmt.Sprintf("\"env\": {%q: %q}, Claude Code's minimal or safe mode (no hook runs)", k, v), Fix: "remove it", Pattern: hosts.SettingIn(l.source, hosts.JSONString(k))}
			}
		}
	}
	return disableAllHooksOff(in)
}

// switchFix is the fix of a switch that turns hooks off.
const switchFix = "remove it (or set it to false)"

// switchLayer is one settings file's disableAllHooks, as written there.
type switchLayer struct {
	file    string
	value   any
	set     bool
	user    bool // the user's settings, where setup's lines are
	managed bool
}

// disableAllHooksOff returns the disableAllHooks that keeps setup's lines
// from running in a session started in in.Reentry.Workspace, as Claude
// Code 2.1.332 reads it (found with the real CLI, internal/agenttest
// TestSetupClaudeWorkspaceSwitches):
//
//   - the layers, each over the one before: the user's settings
//     (userSettingsFiles), the project's .claude/settings.json and its
//     .claude/settings.local.json in the workspace, the managed
//     settings; the last one that sets a boolean decides, so a project's
//     false turns back on the hooks a user's true turned off, and a
//     managed false the hooks any other turned off;
//   - a managed true holds whatever the others say;
//   - a value that is not a boolean counts for nothing in the project's,
//     the local or the managed settings, but in the user's settings it
//     keeps the hooks of that file, setup's lines, from running, whatever
//     the other layers say ("false", 0, null alike);
//   - a file it cannot read, or reads as no JSON object (readSettings:
//     a comment, a trailing comma), counts for nothing either: a local
//     file's false with a comment beside it does not undo the project's
//     true.
//
// The switch that holds is named even when another file cannot be read
// (list says it); only when none holds is such a file the refusal
// (*hosts.SetupFileError: setup cannot tell what it was meant to switch,
// and list, for which it counts for nothing, says nothing).
func disableAllHooksOff(in hosts.SetupInput) error {
	var layers []switchLayer
	var unread error
	add := func(files []string, user, managed bool) {
		for _, f := range files {
			m, err := readSettings(f)
			if err != nil {
				if unread == nil {
					unread = &hosts.SetupFileError{Path: f, Host: "claude", Err: err, Gate: true}
				}
				continue
			}
			v, set := m["disableAllHooks"]
			layers = append(layers, switchLayer{file: f, value: v, set: set, user: user, managed: managed})
		}
	}
	if config, err := ConfigDir(in.Environ); err == nil {
		add(userSettingsFiles(config, in.Environ), true, false)
	}
	if ws := in.Reentry.Workspace; ws != "" {
		add([]string{filepath.Join(ws, ".claude", "settings.json"), filepath.Join(ws, ".claude", "settings.local.json")}, false, false)
	}
	add(managedFiles(), false, true)
	off := func(l switchLayer) error {
		setting, key := settingHooksOff(map[string]any{"disableAllHooks": l.value})
		return &hosts.HooksOffError{Host: "claude", File: l.file, Setting: setting, Fix: switchFix, Pattern: hosts.SettingIn(l.file, hosts.JSONString(key))}
	}
	var decides *switchLayer
	for i, l := range layers {
		_, boolean := l.value.(bool)
		switch {
		case l.managed && l.value == true:
			return off(l)
		case l.user && l.set && !boolean:
			return off(l)
		case boolean:
			decides = &layers[i]
		}
	}
	if decides != nil && decides.value == true {
		return off(*decides)
	}
	return unread
}
