package bundle

import (
	"encoding/json"
	"slices"
	"time"
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

// Format names a manifest format a bundle was read through.
type Format string

const (
	FormatAgentPlugins Format = "agent-plugins-1.0.0" // plugin.json
	FormatTOML         Format = "plugin.toml"         // legacy, strict
	FormatClaude       Format = "claude-code"         // .claude-plugin/plugin.json, or none
	FormatCodex        Format = "codex"               // .codex-plugin/plugin.json
	FormatGemini       Format = "gemini-cli"          // gemini-extension.json
)

// Host names an agent whose own plugin system loads a component. A
// component declared through bundlectl's own formats (plugin.json's
// dev.bundlectl extension, plugin.toml) has no host: every host gets it
// through bundlectl.
type Host string

const (
	HostClaude Host = "claude"
	HostCodex  Host = "codex"
	HostGemini Host = "gemini"
)

// Bundle is the one internal model of a bundle, whichever manifest formats
// it was read through. A Bundle is a value read from disk at one moment; it
// never changes after Load returns.
type Bundle struct {
	// findAll: AllFindings' pass, which reads past a rejection (stop).
	findAll bool
	// droppedURLs are the urls of hooks and MCP servers a reader dropped
	// (dropURL), which checkModel checks for a credential.
	droppedURLs []droppedURL

	ID    string // "<scope>/<12 hex>/<name>", see Identity
	Name  string // directory name
	Scope Scope
	Dir   string // canonical absolute path of the bundle directory
	// Format is the first manifest format read (the one bundlectl's own
	// extension and the metadata come from); empty when none could be read.
	Format Format
	// Formats lists every manifest format the bundle was read through, in
	// the order Load reads them. A bundle that carries manifests for
	// several hosts is the union of what each declares.
	Formats []Format

	Meta        Metadata
	Components  Components
	Permissions Permissions
	When        When
	// UserConfig are the options a user supplies for the bundle (Claude
	// Code userConfig, Gemini CLI settings). Only their keys and kinds are
	// authority; values live outside the bundle.
	UserConfig []UserOption
	// ExcludeTools are host tools the bundle asks the host to remove
	// (Gemini CLI excludeTools).
	ExcludeTools []string
	// Executables are the files the bundle ships that can run: files with
	// an executable bit, everything under bin/, scripts under skills.
	Executables []string
	// HostVars are the host environment variables the bundle reads
	// (${VAR} and ${VAR:-default} references, and $VAR in shell strings),
	// sorted. Only these ever reach a child beyond the allowlist.
	HostVars []string
	// Inactive declarations parse and are reviewed, but block enabling.
	Inactive []Inactive
	// ManifestOther holds top-level fields of host manifests that bundlectl
	// does not interpret but a host may (channels, a future field), as
	// canonical JSON keyed "<format>.<field>": they are reviewed and
	// hashed, never dropped.
	ManifestOther map[string]json.RawMessage
	// Ignored lists manifest fields that were reported and ignored.
	Ignored []string
	// Notes are facts the review states about how the bundle was read
	// (which of two manifests was used, which host defaults applied).
	Notes []string

	// Tree is the validated walk of the bundle directory; nil when the
	// walk itself could not start (e.g. the directory is a symlink).
	Tree *Tree
	// WalkedAt is when the walk started: a fingerprint of Tree proves
	// nothing about changes made within the racy window before it.
	WalkedAt time.Time

	Report Report

	// ShadowedBy is the ID of the earlier bundle with the same name, if any.
	ShadowedBy string

	// locs are the content locations readers declared, read once by
	// loadDocuments.
	locs []docLocation
	// claudeRefused are what makes Claude Code refuse the whole plugin,
	// until settleClaudeRefusal decides whether that refuses the bundle.
	claudeRefused []claudeRefusal
	// codexFallback: Codex reads another host's manifest as its own.
	codexFallback bool
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
// their own rules are absent here and appear in Report as skipped findings
// ("will not load").
type Components struct {
	Skills       []Skill     `json:"skills,omitempty"`
	Commands     []Document  `json:"commands,omitempty"`
	Agents       []Document  `json:"agents,omitempty"`
	OutputStyles []Document  `json:"output_styles,omitempty"`
	Contexts     []Document  `json:"contexts,omitempty"` // Gemini CLI context files
	Tools        []Tool      `json:"tools,omitempty"`
	Hooks        []Hook      `json:"hooks,omitempty"`
	MCP          []MCPServer `json:"mcp_servers,omitempty"`
	LSP          []LSPServer `json:"lsp_servers,omitempty"`
	Monitors     []Monitor   `json:"monitors,omitempty"`
	Apps         []App       `json:"apps,omitempty"`
	Policies     []Policy    `json:"policies,omitempty"`
	// MCPDisabled is set when an MCP configuration file as a whole was
	// invalid: MCP from that file is disabled and nothing else is affected.
	MCPDisabled bool `json:"mcp_disabled,omitempty"`
}

// Grants is the authority a skill, command or agent's front matter gives
// the agent while it is in use. Lists keep the text as written: a host
// parses "Bash(git add:*), Read" itself, and splitting it here could only
// lose something.
type Grants struct {
	AllowedTools    []string `json:"allowed_tools,omitempty"`
	DisallowedTools []string `json:"disallowed_tools,omitempty"`
	// Tools is an agent's tool list as written, plus the tools its
	// memory adds in Claude Code (ClaudeAgentMemoryTools).
	Tools []string `json:"tools,omitempty"`
	// NoTools is set for an agent only Claude Code loads whose tools key
	// is there but names no tool ("tools:", "", [], " ", ","): Claude
	// Code then gives the agent no tools at all, where no key gives it
	// every tool (ClaudeAgentToolNames).
	NoTools        bool   `json:"no_tools,omitempty"`
	Model          string `json:"model,omitempty"`
	PermissionMode string `json:"permission_mode,omitempty"`
	// Skills and MCPServers name what an agent preloads or may use.
	Skills     []string `json:"skills,omitempty"`
	MCPServers []string `json:"mcp_servers,omitempty"`
	// Other holds every further front-matter key a host gives meaning
	// (context, agent, effort, isolation, …) as canonical JSON, so that a
	// change to any of them changes the capability hash.
	Other map[string]json.RawMessage `json:"other,omitempty"`
	// Ignored holds, as canonical JSON, the keys a host reads nowhere for
	// this component although it reads them elsewhere: Claude Code's
	// permissionMode, hooks and mcpServers of a plugin agent. Hashed and
	// shown as ignored, never as grants.
	Ignored map[string]json.RawMessage `json:"ignored,omitempty"`
}

// Skill is one Agent Skills directory: <skills dir>/<name>/SKILL.md.
type Skill struct {
	Name          string            `json:"name"`
	Description   string            `json:"description"`
	Path          string            `json:"path"` // "skills/<name>/SKILL.md"
	License       string            `json:"license,omitempty"`
	Compatibility string            `json:"compatibility,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
	Grants        Grants            `json:"grants"`
	// ShellLines are the lines a host runs when the skill is invoked
	// (Claude Code's "!`cmd`" lines), shown verbatim.
	ShellLines []string `json:"shell_lines,omitempty"`
	Hosts      []Host   `json:"hosts,omitempty"`
}

// Document is a content component: a slash command, a sub-agent, an
// output style or a context file. Name is the host's name for it (a
// command in commands/git/commit.md is "git:commit").
type Document struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Path        string `json:"path"`
	Grants      Grants `json:"grants"`
	// ShellLines run when the command is invoked: Claude Code "!`cmd`"
	// lines, Gemini CLI "!{cmd}" injections.
	ShellLines []string `json:"shell_lines,omitempty"`
	Hosts      []Host   `json:"hosts,omitempty"`
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

// Hook types.
const (
	HookCommand = "command"
	HookHTTP    = "http"
	HookPrompt  = "prompt"
	HookAgent   = "agent"
	// HookMCPTool calls a tool of one of the bundle's MCP servers; the
	// host makes the call.
	HookMCPTool = "mcp_tool"
)

// Hook is one hook, flattened from a host's event → matcher group → hook
// tree. Order within a bundle is manifest order.
type Hook struct {
	Event   string `json:"event"`
	Matcher string `json:"matcher,omitempty"` // "" or "*" match all
	Type    string `json:"type"`              // HookCommand, HookHTTP, HookPrompt, HookAgent

	// command: exec form runs Command with Args and no shell; shell form
	// (Shell) runs "<shell> -c" Command, the string exactly as written,
	// with the shell of the host that declares it (harness/hookshell.go).
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	Shell   bool     `json:"shell,omitempty"`
	// http: the URL the event is POSTed to, literal headers, and the host
	// variables the headers may interpolate.
	URL            string            `json:"url,omitempty"`
	Headers        map[string]string `json:"headers,omitempty"`
	AllowedEnvVars []string          `json:"allowed_env_vars,omitempty"`
	// prompt and agent: evaluated by the host's model, never run by
	// bundlectl.
	Prompt string `json:"prompt,omitempty"`
	Model  string `json:"model,omitempty"`

	// Env is the literal environment a command hook adds (Gemini CLI's
	// handler "env"), after the host variables it references expand.
	Env map[string]string `json:"env,omitempty"`

	TimeoutSec int  `json:"timeout_sec,omitempty"`
	Async      bool `json:"async,omitempty"`
	// Other holds further fields with meaning (a condition "if", the
	// shell, an mcp_tool's server, tool and input) as canonical JSON.
	Other map[string]json.RawMessage `json:"other,omitempty"`
	// Scope is "" for a hook of the whole bundle, or "skill:<name>",
	// "agent:<name>", "command:<name>" for a hook a front matter declares:
	// it is active only while that component is.
	Scope string `json:"scope,omitempty"`
	// Hosts whose hook system declared it; nil for bundlectl's own hooks,
	// which every host gets through bundlectl.
	Hosts  []Host `json:"hosts,omitempty"`
	Source string `json:"-"` // where it was declared, for findings
}

// Runs reports whether bundlectl itself runs the hook as a process.
func (h Hook) Runs() bool { return h.Type == HookCommand }

// Transports of MCP and LSP servers.
const (
	TransportStdio          = "stdio"
	TransportStreamableHTTP = "streamable-http"
	TransportSSE            = "sse"
	TransportWebSocket      = "ws"
)

// MCPServer is one valid MCP server together with its options. Fields of
// the other transport are empty.
type MCPServer struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`

	// stdio
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"` // as written; "" means the plugin root

	// streamable-http, sse, ws
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`

	// options (dev.bundlectl, Codex and Gemini CLI server fields)
	TimeoutSec        int               `json:"timeout_sec,omitempty"`
	ToolsInclude      []string          `json:"tools_include,omitempty"`
	ToolsExclude      []string          `json:"tools_exclude,omitempty"`
	EnvFrom           map[string]string `json:"env_from,omitempty"` // DEST -> host SOURCE
	BearerTokenEnvVar string            `json:"bearer_token_env_var,omitempty"`
	EnvHeaders        map[string]string `json:"env_headers,omitempty"` // header name -> host variable
	// Trust is Gemini CLI's "trust": the host skips confirmation of every
	// tool call to this server.
	Trust bool `json:"trust,omitempty"`
	// Other holds further host fields with meaning (oauth, auth provider,
	// enabled) as canonical JSON.
	Other map[string]json.RawMessage `json:"other,omitempty"`

	Hosts  []Host `json:"hosts,omitempty"`
	Source string `json:"-"` // where it was declared, for findings
}

// Remote reports whether the server is reached over the network.
func (s MCPServer) Remote() bool { return s.Transport != TransportStdio }

// LSPServer is a language server: a process like a stdio MCP server.
type LSPServer struct {
	Name    string            `json:"name"`
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// Transport is "stdio" (default) or "socket".
	Transport string `json:"transport,omitempty"`
	// Languages maps file extensions to language ids (Claude Code
	// extensionToLanguage); a dev.bundlectl declaration lists ids only.
	Languages map[string]string `json:"languages,omitempty"`
	// Other holds the remaining fields (initializationOptions, settings,
	// workspaceFolder, timeouts, restart policy) as canonical JSON.
	Other  map[string]json.RawMessage `json:"other,omitempty"`
	Hosts  []Host                     `json:"hosts,omitempty"`
	Source string                     `json:"-"`
}

// Monitor is a Claude Code background monitor: a shell command the host
// keeps running and whose output it reads.
type Monitor struct {
	Name    string                     `json:"name"`
	Command string                     `json:"command"` // shell form
	Other   map[string]json.RawMessage `json:"other,omitempty"`
	Hosts   []Host                     `json:"hosts,omitempty"`
	Source  string                     `json:"-"`
}

// App is a Codex app (connector) a plugin makes available.
type App struct {
	Name   string          `json:"name"`
	Spec   json.RawMessage `json:"spec"` // the declaration as canonical JSON
	Hosts  []Host          `json:"hosts,omitempty"`
	Source string          `json:"-"`
}

// Policy is a Gemini CLI policy file: rules that allow, deny or ask for
// tool calls.
type Policy struct {
	Path  string          `json:"path"`
	Rules json.RawMessage `json:"rules"` // the parsed file as canonical JSON
	Hosts []Host          `json:"hosts,omitempty"`
}

// UserOption is one option a user supplies (Claude Code userConfig, Gemini
// CLI settings). Defaults are part of the bundle; values are not.
type UserOption struct {
	Key         string          `json:"key"`
	Type        string          `json:"type,omitempty"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	Sensitive   bool            `json:"sensitive,omitempty"`
	Required    bool            `json:"required,omitempty"`
	Default     json.RawMessage `json:"default,omitempty"`
	// Min and Max bound a Claude Code number option (inclusive); Claude
	// Code's config dialog refuses a value outside them.
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
	// Multiple lets a Claude Code string option hold a list of strings.
	Multiple bool `json:"multiple,omitempty"`
	// Choices are the only values a Claude Code string option takes
	// (its "options" field).
	Choices []string `json:"options,omitempty"`
	// EnvVar is the variable a Gemini CLI setting is exported as.
	EnvVar string `json:"env_var,omitempty"`
	Hosts  []Host `json:"hosts,omitempty"`
	Source string `json:"-"`
}

// Permissions are the dev.bundlectl capabilities a bundle requests.
type Permissions struct {
	// NetworkHosts is declared (normalized, sorted) when NetworkDeclared;
	// otherwise it is derived from the remote endpoints.
	NetworkHosts    []string `json:"network_hosts,omitempty"`
	NetworkDeclared bool     `json:"network_declared,omitempty"`
	// NetworkNeverContacted are the hosts of NetworkHosts that no
	// endpoint the bundle declares (http hook or MCP url) reaches; a
	// command hook, stdio server or skill may (curl, WebFetch), as
	// NetworkHosts does not cover them. Only http hooks whose url Claude
	// Code (2.1.332) and bundlectl both refuse to post to name them — a
	// ws:// or wss:// url, or an https url to a link-local, cloud
	// metadata or reserved IP literal — and MCP servers whose url the
	// WHATWG URL parser refuses, which no host connects to
	// (NeverContactedWhy says why, per host). Kept in
	// NetworkHosts, as the bundle names them, and marked for the review;
	// not part of the inventory.
	NetworkNeverContacted []string `json:"network_never_contacted,omitempty"`
	FilesystemRoots       []string `json:"filesystem_roots,omitempty"`
	LifecycleMutation     bool     `json:"lifecycle_mutation,omitempty"`
}

// When restricts the hosts a bundle applies to. Empty fields apply everywhere.
type When struct {
	OS       []string `json:"os,omitempty"`       // linux, macos, windows
	Binaries []string `json:"binaries,omitempty"` // bare names that must be on PATH
}

// Inactive surfaces: declared, validated and reviewed, never enabled.
const (
	SurfaceNative            = "native"
	SurfaceFilesystemRoots   = "filesystem_roots"
	SurfaceLifecycleMutation = "lifecycle_mutation"
)

// Inactive is one inactive declaration.
type Inactive struct {
	Surface string `json:"surface"`          // one of the Surface constants
	Name    string `json:"name,omitempty"`   // e.g. the native module name
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
// rejected bundle is listed as invalid and can never be trusted. A bundle
// with skipped components is not rejected: the rest of it loads and can be
// trusted, and the skipped ones never load.
func (b *Bundle) Rejected() bool { return b.Report.Rejected() }

// stop reports whether a reader stops at a rejection: always, except in
// AllFindings' pass, which reads on to report every finding at once.
func (b *Bundle) stop() bool { return b.Rejected() && !b.findAll }

// HasFormat reports whether the bundle was read through format f.
func (b *Bundle) HasFormat(f Format) bool { return slices.Contains(b.Formats, f) }

// addHost returns hosts with h added once (nil stays nil for h == "").
func addHost(hosts []Host, h Host) []Host {
	if h == "" || slices.Contains(hosts, h) {
		return hosts
	}
	out := append(slices.Clip(hosts), h)
	slices.Sort(out)
	return out
}
