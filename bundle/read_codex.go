package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Codex plugins (docs/codex.md): .codex-plugin/plugin.json names its
// skills, MCP servers, apps and hooks by path, list or inline object.
// Paths are relative to the plugin root.

// codexMeta are the descriptive manifest fields.
var codexMeta = map[string]bool{
	"$schema": true, "name": true, "version": true, "description": true, "author": true,
	"homepage": true, "repository": true, "license": true, "keywords": true,
}

func readCodex(b *Bundle, data []byte) { readCodexManifest(b, ManifestCodex, data) }

// codexFallbackManifests are the manifests of other hosts Codex reads, in
// its order, when a plugin has no .codex-plugin/plugin.json (Codex
// 0.169's plugin loader: .codex-plugin, then .claude-plugin, then
// .cursor-plugin). Codex reads the one it finds with its own field
// meanings and default files, so a Claude Code plugin's skills, MCP
// servers, apps and hooks load in Codex too (docs/codex.md).
var codexFallbackManifests = []string{ManifestClaude, ManifestCursor}

// readCodexFallback reads the manifest Codex would fall back to, when the
// bundle has no Codex manifest and is not an Agent Plugins bundle (Codex
// reads a plugin.json that declares the Agent Plugins $schema before any
// other manifest). Its components are then the Codex host's as well.
func readCodexFallback(b *Bundle) {
	if b.HasFormat(FormatCodex) || b.HasFormat(FormatAgentPlugins) || b.Rejected() {
		return
	}
	if _, ok := b.Tree.Lookup(ManifestCodex); ok {
		return // there, but not a regular file: Codex reads nothing else either
	}
	for _, m := range codexFallbackManifests {
		if !hasFile(b.Tree, m) {
			continue
		}
		data, err := b.Tree.ReadFile(m, MaxManifestBytes)
		if err != nil {
			b.Report.Errorf(m, "manifest.read", "cannot read the manifest: %v", err)
			return
		}
		if readCodexManifest(b, m, data) {
			b.codexFallback = true
			b.Notes = append(b.Notes, "Codex reads "+m+" as its manifest (there is no "+ManifestCodex+"): its skills, MCP servers, apps and hooks are Codex's too")
		}
		return
	}
}

// readCodexManifest reads file, a Codex manifest or the manifest of
// another host that Codex falls back to, as Codex reads it, and reports
// whether it could. The Claude Code manifest's name, metadata and other
// fields are the Claude Code reader's, which also reports a manifest it
// cannot read; only the fields Codex acts on are read here. A Cursor
// manifest has no other reader: what this one does not interpret is
// reviewed as written, as in a Codex manifest.
func readCodexManifest(b *Bundle, file string, data []byte) bool {
	r := hostReader{b: b, host: HostCodex, file: file}
	fallback := file != ManifestCodex
	ownReader := file == ManifestClaude
	root, dups, err := parseHostJSON(data, hostJSON{lastServer: true})
	if err != nil {
		if !ownReader {
			reportJSONError(b, file, err, Error, "manifest.json")
		} else if bytes.HasPrefix(data, []byte(jsonBOM)) {
			// Claude Code skips the mark; Codex refuses the manifest and
			// loads nothing of the plugin (TestCodexBOMAndDuplicateServer).
			b.Report.Warnf(file, "codex.ignored", "Codex does not load this plugin: it reads %s (there is no %s) and refuses the UTF-8 byte-order mark at its start, which Claude Code skips; save the file without the mark for Codex to load it", file, ManifestCodex)
		}
		return false
	}
	if !ownReader {
		reportLastServers(b, file, dups)
	}
	if root.kind != jsonObject {
		if !ownReader {
			b.Report.Errorf(file, "manifest.not-object", "the manifest must be a JSON object, not %s", root.kind)
		}
		return false
	}
	if fp, why := codexManifestRefused(root); why != "" {
		b.Report.Warnf(FieldPath(file+":", fp), codexIgnored, "Codex does not load this plugin: %s, and Codex (0.171) then refuses the whole manifest and loads nothing of the plugin; bundlectl exec gives Codex what is reviewed here", why)
	}
	if !fallback {
		r.manifestName(root)
		if b.Format == FormatCodex {
			r.metadata(root)
		}
	}
	if b.stop() {
		return true
	}
	m := func(field string) string { return FieldPath(file+":", field) }
	// Files a field named and read already; and the default files Codex
	// loads because it ignores the field that would replace them.
	seen := map[string]map[string]bool{"mcpServers": {}, "hooks": {}, "apps": {}}
	ignored := map[string]bool{}
	for _, k := range root.keys {
		v := root.obj[k]
		switch k {
		case "skills", "mcpServers", "hooks":
			r.codexPaths(k, v, m(k), ignored)
		}
		switch k {
		case "skills":
			r.contentPaths(v, m(k), kindSkills)
		case "mcpServers":
			r.fileOrInline(v, m(k), seen[k], r.readMCPFile, func(obj *jsonValue, p string) {
				if s, ok := obj.obj["mcpServers"]; ok {
					obj, p = s, FieldPath(p, "mcpServers")
				}
				r.readMCPServers(obj, p)
			})
		case "apps":
			r.fileOrInline(v, m(k), seen[k], r.readAppsFile, r.readApps)
		case "hooks":
			r.fileOrInline(v, m(k), seen[k], func(rel string) { r.readHooksFile(rel, "") },
				func(obj *jsonValue, p string) { r.readHooksValue(obj, p, "") })
		default:
			if ownReader && k != "interface" {
				continue // the Claude Code reader reads it
			}
			if !codexMeta[k] {
				// interface (display metadata, default prompts) and any
				// field a later Codex adds: reviewed and hashed as written.
				other(&b.ManifestOther, string(FormatCodex)+"."+k, v)
				if k != "interface" {
					b.Report.Warnf(m(k), "manifest.unknown-field", "field %s is not one bundlectl interprets; it is reviewed as written", Quote(k))
				}
			}
		}
	}
	// Codex's default locations: skills/ always adds to the manifest's;
	// .mcp.json, .app.json and hooks/hooks.json apply when the manifest
	// names no other.
	if hasDir(b.Tree, "skills") {
		b.addLocation(docLocation{kind: kindSkills, rel: "skills", host: HostCodex, field: "skills"})
	}
	if _, ok := root.obj["mcpServers"]; (!ok || ignored["mcpServers"]) && !seen["mcpServers"][".mcp.json"] && hasFile(b.Tree, ".mcp.json") {
		r.readMCPFile(".mcp.json")
	}
	if _, ok := root.obj["apps"]; !ok && hasFile(b.Tree, ".app.json") {
		r.readAppsFile(".app.json")
	}
	if _, ok := root.obj["hooks"]; (!ok || ignored["hooks"]) && !seen["hooks"]["hooks/hooks.json"] && hasFile(b.Tree, "hooks/hooks.json") {
		r.readHooksFile("hooks/hooks.json", "")
	}
	r.skillDependencies()
	return true
}

// codexManifestStrings and codexManifestLists are the manifest fields
// Codex 0.171 reads as a string (or null) and as a list of strings (not
// null: "keywords": null is refused too): one of
// another type fails its parse of the whole manifest, and it loads nothing
// of the plugin, silently (internal/agenttest TestCodexManifestTypes). Its
// skills, mcpServers and hooks fields, and interface.defaultPrompt, take
// any value (it ignores one of a shape it does not read); fields it does
// not know (author, homepage, …) it skips.
var (
	codexManifestStrings  = []string{"version", "description", "apps"}
	codexManifestLists    = []string{"keywords"}
	codexInterfaceStrings = []string{"displayName", "shortDescription", "longDescription", "developerName",
		"category", "websiteUrl", "websiteURL", "privacyPolicyUrl", "privacyPolicyURL", "termsOfServiceUrl",
		"termsOfServiceURL", "brandColor", "composerIcon", "logo", "logoDark"}
	codexInterfaceLists = []string{"capabilities", "screenshots"}
)

// codexManifestRefused returns the first field of a manifest whose type
// makes Codex refuse the whole manifest, and why; "" when there is none.
func codexManifestRefused(root *jsonValue) (field, why string) {
	check := func(obj *jsonValue, prefix string, strs, lists []string) (string, string) {
		for _, k := range obj.keys {
			v := obj.obj[k]
			switch {
			case slices.Contains(strs, k) && v.kind != jsonString && v.kind != jsonNull:
				return prefix + k, fmt.Sprintf("its %s is %s, where Codex reads a string", Quote(prefix+k), v.kind)
			case slices.Contains(lists, k) && !codexStringList(v):
				return prefix + k, fmt.Sprintf("its %s is not a list of strings, which Codex reads it as", Quote(prefix+k))
			}
		}
		return "", ""
	}
	if f, why := check(root, "", codexManifestStrings, codexManifestLists); f != "" {
		return f, why
	}
	switch in := root.obj["interface"]; {
	case in == nil, in.kind == jsonNull, in.kind == jsonArray:
		// (A list Codex reads field by field, in order: not checked.)
	case in.kind == jsonObject:
		return check(in, "interface.", codexInterfaceStrings, codexInterfaceLists)
	default:
		return "interface", fmt.Sprintf("its %s is %s, where Codex reads an object", Quote("interface"), in.kind)
	}
	return "", ""
}

// codexStringList reports whether v is a list of strings.
func codexStringList(v *jsonValue) bool {
	if v.kind != jsonArray {
		return false
	}
	for _, e := range v.arr {
		if e.kind != jsonString {
			return false
		}
	}
	return true
}

// codexDefaults are the default files Codex loads when it ignores the
// manifest field that would name others.
var codexDefaults = map[string]string{"mcpServers": ".mcp.json", "hooks": "hooks/hooks.json"}

// codexPaths warns where Codex (0.171) ignores a manifest field, or a path
// in it, that bundlectl reads; fallback records a field Codex ignores
// whole, so that the reader also reads the default file Codex loads in its
// place. The field is still reviewed, and bundlectl exec gives it to Codex.
func (r hostReader) codexPaths(field string, v *jsonValue, fp string, fallback map[string]bool) {
	dflt, hasDefault := codexDefaults[field]
	if hasDefault {
		if why, falls := codexFieldIgnored(field, v); why != "" {
			fallback[field] = falls
			then := "loads no " + field + " from the plugin"
			if falls && hasFile(r.b.Tree, dflt) {
				then = "loads " + dflt + " in its place, which is reviewed too"
			}
			r.b.Report.Warnf(fp, codexIgnored, "%s, so Codex ignores this field and %s; bundlectl exec gives Codex what is reviewed here", why, then)
			return
		}
	} else if v.kind == jsonString {
		if why := codexPathProblem(v.str); why != "" {
			r.b.Report.Warnf(fp, codexIgnored, "%s, so Codex ignores this field and loads only skills/; bundlectl exec gives Codex what is reviewed here", why)
		}
		return
	}
	if v.kind != jsonArray {
		return
	}
	for i, e := range v.arr {
		if e.kind != jsonString {
			continue
		}
		if why := codexPathProblem(e.str); why != "" {
			r.b.Report.Warnf(indexPath(fp, i), codexIgnored, "%s, so Codex skips this path; bundlectl exec gives Codex what is reviewed here", why)
		}
	}
}

// skillDependencies reads the dependencies of each skill's
// agents/openai.yaml: the MCP servers (with their URLs) and environment
// variables Codex may offer to install or ask for itself when the skill is
// used. They are kept as written — shown, hashed, credential-checked — with
// a warning; bundlectl exec leaves the file out of the Codex view.
func (r hostReader) skillDependencies() {
	for _, e := range r.b.Tree.Entries {
		if !e.Kind.Regular() || path.Base(e.Path) != "openai.yaml" || path.Base(path.Dir(e.Path)) != "agents" {
			continue
		}
		skill := path.Dir(path.Dir(e.Path))
		if !hasFile(r.b.Tree, path.Join(skill, "SKILL.md")) {
			continue
		}
		data, err := r.b.Tree.ReadFile(e.Path, MaxManifestBytes)
		if err != nil {
			r.b.Report.Warnf(e.Path, "manifest.unknown-field", "cannot read: %v", err)
			continue
		}
		var doc map[string]any
		if yaml.Unmarshal(data, &doc) != nil {
			continue // not a mapping Codex would read either
		}
		deps, ok := doc["dependencies"]
		if !ok || deps == nil {
			continue
		}
		fp := FieldPath(e.Path+":", "dependencies")
		raw, err := json.Marshal(deps)
		v, perr := parseJSONValue(raw)
		if err != nil || perr != nil {
			r.b.Report.Warnf(fp, "manifest.unknown-field", "a skill's dependencies that do not read as JSON values; Codex may act on them, and bundlectl exec leaves this file out")
			continue
		}
		other(&r.b.ManifestOther, string(FormatCodex)+"."+fp, v)
		r.b.Report.Warnf(fp, "manifest.unknown-field", "a skill's dependencies (MCP servers, environment variables) are what Codex may offer to install or ask for itself; bundlectl exec leaves this file out; reviewed as written")
	}
}

// readAppsFile reads a Codex apps file: {"apps": {...}} or the map itself.
func (r hostReader) readAppsFile(rel string) {
	if v, ok := r.readJSONFile(rel, "app.invalid-json"); ok {
		r.codexAppsShape(v, rel)
		r.readApps(v, rel+":")
	}
}

// codexAppsShape warns where Codex (0.171) loads no app from an apps file
// this reader reads: Codex parses the file as {"apps": {key: {"id": …}}}
// (codex-rs core plugins loader, PluginAppFile), so a bare map of apps
// (its keys are fields Codex does not know, and "apps" is missing), a
// list, "apps" holding anything but a map, or one app that is not an
// object with a string "id" (a required field: the whole file's parse
// fails, load_apps_from_paths skips the file) gives it no app at all; and
// it loads no app whose "id" is blank. The apps
// are still reviewed: a declaration is authority whoever reads it, and
// bundlectl exec gives Codex no app in any case.
func (r hostReader) codexAppsShape(v *jsonValue, rel string) {
	fp := rel
	var why string
	switch a, ok := v.obj["apps"]; {
	case v.kind != jsonObject:
		why = fmt.Sprintf("the file is %s, where Codex reads an object {\"apps\": {…}}", v.kind)
	case !ok:
		if len(v.keys) == 0 {
			return
		}
		why = "its apps are not under \"apps\", where Codex reads {\"apps\": {name: {\"id\": …}}}"
	case a.kind == jsonNull:
		why = "its \"apps\" is null, where Codex reads a map of apps"
	case a.kind != jsonObject:
		fp = FieldPath(rel+":", "apps")
		why = fmt.Sprintf("its \"apps\" is %s, where Codex reads a map of apps by name", a.kind)
	default:
		for _, k := range a.keys {
			if app := a.obj[k]; app.kind != jsonObject || app.obj["id"] == nil || app.obj["id"].kind != jsonString {
				// Codex's "id" is a required string: one app without it
				// fails the parse of the whole file.
				why = fmt.Sprintf("its app %s has no \"id\" string, so Codex's parse of the whole file fails", strconv.Quote(k))
				break
			}
		}
		if why != "" {
			break
		}
		for _, k := range a.keys {
			if strings.TrimSpace(a.obj[k].obj["id"].str) == "" {
				r.b.Report.Warnf(FieldPath(FieldPath(rel+":", "apps"), k), codexIgnored, "Codex does not load this app: its \"id\" is blank; it is reviewed as written")
			}
		}
		return
	}
	r.b.Report.Warnf(fp, codexIgnored, "Codex loads no app from this file: %s; its apps are reviewed as written", why)
}

func (r hostReader) readApps(v *jsonValue, path string) {
	if v.kind == jsonObject {
		if a, ok := v.obj["apps"]; ok {
			v, path = a, FieldPath(path, "apps")
		}
	}
	switch v.kind {
	case jsonObject:
		for _, name := range v.keys {
			r.b.Components.Apps = append(r.b.Components.Apps, App{Name: name, Spec: canonicalJSON(v.obj[name].any()), Hosts: addHost(nil, r.host), Source: FieldPath(path, name)})
		}
	case jsonArray:
		for i, a := range v.arr {
			name := ""
			if a.kind == jsonObject {
				for _, k := range []string{"name", "id"} {
					if n, ok := a.obj[k]; ok && n.kind == jsonString {
						name = n.str
						break
					}
				}
			}
			if name == "" {
				r.b.Report.Skipf(indexPath(path, i), "app.name", "app has no name or id")
				continue
			}
			r.b.Components.Apps = append(r.b.Components.Apps, App{Name: name, Spec: canonicalJSON(a.any()), Hosts: addHost(nil, r.host), Source: indexPath(path, i)})
		}
	default:
		r.typeErr(path, "an object or an array of apps", v)
	}
}
