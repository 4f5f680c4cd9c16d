package claude

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/hosts"
)

// One model of the settings sources a Claude Code 2.1.332 session reads,
// and of how their hook switches combine, found with the real CLI
// (internal/agenttest TestExecClaudeHooksSwitches,
// TestSetupClaudeWorkspaceSwitches). exec (hooksOff), setup and list
// (SetupHooksOff) and the user's own plugins (ownPlugins) all read the
// sources sessionSources names.

// settingsSource is one settings source of a session.
type settingsSource struct {
	// file is the settings file; "" for an inline --settings value.
	file string
	// flag: the last --settings argument; inline is its value when that
	// is JSON, not a file's name; at are the indexes of every --settings
	// argument (and value) among the user's, which a hint leaves out.
	flag    bool
	inline  string
	at      []int
	user    bool // the user's settings (settings.json or cowork_settings.json)
	managed bool // managed-settings.json or a drop-in of managed-settings.d/
}

// name is how a message names the source: its file, or "--settings" for an
// inline value, which may hold secrets.
func (s settingsSource) name() string {
	if s.file == "" {
		return "--settings"
	}
	return s.file
}

// sessionSources are the settings sources a Claude Code session started in
// cwd with the user arguments u and the environment env reads, lowest first:
// the user's settings (userSettingsFiles), the project's
// .claude/settings.json and .claude/settings.local.json in cwd (not above
// it, at a git root neither; none when cwd is ""), the last --settings
// argument (Claude Code reads only the last), then the managed settings
// (managedFiles). --setting-sources leaves out the user's, the project's
// or the local ones as it leaves them out of Claude Code; --settings and
// the managed settings are read regardless.
func sessionSources(u userArgs, env []string, cwd string) []settingsSource {
	var out []settingsSource
	if config, err := ConfigDir(env); err == nil && u.reads("user") {
		for _, f := range userSettingsFiles(config, env) {
			out = append(out, settingsSource{file: f, user: true})
		}
	}
	if cwd != "" {
		if u.reads("project") {
			out = append(out, settingsSource{file: filepath.Join(cwd, ".claude", "settings.json")})
		}
		if u.reads("local") {
			out = append(out, settingsSource{file: filepath.Join(cwd, ".claude", "settings.local.json")})
		}
	}
	if u.hasSettings {
		s := settingsSource{flag: true, at: u.settingsAt}
		if isInlineSettings(u.settings) {
			s.inline = u.settings
		} else {
			s.file = u.settings
			if !filepath.IsAbs(s.file) && cwd != "" {
				s.file = filepath.Join(cwd, s.file)
			}
		}
		out = append(out, s)
	}
	for _, f := range managedFiles() {
		out = append(out, settingsSource{file: f, managed: true})
	}
	return out
}

// switchLayer is one source's settings, read.
type switchLayer struct {
	settingsSource
	// m is nil when the file does not exist, or when unread is set.
	m map[string]any
	// unread is why the file's settings count for nothing: a
	// *hosts.SyntaxError for one Claude Code ignores whole (readSettings:
	// a comment, a trailing comma, no JSON object) or drops for a value
	// its schema refuses (one holding a *schemaError), another error for
	// one bundlectl cannot read. Whether that is safe is the caller's to say
	// (exec: unreadableLayer; setup and list: SetupHooksOff).
	unread error
	// dropped are the settings of a file Claude Code drops for its
	// schema (schemaDrop): they count for nothing, but a message can say
	// why a false there undoes nothing (refusalIn).
	dropped map[string]any
}

// readSwitchLayers reads sources for their hook switches, each file as
// Claude Code reads it (readSettings), a user, project, local or
// --settings file (or inline --settings) that fails its schema
// (schemaDrop) dropped whole. A
// file it ignores or drops, or that cannot be read, is kept as a layer
// with nothing in it and why (unread). An inline --settings that is not
// a JSON object, or a --settings file that does not exist, is refused
// (*hosts.HooksOffError): Claude Code stops on it.
func readSwitchLayers(sources []settingsSource) ([]switchLayer, error) {
	var out []switchLayer
	for _, s := range sources {
		if s.file == "" {
			var m map[string]any
			if err := json.Unmarshal([]byte(s.inline), &m); err != nil {
				return nil, &hosts.HooksOffError{Host: "claude", File: "--settings", Setting: "JSON bundlectl cannot read", Fix: "fix the argument, and start the agent again (with your own arguments: bundlectl exec -- claude)", Args: s.at}
			}
			if d := schemaDrop(m); d != nil { // dropped as a file is (agenttest TestExecClaudePinOverDroppedSettings)
				out = append(out, switchLayer{settingsSource: s, unread: &hosts.SyntaxError{Line: 1, Err: d}, dropped: m})
				continue
			}
			out = append(out, switchLayer{settingsSource: s, m: m})
			continue
		}
		m, err := readSettings(s.file)
		if err == nil && m == nil && s.flag {
			if _, serr := os.Stat(s.file); serr != nil { // Claude Code stops on it: say why first
				return nil, hosts.UnreadableSettings("claude", s.file, serr)
			}
		}
		var drop map[string]any
		if d := schemaDrop(m); d != nil && !s.managed {
			m, drop, err = nil, m, dropped(s.file, d)
		}
		out = append(out, switchLayer{settingsSource: s, m: m, unread: err, dropped: drop})
	}
	return out, nil
}

// dropped is the unread of a file Claude Code drops for d: a
// *hosts.SyntaxError at the line of d's key, so that what counts a file
// Claude Code ignores whole for nothing counts this one so too.
func dropped(file string, d *schemaError) error {
	line := 1
	if data, err := os.ReadFile(file); err == nil {
		line = keyLine(data, d.key)
	}
	return &hosts.SyntaxError{Line: line, Err: d}
}

// ignored reports whether err is readSettings' word that Claude Code
// ignores the file whole, rather than that bundlectl could not read it.
func ignored(err error) bool {
	var se *hosts.SyntaxError
	return errors.As(err, &se)
}

// unreadableLayer is exec's refusal of the first layer bundlectl cannot
// read, or nil: Claude Code might read what bundlectl cannot, a true with
// it. A file Claude Code ignores whole counts for nothing, as there.
func unreadableLayer(layers []switchLayer) error {
	for _, l := range layers {
		if l.unread != nil && !ignored(l.unread) {
			return hosts.UnreadableSettings("claude", l.file, l.unread)
		}
	}
	return nil
}

// switchOff is the source and value of a hook switch that keeps hooks
// from running.
type switchOff struct {
	layer switchLayer
	key   string
	value any
}

// setting is the switch as written in its source: "disableAllHooks": true.
func (o switchOff) setting() string {
	text, err := json.Marshal(o.value)
	if err != nil {
		text = []byte("true")
	}
	return strconv.Quote(o.key) + ": " + bundle.Sanitize(string(text))
}

// disableAllHooksOff returns the disableAllHooks that keeps hooks from
// running in a session that reads layers, as Claude Code 2.1.332 decides
// it, or nil:
//
//   - the last layer that sets a boolean decides (the managed settings'
//     drop-ins over managed-settings.json, in name order, as over the
//     rest), so a project's false turns back on the hooks a user's true
//     turned off, and a drop-in's false a managed-settings.json's true;
//   - a value that is not a boolean (null, "true", 1) counts for nothing,
//     but when ownHooks is set (the hooks asked about are the user's
//     own, in the user's settings: setup's lines) one in the user's
//     settings keeps them from running whatever the other layers say:
//     Claude Code drops that file whole, its hooks with it.
//
// undone reports that a true of an earlier layer is undone by the false
// of a later layer that is not a managed one: Claude Code drops a user,
// project, local or --settings file that fails its schema (a value of the
// wrong type anywhere in it, not only in disableAllHooks; a managed file
// it reads all the same), and the true then holds again, which bundlectl
// cannot tell.
func disableAllHooksOff(layers []switchLayer, ownHooks bool) (off *switchOff, undone bool) {
	var decides *switchOff
	sawTrue := false
	for _, l := range layers {
		v, set := l.m["disableAllHooks"]
		b, boolean := v.(bool)
		switch {
		case ownHooks && l.user && set && !boolean:
			return &switchOff{layer: l, key: "disableAllHooks", value: v}, false
		case boolean:
			decides = &switchOff{layer: l, key: "disableAllHooks", value: b}
			sawTrue = sawTrue || b
		}
	}
	if decides != nil && decides.value == true {
		return decides, false
	}
	return nil, sawTrue && !decides.layer.managed
}

// managedOnlyOff returns the allowManagedHooksOnly that keeps every hook
// but the managed settings' own from running, a plugin's too, or nil.
// Claude Code 2.1.332 reads it from the managed settings alone (set in
// any other layer, hooks run); the last managed file that sets it to
// anything but null decides, and any value but false and the string
// "false" turns it on ("true", 1, 0, "" alike).
func managedOnlyOff(layers []switchLayer) *switchOff {
	var decides *switchOff
	for _, l := range layers {
		if v, set := l.m["allowManagedHooksOnly"]; set && v != nil && l.managed {
			decides = &switchOff{layer: l, key: "allowManagedHooksOnly", value: v}
		}
	}
	if decides == nil || decides.value == false || decides.value == "false" {
		return nil
	}
	return decides
}

// refusalIn is o's refusal with fix, saying, when a later layer's false
// would have undone o's true but Claude Code drops that file for its
// schema, why it does not: the user sees that false and would otherwise
// take the refusal for a mistake.
func (o switchOff) refusalIn(layers []switchLayer, fix string) *hosts.HooksOffError {
	e := o.refusal(fix)
	if o.key != "disableAllHooks" || o.value != true {
		return e
	}
	after := false
	for _, l := range layers {
		if l.file == o.layer.file && l.flag == o.layer.flag && l.managed == o.layer.managed {
			after = true
			continue
		}
		if d, ok := schemaDropped(l.unread); ok && after && l.dropped["disableAllHooks"] == false {
			what := "that file"
			if l.file == "" {
				what = "that argument"
			}
			e.Setting += fmt.Sprintf(` (the "disableAllHooks": false of %s does not undo it: Claude Code drops %s, as its %s fails Claude Code's settings schema)`, bundle.Quote(l.name()), what, d.setting())
			return e
		}
	}
	return e
}

// refusal is the HooksOffError of o, with fix: the source's line shown
// by a grep of its key, or, for an inline --settings, the arguments to
// leave out.
func (o switchOff) refusal(fix string) *hosts.HooksOffError {
	e := &hosts.HooksOffError{Host: "claude", File: o.layer.name(), Setting: o.setting(), Fix: fix}
	if o.layer.file == "" {
		e.Fix, e.Args = "leave it out of the arguments", o.layer.at
		return e
	}
	e.Pattern = hosts.SettingIn(o.layer.file, hosts.JSONString(o.key))
	return e
}

// isInlineSettings reports whether a --settings value is JSON (it starts
// with "{", after white space) rather than the name of a file.
func isInlineSettings(v string) bool { return strings.HasPrefix(strings.TrimSpace(v), "{") }
