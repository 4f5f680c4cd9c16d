package gemini

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/hosts"
)

// containerSandboxes are the sandboxes in which Gemini CLI 0.61 runs
// itself again in a container that sees the working directory and a copy
// of the user's settings alone: no extension, so no view and none of its
// guards (internal/agenttest TestExecGeminiSandbox). sandbox-exec (macOS)
// runs on the same file system, and is not one.
var containerSandboxes = map[string]bool{"docker": true, "podman": true, "runsc": true, "lxc": true}

// sandboxOff refuses a launch that Gemini CLI would run in a container
// sandbox, as its loadSandboxConfig and getSandboxCommand decide: nothing
// when SANDBOX is set (it takes itself for inside one), in the environment
// or surely by the .env file it loads; else GEMINI_SANDBOX when set (from
// a .env file it may load when the environment does not set it), over
// the -s/--sandbox argument (sandboxArg), over tools.sandbox merged across
// the settings layers as Gemini CLI merges them (the workspace's counted
// either way, as it may not be read); true picks docker, else podman, from
// its PATH (not on macOS with sandbox-exec). sessions is the directory
// exec makes the session's Gemini CLI home in ("" for none), whose .env
// links the user's: Gemini CLI reads it at that path.
func sandboxOff(user string, env, args []string, sessions string) error {
	get := func(k string) (string, bool) { return envLookup(env, k) }
	dot := loadDotEnv(user, env, args, workingDir())
	dot.sessions = sessions
	if v, _ := get("SANDBOX"); v != "" {
		return nil
	}
	if v, _ := dot.sure("SANDBOX"); v != "" {
		return nil
	}
	refuse := func(cmd, why string) *hosts.HooksOffError {
		return &hosts.HooksOffError{Host: "gemini", Text: fmt.Sprintf("bundlectl exec -- gemini loads the active bundles' guards as hooks, and %s makes Gemini CLI run itself in a %s sandbox, which sees the working directory and your settings but no extension: the views and their guards would not load there, so the agent is not started: start it without the sandbox, or run bundlectl inside the container", why, cmd)}
	}
	v, ok := get("GEMINI_SANDBOX")
	dotEnv := ""
	if !ok {
		v, dotEnv = dot.may("GEMINI_SANDBOX")
	}
	if jsTrim(v) != "" {
		c := sandboxCommand(strings.ToLower(jsTrim(v)), env)
		switch {
		case !containerSandboxes[c]:
			return nil
		case dotEnv != "":
			// GEMINI_SANDBOX set, even empty, keeps the file's out.
			off := refuse(c, fmt.Sprintf("the .env file %s, which sets GEMINI_SANDBOX=%s and which Gemini CLI loads into its environment,", bundle.Quote(dotEnv), v))
			off.Text += " (take GEMINI_SANDBOX out of the file, or set it empty for the session, as below)"
			off.SetEnv = "GEMINI_SANDBOX="
			return off
		}
		off := refuse(c, "GEMINI_SANDBOX="+v)
		off.Env = "GEMINI_SANDBOX"
		return off
	}
	if a, ok := sandboxArg(args); ok {
		if c := sandboxCommand(a.on, env); containerSandboxes[c] {
			off := refuse(c, "the argument "+bundle.Quote(a.arg))
			off.Args = a.at
			return off
		}
		return nil
	}
	layers := settingsLayers(user, env)
	for _, ls := range [][]string{layers, withoutWorkspace(layers)} {
		v, files := mergedSandbox(ls)
		if c := sandboxCommand(sandboxValue(v), env); containerSandboxes[c] {
			f := files[0]
			why := bundle.Quote(f) + `'s "tools": {"sandbox": ` + jsonText(fileSandbox(f)) + "}"
			if len(files) > 1 {
				var below []string
				for _, b := range files[1:] {
					below = append(below, bundle.Quote(b))
				}
				why += ", merged over that of " + strings.Join(below, " and ") + " into " + jsonText(v) + ","
			}
			off := refuse(c, why)
			off.Text += " (--no-sandbox, or take the setting out)"
			off.File, off.Pattern = f, hosts.SettingIn(f, hosts.JSONString("sandbox"))
			return off
		}
	}
	return nil
}

// fileSandbox is tools.sandbox in settings file f, nil when it has none
// or cannot be read (an unreadable file is hooksOff's to refuse).
func fileSandbox(f string) any {
	m, err := hosts.ReadSettings(f)
	if err != nil || m == nil {
		return nil
	}
	tools, _ := m["tools"].(map[string]any)
	return tools["sandbox"]
}

// mergedSandbox is tools.sandbox as Gemini CLI's customDeepMerge makes it
// from layers (the one that decides first): an object merged key by key
// over an object below it, anything else replacing what is below; and the
// files that made it, the deciding one first.
func mergedSandbox(layers []string) (any, []string) {
	var v any
	var files []string
	for i := len(layers) - 1; i >= 0; i-- {
		m, err := hosts.ReadSettings(layers[i])
		if err != nil || m == nil {
			continue
		}
		t, set := m["tools"]
		if !set {
			continue
		}
		tools, ok := t.(map[string]any)
		if !ok {
			v, files = nil, nil // a tools that is not an object replaces all below
			continue
		}
		s, set := tools["sandbox"]
		if !set {
			continue
		}
		below, isObj := v.(map[string]any)
		obj, ok := s.(map[string]any)
		if ok && isObj {
			merged := maps.Clone(below)
			maps.Copy(merged, obj)
			v = merged
		} else {
			v, files = s, nil
			if ok {
				v = maps.Clone(obj)
			}
		}
		files = append([]string{layers[i]}, files...)
	}
	return v, files
}

// sandboxValue is the value loadSandboxConfig hands getSandboxCommand for
// tools.sandbox v: an object's command (true when it has none) if it is
// enabled, else false; an array, nothing.
func sandboxValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if !truthy(x["enabled"]) {
			return false
		}
		if c, ok := x["command"]; ok && c != nil {
			return c
		}
		return true
	case []any:
		return nil
	}
	return v
}

// sandboxCommand is getSandboxCommand's choice for v: "1" or "true" is
// true, and true picks a sandbox (trueSandbox); "", "0", "false" and any
// false value is none; another string names the sandbox (Gemini CLI stops
// with an error when it is not one it knows); any other value, none.
func sandboxCommand(v any, env []string) string {
	switch x := v.(type) {
	case bool:
		if x {
			return trueSandbox(env)
		}
	case string:
		switch x {
		case "", "0", "false":
			return ""
		case "1", "true":
			return trueSandbox(env)
		}
		return x
	}
	return ""
}

// sandboxFlag is the -s/--sandbox argument that decides the sandbox.
type sandboxFlag struct {
	arg string // as written, with a value taken from the next argument
	on  bool
	at  []int // its indexes in the agent's arguments
}

// sandboxArg reads the user's -s/--sandbox arguments as Gemini CLI's
// parser (yargs-parser) does a boolean, the last one deciding: -s,
// --sandbox, --s, and s in a short group (-ds) are true, or take a next
// argument "true" or "false"; --sandbox=X, --s=X and -s=X are true only
// for X "true"; --no-sandbox and --no-s are false. Arguments after "--"
// are the prompt's.
func sandboxArg(args []string) (sandboxFlag, bool) {
	var last sandboxFlag
	found := false
	set := func(f sandboxFlag) { last, found = f, true }
	// bare is a -s or --sandbox without "=": true, or the next argument
	// when that is "true" or "false".
	bare := func(i int, at []int) int {
		if i+1 < len(args) && (args[i+1] == "true" || args[i+1] == "false") {
			set(sandboxFlag{arg: args[i] + " " + args[i+1], on: args[i+1] == "true", at: append(at, i+1)})
			return i + 1
		}
		set(sandboxFlag{arg: args[i], on: true, at: at})
		return i
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' || negativeRe().MatchString(a) || strings.HasPrefix(a, "---") {
			continue
		}
		if strings.HasPrefix(a, "--") {
			k, v, eq := strings.Cut(a[2:], "=")
			switch {
			case (k == "no-sandbox" || k == "no-s") && !eq:
				set(sandboxFlag{arg: a, at: []int{i}})
			case k != "sandbox" && k != "s":
			case eq:
				set(sandboxFlag{arg: a, on: v == "true", at: []int{i}})
			default:
				i = bare(i, []int{i})
			}
			continue
		}
		// A short group: the hint drops it whole, its other letters with
		// it.
		last, open := shortGroup(a, func(letter rune, value string, hasValue bool) {
			if letter == 's' {
				set(sandboxFlag{arg: a, on: !hasValue || value == "true", at: []int{i}})
			}
		})
		if open && last == 's' {
			i = bare(i, []int{i})
		}
	}
	return last, found
}

// trueSandbox is the sandbox Gemini CLI picks for "true": sandbox-exec on
// macOS when it has it, else docker, else podman, found in its PATH; ""
// when none is (Gemini CLI then stops with an error).
func trueSandbox(env []string) string {
	if runtime.GOOS == "darwin" && inPath("sandbox-exec", env) {
		return "sandbox-exec"
	}
	for _, c := range []string{"docker", "podman"} {
		if inPath(c, env) {
			return c
		}
	}
	return ""
}

// inPath reports whether an executable file name is in env's PATH.
func inPath(name string, env []string) bool {
	path, _ := envPath(env)
	return pathHas(path, name)
}

// envLookup is k's value in env as the child started with env sees it:
// the last entry wins, as os/exec keeps the last of duplicates.
func envLookup(env []string, k string) (v string, set bool) {
	for _, kv := range env {
		if s, ok := strings.CutPrefix(kv, k+"="); ok {
			v, set = s, true
		}
	}
	return v, set
}

// envPath is env's PATH, and whether env sets one.
func envPath(env []string) (path string, set bool) { return envLookup(env, "PATH") }

// pathHas reports whether a directory of path holds an executable file
// name, searched as node's spawn searches it (an empty entry is the
// working directory).
func pathHas(path, name string) bool {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		fi, err := os.Stat(filepath.Join(dir, name))
		if err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return true
		}
	}
	return false
}
