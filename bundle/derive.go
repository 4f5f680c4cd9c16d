package bundle

import (
	"reflect"
	"slices"
	"sort"
	"strings"
)

// deriveModel completes the model after every reader ran: one component
// for each declaration several manifests share, the executables the
// bundle ships, and the host variables it reads.
func deriveModel(b *Bundle) {
	c := &b.Components
	c.Hooks = mergeHooks(c.Hooks)
	c.MCP = mergeByName(c.MCP, func(s MCPServer) string { return s.Name }, func(s *MCPServer) *[]Host { return &s.Hosts })
	c.LSP = mergeByName(c.LSP, func(s LSPServer) string { return s.Name }, func(s *LSPServer) *[]Host { return &s.Hosts })
	c.Monitors = mergeByName(c.Monitors, func(s Monitor) string { return s.Name }, func(s *Monitor) *[]Host { return &s.Hosts })
	c.Apps = mergeByName(c.Apps, func(s App) string { return s.Name }, func(s *App) *[]Host { return &s.Hosts })
	b.UserConfig = mergeByName(b.UserConfig, func(s UserOption) string { return s.Key }, func(s *UserOption) *[]Host { return &s.Hosts })
	b.Executables = executables(b.Tree)
	b.HostVars = hostVarsOf(b)
}

// mergeHooks joins hooks that are the same declaration read through two
// manifests (a hooks file both a Claude Code and a Codex manifest name).
func mergeHooks(hs []Hook) []Hook {
	var out []Hook
	for _, h := range hs {
		merged := false
		for i := range out {
			if sameHook(out[i], h) {
				for _, host := range h.Hosts {
					out[i].Hosts = addHost(out[i].Hosts, host)
				}
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, h)
		}
	}
	return out
}

func sameHook(a, b Hook) bool {
	a.Hosts, b.Hosts, a.Source, b.Source = nil, nil, "", ""
	return reflect.DeepEqual(a, b)
}

// mergeByName joins components of one name declared identically through
// several manifests. Declarations that differ stay apart; checkModel
// refuses two of one name for the same host.
func mergeByName[T any](xs []T, name func(T) string, hosts func(*T) *[]Host) []T {
	var out []T
	for _, x := range xs {
		merged := false
		for i := range out {
			if name(out[i]) != name(x) {
				continue
			}
			a, b := out[i], x
			*hosts(&a), *hosts(&b) = nil, nil
			if equalIgnoringSource(a, b) {
				for _, h := range *hosts(&x) {
					*hosts(&out[i]) = addHost(*hosts(&out[i]), h)
				}
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, x)
		}
	}
	return out
}

// equalIgnoringSource compares two components, ignoring the field that
// only says where each was declared.
func equalIgnoringSource[T any](a, b T) bool {
	va, vb := reflect.ValueOf(&a).Elem(), reflect.ValueOf(&b).Elem()
	if va.Kind() == reflect.Struct {
		if f := va.FieldByName("Source"); f.IsValid() && f.CanSet() {
			f.SetString("")
			vb.FieldByName("Source").SetString("")
		}
	}
	return reflect.DeepEqual(a, b)
}

// executables lists the files a bundle ships that can run: every file
// with an executable bit, everything under bin/ (Claude Code puts it on
// the agent's PATH) and every script a skill carries (skills/*/scripts/).
func executables(t *Tree) []string {
	var out []string
	for _, e := range t.Entries {
		if e.Kind == KindDir {
			continue
		}
		kind := e.Kind
		if kind == KindLink {
			// A link to an executable runs it.
			if target, ok := t.Resolve(e.Path); ok {
				kind = target.Kind
			}
		}
		switch {
		case kind == KindExec, strings.HasPrefix(e.Path, "bin/"), isSkillScript(e.Path):
			out = append(out, e.Path)
		}
	}
	return out
}

func isSkillScript(p string) bool {
	if !strings.Contains(p, "skills/") {
		return false // every path of every walk passes here
	}
	parts := strings.Split(p, "/")
	for i := 0; i+2 < len(parts); i++ {
		if parts[i] == "skills" && i+2 < len(parts) && parts[i+2] == "scripts" {
			return true
		}
	}
	return false
}

// pluginVars are the placeholders hosts and bundlectl fill in themselves:
// referencing one reads nothing from the host.
var pluginVars = map[string]bool{
	"CLAUDE_PLUGIN_ROOT": true, "CLAUDE_PLUGIN_DATA": true, "CLAUDE_PROJECT_DIR": true,
	"PLUGIN_ROOT": true, "PLUGIN_DATA": true, "extensionPath": true, "workspacePath": true,
	"/": true, "pathSeparator": true, "CLAUDE_ENV_FILE": true, "CLAUDE_CODE_REMOTE": true,
	"GEMINI_PROJECT_DIR": true, "CLAUDE_SESSION_ID": true, "CLAUDE_SKILL_DIR": true, "ARGUMENTS": true,
}

// ambientVars reach every child through the environment allowlist; naming
// one reads nothing beyond what every child gets.
var ambientVars = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "LANG": true, "TERM": true,
	"TZ": true, "TMPDIR": true, "PWD": true, "SHELL": true,
}

var (
	braceRef = lazyRegexp(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}`)
	shellRef = lazyRegexp(`\$\{?([A-Za-z_][A-Za-z0-9_]*)`)
)

// HostVarRefs returns the host variables s reads, sorted: ${VAR} and
// ${VAR:-default} references, and, in a shell string, every $VAR whose
// name has no lower-case letter (lower-case names are the script's own
// variables by convention). Placeholders the host or bundlectl fills in,
// and the variables every child gets anyway, are not host variables.
func HostVarRefs(s string, shell bool) []string {
	if !strings.Contains(s, "$") {
		return nil
	}
	var out []string
	re := braceRef
	if shell {
		re = shellRef
	}
	for _, m := range re().FindAllStringSubmatch(s, -1) {
		n := m[1]
		if pluginVars[n] || ambientVars[n] || strings.HasPrefix(n, "LC_") || strings.HasPrefix(n, "CLAUDE_PLUGIN_OPTION_") {
			continue
		}
		if shell && strings.ToUpper(n) != n {
			continue
		}
		out = append(out, n)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// geminiRef is Gemini CLI's own pattern for the variables it resolves
// from its environment in every string of an extension's manifest:
// $NAME (any case, digits too) and ${NAME} or ${NAME:-default} (NAME
// anything up to the brace).
var geminiRef = lazyRegexp(`\$(?:([A-Za-z0-9_]+)|\{([^}]+?)(?::-[^}]*)?\})`)

// GeminiVarRefs returns the host variables a string of a Gemini CLI
// manifest reads, sorted: every name Gemini CLI looks up in its
// environment, lower-case ones too ($http_proxy is read as much as
// $GITHUB_TOKEN), less the placeholders and the variables every child
// gets anyway.
func GeminiVarRefs(s string) []string {
	if !strings.Contains(s, "$") {
		return nil
	}
	var out []string
	for _, m := range geminiRef().FindAllStringSubmatch(s, -1) {
		n := m[1] + m[2]
		if pluginVars[n] || ambientVars[n] || strings.HasPrefix(n, "LC_") {
			continue
		}
		out = append(out, n)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// CodexSendsAsWritten reports whether s is a remote server only Codex
// reads: Codex sends its url and http_headers as written (0.171 expands no
// ${…} in them), and bundlectl exec gives them to Codex so, so a reference
// there reads no host variable.
func CodexSendsAsWritten(s MCPServer) bool {
	return s.Remote() && len(s.Hosts) == 1 && s.Hosts[0] == HostCodex
}

// hostVarsOf collects every host variable the bundle reads. Only a host
// format's strings read any: in bundlectl's own formats "${X}" is literal
// text, and a component reads from the host only what env_from,
// env_headers, bearer_token_env_var or allowedEnvVars name.
func hostVarsOf(b *Bundle) []string {
	set := map[string]bool{}
	var hosts []Host // the component's; nil for bundlectl's own formats
	gemini := false  // the component is a Gemini CLI MCP server's
	add := func(s string, shell bool) {
		if len(hosts) == 0 {
			return
		}
		refs := HostVarRefs(s, shell)
		if gemini {
			refs = GeminiVarRefs(s)
		}
		for _, n := range refs {
			set[n] = true
		}
	}
	addMap := func(m map[string]string) {
		for _, v := range m {
			add(v, false)
		}
	}
	c := b.Components
	for _, h := range c.Hooks {
		hosts = h.Hosts
		add(h.Command, h.Shell)
		for _, a := range h.Args {
			add(a, false)
		}
		// A url is sent as written (no host expands a variable there:
		// hook.url), so it reads nothing of the host.
		addMap(h.Headers)
		addMap(h.Env)
		for _, n := range h.AllowedEnvVars {
			set[n] = true
		}
	}
	for _, s := range c.MCP {
		hosts = s.Hosts
		// Gemini CLI also expands a bare $VAR in every string of its manifest.
		bare := slices.Contains(s.Hosts, HostGemini)
		gemini = bare
		add(s.Command, bare)
		for _, a := range s.Args {
			add(a, bare)
		}
		add(s.Cwd, bare)
		for _, v := range s.Env {
			add(v, bare)
		}
		if !CodexSendsAsWritten(s) {
			add(s.URL, bare)
			for _, v := range s.Headers {
				add(v, bare)
			}
		}
		for _, src := range s.EnvFrom {
			set[src] = true
		}
		for _, src := range s.EnvHeaders {
			set[src] = true
		}
		if s.BearerTokenEnvVar != "" {
			set[s.BearerTokenEnvVar] = true
		}
	}
	gemini = false
	for _, l := range c.LSP {
		hosts = l.Hosts
		add(l.Command, false)
		for _, a := range l.Args {
			add(a, false)
		}
		addMap(l.Env)
	}
	for _, m := range c.Monitors {
		hosts = m.Hosts
		add(m.Command, true)
	}
	for _, ds := range [][]Document{c.Commands, c.Agents} {
		for _, d := range ds {
			hosts = d.Hosts
			for _, l := range d.ShellLines {
				add(l, true)
			}
		}
	}
	for _, s := range c.Skills {
		hosts = s.Hosts
		for _, l := range s.ShellLines {
			add(l, true)
		}
	}
	return sortedKeys(set)
}
