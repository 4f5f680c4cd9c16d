package bundle

import (
	"encoding/json"
)

// Scope is the root a bundle was discovered in. Roots are searched in the
// order ScopeBuiltin, ScopeUser, ScopeWorkspace; the first bundle with a
// given name wins and later ones are shadowed.
type Scope string

const (
	ScopeBuiltin   Scope = "builtin"
	ScopeUser      Scope = "user"
	ScopeWorkspace Scope = "workspace"
	// ScopeDir is a bundle loaded from an explicit directory
	// (`bundlectl validate <dir>`); it is never trusted or enabled.
	ScopeDir Scope = "dir"
)

// Format names the manifest a bundle was read from.
type Format string

const (
	FormatAgentPlugins Format = "agent-plugins-1.0.0" // plugin.json
	FormatTOML         Format = "plugin.toml"         // legacy, strict
)

// Bundle is the one internal model of a bundle, whichever manifest format
// it came from. A Bundle is a value read from disk at one moment; it never
// changes after Load returns.
type Bundle struct {
	ID    string // "<scope>/<12 hex>/<name>", see Identity
	Name  string // directory name; the manifest name must equal it
	Scope Scope
	Dir   string // canonical absolute path of the bundle directory
	// Format is empty when no manifest could be read.
	Format Format

	Meta        Metadata
	Components  Components
	Permissions Permissions
	When        When
	// Inactive declarations parse and are reviewed, but block enabling.
	Inactive []Inactive
	// Ignored lists manifest fields that were reported and ignored
	// (unknown top-level plugin.json fields, a non-object extensions).
	Ignored []string

	// Tree is the validated walk of the bundle directory; nil when the
	// walk itself could not start (e.g. the directory is a symlink).
	Tree *Tree

	Report Report

	// ShadowedBy is the ID of the earlier bundle with the same name, if any.
	ShadowedBy string
}

// Metadata is the descriptive part of a manifest. None of it carries authority.
type Metadata struct {
	Version     string   `json:"version,omitempty"`
	Description string   `json:"description,omitempty"`
	DisplayName string   `json:"display_name,omitempty"`
	Author      *Author  `json:"author,omitempty"`
	Homepage    string   `json:"homepage,omitempty"`
	Repository  string   `json:"repository,omitempty"`
	License     string   `json:"license,omitempty"`
	Keywords    []string `json:"keywords,omitempty"`
	// SchemaVersion is the plugin.toml schema_version, 0 when absent.
	SchemaVersion int `json:"schema_version,omitempty"`
}

type Author struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

// Components are the valid, loaded components. Components that failed
// their own rules are absent here and appear in Report as skipped findings.
type Components struct {
	Skills   []Skill     `json:"skills,omitempty"`
	Commands []Document  `json:"commands,omitempty"` // dev.bundlectl/commands/*.md
	Agents   []Document  `json:"agents,omitempty"`   // dev.bundlectl/agents/*.md
	Tools    []Tool      `json:"tools,omitempty"`
	Hooks    []Hook      `json:"hooks,omitempty"`
	MCP      []MCPServer `json:"mcp_servers,omitempty"`
	// MCPDisabled is set when mcp.json as a whole was invalid (§7.2.2):
	// MCP is disabled for the bundle and nothing else is affected.
	MCPDisabled bool `json:"mcp_disabled,omitempty"`
}

// Skill is one Agent Skills directory: skills/<name>/SKILL.md.
type Skill struct {
	Name          string            `json:"name"`
	Description   string            `json:"description"`
	Path          string            `json:"path"` // "skills/<name>/SKILL.md"
	License       string            `json:"license,omitempty"`
	Compatibility string            `json:"compatibility,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
	AllowedTools  string            `json:"allowed_tools,omitempty"`
}

// Document is a content component: a slash-command prompt or a sub-agent
// definition. Name is the file name without ".md".
type Document struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"` // from optional front matter
	Path        string `json:"path"`
}

// Tool is a dev.bundlectl tool: a fixed argv the harness runs with the
// caller's input as JSON on stdin.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Command     string          `json:"command"` // one token: bare name or "./path"
	Args        []string        `json:"args,omitempty"`
	Params      json.RawMessage `json:"params,omitempty"` // a JSON Schema, compact form
	TimeoutSec  int             `json:"timeout_sec,omitempty"`
	// Source names where the tool was declared, for findings
	// ("plugin.json: extensions.dev.bundlectl.tools[0]").
	Source string `json:"-"`
}

// HookEvents are the events a hook may name, in DESIGN.md §7 order.
var HookEvents = []string{
	"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest",
	"PostToolUse", "PreCompact", "PostCompact", "SubagentStart",
	"SubagentStop", "Stop",
}

// Hook is one command hook, flattened from the Claude-Code-shaped tree.
// Order within a bundle is manifest order.
type Hook struct {
	Event      string   `json:"event"`
	Matcher    string   `json:"matcher,omitempty"` // regexp over the whole tool name; "" or "*" match all
	Command    string   `json:"command"`
	Args       []string `json:"args,omitempty"`
	TimeoutSec int      `json:"timeout_sec,omitempty"`
	Source     string   `json:"-"` // where it was declared, for findings
}

// Transports of MCP servers.
const (
	TransportStdio          = "stdio"
	TransportStreamableHTTP = "streamable-http"
	TransportSSE            = "sse"
)

// MCPServer is one valid mcp.json server together with its dev.bundlectl
// options. Fields of the other transport are empty.
type MCPServer struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`

	// stdio
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"` // as written; "" means the plugin root

	// streamable-http, sse
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`

	// dev.bundlectl mcp.<name> options
	TimeoutSec        int               `json:"timeout_sec,omitempty"`
	ToolsInclude      []string          `json:"tools_include,omitempty"`
	ToolsExclude      []string          `json:"tools_exclude,omitempty"`
	EnvFrom           map[string]string `json:"env_from,omitempty"` // DEST -> host SOURCE
	BearerTokenEnvVar string            `json:"bearer_token_env_var,omitempty"`
	EnvHeaders        map[string]string `json:"env_headers,omitempty"` // header name -> host variable

	Source string `json:"-"` // where it was declared, for findings
}

// Remote reports whether the server is reached over the network.
func (s MCPServer) Remote() bool { return s.Transport != TransportStdio }

// Permissions are the dev.bundlectl capabilities a bundle requests.
type Permissions struct {
	NetworkHosts      []string `json:"network_hosts,omitempty"` // normalized, sorted
	FilesystemRoots   []string `json:"filesystem_roots,omitempty"`
	LifecycleMutation bool     `json:"lifecycle_mutation,omitempty"`
}

// When restricts the hosts a bundle applies to. Empty fields apply everywhere.
type When struct {
	OS       []string `json:"os,omitempty"`       // linux, macos, windows
	Binaries []string `json:"binaries,omitempty"` // bare names that must be on PATH
}

// Inactive surfaces: declared, validated and reviewed, never enabled.
const (
	SurfaceLSP               = "lsp"
	SurfaceNative            = "native"
	SurfaceFilesystemRoots   = "filesystem_roots"
	SurfaceLifecycleMutation = "lifecycle_mutation"
)

// Inactive is one inactive declaration.
type Inactive struct {
	Surface string `json:"surface"`          // one of the Surface constants
	Name    string `json:"name,omitempty"`   // e.g. the lsp server name
	Detail  string `json:"detail,omitempty"` // what was declared, for the review
	// Spec is the declaration as canonical JSON, so the capability hash
	// covers every field of it.
	Spec json.RawMessage `json:"spec,omitempty"`
}

// Blocked reports whether the bundle declares an inactive surface.
func (b *Bundle) Blocked() bool { return len(b.Inactive) > 0 }

// Valid reports whether the bundle passed every rule: no fatal finding and
// no skipped component. This is what `bundlectl validate` exits on.
func (b *Bundle) Valid() bool { return b.Report.Valid() }

// Rejected reports whether a fatal finding rejects the whole bundle; a
// rejected bundle is listed as invalid and can never be trusted.
func (b *Bundle) Rejected() bool { return b.Report.Rejected() }
