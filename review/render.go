package review

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/inventory"
)

// RenderOptions control the human form of a review.
type RenderOptions struct {
	// Color enables ANSI colour for headings and warnings. The CLI sets it
	// only when stdout is a terminal. Bundle text is escaped either way.
	Color bool
	// Width is the column width to wrap running text at; 0 means 80.
	Width int
	// Command, when set, rewrites every bundlectl command the review
	// prints (the CLI adds the --home and --workspace it was given, so the
	// printed command works as printed).
	Command func(string) string
	// Subject is what a review command names to review this bundle again
	// (its name, or the directory of an ad-hoc review); "" means the
	// bundle's name. A value cut short points at the review that shows it
	// whole.
	Subject string
	// Stored names the options that already hold a value (never the
	// value): the review says so, since that value reaches the bundle's
	// processes once it is trusted.
	Stored map[string]bool
	// Enabled says the bundle is enabled already (its enabled bit is
	// kept across trust and revoke): trusting is the last step, and the
	// review does not send the user to enable it.
	Enabled bool
}

// Render writes the human form of a review. Every string that comes from
// the bundle goes through bundle.Quote, bundle.Sanitize, EscapePath or
// jsonString, so nothing in the bundle can reach the terminal raw. Lines
// fit the width except unbreakable values (one argv element, a path, a
// URL, a hash, the trust command).
func Render(w io.Writer, rv *Review, opts RenderOptions) error {
	if opts.Width <= 0 {
		opts.Width = 80
	}
	if opts.Subject == "" {
		opts.Subject = rv.Bundle.Name
	}
	r := &renderer{opts: opts}
	r.review(rv)
	_, err := w.Write(r.buf.Bytes())
	if err != nil {
		return fmt.Errorf("%w: %v", errRender, err)
	}
	return nil
}

type renderer struct {
	opts RenderOptions
	buf  bytes.Buffer
}

const (
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiReset  = "\x1b[0m"
)

func (r *renderer) color(code, s string) string {
	if !r.opts.Color {
		return s
	}
	return code + s + ansiReset
}

func (r *renderer) line(format string, args ...any) {
	fmt.Fprintf(&r.buf, format, args...)
	r.buf.WriteByte('\n')
}

func (r *renderer) heading(s string) {
	r.buf.WriteByte('\n')
	r.line("%s", r.color(ansiBold, s))
}

// field writes "  label  value" with labels padded to one column.
func (r *renderer) field(indent, label, value string) {
	r.line("%s%-10s %s", indent, label, value)
}

// wrap writes sanitized running text wrapped to the width.
func (r *renderer) wrap(indent, text string) {
	words := strings.Fields(bundle.Sanitize(text))
	line := indent
	for _, w := range words {
		if len(line) > len(indent) && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > r.opts.Width {
			r.line("%s", line)
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += w
	}
	if len(line) > len(indent) {
		r.line("%s", line)
	}
}

func (r *renderer) review(rv *Review) {
	b := rv.Bundle
	if rv.Diff != nil && !rv.Diff.Empty() {
		r.diff(b.Name, rv.Diff) // what changed comes first (review/diff.go)
	}
	title := "Review of bundle " + bundle.Quote(b.Name)
	if b.Meta.DisplayName != "" {
		title += " (" + bundle.Sanitize(b.Meta.DisplayName) + ")"
	}
	r.line("%s", r.color(ansiBold, title))
	r.field("  ", "id", bundle.EscapePath(b.ID))
	r.field("  ", "scope", string(b.Scope))
	r.field("  ", "path", bundle.Quote(b.Dir))
	r.field("  ", "version", orNone(b.Meta.Version, bundle.Quote))
	format := "(no manifest could be read)"
	if b.Format != "" {
		format = string(b.Format)
	}
	if len(b.Formats) > 0 {
		var fs []string
		for _, f := range b.Formats {
			fs = append(fs, string(f))
		}
		format = strings.Join(fs, ", ")
	}
	r.field("  ", "format", format)
	if b.Meta.SchemaVersion != 0 {
		r.field("  ", "schema", strconv.Itoa(b.Meta.SchemaVersion))
	}
	if b.ShadowedBy != "" {
		r.field("  ", "shadowed", "by "+bundle.Quote(b.ShadowedBy))
	}
	if b.Meta.Description != "" {
		r.buf.WriteByte('\n')
		r.wrap("  ", b.Meta.Description)
	}

	for _, n := range b.Notes {
		r.wrapItem("  note: ", "        ", bundle.Sanitize(n))
	}
	r.findings("Will not load", rv.Errors, bundle.Skip)
	if !b.Rejected() {
		r.components(b, rv.Inv)
		r.permissions(b)
		r.inactive(b)
	}
	r.findings("Errors", rv.Errors, bundle.Error)
	r.findings("Warnings", rv.Warnings, bundle.Warning)
	if len(b.Ignored) > 0 {
		r.heading("Ignored fields (reported, given no meaning)")
		for _, f := range b.Ignored {
			r.line("  %s", bundle.EscapePath(f))
		}
	}

	r.heading("Hashes")
	if rv.ContentHash.IsZero() {
		r.line("  not computed: the bundle is invalid")
	} else {
		r.field("  ", "content", rv.ContentHash.String())
		r.field("  ", "capability", rv.CapabilityHash.String())
	}

	r.buf.WriteByte('\n')
	cmdOf := func(c string) string {
		if r.opts.Command != nil {
			return r.opts.Command(c)
		}
		return c
	}
	if cmd := rv.TrustCommand(); cmd != "" {
		r.line("To trust exactly this content and these capabilities, run:")
		r.line("  %s", cmdOf(cmd))
		if r.opts.Enabled {
			r.line("The bundle is enabled already: once trusted, this content runs, with no enable.")
		} else {
			r.line("Trusting does not enable the bundle; run %s afterwards.", cmdOf("bundlectl enable "+bundle.ShellArg(b.Name)))
		}
		return
	}
	r.line("%s", r.color(ansiRed, "This bundle cannot be trusted:"))
	for _, why := range rv.Refusals {
		// A command a refusal names is printed whole, with the
		// caller's flags, so that it works pasted.
		r.wrapItem("  - ", "    ", bundle.CommandsIn(bundle.Sanitize(why), keepWhole(r.opts.Command)))
	}
}

// wrapItem wraps already-safe text (our own messages with quoted values)
// behind a bullet.
func (r *renderer) wrapItem(first, rest, text string) {
	words := strings.Fields(text)
	line := first
	start := len(first)
	for _, w := range words {
		// A command kept whole (keepWhole) is one word, and one line.
		w = strings.ReplaceAll(w, keepSpace, " ")
		if len(line) > start && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > r.opts.Width {
			r.line("%s", line)
			line, start = rest, len(rest)
		}
		if len(line) > start {
			line += " "
		}
		line += w
	}
	if len(line) > start {
		r.line("%s", line)
	}
}

// keepSpace stands for a space wrapItem does not break a line at: a
// command split over two lines does not work when pasted. Text is
// sanitized before, so a control character in it is escaped, never this.
const keepSpace = "\x00"

// keepWhole is cmd, printing a command that wrapItem keeps on one line.
func keepWhole(cmd func(string) string) func(string) string {
	return func(c string) string {
		if cmd != nil {
			c = cmd(c)
		}
		return strings.ReplaceAll(c, " ", keepSpace)
	}
}

func orNone(s string, f func(string) string) string {
	if s == "" {
		return "(none)"
	}
	return f(s)
}

func (r *renderer) components(b *bundle.Bundle, inv *inventory.Inventory) {
	c := b.Components
	if inv == nil {
		inv = inventory.Of(b)
	}
	if runsProcesses(inv) {
		r.heading(r.color(ansiYellow, "Runs with your authority"))
		r.wrapItem("  ", "  ", "Hooks, tools, stdio MCP and LSP servers, monitors and the shell lines of commands run as you: they can read, change and send anything you can, with your files, credentials and network. Check every command below.")
	}

	if len(inv.Hooks) > 0 {
		r.heading(fmt.Sprintf("Hooks (%d), in the order they run", len(inv.Hooks)))
		for i, h := range inv.Hooks {
			m := matcherText(h)
			r.line("  %d. on %s, %s  [hook %s]%s", i+1, bundle.Quote(h.Event), m, h.ID, hostSuffix(h.Hosts))
			const in = "     "
			switch h.Type {
			case bundle.HookCommand:
				if h.Shell {
					r.field(in, "shell", jsonString(h.Command))
					r.field(in, "", "(run as "+hookShellText(h.Hosts)+" with exactly this string; the event arrives on stdin)")
				} else {
					r.argv(in, h.Command, h.Args)
				}
				r.envRows(in, h.Env, nil)
				r.field(in, "cwd", "the workspace")
				r.field(in, "timeout", hookTimeout(h))
			case bundle.HookHTTP:
				r.field(in, "POSTs to", jsonString(h.URL))
				if at := hookPostedURL(h.URL); at != "" {
					r.wrapItem(in+fmt.Sprintf("%-10s ", "posted at"), in+strings.Repeat(" ", 11), postedURLRow(at))
				}
				if name := bundle.HookAddressAtRun(h.URL); name != "" {
					r.wrapItem(in+fmt.Sprintf("%-10s ", "address"), in+strings.Repeat(" ", 11), addressAtRunRow(name, slices.Contains(h.Hosts, string(bundle.HostClaude))))
				}
				r.headerRows(in, h.Headers, nil, "")
				if len(h.AllowedEnvVars) > 0 {
					r.field(in, "", "headers may read host variables "+quoteList(h.AllowedEnvVars))
				}
			case bundle.HookMCPTool:
				r.field(in, "type", "mcp_tool (the host calls a tool of an MCP server with the event; bundlectl runs nothing itself)")
				other := make(map[string]json.RawMessage, len(h.Other))
				for k, v := range h.Other {
					other[k] = v
				}
				for _, k := range []string{"server", "tool", "input"} {
					if v, ok := other[k]; ok {
						r.field(in, k, r.truncated(jsonSanitize(string(v))))
						delete(other, k)
					}
				}
				r.field(in, "timeout", hookTimeout(h))
				r.other(in, withoutHostTimeout(other))
			default:
				r.field(in, "type", h.Type+" (evaluated by the host's model, not run by bundlectl)")
				r.field(in, "prompt", r.truncated(h.Prompt))
				if h.Model != "" {
					r.field(in, "model", bundle.Quote(h.Model))
				}
			}
			if bundle.GeminiSequential(h.Other) {
				r.field(in, "sequential", geminiSequentialText)
			}
			if h.Type != bundle.HookMCPTool {
				r.other(in, withoutHostTimeout(withoutSequential(h.Other)))
			}
			if h.Scope != "" {
				r.field(in, "active", "only while "+bundle.Sanitize(strings.Replace(h.Scope, ":", " ", 1))+" is in use")
			}
			if h.Async {
				r.field(in, "async", "runs in the background; it cannot block")
			}
			r.hostVars(in, h.HostVariables)
		}
	}

	if len(c.Tools) > 0 {
		r.heading(fmt.Sprintf("Tools (%d)", len(c.Tools)))
		for _, t := range sortedBy(c.Tools, func(t bundle.Tool) string { return t.Name }) {
			r.line("  %s", bundle.EscapePath(t.Name))
			if t.Description != "" {
				r.wrap("      ", t.Description)
			}
			r.argv("    ", t.Command, t.Args)
			r.field("    ", "cwd", "the workspace")
			r.field("    ", "timeout", timeout(t.TimeoutSec, 30))
			r.field("    ", "input", "JSON on stdin, checked against this schema:")
			if len(t.Params) > 0 {
				r.line("      %s", jsonSanitize(string(t.Params)))
			} else {
				r.line("      (none: any JSON input)")
			}
		}
	}

	if len(inv.MCPServers) > 0 || c.MCPDisabled {
		r.heading(fmt.Sprintf("MCP servers (%d)", len(inv.MCPServers)))
		if c.MCPDisabled {
			r.line("  an MCP configuration file is invalid: its servers are disabled (see the errors)")
		}
		for _, s := range inv.MCPServers {
			r.mcp(s)
		}
	}

	if len(inv.LSPServers) > 0 {
		r.heading(fmt.Sprintf("LSP servers (%d), started through bundlectl", len(inv.LSPServers)))
		for _, l := range inv.LSPServers {
			r.line("  %s (%s)%s", bundle.EscapePath(l.Name), orDefault(l.Transport, "stdio"), hostSuffix(l.Hosts))
			r.argv("    ", l.Command, l.Args)
			r.envRows("    ", l.Env, nil)
			if len(l.Languages) > 0 {
				var ls []string
				for _, k := range sortedKeys(l.Languages) {
					if k == l.Languages[k] {
						ls = append(ls, bundle.Quote(k))
					} else {
						ls = append(ls, bundle.Quote(k)+" → "+bundle.Quote(l.Languages[k]))
					}
				}
				r.field("    ", "languages", strings.Join(ls, ", "))
			}
			r.other("    ", l.Other)
			r.hostVars("    ", l.HostVariables)
		}
	}

	if len(inv.Monitors) > 0 {
		r.heading(fmt.Sprintf("Monitors (%d): shell commands the host keeps running", len(inv.Monitors)))
		for _, m := range inv.Monitors {
			r.line("  %s%s", bundle.EscapePath(m.Name), hostSuffix(m.Hosts))
			r.field("    ", "shell", jsonString(m.Command))
			r.other("    ", m.Other)
			r.hostVars("    ", m.HostVariables)
		}
	}

	descs := map[string]string{}
	for _, s := range c.Skills {
		descs[s.Path] = s.Description
	}
	for _, ds := range [][]bundle.Document{c.Commands, c.Agents, c.OutputStyles, c.Contexts} {
		for _, d := range ds {
			descs[d.Path] = d.Description
		}
	}
	docs := func(title string, ds []inventory.Doc, agents bool) {
		if len(ds) == 0 {
			return
		}
		r.heading(fmt.Sprintf("%s (%d)", title, len(ds)))
		for _, d := range ds {
			r.line("  %s  %s%s", bundle.EscapePath(d.Name), bundle.EscapePath(d.Path), hostSuffix(d.Hosts))
			if desc := descs[d.Path]; desc != "" {
				r.wrapTruncated("      ", desc)
			}
			r.grants("      ", d.Grants, agents)
			for _, l := range d.ShellLines {
				r.field("      ", "runs", jsonString(l)+" (shell, when invoked)")
			}
		}
	}
	docs("Skills: instructions the model reads", inv.Skills, false)
	docs("Commands", inv.Commands, false)
	docs("Agents", inv.Agents, true)
	docs("Output styles", inv.OutputStyles, false)
	docs("Context files: added to the model's context", inv.Contexts, false)

	if len(inv.Apps) > 0 {
		r.heading(fmt.Sprintf("Apps (%d): connectors the host makes available", len(inv.Apps)))
		for _, a := range inv.Apps {
			r.line("  %s%s  %s", bundle.EscapePath(a.Name), hostSuffix(a.Hosts), jsonSanitize(string(a.Spec)))
		}
	}
	if len(inv.Policies) > 0 {
		r.heading(fmt.Sprintf("Policies (%d): rules that allow, deny or ask for tool calls", len(inv.Policies)))
		for _, p := range inv.Policies {
			r.line("  %s%s", bundle.EscapePath(p.Path), hostSuffix(p.Hosts))
			r.line("      %s", r.truncated(jsonSanitize(string(p.Rules))))
		}
	}
	if len(inv.ExcludeTools) > 0 {
		r.heading("Host tools it removes")
		r.line("  %s", quoteList(inv.ExcludeTools))
	}
	if len(inv.UserConfig) > 0 {
		r.heading(fmt.Sprintf("Options you supply (%d): values are stored outside the bundle", len(inv.UserConfig)))
		for _, o := range inv.UserConfig {
			kind := orDefault(o.Type, "string")
			if o.Sensitive {
				kind += ", sensitive (never shown)"
			}
			if o.Required {
				kind += ", required"
			}
			if o.Multiple {
				kind += ", a list of strings"
			}
			// The bounds Claude Code's config dialog holds a value to,
			// and bundlectl configure too.
			if o.Min != nil && o.Type == "number" {
				kind += ", at least " + strconv.FormatFloat(*o.Min, 'g', -1, 64)
			}
			if o.Max != nil && o.Type == "number" {
				kind += ", at most " + strconv.FormatFloat(*o.Max, 'g', -1, 64)
			}
			if o.Options != nil {
				var cs []string
				for _, c := range o.Options {
					cs = append(cs, bundle.Quote(c))
				}
				kind += ", one of " + r.truncated(strings.Join(cs, ", "))
			}
			if len(o.Hosts) > 0 {
				// EnvSpec.Build: a host plugin's processes get every
				// configured option, sensitive ones too, as Claude Code's do.
				kind += ", given to each of its processes as " + bundle.Quote("CLAUDE_PLUGIN_OPTION_"+strings.ToUpper(o.Key))
			}
			if o.EnvVar != "" {
				kind += ", exported to its processes as " + bundle.Quote(o.EnvVar)
			}
			if len(o.Default) > 0 {
				kind += ", default " + r.truncated(jsonSanitize(string(o.Default)))
			}
			if r.opts.Stored[o.Key] {
				kind += "; a value is already stored for it (bundlectl configure sets or unsets it)"
			}
			r.line("  %s  %s%s", bundle.EscapePath(o.Key), kind, hostSuffix(o.Hosts))
		}
	}
	if len(inv.Manifest) > 0 {
		r.heading("Other manifest fields (reviewed as written)")
		for _, k := range sortedRawKeys(inv.Manifest) {
			r.line("  %s  %s", bundle.EscapePath(k), r.truncated(jsonSanitize(string(inv.Manifest[k]))))
		}
	}
	if len(inv.Executables) > 0 {
		r.heading(fmt.Sprintf("Executables it ships (%d)", len(inv.Executables)))
		r.list("  ", inv.Executables)
	}
	if len(inv.HostVariables) > 0 {
		r.heading("Host variables it reads")
		for _, v := range inv.HostVariables {
			r.line("  reads host variable %s", bundle.Quote(v))
		}
	}
	if len(inv.Skills)+len(inv.Commands)+len(inv.Agents)+len(inv.Tools)+len(inv.Hooks)+len(inv.MCPServers)+len(inv.LSPServers)+len(inv.OutputStyles)+len(inv.Contexts)+len(inv.Monitors)+len(inv.Apps)+len(inv.Policies) == 0 {
		r.heading("Components")
		r.line("  (none)")
	}
}

// runsProcesses reports whether anything of the inventory runs as a
// process on the user's machine.
func runsProcesses(inv *inventory.Inventory) bool {
	for _, h := range inv.Hooks {
		if h.Type == bundle.HookCommand {
			return true
		}
	}
	for _, s := range inv.MCPServers {
		if !s.Remote() {
			return true
		}
	}
	for _, ds := range [][]inventory.Doc{inv.Skills, inv.Commands, inv.Agents} {
		for _, d := range ds {
			if len(d.ShellLines) > 0 {
				return true
			}
		}
	}
	return len(inv.Tools)+len(inv.LSPServers)+len(inv.Monitors) > 0
}

// matcherText is how a hook's matcher selects the events it runs for.
// Where the hosts that read the hook run it whatever its matcher says
// (bundle.IgnoresMatcher: UserPromptSubmit and Stop for Claude Code and
// Codex, BeforeAgent for Gemini CLI, …) the matcher narrows nothing, and
// the review must not say it does.
func matcherText(h inventory.Hook) string {
	if h.Matcher == "" || h.Matcher == "*" {
		return "matcher: all"
	}
	hosts := []bundle.Host{""} // bundlectl's own hook
	if len(h.Hosts) > 0 {
		hosts = hosts[:0]
		for _, name := range h.Hosts {
			hosts = append(hosts, bundle.Host(name))
		}
	}
	var ignoring []string
	for _, host := range hosts {
		if bundle.IgnoresMatcher(host, h.Event) {
			ignoring = append(ignoring, bundle.HostTitle(host))
		}
	}
	m := bundle.Quote(h.Matcher)
	switch {
	case len(ignoring) == 0:
		return "matcher " + m
	case len(ignoring) < len(hosts):
		return "matcher " + m + " (" + andList(ignoring) + " ignores it on this event and runs the hook every time)"
	case len(ignoring) == 1:
		return "matcher: all (" + ignoring[0] + " ignores the matcher " + m + " on this event)"
	}
	return "matcher: all (" + andList(ignoring) + " ignore the matcher " + m + " on this event)"
}

// andList joins names as "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// hookShellText names the shell each host declaring a shell-form hook
// runs it with, as bundlectl hooks run does too (harness/hookshell.go):
// Claude Code /bin/sh -c, Codex the user's shell, Gemini CLI bash.
func hookShellText(hosts []string) string {
	var parts []string
	seen := map[string]bool{}
	for _, h := range hosts {
		s := hookShell(bundle.Host(h))
		if !seen[s] {
			seen[s] = true
			parts = append(parts, s)
		}
	}
	switch len(parts) {
	case 0:
		return "/bin/sh -c"
	case 1:
		return parts[0]
	}
	return strings.Join(parts, " or ") + ", as the host that runs it does"
}

// hookShell is the shell host runs a shell-form hook with ("": bundlectl's
// own hook).
func hookShell(host bundle.Host) string {
	switch host {
	case bundle.HostCodex:
		return "<your shell> -c (Codex: your login shell if it is bash, zsh or sh, else bash)"
	case bundle.HostGemini:
		return "bash -c (bash found in PATH)"
	}
	return "/bin/sh -c"
}

func hostSuffix(hosts []string) string {
	if len(hosts) == 0 {
		return ""
	}
	return "  (" + strings.Join(hosts, ", ") + ")"
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// maxFreeText bounds running text the review prints (descriptions, hook
// prompts, policies): a review longer than a screen truncates it and says so.
const maxFreeText = 400

func (r *renderer) truncated(s string) string {
	if utf8.RuneCountInString(s) <= maxFreeText {
		return s
	}
	rs := []rune(s)
	return string(rs[:maxFreeText]) + r.notShown(len(rs)-maxFreeText, r.opts.Command)
}

// wrapTruncated is wrap of truncated(s), the command that shows all of s
// kept on one line: split over two, it does not work when pasted.
func (r *renderer) wrapTruncated(indent, s string) {
	if utf8.RuneCountInString(s) <= maxFreeText {
		r.wrap(indent, s)
		return
	}
	rs := []rune(s)
	r.wrapItem(indent, indent, bundle.Sanitize(string(rs[:maxFreeText]))+r.notShown(len(rs)-maxFreeText, keepWhole(r.opts.Command)))
}

// notShown says that n more characters are not shown, and the command,
// printed by cmd, that shows them.
func (r *renderer) notShown(n int, cmd func(string) string) string {
	whole := "bundlectl review --json " + bundle.Operands(r.opts.Subject)
	if cmd != nil {
		whole = cmd(whole)
	}
	return fmt.Sprintf("… (%d more characters not shown; %s shows them all)", n, whole)
}

func (r *renderer) list(indent string, items []string) {
	for _, it := range items {
		r.line("%s%s", indent, bundle.EscapePath(it))
	}
}

func (r *renderer) hostVars(indent string, vars []string) {
	if len(vars) > 0 {
		r.field(indent, "reads", "host variables "+quoteList(vars))
	}
}

func (r *renderer) grants(indent string, g inventory.Grants, agent bool) {
	row := func(label string, vs []string) {
		if len(vs) > 0 {
			r.field(indent, label, quoteList(vs))
		}
	}
	row("allows", g.AllowedTools)
	row("disallows", g.DisallowedTools)
	if agent {
		r.field(indent, "tools", agentTools(g))
	} else {
		row("tools", g.Tools)
	}
	if g.Model != "" {
		r.field(indent, "model", bundle.Quote(g.Model))
	}
	if g.PermissionMode != "" {
		r.field(indent, "permission", bundle.Quote(g.PermissionMode))
	}
	row("skills", g.Skills)
	row("mcp", g.MCPServers)
	r.other(indent, g.Other)
	for _, k := range sortedRawKeys(g.Ignored) {
		r.field(indent, "ignored", bundle.EscapePath(k)+" "+r.truncated(jsonSanitize(string(g.Ignored[k])))+" (Claude Code ignores it in a plugin agent)")
	}
}

// agentTools says which tools an agent has, as Claude Code reads its tools
// list (bundle.ClaudeAgentToolNames): no key, or a "*" among the names, is
// every tool of the session, which the review says rather than leave it to
// be read from an absence or a wildcard; a key naming no tool is none.
func agentTools(g inventory.Grants) string {
	switch {
	case g.NoTools && len(g.Tools) == 0:
		return "none (the tools list is empty)"
	case g.NoTools:
		return "none (the tools list names no tool: " + quoteList(g.Tools) + ")"
	case len(g.Tools) == 0:
		return "every tool of the session (none listed)"
	case bundle.AgentToolsEvery(g.Tools):
		return "every tool of the session (\"*\" is listed: " + quoteList(g.Tools) + ")"
	}
	return quoteList(g.Tools)
}

func (r *renderer) other(indent string, m map[string]json.RawMessage) {
	for _, k := range sortedRawKeys(m) {
		r.field(indent, bundle.EscapePath(k), r.truncated(jsonSanitize(string(m[k]))))
	}
}

func sortedRawKeys(m map[string]json.RawMessage) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// withoutSequential is m without a "sequential": true the sequential row
// shows.
func withoutSequential(m map[string]json.RawMessage) map[string]json.RawMessage {
	if !bundle.GeminiSequential(m) {
		return m
	}
	out := maps.Clone(m)
	delete(out, bundle.GeminiSequentialKey)
	return out
}

// hookTimeout is a hook's timeout row: past bundlectl's limit, the host's
// own as written (kept in Other["timeout"] by the reader) beside it.
func hookTimeout(h inventory.Hook) string {
	if v, ok := h.Other["timeout"]; ok {
		unit := "s"
		if slices.Contains(h.Hosts, string(bundle.HostGemini)) {
			unit = "ms"
		}
		return fmt.Sprintf("%d s (bundlectl's limit; the host waits %s %s, as written)", h.TimeoutSec, jsonSanitize(string(v)), unit)
	}
	return timeout(h.TimeoutSec, 60)
}

// withoutHostTimeout is m without the host's timeout hookTimeout shows.
func withoutHostTimeout(m map[string]json.RawMessage) map[string]json.RawMessage {
	if _, ok := m["timeout"]; !ok {
		return m
	}
	c := maps.Clone(m)
	delete(c, "timeout")
	return c
}

func timeout(sec, def int) string {
	if sec == 0 {
		return fmt.Sprintf("%d s (default)", def)
	}
	return fmt.Sprintf("%d s", sec)
}

// argv writes command and args as JSON strings: on one line when that
// fits, else one element per line.
func (r *renderer) argv(indent, command string, args []string) {
	elems := []string{jsonString(command)}
	for _, a := range args {
		elems = append(elems, jsonString(a))
	}
	one := "[" + strings.Join(elems, ", ") + "]"
	label := fmt.Sprintf("%s%-10s ", indent, "argv")
	if utf8.RuneCountInString(label)+utf8.RuneCountInString(one) <= r.opts.Width {
		r.line("%s%s", label, one)
		r.bareNote(indent, command)
		return
	}
	r.line("%s[", label)
	for i, e := range elems {
		sep := ","
		if i == len(elems)-1 {
			sep = ""
		}
		r.line("%s  %s%s", indent, e, sep)
	}
	r.line("%s]", indent)
	r.bareNote(indent, command)
}

// bareNote says where a command comes from when it is not a file of the
// bundle: a bare name is found on PATH when the process starts, an
// absolute path is whatever is there; neither is part of the review.
func (r *renderer) bareNote(indent, command string) {
	if _, in := bundle.CommandInBundle(command); in {
		return
	}
	if strings.HasPrefix(command, "/") {
		r.line("%s%-10s %s", indent, "", "(outside the bundle: not covered by its content hash)")
		return
	}
	r.line("%s%-10s %s", indent, "", "(bare: found on PATH at start, not part of the bundle)")
}

// runTimeHosts says, for each remote MCP server whose host a variable
// decides at run time (runTimeHostList), that it reaches a host not
// listed: such a host is in no network_hosts, and "(none)" alone read as
// a bundle that contacts nothing.
func runTimeHosts(b *bundle.Bundle) []string {
	var out []string
	for _, h := range runTimeHostList(b) {
		out = append(out, "and a host decided by "+bundle.Quote(h.Variable)+" at run time (mcp server "+bundle.Quote(h.MCPServer)+h.defaultText()+h.writtenText()+")")
	}
	return out
}

// hostTitles names hosts ("Claude Code and Gemini CLI").
func hostTitles(hosts []bundle.Host) string {
	names := make([]string, len(hosts))
	for i, h := range hosts {
		names[i] = bundle.HostTitle(h)
	}
	return strings.Join(names, " and ")
}

// mcpHosts are the hosts that read s.
func mcpHosts(s inventory.MCPServer) []bundle.Host {
	hosts := make([]bundle.Host, len(s.Hosts))
	for i, h := range s.Hosts {
		hosts[i] = bundle.Host(h)
	}
	return hosts
}

func (r *renderer) mcp(s inventory.MCPServer) {
	r.line("  %s (%s)%s", bundle.EscapePath(s.Name), bundle.EscapePath(s.Transport), hostSuffix(s.Hosts))
	const in = "    "
	if !s.Remote() {
		r.argv(in, s.Command, s.Args)
		cwd := "the bundle's snapshot root (default)"
		if s.Cwd != "" {
			cwd = jsonString(s.Cwd)
		}
		r.field(in, "cwd", cwd)
		r.envRows(in, s.Env, s.EnvFrom)
	} else {
		r.field(in, "endpoint", jsonString(s.URL))
		if ref, by := bundle.MCPURLHostVar(s.URL, mcpHosts(s)); ref != "" {
			h := RunTimeHost{Variable: ref}
			h.DefaultHost, h.DefaultAddress = bundle.MCPURLHostDefault(s.URL, ref)
			r.field(in, "host", "decided by "+bundle.Quote(ref)+" at run time: "+hostTitles(by)+" expands it from its environment"+h.defaultText())
		} else if ref, by := bundle.MCPURLAuthorityVar(s.URL, mcpHosts(s)); ref != "" {
			// In the user information or port: the host written, unless
			// the value ends them early.
			h := RunTimeHost{Variable: ref, WrittenHost: bundle.MCPURLWrittenHost(s.URL)}
			what := "another host"
			if h.WrittenHost != "" {
				what = bundle.Quote(h.WrittenHost) + ", unless its value holds " + authorityChars + ", which name another host"
			}
			r.field(in, "host", what+": "+bundle.Quote(ref)+" in the user information or port is expanded by "+hostTitles(by)+" from its environment at run time")
		}
		if ref := bundle.MCPURLUserinfoVar(s.URL); ref != "" && slices.Contains(s.Hosts, string(bundle.HostGemini)) {
			r.field(in, "connects", "Gemini CLI: only when "+bundle.Quote(ref)+" is set and empty; set to a value, or unset, it is user information, and Gemini CLI connects to no url with any")
		}
		r.headerRows(in, s.Headers, s.EnvHeaders, s.BearerTokenEnvVar)
	}
	tools := "all the server offers"
	switch {
	case len(s.ToolsInclude) > 0 && len(s.ToolsExclude) > 0:
		tools = "only " + quoteList(s.ToolsInclude) + ", except " + quoteList(s.ToolsExclude)
	case len(s.ToolsInclude) > 0:
		tools = "only " + quoteList(s.ToolsInclude)
	case len(s.ToolsExclude) > 0:
		tools = "all except " + quoteList(s.ToolsExclude)
	}
	r.field(in, "tools", tools)
	if s.Trust {
		r.field(in, "trust", r.color(ansiYellow, "every tool call is confirmed without asking you (Gemini CLI \"trust\")"))
	}
	if s.TimeoutSec != 0 {
		r.field(in, "timeout", fmt.Sprintf("%d s", s.TimeoutSec))
	}
	other := s.Other
	if slices.Contains(s.Hosts, string(bundle.HostCodex)) {
		start, call := codexMCPTimeouts(s.Other)
		row := "start " + start + ", each tool call " + call
		if len(s.Hosts) > 1 {
			row = "Codex: " + row
		}
		r.field(in, "timeout", row)
		other = withoutCodexTimeouts(other)
	}
	if auth := geminiAuth(s); auth != "" {
		r.field(in, "auth", r.color(ansiYellow, auth))
	}
	r.other(in, other)
	r.hostVars(in, s.HostVariables)
}

// Codex 0.171's own MCP timeouts, which apply to a server that gives
// none (codex-rs rmcp_client.rs DEFAULT_STARTUP_TIMEOUT and
// DEFAULT_TOOL_TIMEOUT; internal/agenttest TestCodexMCPDefaultTimeouts).
const (
	codexDefaultStartSec = 30
	codexDefaultCallSec  = 300
)

// codexTimeoutFields are the timeout fields the Codex reader keeps in a
// server's Other as written, which codexMCPTimeouts shows.
var codexTimeoutFields = []string{"startup_timeout_sec", "startup_timeout_ms", "tool_timeout_sec"}

// codexMCPTimeouts is how long Codex waits for an MCP server to start
// (startup_timeout_sec, else startup_timeout_ms, as Codex reads them) and
// for each tool call (tool_timeout_sec), each as written, or Codex's
// default. A value Codex cannot use is shown as written; the review's
// warning says what Codex and bundlectl exec do with it.
func codexMCPTimeouts(other map[string]json.RawMessage) (start, call string) {
	secs := func(raw json.RawMessage) string {
		v := jsonSanitize(string(raw))
		if f, err := strconv.ParseFloat(string(raw), 64); err == nil && f >= 365.25*24*3600 {
			v += " s (about " + strconv.FormatFloat(f/(365.25*24*3600), 'g', 2, 64) + " years)"
			return v
		}
		return v + " s"
	}
	start = fmt.Sprintf("%d s (Codex's default)", codexDefaultStartSec)
	if raw, ok := other["startup_timeout_sec"]; ok {
		start = secs(raw)
	} else if raw, ok := other["startup_timeout_ms"]; ok {
		start = jsonSanitize(string(raw)) + " ms"
	}
	call = fmt.Sprintf("%d s (Codex's default)", codexDefaultCallSec)
	if raw, ok := other["tool_timeout_sec"]; ok {
		call = secs(raw)
	}
	return start, call
}

// withoutCodexTimeouts is m without the fields codexMCPTimeouts shows; a
// startup_timeout_ms beside a startup_timeout_sec, which Codex does not
// use, stays, as written.
func withoutCodexTimeouts(m map[string]json.RawMessage) map[string]json.RawMessage {
	c := maps.Clone(m)
	for _, k := range codexTimeoutFields {
		if _, sec := m["startup_timeout_sec"]; k != "startup_timeout_ms" || !sec {
			delete(c, k)
		}
	}
	return c
}

// geminiAuth says in words what a Gemini CLI remote server's
// authProviderType sends to its endpoint (shown as written below it), or
// "" when it has none Gemini CLI acts on.
func geminiAuth(s inventory.MCPServer) string {
	if !s.Remote() || !slices.Contains(s.Hosts, string(bundle.HostGemini)) {
		return ""
	}
	var provider, account string
	json.Unmarshal(s.Other["authProviderType"], &provider)
	json.Unmarshal(s.Other["targetServiceAccount"], &account)
	switch provider {
	case "google_credentials":
		return "Gemini CLI sends an access token of your Google credentials (Application Default Credentials) to this endpoint"
	case "service_account_impersonation":
		return "Gemini CLI uses your Google credentials to act as service account " + bundle.Quote(account) + " and sends its token to this endpoint"
	}
	return ""
}

// envRows lists every variable a process gets beyond the allowlist, and
// where its value comes from. Host values are never shown, only names.
func (r *renderer) envRows(in string, env, from map[string]string) {
	var rows []string
	for _, k := range sortedKeys(env) {
		rows = append(rows, bundle.EscapePath(k)+" = "+jsonString(env[k]))
	}
	for _, k := range sortedKeys(from) {
		rows = append(rows, bundle.EscapePath(k)+" <- host variable "+bundle.Quote(from[k]))
	}
	if len(rows) == 0 {
		r.field(in, "env", "only the allowlist and the plugin variables")
		return
	}
	for i, row := range rows {
		label := "env"
		if i > 0 {
			label = ""
		}
		r.field(in, label, row)
	}
}

func (r *renderer) headerRows(in string, literal, fromEnv map[string]string, bearer string) {
	var rows []string
	for _, k := range sortedKeys(literal) {
		rows = append(rows, bundle.EscapePath(k)+": "+jsonString(literal[k]))
	}
	if bearer != "" {
		rows = append(rows, "Authorization: Bearer <- host variable "+bundle.Quote(bearer))
	}
	for _, k := range sortedKeys(fromEnv) {
		rows = append(rows, bundle.EscapePath(k)+": <- host variable "+bundle.Quote(fromEnv[k]))
	}
	if len(rows) == 0 {
		r.field(in, "headers", "(none)")
		return
	}
	for i, row := range rows {
		label := "headers"
		if i > 0 {
			label = ""
		}
		r.field(in, label, row)
	}
}

func (r *renderer) permissions(b *bundle.Bundle) {
	p := b.Permissions
	r.heading("Permissions")
	hosts := "(none)"
	if len(p.NetworkHosts) > 0 {
		hs := append([]string(nil), p.NetworkHosts...)
		sort.Strings(hs)
		hosts = quoteList(hs)
	}
	if !p.NetworkDeclared && len(p.NetworkHosts) > 0 {
		hosts += " (derived from its endpoints)"
	}
	r.line("  network hosts       %s", hosts)
	for _, v := range runTimeHosts(b) {
		r.line("  %-19s %s", "", v)
	}
	// Named by the bundle, so listed; but a reviewer should not count on
	// a guard that talks to them. Each says why, as the reasons differ.
	why := bundle.NeverContactedWhy(b)
	for i, h := range p.NetworkNeverContacted {
		// Only the endpoints the bundle declares are known: a command
		// hook, stdio server or skill may still reach the host (curl).
		label := "no endpoint reaches"
		if i > 0 {
			label = ""
		}
		if why[h] == "" {
			r.line("  %-19s %s", label, bundle.Quote(h))
			continue
		}
		r.line("  %-19s %s (%s)", label, bundle.Quote(h), why[h])
	}
	roots := "(none)"
	if len(p.FilesystemRoots) > 0 {
		roots = quoteList(p.FilesystemRoots)
	}
	r.line("  filesystem roots    %s", roots)
	r.line("  lifecycle mutation  %s", map[bool]string{false: "no", true: "yes"}[p.LifecycleMutation])
	if len(b.When.OS)+len(b.When.Binaries) > 0 {
		r.heading("Applies when")
		if len(b.When.OS) > 0 {
			r.line("  os is one of        %s", quoteList(b.When.OS))
		}
		if len(b.When.Binaries) > 0 {
			r.line("  on PATH             %s", quoteList(b.When.Binaries))
		}
	}
}

func (r *renderer) inactive(b *bundle.Bundle) {
	if len(b.Inactive) == 0 {
		return
	}
	r.heading(r.color(ansiRed, fmt.Sprintf("Inactive declarations (%d): each blocks enabling", len(b.Inactive))))
	for _, d := range b.Inactive {
		name := bundle.EscapePath(d.Surface)
		if d.Name != "" {
			name += " " + bundle.Quote(d.Name)
		}
		r.line("  %s: blocks enabling", name)
		if d.Detail != "" {
			r.wrap("      ", d.Detail)
		}
		if len(d.Spec) > 0 {
			r.line("      %s", jsonSanitize(string(d.Spec)))
		}
	}
}

func (r *renderer) findings(title string, fs []bundle.Finding, sev bundle.Severity) {
	var sel []bundle.Finding
	for _, f := range fs {
		if f.Severity == sev {
			sel = append(sel, f)
		}
	}
	if len(sel) == 0 {
		return
	}
	code := ansiRed
	if sev == bundle.Warning {
		code = ansiYellow
	}
	r.heading(r.color(code, fmt.Sprintf("%s (%d)", title, len(sel))))
	if sev == bundle.Skip {
		r.line("  These components broke a rule of their own kind: they are in no inventory,")
		r.line("  never reach a host and never run. The rest of the bundle can be trusted.")
	}
	for _, f := range sel {
		p := f.Path
		if p == "" {
			p = "."
		}
		r.wrapItem("  - ", "    ", bundle.Sanitize(p)+": "+bundle.Sanitize(f.Message)+" ["+bundle.Sanitize(f.Rule)+"]")
	}
}

// sortedBy returns a copy of xs sorted by key, ties kept in input order.
func sortedBy[T any](xs []T, key func(T) string) []T {
	c := append([]T(nil), xs...)
	sort.SliceStable(c, func(i, j int) bool { return key(c[i]) < key(c[j]) })
	return c
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = bundle.Quote(s)
	}
	return strings.Join(q, ", ")
}

// jsonString returns s as a JSON string literal that is also inert on a
// terminal: besides JSON's own escapes, every control, bidirectional,
// line-separating or non-printing character is written as \uXXXX. It is
// lossless for valid UTF-8; an invalid byte becomes \ufffd (validation
// rejects such manifests).
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case unsafeRune(c):
			writeUEscape(&b, c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func writeUEscape(b *strings.Builder, c rune) {
	if c > 0xFFFF {
		c -= 0x10000
		fmt.Fprintf(b, `\u%04x\u%04x`, 0xD800+(c>>10), 0xDC00+(c&0x3FF))
		return
	}
	fmt.Fprintf(b, `\u%04x`, c)
}

// unsafeRune matches what bundle.Quote escapes.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || bundle.IsBidi(r) || !unicode.IsPrint(r) && r != ' ' ||
		r == 0x2028 || r == 0x2029 || r == utf8.RuneError
}

// jsonSanitize makes JSON text inert on a terminal without changing its
// meaning: every unsafe rune at or above DEL is written as a \u escape
// (encoding/json already escapes the ASCII controls inside strings, and
// outside strings JSON has only whitespace), and so is an ASCII control
// other than the JSON whitespace characters.
func jsonSanitize(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c == '\n' || c == '\t' || c == ' ':
			b.WriteRune(c)
		case c == '\r':
			b.WriteString(`\r`)
		case unsafeRune(c):
			writeUEscape(&b, c)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}
