package bundle

import (
	"fmt"
	"strings"
)

// Claude Code plugins (docs/claude-code.md). The manifest
// .claude-plugin/plugin.json is optional: without it the directory name is
// the plugin's name and the default locations are read. Path fields add to
// the default locations rather than hide them: a file the host might load
// is always reviewed. Component fields may also hold inline definitions.

// claudeDefaults are the locations Claude Code reads without a manifest.
var claudeDefaults = []string{"commands", "agents", "skills", "hooks/hooks.json", ".mcp.json", ".lsp.json", "output-styles", "monitors/monitors.json", "SKILL.md"}

// claudeDefaultsPresent reports whether a tree holds any Claude Code
// default component location, making it a manifest-less plugin.
func claudeDefaultsPresent(t *Tree) bool {
	for _, d := range claudeDefaults {
		if _, ok := t.Lookup(d); ok {
			return true
		}
	}
	return false
}

// claudeMeta are the descriptive manifest fields; every other known field
// declares components.
var claudeMeta = map[string]bool{
	"$schema": true, "name": true, "version": true, "description": true, "author": true,
	"homepage": true, "repository": true, "license": true, "keywords": true, "displayName": true,
	"category": true, "tags": true,
}

// claudeDocumented are the manifest fields Claude Code documents that
// bundlectl has no model for: reviewed and hashed as written, without the
// warning an unknown field gets.
var claudeDocumented = map[string]bool{
	"settings": true, "channels": true, "dependencies": true, "optionalDependencies": true,
	"defaultEnabled": true, "themes": true, "workflows": true, "binaries": true,
	"experimental": true, "metadata": true, "engines": true, "network": true,
}

// readClaude reads a Claude Code plugin; data is the manifest, nil when
// there is none.
func readClaude(b *Bundle, data []byte) {
	r := hostReader{b: b, host: HostClaude, file: ManifestClaude}
	fields := map[string]*jsonValue{}
	if data != nil {
		// Claude Code skips a byte-order mark before plugin.json (and only
		// there): internal/agenttest TestClaudeBOMAndDuplicateServer.
		root, dups, err := parseHostJSON(data, hostJSON{skipBOM: true, lastServer: true})
		if err != nil {
			reportJSONError(b, ManifestClaude, err, Error, "manifest.json")
			return
		}
		reportLastServers(b, ManifestClaude, dups)
		if root.kind != jsonObject {
			b.Report.Errorf(ManifestClaude, "manifest.not-object", "the manifest must be a JSON object, not %s", root.kind)
			return
		}
		fields = root.obj
		r.manifestName(root)
		if b.Format == FormatClaude {
			r.metadata(root)
		}
		for _, k := range root.keys {
			switch k {
			case "commands", "agents", "skills", "outputStyles", "hooks", "mcpServers", "lspServers", "userConfig", "monitors":
			default:
				if claudeMeta[k] {
					break
				}
				other(&b.ManifestOther, string(FormatClaude)+"."+k, root.obj[k])
				switch {
				case k == "binaries":
					b.Report.Warnf(FieldPath(ManifestClaude+":", k), "manifest.binaries", "Claude Code downloads these executables into bin/ when it installs the plugin; they are not in the reviewed tree, so bundlectl never runs them (commit them to the plugin to review them)")
				case !claudeDocumented[k]:
					b.Report.Warnf(FieldPath(ManifestClaude+":", k), "manifest.unknown-field", "field %s is not one bundlectl interprets; it is reviewed as written", Quote(k))
				}
			}
		}
	} else {
		b.Notes = append(b.Notes, "read as a Claude Code plugin without a manifest: its name is its directory name")
	}
	if b.stop() {
		return
	}
	m := func(field string) string { return FieldPath(ManifestClaude+":", field) }

	// Content components. A manifest field replaces the default directory
	// for commands, agents and output styles and adds to it for skills, as
	// Claude Code does.
	for _, c := range []struct {
		field, def string
		kind       docKind
		replaces   bool
	}{
		{"commands", "commands", kindCommand, true},
		{"agents", "agents", kindAgent, true},
		{"skills", "skills", kindSkills, false},
		{"outputStyles", "output-styles", kindOutputStyle, true},
	} {
		v, named := fields[c.field]
		if hasDir(b.Tree, c.def) && !(named && c.replaces) {
			b.addLocation(docLocation{kind: c.kind, rel: c.def, host: HostClaude, field: c.def})
		} else if hasDir(b.Tree, c.def) {
			b.Notes = append(b.Notes, fmt.Sprintf("the manifest names its %s, so Claude Code does not load the default %s/ directory", c.field, c.def))
		}
		if !named {
			continue
		}
		if c.kind == kindCommand && v.kind == jsonObject {
			r.commandMap(v, m(c.field))
			continue
		}
		r.contentPaths(v, m(c.field), c.kind)
	}
	if _, named := fields["skills"]; !named && !hasDir(b.Tree, "skills") && hasFile(b.Tree, "SKILL.md") {
		// A plugin that is one skill: its root holds the SKILL.md.
		b.addLocation(docLocation{kind: kindSkills, rel: "SKILL.md", file: true, host: HostClaude, field: "SKILL.md"})
	}

	// Hooks: hooks/hooks.json, then the manifest's paths or inline object.
	seen := map[string]bool{}
	if hasFile(b.Tree, "hooks/hooks.json") {
		seen["hooks/hooks.json"] = true
		r.readHooksFile("hooks/hooks.json", "")
	}
	if v, ok := fields["hooks"]; ok {
		r.fileOrInline(v, m("hooks"), seen, func(rel string) { r.readHooksFile(rel, "") },
			func(obj *jsonValue, p string) { r.readClaudeInlineHooks(obj, p, "") })
	}

	// MCP servers: .mcp.json, then the manifest's paths or inline map.
	seen = map[string]bool{}
	if hasFile(b.Tree, ".mcp.json") {
		seen[".mcp.json"] = true
		r.readMCPFile(".mcp.json")
	}
	if v, ok := fields["mcpServers"]; ok {
		r.fileOrInline(v, m("mcpServers"), seen, r.readMCPFile,
			func(obj *jsonValue, p string) {
				if s, ok := obj.obj["mcpServers"]; ok {
					obj, p = s, FieldPath(p, "mcpServers")
				}
				r.readMCPServers(obj, p)
			})
	}

	// LSP servers: .lsp.json, then the manifest's paths or inline map.
	seen = map[string]bool{}
	readLSPFile := func(rel string) {
		if v, ok := r.readJSONFile(rel, "lsp.invalid-json"); ok {
			if s, ok := v.obj["lspServers"]; ok {
				r.readLSPServers(s, rel+": lspServers")
			} else {
				r.readLSPServers(v, rel+":")
			}
		}
	}
	if hasFile(b.Tree, ".lsp.json") {
		seen[".lsp.json"] = true
		readLSPFile(".lsp.json")
	}
	if v, ok := fields["lspServers"]; ok {
		r.fileOrInline(v, m("lspServers"), seen, readLSPFile,
			func(obj *jsonValue, p string) { r.readLSPServers(obj, p) })
	}

	// Monitors: monitors/monitors.json, then the manifest's.
	seen = map[string]bool{}
	if hasFile(b.Tree, "monitors/monitors.json") {
		seen["monitors/monitors.json"] = true
		r.readMonitorsFile("monitors/monitors.json")
	}
	if v, ok := fields["monitors"]; ok {
		if v.kind == jsonArray && len(v.arr) > 0 && v.arr[0].kind == jsonObject {
			r.readMonitors(v, m("monitors")) // the inline array of monitors
		} else {
			r.fileOrInline(v, m("monitors"), seen, r.readMonitorsFile,
				func(obj *jsonValue, p string) { r.readMonitors(obj, p) })
		}
	}

	if v, ok := fields["userConfig"]; ok {
		r.userConfig(v, m("userConfig"))
	}
	// Experimental components live under "experimental" too.
	if ex, ok := fields["experimental"]; ok && ex.kind == jsonObject {
		if v, ok := ex.obj["monitors"]; ok {
			r.fileOrInline(v, m("experimental.monitors"), seen, r.readMonitorsFile,
				func(obj *jsonValue, p string) { r.readMonitors(obj, p) })
		}
		if v, ok := ex.obj["outputStyles"]; ok {
			r.contentPaths(v, m("experimental.outputStyles"), kindOutputStyle)
		}
	}
	// Folders Claude Code loads on its own that bundlectl has no model for:
	// reviewed and hashed as files, never given to Claude Code by exec.
	for _, d := range []struct{ dir, what string }{
		{"workflows", "workflow scripts, which start and orchestrate agents"},
		{"themes", "themes"},
	} {
		if hasDir(b.Tree, d.dir) {
			b.Notes = append(b.Notes, fmt.Sprintf("Claude Code loads %s/ (%s) itself when it loads this plugin directly; bundlectl reviews and hashes them as files only, and bundlectl exec does not give them to Claude Code", d.dir, d.what))
		}
	}
	// A root settings.json changes how the session runs (its "agent" picks
	// the main agent): reviewed and hashed as written.
	if hasFile(b.Tree, "settings.json") {
		if v, ok := r.readJSONFile("settings.json", "manifest.settings"); ok {
			other(&b.ManifestOther, string(FormatClaude)+".settings.json", v)
		}
	}
}

// manifestName checks the manifest's name. Claude Code requires one; it is
// the plugin's name inside the host (command namespace, MCP tool prefix).
// bundlectl names a bundle by its directory, so a different name is a
// warning that says which is which.
func (r hostReader) manifestName(root *jsonValue) {
	b := r.b
	path := FieldPath(r.file+":", "name")
	v, ok := root.obj["name"]
	switch {
	case !ok || r.host == HostCodex && v.kind == jsonString && strings.TrimSpace(v.str) == "":
		// Claude Code and Codex name such a plugin by its directory;
		// Gemini CLI refuses it.
		if r.host == HostClaude || r.host == HostCodex {
			b.Report.Warnf(path, "manifest.name", "the manifest has no name; the directory name %s is used", Quote(b.Name))
			return
		}
		b.Report.Errorf(path, "manifest.name", "required field name is missing")
	case v.kind != jsonString:
		b.Report.Errorf(path, "manifest.name", "name must be a string, not %s", v.kind)
	case v.str == "":
		b.Report.Errorf(path, "manifest.name", "required field name is empty")
	default:
		if !checkText(b, path, v.str, false) {
			return
		}
		if msg := hostNameProblem(v.str); msg != "" {
			b.Report.Errorf(path, "manifest.name", "name %s %s", Quote(v.str), msg)
		} else if v.str != b.Name {
			b.Report.Warnf(path, "manifest.name-mismatch", "the plugin calls itself %s; bundlectl names it by its directory, %s", Quote(v.str), Quote(b.Name))
		}
	}
}

// hostNameProblem refuses only what is dangerous in a name a host uses as
// an identifier: separators, whitespace and the reserved "." and "..".
func hostNameProblem(s string) string {
	switch {
	case s == "." || s == "..":
		return "is reserved"
	case len(s) > 128:
		return "is longer than 128 bytes"
	case strings.ContainsAny(s, "/\\:") || strings.IndexFunc(s, isSpaceRune) >= 0:
		return "must not contain a slash, a colon or white space"
	}
	return ""
}

func isSpaceRune(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == 0x85 || r == 0xa0
}

// metadata reads the descriptive fields of a host manifest into b.Meta.
// Descriptive fields carry no authority, so a wrong type is a warning.
func (r hostReader) metadata(root *jsonValue) {
	b := r.b
	str := func(field string, dst *string) {
		v, ok := root.obj[field]
		if !ok {
			return
		}
		if v.kind == jsonString {
			*dst = v.str
			return
		}
		if field == "repository" && v.kind == jsonObject {
			if u, ok := v.obj["url"]; ok && u.kind == jsonString {
				*dst = u.str
				return
			}
		}
		b.Report.Warnf(FieldPath(r.file+":", field), "manifest.field-type", "%s should be a string, not %s; it is ignored", field, v.kind)
	}
	str("version", &b.Meta.Version)
	str("description", &b.Meta.Description)
	str("homepage", &b.Meta.Homepage)
	str("repository", &b.Meta.Repository)
	str("license", &b.Meta.License)
	str("displayName", &b.Meta.DisplayName)
	if v, ok := root.obj["keywords"]; ok {
		if kw, ok := stringArray(v); ok {
			b.Meta.Keywords = kw
		}
	}
	if v, ok := root.obj["author"]; ok {
		switch v.kind {
		case jsonString:
			b.Meta.Author = &Author{Name: v.str}
		case jsonObject:
			a := &Author{}
			for k, dst := range map[string]*string{"name": &a.Name, "email": &a.Email, "url": &a.URL} {
				if f, ok := v.obj[k]; ok && f.kind == jsonString {
					*dst = f.str
				}
			}
			b.Meta.Author = a
		}
	}
}

// contentPaths registers the files or directories a path field names.
func (r hostReader) contentPaths(v *jsonValue, field string, kind docKind) {
	paths, ok := r.strOrList(v, field)
	if !ok {
		return
	}
	for i, p := range paths {
		fp := field
		if v.kind == jsonArray {
			fp = indexPath(field, i)
		}
		rel, ok := r.relPath(p, fp)
		if !ok {
			continue
		}
		e, found := r.b.Tree.Lookup(rel)
		if rel != "" && !found {
			r.b.Report.Skipf(fp, "manifest.path-missing", "%s does not exist in the plugin", Quote(p))
			continue
		}
		r.b.addLocation(docLocation{kind: kind, rel: rel, file: found && e.Kind != KindDir, host: r.host, field: fp, named: true})
	}
}

// fileOrInline reads a field that is a path, a list of paths, or an inline
// object. seen holds files read already (a default location named again
// is read once).
func (r hostReader) fileOrInline(v *jsonValue, field string, seen map[string]bool, file func(rel string), inline func(obj *jsonValue, path string)) {
	var items []*jsonValue
	switch v.kind {
	case jsonObject:
		inline(v, field)
		return
	case jsonString:
		items = []*jsonValue{v}
	case jsonArray:
		items = v.arr
	default:
		r.typeErr(field, "a path, an array of paths or an object", v)
		return
	}
	for i, it := range items {
		fp := field
		if v.kind == jsonArray {
			fp = indexPath(field, i)
		}
		if it.kind == jsonObject {
			inline(it, fp)
			continue
		}
		if it.kind != jsonString {
			r.typeErr(fp, "a path or an object", it)
			continue
		}
		rel, ok := r.relPath(it.str, fp)
		if !ok || !r.exists(rel, fp, false) || seen[rel] {
			continue
		}
		seen[rel] = true
		file(rel)
	}
}

// commandMap reads the object form of "commands": {name: {source |
// content, description, argumentHint, model, allowedTools}}.
func (r hostReader) commandMap(v *jsonValue, path string) {
	for _, name := range v.keys {
		d, dp := v.obj[name], FieldPath(path, name)
		if d.kind != jsonObject {
			r.typeErr(dp, "an object", d)
			continue
		}
		src, hasSrc := d.obj["source"]
		content, hasContent := d.obj["content"]
		if hasSrc == hasContent {
			r.b.Report.Skipf(dp, "command.source", "command %s needs exactly one of source and content", Quote(name))
			continue
		}
		var g Grants
		desc := ""
		for _, k := range d.keys {
			f := d.obj[k]
			switch k {
			case "description":
				desc, _ = r.str(f, FieldPath(dp, k))
			case "model":
				g.Model, _ = r.str(f, FieldPath(dp, k))
			case "allowedTools":
				g.AllowedTools, _ = r.strOrList(f, FieldPath(dp, k))
			case "source", "content", "argumentHint":
			default:
				other(&g.Other, k, f)
			}
		}
		if hasContent {
			text, ok := r.str(content, dp+".content")
			if !ok || !checkComponentName(r.b, dp, "command", name) {
				continue
			}
			// The text is in the manifest, so the content hash covers it.
			r.b.Components.Commands = append(r.b.Components.Commands, Document{
				Name: name, Description: desc, Path: r.file + "#commands." + name, Grants: g,
				ShellLines: docShellLines([]byte(text)), Hosts: addHost(nil, r.host),
			})
			continue
		}
		s, ok := r.str(src, dp+".source")
		if !ok {
			continue
		}
		rel, ok := r.relPath(s, dp+".source")
		if !ok || !r.exists(rel, dp+".source", false) {
			continue
		}
		r.b.addLocation(docLocation{kind: kindCommand, rel: rel, file: true, host: r.host, field: dp, named: true, name: name, grants: &g, description: desc})
	}
}

// readMonitorsFile reads a monitors file: {"monitors": [...]}, a list, or
// a map of name to monitor.
func (r hostReader) readMonitorsFile(rel string) {
	if v, ok := r.readJSONFile(rel, "monitor.invalid-json"); ok {
		if m, ok := v.obj["monitors"]; ok && v.kind == jsonObject {
			r.readMonitors(m, rel+": monitors")
			return
		}
		r.readMonitors(v, rel+":")
	}
}

func (r hostReader) readMonitors(v *jsonValue, path string) {
	one := func(name string, d *jsonValue, dp string) {
		if d.kind != jsonObject {
			r.typeErr(dp, "an object", d)
			return
		}
		mo := Monitor{Name: name, Source: dp, Hosts: addHost(nil, r.host)}
		for _, k := range d.keys {
			f, fp := d.obj[k], FieldPath(dp, k)
			switch k {
			case "name":
				if s, ok := r.str(f, fp); ok && mo.Name == "" {
					mo.Name = s
				}
			case "command":
				mo.Command, _ = r.str(f, fp)
			case "description":
			default:
				other(&mo.Other, k, f)
			}
		}
		if mo.Command == "" {
			r.b.Report.Skipf(dp, "monitor.command", "monitor has no command")
			return
		}
		if mo.Name == "" {
			r.b.Report.Skipf(dp, "monitor.name", "monitor has no name")
			return
		}
		r.b.Components.Monitors = append(r.b.Components.Monitors, mo)
	}
	switch v.kind {
	case jsonArray:
		for i, d := range v.arr {
			one("", d, indexPath(path, i))
		}
	case jsonObject:
		for _, k := range v.keys {
			one(k, v.obj[k], FieldPath(path, k))
		}
	default:
		r.typeErr(path, "an array or an object of monitors", v)
	}
}
