package bundle

import (
	"strings"
)

// Agent Plugins v1.0.0 (agent-plugins.org) identifiers. No schema is ever
// fetched: these strings only select the rules built into this package.
const (
	PluginSchemaV1 = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"
	MCPSchemaV1    = "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json"
	// ManifestMCP is the fixed location of MCP server configuration.
	ManifestMCP = "mcp.json"
	// Namespace is bundlectl's extension namespace: manifest data under
	// extensions["dev.bundlectl"], files under the directory dev.bundlectl/.
	Namespace = "dev.bundlectl"
)

// pluginFields are the only top-level fields of plugin.json (§5.2).
var pluginFields = map[string]bool{
	"$schema": true, "name": true, "version": true, "description": true,
	"author": true, "homepage": true, "repository": true, "license": true,
	"keywords": true, "extensions": true,
}

// parseAgentPlugins fills b from a plugin.json and then reads mcp.json and
// the dev.bundlectl extension. Violations of the closed manifest schema are
// Error findings (§5.2: the plugin is rejected); an unknown top-level field
// and a non-object extensions are Warnings and are ignored.
func parseAgentPlugins(b *Bundle, data []byte) {
	root, err := parseJSONValue(data)
	if err != nil {
		reportJSONError(b, ManifestJSON, err, Error, "manifest.json")
		return
	}
	if root.kind != jsonObject {
		b.Report.Errorf(ManifestJSON, "manifest.not-object", "the manifest must be a JSON object, not %s", root.kind)
		return
	}
	if !checkPluginSchema(b, root) {
		// Without a supported $schema no other rule applies (§5.2).
		return
	}
	checkPluginName(b, root)
	for _, k := range root.keys {
		if !pluginFields[k] {
			b.Report.Warnf(FieldPath(ManifestJSON+":", k), "manifest.unknown-field", "unknown top-level field %s is ignored", Quote(k))
			b.Ignored = append(b.Ignored, EscapePath(k)) // safe to print as is
		}
	}
	readMetadata(b, root)
	ext, hasExt := root.obj["extensions"]
	var ours *jsonValue
	if hasExt {
		ours = readExtensions(b, ext)
	}
	if b.stop() {
		// A rejected plugin's components are never discovered (§5.2).
		return
	}
	mcp := loadMCPJSON(b)
	if ours != nil {
		parseExtension(b, ours, mcp)
	}
	if b.stop() {
		return
	}
	addStrictSkills(b, "skills", "skills")
	addExtensionDocuments(b)
}

// addStrictSkills registers a skills directory of bundlectl's own formats:
// its skills follow the Agent Skills format strictly, as Agent Plugins
// requires. A missing fixed location is not an error.
func addStrictSkills(b *Bundle, dir, field string) {
	dir = strings.TrimSuffix(strings.TrimPrefix(dir, "./"), "/")
	if _, msg := pluginRelative("./" + dir); msg != "" {
		b.Report.Skipf(EscapePath(dir), "skill.location", "the skills path %s", msg)
		return
	}
	e, ok := b.Tree.Lookup(dir)
	if !ok {
		return
	}
	if e.Kind != KindDir {
		b.Report.Skipf(dir, "skill.location", "%s is not a directory; no skills are loaded", Quote(dir))
		return
	}
	b.addLocation(docLocation{kind: kindSkills, rel: dir, field: field})
}

// addExtensionDocuments registers dev.bundlectl/commands and
// dev.bundlectl/agents: immediate children named by bundlectl's component
// name rule.
func addExtensionDocuments(b *Bundle) {
	for _, d := range []struct {
		dir  string
		kind docKind
	}{{Namespace + "/commands", kindCommand}, {Namespace + "/agents", kindAgent}} {
		e, ok := b.Tree.Lookup(d.dir)
		if !ok {
			continue
		}
		if e.Kind != KindDir {
			b.Report.Skipf(d.dir, "document.location", "%s is not a directory; no %ss are loaded", Quote(d.dir), d.kind)
			continue
		}
		b.addLocation(docLocation{kind: d.kind, rel: d.dir, field: d.dir})
	}
}

func checkPluginSchema(b *Bundle, root *jsonValue) bool {
	v, ok := root.obj["$schema"]
	path := ManifestJSON + ": $schema"
	switch {
	case !ok:
		b.Report.Errorf(path, "manifest.schema", "required field $schema is missing")
	case v.kind != jsonString:
		b.Report.Errorf(path, "manifest.schema", "$schema must be a string, not %s", v.kind)
	case v.str == "":
		b.Report.Errorf(path, "manifest.schema", "required field $schema is empty")
	case v.str != PluginSchemaV1:
		b.Report.Errorf(path, "manifest.unsupported-version", "unsupported agent plugins version %s; bundlectl supports %s", Quote(v.str), Quote(PluginSchemaV1))
	default:
		return true
	}
	return false
}

func checkPluginName(b *Bundle, root *jsonValue) {
	v, ok := root.obj["name"]
	path := ManifestJSON + ": name"
	switch {
	case !ok:
		b.Report.Errorf(path, "manifest.name", "required field name is missing")
	case v.kind != jsonString:
		b.Report.Errorf(path, "manifest.name", "name must be a string, not %s", v.kind)
	case v.str == "":
		b.Report.Errorf(path, "manifest.name", "required field name is empty")
	default:
		if msg := pluginNameProblem(v.str); msg != "" {
			b.Report.Errorf(path, "manifest.name", "name %s %s", Quote(v.str), msg)
		} else if v.str != b.Name {
			b.Report.Errorf(path, "manifest.name-mismatch", "name %s does not equal the bundle directory name %s", Quote(v.str), Quote(b.Name))
		}
	}
}

// pluginNameProblem applies the Agent Plugins name rule (§5.5): 1–64 of
// a-z 0-9 - . , alphanumeric at both ends, no "--" and no "..".
func pluginNameProblem(s string) string {
	if s == "" || len(s) > 64 {
		return "must be 1 to 64 characters long"
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return "may contain only a-z, 0-9, \"-\" and \".\""
		}
	}
	if !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return "must start and end with a letter or digit"
	}
	if strings.Contains(s, "--") || strings.Contains(s, "..") {
		return "must not contain \"--\" or \"..\""
	}
	return ""
}

// componentNameProblem applies the Agent Skills name rule, which bundlectl
// also uses for tools, commands, agents and lsp servers: 1–64 of a-z 0-9
// and "-", no hyphen at either end, no "--".
func componentNameProblem(s string) string {
	if s == "" || len(s) > 64 {
		return "must be 1 to 64 characters long"
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return "may contain only a-z, 0-9 and \"-\""
		}
	}
	if s[0] == '-' || s[len(s)-1] == '-' {
		return "must not start or end with \"-\""
	}
	if strings.Contains(s, "--") {
		return "must not contain \"--\""
	}
	return ""
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func readMetadata(b *Bundle, root *jsonValue) {
	str := func(field string, dst *string) {
		v, ok := root.obj[field]
		if !ok {
			return
		}
		if v.kind != jsonString {
			b.Report.Errorf(ManifestJSON+": "+field, "manifest.field-type", "%s must be a string, not %s", field, v.kind)
			return
		}
		*dst = v.str
	}
	str("version", &b.Meta.Version)
	str("description", &b.Meta.Description)
	str("homepage", &b.Meta.Homepage)
	str("repository", &b.Meta.Repository)
	str("license", &b.Meta.License)
	if v, ok := root.obj["keywords"]; ok {
		if kw, ok := stringArray(v); ok {
			b.Meta.Keywords = kw
		} else {
			b.Report.Errorf(ManifestJSON+": keywords", "manifest.field-type", "keywords must be an array of strings")
		}
	}
	if v, ok := root.obj["author"]; ok {
		readAuthor(b, v)
	}
}

func readAuthor(b *Bundle, v *jsonValue) {
	path := ManifestJSON + ": author"
	if v.kind != jsonObject {
		b.Report.Errorf(path, "manifest.author", "author must be an object, not %s", v.kind)
		return
	}
	a := &Author{}
	for _, k := range v.keys {
		f := v.obj[k]
		var dst *string
		switch k {
		case "name":
			dst = &a.Name
		case "email":
			dst = &a.Email
		case "url":
			dst = &a.URL
		default:
			b.Report.Errorf(FieldPath(path, k), "manifest.author", "author may contain only name, email and url; %s is not allowed", Quote(k))
			continue
		}
		if f.kind != jsonString {
			b.Report.Errorf(FieldPath(path, k), "manifest.author", "author.%s must be a string, not %s", k, f.kind)
			continue
		}
		*dst = f.str
	}
	b.Meta.Author = a
}

// readExtensions applies §8.1: a non-object extensions is reported and
// ignored; every namespace value must be an object; namespaces other than
// dev.bundlectl are ignored without looking inside them. It returns the
// dev.bundlectl object, if any.
func readExtensions(b *Bundle, ext *jsonValue) *jsonValue {
	path := ManifestJSON + ": extensions"
	if ext.kind != jsonObject {
		b.Report.Warnf(path, "manifest.extensions-type", "extensions must be an object, not %s; it is ignored", ext.kind)
		b.Ignored = append(b.Ignored, "extensions")
		return nil
	}
	var ours *jsonValue
	for _, ns := range ext.keys {
		v := ext.obj[ns]
		if v.kind != jsonObject {
			b.Report.Errorf(FieldPath(path, ns), "manifest.extension-type", "the value of extension namespace %s must be an object, not %s", Quote(ns), v.kind)
			continue
		}
		if ns == Namespace {
			ours = v
		}
	}
	return ours
}
