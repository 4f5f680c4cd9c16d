package bundle

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Rules for the components host formats add: language servers, monitors,
// the authority front matter grants, shell lines, user options, apps,
// policies and excluded tools. Like every rule they look at the model only.

// checkLSP applies a stdio server's rules to a language server: it is a
// process bundlectl starts, so its argv and environment are checked alike.
func checkLSP(b *Bundle, l LSPServer) bool {
	keep := true
	if !checkText(b, l.Source, l.Name, false) {
		return false
	}
	if !checkCommand(b, l.Source+".command", l.Command, len(l.Hosts) > 0) {
		keep = false
	}
	checkArgs(b, l.Source+".args", l.Args)
	checkCwdCode(b, l.Source, l.Command, l.Args)
	checkEnvMap(b, l.Source+".env", l.Env)
	if l.Transport != "" && l.Transport != "stdio" && l.Transport != "socket" {
		b.Report.Skipf(l.Source+".transport", "lsp.transport", "transport %s is not stdio or socket", Quote(l.Transport))
		keep = false
	}
	for k, v := range l.Languages {
		checkText(b, FieldPath(l.Source+".languages", k), k, false)
		checkText(b, FieldPath(l.Source+".languages", k), v, false)
	}
	return keep
}

// checkEnvMap applies the environment rules to the literal environment
// of a language server or a hook: names that steer the loader or are not
// names, control text, and literal credentials.
func checkEnvMap(b *Bundle, parent string, env map[string]string) {
	for _, k := range sortedKeys(env) {
		p := FieldPath(parent, k)
		if steersLoader(k) || !validEnvName(k) {
			checkEnvDest(b, p, k)
		}
		v := env[k]
		checkText(b, p, v, false)
		switch {
		case looksLikeToken(v):
			b.Report.Errorf(p, "secret.token", "looks like a credential; reference a host variable instead")
		case credentialName(k) && v != "" && !isReference(v):
			b.Report.Errorf(p, "secret.env", "a literal value for a credential variable; reference a host variable instead")
		}
	}
}

// checkHostComponents checks what the host formats add and drops what
// breaks a rule of its own kind.
func checkHostComponents(b *Bundle) {
	c := &b.Components
	for _, s := range c.Skills {
		checkGrants(b, s.Path, s.Grants)
		checkShellLines(b, s.Path, s.ShellLines)
	}
	for _, ds := range [][]Document{c.Commands, c.Agents, c.OutputStyles} {
		for _, d := range ds {
			checkGrants(b, d.Path, d.Grants)
			checkShellLines(b, d.Path, d.ShellLines)
		}
	}
	monitors := c.Monitors[:0:0]
	for _, m := range c.Monitors {
		if !checkText(b, m.Source, m.Name, false) || !checkText(b, m.Source+".command", m.Command, true) {
			continue
		}
		if looksLikeToken(m.Command) {
			b.Report.Errorf(m.Source+".command", "secret.token", "looks like a credential; credentials never belong in a manifest")
			continue
		}
		monitors = append(monitors, m)
	}
	c.Monitors = monitors
	for _, o := range b.UserConfig {
		checkText(b, o.Source, o.Key, false)
		checkText(b, o.Source+".title", o.Title, false)
		checkText(b, o.Source+".description", o.Description, true)
		if o.EnvVar != "" {
			checkEnvDest(b, o.Source+".envVar", o.EnvVar)
		}
		checkRaw(b, o.Source+".default", o.Default)
	}
	for _, a := range c.Apps {
		checkText(b, a.Source, a.Name, false)
		checkRaw(b, a.Source, a.Spec)
	}
	for _, p := range c.Policies {
		checkRaw(b, p.Path+":", p.Rules)
	}
	checkOtherFields(b)
	for i, t := range b.ExcludeTools {
		checkText(b, indexPath(ManifestGemini+": excludeTools", i), t, false)
	}
}

// checkGrants applies the text rule to everything a front matter grants.
func checkGrants(b *Bundle, rel string, g Grants) {
	for field, l := range map[string][]string{"allowed-tools": g.AllowedTools, "disallowedTools": g.DisallowedTools, "tools": g.Tools, "skills": g.Skills, "mcpServers": g.MCPServers} {
		for i, s := range l {
			checkText(b, indexPath(rel+": "+field, i), s, false)
		}
	}
	checkText(b, rel+": model", g.Model, false)
	checkText(b, rel+": permissionMode", g.PermissionMode, false)
	checkRawMap(b, rel+":", g.Other)
}

// checkShellLines checks the shell lines a command or skill runs: shown
// verbatim, so they must be printable, and never a literal credential.
// A credential's finding says which of the file's shell lines holds it
// (the value itself is never repeated): findings alike are listed once
// (Report.Errors), and two lines that each carry one are two places to
// fix, not one.
func checkShellLines(b *Bundle, rel string, lines []string) {
	for i, l := range lines {
		if !checkText(b, rel, l, true) {
			continue
		}
		if looksLikeToken(l) {
			b.Report.Errorf(rel, "secret.token", "shell line %d of %d looks like it carries a credential; credentials never belong in a bundle", i+1, len(lines))
		}
		if what := shellCwdCode(l); what != "" && !strings.Contains(l, "${CLAUDE_PLUGIN_ROOT}") {
			b.Report.Warnf(rel, "argv.cwd-code", "%s: the code it runs comes from the working directory, not from the bundle", what)
		}
	}
}

// checkOtherFields applies the text and credential rules to the fields a
// bundle carries as written (host fields bundlectl has no model for): they
// are reviewed and hashed verbatim, so they must be printable and never a
// literal credential.
func checkOtherFields(b *Bundle) {
	c := &b.Components
	for _, h := range c.Hooks {
		checkRawMap(b, h.Source, h.Other)
	}
	for _, s := range c.MCP {
		checkRawMap(b, s.Source, s.Other)
	}
	for _, l := range c.LSP {
		checkRawMap(b, l.Source, l.Other)
	}
	for _, m := range c.Monitors {
		checkRawMap(b, m.Source, m.Other)
	}
	for _, k := range sortedKeys(b.ManifestOther) {
		format, field, _ := strings.Cut(k, ".")
		file := ""
		for _, r := range readers {
			if r.format == Format(format) {
				file = r.manifest
			}
		}
		if field == "settings.json" {
			checkRaw(b, "settings.json:", b.ManifestOther[k])
			continue
		}
		if strings.Contains(field, ":") {
			checkRaw(b, field, b.ManifestOther[k]) // a field of another file (a hooks file's)
			continue
		}
		checkRaw(b, FieldPath(file+":", field), b.ManifestOther[k])
	}
}

// checkRawMap checks every field of a map kept as written.
func checkRawMap(b *Bundle, parent string, m map[string]json.RawMessage) {
	for _, k := range sortedKeys(m) {
		checkRaw(b, FieldPath(parent, k), m[k])
	}
}

// checkRaw walks a JSON value kept as written and reports, at the path of
// the string, any key or string with control or bidirectional text and
// any string shaped like a credential. The value is never echoed.
func checkRaw(b *Bundle, path string, raw json.RawMessage) {
	if len(raw) == 0 {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return // kept values are canonical JSON the reader produced
	}
	var walk func(p string, v any)
	walk = func(p string, v any) {
		switch x := v.(type) {
		case string:
			if checkText(b, p, x, true) && looksLikeToken(x) {
				b.Report.Errorf(p, "secret.token", "looks like a credential; credentials never belong in a manifest (reference a host variable instead)")
			}
		case []any:
			for i, e := range x {
				walk(indexPath(p, i), e)
			}
		case map[string]any:
			for _, k := range sortedKeys(x) {
				kp := FieldPath(p, k)
				if checkText(b, kp, k, false) {
					walk(kp, x[k])
				}
			}
		}
	}
	walk(path, v)
}

// checkSensitiveArgv warns where a sensitive option's value would be put
// on a command line (a command or an argument of a tool, an exec-form
// hook, a stdio MCP or LSP server): every local user can read a process's
// arguments (ps, /proc). A shell-form hook passes values through its
// environment, so it is not affected.
func checkSensitiveArgv(b *Bundle) {
	var refs []string // the spellings that expand to a sensitive value
	for _, o := range b.UserConfig {
		if !o.Sensitive {
			continue
		}
		refs = append(refs, "${user_config."+o.Key+"}")
		if o.EnvVar != "" {
			refs = append(refs, "${"+o.EnvVar+"}", "${"+o.EnvVar+":-", "$"+o.EnvVar)
		}
	}
	if len(refs) == 0 {
		return
	}
	check := func(src, command string, args []string) {
		for _, s := range append([]string{command}, args...) {
			for _, r := range refs {
				if strings.Contains(s, r) {
					b.Report.Warnf(src, "option.argv", "passes a sensitive option (%s) on the command line, where every local user can read it (ps); pass it in the environment instead", Quote(r))
					return
				}
			}
		}
	}
	c := &b.Components
	for _, t := range c.Tools {
		check(t.Source, t.Command, t.Args)
	}
	for _, h := range c.Hooks {
		if h.Type == HookCommand && !h.Shell {
			check(h.Source, h.Command, h.Args)
		}
	}
	for _, s := range c.MCP {
		check(s.Source, s.Command, s.Args)
	}
	for _, l := range c.LSP {
		check(l.Source, l.Command, l.Args)
	}
}
