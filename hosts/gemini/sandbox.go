package gemini

import (
	"fmt"
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
// sandbox, as its getSandboxCommand decides: nothing when SANDBOX is set
// (it takes itself for inside one); else GEMINI_SANDBOX when set, over the
// -s/--sandbox/--no-sandbox argument, over tools.sandbox in the settings
// layer that decides it (the workspace's counted either way, as it may
// not be read); true picks docker, else podman, from its PATH (not on
// macOS with sandbox-exec).
func sandboxOff(user string, env, args []string) error {
	get := func(k string) (string, bool) {
		v, ok := "", false
		for _, kv := range env {
			if s, found := strings.CutPrefix(kv, k+"="); found {
				v, ok = s, true
			}
		}
		return v, ok
	}
	if v, _ := get("SANDBOX"); v != "" {
		return nil
	}
	pick := func(v any) string {
		switch x := v.(type) {
		case bool:
			if x {
				return trueSandbox(env)
			}
		case string:
			s := strings.ToLower(strings.TrimSpace(x))
			switch s {
			case "", "0", "false":
				return ""
			case "1", "true":
				return trueSandbox(env)
			}
			return s
		case map[string]any:
			if truthy(x["enabled"]) {
				if c, ok := x["command"].(string); ok && c != "" {
					return strings.ToLower(c)
				}
				return trueSandbox(env)
			}
		}
		return ""
	}
	refuse := func(cmd, why string) *hosts.HooksOffError {
		return &hosts.HooksOffError{Host: "gemini", Text: fmt.Sprintf("bundlectl exec -- gemini loads the active bundles' guards as hooks, and %s makes Gemini CLI run itself in a %s sandbox, which sees the working directory and your settings but no extension: the views and their guards would not load there, so the agent is not started: start it without the sandbox, or run bundlectl inside the container", why, cmd)}
	}
	if v, ok := get("GEMINI_SANDBOX"); ok && strings.TrimSpace(v) != "" {
		if c := pick(v); containerSandboxes[c] {
			off := refuse(c, "GEMINI_SANDBOX="+v)
			off.Env = "GEMINI_SANDBOX"
			return off
		}
		return nil
	}
	at, flag := -1, any(nil)
	for i, a := range args {
		if a == "--" {
			break
		}
		switch {
		case a == "-s" || a == "--sandbox":
			at, flag = i, true
		case a == "--no-sandbox":
			at, flag = i, false
		case strings.HasPrefix(a, "--sandbox="):
			at, flag = i, strings.TrimPrefix(a, "--sandbox=")
		}
	}
	if at >= 0 {
		if c := pick(flag); containerSandboxes[c] {
			off := refuse(c, "the argument "+bundle.Quote(args[at]))
			off.Args = []int{at}
			return off
		}
		return nil
	}
	layers := settingsLayers(user, env)
	for _, ls := range [][]string{layers, {layers[0], layers[2], layers[3]}} {
		for _, f := range ls {
			m, err := hosts.ReadSettings(f)
			if err != nil || m == nil {
				continue // an unreadable file is hooksOff's to refuse
			}
			tools, _ := m["tools"].(map[string]any)
			v, ok := tools["sandbox"]
			if !ok {
				continue
			}
			if c := pick(v); containerSandboxes[c] {
				off := refuse(c, bundle.Quote(f)+`'s "tools": {"sandbox": `+jsonText(v)+"}")
				off.Text += " (--no-sandbox, or take the setting out)"
				off.File, off.Pattern = f, hosts.SettingIn(f, hosts.JSONString("sandbox"))
				return off
			}
			break
		}
	}
	return nil
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
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
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
