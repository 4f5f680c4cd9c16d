package inventory

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"unicode/utf8"

	"github.com/bundlectl/bundlectl/internal/jsnum"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/zeebo/blake3"
)

// Schema names this shape of the inventory; it is the first field of every
// inventory and the tag of the capability hash.
const Schema = "bundlectl-capabilities-v2"

// Tag starts the bytes the capability hash covers.
const Tag = Schema + "\x00"

// Inventory is everything a bundle may do or run, in every host it
// carries a manifest for, and everything the runtime needs to run it.
// Zero-valued fields are omitted from the canonical form.
type Inventory struct {
	Schema  string   `json:"schema"`
	Name    string   `json:"name"`
	Formats []string `json:"formats,omitempty"`

	Skills       []Doc       `json:"skills,omitempty"`
	Commands     []Doc       `json:"commands,omitempty"`
	Agents       []Doc       `json:"agents,omitempty"`
	OutputStyles []Doc       `json:"output_styles,omitempty"`
	Contexts     []Doc       `json:"contexts,omitempty"`
	Tools        []Tool      `json:"tools,omitempty"`
	Hooks        []Hook      `json:"hooks,omitempty"`
	MCPServers   []MCPServer `json:"mcp_servers,omitempty"`
	LSPServers   []LSPServer `json:"lsp_servers,omitempty"`
	Monitors     []Monitor   `json:"monitors,omitempty"`
	Apps         []App       `json:"apps,omitempty"`
	Policies     []Policy    `json:"policies,omitempty"`

	UserConfig    []UserOption `json:"user_config,omitempty"`
	ExcludeTools  []string     `json:"exclude_tools,omitempty"`
	Executables   []string     `json:"executables,omitempty"`
	HostVariables []string     `json:"host_variables,omitempty"`
	// Manifest holds host manifest fields bundlectl does not interpret,
	// keyed "<format>.<field>", as written.
	Manifest map[string]json.RawMessage `json:"manifest,omitempty"`

	Permissions Permissions `json:"permissions"`
	When        When        `json:"when"`
	Inactive    []Inactive  `json:"inactive,omitempty"`
}

// Grants is what a skill, command or agent's front matter grants.
type Grants struct {
	AllowedTools    []string                   `json:"allowed_tools,omitempty"`
	DisallowedTools []string                   `json:"disallowed_tools,omitempty"`
	Tools           []string                   `json:"tools,omitempty"`
	NoTools         bool                       `json:"no_tools,omitempty"`
	Model           string                     `json:"model,omitempty"`
	PermissionMode  string                     `json:"permission_mode,omitempty"`
	Skills          []string                   `json:"skills,omitempty"`
	MCPServers      []string                   `json:"mcp_servers,omitempty"`
	Other           map[string]json.RawMessage `json:"other,omitempty"`
	// Ignored: keys the host ignores for this component (bundle.Grants).
	Ignored map[string]json.RawMessage `json:"ignored,omitempty"`
}

// Doc is a content component: its name, where it is in the snapshot, the
// hosts that load it, what its front matter grants and the shell lines it
// runs.
type Doc struct {
	Name       string   `json:"name"`
	Path       string   `json:"path"`
	Hosts      []string `json:"hosts,omitempty"`
	Grants     Grants   `json:"grants,omitzero"`
	ShellLines []string `json:"shell_lines,omitempty"`
}

// Tool is a dev.bundlectl tool.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Command     string          `json:"command"`
	Args        []string        `json:"args,omitempty"`
	Params      json.RawMessage `json:"params,omitempty"`
	TimeoutSec  int             `json:"timeout_sec,omitempty"`
}

// Hook is one hook. ID is a short digest of everything else, stable across
// reviews while the hook is unchanged: it names the hook in per-component
// switches.
type Hook struct {
	ID             string                     `json:"id"`
	Event          string                     `json:"event"`
	Matcher        string                     `json:"matcher,omitempty"`
	Type           string                     `json:"type"`
	Command        string                     `json:"command,omitempty"`
	Args           []string                   `json:"args,omitempty"`
	Shell          bool                       `json:"shell,omitempty"`
	URL            string                     `json:"url,omitempty"`
	Headers        map[string]string          `json:"headers,omitempty"`
	AllowedEnvVars []string                   `json:"allowed_env_vars,omitempty"`
	Prompt         string                     `json:"prompt,omitempty"`
	Model          string                     `json:"model,omitempty"`
	Env            map[string]string          `json:"env,omitempty"`
	TimeoutSec     int                        `json:"timeout_sec,omitempty"`
	Async          bool                       `json:"async,omitempty"`
	Other          map[string]json.RawMessage `json:"other,omitempty"`
	Scope          string                     `json:"scope,omitempty"`
	Hosts          []string                   `json:"hosts,omitempty"`
	HostVariables  []string                   `json:"host_variables,omitempty"`
}

// MCPServer is one MCP server with every option that shapes what it may do.
type MCPServer struct {
	Name              string                     `json:"name"`
	Transport         string                     `json:"transport"`
	Command           string                     `json:"command,omitempty"`
	Args              []string                   `json:"args,omitempty"`
	Env               map[string]string          `json:"env,omitempty"`
	Cwd               string                     `json:"cwd,omitempty"`
	URL               string                     `json:"url,omitempty"`
	Headers           map[string]string          `json:"headers,omitempty"`
	EnvFrom           map[string]string          `json:"env_from,omitempty"`
	BearerTokenEnvVar string                     `json:"bearer_token_env_var,omitempty"`
	EnvHeaders        map[string]string          `json:"env_headers,omitempty"`
	ToolsInclude      []string                   `json:"tools_include,omitempty"`
	ToolsExclude      []string                   `json:"tools_exclude,omitempty"`
	TimeoutSec        int                        `json:"timeout_sec,omitempty"`
	Trust             bool                       `json:"trust,omitempty"`
	Other             map[string]json.RawMessage `json:"other,omitempty"`
	Hosts             []string                   `json:"hosts,omitempty"`
	HostVariables     []string                   `json:"host_variables,omitempty"`
}

// Remote reports whether the server is reached over the network.
func (s MCPServer) Remote() bool { return s.Transport != "stdio" }

// LSPServer is one language server.
type LSPServer struct {
	Name          string                     `json:"name"`
	Command       string                     `json:"command"`
	Args          []string                   `json:"args,omitempty"`
	Env           map[string]string          `json:"env,omitempty"`
	Transport     string                     `json:"transport,omitempty"`
	Languages     map[string]string          `json:"languages,omitempty"`
	Other         map[string]json.RawMessage `json:"other,omitempty"`
	Hosts         []string                   `json:"hosts,omitempty"`
	HostVariables []string                   `json:"host_variables,omitempty"`
}

// Monitor is a Claude Code background monitor (a shell command).
type Monitor struct {
	Name          string                     `json:"name"`
	Command       string                     `json:"command"`
	Other         map[string]json.RawMessage `json:"other,omitempty"`
	Hosts         []string                   `json:"hosts,omitempty"`
	HostVariables []string                   `json:"host_variables,omitempty"`
}

// App is a Codex app.
type App struct {
	Name  string          `json:"name"`
	Spec  json.RawMessage `json:"spec"`
	Hosts []string        `json:"hosts,omitempty"`
}

// Policy is a Gemini CLI policy file.
type Policy struct {
	Path  string          `json:"path"`
	Rules json.RawMessage `json:"rules"`
	Hosts []string        `json:"hosts,omitempty"`
}

// UserOption is one user-supplied option: its key and kind, never a value.
type UserOption struct {
	Key       string          `json:"key"`
	Type      string          `json:"type,omitempty"`
	Sensitive bool            `json:"sensitive,omitempty"`
	Required  bool            `json:"required,omitempty"`
	Default   json.RawMessage `json:"default,omitempty"`
	// Min, Max, Multiple and Options are a Claude Code option's bounds:
	// the values its host's config dialog accepts, which configure
	// accepts too.
	Min      *float64 `json:"min,omitempty"`
	Max      *float64 `json:"max,omitempty"`
	Multiple bool     `json:"multiple,omitempty"`
	Options  []string `json:"options,omitempty"`
	EnvVar   string   `json:"env_var,omitempty"`
	Hosts    []string `json:"hosts,omitempty"`
}

// DefaultValue is the declared default as the value a process gets for an
// option that holds none: a JSON string's text, a number's or a boolean's
// literal; ok is false for none or any other kind (null, an array, an
// object), which gives the option no value. The runtime and list (a
// required option not set) judge it alike.
func (o UserOption) DefaultValue() (string, bool) {
	var v any
	if len(o.Default) == 0 || json.Unmarshal(o.Default, &v) != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return v, true
	case bool:
		return string(bytes.TrimSpace(o.Default)), true
	case float64:
		// As Claude Code (JavaScript) passes a number: String(n), so a
		// default of 5.0 is "5" and 1e21 "1e+21".
		return jsnum.Format(v), true
	}
	return "", false
}

// Permissions are the dev.bundlectl capabilities, and the network hosts
// the bundle reaches (declared, or derived from its endpoints).
type Permissions struct {
	NetworkHosts      []string `json:"network_hosts,omitempty"`
	NetworkDeclared   bool     `json:"network_declared,omitempty"`
	FilesystemRoots   []string `json:"filesystem_roots,omitempty"`
	LifecycleMutation bool     `json:"lifecycle_mutation,omitempty"`
}

// When restricts the hosts a bundle applies to.
type When struct {
	OS       []string `json:"os,omitempty"`
	Binaries []string `json:"binaries,omitempty"`
}

// Inactive is a declaration bundlectl does not run; it blocks enabling.
type Inactive struct {
	Surface string          `json:"surface"`
	Name    string          `json:"name,omitempty"`
	Spec    json.RawMessage `json:"spec,omitempty"`
}

// ---- canonical form ----

// Error reports an inventory that has no canonical form: a string that is
// not valid UTF-8, a raw JSON field that is not JSON. The readers reject
// all of these, so this is a defect, never something to hash around.
type Error struct {
	Field string
	Msg   string
}

func (e *Error) Error() string { return fmt.Sprintf("capability inventory: %s: %s", e.Field, e.Msg) }

// Canonical returns the canonical JSON of inv: object keys sorted by their
// UTF-8 bytes, zero-valued fields omitted, no insignificant white space,
// no HTML escaping, numbers exactly as written.
func Canonical(inv *Inventory) ([]byte, error) {
	raw, err := json.Marshal(inv)
	if err != nil {
		return nil, &Error{Field: "inventory", Msg: err.Error()}
	}
	if !utf8.Valid(raw) {
		return nil, &Error{Field: "inventory", Msg: "not valid UTF-8"}
	}
	return Compact(raw)
}

// Compact re-encodes a JSON document in canonical form.
func Compact(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &Error{Field: "inventory", Msg: err.Error()}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, &Error{Field: "inventory", Msg: err.Error()}
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Digest returns BLAKE3-256(Tag || canonical).
func Digest(canonical []byte) receipts.Digest {
	h := blake3.New()
	h.WriteString(Tag)
	h.Write(canonical)
	var d receipts.Digest
	h.Sum(d[:0])
	return d
}

// ErrSchema is wrapped when an inventory is not of this schema (a receipt
// written by an older bundlectl).
var ErrSchema = errors.New("inventory of another schema")

// Parse reads a canonical inventory strictly: one JSON object of this
// schema and no unknown field.
func Parse(data []byte) (*Inventory, error) {
	// One strict pass in the common case (this runs for every active
	// bundle on every hook call); the schema is looked at on its own only
	// to tell an inventory of another schema from a malformed one.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var inv Inventory
	err := dec.Decode(&inv)
	if err != nil || inv.Schema != Schema {
		if serr := schemaError(data); serr != nil {
			return nil, serr
		}
	}
	if err != nil {
		return nil, fmt.Errorf("capability inventory: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("capability inventory: data after the object")
	}
	return &inv, nil
}

// Summary is what deciding whether a bundle is active and which of its
// hooks an event runs needs of an inventory: its schema, hooks, `when`
// conditions and inactive declarations.
type Summary struct {
	Schema   string     `json:"schema"`
	Hooks    []Hook     `json:"hooks,omitempty"`
	When     When       `json:"when"`
	Inactive []Inactive `json:"inactive,omitempty"`
}

// ParseSummary reads the Summary of an inventory: the schema as Parse
// checks it, and those fields typed as Parse types them. The other
// fields are neither decoded nor checked (Parse does both): a caller
// that runs anything of the bundle parses the whole inventory first.
// Decoding only these types is what makes it cheap (a process's first
// Parse costs 30 times a later one, in the decoder's reflection).
func ParseSummary(data []byte) (*Summary, error) {
	var s Summary
	err := json.Unmarshal(data, &s)
	if err != nil || s.Schema != Schema {
		if serr := schemaError(data); serr != nil {
			return nil, serr
		}
	}
	if err != nil {
		return nil, fmt.Errorf("capability inventory: %v", err)
	}
	return &s, nil
}

// schemaError looks at data's schema alone, for a reader whose decoding
// failed or found another schema: it says why data is not JSON, or that
// it is an inventory of another schema (ErrSchema), or nothing when the
// schema is this one and the reader's own error stands.
func schemaError(data []byte) error {
	var probe struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return fmt.Errorf("capability inventory: %v", err)
	}
	if probe.Schema != Schema {
		return fmt.Errorf("capability inventory: %w: %q, want %q", ErrSchema, probe.Schema, Schema)
	}
	return nil
}

// HookID is the short digest that names a hook: BLAKE3 over the canonical
// JSON of the hook with an empty ID, first 12 hex digits.
func HookID(h Hook) string {
	h.ID = ""
	raw, err := json.Marshal(h)
	if err != nil {
		return ""
	}
	c, err := Compact(raw)
	if err != nil {
		return ""
	}
	sum := blake3.Sum256(append([]byte("bundlectl-hook\x00"), c...))
	return hex.EncodeToString(sum[:6])
}

// sortedBy sorts xs by key, ties kept in input order.
func sortedBy[T any](xs []T, key func(T) string) []T {
	c := append([]T(nil), xs...)
	sort.SliceStable(c, func(i, j int) bool { return key(c[i]) < key(c[j]) })
	return c
}

// set returns the sorted, deduplicated strings of ss, nil when empty.
func set(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	c := append([]string(nil), ss...)
	sort.Strings(c)
	out := c[:1]
	for _, s := range c[1:] {
		if s != out[len(out)-1] {
			out = append(out, s)
		}
	}
	return out
}
