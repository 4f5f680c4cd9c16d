package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"

	"github.com/bundlectl/bundlectl/internal/jsspace"
)

// Content components — skills, commands, agents, output styles, context
// files — are declared by readers as locations and read once, after every
// reader ran: a directory two manifests both name (a plugin carrying
// Claude Code and Codex manifests shares skills/) yields one component
// that both hosts load.

type docKind int

const (
	kindSkills docKind = iota
	kindCommand
	kindAgent
	kindOutputStyle
	kindContext
	kindGeminiCommand
)

func (k docKind) String() string {
	return [...]string{"skill", "command", "agent", "output style", "context file", "command"}[k]
}

// docLocation is a file or directory a reader says holds content.
type docLocation struct {
	kind docKind
	rel  string // relative to the bundle root; "" is the root
	file bool   // rel is one file, not a directory to list
	// host is the host that reads it; "" is bundlectl's own formats,
	// whose names and skills follow the strict Agent Skills rules.
	host  Host
	field string // where it was declared, for findings
	// named: a manifest path field named it, so a skills location may be
	// one skill's own directory.
	named bool
	// name, grants and description, when set, override the file's own
	// (Claude Code's object form of "commands").
	name        string
	grants      *Grants
	description string
}

func (b *Bundle) addLocation(l docLocation) { b.locs = append(b.locs, l) }

// hostDocFields are the front-matter keys hosts document for skills,
// commands and agents (Claude Code, Codex, Gemini CLI).
var hostDocFields = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"name": true, "description": true, "argument-hint": true, "allowed-tools": true,
		"model": true, "disable-model-invocation": true, "user-invocable": true, "context": true,
		"agent": true, "hooks": true, "when_to_use": true, "version": true, "license": true,
		"compatibility": true, "metadata": true, "effort": true, "shell": true, "paths": true,
		"tools": true, "disallowedTools": true, "disallowed-tools": true, "permissionMode": true,
		"skills": true, "mcpServers": true, "maxTurns": true, "color": true, "isolation": true,
		"memory": true, "background": true, "initialPrompt": true, "keep-coding-instructions": true,
		"temperature": true, "max_turns": true, "timeout_mins": true, "kind": true, "title": true,
		"display_name": true, "mcp_servers": true, "arguments": true, "if": true,
	}
})

// descriptiveFields carry no authority: they are shown, not hashed.
var descriptiveFields = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"name": true, "description": true, "argument-hint": true, "when_to_use": true,
		"version": true, "license": true, "compatibility": true, "metadata": true, "color": true,
		"title": true, "author": true, "tags": true,
	}
})

// loadDocuments reads every registered location once.
func loadDocuments(b *Bundle) {
	type item struct {
		kind    docKind
		rel     string
		dirName string // a skill's directory name
		hosts   []Host
		strict  bool
		loc     docLocation
	}
	var items []*item
	index := map[string]*item{}
	add := func(kind docKind, rel, dirName string, host Host, loc docLocation) {
		key := strconv.Itoa(int(kind)) + "\x00" + rel
		if kind == kindGeminiCommand {
			key = strconv.Itoa(int(kindCommand)) + "\x00" + rel
		}
		it := index[key]
		if it == nil {
			it = &item{kind: kind, rel: rel, dirName: dirName, strict: true, loc: loc}
			index[key] = it
			items = append(items, it)
		}
		if host != "" {
			it.strict = false
			it.hosts = addHost(it.hosts, host)
		}
	}
	for _, l := range b.locs {
		if !l.file {
			if e, ok := b.Tree.Lookup(l.rel); l.rel != "" && (!ok || e.Kind != KindDir) {
				if ok {
					b.Report.Skipf(l.field, "document.location", "%s is not a directory; no %ss are loaded from it", Quote(l.rel), l.kind)
				}
				continue
			}
		}
		switch l.kind {
		case kindSkills:
			if l.file {
				if path.Base(l.rel) == "SKILL.md" {
					dir := path.Base(path.Dir(l.rel))
					if path.Dir(l.rel) == "." {
						dir = b.Name
					}
					add(kindSkills, l.rel, dir, l.host, l)
				} else {
					b.Report.Skipf(l.field, "skill.location", "%s is not a skill directory or SKILL.md", Quote(l.rel))
				}
				continue
			}
			files, names := skillFiles(b, l.rel, l.named)
			if l.host == HostCodex {
				files, names = codexSkillFiles(b, l.rel)
			}
			for i, f := range files {
				add(kindSkills, f.Path, names[i], l.host, l)
			}
		default:
			ext := ".md"
			if l.kind == kindGeminiCommand {
				ext = ".toml"
			}
			if l.file {
				add(l.kind, l.rel, "", l.host, l)
				continue
			}
			desc := descendants(b.Tree, l.rel)
			// Claude Code takes a directory of a commands location that
			// holds a SKILL.md (in any case) as one skill-mode command,
			// that file only, and looks no deeper.
			var skillDirs []string
			if l.host == HostClaude && l.kind == kindCommand {
				for _, e := range desc {
					if e.Kind != KindDir && IsSkillFileName(path.Base(e.Path)) && path.Dir(e.Path) != l.rel {
						skillDirs = append(skillDirs, path.Dir(e.Path))
					}
				}
			}
			for _, e := range desc {
				if e.Kind == KindDir {
					continue
				}
				if d, ok := shallowestPrefix(skillDirs, e.Path); ok {
					if path.Dir(e.Path) == d && IsSkillFileName(path.Base(e.Path)) {
						loc := l
						loc.name = docName(d+".md", l.rel, l.kind)
						add(l.kind, e.Path, l.rel, l.host, loc)
					}
					continue
				}
				// A host loads every file its loader matches, a README
				// or "X.MD" too, so the review lists them all; a strict
				// location skips README.md and wants the exact suffix.
				match := strings.HasSuffix(e.Path, ext) && !isReadme(e.Path)
				if l.host != "" {
					match = strings.HasSuffix(strings.ToLower(e.Path), ext)
				}
				if match {
					// A strict (dev.bundlectl) location lists its own
					// directory only.
					if l.host == "" && strings.Contains(strings.TrimPrefix(e.Path, l.rel+"/"), "/") {
						continue
					}
					add(l.kind, e.Path, l.rel, l.host, l)
				}
			}
		}
	}
	for _, it := range items {
		data, err := b.Tree.ReadFile(it.rel, MaxManifestBytes)
		if err != nil {
			rule := "document.read"
			if it.kind == kindSkills {
				rule = "skill.read"
			}
			b.Report.Skipf(it.rel, rule, "cannot read the %s: %v", it.kind, err)
			continue
		}
		switch it.kind {
		case kindSkills:
			if s, ok := parseSkill(b, it.rel, it.dirName, data, it.strict); ok {
				s.Hosts = it.hosts
				b.Components.Skills = append(b.Components.Skills, s)
			}
		case kindGeminiCommand:
			if d, ok := parseGeminiCommand(b, it.rel, it.dirName, data); ok {
				d.Hosts = it.hosts
				b.Components.Commands = append(b.Components.Commands, d)
			}
		default:
			d := Document{Name: docName(it.rel, it.dirName, it.kind), Path: it.rel, Hosts: it.hosts}
			if it.loc.name != "" {
				d.Name = it.loc.name
			}
			if !parseDocument(b, &d, data, it.kind, it.strict) {
				continue
			}
			if g := it.loc.grants; g != nil {
				// The manifest's metadata wins over the front matter.
				if len(g.AllowedTools) > 0 {
					d.Grants.AllowedTools = g.AllowedTools
				}
				if g.Model != "" {
					d.Grants.Model = g.Model
				}
				for k, v := range g.Other {
					if d.Grants.Other == nil {
						d.Grants.Other = map[string]json.RawMessage{}
					}
					d.Grants.Other[k] = v
				}
			}
			if it.loc.description != "" {
				d.Description = it.loc.description
			}
			switch it.kind {
			case kindCommand:
				b.Components.Commands = append(b.Components.Commands, d)
			case kindAgent:
				b.Components.Agents = append(b.Components.Agents, d)
			case kindOutputStyle:
				b.Components.OutputStyles = append(b.Components.OutputStyles, d)
			case kindContext:
				b.Components.Contexts = append(b.Components.Contexts, d)
			}
		}
	}
}

// shallowestPrefix returns the directory of dirs that holds p, the
// shallowest when several do.
func shallowestPrefix(dirs []string, p string) (string, bool) {
	best, found := "", false
	for _, d := range dirs {
		if strings.HasPrefix(p, d+"/") && (!found || len(d) < len(best)) {
			best, found = d, true
		}
	}
	return best, found
}

// IsSkillFileName reports whether name is "SKILL.md" in any ASCII case, as
// Claude Code's /^skill\.md$/i matches it: not under Unicode folding,
// which would take "ſKILL.md" (U+017F) or a Kelvin sign for it.
func IsSkillFileName(name string) bool {
	const want = "SKILL.MD"
	if len(name) != len(want) {
		return false
	}
	for i := 0; i < len(want); i++ {
		c := name[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c != want[i] {
			return false
		}
	}
	return true
}

func isReadme(p string) bool { return strings.EqualFold(path.Base(p), "README.md") }

// docName is a document's name as its host addresses it: the path below
// its directory without the extension, subdirectories joined by ":"
// (commands/git/commit.md is "git:commit"). A file named on its own is
// named by its base name.
func docName(rel, dir string, kind docKind) string {
	name := rel
	if dir != "" {
		name = strings.TrimPrefix(rel, dir+"/")
	} else {
		name = path.Base(rel)
	}
	if kind == kindContext {
		return name
	}
	if ext := path.Ext(name); strings.EqualFold(ext, ".md") || ext == ".toml" {
		name = strings.TrimSuffix(name, ext)
	}
	return strings.ReplaceAll(name, "/", ":")
}

// checkComponentName refuses what is dangerous in a host component name
// and reports whether it passed.
func checkComponentName(b *Bundle, rel, kind, name string) bool {
	if !checkText(b, rel, name, false) {
		return false
	}
	if name == "" || strings.ContainsAny(name, "/\\") || name == "." || name == ".." {
		b.Report.Skipf(rel, "document.name", "%s name %s is not usable", kind, Quote(name))
		return false
	}
	return true
}

// parseDocument reads a command, agent, output style or context file:
// optional front matter and a body. Strict documents (dev.bundlectl)
// follow bundlectl's component name rule.
func parseDocument(b *Bundle, d *Document, data []byte, kind docKind, strict bool) bool {
	if strict {
		if msg := componentNameProblem(d.Name); msg != "" {
			b.Report.Skipf(d.Path, "document.name", "%s name %s %s", kind, Quote(d.Name), msg)
			return false
		}
	} else if !checkComponentName(b, d.Path, kind.String(), d.Name) {
		return false
	}
	if kind != kindContext {
		d.ShellLines = docShellLines(data)
	}
	fm, found, msg := splitFrontMatter(data)
	if !found || kind == kindContext {
		return true
	}
	var m frontMatter
	if msg == "" {
		m, msg = parseFrontMatter(fm)
		if msg != "" && !strict && slices.Equal(d.Hosts, []Host{HostClaude}) {
			m, msg = claudeFrontMatter(b, d.Path, fm, msg)
		}
	}
	if msg != "" {
		b.Report.Skipf(d.Path, "document.front-matter", "%s", msg)
		return false
	}
	if n, ok := m.vals["description"]; ok {
		if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
			b.Report.Skipf(d.Path+": description", "document.front-matter", "description must be a string")
			return false
		}
		d.Description = strings.TrimRight(n.Value, " \t\r\n")
		checkText(b, d.Path+": description", d.Description, true)
	}
	if kind == kindAgent {
		if n, ok := m.vals["name"]; ok && n.Kind == yaml.ScalarNode && n.Value != "" && !strict {
			if checkComponentName(b, d.Path+": name", "agent", n.Value) {
				// Claude Code names an agent in a subdirectory of its
				// location by the subdirectories and then the front
				// matter's name: agents/sub/x.md with "name: dn" is
				// sub:dn (internal/agenttest TestClaudeNestedAgentNames).
				prefix := ""
				if i := strings.LastIndex(d.Name, ":"); i >= 0 && slices.Contains(d.Hosts, HostClaude) {
					prefix = d.Name[:i+1]
				}
				d.Name = prefix + n.Value
			} else {
				return false
			}
		}
	}
	if !strict {
		for _, k := range m.keys {
			if _, restriction := restrictionKeys(normalizeKey(k), kind == kindAgent); !hostDocFields()[k] && !restriction {
				b.Report.Warnf(d.Path+": "+EscapePath(k), "document.unknown-field", "front matter key %s is not one bundlectl knows; it is reviewed as written", Quote(k))
			}
		}
	}
	claudeAgent := kind == kindAgent && !strict && slices.Equal(d.Hosts, []Host{HostClaude})
	var ignored frontMatter
	if claudeAgent {
		m, ignored = splitClaudeAgentIgnored(b, d.Path, m)
	}
	if kind == kindCommand && !strict && slices.Equal(d.Hosts, []Host{HostClaude}) && !IsSkillFileName(path.Base(d.Path)) {
		m, ignored = splitClaudeCommandHooks(b, d.Path, m)
	}
	g, ok := readGrantsAs(b, d.Path, m, kind.String()+":"+d.Name, claudeAgent)
	for _, k := range ignored.keys {
		// Reviewed and hashed as written, as ignored: never a grant.
		if v, err := yamlToJSON(ignored.vals[k]); err == nil {
			other(&g.Ignored, k, v)
		}
	}
	if kind == kindAgent {
		// The review shows the tools memory brings as tools the agent
		// has: Write and Edit are not in "tools: Read", yet it has them.
		addMemoryTools(&g, m)
	}
	if _, listed := m.vals["tools"]; listed && kind == kindAgent && slices.Equal(d.Hosts, []Host{HostClaude}) {
		// An empty tools list is no tools to Claude Code, not every tool:
		// the review says so. Other hosts' readings of it are not known,
		// so there the review keeps showing every tool.
		g.NoTools = len(ClaudeAgentToolNames(g.Tools)) == 0
	}
	d.Grants = g
	return ok
}

// claudePluginAgentIgnored are the front-matter keys (folded) Claude Code
// (2.1.332) drops from a plugin agent, logging that each "is ignored for
// plugin agents" (internal/agenttest TestClaudePluginAgentIgnoredFields):
// the agent runs in the session's permission mode, without these hooks or
// servers, with no initial prompt and observing nothing.
var claudePluginAgentIgnored = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"permissionmode": true, "permission-mode": true,
		"hooks":      true,
		"mcpservers": true, "mcp-servers": true,
		"initialprompt": true, "initial-prompt": true,
		"observer":        true,
		"observermessage": true, "observer-message": true,
		"observesubagents": true, "observe-subagents": true,
	}
})

// splitClaudeAgentIgnored takes out of a Claude Code plugin agent's front
// matter the keys Claude Code ignores for plugin agents, each with a
// warning, so that the review never shows them as grants.
func splitClaudeAgentIgnored(b *Bundle, rel string, m frontMatter) (kept, ignored frontMatter) {
	kept.vals, ignored.vals = map[string]*yaml.Node{}, map[string]*yaml.Node{}
	for _, k := range m.keys {
		to := &kept
		if claudePluginAgentIgnored()[normalizeKey(k)] {
			to = &ignored
			b.Report.Warnf(rel+": "+EscapePath(k), "document.ignored-field", "Claude Code ignores %s in a plugin agent's front matter (it would take effect only in .claude/agents/): not a grant, reviewed as written", Quote(k))
		}
		to.keys = append(to.keys, k)
		to.vals[k] = m.vals[k]
	}
	return kept, ignored
}

// splitClaudeCommandHooks takes a Claude Code plugin command's front-matter
// hooks out as ignored, with a warning: Claude Code (2.1.332) loads the
// command but never runs the hooks its front matter declares, as it does a
// skill's (internal/agenttest TestClaudeSkillHookPluginVars).
func splitClaudeCommandHooks(b *Bundle, rel string, m frontMatter) (kept, ignored frontMatter) {
	kept.vals, ignored.vals = map[string]*yaml.Node{}, map[string]*yaml.Node{}
	for _, k := range m.keys {
		to := &kept
		if normalizeKey(k) == "hooks" {
			to = &ignored
			b.Report.Warnf(rel+": "+EscapePath(k), "document.ignored-field", "Claude Code does not run a plugin command's front-matter hooks (only a skill's, in skills/<name>/SKILL.md): not hooks, reviewed as written, and bundlectl exec writes the command without them")
		}
		to.keys = append(to.keys, k)
		to.vals[k] = m.vals[k]
	}
	return kept, ignored
}

// claudeAgentTools reads a Claude Code agent's tools value as Claude Code
// does: a string, or the strings of a list; an item that is not a string
// is dropped, and a value that is neither (a number, a boolean, a mapping)
// names no tool (internal/agenttest TestClaudeAgentToolsNonString).
// dropped reports whether anything was not read.
func claudeAgentTools(n *yaml.Node) (tools []string, dropped bool) {
	str := func(c *yaml.Node) bool { return c.Kind == yaml.ScalarNode && c.Tag == "!!str" }
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return nil, false
	case str(n):
		if n.Value == "" {
			return nil, false
		}
		return []string{n.Value}, false
	case n.Kind == yaml.SequenceNode:
		for _, c := range n.Content {
			if str(c) {
				tools = append(tools, c.Value)
			} else {
				dropped = true
			}
		}
		return tools, dropped
	}
	return nil, true
}

// readGrants records every front-matter key that gives the agent
// authority while the component is in use; hooks it declares join the
// bundle's hooks, scoped to the component.
func readGrants(b *Bundle, rel string, m frontMatter, scope string) (Grants, bool) {
	return readGrantsAs(b, rel, m, scope, false)
}

// readGrantsAs is readGrants; claudeAgent reads a Claude Code plugin
// agent's tools as Claude Code does (claudeAgentTools).
func readGrantsAs(b *Bundle, rel string, m frontMatter, scope string, claudeAgent bool) (Grants, bool) {
	var g Grants
	ok := true
	list := func(k string) []string {
		n := m.vals[k]
		switch n.Kind {
		case yaml.ScalarNode:
			if n.Tag == "!!null" || n.Value == "" {
				return nil
			}
			return []string{n.Value}
		case yaml.SequenceNode:
			var out []string
			for _, c := range n.Content {
				if c.Kind != yaml.ScalarNode {
					b.Report.Skipf(rel+": "+EscapePath(k), "document.field-type", "%s must be a string or a list of strings", k)
					ok = false
					return nil
				}
				out = append(out, c.Value)
			}
			return out
		}
		b.Report.Skipf(rel+": "+EscapePath(k), "document.field-type", "%s must be a string or a list of strings", k)
		ok = false
		return nil
	}
	// Keys that differ only in case or "_" for "-" would each be read as
	// the same grant here, the last one winning, while a host may read
	// just one spelling of them (Claude Code reads "allowed-tools" alone):
	// the review could show what the host does not grant. Two such keys
	// skip the document.
	seen := map[string]string{}
	for _, k := range m.keys {
		nk, grant := grantKeys()[normalizeKey(k)]
		if !grant {
			continue
		}
		if prev, dup := seen[nk]; dup {
			rule := "document.front-matter"
			if strings.HasPrefix(scope, "skill:") {
				rule = "skill.front-matter"
			}
			b.Report.Skipf(rel+": "+EscapePath(k), rule, "front matter keys %s and %s name the same setting, and hosts differ in which spelling they read: keep one", Quote(prev), Quote(k))
			ok = false
		}
		seen[nk] = k
	}
	agent := strings.HasPrefix(scope, "agent:")
	for _, k := range m.keys {
		n := m.vals[k]
		nk := normalizeKey(k)
		if want, ok := restrictionKeys(nk, agent); ok && !slices.Contains(want, k) {
			// A restriction read under a spelling the host ignores
			// would show the component narrower than it runs:
			// "Tools: Read" leaves a Claude Code agent every tool.
			rule := "document.unknown-field"
			if strings.HasPrefix(scope, "skill:") {
				rule = "skill.unknown-field"
			}
			kind := strings.SplitN(scope, ":", 2)[0]
			if len(want) == 0 {
				b.Report.Warnf(rel+": "+EscapePath(k), rule, "front matter key %s restricts nothing: the host reads it on agents only, so the %s has every tool this key seems to take away; it is reviewed as written (take tools away with %s)", Quote(k), kind, Quote("disallowed-tools"))
			} else {
				b.Report.Warnf(rel+": "+EscapePath(k), rule, "front matter key %s restricts nothing: the host reads only %s here, so the %s has every tool this key seems to take away; it is reviewed as written (rename it to %s)", Quote(k), quoteKeys(want), kind, Quote(want[0]))
			}
			if v, err := yamlToJSON(n); err == nil {
				other(&g.Other, k, v)
			}
			continue
		}
		switch nk {
		case "allowed-tools":
			g.AllowedTools = list(k)
		case "disallowed-tools", "disallowedtools":
			g.DisallowedTools = list(k)
		case "tools":
			if !claudeAgent {
				g.Tools = list(k)
				break
			}
			var dropped bool
			g.Tools, dropped = claudeAgentTools(n)
			if dropped {
				b.Report.Warnf(rel+": "+EscapePath(k), "document.ignored-field", "%s holds a value that is not a string; Claude Code drops it (a tools value that is no string or list names no tool): the agent has the tools shown", k)
			}
		case "skills":
			g.Skills = list(k)
		case "model":
			if n.Kind == yaml.ScalarNode {
				g.Model = n.Value
			}
		case "permissionmode", "permission-mode":
			if n.Kind == yaml.ScalarNode {
				g.PermissionMode = n.Value
			}
		case "mcpservers", "mcp-servers":
			if n.Kind == yaml.SequenceNode && allScalars(n) {
				g.MCPServers = list(k)
			} else if v, err := yamlToJSON(n); err == nil {
				other(&g.Other, k, v)
			}
		case "hooks":
			v, err := yamlToJSON(n)
			if err != nil {
				b.Report.Skipf(rel+": hooks", "hook.shape", "hooks cannot be read: %v", err)
				ok = false
				continue
			}
			// Front-matter hooks are an event map: read as Claude Code
			// reads an inline hooks object.
			hr := hostReader{b: b, host: HostClaude, file: rel}
			before := len(b.Components.Hooks)
			hr.readClaudeInlineHooks(v, rel+": hooks", scope)
			if strings.HasPrefix(scope, "skill:") {
				added := b.Components.Hooks[before:]
				others := make([]map[string]json.RawMessage, len(added))
				for i, h := range added {
					others[i] = h.Other
				}
				if why := claudeHookFieldTypeFault(v); why != "" {
					// Claude Code (2.1.332) runs none of the skill's
					// hooks (the skill still loads), and nothing in the
					// review would tell the runtime so: they are left out
					// (internal/agenttest TestClaudeSkillHookFieldType).
					for _, h := range added {
						b.Report.Skipf(h.Source, "hook.schema", "Claude Code does not run this hook: %s, so Claude Code rejects the skill's front-matter hooks and runs none of them; make \"timeout\" a number of seconds, \"async\" true or false and \"onFailure\" \"continue\" or \"block\", or remove them", why)
					}
					b.Components.Hooks = b.Components.Hooks[:before]
				} else if why := ClaudeSkillHooksRejected(others); why != "" {
					for _, h := range added {
						b.Report.Warnf(h.Source, "hook.shell", "Claude Code does not run this hook: %s; neither bundlectl hooks exec nor bundlectl exec runs them (set \"shell\" to \"bash\" or remove it)", why)
					}
				}
			}
		default:
			if descriptiveFields()[k] {
				continue
			}
			if v, err := yamlToJSON(n); err == nil {
				other(&g.Other, k, v)
			}
		}
		for _, s := range g.AllowedTools {
			checkText(b, rel+": allowed-tools", s, false)
		}
	}
	return g, ok
}

// restrictionKeys returns, for a folded key that takes authority away
// (tools, disallowed tools), the exact spellings Claude Code (2.1.332)
// reads: an agent's "tools" and "disallowedTools"; a skill's or
// command's "disallowed-tools" or "disallowedTools", and no "tools" at
// all (none for want: internal/agenttest TestClaudeCommandToolsIgnored).
// Grants are read under every spelling (showing more than the host grants
// is safe); a restriction only under these, since any other leaves the
// component every tool the review would show it without.
func restrictionKeys(nk string, agent bool) (want []string, restriction bool) {
	switch {
	case nk == "tools" && agent:
		return []string{"tools"}, true
	case nk == "tools":
		return nil, true
	case nk != "disallowed-tools" && nk != "disallowedtools":
		return nil, false
	case agent:
		return []string{"disallowedTools"}, true
	}
	return []string{"disallowed-tools", "disallowedTools"}, true
}

func quoteKeys(ks []string) string {
	q := make([]string, len(ks))
	for i, k := range ks {
		q[i] = Quote(k)
	}
	return strings.Join(q, " or ")
}

// grantKeys maps each folded front-matter key readGrants reads as a
// grant to the setting it names.
var grantKeys = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"allowed-tools": "allowed-tools", "disallowed-tools": "disallowed-tools", "disallowedtools": "disallowed-tools",
		"tools": "tools", "skills": "skills", "model": "model",
		"permissionmode": "permission-mode", "permission-mode": "permission-mode",
		"mcpservers": "mcp-servers", "mcp-servers": "mcp-servers", "hooks": "hooks",
	}
})

// normalizeKey folds a front-matter key: case, and "_" written for "-"
// ("allowed_tools" is read as "allowed-tools"), so that every spelling a
// host might accept is read as a grant.
func normalizeKey(k string) string { return strings.ToLower(strings.ReplaceAll(k, "_", "-")) }

func allScalars(n *yaml.Node) bool {
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode {
			return false
		}
	}
	return true
}

// yamlToJSON converts a front-matter value to the JSON reader's value,
// keeping mapping order. Front matter has no aliases (parseFrontMatter
// refuses them), so the conversion is a plain recursion.
func yamlToJSON(n *yaml.Node) (*jsonValue, error) {
	return yamlToJSONDepth(n, 0)
}

func yamlToJSONDepth(n *yaml.Node, depth int) (*jsonValue, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("nesting is too deep")
	}
	switch n.Kind {
	case yaml.MappingNode:
		v := &jsonValue{kind: jsonObject, obj: map[string]*jsonValue{}}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if _, dup := v.obj[k]; dup {
				return nil, fmt.Errorf("key %s occurs more than once", Quote(k))
			}
			c, err := yamlToJSONDepth(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			v.keys = append(v.keys, k)
			v.obj[k] = c
		}
		return v, nil
	case yaml.SequenceNode:
		v := &jsonValue{kind: jsonArray}
		for _, c := range n.Content {
			e, err := yamlToJSONDepth(c, depth+1)
			if err != nil {
				return nil, err
			}
			v.arr = append(v.arr, e)
		}
		return v, nil
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return &jsonValue{kind: jsonNull}, nil
		case "!!bool":
			return &jsonValue{kind: jsonBool, b: n.Value == "true" || n.Value == "True" || n.Value == "TRUE"}, nil
		case "!!int", "!!float":
			if json.Valid([]byte(n.Value)) {
				return &jsonValue{kind: jsonNumber, str: n.Value}, nil
			}
		}
		return &jsonValue{kind: jsonString, str: n.Value}, nil
	}
	return nil, fmt.Errorf("unsupported YAML node")
}

// fencedShell is Claude Code's fenced shell block: "```!", optional
// blanks, the body up to the next "```".
var fencedShell = lazyRegexp("(?s)```!\\s*\\n?(.*?)\\n?```")

// shellLines returns the shell commands Claude Code runs when a Markdown
// command or skill is invoked, read as Claude Code reads them (2.1.x):
//   - a fenced block opened by "```!" runs its whole body;
//   - when the text holds "!`", an inline "!`cmd`" runs cmd, where the "!"
//     starts a line or follows white space and cmd runs to the next
//     backtick, line breaks included. Every other inline code span
//     ("`…`" on one line, not right after "!" or "`") is blanked first,
//     so a "!`" inside one runs nothing.
//
// A "!`" elsewhere (after a letter, say) runs nothing, and a backtick it
// would seem to open can close, or open, another: reading each "!`" up to
// the next backtick would show a command that does not run and hide the
// one that does.
func shellLines(data []byte) []string {
	s := string(data)
	var out []string
	add := func(cmd string) {
		if cmd = strings.TrimFunc(strings.ReplaceAll(cmd, "\r\n", "\n"), jsspace.Is); cmd != "" {
			out = append(out, cmd)
		}
	}
	for _, m := range fencedShell().FindAllStringSubmatch(s, -1) {
		add(m[1])
	}
	if strings.Contains(s, "!`") {
		t := blankCodeSpans(s)
		for i := 0; i+1 < len(t); i++ {
			if t[i] != '!' || t[i+1] != '`' {
				continue
			}
			if r, _ := utf8.DecodeLastRuneInString(t[:i]); i > 0 && !jsspace.Is(r) {
				continue
			}
			j := strings.IndexByte(t[i+2:], '`')
			if j < 1 {
				continue // no closing backtick, or nothing between
			}
			add(t[i+2 : i+2+j])
			i += 2 + j
		}
	}
	return slices.Compact(out)
}

// docShellLines returns every shell command Claude Code may run when the
// command or skill in data is invoked: shellLines of the text as written,
// of its body as Claude Code splits off the front matter (its end is the
// first "---" anywhere, mid-line too), and of both with the argument
// placeholders ($ARGUMENTS, $ARGUMENTS[N], $N) filled with nothing, as a
// bare invocation fills them before the shell lines are found. A line
// that only one reading yields is still shown: showing a line that does
// not run costs a second look, hiding one that does is the failure.
func docShellLines(data []byte) []string {
	s := string(data)
	body := claudeBody(s)
	var out []string
	seen := map[string]bool{}
	for _, t := range []string{s, body, argsEmptied().ReplaceAllString(s, ""), argsEmptied().ReplaceAllString(body, "")} {
		for _, l := range shellLines([]byte(t)) {
			if !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	return out
}

// argsEmptied matches the argument placeholders Claude Code fills in a
// command before it looks for shell lines.
var argsEmptied = lazyRegexp(`\$ARGUMENTS(\[[0-9]+\])?|\$[0-9]+`)

// claudeBody is s without its front matter as Claude Code splits it:
// "---", white space holding a line feed, then everything up to the next
// "---" wherever it stands, then white space.
func claudeBody(s string) string {
	if !strings.HasPrefix(s, "---") {
		return s
	}
	rest := s[3:]
	ws := len(rest) - len(strings.TrimLeftFunc(rest, jsspace.Is))
	nl := strings.LastIndexByte(rest[:ws], '\n')
	if nl < 0 {
		return s
	}
	rest = rest[nl+1:]
	end := strings.Index(rest, "---")
	if end < 0 {
		return s
	}
	return strings.TrimLeftFunc(rest[end+3:], jsspace.Is)
}

// blankCodeSpans is s with the text of every inline code span blanked, as
// Claude Code does before it looks for "!`": spans are "`", one or more
// characters other than a backtick or a line break, "`", taken leftmost
// first; one right after "!" or "`" is kept as written.
func blankCodeSpans(s string) string {
	t := []byte(s)
	for i := 0; i < len(s); i++ {
		if s[i] != '`' {
			continue
		}
		j := strings.IndexAny(s[i+1:], "`\n")
		if j < 1 || s[i+1+j] != '`' {
			continue // no span opens here; the scan goes on from the next byte
		}
		end := i + 1 + j
		if i == 0 || s[i-1] != '!' && s[i-1] != '`' {
			for k := i + 1; k < end; k++ {
				t[k] = ' '
			}
		}
		i = end
	}
	return string(t)
}

// geminiShellLines returns the shell commands Gemini CLI runs when a TOML
// command is invoked, read as its injection parser reads them: each "!{"
// opens an injection that runs to the brace that balances it (no escapes);
// the search goes on after it. An injection left open makes Gemini CLI
// refuse the command, so nothing after it is read.
func geminiShellLines(prompt string) []string {
	var out []string
	for i := 0; ; {
		k := strings.Index(prompt[i:], "!{")
		if k < 0 {
			break
		}
		start := i + k + 2
		depth, end := 1, -1
		for j := start; j < len(prompt) && end < 0; j++ {
			switch prompt[j] {
			case '{':
				depth++
			case '}':
				if depth--; depth == 0 {
					end = j
				}
			}
		}
		if end < 0 {
			break
		}
		if cmd := strings.TrimFunc(prompt[start:end], jsspace.Is); cmd != "" {
			out = append(out, cmd)
		}
		i = end + 1
	}
	return slices.Compact(out)
}

// parseGeminiCommand reads a Gemini CLI commands/**/*.toml file: prompt
// (required) and description, by their exact keys, as Gemini CLI's schema
// reads them. (A Go struct would also take "Prompt" or "PROMPT" for
// prompt, the last one written winning: a file with prompt = "!{…}" and
// then Prompt = "hi" would show "hi" while Gemini CLI runs the shell line.)
func parseGeminiCommand(b *Bundle, rel, dir string, data []byte) (Document, bool) {
	d := Document{Name: docName(rel, dir, kindGeminiCommand), Path: rel}
	if !checkComponentName(b, rel, "command", d.Name) {
		return d, false
	}
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		b.Report.Skipf(rel, "command.toml", "not valid TOML: %s", tomlErrorPosition(err))
		return d, false
	}
	for _, k := range sortedKeys(doc) {
		if k != "prompt" && k != "description" && (strings.EqualFold(k, "prompt") || strings.EqualFold(k, "description")) {
			b.Report.Warnf(rel+": "+k, "command.toml", "Gemini CLI reads the key %s only as written (lower case) and ignores %s; remove it", Quote(strings.ToLower(k)), Quote(k))
		}
	}
	pv, ok := doc["prompt"]
	if !ok {
		b.Report.Skipf(rel+": prompt", "command.toml", "required field prompt is missing")
		return d, false
	}
	prompt, ok := pv.(string)
	if !ok {
		b.Report.Skipf(rel+": prompt", "command.toml", "prompt must be a string; Gemini CLI skips the command")
		return d, false
	}
	if dv, ok := doc["description"]; ok {
		if d.Description, ok = dv.(string); !ok {
			b.Report.Skipf(rel+": description", "command.toml", "description must be a string; Gemini CLI skips the command")
			return d, false
		}
	}
	checkText(b, rel+": description", d.Description, true)
	d.ShellLines = geminiShellLines(prompt)
	if strings.Contains(prompt, "@{") {
		// Gemini CLI injects the files first, then runs the shell
		// injections of the whole prompt, the injected text included.
		b.Report.Warnf(rel+": prompt", "command.toml", "the prompt injects file content (@{…}); Gemini CLI then runs any !{…} shell injection that content holds, which this review cannot show when the file is not in the bundle (a workspace file)")
	}
	return d, true
}

// tomlErrorPosition keeps the position of a TOML error and drops the text,
// which can quote the document.
func tomlErrorPosition(err error) string {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return fmt.Sprintf("line %d, column %d", row, col)
	}
	return "syntax error"
}

// claudeFrontMatter reads the front matter of a Claude Code document that
// failed to parse (msg says why) as Claude Code reads it a second time
// (claudefm.go). It returns what that reading found, with a warning, or
// the reason to skip the document, which says what Claude Code does.
func claudeFrontMatter(b *Bundle, rel string, fm []byte, msg string) (frontMatter, string) {
	q, ok := ClaudeLenientFrontMatter(fm)
	if !ok {
		return frontMatter{}, msg + "; Claude Code may still load the file, reading its front matter with values quoted or as none at all, and bundlectl cannot tell which"
	}
	m, msg2 := parseFrontMatter(q)
	if msg2 != "" {
		return frontMatter{}, msg + "; Claude Code then reads it with values quoted, which fails too, and loads the file with no front matter at all (an agent so loaded has every tool of the session and its model); bundlectl leaves it out"
	}
	b.Report.Warnf(rel, "document.front-matter-quoted", "%s; read as Claude Code reads it, with each value that holds \": \" or one of {}[]*&#!|>%%@` quoted: quote those values so that every reader agrees", msg)
	return m, ""
}

// claudeHookFieldTypeFault says why Claude Code's hooks schema rejects a
// front-matter hooks value for a field's type: a hook whose "timeout" is
// no number or whose "async" is no boolean; "" when none has one.
func claudeHookFieldTypeFault(v *jsonValue) string {
	switch v.kind {
	case jsonArray:
		for _, e := range v.arr {
			if why := claudeHookFieldTypeFault(e); why != "" {
				return why
			}
		}
	case jsonObject:
		_, isHook := v.obj["command"]
		if _, ok := v.obj["type"]; ok || isHook {
			if t, ok := v.obj["timeout"]; ok && t.kind != jsonNumber {
				return "a hook of the same skill has a \"timeout\" that is not a number"
			}
			if a, ok := v.obj["async"]; ok && a.kind != jsonBool {
				return "a hook of the same skill has an \"async\" that is not true or false"
			}
			if of, ok := v.obj["onFailure"]; ok && !claudeOnFailureValid(of) {
				// Tried with "sometimes" (internal/agenttest
				// TestClaudeSkillHookFieldType).
				return "a hook of the same skill has an \"onFailure\" that is not \"continue\" or \"block\""
			}
		}
		for _, k := range v.keys {
			if why := claudeHookFieldTypeFault(v.obj[k]); why != "" {
				return why
			}
		}
	}
	return ""
}
