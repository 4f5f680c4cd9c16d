package review

import (
	"fmt"
	"slices"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/inventory"
)

// HostNote is one thing the review says about how one host treats one
// part of the bundle: what the human review prints beside a hook, a
// server, an agent or a network host, with the host it is about. A
// harness reads them from review --json (host_notes) rather than from
// the text; docs/json.md lists every fact.
type HostNote struct {
	// Part is what the note is about: "network_host", "hook",
	// "mcp_server" or "agent".
	Part string `json:"part"`
	// Name names it: the network host (as in network_hosts), the hook's
	// id, the server's name, the agent's path.
	Name string `json:"name"`
	// Host is "claude", "codex", "gemini", or "bundlectl" for bundlectl's
	// own runtime (hooks exec, hooks run, and a bundle no host reads).
	Host string `json:"host"`
	// Fact is a stable code (NoteMatcherIgnored, …).
	Fact string `json:"fact"`
	// Text says it in words.
	Text string `json:"text"`
}

// The parts a HostNote is about.
const (
	PartNetworkHost = "network_host"
	PartHook        = "hook"
	PartMCPServer   = "mcp_server"
	PartAgent       = "agent"
)

// HostBundlectl names bundlectl's own runtime in a HostNote.
const HostBundlectl = "bundlectl"

// The facts of HostNote. A network host no endpoint reaches has one note
// per reason and host (the kinds of bundle.NeverReached, then the two
// hosts that post no http hook at all); the rest are one per host.
const (
	NoteNeverWebSocket      = "never_" + bundle.NeverWebSocket      // network_host: only ws:// or wss:// http hooks name it
	NoteNeverRefusedAddress = "never_" + bundle.NeverRefusedAddress // network_host: only http hooks to a refused IP literal name it
	NoteNeverZonedIPv6      = "never_" + bundle.NeverZonedIPv6      // network_host: only http hooks to a zoned IPv6 literal name it
	NoteNoHTTPHooks         = "no_http_hooks"                       // network_host: Codex and Gemini CLI post no http hook
	NoteMatcherIgnored      = "matcher_ignored"                     // hook: the host runs it whatever its matcher says
	NoteShell               = "shell"                               // hook: the shell a shell-form command runs with
	NoteTimeoutAsWritten    = "timeout_as_written"                  // hook: the host's own timeout, past bundlectl's limit
	NoteSequential          = "sequential"                          // hook: Gemini CLI runs the event's hooks in turn
	NoteAddressAtRun        = "address_checked_when_run"            // hook: its url's host name is resolved and checked only when it runs
	NotePostedAt            = "posted_at"                           // hook: its url as JavaScript's URL reads it, where that differs from the url as written
	NoteCodexTimeouts       = "codex_timeouts"                      // mcp_server: how long Codex waits for it
	NoteSendsCredentials    = "sends_credentials"                   // mcp_server: Gemini CLI sends a Google token to it
	NoteTrust               = "trust"                               // mcp_server: Gemini CLI confirms its tool calls without asking
	NoteIgnoredField        = "ignored_field"                       // agent: a front-matter field Claude Code ignores
)

// HostNotes lists what the review says of b about each host, in the
// order the review shows the parts: network hosts, hooks, MCP servers,
// agents. inv is b's inventory (nil: computed from b). A rejected
// bundle has none, as its review shows no component.
func HostNotes(b *bundle.Bundle, inv *inventory.Inventory) []HostNote {
	if b.Rejected() {
		return nil
	}
	if inv == nil {
		inv = inventory.Of(b)
	}
	var out []HostNote
	out = append(out, networkHostNotes(b)...)
	for _, h := range inv.Hooks {
		out = append(out, hookNotes(h)...)
	}
	for _, s := range inv.MCPServers {
		out = append(out, mcpNotes(s)...)
	}
	for _, d := range inv.Agents {
		for _, k := range sortedRawKeys(d.Grants.Ignored) {
			out = append(out, HostNote{PartAgent, d.Path, string(bundle.HostClaude), NoteIgnoredField,
				"Claude Code ignores " + bundle.Quote(k) + " in a plugin agent"})
		}
	}
	return out
}

// networkHostNotes are the reasons no endpoint reaches each of b's
// network hosts that the review marks "no endpoint reaches", one per
// host that could post to it.
func networkHostNotes(b *bundle.Bundle) []HostNote {
	reasons := bundle.NeverContactedReasons(b)
	var out []HostNote
	for _, h := range b.Permissions.NetworkNeverContacted {
		note := func(host bundle.Host, fact, text string) {
			out = append(out, HostNote{PartNetworkHost, h, hostName(host), fact, text})
		}
		for _, r := range reasons[h] {
			fact := "never_" + r.Kind
			switch r.Kind {
			case bundle.NeverWebSocket:
				note(bundle.HostClaude, fact, "Claude Code sends an http hook with a ws:// or wss:// url nothing and opens no WebSocket: the hook fails on every call")
				note("", fact, "bundlectl posts hook events over http and https only: a ws:// or wss:// hook fails on every call")
			case bundle.NeverRefusedAddress:
				note(bundle.HostClaude, fact, fmt.Sprintf("Claude Code refuses to post hook events to %s, a %s address, before connecting: the hook fails on every call", r.Addr, r.Class))
				note("", fact, fmt.Sprintf("bundlectl refuses to post hook events to %s, a %s address, before connecting, as Claude Code does", r.Addr, r.Class))
			case bundle.NeverZonedIPv6:
				note(bundle.HostClaude, fact, "JavaScript's URL refuses an IPv6 literal with a zone, so Claude Code loads no such hook")
				note("", fact, "bundlectl refuses to post hook events to an IPv6 literal with a zone")
			case bundle.NeverUnparsedMCPURL:
				note(bundle.HostClaude, fact, "Claude Code connects to a remote MCP server with JavaScript's URL, which refuses the url naming this host: it loads the server and never connects to it")
				note(bundle.HostCodex, fact, "Codex connects to a remote MCP server with Rust's url crate, which refuses the url naming this host: it loads the server and never connects to it")
				note(bundle.HostGemini, fact, "Gemini CLI connects to a remote MCP server with JavaScript's URL, which refuses the url naming this host: it loads the server and never connects to it")
				note("", fact, "bundlectl connects to no remote MCP server itself: bundlectl mcp runs stdio servers only")
			}
		}
		if slices.ContainsFunc(reasons[h], func(r bundle.NeverReached) bool { return r.Kind != bundle.NeverUnparsedMCPURL }) {
			note(bundle.HostCodex, NoteNoHTTPHooks, "Codex skips http hooks: it posts none itself")
			note(bundle.HostGemini, NoteNoHTTPHooks, "Gemini CLI runs command hooks only: it posts no http hook itself")
		}
	}
	return out
}

// hookNotes are what the review says of hook h for each host that reads
// it (bundlectl alone when none does).
func hookNotes(h inventory.Hook) []HostNote {
	var out []HostNote
	note := func(host bundle.Host, fact, text string) {
		out = append(out, HostNote{PartHook, h.ID, hostName(host), fact, text})
	}
	hosts := hookHosts(h)
	if h.Matcher != "" && h.Matcher != "*" {
		for _, host := range hosts {
			if bundle.IgnoresMatcher(host, h.Event) {
				note(host, NoteMatcherIgnored, fmt.Sprintf("%s ignores the matcher %s on %s and runs the hook every time", bundle.HostTitle(host), bundle.Quote(h.Matcher), bundle.Quote(h.Event)))
			}
		}
	}
	if h.Type == bundle.HookCommand && h.Shell {
		for _, host := range hosts {
			shell := hookShell(host)
			if host == bundle.HostCodex {
				shell = "your login shell -c if it is bash, zsh or sh, else bash -c,"
			}
			text := fmt.Sprintf("%s runs it as %s with exactly this string", bundle.HostTitle(host), shell)
			if host != "" {
				text += ", and so does bundlectl for " + bundle.HostTitle(host)
			}
			note(host, NoteShell, text)
		}
	}
	if v, ok := h.Other["timeout"]; ok {
		for _, host := range hosts {
			if host != "" {
				note(host, NoteTimeoutAsWritten, fmt.Sprintf("%s waits %s %s, as written; bundlectl stops the hook after %d s", bundle.HostTitle(host), jsonSanitize(string(v)), hostTimeoutUnit(host), h.TimeoutSec))
			}
		}
	}
	if bundle.GeminiSequential(h.Other) {
		note(bundle.HostGemini, NoteSequential, geminiSequentialText)
	}
	if h.Type == bundle.HookHTTP {
		if at := hookPostedURL(h.URL); at != "" {
			if slices.Contains(h.Hosts, string(bundle.HostClaude)) {
				note(bundle.HostClaude, NotePostedAt, postedAtText("Claude Code posts", at))
			}
			note("", NotePostedAt, postedAtText("bundlectl (hooks exec, hooks run) posts", at))
		}
		if name := bundle.HookAddressAtRun(h.URL); name != "" {
			if slices.Contains(h.Hosts, string(bundle.HostClaude)) {
				note(bundle.HostClaude, NoteAddressAtRun, addressAtRunText("Claude Code", name))
			}
			note("", NoteAddressAtRun, addressAtRunText("bundlectl (hooks exec, hooks run)", name))
		}
	}
	return out
}

// mcpNotes are what the review says of MCP server s for Codex and Gemini
// CLI.
func mcpNotes(s inventory.MCPServer) []HostNote {
	var out []HostNote
	note := func(host bundle.Host, fact, text string) {
		out = append(out, HostNote{PartMCPServer, s.Name, hostName(host), fact, text})
	}
	if slices.Contains(s.Hosts, string(bundle.HostCodex)) {
		start, call := codexMCPTimeouts(s.Other)
		note(bundle.HostCodex, NoteCodexTimeouts, "Codex waits "+start+" for it to start and "+call+" for each tool call")
	}
	if auth := geminiAuth(s); auth != "" {
		note(bundle.HostGemini, NoteSendsCredentials, auth)
	}
	if s.Trust {
		note(bundle.HostGemini, NoteTrust, "Gemini CLI confirms every tool call of this server without asking you (\"trust\")")
	}
	return out
}

// hookHosts are the hosts that read h, or bundlectl's own ("") when none
// does.
func hookHosts(h inventory.Hook) []bundle.Host {
	if len(h.Hosts) == 0 {
		return []bundle.Host{""}
	}
	hosts := make([]bundle.Host, len(h.Hosts))
	for i, name := range h.Hosts {
		hosts[i] = bundle.Host(name)
	}
	return hosts
}

func hostName(h bundle.Host) string {
	if h == "" {
		return HostBundlectl
	}
	return string(h)
}

// hostTimeoutUnit is the unit host reads a hook's "timeout" in: Gemini CLI
// milliseconds, Claude Code and Codex seconds.
func hostTimeoutUnit(host bundle.Host) string {
	if host == bundle.HostGemini {
		return "ms"
	}
	return "s"
}

const geminiSequentialText = "its group's \"sequential\": true makes Gemini CLI run all of this event's hooks in turn, each given the input as the earlier ones changed it"

// addressAtRunText says what who does with an http hook's host name, which
// review does not resolve: it stays offline and asks no resolver.
func addressAtRunText(who, name string) string {
	return fmt.Sprintf("%s resolves %s only when the hook runs, and posts nothing when any address it resolves to is private, link-local, unspecified or a cloud metadata address (loopback is allowed), unless a proxy resolves it; the review does not resolve it", who, bundle.Quote(name))
}

// hostNotesJSON is notes as review --json writes them: [] for none.
func hostNotesJSON(notes []HostNote) []HostNote {
	if notes == nil {
		return []HostNote{}
	}
	return notes
}

// addressAtRunRow is the review's row for an http hook whose url names
// host name: who resolves it, and when.
func addressAtRunRow(name string, claude bool) string {
	who := "bundlectl posts"
	if claude {
		who = "Claude Code and bundlectl post"
	}
	return bundle.Quote(name) + " is resolved when the hook runs, not by this review: " + who + " nothing when any address it resolves to is private, link-local, unspecified or a cloud metadata address (loopback is allowed), unless a proxy resolves it"
}
