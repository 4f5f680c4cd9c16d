package harness

import (
	"path/filepath"
	"sort"
	"strings"
)

// Names set last in every child environment. PLUGIN_ROOT is the snapshot
// path, PLUGIN_DATA the bundle's data directory.
const (
	EnvPluginRoot = "PLUGIN_ROOT"
	EnvPluginData = "PLUGIN_DATA"
)

// hostAllowlist are the host variables every child inherits; LC_* is
// matched separately.
var hostAllowlist = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "LANG": true,
	"TERM": true, "TZ": true, "TMPDIR": true,
}

// deniedExact and deniedPrefixes are the destinations that steer a loader
// or an interpreter (docs/harness.md), plus BUNDLECTL_*, which would let a
// bundle redirect a nested bundlectl (its home, its hook depth).
var (
	deniedExact = map[string]bool{
		"NODE_OPTIONS": true, "PYTHONPATH": true, "PYTHONHOME": true,
		"PYTHONSTARTUP": true, "PERL5OPT": true, "PERL5LIB": true,
		"RUBYOPT": true, "BASH_ENV": true, "ENV": true, "PATH": true,
	}
	deniedPrefixes = []string{"LD_", "DYLD_", "GIT_", "BUNDLECTL_"}
)

// DeniedEnvName reports whether name may never be set by a bundle's env or
// env_from: LD_*, DYLD_*, NODE_OPTIONS, PYTHONPATH, PYTHONHOME,
// PYTHONSTARTUP, PERL5OPT, PERL5LIB, RUBYOPT, BASH_ENV, ENV, GIT_*,
// *_PROXY, PATH and BUNDLECTL_*. The comparison ignores case: curl and
// others honour http_proxy in lower case, and Windows names are
// case-insensitive. Validation and BuildEnv share this one list.
func DeniedEnvName(name string) bool {
	u := strings.ToUpper(name)
	if deniedExact[u] || strings.HasSuffix(u, "_PROXY") {
		return true
	}
	for _, p := range deniedPrefixes {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return false
}

// validEnvName reports whether name can be a variable name in an
// environment block at all.
func validEnvName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "=\x00")
}

// BuildEnv returns a child's complete environment for a component of
// bundlectl's own formats; see EnvSpec.Build.
func BuildEnv(host []string, reviewed map[string]string, envFrom map[string]string, pluginRoot, pluginData string) []string {
	return EnvSpec{Host: host, Reviewed: reviewed, EnvFrom: envFrom, PluginRoot: pluginRoot, PluginData: pluginData}.Build()
}

// EnvSpec is everything a child's environment is built from.
type EnvSpec struct {
	Host     []string          // the host environment, os.Environ() style
	Reviewed map[string]string // the component's literal env, expanded
	EnvFrom  map[string]string // DEST -> host SOURCE
	// Vars are the host variables the component's strings reference
	// (${VAR} in a host format, $VAR in a shell string): copied as is.
	Vars                   []string
	PluginRoot, PluginData string
	// HostPlugin adds the variables a host gives its plugins'
	// processes: CLAUDE_PLUGIN_ROOT, CLAUDE_PLUGIN_DATA,
	// CLAUDE_PROJECT_DIR (ProjectDir) and CLAUDE_PLUGIN_OPTION_<KEY> for
	// each configured option.
	HostPlugin bool
	// SkillHook leaves CLAUDE_PLUGIN_DATA out: Claude Code gives a
	// skill's front-matter hooks CLAUDE_PLUGIN_ROOT (the plugin's root)
	// but no data directory (internal/agenttest
	// TestClaudeSkillHookPluginVars).
	SkillHook  bool
	ProjectDir string
	Options    map[string]string
	// Settings are the configured values of the settings a Gemini CLI
	// manifest declares, by the envVar each is exported as (Gemini CLI
	// sets them in its extensions' processes; bundlectl, starting those
	// processes itself, does too).
	Settings map[string]string
}

// Build returns the environment, built from nothing in layers, each
// replacing earlier values of the same name:
//
//  1. from Host (the last duplicate wins): PATH with empty and relative
//     entries removed (omitted when nothing is left), HOME, USER, LOGNAME,
//     LANG, LC_*, TERM, TZ, TMPDIR;
//  2. Vars, each the host's value when it sets one, then Settings,
//     which replace a host value of the same name;
//  3. Reviewed, the component's literal env after expansion;
//  4. EnvFrom, DEST -> host SOURCE: DEST gets the host's SOURCE value
//     (empty if set but empty); a SOURCE the host does not set
//     contributes nothing;
//  5. PLUGIN_ROOT and PLUGIN_DATA, and with HostPlugin the host's plugin
//     variables.
//
// Destinations for which DeniedEnvName is true, or that are not valid
// names, or values containing NUL, are dropped from layers 2 to 4 even
// though validation already rejects them. The result is sorted by name so
// that the same inputs always give the same block.
func (s EnvSpec) Build() []string {
	hostVars := make(map[string]string, len(s.Host))
	for _, kv := range s.Host {
		if k, v, ok := strings.Cut(kv, "="); ok && validEnvName(k) && strings.IndexByte(v, 0) < 0 {
			hostVars[k] = v
		}
	}
	env := map[string]string{}
	for k, v := range hostVars {
		switch {
		case k == "PATH":
			if p := CleanPath(v, s.ProjectDir); p != "" {
				env[k] = p
			}
		case hostAllowlist[k], strings.HasPrefix(k, "LC_"):
			env[k] = v
		}
	}
	settable := func(k, v string) bool {
		return validEnvName(k) && !DeniedEnvName(k) && strings.IndexByte(v, 0) < 0 &&
			k != EnvPluginRoot && k != EnvPluginData
	}
	for _, k := range s.Vars {
		if v, ok := hostVars[k]; ok && settable(k, v) {
			env[k] = v
		}
	}
	for k, v := range s.Settings {
		if settable(k, v) {
			env[k] = v
		}
	}
	for k, v := range s.Reviewed {
		if settable(k, v) {
			env[k] = v
		}
	}
	for dest, src := range s.EnvFrom {
		if v, ok := hostVars[src]; ok && settable(dest, v) {
			env[dest] = v
		}
	}
	env[EnvPluginRoot] = s.PluginRoot
	env[EnvPluginData] = s.PluginData
	if s.HostPlugin {
		env["CLAUDE_PLUGIN_ROOT"] = s.PluginRoot
		if !s.SkillHook {
			env["CLAUDE_PLUGIN_DATA"] = s.PluginData
		}
		if s.ProjectDir != "" {
			env["CLAUDE_PROJECT_DIR"] = s.ProjectDir
		}
		for k, v := range s.Options {
			name := "CLAUDE_PLUGIN_OPTION_" + strings.ToUpper(k)
			if validEnvName(name) && strings.IndexByte(v, 0) < 0 {
				env[name] = v
			}
		}
	}

	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// CleanPath returns the PATH value with empty and relative entries
// removed, and every entry inside the workspace (a project's
// node_modules/.bin, a checked-in bin/): each would make a bare command
// name resolve to the workspace's code, not reviewed content or the
// system's. "Inside" is judged both as written and with links resolved,
// for the entry and the workspace alike, so a link into the workspace (or
// a workspace named through a link) does not hide one.
func CleanPath(path, workspace string) string {
	var keep []string
	var wss []string
	if workspace != "" && filepath.IsAbs(workspace) {
		wss = append(wss, filepath.Clean(workspace))
		if r, err := filepath.EvalSymlinks(workspace); err == nil && r != wss[0] {
			wss = append(wss, r)
		}
	}
	inside := func(dir string) bool {
		for _, ws := range wss {
			if dir == ws || strings.HasPrefix(dir, ws+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		if inside(filepath.Clean(dir)) {
			continue
		}
		if len(wss) > 0 {
			if r, err := filepath.EvalSymlinks(dir); err == nil && inside(r) {
				continue
			}
		}
		keep = append(keep, dir)
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}
