package claude

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/inventory"
)

func init() { hosts.Register(Host{}) }

// Host is the Claude Code adapter.
type Host struct{}

// Name is the program name.
func (Host) Name() string { return "claude" }

// Install is the command that installs the agent (hosts.Installer).
func (Host) Install() string { return "npm install -g @anthropic-ai/claude-code" }

// View builds the plugin directory of b.
func (Host) View(b *hosts.Bundle, re hosts.Reentry) (*hosts.View, error) {
	v := hosts.NewView()
	if strings.ContainsAny(b.Name, "/:") || strings.ContainsFunc(b.Name, func(r rune) bool { return r <= ' ' }) {
		b.Note("not loaded into claude: Claude Code plugin names cannot contain a slash, a colon or white space")
		return v, nil
	}
	hookValue := func(hs []inventory.Hook) map[string]any {
		return HooksValue(hs, b.Name, re)
	}
	scoped := func(kind, name string) func([]byte) ([]byte, error) {
		hs := refusedSkillHooks(b, kind, name, b.ScopedHooks(kind+":"+name))
		return func(doc []byte) ([]byte, error) {
			if len(hs) == 0 {
				return hosts.SetFrontMatter(doc, "hooks", nil)
			}
			return hosts.SetFrontMatter(doc, "hooks", hookValue(hs)["hooks"])
		}
	}
	for _, d := range b.Docs("skill") {
		if err := b.CopySkill(v, d, "skills/"+d.Name, scoped("skill", d.Name)); err != nil {
			return nil, err
		}
	}
	for _, c := range []struct{ kind, dir string }{{"command", "commands"}, {"agent", "agents"}, {"output style", "output-styles"}} {
		for _, d := range b.Docs(c.kind) {
			dst, err := hosts.DocFile(c.dir, d.Name)
			if err != nil {
				b.Note("its %s %s is not loaded: %v", c.kind, bundle.Quote(d.Name), err)
				continue
			}
			rw := hosts.ClaudeFrontMatter
			if c.kind != "output style" {
				rw = then(rw, scoped(c.kind, d.Name))
			}
			if c.kind == "agent" {
				rw = withoutIgnored(d, withoutInlineServers(b, d.Name, rw))
			}
			if c.kind == "command" && hosts.IsSkillFile(d.Path) && path.Dir(d.Path) != "." {
				if err := b.CopySkillCommand(v, d, strings.TrimSuffix(dst, ".md"), rw); err != nil {
					return nil, err
				}
				continue
			}
			if err := b.CopyDoc(v, d, dst, rw); err != nil {
				return nil, err
			}
		}
	}
	var hs []inventory.Hook
	for _, h := range b.Hooks() {
		if why, ok := refusedHook(h); ok {
			// The view calls bundlectl in exec form, which Claude Code
			// would run: leave out what it would not.
			b.Note("its hook %s is not loaded: %s", h.ID, why)
			continue
		}
		hs = append(hs, h)
	}
	if len(hs) > 0 {
		if err := v.AddJSON("hooks/hooks.json", hookValue(hs)); err != nil {
			return nil, err
		}
	}
	servers := map[string]any{}
	for _, s := range b.MCPServers() {
		switch s.Transport {
		case bundle.TransportStdio:
			argv := re.MCP(b.Name, s.Name)
			e := map[string]any{"type": "stdio", "command": argv[0], "args": argv[1:]}
			if ms, ok := hosts.ClaudeMCPTimeoutMs(s); ok {
				e["timeout"] = ms // Claude Code's wait for each call
			}
			servers[s.Name] = e
		case bundle.TransportStreamableHTTP, bundle.TransportSSE:
			if len(s.ToolsInclude)+len(s.ToolsExclude) > 0 {
				// Claude Code reaches a remote server itself and has no
				// per-server tool filter: the reviewed filter could not hold.
				b.Note("its MCP server %s is not loaded: it is remote and has a tool filter, which Claude Code cannot enforce", bundle.Quote(s.Name))
				continue
			}
			if hosts.ExpandsLiteral(s) {
				b.Note("its MCP server %s is not loaded: Claude Code would expand the \"$\" its URL or headers hold as literal text", bundle.Quote(s.Name))
				continue
			}
			typ := "http"
			if s.Transport == bundle.TransportSSE {
				typ = "sse"
			}
			url, headers, ok := b.RemoteServer(v, s, optionSyntax)
			if !ok {
				continue
			}
			e := map[string]any{"type": typ, "url": url}
			if headers != nil {
				e["headers"] = headers
			}
			for _, k := range unsentAuth {
				if _, ok := s.Other[k]; ok && b.Own(s.Hosts) {
					// Not given: a helper is a command Claude Code would
					// run outside bundlectl's check before every spawn,
					// and an OAuth client of a plugin server was never
					// tried here. Say so, or the server's failure to
					// authenticate under exec is a mystery.
					b.Note("its MCP server %s is loaded without its %s, which bundlectl does not give Claude Code: it may fail to authenticate", bundle.Quote(s.Name), k)
				}
			}
			servers[s.Name] = e
		default:
			b.Note("its MCP server %s is not loaded: Claude Code does not speak the %s transport", bundle.Quote(s.Name), s.Transport)
		}
	}
	if len(servers) > 0 {
		if err := v.AddJSON(".mcp.json", map[string]any{"mcpServers": servers}); err != nil {
			return nil, err
		}
	}
	lsps := map[string]any{}
	for _, l := range b.LSPServers() {
		if l.Transport != "" && l.Transport != "stdio" {
			b.Note("its language server %s is not loaded: bundlectl serves language servers over stdio only", bundle.Quote(l.Name))
			continue
		}
		argv := re.LSP(b.Name, l.Name)
		e := map[string]any{}
		for k, raw := range l.Other {
			e[k] = raw
		}
		e["command"], e["args"], e["transport"] = argv[0], argv[1:], "stdio"
		delete(e, "env")
		if len(l.Languages) > 0 {
			e["extensionToLanguage"] = l.Languages
		}
		lsps[l.Name] = e
	}
	if len(lsps) > 0 {
		if err := v.AddJSON(".lsp.json", lsps); err != nil {
			return nil, err
		}
	}
	b.NoteOutOfReach(true)
	for _, x := range b.Inventory.Executables {
		if strings.HasPrefix(x, "bin/") {
			b.Note("its bin/ executables are not put on claude's PATH: they run only as the hooks and servers that name them, through bundlectl")
			break
		}
	}
	if v.Empty() {
		return v, nil
	}
	manifest := map[string]any{
		"name":        b.Name,
		"description": "bundlectl view of " + b.Name + " (reviewed snapshot " + b.Token.Content.Short() + ")",
	}
	if err := v.AddJSON(".claude-plugin/plugin.json", manifest); err != nil {
		return nil, err
	}
	return v, nil
}

// refusedHook says why Claude Code never runs a plugin hook: a
// shell-form command with ${user_config.KEY}
// (bundle.ClaudeShellOptionRef), or a "shell" other than bash
// (bundle.ClaudeHookShell; bundlectl runs hooks with a POSIX shell only).
func refusedHook(h inventory.Hook) (string, bool) {
	if h.Type != bundle.HookCommand || h.Scope != "" || !slices.Contains(h.Hosts, string(bundle.HostClaude)) {
		return "", false
	}
	if why := bundle.ClaudeHookShell(h.Other, h.Shell); why != "" {
		return why, true
	}
	if ref, ok := bundle.ClaudeShellOptionRef(h.Command); ok && h.Shell {
		return "Claude Code does not run a plugin hook whose shell-form command references " + bundle.Quote(ref), true
	}
	return "", false
}

// refusedSkillHooks leaves out of a skill's front-matter hooks those
// Claude Code never runs, each with a note: every one of them when one has
// a "shell" its schema rejects (bundle.ClaudeSkillHooksRejected), else
// each that references ${CLAUDE_PLUGIN_DATA} (bundle.ClaudeDataRef).
func refusedSkillHooks(b *hosts.Bundle, kind, name string, hs []inventory.Hook) []inventory.Hook {
	if kind != "skill" {
		return hs
	}
	var others []map[string]json.RawMessage
	for _, h := range hs {
		if slices.Contains(h.Hosts, string(bundle.HostClaude)) {
			others = append(others, h.Other)
		}
	}
	if why := bundle.ClaudeSkillHooksRejected(others); why != "" {
		var kept []inventory.Hook
		for _, h := range hs {
			if slices.Contains(h.Hosts, string(bundle.HostClaude)) {
				b.Note("its skill %s hook %s is not loaded: %s", bundle.Quote(name), h.ID, why)
				continue
			}
			kept = append(kept, h)
		}
		return kept
	}
	var kept []inventory.Hook
	for _, h := range hs {
		if h.Type == bundle.HookCommand && slices.Contains(h.Hosts, string(bundle.HostClaude)) &&
			slices.ContainsFunc(append([]string{h.Command}, h.Args...), func(s string) bool { return strings.Contains(s, bundle.ClaudeDataRef) }) {
			b.Note("its skill %s hook %s is not loaded: it references %s, which Claude Code does not give a skill's hooks", bundle.Quote(name), h.ID, bundle.ClaudeDataRef)
			continue
		}
		kept = append(kept, h)
	}
	return kept
}

// HooksValue is Claude Code's hooks object ({"hooks": {event: [groups]}})
// for hs: each command or http hook becomes a command hook in exec form
// calling `bundlectl hooks exec <bundle> <id>`; prompt, agent and
// mcp_tool hooks, which the host evaluates itself (its model, or a tool of
// the bundle's MCP server, which the view serves through bundlectl), are
// kept as reviewed.
func HooksValue(hs []inventory.Hook, bundleName string, re hosts.Reentry) map[string]any {
	events := map[string][]any{}
	var order []string
	type key struct{ event, matcher string }
	groups := map[key]map[string]any{}
	for _, h := range hs {
		// Fields that shape when the host fires the hook or how it shows
		// it ("if", "statusMessage", an mcp_tool's server and tool) stay;
		// those that say what runs are bundlectl's.
		e := map[string]any{}
		for k, v := range h.Other {
			switch k {
			case "command", "args", "shell", "url", "headers", "allowedEnvVars", "type", "timeout", "async":
			default:
				e[k] = v
			}
		}
		if hosts.Runs(h) {
			argv := re.Hook(string(bundle.HostClaude), h.Event, bundleName, h.ID)
			e["type"], e["command"], e["args"], e["timeout"] = "command", argv[0], argv[1:], hosts.HostTimeout(h)
		} else {
			e["type"] = h.Type
			if h.Prompt != "" {
				e["prompt"] = h.Prompt
			}
			if h.Model != "" {
				e["model"] = h.Model
			}
			if h.TimeoutSec > 0 {
				e["timeout"] = h.TimeoutSec
			}
		}
		if h.Async {
			e["async"] = true
		}
		k := key{h.Event, h.Matcher}
		g, ok := groups[k]
		if !ok {
			g = map[string]any{"hooks": []any{}}
			if h.Matcher != "" {
				g["matcher"] = h.Matcher
			}
			groups[k] = g
			if _, seen := events[h.Event]; !seen {
				order = append(order, h.Event)
			}
			events[h.Event] = append(events[h.Event], g)
		}
		g["hooks"] = append(g["hooks"].([]any), e)
	}
	out := map[string]any{}
	for _, ev := range order {
		out[ev] = events[ev]
	}
	return map[string]any{"hooks": out}
}

// Launch adds one --plugin-dir=<view> per view before the user's own
// arguments. The "=" form keeps the option to exactly one value, so a
// prompt that follows is never read as another directory.
//
// It refuses to start Claude Code when the settings it reads, as it
// reads them (hooksOff), turn hooks off while a view has hooks: the
// guards would not run, and Claude Code would not say so. A repository
// can ship such a file, and the agent can write one for its next session.
// When they turn hooks back on over an earlier true, the session's own
// --settings pins "disableAllHooks": false (hooksOff's undone). A setting that
// turns a view off ("<bundle>@inline": false) is refused the same way
// when the view has hooks, and named otherwise.
//
// The user's own plugins (installed with Claude Code, in a skills folder,
// or named in their own arguments) are named, one note each; with
// s.Exclusive() a --settings argument turns each off for the session
// (over the user's own last --settings, which it carries: only the last
// one counts), and what no session setting can turn off is refused.
func (Host) Launch(s *hosts.Session, views []hosts.BuiltView, argv, env []string) (*hosts.Launch, error) {
	return launch(s, s != nil && s.Exclusive(), views, argv, env)
}

func launch(s *hosts.Session, exclusive bool, views []hosts.BuiltView, argv, env []string) (*hosts.Launch, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	pin := false
	if hosts.ViewsHaveHooks(views) {
		if pin, err = hooksOff(argv[1:], env, wd); err != nil {
			return nil, err
		}
	}
	own, err := ownPlugins(argv[1:], env, wd, exclusive)
	if err != nil {
		return nil, err
	}
	var notes []string
	if off, setting, _ := pluginsOff(argv[1:], env); off != "" {
		why := off + " loads no plugin"
		if strings.HasPrefix(setting, `"env"`) {
			why = bundle.Quote(off) + " sets " + setting
		}
		for _, v := range views {
			notes = append(notes, fmt.Sprintf("bundle %s is not loaded into claude: %s", bundle.Quote(v.Bundle), why))
		}
	}
	for _, v := range views {
		src := own.viewOff(v.Bundle)
		if src == "" {
			continue
		}
		setting := fmt.Sprintf("\"enabledPlugins\": {%s: false}", strconv.Quote(v.Bundle+"@inline"))
		if v.Hooks {
			e := &hosts.HooksOffError{Host: "claude", File: src, Setting: setting, Fix: "remove that entry, then start the agent again (with your own arguments: bundlectl exec -- claude)"}
			if src == "--settings" {
				e.Fix, e.Args = "leave it out of the arguments", own.args.settingsAt
			} else {
				e.Pattern = hosts.SettingIn(src, hosts.JSONString(v.Bundle+"@inline"))
			}
			return nil, e
		}
		notes = append(notes, fmt.Sprintf("bundle %s is not loaded into claude: %s sets %s", bundle.Quote(v.Bundle), bundle.Quote(src), setting))
	}
	out := []string{argv[0]}
	for _, v := range views {
		out = append(out, "--plugin-dir="+v.Dir)
	}
	if !exclusive {
		notes = append(notes, own.ownNotes()...)
	}
	set, drop, err := own.sessionSettings(exclusive, pin)
	if err != nil {
		return nil, err
	}
	if drop != nil {
		notes = append(notes, fmt.Sprintf("claude: your --settings is left out of the session's own: Claude Code drops it whole, as its %s fails Claude Code's settings schema (give %s %s to have it read)", drop.setting(), bundle.Quote(drop.where()), drop.want))
	}
	user := argv[1:]
	if set != nil {
		arg, err := settingsArg(s, set, own.args.hasSettings)
		if err != nil {
			return nil, err
		}
		out = append(out, arg)
		user = without(user, own.args.settingsAt)
	}
	out = append(out, user...)
	return &hosts.Launch{Argv: out, Env: env, Notes: notes}, nil
}

// settingsArg is the --settings argument that gives Claude Code set: the
// JSON itself, or, when it carries the user's own settings (carries),
// which may hold secrets, a file of the session only the user reads,
// never the command line.
func settingsArg(s *hosts.Session, set map[string]any, carries bool) (string, error) {
	j, err := json.Marshal(set)
	if err != nil {
		return "", err
	}
	if !carries {
		return "--settings=" + string(j), nil
	}
	dir, err := s.Dir()
	if err != nil {
		return "", err
	}
	file := filepath.Join(dir, "claude-settings.json")
	if err := os.WriteFile(file, j, 0o600); err != nil {
		return "", err
	}
	return "--settings=" + file, nil
}

// argIndexes returns the indexes of the options equal to arg: those
// before "--".
func argIndexes(args []string, arg string) []int {
	var at []int
	for i, a := range args {
		if a == "--" {
			break
		}
		if a == arg {
			at = append(at, i)
		}
	}
	return at
}

// without returns args less the arguments at the indexes drop.
func without(args []string, drop []int) []string {
	var out []string
	for i, a := range args {
		if !slices.Contains(drop, i) {
			out = append(out, a)
		}
	}
	return out
}

// then is f followed by g.
func then(f, g func([]byte) ([]byte, error)) func([]byte) ([]byte, error) {
	return func(doc []byte) ([]byte, error) {
		out, err := f(doc)
		if err != nil {
			return nil, err
		}
		return g(out)
	}
}

// withoutInlineServers follows rw with taking out of an agent's front
// matter the MCP servers it defines inline. Claude Code 2.1.332 ignores
// them in a plugin agent (bundle's document.ignored-field); the view
// leaves them out all the same, as a Claude Code that honoured them would
// start them itself, with the host's environment, outside bundlectl.
// A list of server names is kept.
func withoutInlineServers(b *hosts.Bundle, agent string, rw func([]byte) ([]byte, error)) func([]byte) ([]byte, error) {
	return func(doc []byte) ([]byte, error) {
		out, err := rw(doc)
		if err != nil || !hosts.InlineMCPServers(out) {
			return out, err
		}
		b.Note("its agent %s is loaded without the MCP servers its front matter defines, which Claude Code ignores in a plugin agent; declare them in the plugin's .mcp.json", bundle.Quote(agent))
		return hosts.SetFrontMatter(out, "mcpServers", nil)
	}
}

// withoutIgnored follows rw with taking out of an agent's front matter
// the keys the review showed as ignored (its grants.ignored: Claude Code
// drops permissionMode, hooks, mcpServers, initialPrompt and the observer
// keys from a plugin agent), so that the view holds only what the host
// acts on, and a host that began to honour one would not find it there
// unreviewed as a grant.
func withoutIgnored(d inventory.Doc, rw func([]byte) ([]byte, error)) func([]byte) ([]byte, error) {
	return func(doc []byte) ([]byte, error) {
		out, err := rw(doc)
		for _, k := range slices.Sorted(maps.Keys(d.Grants.Ignored)) {
			if err != nil {
				break
			}
			out, err = hosts.SetFrontMatter(out, k, nil)
		}
		return out, err
	}
}

// hooksOff returns why no hook of a view would run in a Claude Code
// session started in cwd with args and env, or nil. --bare, --safe-mode
// and their environment variables, set in the environment or in the
// "env" of a settings file (settingsEnv), load no plugin, the views
// neither; a managed disableSideloadFlags makes Claude Code refuse every
// --plugin-dir. Otherwise the sources the session reads
// (sessionSources) decide, as Claude Code 2.1.332 reads them: a managed
// allowManagedHooksOnly (managedOnlyOff; a plugin's hooks are not
// managed ones), and disableAllHooks in the last source that sets a
// boolean (disableAllHooksOff; a value that is not a boolean counts for
// nothing here, in the user's settings too, as the views' hooks are a
// plugin's). A file Claude Code ignores whole (readSettings) counts for
// nothing; one bundlectl cannot read is refused (unreadableLayer). A
// repository can ship such a file, and the agent can write one for its
// next session.
//
// undone reports that the sources turn hooks back on over an earlier
// true: Claude Code keeps that true if it drops the file that undoes it
// (one that fails its schema), which bundlectl cannot tell, so launch
// pins the switch in the session's own --settings
// (ownState.sessionSettings).
func hooksOff(args, env []string, cwd string) (undone bool, err error) {
	if off, setting, variable := pluginsOff(args, env); off != "" {
		e := &hosts.HooksOffError{Host: "claude", File: off, Setting: setting, Fix: "remove that entry, then start the agent again (with your own arguments: bundlectl exec -- claude)"}
		switch {
		case off == "--settings":
			// The last --settings argument is the one Claude Code applies.
			e.Fix, e.Args = "leave it out of the arguments", parseArgs(args).settingsAt
		case strings.HasPrefix(off, "-"):
			e.Fix, e.Args = "leave it out of the arguments", argIndexes(args, off)
		case !strings.ContainsRune(off, filepath.Separator):
			e.Fix, e.Env = "unset it, then start the agent again (with your own arguments: bundlectl exec -- claude)", off
		default:
			e.Pattern = hosts.SettingIn(off, hosts.JSONString(variable))
		}
		return false, e
	}
	// Managed disableSideloadFlags makes Claude Code refuse every
	// --plugin-dir, the views' too: said here, naming the file, rather
	// than as Claude Code's complaint about an argument the user never
	// gave.
	sideload := func(m map[string]any) (string, string, string) {
		if m["disableSideloadFlags"] == true {
			return `"disableSideloadFlags": true (Claude Code then loads no --plugin-dir, the views neither)`, "disableSideloadFlags", "ask whoever manages this machine to remove it; until then exec cannot load the views into claude, and the guards can run from your own settings instead (run bundlectl setup claude)"
		}
		return "", "", ""
	}
	if err := hosts.CheckSettings("claude", managedFiles(), sideload); err != nil {
		return false, err
	}
	layers, err := readSwitchLayers(sessionSources(parseArgs(args), env, cwd))
	if err != nil {
		return false, err
	}
	if err := unreadableLayer(layers); err != nil {
		return false, err
	}
	const fix = "remove it (or set it to false), then start the agent again (with your own arguments: bundlectl exec -- claude)"
	if o := managedOnlyOff(layers); o != nil {
		return false, o.refusal(fix)
	}
	o, undone := disableAllHooksOff(layers, false)
	if o != nil {
		return false, o.refusalIn(layers, fix)
	}
	return undone, nil
}

// optionSyntax: Claude Code resolves ${user_config.KEY} in a remote
// server's URL and headers from the values it stores itself, which a
// view's plugin (declaring no userConfig) has none of — it sent the
// reference as literal text — and then expands ${VAR} (not $VAR) from its
// environment, in a value bundlectl put in too.
var optionSyntax = hosts.OptionSyntax{
	Host:       "Claude Code",
	Refs:       OptionRefs,
	Expansions: expansions,
}

// expansions lists the ${…} of s, each to its "}" (or to the end of s):
// Claude Code expands ${VAR}, ${VAR:-default} and ${user_config.KEY}.
func expansions(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			return out
		}
		s = s[i:]
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return append(out, s)
		}
		out = append(out, s[:end+1])
		s = s[end+1:]
	}
}

// OptionRefs finds the ${user_config.KEY} references in s.
func OptionRefs(s string) []hosts.OptionRef {
	const open = "${user_config."
	var out []hosts.OptionRef
	for i := 0; ; {
		j := strings.Index(s[i:], open)
		if j < 0 {
			return out
		}
		start := i + j
		end := strings.IndexByte(s[start:], '}')
		if end < 0 {
			return out
		}
		out = append(out, hosts.OptionRef{Start: start, End: start + end + 1, Key: s[start+len(open) : start+end]})
		i = start + end + 1
	}
}

// unsentAuth are the authentication fields of a Claude Code remote MCP
// server that bundlectl exec's view leaves out (the review shows them as
// written).
var unsentAuth = []string{"headersHelper", "oauth"}
