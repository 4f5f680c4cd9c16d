package codex

import (
	"bytes"
	"errors"
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

// ClampedHookTimeout is the most Codex (0.171) gives a SessionEnd or
// Interrupt hook, in seconds: it clamps a longer timeout to it, warns
// ("clamping SessionEnd hook timeout to 3s") on every session, and then
// does not run a line written with more (internal/agenttest
// TestCodexSessionEndClamp). Setup and exec's view write these two events'
// lines with it.
const ClampedHookTimeout = 3

// setupTimeout is the timeout setup writes on event's line, in seconds.
func setupTimeout(event string) int {
	if event == "SessionEnd" || event == "Interrupt" {
		return ClampedHookTimeout
	}
	return SetupHookTimeout
}

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
	names, servers := hosts.StdioServers(in.Bundles, in.Reentry, nil, func(b *hosts.Bundle, _ string, s inventory.MCPServer, e map[string]any) bool {
		if !startsServer(b, s) {
			return false
		}
		if len(s.HostVariables) > 0 {
			e["env_vars"] = s.HostVariables
		}
		MCPTimeouts(s, e, hosts.MCPStartMargin)
		return true
	})
	apply := func(cur []byte) ([]byte, error) {
		base := stripBlock(cur)
		var doc map[string]any
		// A byte order mark, which Codex skips, is kept as the user wrote
		// it and not parsed (go-toml refuses it).
		if err := toml.Unmarshal(bytes.TrimPrefix(base, utf8BOM), &doc); err != nil {
			var de *toml.DecodeError
			if errors.As(err, &de) {
				row, _ := de.Position()
				return nil, fmt.Errorf("not valid TOML at %w", &hosts.SyntaxError{Line: row, Err: err})
			}
			return nil, fmt.Errorf("not valid TOML: %w", err)
		}
		block, err := Block(path, in.Reentry, doc, names, servers)
		if err != nil {
			return nil, err
		}
		// The block's line breaks are the file's: a file saved with
		// CRLF ones (which Codex reads) keeps them throughout.
		eol := lineBreak(cur)
		var out bytes.Buffer
		out.Write(base)
		if len(base) > 0 {
			if !bytes.HasSuffix(base, []byte("\n")) {
				out.WriteString(eol)
			}
			out.WriteString(eol)
		}
		out.WriteString(strings.ReplaceAll(block, "\n", eol))
		var check map[string]any
		if err := toml.Unmarshal(bytes.TrimPrefix(out.Bytes(), utf8BOM), &check); err != nil {
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
		ShortTimeouts: func(cur []byte) []string {
			return shortTimeouts(cur, names, servers)
		},
	}}, nil
}

// shortTimeouts names setup's [mcp_servers] entries in cur (those of
// setup's block) whose startup_timeout_sec or tool_timeout_sec is not the
// one setup writes now, missing included: an older setup wrote none, and
// Codex then waits its own defaults, not what the review shows.
func shortTimeouts(cur []byte, names []string, servers map[string]any) []string {
	if i, _ := markerAt(cur, blockStart); i < 0 {
		return nil
	}
	var doc struct {
		MCPServers map[string]map[string]any `toml:"mcp_servers"`
	}
	if toml.Unmarshal(bytes.TrimPrefix(cur, utf8BOM), &doc) != nil {
		return nil
	}
	var short []string
	for _, n := range names {
		got, ok := doc.MCPServers[n]
		if !ok {
			continue // not wired: setup, or the hook lines' check, says so
		}
		want := servers[n].(map[string]any)
		for _, k := range []string{"startup_timeout_sec", "tool_timeout_sec"} {
			w, wok := want[k].(float64)
			g, gok := tomlNumber(got[k])
			if wok != gok || w != g {
				short = append(short, n)
				break
			}
		}
	}
	return short
}

// tomlNumber is a TOML integer or float as a float64.
func tomlNumber(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
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
		fmt.Fprintf(&b, "[[hooks.%s]]\n[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %s\ntimeout = %d\n\n", ev, ev, tomlString(cmd), setupTimeout(ev))
		key := fmt.Sprintf("%s:%s:%d:0", path, EventKey(ev), g)
		state = append(state, fmt.Sprintf("[hooks.state.%s]\ntrusted_hash = %s\n", tomlString(key), tomlString(HookHash(ev, "", cmd, setupTimeout(ev), false))))
	}
	b.WriteString(strings.Join(state, "\n"))
	for _, n := range names {
		e := servers[n].(map[string]any)
		fmt.Fprintf(&b, "\n[mcp_servers.%s]\ncommand = %s\nargs = %s\n", tomlString(n), tomlString(e["command"].(string)), InlineTOML(e["args"]))
		if v, ok := e["env_vars"]; ok {
			fmt.Fprintf(&b, "env_vars = %s\n", InlineTOML(v))
		}
		for _, k := range []string{"startup_timeout_sec", "tool_timeout_sec"} {
			if v, ok := e[k]; ok {
				fmt.Fprintf(&b, "%s = %s\n", k, InlineTOML(v))
			}
		}
	}
	b.WriteString(blockEnd)
	return b.String(), nil
}

// stripBlock removes setup's block (and the blank line before it).
func stripBlock(cur []byte) []byte {
	i, _ := markerAt(cur, blockStart)
	if i < 0 {
		return cur
	}
	j, n := markerAt(cur[i:], blockEnd)
	if j < 0 {
		return cur
	}
	out := append(append([]byte(nil), cur[:i]...), cur[i+j+n:]...)
	if i == len(out) {
		for _, blank := range []string{"\r\n\r\n", "\n\n"} {
			if bytes.HasSuffix(out, []byte(blank)) {
				out = out[:i-len(blank)/2]
				break
			}
		}
	}
	return out
}

// markerAt is where the marker line (blockStart, blockEnd) is in data and
// its length there: it ends in LF as setup writes it, or in CRLF, as an
// editor saving the file with CRLF line breaks leaves it, which Codex
// reads alike (internal/agenttest TestListCodexConfigCRLF). -1 when it is
// not there: taking a CRLF block for none, list called its lines gone and
// setup wrote a second block after it.
func markerAt(data []byte, marker string) (int, int) {
	line := []byte(strings.TrimSuffix(marker, "\n"))
	for from := 0; ; {
		i := bytes.Index(data[from:], line)
		if i < 0 {
			return -1, 0
		}
		i += from
		rest := data[i+len(line):]
		switch {
		case bytes.HasPrefix(rest, []byte("\n")):
			return i, len(line) + 1
		case bytes.HasPrefix(rest, []byte("\r\n")):
			return i, len(line) + 2
		}
		from = i + len(line)
	}
}

// lineBreak is the line break of data's first line, CRLF or LF (also when
// data has none).
func lineBreak(data []byte) string {
	if i := bytes.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
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

// SetupHooksOff checks for a features.hooks = false (or features.plugins,
// which featureOff also reads) in the managed configuration or the
// requirements, and for features.hooks = false in the layer that decides
// it for a session started in the workspace with no profile
// (layersHooksOff: /etc/codex/config.toml, the user's config.toml, and
// the project's .codex/config.toml files, trusted or not): Codex then
// runs none of setup's hook lines, and says nothing.
func (Host) SetupHooksOff(in hosts.SetupInput) error {
	if file, setting := ManagedFeatureOff(true); setting != "" {
		return &hosts.HooksOffError{Host: "codex", File: file, Setting: setting, Fix: "have it removed there", Pattern: hosts.SettingIn(file, tomlKey(setting))}
	}
	if file, setting := RequirementsOff(true); setting != "" {
		return &hosts.HooksOffError{Host: "codex", File: file, Setting: setting, Fix: "have it removed there", Pattern: hosts.SettingIn(file, tomlKey(setting))}
	}
	codexHome, err := Home(in.Environ)
	if err != nil {
		return nil // Setup says why
	}
	return layersHooksOff(codexHome, in.Reentry.Workspace)
}

// SetupHooksOffWhen names each profile whose file turns the hooks feature
// off for a session started in the workspace with --profile <name>,
// where one started without it runs setup's lines: which profile a later
// session selects cannot be known here, so setup writes the lines and
// warns (hosts.SetupCaveats), and list names it. A profile whose false a
// trusted project's file undoes is no caveat there.
func (Host) SetupHooksOffWhen(in hosts.SetupInput) []*hosts.HooksOffError {
	codexHome, err := Home(in.Environ)
	if err != nil || layersHooksOff(codexHome, in.Reentry.Workspace) != nil {
		return nil // a session without the profile runs none either: refused
	}
	var out []*hosts.HooksOffError
	for _, name := range profiles(codexHome) {
		l, on, ok := hooksFeature(configLayers(codexHome, startedIn(in.Reentry.Workspace), nil, sessionOpts{profile: name}), false)
		if !ok || on || l.file != filepath.Join(codexHome, name+profileSuffix) {
			continue
		}
		const setting = "features.hooks = false"
		out = append(out, &hosts.HooksOffError{Host: "codex", File: l.file, Setting: setting, Fix: "remove it (or set it to true)", Pattern: hosts.SettingIn(l.file, tomlKey(setting)), When: "started with --profile " + bundle.ShellArg(name)})
	}
	if in.Reentry.Workspace == "" {
		return out
	}
	if off := worktreeHooksOff(codexHome, startedIn(in.Reentry.Workspace)); off != nil {
		out = append(out, off)
	}
	return out
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

// ConfigSyntax says where config.toml, in which WiredEvents found none of
// setup's lines, does not parse as TOML (past a UTF-8 byte order mark,
// which Codex 0.171 skips), and that Codex then refuses to start ("failed
// to load bootstrap configuration"; internal/agenttest
// TestCodexConfigBareCR, a file saved with CR-only line breaks, in which
// the block's markers are not lines either); nil for one that parses.
// Setup, which refuses such a file, is then no fix: the line is.
func (Host) ConfigSyntax(data []byte) (*hosts.SyntaxError, string) {
	var doc map[string]any
	err := toml.Unmarshal(bytes.TrimPrefix(data, utf8BOM), &doc)
	if err == nil {
		return nil, ""
	}
	line := 1
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ = de.Position()
	}
	// Only go-toml's words: its DecodeError's String would quote the
	// file, which may hold secrets.
	return &hosts.SyntaxError{Line: line, Err: fmt.Errorf("not valid TOML: %w", err)}, "Codex refuses to start with it"
}

// WiredEvents are the events setup's block in data holds a hook for: its
// [[hooks.<Event>]] headers, read without parsing the file, since `hooks
// run` asks on every event. A SessionEnd or Interrupt line whose timeout
// is past ClampedHookTimeout (a day, as an older setup wrote) is left
// out: Codex does not run it, and setup must write it again.
func (Host) WiredEvents(data []byte) []string {
	var out []string
	for _, h := range wiredHooks(data) {
		if setupTimeout(h.event) == ClampedHookTimeout && h.timeout > ClampedHookTimeout {
			continue
		}
		out = append(out, h.event)
	}
	return out
}

// wiredHook is one hook line of setup's block: its event and timeout (0
// when it sets none).
type wiredHook struct {
	event   string
	timeout int
}

// wiredHooks reads setup's block in data line by line: each
// [[hooks.<Event>]] header, and the timeout of the hook that follows it.
func wiredHooks(data []byte) []wiredHook {
	i, n := markerAt(data, blockStart)
	if i < 0 {
		return nil
	}
	block := data[i+n:]
	if j, _ := markerAt(block, blockEnd); j >= 0 {
		block = block[:j]
	}
	var out []wiredHook
	inHook := false
	for _, line := range strings.Split(string(block), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			inHook = false
			if ev, ok := strings.CutPrefix(line, "[[hooks."); ok && strings.HasSuffix(ev, "]]") && !strings.Contains(ev, ".") {
				out = append(out, wiredHook{event: strings.TrimSuffix(ev, "]]")})
			} else if strings.HasPrefix(line, "[[hooks.") && strings.HasSuffix(line, ".hooks]]") && len(out) > 0 {
				inHook = true
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "timeout"); ok && inHook {
			if v, ok = strings.CutPrefix(strings.TrimSpace(v), "="); ok {
				if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
					out[len(out)-1].timeout = n
				}
			}
		}
	}
	return out
}

// SetupTimeout is the timeout setup gives each hook line, in seconds.
func (Host) SetupTimeout() (int, string) { return SetupHookTimeout, "s" }

// WiredTimeout is the shortest timeout of the hooks in setup's block in
// data, read as WiredEvents reads; a hook without one gets Codex's default
// (DefaultHookTimeout). SessionEnd and Interrupt lines, which Codex clamps
// to ClampedHookTimeout whatever they say, do not count.
func (Host) WiredTimeout(data []byte) (int, bool) {
	least, found := 0, false
	for _, h := range wiredHooks(data) {
		if setupTimeout(h.event) == ClampedHookTimeout {
			continue
		}
		t := h.timeout
		if t == 0 {
			t = DefaultHookTimeout
		}
		if !found || t < least {
			least, found = t, true
		}
	}
	return least, found
}
