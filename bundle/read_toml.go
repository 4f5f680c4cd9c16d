package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// TOMLSchemaVersion is the only plugin.toml schema_version this bundlectl reads.
const TOMLSchemaVersion = 1

// The Go shape of plugin.toml. Decoding is strict: a key that has no field
// here is an unknown field and rejects the bundle. Optional scalars are
// pointers so that an explicit zero can be told from an absent key.
type tomlManifest struct {
	SchemaVersion any                   `toml:"schema_version,omitempty"`
	Plugin        *tomlPlugin           `toml:"plugin,omitempty"`
	Skills        *tomlSkills           `toml:"skills,omitempty"`
	MCPServers    map[string]tomlMCP    `toml:"mcp_servers,omitempty"`
	Tools         []tomlTool            `toml:"tools,omitempty"`
	Hooks         []tomlHook            `toml:"hooks,omitempty"`
	Capabilities  *tomlCapabilities     `toml:"capabilities,omitempty"`
	When          *tomlWhen             `toml:"when,omitempty"`
	LSP           map[string]tomlLSP    `toml:"lsp,omitempty"`
	Native        map[string]tomlNative `toml:"native,omitempty"`
}

type tomlPlugin struct {
	Name        *string     `toml:"name,omitempty"`
	Version     string      `toml:"version,omitempty"`
	Description string      `toml:"description,omitempty"`
	DisplayName string      `toml:"display_name,omitempty"`
	Author      *tomlAuthor `toml:"author,omitempty"`
	License     string      `toml:"license,omitempty"`
	Homepage    string      `toml:"homepage,omitempty"`
	Repository  string      `toml:"repository,omitempty"`
	Keywords    []string    `toml:"keywords,omitempty"`
}

type tomlAuthor struct {
	Name  string `toml:"name,omitempty"`
	Email string `toml:"email,omitempty"`
	URL   string `toml:"url,omitempty"`
}

type tomlSkills struct {
	Path *string `toml:"path,omitempty"`
}

type tomlMCP struct {
	Type              *string           `toml:"type,omitempty"`
	Command           *string           `toml:"command,omitempty"`
	Args              []string          `toml:"args,omitempty"`
	Env               map[string]string `toml:"env,omitempty"`
	Cwd               *string           `toml:"cwd,omitempty"`
	URL               *string           `toml:"url,omitempty"`
	Headers           map[string]string `toml:"headers,omitempty"`
	TimeoutSec        *int64            `toml:"timeout_sec,omitempty"`
	ToolsInclude      []string          `toml:"tools_include,omitempty"`
	ToolsExclude      []string          `toml:"tools_exclude,omitempty"`
	EnvFrom           map[string]string `toml:"env_from,omitempty"`
	BearerTokenEnvVar *string           `toml:"bearer_token_env_var,omitempty"`
	EnvHeaders        map[string]string `toml:"env_headers,omitempty"`
}

type tomlTool struct {
	Name        string         `toml:"name,omitempty"`
	Description string         `toml:"description,omitempty"`
	Command     string         `toml:"command,omitempty"`
	Args        []string       `toml:"args,omitempty"`
	Params      map[string]any `toml:"params,omitempty"`
	TimeoutSec  *int64         `toml:"timeout_sec,omitempty"`
}

type tomlHook struct {
	Event      string   `toml:"event,omitempty"`
	Matcher    string   `toml:"matcher,omitempty"`
	Command    string   `toml:"command,omitempty"`
	Args       []string `toml:"args,omitempty"`
	TimeoutSec *int64   `toml:"timeout_sec,omitempty"`
}

type tomlCapabilities struct {
	NetworkHosts      []string `toml:"network_hosts,omitempty"`
	FilesystemRoots   []string `toml:"filesystem_roots,omitempty"`
	LifecycleMutation bool     `toml:"lifecycle_mutation,omitempty"`
}

type tomlWhen struct {
	OS       []string `toml:"os,omitempty"`
	Binaries []string `toml:"binaries,omitempty"`
}

type tomlLSP struct {
	Command   string   `toml:"command,omitempty"`
	Args      []string `toml:"args,omitempty"`
	Languages []string `toml:"languages,omitempty"`
}

type tomlNative struct {
	Path string `toml:"path,omitempty"`
}

// readTOML is the plugin.toml reader: the manifest, then the skills and
// dev.bundlectl/commands and agents it implies.
func readTOML(b *Bundle, data []byte) {
	skills := parseTOML(b, data)
	if b.stop() {
		return
	}
	if skills != "" {
		addStrictSkills(b, skills, tomlField("skills.path"))
	}
	addExtensionDocuments(b)
}

// parseTOML fills b from the plugin.toml in data and returns the skills
// directory relative to the bundle root: "skills" when the manifest has no
// [skills] table, "" when skills cannot be loaded (the manifest is
// rejected). It checks TOML syntax, the closed shape and the types of
// plugin.toml (docs/plugin-toml.md); the semantic rules both formats share
// (command tokens, cwd, URLs, credentials, env destinations, network hosts)
// are applied afterwards by checkModel. No finding ever contains a value
// from the manifest: only key paths, line and column.
func parseTOML(b *Bundle, data []byte) string {
	r := &b.Report
	// go-toml decodes in time quadratic in the number of keys of a table,
	// so a manifest with more keys than any real one is refused unread.
	if n := tomlKeyCount(data, maxTOMLKeys); n > maxTOMLKeys {
		r.Errorf(ManifestTOML, "toml.size", "plugin.toml has more than %d keys and tables; it is not read", maxTOMLKeys)
		return ""
	}
	var generic map[string]any
	if err := toml.Unmarshal(data, &generic); err != nil {
		reportTOMLError(r, err)
		return ""
	}
	// The strict decoder computes the position of each unknown key by
	// rescanning the document from its start, also quadratic. A plain
	// decode counts them first; past maxUnknownKeys they are reported by
	// path only, without running the strict decoder.
	var unknown []toml.Key
	collectUnknown(generic, tomlShape(), nil, &unknown)
	if len(unknown) > maxUnknownKeys {
		first := make([]string, 5)
		for i := range first {
			first[i] = tomlKeyPath(unknown[i])
		}
		r.Errorf(ManifestTOML, "toml.unknown",
			"plugin.toml has %d unknown fields or tables, among them %s; plugin.toml accepts only the fields in docs/plugin-toml.md",
			len(unknown), strings.Join(first, ", "))
		return ""
	}
	var m tomlManifest
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		var strict *toml.StrictMissingError
		if errors.As(err, &strict) {
			reportUnknown(r, unknown, strict.Errors)
		} else {
			reportTOMLError(r, err)
		}
		return ""
	}

	switch v := m.SchemaVersion.(type) {
	case nil:
		r.Warnf(ManifestTOML, "toml.migration",
			"plugin.toml has no schema_version; add `schema_version = %d` as its first line, or migrate the bundle to plugin.json (see docs/plugin-toml.md)", TOMLSchemaVersion)
	case int64:
		if v != TOMLSchemaVersion {
			r.Errorf(tomlField("schema_version"), "toml.schema_version",
				"schema_version %d is not supported; this bundlectl reads schema_version %d", v, TOMLSchemaVersion)
			return ""
		}
		b.Meta.SchemaVersion = int(v)
	default:
		r.Errorf(tomlField("schema_version"), "toml.schema_version",
			"schema_version must be the integer %d, not %s", TOMLSchemaVersion, tomlTypeName(v))
		return ""
	}

	tomlPluginTable(b, m.Plugin)
	skills := tomlSkillsDir(r, m.Skills)

	names := sortedKeys(m.MCPServers)
	for _, name := range names {
		if s, ok := tomlMCPServer(r, name, m.MCPServers[name]); ok {
			b.Components.MCP = append(b.Components.MCP, s)
		} else if u := m.MCPServers[name].URL; u != nil {
			// A server skipped here (no type, a bad one, a field of the
			// other transport, a bad timeout) never reaches checkServer
			// and stays in the bundle's files with its url:
			// "https://u:pw@h/" was trusted with no finding.
			b.dropURL(s.Source+".url", *u, MCPURLCredentialAdvice)
		}
	}
	seenTool := map[string]bool{}
	for i, t := range m.Tools {
		if tool, ok := tomlToolEntry(r, i, t, seenTool); ok {
			b.Components.Tools = append(b.Components.Tools, tool)
		}
	}
	for i, h := range m.Hooks {
		if hook, ok := tomlHookEntry(r, i, h); ok {
			b.Components.Hooks = append(b.Components.Hooks, hook)
		}
	}
	tomlCapabilitiesTable(b, m.Capabilities)
	tomlWhenTable(b, m.When)
	for _, name := range sortedKeys(m.LSP) {
		l := m.LSP[name]
		b.Components.LSP = append(b.Components.LSP, LSPServer{
			Name: name, Command: l.Command, Args: l.Args, Languages: languageSet(l.Languages),
			Source: tomlField(FieldPath("lsp", name)),
		})
	}
	for _, name := range sortedKeys(m.Native) {
		n := m.Native[name]
		b.Inactive = append(b.Inactive, Inactive{
			Surface: SurfaceNative, Name: name, Detail: "native library " + Quote(n.Path),
			Spec: canonicalJSONValue(map[string]any{"path": n.Path}),
		})
	}
	if b.stop() {
		return ""
	}
	return skills
}

func tomlPluginTable(b *Bundle, p *tomlPlugin) {
	r := &b.Report
	if p == nil || p.Name == nil {
		r.Errorf(tomlField("plugin.name"), "manifest.name", "the manifest has no name; set name in the [plugin] table")
		return
	}
	name := *p.Name
	if msg := pluginNameProblem(name); msg != "" {
		r.Errorf(tomlField("plugin.name"), "manifest.name", "%s", msg)
	} else if name != b.Name {
		r.Errorf(tomlField("plugin.name"), "manifest.name",
			"the manifest name %s differs from the bundle directory name %s; they must be equal", Quote(name), Quote(b.Name))
	}
	b.Meta.Version = p.Version
	b.Meta.Description = p.Description
	b.Meta.DisplayName = p.DisplayName
	b.Meta.License = p.License
	b.Meta.Homepage = p.Homepage
	b.Meta.Repository = p.Repository
	b.Meta.Keywords = p.Keywords
	if p.Author != nil {
		b.Meta.Author = &Author{Name: p.Author.Name, Email: p.Author.Email, URL: p.Author.URL}
	}
}

// tomlSkillsDir returns the skills directory: "skills" without a [skills]
// table, otherwise its path, which must be a plain relative directory inside
// the bundle.
func tomlSkillsDir(r *Report, s *tomlSkills) string {
	if s == nil || s.Path == nil {
		return "skills"
	}
	p := *s.Path
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	p = strings.TrimSuffix(p, "/")
	switch {
	case p == "" || p == ".":
		r.Errorf(tomlField("skills.path"), "toml.skills_path", "skills.path must name a directory below the bundle root")
		return ""
	case path.IsAbs(p) || strings.Contains(p, `\`):
		r.Errorf(tomlField("skills.path"), "toml.skills_path", "skills.path must be a relative slash-separated path inside the bundle")
		return ""
	case path.Clean(p) != p || strings.Contains("/"+p+"/", "/../"):
		r.Errorf(tomlField("skills.path"), "toml.skills_path", "skills.path must be a clean relative path without \".\" or \"..\" elements")
		return ""
	}
	for _, elem := range strings.Split(p, "/") {
		if msg, _ := CheckName(elem); msg != "" {
			r.Errorf(tomlField("skills.path"), "toml.skills_path", "skills.path: %s", msg)
			return ""
		}
	}
	return p
}

func tomlMCPServer(r *Report, name string, m tomlMCP) (MCPServer, bool) {
	src := tomlField("mcp_servers." + tomlKey(name))
	s := MCPServer{Name: name, Source: src}
	switch {
	case m.Type != nil:
		s.Transport = *m.Type
	case m.Command != nil && m.URL == nil:
		s.Transport = TransportStdio
	case m.URL != nil:
		r.Skipf(src, "toml.mcp", "a remote server must set type to %q or %q; the server is skipped", TransportStreamableHTTP, TransportSSE)
		return s, false
	default:
		r.Skipf(src, "toml.mcp", "the server sets neither command nor url; the server is skipped")
		return s, false
	}
	// Fields of each closed variant; a field of the other one is an error,
	// as it is in mcp.json.
	var wrong []string
	switch s.Transport {
	case TransportStdio:
		if m.Command == nil {
			r.Skipf(src, "toml.mcp", "a stdio server needs a command; the server is skipped")
			return s, false
		}
		wrong = presentFields(map[string]bool{
			"url": m.URL != nil, "headers": m.Headers != nil,
			"bearer_token_env_var": m.BearerTokenEnvVar != nil, "env_headers": m.EnvHeaders != nil,
		})
		s.Command, s.Args, s.Env, s.EnvFrom = *m.Command, m.Args, m.Env, m.EnvFrom
		if m.Cwd != nil {
			s.Cwd = *m.Cwd
		}
	case TransportStreamableHTTP, TransportSSE:
		if m.URL == nil {
			r.Skipf(src, "toml.mcp", "a %s server needs a url; the server is skipped", s.Transport)
			return s, false
		}
		wrong = presentFields(map[string]bool{
			"command": m.Command != nil, "args": m.Args != nil, "env": m.Env != nil,
			"cwd": m.Cwd != nil, "env_from": m.EnvFrom != nil,
		})
		s.URL, s.Headers, s.EnvHeaders = *m.URL, m.Headers, m.EnvHeaders
		if m.BearerTokenEnvVar != nil {
			s.BearerTokenEnvVar = *m.BearerTokenEnvVar
		}
	default:
		r.Skipf(src+".type", "toml.mcp", "type must be %q, %q or %q; the server is skipped",
			TransportStdio, TransportStreamableHTTP, TransportSSE)
		return s, false
	}
	if len(wrong) > 0 {
		r.Skipf(src, "toml.mcp", "a %s server cannot set %s; the server is skipped", s.Transport, strings.Join(wrong, ", "))
		return s, false
	}
	t, ok := tomlTimeout(r, src, m.TimeoutSec)
	if !ok {
		return s, false
	}
	s.TimeoutSec = t
	s.ToolsInclude, s.ToolsExclude = m.ToolsInclude, m.ToolsExclude
	return s, true
}

func presentFields(fields map[string]bool) []string {
	var out []string
	for k, set := range fields {
		if set {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func tomlToolEntry(r *Report, i int, t tomlTool, seen map[string]bool) (Tool, bool) {
	src := tomlField(fmt.Sprintf("tools[%d]", i))
	tool := Tool{Name: t.Name, Description: t.Description, Command: t.Command, Args: t.Args, Source: src}
	switch {
	case t.Name == "":
		r.Skipf(src, "toml.tool", "the tool has no name; the tool is skipped")
		return tool, false
	case seen[t.Name]:
		r.Skipf(src, "toml.tool", "another tool is already named %s; the tool is skipped", Quote(t.Name))
		return tool, false
	case t.Command == "":
		r.Skipf(src, "toml.tool", "the tool has no command; the tool is skipped")
		return tool, false
	}
	seen[t.Name] = true
	if t.Params != nil {
		raw, err := tomlParamsJSON(t.Params)
		if err != nil {
			r.Skipf(src+".params", "toml.tool", "params: %v; the tool is skipped", err)
			return tool, false
		}
		tool.Params = raw
	}
	to, ok := tomlTimeout(r, src, t.TimeoutSec)
	if !ok {
		return tool, false
	}
	tool.TimeoutSec = to
	return tool, true
}

func tomlHookEntry(r *Report, i int, h tomlHook) (Hook, bool) {
	src := tomlField(fmt.Sprintf("hooks[%d]", i))
	hook := Hook{Type: HookCommand, Event: h.Event, Matcher: h.Matcher, Command: h.Command, Args: h.Args, Source: src}
	known := false
	for _, e := range HookEvents {
		known = known || e == h.Event
	}
	switch {
	case !known:
		r.Skipf(src+".event", "toml.hook", "event must be one of %s; the hook is skipped", strings.Join(HookEvents, ", "))
		return hook, false
	case h.Command == "":
		r.Skipf(src, "toml.hook", "the hook has no command; the hook is skipped")
		return hook, false
	}
	if h.Matcher != "" && h.Matcher != "*" {
		if msg := matcherErr(h.Matcher); msg != "" {
			r.Skipf(src+".matcher", "toml.hook", "%s; the hook is skipped", msg)
			return hook, false
		}
	}
	to, ok := tomlTimeout(r, src, h.TimeoutSec)
	if !ok {
		return hook, false
	}
	hook.TimeoutSec = to
	return hook, true
}

// tomlTimeout checks an optional timeout_sec: absent is 0 (the harness
// default); set, it is 1 to MaxTimeoutSec.
func tomlTimeout(r *Report, src string, t *int64) (int, bool) {
	if t == nil {
		return 0, true
	}
	if *t < 1 || *t > MaxTimeoutSec {
		r.Skipf(src+".timeout_sec", "toml.timeout", "timeout_sec must be between 1 and %d seconds; the component is skipped", MaxTimeoutSec)
		return 0, false
	}
	return int(*t), true
}

func tomlCapabilitiesTable(b *Bundle, c *tomlCapabilities) {
	if c == nil {
		return
	}
	b.Permissions = Permissions{NetworkHosts: c.NetworkHosts, NetworkDeclared: c.NetworkHosts != nil, FilesystemRoots: c.FilesystemRoots, LifecycleMutation: c.LifecycleMutation}
	if len(c.FilesystemRoots) > 0 {
		b.Inactive = append(b.Inactive, Inactive{
			Surface: SurfaceFilesystemRoots, Detail: fmt.Sprintf("%d filesystem root(s)", len(c.FilesystemRoots)),
			Spec: canonicalJSONValue(c.FilesystemRoots),
		})
	}
	if c.LifecycleMutation {
		b.Inactive = append(b.Inactive, Inactive{
			Surface: SurfaceLifecycleMutation, Detail: "may change the lifecycle of the agent",
			Spec: canonicalJSONValue(true),
		})
	}
}

func tomlWhenTable(b *Bundle, w *tomlWhen) {
	if w == nil {
		return
	}
	for i, o := range w.OS {
		if o != "linux" && o != "macos" && o != "windows" {
			b.Report.Errorf(tomlField(fmt.Sprintf("when.os[%d]", i)), "toml.when", "os must be \"linux\", \"macos\" or \"windows\"")
		}
	}
	for i, bin := range w.Binaries {
		if bin == "" || strings.ContainsAny(bin, `/\`) {
			b.Report.Errorf(tomlField(fmt.Sprintf("when.binaries[%d]", i)), "toml.when", "binaries must be bare program names")
		}
	}
	b.When = When{OS: w.OS, Binaries: w.Binaries}
}

// tomlParamsJSON converts the params table to compact canonical JSON
// (sorted keys, no insignificant whitespace, no HTML escaping). Values JSON
// cannot represent (dates and times, NaN, infinities) are refused.
func tomlParamsJSON(v map[string]any) (json.RawMessage, error) {
	if err := jsonCompatible(v, 0); err != nil {
		return nil, err
	}
	return canonicalJSONChecked(v)
}

func jsonCompatible(v any, depth int) error {
	if depth > 64 {
		return errors.New("nested too deeply")
	}
	switch x := v.(type) {
	case nil, string, bool, int64:
		return nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return errors.New("nan and inf are not JSON numbers")
		}
		return nil
	case map[string]any:
		for _, e := range x {
			if err := jsonCompatible(e, depth+1); err != nil {
				return err
			}
		}
		return nil
	case []any:
		for _, e := range x {
			if err := jsonCompatible(e, depth+1); err != nil {
				return err
			}
		}
		return nil
	default:
		return fmt.Errorf("%s values have no JSON form", tomlTypeName(v))
	}
}

func canonicalJSONChecked(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// canonicalJSONValue is canonicalJSON for values built from strings,
// string slices and booleans, which always encode.
func canonicalJSONValue(v any) json.RawMessage {
	raw, err := canonicalJSONChecked(v)
	if err != nil {
		panic("bundle: unencodable inactive declaration: " + err.Error())
	}
	return raw
}

// maxTOMLKeys bounds the keys, tables and inline-table keys of a plugin.toml.
const maxTOMLKeys = 4096

// tomlKeyCount counts keys and table headers with go-toml's linear parser,
// stopping once the count passes limit or at a syntax error (which the
// decoder then reports).
func tomlKeyCount(data []byte, limit int) int {
	var p unstable.Parser
	p.Reset(data)
	n := 0
	var walk func(node *unstable.Node)
	walk = func(node *unstable.Node) {
		for it := node.Children(); it.Next() && n <= limit; {
			c := it.Node()
			if c.Kind == unstable.KeyValue {
				n++
				walk(c.Value())
			} else {
				walk(c)
			}
		}
	}
	for n <= limit && p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.KeyValue:
			n++
			walk(e.Value())
		case unstable.Table, unstable.ArrayTable:
			n++
		}
	}
	return n
}

// maxUnknownKeys is the number of unknown keys reported one by one, with
// line and column.
const maxUnknownKeys = 64

// tomlShape is the closed key structure of plugin.toml, used only to count
// unknown keys before the strict decode: a nil value is a leaf (or a table
// of free-form keys), "*" matches any key, "[]" the elements of an array of
// tables. It mirrors the toml tags of tomlManifest.
var tomlShape = sync.OnceValue(func() map[string]any {
	leaves := func(names ...string) map[string]any {
		m := map[string]any{}
		for _, n := range names {
			m[n] = nil
		}
		return m
	}
	plugin := leaves("name", "version", "description", "display_name", "license", "homepage", "repository", "keywords")
	plugin["author"] = leaves("name", "email", "url")
	return map[string]any{
		"schema_version": nil,
		"plugin":         plugin,
		"skills":         leaves("path"),
		"mcp_servers": map[string]any{"*": leaves("type", "command", "args", "env", "cwd", "url", "headers",
			"timeout_sec", "tools_include", "tools_exclude", "env_from", "bearer_token_env_var", "env_headers")},
		"tools":        map[string]any{"[]": leaves("name", "description", "command", "args", "params", "timeout_sec")},
		"hooks":        map[string]any{"[]": leaves("event", "matcher", "command", "args", "timeout_sec")},
		"capabilities": leaves("network_hosts", "filesystem_roots", "lifecycle_mutation"),
		"when":         leaves("os", "binaries"),
		"lsp":          map[string]any{"*": leaves("command", "args", "languages")},
		"native":       map[string]any{"*": leaves("path")},
	}
})

// collectUnknown appends the key paths of v that shape does not know.
// Values of the wrong type are left to the strict decoder.
func collectUnknown(v any, shape map[string]any, key toml.Key, out *[]toml.Key) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			sub, ok := shape[k]
			if !ok {
				sub, ok = shape["*"]
			}
			child := append(key[:len(key):len(key)], k)
			if !ok {
				*out = append(*out, child)
				continue
			}
			if subShape, isTable := sub.(map[string]any); isTable {
				collectUnknown(x[k], subShape, child, out)
			}
		}
	case []any:
		if elem, ok := shape["[]"].(map[string]any); ok {
			for _, e := range x {
				collectUnknown(e, elem, key, out)
			}
		}
	}
}

// tomlField is the finding path of a manifest field: "plugin.toml: <field>".
func tomlField(field string) string { return ManifestTOML + ": " + field }

var bareKey = lazyRegexp(`^[A-Za-z0-9_-]+$`)

// tomlKey renders one key part as TOML would need it written, escaped so
// that it is safe to print.
func tomlKey(k string) string {
	if bareKey().MatchString(k) {
		return k
	}
	return Quote(k)
}

func tomlKeyPath(key toml.Key) string {
	parts := make([]string, len(key))
	for i, k := range key {
		parts[i] = tomlKey(k)
	}
	return strings.Join(parts, ".")
}

func tomlTypeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case time.Time, toml.LocalDate, toml.LocalDateTime, toml.LocalTime:
		return "a date or time"
	}
	return "a value of another type"
}

// reportTOMLError turns a decoding error into findings naming the key path,
// line and column. The library's messages can quote part of the document,
// so they are never passed through: only the kind of error is kept.
func reportTOMLError(r *Report, err error) {
	var strict *toml.StrictMissingError
	var de *toml.DecodeError
	switch {
	case errors.As(err, &strict):
		reportUnknown(r, nil, strict.Errors)
	case errors.As(err, &de):
		line, col := de.Position()
		// Keys of type errors are full paths; those of syntax errors may
		// be relative to their table, so they are not shown as a path.
		where := ManifestTOML
		if len(de.Key()) > 0 {
			where = tomlField(tomlKeyPath(de.Key()))
		}
		if got, ok := tomlTypeMismatch(de.Error()); ok {
			want := tomlExpectedType(de.Key())
			r.Errorf(where, "toml.type", "wrong type at line %d, column %d: %s, not %s", line, col, want, got)
			return
		}
		if kind := tomlErrorKind(de.Error()); kind == numberOutOfRange {
			r.Errorf(where, "toml.type", "wrong value at line %d, column %d: %s", line, col, kind)
			return
		}
		r.Errorf(ManifestTOML, "toml.syntax", "invalid TOML at line %d, column %d: %s", line, col, tomlErrorKind(de.Error()))
	default:
		r.Errorf(ManifestTOML, "toml.syntax", "invalid TOML: %s", tomlErrorKind(err.Error()))
	}
}

// reportUnknown reports each unknown key with its full path and, where it
// can be matched, the line and column go-toml found for it. go-toml names a
// key inside an inline table by a partial path ("token" for
// plugin = { token = … }), so its keys are matched against the full paths
// collected from the document, by equality or or as the only compatible partial key; an
// unmatched position is left out rather than attached to the wrong key.
func reportUnknown(r *Report, unknown []toml.Key, errs []toml.DecodeError) {
	const hint = "plugin.toml accepts only the fields in docs/plugin-toml.md"
	used := make([]bool, len(errs))
	what := func(e *toml.DecodeError) string {
		if strings.Contains(e.Error(), "table") {
			return "table"
		}
		return "field"
	}
	type located struct {
		key       toml.Key
		line, col int
		what      string
	}
	var found []located
	for _, key := range unknown {
		match := -1
		for pass := 0; pass < 2 && match < 0; pass++ {
			n := 0
			for i := range errs {
				lib := errs[i].Key()
				ok := len(lib) > 0 && (pass == 0 && keyEqual(lib, key) || pass == 1 && keyCompatible(key, lib) && compatibleCount(unknown, lib) == 1)
				if ok && !used[i] {
					match, n = i, n+1
				}
			}
			if n > 1 {
				match = -1
				break
			}
		}
		if match < 0 {
			found = append(found, located{key: key})
			continue
		}
		used[match] = true
		line, col := errs[match].Position()
		found = append(found, located{key, line, col, what(&errs[match])})
	}
	// Document order; keys without a position last.
	sort.SliceStable(found, func(i, j int) bool {
		a, b := found[i], found[j]
		if (a.line == 0) != (b.line == 0) {
			return b.line == 0
		}
		return a.line < b.line || a.line == b.line && a.col < b.col
	})
	for _, f := range found {
		if f.line == 0 {
			r.Errorf(tomlField(tomlKeyPath(f.key)), "toml.unknown", "unknown field or table; %s", hint)
			continue
		}
		r.Errorf(tomlField(tomlKeyPath(f.key)), "toml.unknown", "unknown %s at line %d, column %d; %s", f.what, f.line, f.col, hint)
	}
	if len(unknown) == 0 {
		// Nothing collected (a shape this file does not mirror): fall back
		// to go-toml's own key paths.
		for i := range errs {
			line, col := errs[i].Position()
			r.Errorf(tomlField(tomlKeyPath(errs[i].Key())), "toml.unknown", "unknown %s at line %d, column %d; %s", what(&errs[i]), line, col, hint)
		}
	}
}

func keyEqual(a, b toml.Key) bool {
	return len(a) == len(b) && keyHasSuffix(a, b)
}

func keyHasSuffix(k, suffix toml.Key) bool {
	if len(suffix) > len(k) {
		return false
	}
	off := len(k) - len(suffix)
	for i := range suffix {
		if k[off+i] != suffix[i] {
			return false
		}
	}
	return true
}

// keyCompatible reports whether go-toml's partial key lib may name the
// full key k: the same last part, and lib either a suffix of k (a key in
// an inline table under [table]) or its table followed by the last part
// (a key in an inline table value).
func keyCompatible(k, lib toml.Key) bool {
	if len(lib) == 0 || len(lib) > len(k) || lib[len(lib)-1] != k[len(k)-1] {
		return false
	}
	return keyHasSuffix(k, lib) || keyEqual(k[:len(lib)-1], lib[:len(lib)-1])
}

func compatibleCount(keys []toml.Key, lib toml.Key) int {
	n := 0
	for _, k := range keys {
		if keyCompatible(k, lib) {
			n++
		}
	}
	return n
}

var typeMismatch = lazyRegexp(`^toml: cannot (?:decode TOML ([a-z -]+?) into|store (?:a |an )?([a-z ]+?) in(?:to)? )`)

// tomlTypeMismatch extracts the TOML type from a type mismatch message.
func tomlTypeMismatch(msg string) (string, bool) {
	m := typeMismatch().FindStringSubmatch(msg)
	if m == nil {
		return "", false
	}
	got := m[1] + m[2]
	switch got {
	case "integer", "array", "array table":
		return "an " + got, true
	case "string", "float", "boolean", "table", "inline table", "local date", "local time", "local date-time", "date-time":
		return "a " + got, true
	default:
		return "another type", true
	}
}

// tomlExpectedType describes the type the field at key must have.
func tomlExpectedType(key toml.Key) string {
	k := make([]string, len(key))
	copy(k, key)
	// Replace the user-chosen names by "*".
	if len(k) >= 2 && (k[0] == "mcp_servers" || k[0] == "lsp" || k[0] == "native") {
		k[1] = "*"
	}
	if len(k) >= 4 && k[0] == "mcp_servers" && (k[2] == "env" || k[2] == "headers" || k[2] == "env_from" || k[2] == "env_headers") {
		k = k[:4]
		k[3] = "*"
	}
	if t, ok := tomlTypes()[strings.Join(k, ".")]; ok {
		return t
	}
	return "another type"
}

var tomlTypes = sync.OnceValue(func() map[string]string {
	const (
		str  = "a string"
		strs = "an array of strings"
		tab  = "a table"
		smap = "a table of strings"
		num  = "an integer"
	)
	m := map[string]string{
		"schema_version": num, "plugin": tab, "skills": tab, "skills.path": str,
		"mcp_servers": "a table of server tables", "mcp_servers.*": tab,
		"tools": "an array of tables ([[tools]])", "hooks": "an array of tables ([[hooks]])",
		"capabilities": tab, "when": tab, "lsp": "a table of lsp tables", "lsp.*": tab,
		"native": "a table of native tables", "native.*": tab,
		"plugin.author": tab, "plugin.keywords": strs,
		"tools.params": tab, "tools.timeout_sec": num, "tools.args": strs,
		"hooks.timeout_sec": num, "hooks.args": strs,
		"capabilities.network_hosts": strs, "capabilities.filesystem_roots": strs,
		"capabilities.lifecycle_mutation": "a boolean",
		"when.os":                         strs, "when.binaries": strs,
		"lsp.*.command": str, "lsp.*.args": strs, "lsp.*.languages": strs, "native.*.path": str,
		"mcp_servers.*.timeout_sec": num,
	}
	for _, f := range []string{"name", "version", "description", "display_name", "license", "homepage", "repository"} {
		m["plugin."+f] = str
	}
	for _, f := range []string{"name", "email", "url"} {
		m["plugin.author."+f] = str
	}
	for _, f := range []string{"name", "description", "command"} {
		m["tools."+f] = str
	}
	for _, f := range []string{"event", "matcher", "command"} {
		m["hooks."+f] = str
	}
	for _, f := range []string{"type", "command", "cwd", "url", "bearer_token_env_var"} {
		m["mcp_servers.*."+f] = str
	}
	for _, f := range []string{"args", "tools_include", "tools_exclude"} {
		m["mcp_servers.*."+f] = strs
	}
	for _, f := range []string{"env", "headers", "env_from", "env_headers"} {
		m["mcp_servers.*."+f] = smap
		m["mcp_servers.*."+f+".*"] = str
	}
	return m
})

const numberOutOfRange = "a number is out of range"

// tomlErrorKind reduces a go-toml message to its kind, cutting it where the
// library starts quoting the document ("but got U+0067 'g'", "parsing
// \"…\"", a number).
func tomlErrorKind(msg string) string {
	msg = strings.TrimPrefix(msg, "toml: ")
	if strings.Contains(msg, "too large") || strings.Contains(msg, "out of range") || strings.Contains(msg, "overflow") {
		return numberOutOfRange
	}
	cut := len(msg)
	for _, marker := range []string{" but got", " U+", "\"", "'", ":", "`", "%"} {
		if i := strings.Index(msg, marker); i >= 0 && i < cut {
			cut = i
		}
	}
	if i := strings.IndexAny(msg, "0123456789"); i >= 0 && i < cut {
		cut = i
	}
	msg = strings.TrimRight(msg[:cut], " ,;")
	if msg == "" || !safeText(msg) {
		return "the document is not valid TOML"
	}
	return msg
}
