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
// or an interpreter (DESIGN.md §7), plus BUNDLECTL_*, which would let a
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

// BuildEnv returns a child's complete environment, built from nothing in
// four layers, each replacing earlier values of the same name:
//
//  1. from host (an os.Environ()-style list; the last duplicate wins):
//     PATH with empty and relative entries removed (omitted when nothing
//     is left), HOME, USER, LOGNAME, LANG, LC_*, TERM, TZ, TMPDIR;
//  2. reviewed, the bundle's literal env after placeholder expansion;
//  3. envFrom, DEST -> host SOURCE: DEST gets the host's SOURCE value
//     (empty if set but empty); a SOURCE the host does not set
//     contributes nothing, so DEST keeps an earlier layer's value or
//     stays absent;
//  4. PLUGIN_ROOT and PLUGIN_DATA.
//
// Destinations for which DeniedEnvName is true, or that are not valid
// names, or values containing NUL, are dropped from layers 2 and 3 even
// though validation already rejects them. The result is sorted by name so
// that the same inputs always give the same block.
func BuildEnv(host []string, reviewed map[string]string, envFrom map[string]string, pluginRoot, pluginData string) []string {
	hostVars := make(map[string]string, len(host))
	for _, kv := range host {
		if k, v, ok := strings.Cut(kv, "="); ok && validEnvName(k) && strings.IndexByte(v, 0) < 0 {
			hostVars[k] = v
		}
	}
	env := map[string]string{}
	for k, v := range hostVars {
		switch {
		case k == "PATH":
			if p := CleanPath(v); p != "" {
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
	for k, v := range reviewed {
		if settable(k, v) {
			env[k] = v
		}
	}
	for dest, src := range envFrom {
		if v, ok := hostVars[src]; ok && settable(dest, v) {
			env[dest] = v
		}
	}
	env[EnvPluginRoot] = pluginRoot
	env[EnvPluginData] = pluginData

	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// CleanPath returns the PATH value with empty and relative entries
// removed: either would make a bare command name resolve in the working
// directory, which is the workspace, not reviewed content.
func CleanPath(path string) string {
	var keep []string
	for _, dir := range filepath.SplitList(path) {
		if dir != "" && filepath.IsAbs(dir) {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}
