package gemini

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bundlectl/bundlectl/hosts"
)

// envExclusion is advanced.excludedEnvVars as Gemini CLI 0.61's
// loadEnvironment reads it from the settings it has merged
// (mergeSettings: the schema's default ["DEBUG", "DEBUG_MODE"], then the
// system defaults, the user's, the workspace's when it trusts the folder
// at load, the system's; a "$VAR" in an entry filled in from the
// environment first — the session's, which is not setup's, and, when
// Gemini CLI reads its settings again, with what the .env file it loaded
// set: such an entry surely keeps nothing out and may keep anything
// out). The lists are merged as a union, so no file takes
// an entry out; an "advanced" that is not an object replaces everything
// below it. What loadEnvironment does with the result: settings'
// list || DEFAULT_EXCLUDED_ENV_VARS, then list.includes(key) for a
// project's .env (projectEnvFile) — a substring test for a string, and
// for another value a TypeError that its catch swallows, loading no
// more of the file.
type envExclusion struct {
	list   []string // the entries, when the merged value is a list
	text   string   // the merged value, when it is a string
	isText bool
	// throws: the merged value is one list.includes is no function of.
	throws bool
	// unread: a settings file bundlectl could not read, whose list
	// cannot be known.
	unread bool
	// dyn: which entries (of list, or text) name an environment
	// variable ("$X", "${X:-Y}"), whose value in the session is not
	// surely the one here: setup runs once, the session later in another
	// environment, and Gemini CLI reads its settings again with what the
	// .env file it loaded set filled in.
	dyn     []bool
	textDyn bool
}

// excludes reports whether e surely keeps key out of a project's .env.
// Where Gemini CLI throws, it may have loaded key before, and an unread
// file may replace the list: not sure.
func (e envExclusion) excludes(key string) bool {
	if e.throws || e.unread {
		return false
	}
	if e.isText {
		return !e.textDyn && strings.Contains(e.text, key)
	}
	for i, s := range e.list {
		if s == key && !e.dyn[i] {
			return true
		}
	}
	return false
}

// mayExclude reports whether e may keep key out of a project's .env.
func (e envExclusion) mayExclude(key string) bool {
	if e.isText {
		return e.throws || e.unread || e.textDyn || strings.Contains(e.text, key)
	}
	return e.throws || e.unread || slices.Contains(e.dyn, true) || slices.Contains(e.list, key)
}

// schemaExcludedEnv is the default of advanced.excludedEnvVars in Gemini
// CLI's settings schema, which every merge starts from.
var schemaExcludedEnv = []any{"DEBUG", "DEBUG_MODE"}

// mergedExclusion is advanced.excludedEnvVars merged from the settings
// files layers (settingsLayersAt's order: the one that decides first),
// env the environment they are read in.
func mergedExclusion(layers, env []string) envExclusion {
	var e envExclusion
	adv := true                   // "advanced" is an object
	var v any = schemaExcludedEnv // its excludedEnvVars; nil when absent
	for i := len(layers) - 1; i >= 0; i-- {
		m, err := hosts.ReadSettings(layers[i])
		if err != nil {
			e.unread = true
			continue
		}
		a, set := m["advanced"]
		if !set {
			continue
		}
		obj, isObj := a.(map[string]any)
		if !isObj {
			adv, v = false, nil
			continue
		}
		if !adv {
			adv, v = true, nil // an object over a replaced one starts afresh
		}
		src, set := obj["excludedEnvVars"]
		if !set {
			continue
		}
		if below, ok := v.([]any); ok {
			add, ok := src.([]any)
			if !ok {
				add = []any{src}
			}
			v = append(slices.Clone(below), add...) // a union: includes is all that reads it
			continue
		}
		v = src
	}
	// A string that is empty here may not be in the session: then the
	// defaults are not surely the list either.
	defaultsDyn := false
	if !truthy(expandStrings(v, env)) {
		s, _ := v.(string)
		defaultsDyn = hasEnvRef(s)
		v = []any{"DEBUG", "DEBUG_MODE", "GEMINI_CLI_IDE_SERVER_STDIO_COMMAND", "GEMINI_CLI_IDE_SERVER_STDIO_ARGS"} // DEFAULT_EXCLUDED_ENV_VARS
	}
	switch x := v.(type) {
	case []any:
		for _, s := range x {
			if s, ok := s.(string); ok {
				e.list = append(e.list, expandEnv(s, env))
				e.dyn = append(e.dyn, defaultsDyn || hasEnvRef(s))
			}
		}
	case string:
		e.text, e.isText, e.textDyn = expandEnv(x, env), true, hasEnvRef(x)
	default:
		e.throws = true
	}
	return e
}

// hasEnvRef reports whether Gemini CLI fills in an environment variable
// in the settings string s (expandEnv): its value may differ between
// the environment bundlectl sees and the session's.
func hasEnvRef(s string) bool {
	return envRef().MatchString(s)
}

// expandStrings is v with the environment variables of each string in it
// filled in, as Gemini CLI's resolveEnvVarsInObject does to a settings
// file before it merges it.
func expandStrings(v any, env []string) any {
	switch x := v.(type) {
	case string:
		return expandEnv(x, env)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = expandStrings(e, env)
		}
		return out
	}
	return v
}

// projectEnvFile reports whether Gemini CLI surely takes the .env file f
// for a project's, the only kind advanced.excludedEnvVars applies to: its
// test is that the path holds no ".gemini" anywhere. The path it tests
// is the one its walk up from its working directory made, which the
// kernel gives with links resolved, so both spellings of the directory
// must pass (envFileSpelling). The .env itself is not resolved: a .env
// that is a link to a file under a .gemini directory is a project's
// (internal/agenttest TestGeminiEnvSettingsForms link-gemini-target).
func projectEnvFile(f string) bool {
	if _, err := os.Stat(f); err != nil || strings.Contains(f, ".gemini") {
		return false // Gemini CLI loads no file it cannot stat
	}
	real, err := envFileSpelling(f)
	return err == nil && !strings.Contains(real, ".gemini")
}

// mayProjectEnvFile reports whether Gemini CLI may take the .env file f
// for a project's (projectEnvFile).
func mayProjectEnvFile(f string) bool {
	if !strings.Contains(f, ".gemini") {
		return true
	}
	real, err := envFileSpelling(f)
	return err != nil || !strings.Contains(real, ".gemini")
}

// envFileSpelling is the .env file f as Gemini CLI's walk up from its
// working directory, links resolved, spells it: f's directory with its
// links resolved, and f's own name, a link or not.
func envFileSpelling(f string) (string, error) {
	dir, err := filepath.EvalSymlinks(filepath.Dir(f))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(f)), nil
}

// surelyExcluded reports whether Gemini CLI (0.61) surely keeps key out
// of the .env file f in a session started in cwd with args, where it
// loads the file as a trusted folder's: then it has merged the
// workspace's settings too, but for --skip-trust, after which it may
// load the whole file again with settings merged in an untrusted folder,
// without them (so both must exclude key).
func surelyExcluded(user string, env, args []string, cwd, f, key string) bool {
	if !projectEnvFile(f) {
		return false
	}
	layers := settingsLayersAt(user, cwd, env)
	if !mergedExclusion(layers, env).excludes(key) {
		return false
	}
	return !skipsTrust(args) || mergedExclusion(withoutWorkspace(layers), env).excludes(key)
}

// mayBeExcluded reports whether Gemini CLI (0.61) may keep key out of the
// .env file f in a session started in cwd, with the workspace's settings
// merged or not.
func mayBeExcluded(user string, env []string, cwd, f, key string) bool {
	if !mayProjectEnvFile(f) {
		return false
	}
	layers := settingsLayersAt(user, cwd, env)
	return mergedExclusion(layers, env).mayExclude(key) || mergedExclusion(withoutWorkspace(layers), env).mayExclude(key)
}
