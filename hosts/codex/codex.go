package codex

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/inventory"
	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"
)

func init() { hosts.Register(Host{}) }

// Host is the Codex adapter.
type Host struct{}

// Name is the program name.
func (Host) Name() string { return "codex" }

// Install is the command that installs the agent (hosts.Installer).
func (Host) Install() string { return "npm install -g @openai/codex" }

// Version is the version directory of every view: Codex lists a plugin's
// versions with readdir, keeps real directories only, and prefers "local".
const Version = "local"

// HooksFile is where a view's hooks are, relative to the plugin root; it
// is part of every hook's trust key.
const HooksFile = "hooks/hooks.json"

// Events are the hook events Codex fires: those its hooks files take
// (0.171 skips any other event there unread, Notification included),
// its own PreModelRequest, PostModelRequest and Interrupt among them.
var Events = []string{
	"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
	"Stop", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "SessionEnd",
	"PreModelRequest", "PostModelRequest", "Interrupt",
}

// skillViewFiles takes out of a skill's copy in the view what Codex would
// read in it beyond the skill the review lists. Codex walks a skills
// directory to any depth and loads every SKILL.md it finds as a skill of
// its own, with that skill's agents/openai.yaml: a SKILL.md below the
// skill's own is left out of this skill's copy (the review lists it as a
// skill of its own where Codex loads it, and it gets its own copy). An
// agents/openai.yaml, at any depth, that declares dependencies (MCP
// servers, environment variables) is what Codex may install or ask for
// itself, outside bundlectl, so it is left out too.
func skillViewFiles(b *hosts.Bundle, v *hosts.View, name, dst string) {
	var nested, deps []string
	for _, p := range v.Paths() {
		rel, ok := strings.CutPrefix(p, dst+"/")
		if !ok {
			continue
		}
		switch {
		case path.Base(rel) == "SKILL.md" && rel != "SKILL.md":
			v.Remove(p)
			nested = append(nested, rel)
		case rel == "agents/openai.yaml" || strings.HasSuffix(rel, "/agents/openai.yaml"):
			if data, _ := v.File(p); declaresDependencies(data) {
				v.Remove(p)
				deps = append(deps, rel)
			}
		}
	}
	if len(nested) > 0 {
		b.Note("its skill %s is loaded without the SKILL.md files below its own (%s): Codex would load each again inside this skill's directory; the review lists each Codex loads as a skill of its own", bundle.Quote(name), strings.Join(nested, ", "))
	}
	if len(deps) > 0 {
		b.Note("its skill %s is loaded without %s: the dependencies it declares (MCP servers, environment variables) are what Codex may install or ask for itself, outside bundlectl; declare MCP servers in the plugin's .mcp.json", bundle.Quote(name), strings.Join(deps, ", "))
	}
}

// DefaultHookTimeout is the timeout Codex gives a command hook that sets
// none; it is part of the hook's trust hash.
const DefaultHookTimeout = 600

// View builds <view>/local/: the Codex plugin of b.
func (Host) View(b *hosts.Bundle, re hosts.Reentry) (*hosts.View, error) {
	v := hosts.NewView()
	if !hosts.SafeName(b.Name) {
		b.Note("not loaded into codex: a Codex plugin name must be ASCII letters, digits, '-' or '_'")
		return v, nil
	}
	root := Version + "/"
	for _, d := range b.Docs("skill") {
		dst := root + "skills/" + d.Name
		if err := b.CopySkill(v, d, dst, nil); err != nil {
			return nil, err
		}
		skillViewFiles(b, v, d.Name, dst)
	}
	for _, kind := range []string{"command", "agent", "output style", "context"} {
		for _, d := range b.Docs(kind) {
			b.Note("its %s %s is not loaded: Codex plugins have no %ss", kind, bundle.Quote(d.Name), kind)
		}
	}
	// Hooks, grouped by event and matcher in precedence order; each handler's
	// trust hash is recorded for the launch, keyed by its place in the file.
	events := map[string][]any{}
	var order []string
	type key struct{ event, matcher string }
	groupIdx := map[key]int{}
	for _, h := range b.Hooks() {
		switch {
		case !hosts.Runs(h):
			b.Note("its %s hook for %s is not loaded: Codex runs command hooks only", h.Type, h.Event)
			continue
		case !slices.Contains(Events, h.Event):
			b.Note("its hook for %s is not loaded: Codex does not fire that event", h.Event)
			continue
		}
		command := hosts.ShellJoin(re.Hook(string(bundle.HostCodex), h.Event, b.Name, h.ID))
		timeout := hosts.HostTimeout(h)
		if setupTimeout(h.Event) == ClampedHookTimeout {
			// Codex clamps these events' hooks to 3 s, and runs none
			// whose line asks for more (ClampedHookTimeout).
			timeout = ClampedHookTimeout
		}
		handler := map[string]any{"type": "command", "command": command, "timeout": timeout}
		if h.Async {
			handler["async"] = true
		}
		// Codex drops the matcher of a UserPromptSubmit or Stop hook
		// before it hashes the hook for trust (it ignores it anyway): a
		// hash over the matcher is one Codex never computes, and it would
		// not run the guard.
		matcher := h.Matcher
		if bundle.IgnoresMatcher(bundle.HostCodex, h.Event) {
			matcher = ""
		}
		k := key{h.Event, matcher}
		gi, ok := groupIdx[k]
		if !ok {
			g := map[string]any{"hooks": []any{}}
			if matcher != "" {
				g["matcher"] = matcher
			}
			if _, seen := events[h.Event]; !seen {
				order = append(order, h.Event)
			}
			gi = len(events[h.Event])
			groupIdx[k] = gi
			events[h.Event] = append(events[h.Event], g)
		}
		g := events[h.Event][gi].(map[string]any)
		hi := len(g["hooks"].([]any))
		g["hooks"] = append(g["hooks"].([]any), handler)
		v.Meta[fmt.Sprintf("%s:%s:%d:%d", HooksFile, EventKey(h.Event), gi, hi)] = HookHash(h.Event, matcher, command, timeout, h.Async)
	}
	if len(order) > 0 {
		hooks := map[string]any{}
		for _, ev := range order {
			hooks[ev] = events[ev]
		}
		if err := v.AddJSON(root+HooksFile, map[string]any{"hooks": hooks}); err != nil {
			return nil, err
		}
	}
	servers := map[string]any{}
	for _, s := range b.MCPServers() {
		if !startsServer(b, s) {
			continue
		}
		switch s.Transport {
		case bundle.TransportStdio:
			argv := re.MCP(b.Name, s.Name)
			e := map[string]any{"command": argv[0], "args": argv[1:]}
			if len(s.HostVariables) > 0 {
				// Codex starts a server with a few variables of its own
				// and those env_vars names: bundlectl mcp needs the host
				// variables the review lists to give them to the server.
				e["env_vars"] = s.HostVariables
			}
			MCPTimeouts(s, e, hosts.MCPStartMargin)
			servers[s.Name] = e
		case bundle.TransportStreamableHTTP:
			e := map[string]any{"url": s.URL}
			if len(s.Headers) > 0 {
				e["http_headers"] = s.Headers
			}
			if len(s.EnvHeaders) > 0 {
				e["env_http_headers"] = s.EnvHeaders
			}
			if s.BearerTokenEnvVar != "" {
				e["bearer_token_env_var"] = s.BearerTokenEnvVar
			}
			// The reviewed tool filter, which Codex enforces for a server it
			// reaches itself.
			if len(s.ToolsInclude) > 0 {
				e["enabled_tools"] = s.ToolsInclude
			}
			if len(s.ToolsExclude) > 0 {
				e["disabled_tools"] = s.ToolsExclude
			}
			// Codex reaches it itself: the reviewed timeouts as they are.
			MCPTimeouts(s, e, 0)
			servers[s.Name] = e
		default:
			b.Note("its MCP server %s is not loaded: Codex does not speak the %s transport", bundle.Quote(s.Name), s.Transport)
		}
	}
	if len(servers) > 0 {
		if err := v.AddJSON(root+".mcp.json", map[string]any{"mcpServers": servers}); err != nil {
			return nil, err
		}
	}
	for _, l := range b.LSPServers() {
		b.Note("its language server %s is not loaded: Codex has no language servers", bundle.Quote(l.Name))
	}
	for _, a := range b.Inventory.Apps {
		if b.For(a.Hosts) {
			b.Note("its app %s is not loaded: Codex apps connect to remote services bundlectl cannot put behind its checks", bundle.Quote(a.Name))
		}
	}
	b.NoteOutOfReach(true)
	if v.Empty() {
		return v, nil
	}
	manifest := map[string]any{
		"name":        b.Name,
		"version":     Version,
		"description": "bundlectl view of " + b.Name + " (reviewed snapshot " + b.Token.Content.Short() + ")",
	}
	if err := v.AddJSON(root+".codex-plugin/plugin.json", manifest); err != nil {
		return nil, err
	}
	return v, nil
}

// MCPTimeouts puts into e, a Codex MCP entry for s, the timeouts the
// review gives s, in the fields Codex (0.171) reads: tool_timeout_sec
// (its wait for each tool call) as reviewed, and startup_timeout_sec as
// reviewed (from startup_timeout_sec, else startup_timeout_ms) plus
// margin, in seconds — hosts.MCPStartMargin for an entry that starts
// `bundlectl mcp`, whose checks come before the server starts. Without
// them Codex waits its own defaults (30 s to start, 300 s per call), not
// what the review shows (internal/agenttest
// TestExecCodexMCPToolTimeout). A value Codex would give up on at once
// or panic on is left out (bundle.CodexMCPTimeouts), so Codex's default
// applies; the review's warning says so. A server of bundlectl's own
// formats has one timeout (1–600 s), for its start and each call, as
// Gemini CLI is given it: both fields get it.
func MCPTimeouts(s inventory.MCPServer, e map[string]any, margin float64) {
	startup, tool, hasStartup, hasTool := bundle.CodexMCPTimeouts(s.Other)
	if s.TimeoutSec > 0 && !hasStartup && !hasTool && len(s.Hosts) == 0 {
		startup, tool, hasStartup, hasTool = float64(s.TimeoutSec), float64(s.TimeoutSec), true, true
	}
	if hasStartup {
		e["startup_timeout_sec"] = startup + margin
	}
	if hasTool {
		e["tool_timeout_sec"] = tool
	}
}

// EventKey is the snake_case label Codex uses for an event in hook trust
// keys and hashes ("PreToolUse" → "pre_tool_use").
func EventKey(event string) string {
	var sb strings.Builder
	for i, r := range event {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				sb.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// HookHash is the trusted_hash Codex records for one command hook: SHA-256
// over the compact, key-sorted JSON of the hook's identity
//
//	{"event_name": "<snake_case event>", "matcher": "<matcher>",
//	 "hooks": [{"type": "command", "command": "<command>", "timeout": <sec>, "async": <bool>}]}
//
// (matcher left out when empty), written "sha256:<hex>". The command is
// the one written in the configuration, before any expansion; changing the
// command, timeout, matcher or event changes the hash, and Codex then
// skips the hook silently until it is trusted again.
func HookHash(event, matcher, command string, timeoutSec int, async bool) string {
	handler := map[string]any{"type": "command", "command": command, "timeout": timeoutSec, "async": async}
	id := map[string]any{"event_name": EventKey(event), "hooks": []any{handler}}
	if matcher != "" {
		id["matcher"] = matcher
	}
	j, err := json.Marshal(id) // sorted keys, no spaces
	if err != nil {
		panic(err)
	}
	// encoding/json escapes <, > and & where Codex's serializer does not.
	s := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(j))
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Home is CODEX_HOME as Codex resolves it: the variable, else ~/.codex.
func Home(env []string) (string, error) {
	var home string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "CODEX_HOME="); ok && v != "" {
			return filepath.Abs(v)
		}
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	if home == "" {
		return "", errors.New("neither CODEX_HOME nor HOME is set")
	}
	return filepath.Join(home, ".codex"), nil
}

// Marketplace prefixes the name of every session's marketplace in Codex's
// plugin cache.
const Marketplace = "bundlectl-"

// sessionMarket is the directory of a session's marketplace, in its
// session directory, that Launch links into Codex's plugin cache.
const sessionMarket = "codex-marketplace"

// GuardsOff returns the first of the agent's own arguments that would
// keep the session's views or their hooks from loading, and "" when none
// does: a feature switched off (--disable plugins|hooks, or -c
// features.plugins|hooks set to anything but true, the last setting
// winning), the whole features table replaced (-c features=…) by one
// that does not set both true (what it leaves out the configuration
// files decide), or the
// hooks configuration overridden (-c hooks…), which would drop the trust
// Codex needs to run the views' hooks. (-c plugins… arguments are
// PluginArgError's.) Arguments after "--" are the prompt's.
func GuardsOff(args []string) string {
	arg, _ := guardsOff(args)
	return arg
}

// guardsOff is GuardsOff, and the indexes of the arguments that set it
// (each value with its flag): for a feature, of every argument that sets
// it, since the last one wins.
func guardsOff(args []string) (string, []int) {
	type setting struct {
		value, arg string
		at         []int
	}
	feature := map[string]*setting{} // features.plugins / features.hooks
	span := func(from, to int) []int {
		var at []int
		for j := from; j <= to; j++ {
			at = append(at, j)
		}
		return at
	}
	for i := 0; i < len(args) && args[i] != "--"; i++ {
		var kv, flag string
		from := i
		kv, flag, i = configArg(args, i)
		if d := strings.TrimSpace(strings.TrimPrefix(flag, "--disable=")); strings.HasPrefix(flag, "--disable=") && (d == "plugins" || d == "hooks") {
			return "--disable " + d, span(from, i)
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		set := func(k, value string) {
			f := feature[k]
			if f == nil {
				f = &setting{}
				feature[k] = f
			}
			f.value, f.arg, f.at = value, "-c "+kv, append(f.at, span(from, i)...)
		}
		switch k = configKey(k); {
		case k == "features.plugins" || k == "features.hooks":
			set(k, strings.Trim(strings.TrimSpace(v), `"'`))
		case k == "features":
			// The whole table, in the -c layer: what it leaves out the
			// configuration files decide, which may turn it off.
			var doc map[string]any
			_ = toml.Unmarshal([]byte("v = "+v), &doc)
			t, _ := doc["v"].(map[string]any)
			for _, name := range []string{"plugins", "hooks"} {
				set("features."+name, fmt.Sprint(t[name]))
			}
		case k == "hooks" || strings.HasPrefix(k, "hooks."):
			return "-c " + kv, span(from, i)
		}
	}
	for _, k := range []string{"features.plugins", "features.hooks"} {
		if f := feature[k]; f != nil && f.value != "true" {
			return f.arg, f.at
		}
	}
	return "", nil
}

// tomlKey is the pattern (hosts.SettingIn) of the line of a TOML file
// that sets setting, as featureOff and RequirementsOff write it
// ("features.hooks = false"): its last key, bare or quoted, then "=",
// which matches it under a [features] table, dotted, or in an inline
// table alike.
func tomlKey(setting string) string {
	k, _, _ := strings.Cut(setting, " = ")
	k = k[strings.LastIndexByte(k, '.')+1:]
	return `(^|[^[:alnum:]_-])["']?` + regexp.QuoteMeta(k) + `["']?[[:space:]]*=`
}

// pluginListsPattern is the grep -E pattern of the lines of a
// requirements.toml that write plugin MCP allow-lists, in every spelling
// TOML allows and Codex 0.171 reads alike (agenttest
// TestCodexRequirementsMCPForms): a key plugins starting a table header
// ([plugins."a@m".mcp_servers.x.identity], [plugins]), a dotted key
// (plugins."a@m".mcp_servers.x.identity.command = …) or an inline table
// (plugins = {…}), and any line naming the plugin id, such as an entry
// "a@m".mcp_servers… under [plugins].
func pluginListsPattern(plugin string) string {
	return `(^|[^[:alnum:]_-])["']?plugins["']?[[:space:]]*[].={]|` + regexp.QuoteMeta(plugin)
}

// remoteArg returns the user's own --remote argument (the session then
// runs in an app server at that address), and "" when there is none;
// arguments after "--" are the prompt's. at are its indexes, its value's
// too.
func remoteArg(args []string) (arg string, at []int) {
	for i := 0; i < len(args) && args[i] != "--"; i++ {
		a := args[i]
		switch {
		case a == "--remote":
			if i+1 < len(args) {
				return a + " " + args[i+1], []int{i, i + 1}
			}
			return a, []int{i}
		case strings.HasPrefix(a, "--remote="):
			return a, []int{i}
		case takesValue(a):
			i++ // a value that could read as a flag
		default:
			_, _, i = configArg(args, i)
		}
	}
	return "", nil
}

// configArg reads args[i] as Codex (clap) reads a config override or a
// feature switch: kv is the override of -c KEY=V, --config KEY=V,
// --config=KEY=V, -cKEY=V or -c=KEY=V, and flag the switch of --enable
// NAME, --disable NAME or their "=" forms, spelled "--enable=NAME"; last
// is the index of the last argument it took. Any other argument gives
// neither.
func configArg(args []string, i int) (kv, flag string, last int) {
	a := args[i]
	value := func() string {
		if i+1 < len(args) {
			i++
			return args[i]
		}
		return ""
	}
	switch {
	case a == "-c" || a == "--config":
		kv = value()
	case strings.HasPrefix(a, "--config="):
		kv = a[len("--config="):]
	case strings.HasPrefix(a, "-c") && len(a) > 2:
		kv = strings.TrimPrefix(a[2:], "=") // -cKEY=V and -c=KEY=V, as clap reads a short flag
	case a == "--enable" || a == "--disable":
		flag = a + "=" + value()
	case strings.HasPrefix(a, "--enable=") || strings.HasPrefix(a, "--disable="):
		flag = a
	}
	return kv, flag, i
}

// configKey is a config override's key as Codex 0.171 reads it: trimmed,
// then split on dots with each part taken as written, quotes and spaces
// included, so features."hooks" and features. hooks name features Codex
// does not have and change nothing (agenttest
// TestCodexFeatureArgSpellings).
func configKey(k string) string {
	return strings.TrimSpace(k)
}

// Launch links the session's views into Codex's plugin cache and adds the
// -c flags that enable them and trust their hooks, before the user's own
// arguments. With s.Exclusive() every plugin of the user's own is
// disabled in the same -c table.
func (Host) Launch(s *hosts.Session, views []hosts.BuiltView, argv, env []string) (*hosts.Launch, error) {
	return launch(s, s.Exclusive(), views, argv, env)
}

func launch(s *hosts.Session, exclusive bool, views []hosts.BuiltView, argv, env []string) (*hosts.Launch, error) {
	if err := PluginArgError(argv[1:], exclusive, len(views) > 0); err != nil {
		return nil, err
	}
	if arg, at := remoteArg(argv[1:]); arg != "" && (exclusive || len(views) > 0) {
		fix := "bundlectl exec -- codex"
		if exclusive {
			fix = "bundlectl exec --exclusive -- codex"
		}
		return nil, &hosts.ArgumentError{
			Err:  fmt.Errorf("codex: the argument %s runs the session in an app server bundlectl exec did not start, which the -c flags that load the bundle views (and trust their hooks) do not configure (codex exec refuses -c flags beside --remote: \"configure the agent on the server\"): leave it out", bundle.Quote(bundle.RedactTokens(arg))),
			Fix:  fix,
			Args: at,
		}
	}
	if arg, at := guardsOff(argv[1:]); arg != "" {
		return nil, &hosts.HooksOffError{Host: "codex", File: arg, Args: at,
			Text: "bundlectl exec -- codex loads the active bundles as Codex plugins whose hooks Codex trusts, and the argument " + strconv.Quote(arg) + " would keep them, or their guards, from loading: leave it out"}
	}
	codexHome, err := Home(env)
	if err != nil {
		return nil, err
	}
	cache := filepath.Join(codexHome, "plugins", "cache")
	sweep(cache)
	cwd, _ := os.Getwd() // the agent's, which it inherits
	own := FindOwnPlugins(codexHome, cwd, argv[1:])
	if arg, _ := remoteArg(argv[1:]); arg != "" {
		// No views and not exclusive (both refused above): the session
		// runs under the app server's configuration, not this one's.
		var notes []string
		if !sessionArgs(argv[1:]).noSession {
			notes = append(notes, remoteNote(arg, own))
		}
		return &hosts.Launch{Argv: argv, Env: env, Notes: notes}, nil
	}
	// The user's own plugins: named, or (exclusive) each entry of any
	// layer and each installed plugin disabled by the session's -c
	// plugins table, which outranks every layer but a managed one.
	plugins := map[string]any{}
	var notes []string
	if exclusive {
		if len(own.Forced) > 0 {
			return nil, exclusiveError(own.Forced[0])
		}
		if own.UnreadManaged != "" {
			return nil, &hosts.NotExclusiveError{Host: "codex", Source: own.UnreadManaged, Why: "bundlectl cannot read it to tell which, above the session's -c flags", Fix: "have it made readable, or start without --exclusive"}
		}
		for _, id := range own.Known {
			plugins[id] = map[string]any{"enabled": false}
		}
	} else {
		for _, f := range own.Unread {
			notes = append(notes, "codex: cannot read "+f+" to name the plugins of your own it enables")
		}
		if own.AtHead && (len(views) > 0 || own.FeatureOn) {
			notes = append(notes, atHeadNote())
		}
		if len(views) > 0 || own.FeatureOn {
			for _, p := range own.Load {
				notes = append(notes, ownNote(p))
			}
		}
		if len(views) > 0 || own.FeatureOnTrust {
			for _, p := range own.OnTrust {
				notes = append(notes, onTrustNote(p))
			}
		}
	}
	if len(views) == 0 {
		if len(plugins) == 0 {
			return &hosts.Launch{Argv: argv, Env: env, Notes: notes}, nil
		}
		out := append([]string{argv[0], "-c", "plugins=" + InlineTOML(plugins)}, argv[1:]...)
		return &hosts.Launch{Argv: out, Env: env, Notes: notes}, nil
	}
	hooks := false
	for _, v := range views {
		// Meta holds the trust of each of the view's hooks.
		hooks = hooks || len(v.Meta) > 0
	}
	if file, setting := ManagedFeatureOff(hooks); setting != "" {
		return nil, &hosts.HooksOffError{Host: "codex", File: file, Setting: setting, Fix: "it outranks the -c flags that turn it on for the session; have it removed there", Pattern: hosts.SettingIn(file, tomlKey(setting))}
	}
	if file, setting := RequirementsOff(hooks); setting != "" {
		return nil, &hosts.HooksOffError{Host: "codex", File: file, Setting: setting, Fix: "Codex holds every session to that file's requirements, above any -c flag; have it removed there", Pattern: hosts.SettingIn(file, tomlKey(setting))}
	}
	if file, plugin := RequirementsMCPOff(); plugin != "" {
		grep := "grep -n -E -- " + bundle.ShellArg(pluginListsPattern(plugin)) + " " + bundle.ShellArg(file)
		for _, v := range views {
			for _, srv := range viewServers(v.Dir) {
				notes = append(notes, fmt.Sprintf("codex: bundle %s: its MCP server %s does not start, nor are its tools offered: %s lists the MCP servers plugins may start (plugin %s among them), and Codex starts no server of a plugin without a list, which a view never has; the bundle's hooks still run (%s shows the lists)",
					bundle.Quote(v.Bundle), bundle.Quote(srv), bundle.Quote(file), bundle.Quote(plugin), grep))
			}
		}
	}
	sd, err := s.Dir()
	if err != nil {
		return nil, err
	}
	market := filepath.Join(sd, sessionMarket)
	if err := os.Mkdir(market, 0o700); err != nil {
		return nil, err
	}
	name := Marketplace + strings.TrimPrefix(filepath.Base(sd), "s-")
	trust := map[string]any{}
	for _, v := range views {
		if err := os.Symlink(v.Dir, filepath.Join(market, v.Bundle)); err != nil {
			return nil, err
		}
		id := v.Bundle + "@" + name
		plugins[id] = map[string]any{"enabled": true}
		for k, hash := range v.Meta {
			trust[id+":"+k] = map[string]any{"trusted_hash": hash}
		}
	}
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return nil, err
	}
	link := filepath.Join(cache, name)
	if err := os.Symlink(market, link); err != nil {
		return nil, err
	}
	// features.hooks too: a config.toml or profile that sets it false
	// would keep the views' guards from running (the arguments that do
	// are refused above).
	out := []string{argv[0], "-c", "features.plugins=true", "-c", "features.hooks=true", "-c", "plugins=" + InlineTOML(plugins)}
	if len(trust) > 0 {
		out = append(out, "-c", "hooks.state="+InlineTOML(trust))
	}
	out = append(out, argv[1:]...)
	cleanup := func() {
		os.Remove(link)
		// Codex makes a data directory per plugin id; a session's ids are
		// never used again.
		for _, v := range views {
			os.Remove(filepath.Join(codexHome, "plugins", "data", v.Bundle+"-"+name))
		}
	}
	return &hosts.Launch{Argv: out, Env: env, Cleanup: cleanup, Notes: notes}, nil
}

// sweep removes links of earlier sessions whose target is gone (their
// bundlectl died before it could clean up); a link of the user's own,
// named as a session's or not, stays.
func sweep(cache string) {
	ents, err := os.ReadDir(cache)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !sessionMarketplace(cache, e.Name()) {
			continue
		}
		p := filepath.Join(cache, e.Name())
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			os.Remove(p)
		}
	}
}

// InlineTOML writes a value of strings, bools, numbers and tables as a TOML
// inline value, keys quoted and sorted.
func InlineTOML(v any) string {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = tomlString(k) + "=" + InlineTOML(v[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = InlineTOML(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case []string:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = tomlString(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case string:
		return tomlString(v)
	case bool:
		if v {
			return "true"
		}
		return "false"
	case int:
		return fmt.Sprint(v)
	case float64:
		return tomlFloat(v)
	}
	panic(fmt.Sprintf("codex: no TOML form for %T", v))
}

// tomlFloat writes a finite number as a TOML float ("30.0", "20.5",
// "1e+21"), never as an integer, which is a type of its own in TOML.
func tomlFloat(f float64) string {
	t := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(t, ".eE") {
		t += ".0"
	}
	return t
}

// tomlString writes a TOML basic string; JSON's escapes are TOML's.
func tomlString(s string) string {
	j, _ := json.Marshal(s)
	return string(j)
}

// declaresDependencies reports whether a skill's agents/openai.yaml may
// declare dependencies: it has the key, or does not read as a mapping
// (what Codex would take from it is then not certain).
func declaresDependencies(data []byte) bool {
	var doc map[string]any
	if yaml.Unmarshal(data, &doc) != nil {
		return true
	}
	_, ok := doc["dependencies"]
	return ok
}
