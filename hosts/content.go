package hosts

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/inventory"
)

// HostTimeout is the timeout a view gives the host for a hook that
// re-enters bundlectl: the hook's own (or bundlectl's default) plus a
// margin for bundlectl's checks, so that bundlectl, which enforces the
// reviewed timeout itself, is never killed first.
func HostTimeout(h inventory.Hook) int {
	sec := h.TimeoutSec
	if sec <= 0 {
		sec = int(harness.DefaultHookTimeout.Seconds())
	}
	return sec + 30
}

// MCPStartMargin is what GeminiMCPTimeoutMs adds to a server's reviewed
// timeout, in seconds, for `bundlectl mcp`'s own work before the server
// starts (the receipt and the snapshot are checked; on a first start the
// snapshot is hashed).
const MCPStartMargin = 10

// ClaudeMCPTimeoutMs is the "timeout" (milliseconds) of a Claude Code
// entry that starts s through `bundlectl mcp`: the reviewed timeout as is.
// Claude Code (2.1.332) reads it as its wait for each tool call, not for
// the start (internal/agenttest TestClaudeMCPTimeoutPerCall), and the
// proxy ends each call at the same timeout (harness.MCPCallTimeoutOf),
// so whichever fires first the call ends at the reviewed timeout. False
// when the review gives none: Claude Code's default (MCP_TOOL_TIMEOUT)
// applies, and the proxy times nothing.
func ClaudeMCPTimeoutMs(s inventory.MCPServer) (int, bool) {
	if s.TimeoutSec <= 0 {
		return 0, false
	}
	return s.TimeoutSec * 1000, true
}

// GeminiMCPTimeoutMs is the "timeout" (milliseconds) of a Gemini CLI
// entry that starts s through `bundlectl mcp`. Gemini CLI (0.61) reads it
// as its wait for the server to start and for each call (its mcp-client:
// connect and callTool both take serverConfig.timeout, else 600000 ms):
// the reviewed timeout plus MCPStartMargin, so that bundlectl's checks
// before the start do not eat into the server's time. The margin does
// not lengthen a call: the proxy ends each call at the reviewed timeout
// itself (harness.MCPCallTimeoutOf). False when the review gives none.
func GeminiMCPTimeoutMs(s inventory.MCPServer) (int, bool) {
	if s.TimeoutSec <= 0 {
		return 0, false
	}
	return (s.TimeoutSec + MCPStartMargin) * 1000, true
}

// CopySkill copies a skill's directory (the directory of its SKILL.md)
// from the snapshot to dst ("skills/<name>"), and applies rewrite to its
// SKILL.md (nil keeps it as is).
func (b *Bundle) CopySkill(v *View, d inventory.Doc, dst string, rewrite func([]byte) ([]byte, error)) error {
	if b.Snapshot == "" || !b.frontMatterAgrees(d) {
		return nil
	}
	dir := path.Dir(d.Path)
	if dir == "." || path.Base(d.Path) != "SKILL.md" {
		// A skill at the bundle's root (or a lone file): its file alone.
		if err := v.CopyFile(b.Snapshot, d.Path, dst+"/SKILL.md"); err != nil {
			return err
		}
	} else if err := v.CopyDir(b.Snapshot, dir, dst); err != nil {
		return err
	}
	return b.rewriteFile(v, dst+"/SKILL.md", rewrite)
}

// CopySkillCommand copies a skill-mode command (a directory of a commands
// location holding a SKILL.md, which Claude Code takes as one command
// with that directory as its base) from the snapshot to dst, the
// directory the command's name makes ("commands/<name>"), keeping the
// file's own name; rewrite applies to that file. Copied to a plain
// "<name>.md" instead, it would be a plain command, which Claude Code
// loads without its hooks and allowed tools, and without its files.
func (b *Bundle) CopySkillCommand(v *View, d inventory.Doc, dst string, rewrite func([]byte) ([]byte, error)) error {
	if b.Snapshot == "" || !b.frontMatterAgrees(d) {
		return nil
	}
	if err := v.CopyDir(b.Snapshot, path.Dir(d.Path), dst); err != nil {
		return err
	}
	return b.rewriteFile(v, dst+"/"+path.Base(d.Path), rewrite)
}

// IsSkillFile reports whether p names a skill's file as Claude Code
// matches it in a commands location: SKILL.md in any ASCII case.
func IsSkillFile(p string) bool { return bundle.IsSkillFileName(path.Base(p)) }

// CopyDoc copies one document file to dst, applying rewrite (nil keeps it).
func (b *Bundle) CopyDoc(v *View, d inventory.Doc, dst string, rewrite func([]byte) ([]byte, error)) error {
	if b.Snapshot == "" || !b.frontMatterAgrees(d) {
		return nil
	}
	if err := v.CopyFile(b.Snapshot, d.Path, dst); err != nil {
		return err
	}
	return b.rewriteFile(v, dst, rewrite)
}

// frontMatterAgrees reports whether the host reads the front matter of
// the Markdown document d as the review did (FrontMatterAgrees); when it
// does not, the document is left out with a note.
func (b *Bundle) frontMatterAgrees(d inventory.Doc) bool {
	if !strings.HasSuffix(d.Path, ".md") {
		return true
	}
	data, _, err := readSnapshotFile(b.Snapshot, d.Path)
	if err != nil || FrontMatterAgrees(data) {
		return true // a file that cannot be read fails the copy, which says why
	}
	b.Note("%s is not loaded: %s would read its front matter differently from the review (white space after the opening \"---\" that is not a line end, or a \"---\" inside a value); fix the file, then review and trust the bundle again", bundle.Quote(d.Path), b.host)
	return false
}

func (b *Bundle) rewriteFile(v *View, rel string, rewrite func([]byte) ([]byte, error)) error {
	if rewrite == nil {
		return nil
	}
	data, ok := v.File(rel)
	if !ok {
		return nil
	}
	out, err := rewrite(data)
	if err != nil {
		return fmt.Errorf("%s: %w", bundle.Quote(rel), err)
	}
	f := v.files[rel]
	return v.Add(rel, out, f.exec)
}

// DocFile turns a document's host name into a file path under dir:
// "git:commit" becomes dir/git/commit.md. It refuses a name that is not
// a clean path once split.
func DocFile(dir, name string) (string, error) {
	rel := dir + "/" + strings.ReplaceAll(name, ":", "/") + ".md"
	if _, err := cleanRel(rel); err != nil || strings.Contains(name, "/") {
		return "", fmt.Errorf("name %s cannot be a file name", bundle.Quote(name))
	}
	return rel, nil
}

// NoteOutOfReach records, for the host named by b, the parts of the bundle
// no host view can carry through bundlectl: monitors, executables on the
// agent's PATH, shell lines a command or skill runs, and tools when the
// host has no way to call them.
func (b *Bundle) NoteOutOfReach(tools bool) {
	for _, m := range b.Inventory.Monitors {
		if b.For(m.Hosts) {
			b.Note("its monitor %s is not loaded: bundlectl has no way yet to run a host's monitor from the snapshot", bundle.Quote(m.Name))
		}
	}
	for _, kind := range []string{"skill", "command", "agent"} {
		for _, d := range b.Docs(kind) {
			if len(d.ShellLines) > 0 {
				b.Note("its %s %s runs %d reviewed shell line(s) through %s's own shell when invoked, not through bundlectl", kind, bundle.Quote(d.Name), len(d.ShellLines), b.host)
			}
		}
	}
	if tools {
		for _, t := range b.Tools() {
			b.Note("its tool %s is not offered to %s (call it with: bundlectl run %s %s)", bundle.Quote(t.Name), b.host, bundle.ShellArg(b.Name), bundle.ShellArg(t.Name))
		}
	}
}

// ExpandsLiteral reports whether a host that expands "$" references in a
// remote server's URL and headers would change text that the review showed
// as literal: a server of bundlectl's own formats (no host) whose URL or a
// header value holds "$". Such a server is not given to the host.
func ExpandsLiteral(s inventory.MCPServer) bool {
	if len(s.Hosts) > 0 {
		return false // a host format's own text, expanded as reviewed
	}
	if strings.Contains(s.URL, "$") {
		return true
	}
	for _, v := range s.Headers {
		if strings.Contains(v, "$") {
			return true
		}
	}
	return false
}

// RemoteHeaders returns a remote MCP server's headers in the form hosts
// that expand ${VAR} in header values take: the literal headers as
// reviewed, a bearer token read from its host variable, and headers read
// from host variables.
func RemoteHeaders(s inventory.MCPServer) map[string]string {
	h := map[string]string{}
	for k, v := range s.Headers {
		h[k] = v
	}
	if s.BearerTokenEnvVar != "" {
		h["Authorization"] = "Bearer ${" + s.BearerTokenEnvVar + "}"
	}
	for k, v := range s.EnvHeaders {
		h[k] = "${" + v + "}"
	}
	if len(h) == 0 {
		return nil
	}
	return h
}

// OptionRef is one reference to a user option in a host format's text:
// s[Start:End] names the option Key, with the default the reference
// itself spells, if any (Gemini CLI's ${VAR:-default}).
type OptionRef struct {
	Start, End int
	Key        string
	Default    string
	HasDefault bool
}

// OptionSyntax is how a host reads option references in a remote MCP
// server's URL and headers.
type OptionSyntax struct {
	// Host names the host in notes ("Claude Code").
	Host string
	// Refs finds the option references in one string.
	Refs func(string) []OptionRef
	// Expansions lists, in order and as written, the references the host
	// resolves from its environment in s: it expands the text it reads
	// once bundlectl put a value in, so a value must add none, neither on
	// its own nor joined with the text around it (a value ending in "$"
	// before a host's "{VAR}" or a word).
	Expansions func(string) []string
}

// OptionExpandsError says the value of an option a remote MCP server sends
// holds text the host would expand again. It names the option, never the
// value.
type OptionExpandsError struct {
	Bundle, Server, Key, Host string
}

func (e *OptionExpandsError) Error() string {
	return fmt.Sprintf("its MCP server %s is not loaded: the value of its option %s holds a \"$\" reference %s would replace with a variable of its environment (set a value without one with: bundlectl configure %s)",
		bundle.Quote(e.Server), bundle.Quote(e.Key), e.Host, bundle.Operands(e.Bundle, e.Key))
}

// OptionUnsetError says a remote MCP server sends an option that holds no
// value. It names the option, never a value.
type OptionUnsetError struct {
	Bundle, Server, Key string
}

func (e *OptionUnsetError) Error() string {
	return fmt.Sprintf("its MCP server %s is not loaded: it sends the option %s, which holds no value (set it with: bundlectl configure %s)",
		bundle.Quote(e.Server), bundle.Quote(e.Key), bundle.Operands(e.Bundle, e.Key))
}

// RemoteServer puts into a remote MCP server's URL and header values
// (the fields the review showed them in) the values of the user options
// they reference, as syn finds the references. The host
// would look those values up in its own store or environment, which
// bundlectl configure never writes: Claude Code sent the reference as
// literal text and Gemini CLI an empty value. Only options the bundle's
// own manifest declares for this host are filled, with the configured
// value, else the default the review showed, else the default the
// reference spells. An option with none of them, required or not, is an
// *OptionUnsetError: the server must not be given to the host, which
// would send an empty or literal credential (bundlectl cannot tell a
// credential from other text, and Gemini CLI asks for every setting).
// A value the host would expand again (one that adds to syn.Expansions,
// alone or with the text around it) is an *OptionExpandsError: what the
// host sent would not be the value, and could be a variable of the
// agent's environment the review never listed.
// Any other reference is left as written.
//
// RemoteServer returns the server's URL and headers (RemoteHeaders) so
// filled; when a value was put in it marks v as holding values
// (View.HoldValues: built for the session only). On an error it notes the
// server as not loaded and returns ok false.
func (b *Bundle) RemoteServer(v *View, s inventory.MCPServer, syn OptionSyntax) (url string, headers map[string]string, ok bool) {
	url, headers, filled, err := b.remoteOptions(s, s.URL, RemoteHeaders(s), syn)
	if err != nil {
		b.Note("%v", err)
		return "", nil, false
	}
	if filled {
		v.HoldValues()
	}
	return url, headers, true
}

func (b *Bundle) remoteOptions(s inventory.MCPServer, url string, headers map[string]string, syn OptionSyntax) (outURL string, outHeaders map[string]string, filled bool, err error) {
	declared := map[string]bool{}
	for _, o := range b.Inventory.UserConfig {
		if b.Own(o.Hosts) {
			declared[o.Key] = true
		}
	}
	fill := func(text string) (string, error) {
		rs := syn.Refs(text)
		if len(rs) == 0 {
			return text, nil
		}
		var out strings.Builder
		last := 0
		for _, r := range rs {
			if !declared[r.Key] {
				continue
			}
			v, set := b.Options[r.Key]
			if !set {
				if !r.HasDefault {
					return "", &OptionUnsetError{Bundle: b.Name, Server: s.Name, Key: r.Key}
				}
				v = r.Default
			}
			// What is already filled, this value, then the rest as
			// written; against an inert byte in the value's place.
			prefix, rest := out.String()+text[last:r.Start], text[r.End:]
			if !slices.Equal(syn.Expansions(prefix+v+rest), syn.Expansions(prefix+"\x00"+rest)) {
				return "", &OptionExpandsError{Bundle: b.Name, Server: s.Name, Key: r.Key, Host: syn.Host}
			}
			out.WriteString(text[last:r.Start])
			out.WriteString(v)
			last = r.End
			filled = true
		}
		out.WriteString(text[last:])
		return out.String(), nil
	}
	if outURL, err = fill(url); err != nil {
		return "", nil, false, err
	}
	if headers != nil {
		outHeaders = make(map[string]string, len(headers))
	}
	for k, v := range headers {
		if outHeaders[k], err = fill(v); err != nil {
			return "", nil, false, err
		}
	}
	return outURL, outHeaders, filled, nil
}
