package review

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bundlectl/bundlectl/bundle"
)

// RenderOptions control the human form of a review.
type RenderOptions struct {
	// Color enables ANSI colour for headings and warnings. The CLI sets it
	// only when stdout is a terminal. Bundle text is escaped either way.
	Color bool
	// Width is the column width to wrap running text at; 0 means 80.
	Width int
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
	title := "Review of bundle " + bundle.Quote(b.Name)
	if b.Meta.DisplayName != "" {
		title += " (" + bundle.Sanitize(b.Meta.DisplayName) + ")"
	}
	r.line("%s", r.color(ansiBold, title))
	r.field("  ", "id", bundle.EscapePath(b.ID))
	r.field("  ", "scope", string(b.Scope))
	r.field("  ", "path", bundle.Quote(b.Dir))
	r.field("  ", "version", orNone(b.Meta.Version, bundle.Quote))
	format := string(b.Format)
	if format == "" {
		format = "(no manifest could be read)"
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

	if !b.Rejected() {
		r.components(b)
		r.permissions(b)
		r.inactive(b)
	}
	r.findings("Errors", rv.Errors, bundle.Error)
	r.findings("Skipped components", rv.Errors, bundle.Skip)
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
	if cmd := rv.TrustCommand(); cmd != "" {
		r.line("To trust exactly this content and these capabilities, run:")
		r.line("  %s", cmd)
		r.line("Trusting does not enable the bundle; run %s afterwards.", "bundlectl enable "+b.Name)
		return
	}
	r.line("%s", r.color(ansiRed, "This bundle cannot be trusted:"))
	for _, why := range rv.Refusals {
		r.wrapItem("  - ", "    ", why)
	}
}

// wrapItem wraps already-safe text (our own messages with quoted values)
// behind a bullet.
func (r *renderer) wrapItem(first, rest, text string) {
	words := strings.Fields(text)
	line := first
	start := len(first)
	for _, w := range words {
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

func orNone(s string, f func(string) string) string {
	if s == "" {
		return "(none)"
	}
	return f(s)
}

func (r *renderer) components(b *bundle.Bundle) {
	c := b.Components
	if len(c.Tools)+len(c.Hooks) > 0 || hasStdio(c.MCP) {
		r.heading(r.color(ansiYellow, "Runs with your authority"))
		r.wrapItem("  ", "  ", ("Local tools, hooks and stdio MCP servers run as you: they can read, change and send anything you can, with your files, credentials and network. Check every command below."))
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

	if len(c.Hooks) > 0 {
		r.heading(fmt.Sprintf("Hooks (%d), in the order they run", len(c.Hooks)))
		for i, h := range c.Hooks {
			m := "matcher: all"
			if h.Matcher != "" && h.Matcher != "*" {
				m = "matcher " + bundle.Quote(h.Matcher) + " (regexp, whole tool name)"
			}
			r.line("  %d. on %s, %s", i+1, bundle.Quote(h.Event), m)
			r.argv("     ", h.Command, h.Args)
			r.field("     ", "cwd", "the workspace")
			r.field("     ", "timeout", timeout(h.TimeoutSec, 60))
		}
	}

	if len(c.MCP) > 0 || c.MCPDisabled {
		r.heading(fmt.Sprintf("MCP servers (%d)", len(c.MCP)))
		if c.MCPDisabled {
			r.line("  mcp.json is invalid: MCP is disabled for this bundle (see the errors)")
		}
		for _, s := range sortedBy(c.MCP, func(s bundle.MCPServer) string { return s.Name }) {
			r.mcp(s)
		}
	}

	docs := func(title string, ds []bundle.Document) {
		if len(ds) == 0 {
			return
		}
		r.heading(fmt.Sprintf("%s (%d)", title, len(ds)))
		for _, d := range sortedBy(ds, func(d bundle.Document) string { return d.Name }) {
			r.line("  %s  %s", bundle.EscapePath(d.Name), bundle.EscapePath(d.Path))
			if d.Description != "" {
				r.wrap("      ", d.Description)
			}
		}
	}
	if len(c.Skills) > 0 {
		r.heading(fmt.Sprintf("Skills (%d): instructions the model reads", len(c.Skills)))
		for _, s := range sortedBy(c.Skills, func(s bundle.Skill) string { return s.Name }) {
			r.line("  %s  %s", bundle.EscapePath(s.Name), bundle.EscapePath(s.Path))
			if s.Description != "" {
				r.wrap("      ", s.Description)
			}
			if s.AllowedTools != "" {
				r.line("      allowed tools: %s", bundle.Quote(s.AllowedTools))
			}
		}
	}
	docs("Commands", c.Commands)
	docs("Agents", c.Agents)
	if len(c.Skills)+len(c.Commands)+len(c.Agents)+len(c.Tools)+len(c.Hooks)+len(c.MCP) == 0 {
		r.heading("Components")
		r.line("  (none)")
	}
}

func hasStdio(ss []bundle.MCPServer) bool {
	for _, s := range ss {
		if !s.Remote() {
			return true
		}
	}
	return false
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

// bareNote says where a bare command comes from: the executable is found
// on PATH when the process starts, and is not part of the reviewed bundle.
func (r *renderer) bareNote(indent, command string) {
	if !strings.HasPrefix(command, "./") {
		r.line("%s%-10s %s", indent, "", "(bare: found on PATH at start, not part of the bundle)")
	}
}

func (r *renderer) mcp(s bundle.MCPServer) {
	r.line("  %s (%s)", bundle.EscapePath(s.Name), bundle.EscapePath(s.Transport))
	const in = "    "
	if !s.Remote() {
		r.argv(in, s.Command, s.Args)
		cwd := "the bundle's snapshot root (default)"
		if s.Cwd != "" {
			cwd = jsonString(s.Cwd)
		}
		r.field(in, "cwd", cwd)
	} else {
		u, err := NormalizeURL(s.URL)
		if err != nil {
			u = "(invalid URL)"
		}
		r.field(in, "endpoint", bundle.EscapePath(u))
	}
	r.env(in, s)
	if s.Remote() {
		r.headers(in, s)
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
	if s.TimeoutSec != 0 {
		r.field(in, "timeout", fmt.Sprintf("%d s", s.TimeoutSec))
	}
}

// env lists every variable the server gets beyond the allowlist, and where
// its value comes from. Host values are never shown, only their names.
func (r *renderer) env(in string, s bundle.MCPServer) {
	type kv struct{ k, v string }
	var rows []kv
	for _, k := range sortedKeys(s.Env) {
		rows = append(rows, kv{bundle.EscapePath(k), "= " + jsonString(s.Env[k]) + " (literal)"})
	}
	for _, k := range sortedKeys(s.EnvFrom) {
		rows = append(rows, kv{bundle.EscapePath(k), "<- host variable " + bundle.Quote(s.EnvFrom[k]) + " (env_from)"})
	}
	if len(rows) == 0 {
		if !s.Remote() {
			r.field(in, "env", "only the allowlist, PLUGIN_ROOT and PLUGIN_DATA")
		}
		return
	}
	for i, row := range rows {
		label := "env"
		if i > 0 {
			label = ""
		}
		r.field(in, label, row.k+" "+row.v)
	}
	if len(s.EnvFrom) > 0 {
		r.field(in, "", "(host values are copied at start and never shown)")
	}
}

func (r *renderer) headers(in string, s bundle.MCPServer) {
	var rows []string
	for _, k := range sortedKeys(s.Headers) {
		rows = append(rows, bundle.EscapePath(k)+": "+jsonString(s.Headers[k])+" (literal)")
	}
	if s.BearerTokenEnvVar != "" {
		rows = append(rows, "Authorization: Bearer <- host variable "+bundle.Quote(s.BearerTokenEnvVar))
	}
	for _, k := range sortedKeys(s.EnvHeaders) {
		rows = append(rows, bundle.EscapePath(k)+": <- host variable "+bundle.Quote(s.EnvHeaders[k]))
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
	r.line("  network hosts       %s", hosts)
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
	for _, f := range sel {
		p := f.Path
		if p == "" {
			p = "."
		}
		r.wrapItem("  - ", "    ", bundle.Sanitize(p)+": "+bundle.Sanitize(f.Message)+" ["+bundle.Sanitize(f.Rule)+"]")
	}
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
