package bundle

import (
	"strings"
)

// mcpStatus tells the extension reader which server names mcp.json
// declared, so that an option for a server that does not exist is caught.
type mcpStatus struct {
	// known is false when mcp.json was present but invalid as a whole:
	// MCP is disabled and options cannot be matched to servers.
	known bool
	// declared holds every member name of mcpServers, valid entry or not.
	declared map[string]bool
}

var (
	stdioFields  = map[string]bool{"type": true, "command": true, "args": true, "env": true, "cwd": true}
	remoteFields = map[string]bool{"type": true, "url": true, "headers": true}
)

// loadMCPJSON reads mcp.json (§7.2). A problem with the file as a whole is a
// Skip finding that disables MCP for the bundle and nothing else; a problem
// with one entry skips that server. Only shape and closed-variant rules are
// applied here; every semantic rule of a server (command, cwd, url, headers,
// env) is in checkModel, shared with plugin.toml.
func loadMCPJSON(b *Bundle) mcpStatus {
	st := mcpStatus{known: true, declared: map[string]bool{}}
	e, ok := b.Tree.Lookup(ManifestMCP)
	if !ok {
		return st // absent: not an error (§6.2)
	}
	disable := func(rule, format string, args ...any) mcpStatus {
		b.Report.Skipf(ManifestMCP, rule, format, args...)
		return disableMCP(b)
	}
	if e.Kind == KindDir {
		return disable("mcp.not-a-file", "mcp.json is not a regular file")
	}
	data, err := b.Tree.ReadFile(ManifestMCP, MaxManifestBytes)
	if err != nil {
		return disable("mcp.read", "cannot read mcp.json: %v", err)
	}
	return parseMCPJSON(b, data)
}

// parseMCPJSON applies §7.2.1 to the content of mcp.json.
func parseMCPJSON(b *Bundle, data []byte) mcpStatus {
	st := mcpStatus{known: true, declared: map[string]bool{}}
	disable := func(rule, format string, args ...any) mcpStatus {
		b.Report.Skipf(ManifestMCP, rule, format, args...)
		return disableMCP(b)
	}
	root, err := parseJSONValue(data)
	if err != nil {
		reportJSONError(b, ManifestMCP, err, Skip, "mcp.invalid-json")
		return disableMCP(b)
	}
	if root.kind != jsonObject {
		return disable("mcp.top-level", "mcp.json must be a JSON object, not %s", root.kind)
	}
	bad := false
	sch, ok := root.obj["$schema"]
	switch {
	case !ok:
		b.Report.Skipf(ManifestMCP+": $schema", "mcp.schema", "required field $schema is missing")
		bad = true
	case sch.kind != jsonString:
		b.Report.Skipf(ManifestMCP+": $schema", "mcp.schema", "$schema must be a string, not %s", sch.kind)
		bad = true
	case sch.str != MCPSchemaV1:
		if v, ok := agentPluginsVersion(sch.str, "mcp.schema.json"); ok {
			b.Report.Skipf(ManifestMCP+": $schema", "mcp.version-mismatch", "mcp.json targets agent plugins version %s but plugin.json targets 1.0.0", Quote(v))
		} else {
			b.Report.Skipf(ManifestMCP+": $schema", "mcp.schema", "unsupported mcp.json schema %s; bundlectl supports %s", Quote(sch.str), Quote(MCPSchemaV1))
		}
		bad = true
	}
	for _, k := range root.keys {
		if k != "$schema" && k != "mcpServers" {
			b.Report.Skipf(FieldPath(ManifestMCP+":", k), "mcp.top-level", "mcp.json may contain only $schema and mcpServers; %s is not allowed", Quote(k))
			bad = true
		}
	}
	servers, ok := root.obj["mcpServers"]
	switch {
	case !ok:
		b.Report.Skipf(ManifestMCP+": mcpServers", "mcp.top-level", "required field mcpServers is missing")
		bad = true
	case servers.kind != jsonObject:
		b.Report.Skipf(ManifestMCP+": mcpServers", "mcp.top-level", "mcpServers must be an object, not %s", servers.kind)
		bad = true
	}
	if bad {
		// Refused whole, it stays in the bundle's files.
		b.dropURLsIn(servers, ManifestMCP+": mcpServers", MCPURLCredentialAdvice)
		return disableMCP(b)
	}
	for _, name := range servers.keys {
		st.declared[name] = true
		if s, ok := parseMCPServer(b, name, servers.obj[name]); ok {
			b.Components.MCP = append(b.Components.MCP, s)
		} else {
			// Dropped, it stays in the bundle's files.
			b.dropURLs(servers.obj[name], FieldPath(ManifestMCP+": mcpServers", name), MCPURLCredentialAdvice)
		}
	}
	return st
}

// disableMCP records that mcp.json as a whole is invalid (§7.2.2): MCP is
// off for the bundle, every other component type is unaffected.
func disableMCP(b *Bundle) mcpStatus {
	b.Report.Warnf(ManifestMCP, "mcp.disabled", "mcp.json is invalid; mcp servers are disabled for this bundle")
	b.Components.MCPDisabled = true
	b.Components.MCP = nil
	return mcpStatus{}
}

// agentPluginsVersion extracts X from https://agent-plugins.org/schemas/X/<file>.
func agentPluginsVersion(id, file string) (string, bool) {
	const pre = "https://agent-plugins.org/schemas/"
	if !strings.HasPrefix(id, pre) || !strings.HasSuffix(id, "/"+file) {
		return "", false
	}
	v := strings.TrimSuffix(strings.TrimPrefix(id, pre), "/"+file)
	if v == "" || strings.Contains(v, "/") {
		return "", false
	}
	return v, true
}

// parseMCPServer checks one entry against the closed variants of §7.2.1.
func parseMCPServer(b *Bundle, name string, v *jsonValue) (MCPServer, bool) {
	src := FieldPath(ManifestMCP+": mcpServers", name)
	s := MCPServer{Name: name, Source: src}
	if v.kind != jsonObject {
		b.Report.Skipf(src, "mcp.server-type", "server %s must be an object, not %s", Quote(name), v.kind)
		return s, false
	}
	t, ok := v.obj["type"]
	switch {
	case !ok:
		b.Report.Skipf(src, "mcp.server-type", "server %s has no type", Quote(name))
		return s, false
	case t.kind != jsonString:
		b.Report.Skipf(src+".type", "mcp.server-type", "type must be a string, not %s", t.kind)
		return s, false
	}
	var fields, other map[string]bool
	switch t.str {
	case TransportStdio:
		fields, other = stdioFields, remoteFields
	case TransportStreamableHTTP, TransportSSE:
		fields, other = remoteFields, stdioFields
	default:
		b.Report.Skipf(src+".type", "mcp.server-type", "unknown type %s (want stdio, streamable-http or sse)", Quote(t.str))
		return s, false
	}
	s.Transport = t.str
	ok = true
	fail := func(field, format string, args ...any) {
		b.Report.Skipf(FieldPath(src, field), "mcp.server-field", format+"", args...)
		ok = false
	}
	for _, k := range v.keys {
		if fields[k] {
			continue
		}
		if other[k] {
			fail(k, "field %s belongs to another transport than %s", Quote(k), t.str)
		} else {
			fail(k, "unknown field %s", Quote(k))
		}
	}
	str := func(field string, required bool, dst *string) {
		f, present := v.obj[field]
		switch {
		case !present && required:
			fail(field, "required field %s is missing", field)
		case !present:
		case f.kind != jsonString:
			fail(field, "%s must be a string, not %s", field, f.kind)
		default:
			*dst = f.str
		}
	}
	strMap := func(field string) map[string]string {
		f, present := v.obj[field]
		if !present {
			return nil
		}
		m, good := stringMap(f)
		if !good {
			fail(field, "%s must be an object of strings", field)
		}
		return m
	}
	if s.Transport == TransportStdio {
		str("command", true, &s.Command)
		if f, present := v.obj["args"]; present {
			if a, good := stringArray(f); good {
				s.Args = a
			} else {
				fail("args", "args must be an array of strings")
			}
		}
		s.Env = strMap("env")
		str("cwd", false, &s.Cwd)
		if f, present := v.obj["cwd"]; present && f.kind == jsonString && f.str == "" {
			// The model reads "" as "the plugin root"; written out, it is
			// none of the three cwd forms.
			b.Report.Skipf(src+".cwd", "mcp.cwd", "cwd is empty; omit it to use the plugin root")
			ok = false
		}
	} else {
		str("url", true, &s.URL)
		s.Headers = strMap("headers")
	}
	return s, ok
}

func stringMap(v *jsonValue) (map[string]string, bool) {
	if v.kind != jsonObject {
		return nil, false
	}
	m := make(map[string]string, len(v.keys))
	for _, k := range v.keys {
		e := v.obj[k]
		if e.kind != jsonString {
			return nil, false
		}
		m[k] = e.str
	}
	return m, true
}

// ExpandPlaceholders replaces every exact ${PLUGIN_ROOT} and ${PLUGIN_DATA}
// in s with root and data in one pass (§9.2): text introduced by a
// replacement is never scanned again, and any other ${...} stays literal.
// It applies to args, env values and cwd only, never to a command, a URL
// or a header.
func ExpandPlaceholders(s, root, data string) string {
	const pr, pd = "${PLUGIN_ROOT}", "${PLUGIN_DATA}"
	if !strings.Contains(s, "${PLUGIN_") {
		return s
	}
	var out strings.Builder
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], pr):
			out.WriteString(root)
			i += len(pr)
		case strings.HasPrefix(s[i:], pd):
			out.WriteString(data)
			i += len(pd)
		default:
			out.WriteByte(s[i])
			i++
		}
	}
	return out.String()
}
