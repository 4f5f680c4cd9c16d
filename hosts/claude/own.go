package claude

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"
	"unicode"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/internal/jsjson"
	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// What Claude Code 2.1.332 loads of the user's own plugins, as found with
// the real CLI (internal/agenttest, own_claude_test.go):
//
//   - A marketplace plugin "name@marketplace" loads when the layer that
//     decides it sets it to true (a version list, or false, does not
//     enable it) and it is installed (installed_plugins.json) or its
//     marketplace is known (known_marketplaces.json): a directory
//     marketplace is read in place. The deciding layer is the highest
//     that names the plugin, lowest first: the settings of each --add-dir
//     directory, the user's settings.json, the project's
//     .claude/settings.json and .claude/settings.local.json (in the
//     working directory only, not above it), the last --settings argument
//     (only the last one counts), then managed settings, which outrank
//     every other layer either way. --setting-sources limits which of
//     user, project and local are read; --settings is read regardless.
//   - A folder under <config>/skills/ holding .claude-plugin/plugin.json
//     loads as "<manifest name>@skills-dir" unless a layer sets it to
//     false (a folder of bare skills is not a plugin); bytes of the name
//     that are not UTF-8 are decoded as Claude Code decodes them. A
//     manifest with no string "name", one Claude Code does not take as a
//     plugin name (skillsDirNameLoads: empty, white space, "@", ...), or
//     one that is not JSON loads nothing (its hooks do not run, its
//     skills are not offered).
//   - --plugin-dir, --plugin-dir-no-mcp and --plugin-url load a plugin as
//     "<name>@inline"; such a plugin (a bundlectl view too) is dropped by a
//     layer setting "<name>@inline" to false.
//   - Plugins built into Claude Code ("@builtin") are part of the agent,
//     not plugins of the user's; they are left alone.

// testOnlyManagedDir replaces the managed settings directory in tests.
var testOnlyManagedDir string

// managedDir is where Claude Code reads managed settings:
// managed-settings.json and the managed-settings.d/ drop-ins.
func managedDir() string {
	switch {
	case testOnlyManagedDir != "":
		return testOnlyManagedDir
	case runtime.GOOS == "darwin":
		return "/Library/Application Support/ClaudeCode"
	}
	return "/etc/claude-code"
}

// managedFiles are the managed settings files Claude Code reads:
// managed-settings.json, then the drop-ins of managed-settings.d/ in name
// order (each of which it honours: a drop-in alone turns a plugin on, or
// its hooks off).
func managedFiles() []string {
	dropIns, _ := filepath.Glob(filepath.Join(managedDir(), "managed-settings.d", "*.json"))
	sort.Strings(dropIns)
	return append([]string{filepath.Join(managedDir(), "managed-settings.json")}, dropIns...)
}

// noPluginVars start Claude Code with no plugin at all (the views
// neither) when set to a value it reads as true: what --bare sets, and
// safe mode.
var noPluginVars = []string{"CLAUDE_CODE_SIMPLE", "CLAUDE_CODE_SAFE_MODE"}

// truthy reports whether Claude Code reads an environment value as true.
func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// pluginsOff returns what starts Claude Code with no plugin at all — the
// views neither — or "": --bare or --safe-mode among its options, or
// CLAUDE_CODE_SIMPLE (what --bare sets) or CLAUDE_CODE_SAFE_MODE set to a
// value it reads as true, in its environment or in the "env" of a
// settings file it applies to its environment before it loads plugins
// (settingsEnv). Found with the real CLI: the hooks of a --plugin-dir
// plugin do not run, its skills are not offered. setting says what the
// source sets, as written there, and variable names the variable set
// (the environment's or a settings file's), "" for an argument.
func pluginsOff(args, env []string) (source, setting, variable string) {
	const mode = "Claude Code's minimal or safe mode (no plugin loads)"
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--bare" || a == "--safe-mode" {
			return a, mode, ""
		}
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if slices.Contains(noPluginVars, k) && truthy(v) {
			return k, mode, k
		}
	}
	for _, l := range settingsEnv(args, env) {
		for _, k := range noPluginVars {
			if v, ok := l.env[k].(string); ok && truthy(v) {
				return l.source, fmt.Sprintf("\"env\": {%q: %q}, %s", k, v, mode), k
			}
		}
	}
	return "", "", ""
}

// envLayer is the "env" object of one settings source.
type envLayer struct {
	source string // the file, or "--settings"
	env    map[string]any
}

// settingsEnv returns the "env" objects Claude Code 2.1.332 applies to its
// own environment before it loads plugins, found with the real CLI
// (internal/agenttest, claude_guard_switches_test.go): those of its global
// config (.claude.json in $CLAUDE_CONFIG_DIR, else in the home directory),
// of the user's settings (when --setting-sources reads them; see
// userSettingsFiles), of the last --settings argument and of managed
// settings. A project's settings and its local ones do not count, nor a
// user or --settings file Claude Code drops for its schema. A file
// that cannot be read gives nothing here: hooksOff refuses an unreadable
// settings file on its own, and the global config is Claude Code's to
// refuse — found with the real CLI, it refuses to start on one that is
// not JSON, and skips one it cannot read, applying no "env" from it.
func settingsEnv(args, env []string) []envLayer {
	var out []envLayer
	read := func(source string, m map[string]any) {
		if e, ok := m["env"].(map[string]any); ok {
			out = append(out, envLayer{source: source, env: e})
		}
	}
	// checked: a settings file Claude Code holds to its schema, and
	// drops whole, "env" and all, when it fails (schemaDrop; agenttest
	// TestClaudeSettingsEnvDropped); the global config and managed files
	// it reads all the same.
	readFile := func(f string, checked bool) {
		m, err := hosts.ReadSettings(f)
		if err != nil {
			// Read as Claude Code reads it (a byte order mark skipped):
			// an entry is counted whenever either reading finds it.
			m, err = readSettings(f)
		}
		if err == nil && !(checked && schemaDrop(m) != nil) {
			read(f, m)
		}
	}
	u := parseArgs(args)
	readFile(globalConfig(env), false)
	if config, err := ConfigDir(env); err == nil && u.reads("user") {
		for _, f := range userSettingsFiles(config, env) {
			readFile(f, true)
		}
	}
	if u.hasSettings {
		wd, _ := os.Getwd()
		if m, err := readSettingsArg(u.settings, wd); err == nil && schemaDrop(m) == nil {
			read("--settings", m)
		}
	}
	for _, f := range managedFiles() {
		readFile(f, false)
	}
	return out
}

// globalConfig is Claude Code's global config file: .claude.json in
// $CLAUDE_CONFIG_DIR when set, else in the home directory.
func globalConfig(env []string) string {
	var home string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "CLAUDE_CONFIG_DIR="); ok && v != "" {
			return filepath.Join(v, ".claude.json")
		}
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	return filepath.Join(home, ".claude.json")
}

// coworkVar switches Claude Code's user settings file from settings.json
// to cowork_settings.json (and its plugins folder to cowork_plugins).
const coworkVar = "CLAUDE_CODE_USE_COWORK_PLUGINS"

// userSettingsFiles are the user settings files Claude Code reads, in
// config: settings.json, or cowork_settings.json instead when
// CLAUDE_CODE_USE_COWORK_PLUGINS is true in its environment or in the
// "env" of its global config — found with the real CLI: hooks turned off,
// or a view turned off, in cowork_settings.json hold then, and in
// settings.json they do not. When settings.json's own "env" sets the
// variable, Claude Code reads settings.json for it and cowork_settings.json
// after it: both.
func userSettingsFiles(config string, env []string) []string {
	plain, cowork := filepath.Join(config, "settings.json"), filepath.Join(config, "cowork_settings.json")
	on := func(m map[string]any) bool {
		e, _ := m["env"].(map[string]any)
		v, _ := e[coworkVar].(string)
		return truthy(v)
	}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, coworkVar+"="); ok && truthy(v) {
			return []string{cowork}
		}
	}
	if m, err := hosts.ReadSettings(globalConfig(env)); err == nil && on(m) {
		return []string{cowork}
	}
	if m, err := hosts.ReadSettings(plain); err == nil && on(m) {
		return []string{plain, cowork}
	}
	return []string{plain}
}

// pluginsDir is the folder where Claude Code 2.1.332 keeps the user's
// installed plugins (installed_plugins.json) and known marketplaces
// (known_marketplaces.json), as its bundled code decides it:
// $CLAUDE_CODE_PLUGIN_CACHE_DIR when set (a leading "~" or "~/" taken
// for $HOME, as Claude Code takes it), else cowork_plugins in the config
// directory when CLAUDE_CODE_USE_COWORK_PLUGINS holds (as it holds for the
// user's settings: userSettingsFiles), else plugins there.
func pluginsDir(config string, env []string) string {
	cache, home := "", ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "CLAUDE_CODE_PLUGIN_CACHE_DIR="); ok {
			cache = v
		}
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	if cache == "~" || strings.HasPrefix(cache, "~/") {
		cache = home + cache[1:]
	}
	if cache != "" {
		return cache
	}
	if slices.Contains(userSettingsFiles(config, env), filepath.Join(config, "cowork_settings.json")) {
		return filepath.Join(config, "cowork_plugins")
	}
	return filepath.Join(config, "plugins")
}

// userArgs is what of the user's own claude arguments decides which
// plugins load. Options are read up to "--", as Claude Code reads them.
type userArgs struct {
	settings    string // the last --settings value
	hasSettings bool
	settingsAt  []int    // the indexes of every --settings argument (and its value)
	sources     []string // --setting-sources; nil when not given
	addDirs     []string
	plugins     []pluginArg
}

// pluginArg is a plugin the user's own arguments load.
type pluginArg struct{ option, value string }

func parseArgs(args []string) userArgs {
	var u userArgs
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "--") {
			continue
		}
		name, val, inline := strings.Cut(a, "=")
		switch name {
		case "--settings", "--setting-sources", "--plugin-dir", "--plugin-dir-no-mcp", "--plugin-url":
			at := i
			if !inline {
				if i+1 >= len(args) {
					continue
				}
				i++
				val = args[i]
			}
			switch name {
			case "--settings":
				u.settings, u.hasSettings = val, true
				u.settingsAt = append(u.settingsAt, at)
				if !inline {
					u.settingsAt = append(u.settingsAt, i)
				}
			case "--setting-sources":
				u.sources = []string{}
				for _, s := range strings.Split(val, ",") {
					u.sources = append(u.sources, strings.TrimSpace(s))
				}
			default:
				u.plugins = append(u.plugins, pluginArg{name, val})
			}
		case "--add-dir":
			// Variadic: every argument up to the next option is a
			// directory, as Claude Code's parser takes it.
			if inline {
				u.addDirs = append(u.addDirs, val)
			}
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				u.addDirs = append(u.addDirs, args[i])
			}
		}
	}
	return u
}

func (u userArgs) reads(source string) bool {
	return u.sources == nil || slices.Contains(u.sources, source)
}

// layer is one settings source's enabledPlugins.
type layer struct {
	source  string         // the file, or "--settings"
	enabled map[string]any // its enabledPlugins
	managed bool
}

// ownPlugin is a plugin of the user's own that Claude Code would load.
type ownPlugin struct {
	id     string // as Claude Code names it: "name@marketplace"
	source string // the layer that enables it
	forced bool   // managed settings enable it: no session setting outranks them
}

// ownState is what the user's settings, files and arguments load beside
// the views.
type ownState struct {
	args     userArgs
	layers   []layer // lowest first
	plugins  []ownPlugin
	mentions []string // what --exclusive turns off: every id a layer sets to anything but false, every installed one, every skills-dir one
	config   string
	wd       string
}

// unreadable refuses an exclusive launch when a settings file cannot be
// read: the plugins it enables cannot be known, so none could be kept out.
func unreadable(file string, err error) error {
	return &hosts.NotExclusiveError{Host: "claude", Source: file,
		Why: "bundlectl cannot read it (" + bundle.Sanitize(err.Error()) + ")", Fix: "fix the file, or move it away"}
}

// ownPlugins reads which plugins of the user's own Claude Code would load,
// started in wd with args and env. An unreadable settings file is an
// error only when strict (--exclusive): a launch that only names the
// plugins skips it, as Claude Code's print mode skips a settings file it
// cannot use.
func ownPlugins(args, env []string, wd string, strict bool) (*ownState, error) {
	if off, _, _ := pluginsOff(args, env); off != "" {
		return &ownState{wd: wd}, nil
	}
	st := &ownState{args: parseArgs(args), wd: wd}
	// checked: a session's settings file, which Claude Code drops whole
	// when it fails its schema (schemaDrop): its enabledPlugins turn
	// nothing on or off, and a false there hides no plugin a file below
	// turns on.
	read := func(file string, managed, checked bool) error {
		m, err := hosts.ReadSettings(file)
		if errors.Is(err, syscall.ENOTDIR) {
			err = nil // an --add-dir that is a file: no settings there
		}
		if err != nil {
			// Read as Claude Code reads it too (a byte order mark
			// skipped), as settingsEnv does: its plugins load.
			if bm, berr := readSettings(file); berr == nil {
				m, err = bm, nil
			}
		}
		if err != nil {
			if strict {
				return unreadable(file, err)
			}
			return nil
		}
		if checked && !managed && schemaDrop(m) != nil {
			return nil
		}
		if e, ok := m["enabledPlugins"].(map[string]any); ok {
			st.layers = append(st.layers, layer{source: file, enabled: e, managed: managed})
		}
		return nil
	}
	for _, d := range st.args.addDirs {
		if !filepath.IsAbs(d) {
			d = filepath.Join(wd, d)
		}
		for _, f := range []string{"settings.json", "settings.local.json"} {
			if err := read(filepath.Join(d, ".claude", f), false, false); err != nil {
				return nil, err
			}
		}
	}
	config, cerr := ConfigDir(env)
	st.config = config
	for _, src := range sessionSources(st.args, env, wd) {
		if !src.flag {
			if err := read(src.file, src.managed, true); err != nil {
				return nil, err
			}
			continue
		}
		m, err := readSettingsArg(st.args.settings, wd)
		if err != nil {
			if strict {
				// A JSON value may hold secrets: named by the option only.
				name := "--settings"
				if !isInlineSettings(st.args.settings) {
					name += " " + st.args.settings
				}
				return nil, unreadable(name, err)
			}
		} else if e, ok := m["enabledPlugins"].(map[string]any); ok && schemaDrop(m) == nil {
			// One Claude Code drops loads nothing it names (agenttest
			// TestExecClaudeExclusiveDroppedSettingsPlugins): --exclusive
			// has nothing there to refuse.
			st.layers = append(st.layers, layer{source: "--settings", enabled: e})
		}
	}

	installed := map[string]bool{}
	markets := map[string]bool{}
	if cerr == nil {
		var ip struct {
			Plugins map[string]json.RawMessage `json:"plugins"`
		}
		dir := pluginsDir(config, env)
		// By exact name, as Claude Code reads it: a "Plugins" after
		// "plugins" would hide the installed ones --exclusive turns off.
		if b, err := os.ReadFile(filepath.Join(dir, "installed_plugins.json")); err == nil && jsonobj.UnmarshalExact(b, &ip) == nil {
			for id := range ip.Plugins {
				installed[id] = true
			}
		}
		var km map[string]json.RawMessage
		if b, err := os.ReadFile(filepath.Join(dir, "known_marketplaces.json")); err == nil && json.Unmarshal(b, &km) == nil {
			for m := range km {
				markets[m] = true
			}
		}
	}

	seen := map[string]bool{}
	var ids []string
	for _, l := range st.layers {
		for id := range l.enabled {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	// Installed plugins no layer turns on do not load; --exclusive turns
	// them off all the same, so that no default of a later Claude Code
	// can bring one in.
	for id := range installed {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	skillsIDs, skillsLoading := skillsDirPlugins(config, cerr)
	for _, id := range skillsIDs {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		_, market, ok := splitID(id)
		if !ok || market == "builtin" || market == "inline" {
			continue
		}
		on, source, forced := st.decide(id)
		if market == "skills-dir" {
			if source == "" {
				on, source = true, filepath.Join(config, "skills")
			}
			if !slices.Contains(skillsLoading, id) {
				on = false
			}
		} else if !installed[id] && !markets[market] {
			on = false
		}
		if st.mentioned(id) || installed[id] || market == "skills-dir" {
			st.mentions = append(st.mentions, id)
		}
		if on {
			st.plugins = append(st.plugins, ownPlugin{id: id, source: source, forced: forced})
		}
	}
	return st, nil
}

// decide returns whether the deciding layer enables id, and that layer:
// managed settings first (any managed true wins), then the highest other
// layer that names it.
func (st *ownState) decide(id string) (on bool, source string, forced bool) {
	for _, l := range st.layers {
		if l.managed && l.enabled[id] == true {
			return true, l.source, true
		}
	}
	for _, l := range st.layers {
		if l.managed {
			if v, ok := l.enabled[id]; ok && v == false {
				return false, l.source, false
			}
		}
	}
	for i := len(st.layers) - 1; i >= 0; i-- {
		l := st.layers[i]
		if l.managed {
			continue
		}
		if v, ok := l.enabled[id]; ok {
			return v == true, l.source, false
		}
	}
	return false, "", false
}

// mentioned reports whether a non-managed layer sets id to anything but
// false (a value a later Claude Code might read as on).
func (st *ownState) mentioned(id string) bool {
	for _, l := range st.layers {
		if v, ok := l.enabled[id]; ok && !l.managed && v != false {
			return true
		}
	}
	return false
}

// viewOff returns the layer that drops a view (loaded as "<name>@inline")
// by setting it to false, or "".
func (st *ownState) viewOff(name string) string {
	id := name + "@inline"
	if on, source, _ := st.decide(id); !on && source != "" {
		return source
	}
	return ""
}

// splitID splits "name@marketplace" at its last "@".
func splitID(id string) (name, market string, ok bool) {
	i := strings.LastIndexByte(id, '@')
	if i <= 0 || i == len(id)-1 {
		return "", "", false
	}
	return id[:i], id[i+1:], true
}

// skillsDirPlugins lists the plugins Claude Code may adopt from
// <config>/skills: each folder holding .claude-plugin/plugin.json, named
// by the manifest's name (the folder's name when it has none), all of
// which --exclusive turns off; and, of those, the ones Claude Code loads
// (loading): a manifest whose "name" is a string Claude Code takes
// (skillsDirNameLoads). Claude Code 2.1.332 loads nothing of a folder
// whose manifest has no such name or is not JSON (internal/agenttest
// TestExecClaudeSkillsDirNameless): named as loading, exec's notice was
// false.
func skillsDirPlugins(config string, cerr error) (ids, loading []string) {
	if cerr != nil {
		return nil, nil
	}
	dir := filepath.Join(config, "skills")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), ".claude-plugin", "plugin.json"))
		if err != nil {
			continue
		}
		var m struct {
			Name string `json:"name"`
		}
		// Bytes that are not UTF-8, in the folder's name or the
		// manifest's, as Claude Code decodes them (one U+FFFD for each
		// maximal invalid subpart, where Go gives one a byte): else
		// --exclusive turned off an id the plugin does not have, and
		// it loaded.
		name := string(jsjson.DecodeUTF8([]byte(e.Name())))
		// By exact name, as Claude Code reads it: a "Name" written after
		// "name" is not the id Claude Code loads the plugin by, which
		// --exclusive must turn off.
		named := jsonobj.UnmarshalExact(jsjson.DecodeUTF8(b), &m) == nil && m.Name != ""
		if named {
			name = m.Name
		}
		loads := named && skillsDirNameLoads(m.Name)
		ids = append(ids, name+"@skills-dir")
		if loads {
			loading = append(loading, name+"@skills-dir")
		}
	}
	sort.Strings(ids)
	sort.Strings(loading)
	return ids, loading
}

// skillsDirNameLoads says whether Claude Code 2.1.332 loads a skills-dir
// plugin by this manifest name: not empty, and none of "@", ":", "/",
// "\\", white space as JavaScript's \s reads it (a tab, U+00A0, U+3000),
// a control, format (U+202E, U+200B), surrogate or private-use
// character, nor one of the invisible ones it lists (invisibleInName).
// Checking only for a space named a plugin whose name held a tab or
// U+00A0 as loading, and it loaded nothing. Claude Code refuses an
// unassigned character too, by its JavaScript engine's Unicode version,
// not Go's: one assigned there and not here would go unnamed, so such a
// name is taken as loading (a notice too many, never one too few).
func skillsDirNameLoads(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		switch {
		case strings.ContainsRune(`@:/\`, r), unicode.IsSpace(r),
			unicode.In(r, unicode.Cc, unicode.Cf, unicode.Cs, unicode.Co),
			unicode.Is(invisibleInName, r):
			return false
		}
	}
	return true
}

// invisibleInName are the characters Claude Code 2.1.332 refuses in a
// plugin name besides the categories skillsDirNameLoads checks: ones that
// show as nothing (a combining grapheme joiner, Hangul fillers, variation
// selectors, U+2800), copied from its list.
var invisibleInName = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x00ad, Hi: 0x00ad, Stride: 1},
		{Lo: 0x034f, Hi: 0x034f, Stride: 1},
		{Lo: 0x061c, Hi: 0x061c, Stride: 1},
		{Lo: 0x115f, Hi: 0x1160, Stride: 1},
		{Lo: 0x17b4, Hi: 0x17b5, Stride: 1},
		{Lo: 0x180b, Hi: 0x180f, Stride: 1},
		{Lo: 0x200b, Hi: 0x200f, Stride: 1},
		{Lo: 0x2028, Hi: 0x2029, Stride: 1},
		{Lo: 0x202a, Hi: 0x202e, Stride: 1},
		{Lo: 0x2060, Hi: 0x206f, Stride: 1},
		{Lo: 0x2800, Hi: 0x2800, Stride: 1},
		{Lo: 0x3164, Hi: 0x3164, Stride: 1},
		{Lo: 0xfe00, Hi: 0xfe0f, Stride: 1},
		{Lo: 0xfeff, Hi: 0xfeff, Stride: 1},
		{Lo: 0xffa0, Hi: 0xffa0, Stride: 1},
		{Lo: 0xfff0, Hi: 0xfffb, Stride: 1},
	},
	R32: []unicode.Range32{
		{Lo: 0x1107f, Hi: 0x1107f, Stride: 1},
		{Lo: 0x13430, Hi: 0x1343f, Stride: 1},
		{Lo: 0x16fe4, Hi: 0x16fe4, Stride: 1},
		{Lo: 0x1bca0, Hi: 0x1bca3, Stride: 1},
		{Lo: 0x1d173, Hi: 0x1d17a, Stride: 1},
		{Lo: 0xe0000, Hi: 0xe0fff, Stride: 1},
	},
}

// readSettingsArg reads a --settings value: a JSON object, or the path of
// a file holding one (relative to wd).
func readSettingsArg(v, wd string) (map[string]any, error) {
	if isInlineSettings(v) {
		var m map[string]any
		if err := json.Unmarshal([]byte(v), &m); err != nil {
			return nil, errors.New("not a JSON object bundlectl can read")
		}
		return m, nil
	}
	if !filepath.IsAbs(v) {
		v = filepath.Join(wd, v)
	}
	m, err := hosts.ReadSettings(v)
	if err == nil && m == nil {
		return nil, errors.New("no such file")
	}
	return m, err
}

// ownNotes names each plugin of the user's own that loads beside the
// views, one line each.
func (st *ownState) ownNotes() []string {
	var out []string
	for _, p := range st.plugins {
		if p.forced {
			out = append(out, fmt.Sprintf("claude: your own plugin %s loads beside the views, never reviewed by bundlectl (managed settings %s turn it on, and --exclusive cannot keep it out)", bundle.Quote(p.id), bundle.Quote(p.source)))
			continue
		}
		out = append(out, fmt.Sprintf("claude: your own plugin %s loads beside the views, never reviewed by bundlectl (bundlectl exec --exclusive -- claude keeps it out)", bundle.Quote(p.id)))
	}
	for _, a := range st.args.plugins {
		out = append(out, fmt.Sprintf("claude: your own plugin %s (your argument %s) loads beside the views, never reviewed by bundlectl (leave the argument out to keep it out)", bundle.Quote(a.value), a.option))
	}
	return out
}

// exclusive returns the enabledPlugins entries that keep every plugin of
// the user's own out of the session, each set to false, over the entries
// of the user's own last --settings (nil when there are none). It refuses
// what no session setting can keep out: a plugin managed settings turn
// on, one the user's own arguments load or turn on.
func (st *ownState) exclusive() (map[string]any, error) {
	for _, a := range st.args.plugins {
		return nil, &hosts.NotExclusiveError{Host: "claude", Plugin: a.value, Source: a.option,
			Why: "it is your own argument", Fix: "leave it out of the arguments (a plugin you want beside the views can be reviewed and trusted as a bundle)"}
	}
	for _, p := range st.plugins {
		switch {
		case p.forced:
			return nil, &hosts.NotExclusiveError{Host: "claude", Plugin: p.id, Source: p.source,
				Why: "managed settings outrank every setting a session can add", Fix: "ask whoever manages this machine's Claude Code settings, or start the agent without --exclusive"}
		case p.source == "--settings":
			return nil, &hosts.NotExclusiveError{Host: "claude", Plugin: p.id, Source: "--settings",
				Why: "it is your own argument", Fix: "leave it out of the arguments, or set it to false there"}
		}
	}
	if len(st.mentions) == 0 {
		return nil, nil
	}
	off := map[string]any{}
	for _, id := range st.mentions {
		off[id] = false
	}
	return off, nil
}

// sessionSettings returns what exec gives Claude Code as its one
// --settings argument, or nil for none: with exclusive, enabledPlugins
// turning off every plugin of the user's own (exclusive); with pin,
// "disableAllHooks": false, so that the switch the settings files turn
// back on for the session (hooksOff's undone) stays on whichever of them
// Claude Code drops, below the managed settings alone. Claude Code reads
// only the last --settings, so when the user gave one its settings are
// carried over, the rest of them as they are — unless Claude Code drops
// them for its schema (schemaDrop): carried, they would take the pin and
// the enabledPlugins entries down with them, and left out they change
// nothing Claude Code would have read; drop then says why, for a note.
func (st *ownState) sessionSettings(exclusive, pin bool) (set map[string]any, drop *schemaError, err error) {
	var off map[string]any
	if exclusive {
		if off, err = st.exclusive(); err != nil {
			return nil, nil, err
		}
	}
	if off == nil && !pin {
		return nil, nil, nil // the user's own --settings, if any, stays as given
	}
	out, entries := map[string]any{}, map[string]any{}
	if st.args.hasSettings {
		m, err := readSettingsArg(st.args.settings, st.wd)
		if err != nil {
			return nil, nil, err
		}
		if drop = schemaDrop(m); drop != nil {
			m = nil
		}
		if where := unvouched(m); where != "" {
			if exclusive {
				return nil, nil, st.carryRefused(where)
			}
			return nil, nil, st.pinRefused(where)
		}
		maps.Copy(out, m)
		if e, ok := m["enabledPlugins"].(map[string]any); ok {
			maps.Copy(entries, e)
		}
	}
	maps.Copy(entries, off)
	if len(entries) > 0 {
		out["enabledPlugins"] = entries
	}
	if pin {
		out["disableAllHooks"] = false
	}
	return out, drop, nil
}

// carryRefused refuses an exclusive launch whose --settings, carried into
// the session's own, holds at where a value the schema model cannot
// vouch Claude Code reads (unvouched): were Claude Code to drop the
// session's settings for it, the enabledPlugins entries that turn the
// user's plugins off would go with them, and those plugins would load
// (agenttest TestExecClaudeExclusiveCarriedUnmodelledDrop).
func (st *ownState) carryRefused(where string) error {
	name := "--settings"
	if !isInlineSettings(st.args.settings) {
		name += " " + st.args.settings
	}
	return &hosts.NotExclusiveError{Host: "claude", Source: name,
		Why: "its " + bundle.Quote(where) + " is a value bundlectl cannot tell Claude Code reads, and were Claude Code to drop the session's settings for it, the entries that keep your plugins out would go with them",
		Fix: "move that value into a settings file, or start without --exclusive"}
}

// pinRefused refuses a pinned launch whose --settings, carried into the
// session's own beside the pin, holds at where a value the schema model
// cannot vouch Claude Code reads (unvouched): were Claude Code to drop
// the session's settings for it, the pin would go with them, and the
// "disableAllHooks": true it holds off would keep the guards from
// running.
func (st *ownState) pinRefused(where string) error {
	return &hosts.HooksOffError{Host: "claude", File: "--settings",
		Text: "bundlectl exec -- claude loads the active bundles' guards as hooks and must keep your settings' \"disableAllHooks\": true off in the --settings it gives Claude Code, which carries yours; your --settings holds " + bundle.Quote(where) + ", a value bundlectl cannot tell Claude Code reads, and were Claude Code to drop the session's settings for it, the guards would not run, so the agent is not started: move that value into a settings file",
		Args: st.args.settingsAt}
}
