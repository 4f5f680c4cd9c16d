package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

func init() { hosts.Register(Host{}) }

// Host is the Gemini CLI adapter.
type Host struct{}

// Name is the program name.
func (Host) Name() string { return "gemini" }

// Install is the command that installs the agent (hosts.Installer).
func (Host) Install() string { return "npm install -g @google/gemini-cli" }

// Events are the hook events Gemini CLI fires.
var Events = []string{
	"SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
	"BeforeToolSelection", "BeforeTool", "AfterTool", "PreCompress", "Notification",
}

var nameList = lazyRegexp(`^[A-Za-z_]+(\|[A-Za-z_]+)*$`)

// matcherFor translates a bundlectl hook's matcher (Claude Code's tool
// names) to Gemini CLI's; ok is false when it cannot.
func matcherFor(m string) (string, bool) {
	if m == "" || m == "*" || m == ".*" {
		return m, true
	}
	if !nameList().MatchString(m) {
		return "", false
	}
	parts := strings.Split(m, "|")
	for i, p := range parts {
		g, ok := bundle.GeminiTools[p]
		if !ok {
			return "", false
		}
		parts[i] = g
	}
	return strings.Join(parts, "|"), true
}

// View builds the extension directory of b.
func (Host) View(b *hosts.Bundle, re hosts.Reentry) (*hosts.View, error) {
	v := hosts.NewView()
	if !hosts.SafeName(b.Name) || !extensionNameRe().MatchString(b.Name) {
		// Gemini CLI skips an extension by any other name, and its hooks
		// with it: said here, rather than by a view it never loads.
		b.Note("not loaded into gemini: Gemini CLI loads an extension only when its name is ASCII letters, digits and '-'")
		return v, nil
	}
	manifest := map[string]any{
		"name":        b.Name,
		"version":     "1.0.0",
		"description": "bundlectl view of " + b.Name + " (reviewed snapshot " + b.Token.Content.Short() + ")",
	}
	var contexts []string
	for _, d := range b.Docs("context") {
		if bundle.GeminiContextReadsAsMore(d.Path) {
			// Copied to its own path, it would be read as more than
			// context: a manifest, hooks, a command, a skill, an agent.
			b.Note("its context file %s is not loaded: Gemini CLI would read a file at that path as more than context", bundle.Quote(d.Path))
			continue
		}
		if err := b.CopyDoc(v, d, d.Path, nil); err != nil {
			return nil, err
		}
		contexts = append(contexts, d.Path)
	}
	if len(contexts) > 0 {
		manifest["contextFileName"] = contexts
	}
	for _, d := range b.Docs("skill") {
		if d.Path == "skills/SKILL.md" {
			// Gemini CLI's skill at the root of skills/: its file alone,
			// never the directory that holds the other skills.
			if err := b.CopyDoc(v, d, "skills/"+d.Name+"/SKILL.md", nil); err != nil {
				return nil, err
			}
			continue
		}
		if err := b.CopySkill(v, d, "skills/"+d.Name, nil); err != nil {
			return nil, err
		}
	}
	for _, d := range b.Docs("command") {
		if !strings.HasSuffix(d.Path, ".toml") {
			b.Note("its command %s is not loaded: Gemini CLI commands are TOML files", bundle.Quote(d.Name))
			continue
		}
		dst := "commands/" + strings.ReplaceAll(d.Name, ":", "/") + ".toml"
		if err := b.CopyDoc(v, d, dst, nil); err != nil {
			return nil, err
		}
	}
	for _, d := range b.Docs("agent") {
		dst, err := hosts.DocFile("agents", d.Name)
		if err != nil {
			b.Note("its agent %s is not loaded: %v", bundle.Quote(d.Name), err)
			continue
		}
		if err := b.CopyDoc(v, d, dst, nil); err != nil {
			return nil, err
		}
		if err := geminiAgent(b, v, d.Name, dst); err != nil {
			return nil, err
		}
	}
	for _, d := range b.Docs("output style") {
		b.Note("its output style %s is not loaded: Gemini CLI has no output styles", bundle.Quote(d.Name))
	}
	for _, p := range b.Inventory.Policies {
		if b.For(p.Hosts) && b.Snapshot != "" {
			if err := v.CopyFile(b.Snapshot, p.Path, p.Path); err != nil {
				return nil, err
			}
		}
	}
	if len(b.Inventory.ExcludeTools) > 0 {
		manifest["excludeTools"] = b.Inventory.ExcludeTools
	}
	if hooks := hooksValue(b, re); len(hooks) > 0 {
		if err := v.AddJSON("hooks/hooks.json", map[string]any{"hooks": hooks}); err != nil {
			return nil, err
		}
	}
	servers := map[string]any{}
	for _, s := range b.MCPServers() {
		var e map[string]any
		if s.Transport != bundle.TransportStdio && hosts.ExpandsLiteral(s) {
			b.Note("its MCP server %s is not loaded: Gemini CLI would expand the \"$\" its URL or headers hold as literal text", bundle.Quote(s.Name))
			continue
		}
		switch s.Transport {
		case bundle.TransportStdio:
			argv := re.MCP(b.Name, s.Name)
			e = map[string]any{"command": argv[0], "args": argv[1:]}
		case bundle.TransportStreamableHTTP:
			e = map[string]any{"httpUrl": s.URL}
		case bundle.TransportSSE:
			e = map[string]any{"url": s.URL}
		default:
			b.Note("its MCP server %s is not loaded: Gemini CLI does not speak the %s transport", bundle.Quote(s.Name), s.Transport)
			continue
		}
		if s.Transport != bundle.TransportStdio {
			url, headers, ok := b.RemoteServer(v, s, optionSyntax)
			if !ok {
				continue
			}
			for _, k := range []string{"httpUrl", "url"} {
				if _, ok := e[k]; ok {
					e[k] = url
				}
			}
			if headers != nil {
				e["headers"] = headers
			}
			if b.Own(s.Hosts) {
				// How Gemini CLI authenticates to it, as the review
				// showed it: without these a server that takes the
				// user's Google credentials or an OAuth login is
				// reached without them and refuses every call.
				for _, k := range authFields {
					if raw, ok := s.Other[k]; ok {
						e[k] = raw
					}
				}
			}
			// The reviewed tool filter, which Gemini CLI enforces for a
			// server it reaches itself (bundlectl mcp enforces it for stdio).
			if len(s.ToolsInclude) > 0 {
				e["includeTools"] = s.ToolsInclude
			}
			if len(s.ToolsExclude) > 0 {
				e["excludeTools"] = s.ToolsExclude
			}
		}
		if s.Trust {
			e["trust"] = true // reviewed: the host asks no confirmation for its tools
		}
		if s.Transport == bundle.TransportStdio {
			if ms, ok := hosts.GeminiMCPTimeoutMs(s); ok {
				e["timeout"] = ms // started through bundlectl mcp
			}
		} else if s.TimeoutSec > 0 {
			e["timeout"] = s.TimeoutSec * 1000
		}
		servers[s.Name] = e
	}
	if len(servers) > 0 {
		manifest["mcpServers"] = servers
	}
	for _, l := range b.LSPServers() {
		b.Note("its language server %s is not loaded: Gemini CLI has no language servers", bundle.Quote(l.Name))
	}
	for _, o := range b.Inventory.UserConfig {
		if b.Own(o.Hosts) && o.EnvVar != "" {
			// configure asks for the value, without echo: a sensitive
			// one is never taken from the command line, and a KEY=VALUE
			// pasted as printed would store the placeholder.
			set := "set it with this, which asks for the value without echo: bundlectl configure " + bundle.Operands(b.Name, o.Key)
			b.Note("its setting %s is not asked for by Gemini CLI (%s)", o.EnvVar, set)
		}
	}
	b.NoteOutOfReach(true)
	if v.Empty() && len(servers) == 0 {
		return v, nil
	}
	if err := v.AddJSON("gemini-extension.json", manifest); err != nil {
		return nil, err
	}
	return v, nil
}

// hooksValue is the hooks object of the view: Gemini CLI's own hooks as
// declared, bundlectl's own translated to Gemini CLI's events and tool
// names; every one a command calling `bundlectl hooks exec`. Timeouts are
// milliseconds. Hooks stay in the order declared, and a group's
// "sequential": true stays on its group: Gemini CLI 0.61 then runs the
// event's hooks in turn and gives each the input the earlier ones changed,
// which each `hooks exec` passes on (internal/agenttest
// TestExecGeminiSequentialChain). Only consecutive hooks of one event,
// matcher and sequential share a group.
func hooksValue(b *hosts.Bundle, re hosts.Reentry) map[string]any {
	events := map[string][]any{}
	var order []string
	type key struct {
		matcher    string
		sequential bool
	}
	last := map[string]key{} // the key of each event's last group
	for _, h := range b.Hooks() {
		event, matcher := h.Event, h.Matcher
		if !b.Own(h.Hosts) {
			var ok bool
			if event, ok = bundle.GeminiEvents[h.Event]; !ok {
				b.Note("its hook for %s is not loaded: Gemini CLI has no such event", h.Event)
				continue
			}
			if bundle.ToolEvent(h.Event) {
				if matcher, ok = matcherFor(h.Matcher); !ok {
					b.Note("its hook for %s with matcher %s is not loaded: the matcher names tools Gemini CLI does not have", h.Event, bundle.Quote(h.Matcher))
					continue
				}
			}
		}
		if !hosts.Runs(h) {
			b.Note("its %s hook for %s is not loaded: Gemini CLI runs command hooks only", h.Type, h.Event)
			continue
		}
		if !slices.Contains(Events, event) {
			b.Note("its hook for %s is not loaded: Gemini CLI does not fire that event", event)
			continue
		}
		e := map[string]any{"type": "command", "command": hosts.ShellJoin(re.Hook(string(bundle.HostGemini), event, b.Name, h.ID)), "timeout": hosts.HostTimeout(h) * 1000}
		k := key{matcher, b.Own(h.Hosts) && bundle.GeminiSequential(h.Other)}
		gs := events[event]
		if prev, ok := last[event]; !ok || prev != k {
			g := map[string]any{"hooks": []any{}}
			if matcher != "" {
				g["matcher"] = matcher
			}
			if k.sequential {
				g["sequential"] = true
			}
			if !ok {
				order = append(order, event)
			}
			last[event] = k
			gs = append(gs, g)
			events[event] = gs
		}
		g := gs[len(gs)-1].(map[string]any)
		g["hooks"] = append(g["hooks"].([]any), e)
	}
	out := map[string]any{}
	for _, ev := range order {
		out[ev] = events[ev]
	}
	return out
}

// userGeminiDir is the user's own .gemini directory: under GEMINI_CLI_HOME
// when set, else under HOME.
func userGeminiDir(env []string) (string, error) {
	var home, cli string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GEMINI_CLI_HOME="); ok {
			cli = v
		}
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	if cli != "" {
		home = cli
	}
	if home == "" {
		return "", errors.New("neither GEMINI_CLI_HOME nor HOME is set")
	}
	abs, err := filepath.Abs(home)
	if err != nil {
		return "", err
	}
	return filepath.Join(abs, ".gemini"), nil
}

const enablementFile = "extension-enablement.json"

// Launch makes the session's Gemini CLI home and points GEMINI_CLI_HOME at
// it.
//
// It refuses to start Gemini CLI when its settings turn hooks off while a
// view has hooks (hooksOff): the guards would not run, and Gemini CLI
// would not say so.
func (Host) Launch(s *hosts.Session, views []hosts.BuiltView, argv, env []string) (*hosts.Launch, error) {
	return launch(s, views, argv, env, s.Exclusive())
}

// launch is Launch, with the session's --exclusive as an argument.
//
// Without exclusive, the user's own extensions are linked into the
// session beside the views, and each that Gemini CLI will load there is
// named. With it, none is: the session's extensions directory holds the
// views alone, and a -e argument naming one of the user's own is refused.
// Either way, a -e list (which makes Gemini CLI load the extensions it
// names and no other) gets the views added to it, so that it cannot keep
// a bundle's guards out.
func launch(s *hosts.Session, views []hosts.BuiltView, argv, env []string, exclusive bool) (*hosts.Launch, error) {
	user, err := userGeminiDir(env)
	if err != nil {
		if len(views) == 0 && !exclusive {
			return &hosts.Launch{Argv: argv, Env: env}, nil
		}
		return nil, err
	}
	userExt := filepath.Join(user, "extensions")
	own, err := ownExtensions(userExt)
	if err != nil {
		return nil, err
	}
	ours := map[string]bool{}
	for _, v := range views {
		ours[v.Bundle] = true
	}
	eargs := extensionsArgs(argv[1:])
	if exclusive {
		if err := ownSelected(own, ours, eargs); err != nil {
			return nil, err
		}
	}
	cwd := workingDir()
	if len(views) == 0 && !exclusive {
		notes := ownNotes(own, ours, extensionsList(eargs), readEnablement(filepath.Join(userExt, enablementFile)), cwd)
		return &hosts.Launch{Argv: argv, Env: env, Notes: notes}, nil
	}
	if hosts.ViewsHaveHooks(views) {
		if err := hooksOff(user, env); err != nil {
			return nil, err
		}
		if err := hookShellMissing(env); err != nil {
			return nil, err
		}
		if err := sandboxOff(user, env, argv[1:], filepath.Join(s.ViewsDir(), "sessions")); err != nil {
			return nil, err
		}
	}
	if len(views) > 0 {
		if err := allowListSet(user, env); err != nil {
			return nil, err
		}
	}
	sd, err := s.Dir()
	if err != nil {
		return nil, err
	}
	home := filepath.Join(sd, "gemini-home")
	dot := filepath.Join(home, ".gemini")
	ext := filepath.Join(dot, "extensions")
	if err := os.MkdirAll(ext, 0o700); err != nil {
		return nil, err
	}
	var notes []string
	ents, err := os.ReadDir(user)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for _, e := range ents {
		if e.Name() == "extensions" {
			continue
		}
		if err := os.Symlink(filepath.Join(user, e.Name()), filepath.Join(dot, e.Name())); err != nil {
			return nil, err
		}
	}
	// Gemini CLI reads the user's skills from <home>/.agents/skills too,
	// and loads <home>/.env (where users keep an API key) when no folder
	// from the working directory up has one: configuration of the user's
	// own, which stays in the session (internal/agenttest
	// TestGeminiHomeDotEnv).
	for _, name := range []string{".agents", ".env"} {
		p := filepath.Join(filepath.Dir(user), name)
		if _, err := os.Stat(p); err == nil {
			if err := os.Symlink(p, filepath.Join(home, name)); err != nil {
				return nil, err
			}
		}
	}
	if !exclusive {
		ents, err = os.ReadDir(userExt)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		for _, e := range ents {
			p := filepath.Join(userExt, e.Name())
			if e.Name() == enablementFile {
				if err := copyEnablement(p, filepath.Join(ext, enablementFile), ours); err != nil {
					notes = append(notes, fmt.Sprintf("gemini: the extension enablement file %s was not read (%v): every extension loads enabled in this session", bundle.Quote(p), err))
				}
				continue
			}
			if name, ok := loadableName(p); ours[e.Name()] || ok && ours[name] {
				notes = append(notes, fmt.Sprintf("gemini: your own extension %s is left out of this session: a bundle of the same name is loaded instead", bundle.Quote(e.Name())))
				continue
			}
			if err := os.Symlink(p, filepath.Join(ext, e.Name())); err != nil {
				return nil, err
			}
		}
	}
	for _, v := range views {
		if err := os.Symlink(v.Dir, filepath.Join(ext, v.Bundle)); err != nil {
			return nil, err
		}
	}
	out := argv
	list := extensionsList(eargs)
	if len(list) > 0 {
		// Gemini CLI loads the extensions a -e list names and no other:
		// the views go in it, or their guards would not run.
		var add []string
		for _, v := range views {
			if !selects(list, v.Bundle) {
				add = append(add, "--extensions="+v.Bundle)
				list = append(list, v.Bundle)
			}
		}
		if len(add) > 0 {
			out = append(append([]string{argv[0]}, add...), argv[1:]...)
			notes = append(notes, fmt.Sprintf("gemini: your -e/--extensions list leaves out bundle views, which exec loads whatever it says: it adds %s", strings.Join(add, " ")))
		}
	}
	var loaded []ownExtension
	if !exclusive {
		en := readEnablement(filepath.Join(ext, enablementFile))
		notes = append(notes, ownNotes(own, ours, list, en, cwd)...)
		for _, o := range own {
			if ownLoads(o, ours, list, en, cwd) {
				loaded = append(loaded, o)
			}
		}
	}
	notes = append(notes, sharedServerNotes(views, loaded)...)
	notes = append(notes, mcpNotes(views, user, env, argv[1:], cwd)...)
	outEnv := slices.Clone(env)
	outEnv = slices.DeleteFunc(outEnv, func(kv string) bool { return strings.HasPrefix(kv, "GEMINI_CLI_HOME=") })
	outEnv = append(outEnv, "GEMINI_CLI_HOME="+home)
	return &hosts.Launch{Argv: out, Env: outEnv, Notes: notes, Cleanup: func() {}}, nil
}

// mcpNotes names the views whose MCP servers Gemini CLI will not start
// when it may not trust the working directory (trustsFolder), or a .env
// file it may load makes it trust the folder no more (dotEnvUntrusts; the
// note names the file, and the variable set empty keeps the file's out
// for one session): in a folder it does not trust, Gemini CLI 0.61
// connects to no MCP server, an extension's included (internal/agenttest
// TestGeminiUntrustedFolderMCP, TestGeminiDotEnvUntrusts).
// The tools go missing; no guard does, so this is a note, not a refusal.
func mcpNotes(views []hosts.BuiltView, user string, env, args []string, cwd string) []string {
	var names []string
	var out []string
	flag, given := allowedServersArg(args)
	for _, v := range views {
		servers := viewServers(v)
		if len(servers) > 0 {
			names = append(names, bundle.Quote(v.Bundle))
		}
		out = append(out, settingsServerNotes(v.Bundle, servers, settingsLayers(user, env), given)...)
		out = append(out, argServerNotes(v.Bundle, servers, flag)...)
	}
	if len(names) == 0 {
		return out
	}
	if key, value, file := dotEnvUntrusts(user, env, args, cwd, ""); file != "" {
		// Named beside the note below when the folder may not be trusted
		// either: trusting it then loads the file, and the line holds.
		out = append(out, fmt.Sprintf("gemini: %s sets %s=%s, and Gemini CLI, which loads that file into its environment once it has read its settings, then trusts %s no more and starts no MCP server: those of the bundles %s would not start (their tools missing; the guards still run); take that line out of it, or, for this session alone, start %s= bundlectl exec -- gemini",
			bundle.Quote(file), key, value, bundle.Quote(cwd), strings.Join(names, ", "), key))
	}
	if trustsFolder(user, env, cwd) {
		return out
	}
	return append(out, fmt.Sprintf("gemini: Gemini CLI may not trust %s, and in a folder it does not trust it starts no MCP server: those of the bundles %s would not start (their tools missing; the guards still run); trust the folder %s, or, for this session alone, start GEMINI_CLI_TRUST_WORKSPACE=true bundlectl exec -- gemini",
		bundle.Quote(cwd), strings.Join(names, ", "), trustFolderWays(user, env, cwd, "with Gemini CLI's /permissions command")))
}

// trustFolderWays says how the user tells Gemini CLI (0.61) to trust
// the folder cwd for good, after "trust the folder ": with its
// /permissions command (command names it, as the sentence needs), or a
// "TRUST_FOLDER" rule in trustedFolders.json. With a test switch in env,
// or in a .env file it loads there (testSwitchAt), Gemini CLI offers no
// /permissions command, so only the rule is named, and why.
func trustFolderWays(user string, env []string, cwd, command string) string {
	rule := `a "TRUST_FOLDER" rule for it in ` + bundle.Quote(trustedFoldersPath(user, env))
	if sw, file := testSwitchAt(user, env, cwd); sw != "" {
		from := ""
		if file != "" {
			from = " from " + bundle.Quote(file) + ","
		}
		return "with " + rule + " (with " + sw + from + " Gemini CLI offers no /permissions command)"
	}
	return command + " or " + rule
}

// viewServers are the names of the MCP servers a view's manifest declares,
// sorted.
func viewServers(v hosts.BuiltView) []string { return manifestServers(v.Dir) }

// manifestServers are the names of the MCP servers the manifest of the
// extension directory dir declares, sorted.
func manifestServers(dir string) []string {
	data, err := os.ReadFile(filepath.Join(dir, "gemini-extension.json"))
	if err != nil {
		return nil
	}
	var m struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if jsonobj.UnmarshalExact(data, &m) != nil { // Gemini CLI reads mcpServers by its exact name
		return nil
	}
	names := slices.Collect(maps.Keys(m.MCPServers))
	slices.Sort(names)
	return names
}

// settingsServerNotes names what in the settings files layers (as
// settingsLayers) changes a view's MCP servers servers in Gemini CLI 0.61
// without a word at startup (internal/agenttest
// TestGeminiSettingsMCPOverView): a settings mcpServers entry of the same
// name, which its McpClientManager merges over the extension's (the
// settings' command, url, trust and env win), an mcp.excluded entry naming
// it (the lists of every file are joined), and mcp.allowed lists that
// leave it out (Gemini CLI keeps what every list holds; when nothing is
// left it allows every server). A server is not a guard: a note, not a
// refusal. A file that cannot be read says nothing here; the launch's
// other checks name it. With argList (--allowed-mcp-server-names given),
// Gemini CLI reads neither mcp.allowed nor mcp.excluded: argServerNotes
// speaks instead.
func settingsServerNotes(name string, servers, layers []string, argList bool) []string {
	if len(servers) == 0 {
		return nil
	}
	type layer struct {
		file     string
		m        map[string]any
		allowed  []string
		hasAllow bool
	}
	var ls []layer
	for _, f := range layers {
		m, err := hosts.ReadSettings(f)
		if err != nil || m == nil {
			continue
		}
		l := layer{file: f, m: m}
		mcp, _ := m["mcp"].(map[string]any)
		if list, ok := mcp["allowed"].([]any); ok {
			l.hasAllow = true
			l.allowed = strs(list)
		}
		ls = append(ls, l)
	}
	// Gemini CLI's getConsolidatedAllowedMcpServers: the first list, kept
	// to what every other holds (compared trimmed, in lower case).
	var allowed []string
	first := true
	for _, l := range ls {
		if !l.hasAllow {
			continue
		}
		if first {
			allowed, first = slices.Clone(l.allowed), false
			continue
		}
		allowed = slices.DeleteFunc(allowed, func(a string) bool {
			return !slices.ContainsFunc(l.allowed, func(b string) bool {
				return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
			})
		})
	}
	var notes []string
	for _, srv := range servers {
		for _, l := range ls {
			if defs, _ := l.m["mcpServers"].(map[string]any); defs != nil {
				if _, ok := defs[srv]; ok {
					notes = append(notes, fmt.Sprintf("gemini: the settings file %s defines an MCP server %s, which Gemini CLI merges over the bundle %s's server of that name: what that entry sets (its command, url, trust, env) replaces what was reviewed; rename or remove it there to use the reviewed server", bundle.Quote(l.file), bundle.Quote(srv), bundle.Quote(name)))
				}
			}
			mcp, _ := l.m["mcp"].(map[string]any)
			if list, ok := mcp["excluded"].([]any); ok && !argList && slices.Contains(strs(list), srv) {
				notes = append(notes, fmt.Sprintf("gemini: the settings file %s excludes the MCP server %s (mcp.excluded): the bundle %s's server of that name will not start (its tools missing); take it out of that list to start it", bundle.Quote(l.file), bundle.Quote(srv), bundle.Quote(name)))
			}
		}
		if len(allowed) > 0 && !argList && !slices.Contains(allowed, srv) {
			var files []string
			for _, l := range ls {
				if l.hasAllow && !slices.Contains(l.allowed, srv) {
					files = append(files, bundle.Quote(l.file))
				}
			}
			notes = append(notes, fmt.Sprintf("gemini: the mcp.allowed list of the settings file %s leaves out the MCP server %s: the bundle %s's server of that name will not start (its tools missing); add it to that list to start it", strings.Join(files, ", "), bundle.Quote(srv), bundle.Quote(name)))
		}
	}
	return notes
}

// argServerNotes names the servers of the bundle name's view that the
// list of the user's --allowed-mcp-server-names arguments (as
// allowedServersArg) leaves out: Gemini CLI 0.61 starts no other server,
// and says nothing (internal/agenttest
// TestGeminiAllowedMCPServerNamesFlag). An empty list allows every one.
func argServerNotes(name string, servers, list []string) []string {
	if len(list) == 0 {
		return nil
	}
	var notes []string
	for _, srv := range servers {
		if !slices.Contains(list, srv) {
			notes = append(notes, fmt.Sprintf("gemini: your --allowed-mcp-server-names list leaves out the MCP server %s: the bundle %s's server of that name will not start (its tools missing); add it to that list to start it", bundle.Quote(srv), bundle.Quote(name)))
		}
	}
	return notes
}

// allowedServersArg reads the user's --allowed-mcp-server-names arguments
// as Gemini CLI's parser does (--allowed-mcp-server-names X, the "="
// form, its camel-case spelling --allowedMcpServerNames, repeated, each
// value split at commas and trimmed, empty names dropped, a single empty
// value kept): the list, and whether the option is given at all, which
// makes Gemini CLI read neither mcp.allowed nor mcp.excluded from the
// settings (its loadCliConfig). Arguments after "--" are the prompt's.
// The option with no value, Gemini CLI refuses.
func allowedServersArg(args []string) (list []string, given bool) {
	var vals []extArg
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "--") || strings.HasPrefix(a, "---") {
			continue
		}
		k, v, eq := strings.Cut(a[2:], "=")
		if k != "allowed-mcp-server-names" && k != "allowedMcpServerNames" {
			continue
		}
		switch {
		case eq:
			vals = append(vals, extArg{Value: v, HasValue: true})
		case i+1 < len(args) && (!strings.HasPrefix(args[i+1], "-") || negativeRe().MatchString(args[i+1])):
			i++
			vals = append(vals, extArg{Value: args[i], HasValue: true})
		}
	}
	if len(vals) == 0 {
		return nil, false
	}
	return extensionsList(vals), true
}

// strs are the strings of a JSON list.
func strs(list []any) []string {
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// ownSelected refuses a -e argument that names one of the user's own
// extensions under --exclusive: kept out of the session, it could not
// load, and Gemini CLI would go on without it.
func ownSelected(own []ownExtension, ours map[string]bool, eargs []extArg) error {
	for _, a := range eargs {
		for _, n := range a.names() {
			for _, o := range own {
				if !strings.EqualFold(n, o.name) || ours[o.name] || ours[o.entry] {
					continue
				}
				return &hosts.ArgumentError{
					Err: fmt.Errorf("gemini: the argument %s names your own extension %s, which --exclusive keeps out of the session (bundlectl never reviewed it): leave it out of -e, or start without --exclusive to load it beside the views",
						bundle.Quote(a.Arg), bundle.Quote(o.name)),
					Fix:  "bundlectl exec --exclusive -- gemini",
					Args: a.At,
				}
			}
		}
	}
	return nil
}

// ownNotes names each of the user's own extensions Gemini CLI will load
// in the session: one the -e list selects when there is a list, else one
// the enablement rules leave enabled in the working directory. One
// same-named as a view is left out of the session.
func ownNotes(own []ownExtension, ours map[string]bool, list []string, en enablement, cwd string) []string {
	var notes []string
	for _, o := range own {
		if !ownLoads(o, ours, list, en, cwd) {
			continue
		}
		notes = append(notes, fmt.Sprintf("gemini: your own extension %s loads beside the views, never reviewed by bundlectl (bundlectl exec --exclusive -- gemini keeps it out)", bundle.Quote(o.name)))
	}
	return notes
}

// ownLoads reports whether Gemini CLI loads o, one of the user's own
// extensions, in the session: not one a view replaces, and selected by
// the -e list when there is one, else left enabled in cwd.
func ownLoads(o ownExtension, ours map[string]bool, list []string, en enablement, cwd string) bool {
	if ours[o.entry] || ours[o.name] {
		return false
	}
	return len(list) > 0 && selects(list, o.name) || len(list) == 0 && en.enabled(o.name, cwd)
}

// sharedServerNotes names each MCP server name a view declares that
// another view, or one of the user's own extensions Gemini CLI loads
// (loaded), declares too: Gemini CLI 0.61 starts one of them only,
// whichever extension it starts first, and skips the other without a word
// in a -p session (internal/agenttest TestGeminiSameServerTwoExtensions).
func sharedServerNotes(views []hosts.BuiltView, loaded []ownExtension) []string {
	owners := map[string][]string{}
	fromView := map[string]bool{}
	for _, v := range views {
		for _, srv := range viewServers(v) {
			owners[srv] = append(owners[srv], "the bundle "+bundle.Quote(v.Bundle))
			fromView[srv] = true
		}
	}
	for _, o := range loaded {
		for _, srv := range manifestServers(effectiveDir(o.path)) {
			owners[srv] = append(owners[srv], "your own extension "+bundle.Quote(o.name))
		}
	}
	var notes []string
	for _, srv := range slices.Sorted(maps.Keys(owners)) {
		if who := owners[srv]; fromView[srv] && len(who) > 1 {
			notes = append(notes, fmt.Sprintf("gemini: the MCP server %s is declared by %s: Gemini CLI starts only one of them, whichever extension it starts first, and skips the others without a word; rename one (bundlectl exec --exclusive -- gemini keeps your own extensions out)", bundle.Quote(srv), strings.Join(who, " and ")))
		}
	}
	return notes
}

// workingDir is the directory Gemini CLI matches enablement rules
// against: its working directory, which is bundlectl's, as the system
// reports it (node's process.cwd(), symbolic links resolved).
func workingDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(wd); err == nil {
		return r
	}
	return wd
}

// copyEnablement copies the user's enablement file without the entries of
// the session's views, which must load.
func copyEnablement(src, dst string, ours map[string]bool) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	for k := range m {
		if ours[k] {
			delete(m, k)
		}
	}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(dst, out, 0o600)
}

// AllowListError refuses a launch with views when the settings Gemini CLI
// reads set security.allowedExtensions: Gemini CLI (0.61) then stops at
// startup on any extension without an install record, which a view has
// not ("Failed to load extension …: The .gemini-extension-install.json
// file is missing"), so the agent would not start anyway, and with a
// message that does not say why.
type AllowListError struct {
	File    string
	Pattern string // matches the line that sets it (hosts.SettingIn), or ""
}

// Hint shows the setting in its file.
func (e *AllowListError) Hint() string {
	return (&hosts.HooksOffError{File: e.File, Pattern: e.Pattern}).Hint()
}

func (e *AllowListError) Error() string {
	return fmt.Sprintf("bundlectl exec -- gemini cannot load the bundle views: %s sets security.allowedExtensions, and with it Gemini CLI stops at startup on any extension it did not install itself, which the views are not; so the agent is not started: take the setting out of that file to start Gemini CLI through bundlectl", bundle.Quote(e.File))
}

// allowListSet returns an *AllowListError when the layer of the settings
// that decides security.allowedExtensions (system settings over the
// workspace's over the user's over the system defaults) sets a non-empty
// list. A file that cannot be read is refused too: Gemini CLI might read
// it.
func allowListSet(user string, env []string) error {
	decided := false
	err := hosts.CheckSettings("gemini", settingsLayers(user, env), func(m map[string]any) (string, string, string) {
		sec, _ := m["security"].(map[string]any)
		list, ok := sec["allowedExtensions"].([]any)
		if !ok || decided {
			return "", "", ""
		}
		decided = true
		if len(list) == 0 {
			return "", "", ""
		}
		return "security.allowedExtensions", "allowedExtensions", ""
	})
	var off *hosts.HooksOffError
	if errors.As(err, &off) && off.Setting == "security.allowedExtensions" {
		return &AllowListError{File: off.File, Pattern: off.Pattern}
	}
	return err
}

// geminiAgent keeps out of the view what Gemini CLI would run or reach
// from an agent's front matter on its own, outside bundlectl: a remote
// agent (an agent card Gemini CLI fetches, an endpoint it talks to) is
// left out, and so is one whose front matter reads oddly; a local agent
// loses the MCP servers it defines inline.
func geminiAgent(b *hosts.Bundle, v *hosts.View, name, dst string) error {
	data, ok := v.File(dst)
	if !ok {
		return nil // not copied; CopyDoc said why
	}
	remote, servers, odd := hosts.GeminiAgent(data)
	switch {
	case remote || odd:
		v.Remove(dst)
		why := "a remote agent is one Gemini CLI reaches over the network itself (its agent card), outside bundlectl"
		if odd {
			why = "its front matter does not read as one agent's (a merge key, or no mapping), so what Gemini CLI would take from it is not certain"
		}
		b.Note("its agent %s is not loaded: %s", bundle.Quote(name), why)
	case servers:
		out, err := hosts.SetFrontMatter(data, "mcp_servers", nil)
		if err != nil {
			return fmt.Errorf("%s: %w", bundle.Quote(dst), err)
		}
		b.Note("its agent %s is loaded without the MCP servers its front matter defines: Gemini CLI would start them itself, outside bundlectl; declare them in the extension's mcpServers", bundle.Quote(name))
		return v.Add(dst, out, false)
	}
	return nil
}

// hooksOff checks the settings Gemini CLI would read for hooks turned
// off: hooksConfig.enabled off in the layer that decides it (system
// settings over the workspace's over the user's over the system
// defaults), or a hooksConfig.disabled entry, in any layer (they are
// merged), that names a bundlectl hook line.
//
// Gemini CLI 0.61 runs extension hooks only when the merged
// hooksConfig.enabled is truthy in JavaScript's sense, and it merges what
// a file holds whatever its type (a file that fails its schema check is
// only warned about): so 0, "", null and the string "false" (which it
// reads as false) turn hooks off as false does, and so does a hooksConfig
// that is not an object, which replaces the lower layers' whole (enabled
// is then unset). A string is read after Gemini CLI fills in the
// environment variables it names. internal/agenttest
// TestExecGeminiHooksOffSpellings checks these against the real CLI.
//
// The workspace's settings count only when Gemini CLI is sure to trust
// the folder (trustsFolder): else they are checked, and so are the other
// layers without them, and either turning hooks off refuses. A system
// settings file Gemini CLI skips as insecure counts as absent
// (settingsLayers), and a refusal says so.
func hooksOff(user string, env []string) error {
	wd, _ := os.Getwd()
	return hooksOffAt(user, wd, env)
}

// hooksOffAt is hooksOff for a session started in cwd (the workspace's
// settings being cwd/.gemini/settings.json; none when cwd is "").
func hooksOffAt(user, cwd string, env []string) error {
	err := hooksOffFolder(user, cwd, env)
	var off *hosts.HooksOffError
	if errors.As(err, &off) && off.Text == "" {
		if note := skippedSystemFiles(env); note != "" {
			off.Fix += "; " + note
		}
	}
	return err
}

// hooksOffFolder is hooksOff, with the workspace's settings counted only
// in a folder Gemini CLI is sure to trust.
func hooksOffFolder(user, cwd string, env []string) error {
	layers := settingsLayersAt(user, cwd, env)
	err := hooksOffIn(layers, env)
	if err != nil || len(layers) < 4 || trustsFolder(user, env, realPath(cwd)) {
		return err
	}
	var off *hosts.HooksOffError
	if err := hooksOffIn(withoutWorkspace(layers), env); !errors.As(err, &off) {
		return err
	}
	off.SetEnv = "GEMINI_CLI_TRUST_WORKSPACE=true"
	off.Fix = fmt.Sprintf("the workspace's %s turns them back on, but Gemini CLI reads it only in a folder it trusts, and it may not trust %s (--skip-trust does not make it read it): trust the folder %s, or, for this session alone, start GEMINI_CLI_TRUST_WORKSPACE=true bundlectl exec -- gemini; or take the setting out of %s",
		bundle.Quote(layers[1]), bundle.Quote(filepath.Dir(filepath.Dir(layers[1]))), trustFolderWays(user, env, cwd, "in Gemini CLI, with its /permissions command"), bundle.Quote(off.File))
	return off
}

// hookShellMissing refuses a launch whose PATH holds no bash: Gemini CLI
// 0.61 runs every command hook as "bash -c <command>" (not /bin/sh),
// bash looked up in its PATH, and when it cannot start the hook it goes on
// as for a hook that failed without blocking, running the tool the guard
// was for (internal/agenttest TestGeminiHooksNeedBash). On Windows it uses
// PowerShell, which this does not check.
func hookShellMissing(env []string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	path, set := envPath(env)
	if !set {
		path = "/usr/bin:/bin" // what node's spawn searches without one
	}
	if pathHas(path, "bash") {
		return nil
	}
	off := &hosts.HooksOffError{Host: "gemini", Text: fmt.Sprintf("bundlectl exec -- gemini loads the active bundles' guards as hooks, and Gemini CLI runs every hook with bash, which is not in the PATH it would get (%s): no guard would start, and Gemini CLI would go on and run the tools they guard, so the agent is not started: install bash, or put the directory that holds it in PATH", bundle.Quote(path))}
	for _, dir := range []string{"/usr/bin", "/bin", "/usr/local/bin", "/opt/homebrew/bin"} {
		if pathHas(dir, "bash") {
			p := dir
			if path != "" {
				p = path + string(filepath.ListSeparator) + dir
			}
			off.SetEnv = "PATH=" + p
			off.Text += fmt.Sprintf(" (%s holds it)", bundle.Quote(dir))
			break
		}
	}
	return off
}

// hooksOffIn is hooksOff over the settings files layers, the one that
// decides first.
func hooksOffIn(layers, env []string) error {
	exe, _ := os.Executable()
	decided := false
	fix := "remove it (or set it to true), then start the agent again (with your own arguments: bundlectl exec -- gemini)"
	return hosts.CheckSettings("gemini", layers, func(m map[string]any) (string, string, string) {
		raw, present := m["hooksConfig"]
		hc, isObject := raw.(map[string]any)
		if present && !decided {
			if !isObject {
				decided = true
				return `"hooksConfig": ` + jsonText(raw) + " (not an object: Gemini CLI then finds hooksConfig.enabled unset)", "hooksConfig", "make it an object without \"enabled\": false, then start the agent again (with your own arguments: bundlectl exec -- gemini)"
			}
			if on, ok := hc["enabled"]; ok {
				decided = true
				if !settingOn(on, env) {
					return `"hooksConfig": {"enabled": ` + jsonText(on) + `}`, "hooksConfig", fix
				}
			}
		}
		var list []any
		switch d := hc["disabled"].(type) {
		case []any:
			list = d
		case string:
			list = []any{d} // merged into the list as one entry
		}
		for _, e := range list {
			name, ok := e.(string)
			if !ok {
				continue
			}
			if n := expandEnv(name, env); strings.Contains(n, "bundlectl") || exe != "" && strings.Contains(n, filepath.Base(exe)) {
				return `"hooksConfig": {"disabled": [` + strconv.Quote(name) + `]}`, name, "take that entry out, then start the agent again (with your own arguments: bundlectl exec -- gemini)"
			}
		}
		return "", "", ""
	})
}

// settingOn reports whether Gemini CLI reads v, a boolean setting's
// value, as on: JavaScript's truth, after a string's environment variables
// are filled in and "false" in any ASCII case is read as false (as in a
// file that passes Gemini CLI's schema; in one that fails it, "false" is
// a true string: boolSettingMay). "falſe" is not "false" to JavaScript's
// toLowerCase, though Go's case folding takes it for one (asciiLower).
func settingOn(v any, env []string) bool {
	if x, ok := v.(string); ok {
		s := expandEnv(x, env)
		return truthy(s) && asciiLower(s) != "false"
	}
	return truthy(v)
}

// jsonText is v as JSON, for a message.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// envRef is how Gemini CLI finds the environment variables in a settings
// string: $NAME, ${NAME} and ${NAME:-default}.
var envRef = lazyRegexp(`\$(?:(\w+)|\{([^}]+?)(?::-([^}]*))?\})`)

// expandEnv fills in s's environment variables from env as Gemini CLI
// does when it reads a settings file: a variable that is not set keeps
// its reference, unless it has a default.
func expandEnv(s string, env []string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	vars := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	return envRef().ReplaceAllStringFunc(s, func(m string) string {
		sub := envRef().FindStringSubmatch(m)
		name := sub[1] + sub[2]
		if v, ok := vars[name]; ok {
			return v
		}
		if strings.Contains(m, ":-") {
			return sub[3]
		}
		return m
	})
}

// optionSyntax: Gemini CLI resolves $VAR, ${VAR} and ${VAR:-default} in an
// extension's text from the extension's stored settings, which a view
// (declaring no settings) has none of, then from its own environment,
// which does not hold the values bundlectl configure stores — it sent an
// empty value — and it does so in a value bundlectl put in too.
var optionSyntax = hosts.OptionSyntax{
	Host: "Gemini CLI",
	Refs: OptionRefs,
	Expansions: func(s string) []string {
		var out []string
		for _, r := range OptionRefs(s) {
			out = append(out, s[r.Start:r.End])
		}
		return out
	},
}

// OptionRefs finds the references Gemini CLI resolves in an extension's
// text — $VAR, ${VAR} and ${VAR:-default} — as OptionRefs whose key is the
// variable's name: a setting's key is its envVar.
func OptionRefs(s string) []hosts.OptionRef {
	word := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	var out []hosts.OptionRef
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			continue
		}
		if s[i+1] == '{' {
			end := strings.IndexByte(s[i+2:], '}')
			if end <= 0 {
				continue
			}
			inner := s[i+2 : i+2+end]
			r := hosts.OptionRef{Start: i, End: i + 2 + end + 1, Key: inner}
			if k, def, ok := strings.Cut(inner, ":-"); ok && k != "" {
				r.Key, r.Default, r.HasDefault = k, def, true
			}
			out = append(out, r)
			i = r.End - 1
			continue
		}
		j := i + 1
		for j < len(s) && word(s[j]) {
			j++
		}
		if j > i+1 {
			out = append(out, hosts.OptionRef{Start: i, End: j, Key: s[i+1 : j]})
			i = j - 1
		}
	}
	return out
}

// authFields are the fields of a Gemini CLI remote MCP server that say how
// Gemini CLI authenticates to it: an OAuth login (a token stored by
// /mcp auth, or discovered), the user's Google credentials, or a service
// account they may impersonate. The inventory keeps them as written in
// MCPServer.Other, and the review shows them there.
var authFields = []string{"oauth", "authProviderType", "targetAudience", "targetServiceAccount"}

// settingsLayers are the settings files Gemini CLI reads, the one that
// decides a setting first: system settings, the workspace's, the user's,
// the system defaults. A system file Gemini CLI skips as insecure
// (systemFileSkipped) is "" here: it counts as absent, as it does for
// Gemini CLI.
func settingsLayers(user string, env []string) []string {
	wd, _ := os.Getwd()
	return settingsLayersAt(user, wd, env)
}

// settingsLayersAt is settingsLayers for a session started in cwd: no
// workspace's settings when cwd is "".
func settingsLayersAt(user, cwd string, env []string) []string {
	system, defaults := systemSettingsPaths(env)
	if systemFileSkipped(system) != "" {
		system = ""
	}
	if systemFileSkipped(defaults) != "" {
		defaults = ""
	}
	layers := []string{system}
	if cwd != "" {
		layers = append(layers, filepath.Join(cwd, ".gemini", "settings.json"))
	}
	layers = append(layers, filepath.Join(user, "settings.json"), defaults)
	return layers
}

// withoutWorkspace are settings layers (settingsLayers) without the
// workspace's settings, which are among them only when the working
// directory is known (one that is gone is not).
func withoutWorkspace(layers []string) []string {
	if len(layers) < 4 {
		return layers
	}
	return []string{layers[0], layers[2], layers[3]}
}

// systemSettingsPaths are the system settings and system defaults files
// Gemini CLI reads: $GEMINI_CLI_SYSTEM_SETTINGS_PATH, else the platform's
// place, and $GEMINI_CLI_SYSTEM_DEFAULTS_PATH, else system-defaults.json
// beside the system settings.
func systemSettingsPaths(env []string) (system, defaults string) {
	get := func(k string) string { v, _ := envLookup(env, k); return v }
	system = get("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
	if system == "" {
		system = "/etc/gemini-cli/settings.json"
		if runtime.GOOS == "darwin" {
			system = "/Library/Application Support/GeminiCli/settings.json"
		}
	}
	defaults = get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH")
	if defaults == "" {
		defaults = filepath.Join(filepath.Dir(system), "system-defaults.json")
	}
	return system, defaults
}

// skippedSystemFiles says which system settings files Gemini CLI skips as
// insecure, and why, for a message that would otherwise leave the reader
// wondering why such a file's setting did not count.
func skippedSystemFiles(env []string) string {
	system, defaults := systemSettingsPaths(env)
	var out []string
	for _, f := range []string{system, defaults} {
		if why := systemFileSkipped(f); why != "" {
			out = append(out, fmt.Sprintf("Gemini CLI skips the system settings file %s, and so does bundlectl, as %s: it reads one only when the file and every directory above it are owned by root and writable by no one else", bundle.Quote(f), why))
		}
	}
	return strings.Join(out, "; ")
}
