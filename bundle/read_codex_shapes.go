package bundle

import (
	"encoding/json"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
)

// What Codex (0.171) itself makes of the shapes a Codex plugin is written
// in, found by trying them with the real CLI (internal/agenttest
// TestCodexHookShapes, TestCodexMCPShapes). The review never shows less
// than Codex would run from a plugin: where Codex loads a default file in
// place of a manifest field it ignores, that file is read too. Where Codex
// ignores something the review shows, a codex.ignored warning says so.

// codexIgnored is the rule of every warning that Codex ignores what the
// review shows.
const codexIgnored = "codex.ignored"

// codexPathProblem says why Codex ignores a manifest path ("" when it
// reads it): Codex reads only paths written "./…".
func codexPathProblem(p string) string {
	clean := path.Clean(p)
	switch {
	case p == "" || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.Contains(p, `\`) || clean == ".." || strings.HasPrefix(clean, "../"):
		return "" // rejected on its own (manifest.path, manifest.path-escape)
	case !strings.HasPrefix(p, "./"):
		return "Codex ignores a path that does not start with \"./\""
	case p == "./":
		return "Codex ignores the path \"./\""
	}
	return ""
}

// codexFieldIgnored says why Codex ignores a whole manifest field ("" when
// it reads the field), and whether it then falls back to its default file:
// kind is "hooks" or "mcpServers". Codex reads a hooks field written as a
// path, a list of paths, a hooks object or a list of hooks objects, and an
// mcpServers field written as a path or an object; a path it cannot read
// in a list of paths is skipped alone, without the fallback. A list that
// mixes paths and hooks objects it accepts, and loads no hook from.
func codexFieldIgnored(kind string, v *jsonValue) (why string, fallback bool) {
	switch v.kind {
	case jsonString:
		return codexPathProblem(v.str), true
	case jsonObject:
		if kind == "hooks" {
			if why := codexHooksProblem(v); why != "" {
				return "Codex does not read this hooks object: " + why, true
			}
		}
		return "", false
	case jsonArray:
		if kind != "hooks" {
			return "Codex reads mcpServers only as a path or an object, not a list", true
		}
		strs, objs := 0, 0
		for _, e := range v.arr {
			switch e.kind {
			case jsonString:
				strs++
			case jsonObject:
				if why := codexHooksProblem(e); why != "" {
					return "Codex does not read a hooks object of the list (" + why + "), and then none of the list", true
				}
				objs++
			default:
				return "Codex reads a list of paths or a list of hooks objects, nothing else", true
			}
		}
		if strs > 0 && objs > 0 {
			return "Codex loads no hook from a list that mixes paths and hooks objects", false
		}
		return "", false
	}
	return "Codex does not read a " + kind + " field that is " + v.kind.String(), true
}

// codexHookTypes are the hook types Codex parses; any other makes it drop
// the whole hooks file.
var codexHookTypes = []string{"command", "mcp_tool", "prompt", "agent"}

// codexHooksProblem says why Codex would not parse v as a hooks file or
// inline hooks object ("" when it would): Codex takes {"hooks": {Event:
// [groups]}} with at most a "description" beside it, and every hook of an
// event it fires needs a type it knows. It then loads none of the hooks.
func codexHooksProblem(v *jsonValue) string {
	if v.kind != jsonObject {
		return "it is not an object"
	}
	for _, k := range v.keys {
		switch k {
		case "hooks", "description":
		default:
			if KnownHookEvent(HostCodex, k) {
				return "an event map must sit under \"hooks\", and " + Quote(k) + " is beside it"
			}
			return "it has " + Quote(k) + " beside \"hooks\" and \"description\""
		}
	}
	if d, ok := v.obj["description"]; ok && d.kind != jsonString {
		return "its description is not a string"
	}
	h, ok := v.obj["hooks"]
	if !ok {
		return ""
	}
	if h.kind != jsonObject {
		return "its \"hooks\" is not an object"
	}
	for _, event := range h.keys {
		if !KnownHookEvent(HostCodex, event) {
			continue // Codex skips an event it does not fire, unread
		}
		groups := h.obj[event]
		if groups.kind != jsonArray {
			return "event " + Quote(event) + " is not a list"
		}
		for _, g := range groups.arr {
			if g.kind != jsonObject {
				return "a matcher group of " + Quote(event) + " is not an object"
			}
			hs, ok := g.obj["hooks"]
			if !ok {
				continue
			}
			if hs.kind != jsonArray {
				return "the hooks of a matcher group of " + Quote(event) + " are not a list"
			}
			for _, hk := range hs.arr {
				if hk.kind != jsonObject {
					return "a hook of " + Quote(event) + " is not an object"
				}
				t, ok := hk.obj["type"]
				switch {
				case !ok:
					return "a hook of " + Quote(event) + " has no type"
				case t.kind != jsonString || !slices.Contains(codexHookTypes, t.str):
					return "a hook of " + Quote(event) + " has a type other than command, mcp_tool, prompt or agent"
				case t.str == "command":
					if c, ok := hk.obj["command"]; !ok || c.kind != jsonString {
						return "a command hook of " + Quote(event) + " has no command string"
					}
				}
				// Codex reads a hook's timeout as a whole number of
				// seconds (null for none) and async as a boolean;
				// another value fails
				// its parse of the whole file (internal/agenttest
				// TestCodexHookFieldType).
				if to, ok := hk.obj["timeout"]; ok && to.kind != jsonNull && (to.kind != jsonNumber || strings.TrimLeft(to.str, "0123456789") != "") {
					return "a hook of " + Quote(event) + " has a \"timeout\" that is not a whole number of seconds"
				} else if ok && to.kind == jsonNumber {
					// Codex's timeout is a u64: a larger number fails the
					// parse of the whole file too. One above the largest
					// i64 it parses, then panics writing the hook's
					// identity as TOML, and no session starts at all
					// ("normalized hook identity should serialize to
					// TOML"; TestCodexHookFieldType).
					n, err := strconv.ParseUint(to.str, 10, 64)
					switch {
					case err != nil:
						return "a hook of " + Quote(event) + " has a \"timeout\" larger than 18446744073709551615, the largest Codex reads"
					case n > math.MaxInt64:
						return "a hook of " + Quote(event) + " has a \"timeout\" above 9223372036854775807, with which Codex 0.171 starts no session at all (it panics)"
					}
				}
				if as, ok := hk.obj["async"]; ok && as.kind != jsonBool {
					return "a hook of " + Quote(event) + " has an \"async\" that is not true or false"
				}
			}
		}
	}
	return ""
}

// codexHooksFileIgnored warns, for a hooks file or object read for Codex
// that Codex does not parse, that Codex runs none of its hooks.
func (r hostReader) codexHooksFileIgnored(v *jsonValue, path string) {
	if why := codexHooksProblem(v); why != "" {
		r.b.Report.Warnf(path, codexIgnored, "Codex loads none of these hooks: %s; it reads {\"hooks\": {Event: [...]}} with at most a description beside it, each hook with a type of command, mcp_tool, prompt or agent; bundlectl exec gives Codex the hooks reviewed here", why)
	}
}

// codexTransportOf is the transport a server's type names for Codex, ""
// for none it knows.
func codexTransportOf(typ string) string {
	switch typ {
	case "stdio":
		return TransportStdio
	case "http", "streamable-http", "streamable_http":
		return TransportStreamableHTTP
	}
	return ""
}

// codexTransport settles a plugin MCP server's transport as Codex (0.171)
// does: it drops the server's type and starts the command when there is
// one, else connects to the url over streamable HTTP. It reports whether
// the server loads.
func (r hostReader) codexTransport(s *MCPServer, typ, path string) bool {
	switch {
	case s.Command != "":
		s.Transport = TransportStdio
	case s.URL != "":
		s.Transport = TransportStreamableHTTP
	default:
		r.b.Report.Skipf(path, "mcp.server-type", "server %s has neither a command nor a url", Quote(s.Name))
		return false
	}
	if typ != "" && codexTransportOf(typ) != s.Transport {
		r.b.Report.Warnf(FieldPath(path, "type"), codexIgnored, "Codex ignores a plugin MCP server's type %s: it starts the command when there is one, else connects to the url over streamable HTTP; reviewed as %s", Quote(typ), s.Transport)
	}
	// Codex expands nothing in a server's strings; under bundlectl exec a
	// stdio server runs through bundlectl mcp, which does, and a remote
	// one is given to Codex as written.
	var refs []string
	if s.Transport == TransportStdio {
		refs = append(append(refs, s.Command, s.Cwd), s.Args...)
		for _, k := range sortedKeys(s.Env) {
			refs = append(refs, s.Env[k])
		}
	} else {
		refs = append(refs, s.URL)
		for _, k := range sortedKeys(s.Headers) {
			refs = append(refs, s.Headers[k])
		}
	}
	i := slices.IndexFunc(refs, func(v string) bool { return strings.Contains(v, "${") })
	switch {
	case i < 0:
	case s.Transport == TransportStdio:
		r.b.Report.Warnf(path, codexIgnored, "Codex passes a plugin MCP server's command, args, env and cwd as written and expands no ${…}: loaded by Codex itself, this server gets %s as written; bundlectl exec runs it through bundlectl mcp, which expands it", Quote(refs[i]))
	default:
		r.b.Report.Warnf(path, codexIgnored, "Codex sends a plugin MCP server's url and http_headers as written and expands no ${…}, nor does bundlectl exec, which gives them to Codex: the server gets %s as written, and no host variable is read for it; send a host variable with env_http_headers or bearer_token_env_var", quoteRef(refs[i], i == 0))
	}
	return true
}

// quoteRef is a server's string quoted for a finding: its url (isURL)
// without the credential secret.url refuses it for (quoteURL), as every
// finding that names a url names it: "https://u:pw@${H}/mcp" was echoed
// whole beside the secret.url error.
func quoteRef(v string, isURL bool) string {
	if isURL {
		return quoteURL(v)
	}
	return Quote(v)
}

// codexEnvVars reads Codex's env_vars: each entry a variable name, or
// {"name": …, "source": "local"|"remote"}. Codex starts no server with an
// entry it cannot read, nor, in a local session, one whose source is
// "remote".
func (r hostReader) codexEnvVars(v *jsonValue, path string) ([]string, bool) {
	if v.kind != jsonArray {
		r.typeErr(path, "an array of names or {name, source} objects", v)
		return nil, false
	}
	var names []string
	for i, e := range v.arr {
		ep := indexPath(path, i)
		switch e.kind {
		case jsonString:
			names = append(names, e.str)
			continue
		case jsonObject:
		default:
			r.typeErr(ep, "a name or a {name, source} object", e)
			return nil, false
		}
		name := ""
		for _, k := range e.keys {
			f, fp := e.obj[k], FieldPath(ep, k)
			switch {
			case k == "name" && f.kind == jsonString:
				name = f.str
			case k == "source" && f.kind == jsonString && f.str == "local":
			case k == "source" && f.kind == jsonString && f.str == "remote":
				r.b.Report.Skipf(fp, "mcp.server-field", "Codex starts no server whose env_vars entry has source \"remote\" in a local session")
				return nil, false
			case k == "name" || k == "source":
				r.b.Report.Skipf(fp, "mcp.server-field", "Codex starts no server whose env_vars entry has this %s (a name string; source \"local\" or \"remote\")", k)
				return nil, false
			default:
				r.b.Report.Skipf(fp, "mcp.server-field", "Codex reads only name and source in an env_vars entry, and starts no server with %s there", Quote(k))
				return nil, false
			}
		}
		if name == "" {
			r.b.Report.Skipf(ep, "mcp.server-field", "env_vars entry has no name")
			return nil, false
		}
		names = append(names, name)
	}
	return names, true
}

// codexTimeouts holds the timeout fields of one Codex MCP server as Codex
// reads them, in seconds; a path is empty when its field is absent or null.
type codexTimeouts struct {
	startupSec, startupMs, tool             float64
	startupSecPath, startupMsPath, toolPath string
}

// codexClockOverflowSec is the smallest timeout, in seconds, that Codex
// (0.171) cannot add to its monotonic clock (i64 seconds since boot): at
// 2^63 s less the machine's uptime it panics. 2^40 s (35,000 years) of
// uptime is room enough; f64 has no finer step there than 2^10 s.
const codexClockOverflowSec = float64(1<<63 - 1<<40)

// CodexNeverSec is the timeout, in seconds, from which a Codex MCP
// server's wait never ends in practice: about 292 years, the longest wait
// Go's time.Duration holds, past which bundlectl's MCP proxy times no call
// either (harness.MCPCallTimeoutOf). Codex 0.171 keeps any timeout it
// reads, up to its clock's overflow (codexClockOverflowSec), as written
// (internal/agenttest TestCodexMCPHugeTimeouts), so the review says so.
const CodexNeverSec = float64(math.MaxInt64) / 1e9

// codexMCPTimeout reads startup_timeout_sec, startup_timeout_ms or
// tool_timeout_sec of a Codex MCP server into t as Codex 0.171 reads them
// (codex-rs RawMcpServerConfig): the two _sec fields as f64 seconds turned
// into a Duration with try_from_secs_f64, startup_timeout_ms as a u64 of
// milliseconds, null as absent. Codex drops the server alone, its file's
// other servers loaded, when one of them is another type, negative, 2^64
// s or more (1e30, 1e400), or for startup_timeout_ms not a whole number
// in u64 (1500.5, -1) — even beside a startup_timeout_sec, which it
// prefers (internal/agenttest TestCodexMCPTimeouts). So is the server here
// (mcp.server-field): the review does not list a server Codex never
// starts, nor does bundlectl exec start it.
func (r hostReader) codexMCPTimeout(t *codexTimeouts, field string, v *jsonValue, path string) bool {
	if v.kind == jsonNull {
		return true
	}
	drop := func(why string) bool {
		r.b.Report.Skipf(path, "mcp.server-field", "Codex starts no server whose %s is %s: it drops the server (its file's other servers still load); write %s", field, why, codexTimeoutWant(field))
		return false
	}
	if v.kind != jsonNumber {
		return drop(v.kind.String())
	}
	if field == "startup_timeout_ms" {
		ms, err := strconv.ParseUint(v.str, 10, 64)
		if v.str == "-0" { // serde_json reads -0 as the integer 0
			ms, err = 0, nil
		}
		if err != nil {
			return drop(numText(v.str) + ", not a whole number of milliseconds from 0 to 2^64-1")
		}
		t.startupMs, t.startupMsPath = float64(ms)/1000, path
		return true
	}
	f, err := strconv.ParseFloat(v.str, 64)
	switch {
	case err != nil && !math.IsInf(f, 0):
		return drop(numText(v.str) + ", not a number")
	case f < 0:
		return drop(numText(v.str) + ", a negative number of seconds")
	case f >= 1<<64 || math.IsInf(f, 0):
		return drop(numText(v.str) + ", 2^64 seconds or more")
	}
	if field == "tool_timeout_sec" {
		t.tool, t.toolPath = f, path
	} else {
		t.startupSec, t.startupSecPath = f, path
	}
	return true
}

// codexTimeoutWant says what Codex reads in field.
func codexTimeoutWant(field string) string {
	if field == "startup_timeout_ms" {
		return "a whole number of milliseconds, or leave it out for Codex's default"
	}
	return "a number of seconds from 0 up to 2^64, or leave it out for Codex's default"
}

// codexMCPTimeoutWarnings warns about the timeouts Codex 0.171 reads but
// cannot use (internal/agenttest TestCodexMCPTimeouts): one under a
// nanosecond times out at once, so Codex offers none of the server's
// tools (startup: it may still start the command, which the review
// lists) or ends every call to them unanswered (tool); one it cannot add
// to its clock makes it panic — starting the server it then never ends
// the session; calling a tool the call fails. bundlectl exec and setup
// leave such a value out (CodexMCPTimeouts), so there Codex's default
// applies.
func (r hostReader) codexMCPTimeoutWarnings(t codexTimeouts) {
	startup, path, field := t.startupSec, t.startupSecPath, "startup_timeout_sec"
	if path == "" {
		startup, path, field = t.startupMs, t.startupMsPath, "startup_timeout_ms"
	}
	execNote := "bundlectl exec and setup leave this " + field + " out, so Codex's default applies there"
	switch {
	case path == "":
	case startup*1e9 < 1:
		r.b.Report.Warnf(path, codexIgnored, "Codex gives up on this server at once (its %s, %s, is under a nanosecond): it may start the command but offers none of its tools; %s", field, fmtSec(startup), execNote)
	case startup >= codexClockOverflowSec:
		r.b.Report.Warnf(path, "manifest.timeout", "Codex panics starting this server and never ends the session: %s of about 2^63 seconds or more overflows its clock; %s", field, execNote)
	case startup >= CodexNeverSec:
		r.b.Report.Warnf(path, "manifest.timeout", "Codex never gives up waiting for this server to start, in practice: its %s is %s s (%s), and Codex waits that long, so a server that never answers never has its tools offered; bundlectl exec and setup give Codex the same wait; give a number of seconds, such as 30, or leave it out for Codex's default", field, fmtSec(startup), humanSpan(startup))
	}
	execNote = "bundlectl exec and setup leave this tool_timeout_sec out, so Codex's default applies there"
	switch {
	case t.toolPath == "":
	case t.tool*1e9 < 1:
		r.b.Report.Warnf(t.toolPath, codexIgnored, "Codex ends every call to this server's tools at once, unanswered (its tool_timeout_sec, %s, is under a nanosecond); %s", fmtSec(t.tool), execNote)
	case t.tool >= codexClockOverflowSec:
		r.b.Report.Warnf(t.toolPath, "manifest.timeout", "Codex panics on every call to this server's tools, which fails: tool_timeout_sec of about 2^63 seconds or more overflows its clock; %s", execNote)
	case t.tool >= CodexNeverSec:
		r.b.Report.Warnf(t.toolPath, "manifest.timeout", "Codex never ends a call to this server's tools, in practice: its tool_timeout_sec is %s s (%s), and Codex waits that long, so a call the server never answers holds the agent's turn until it is interrupted; bundlectl exec and setup give Codex the same wait, and bundlectl's MCP proxy times no call past about 292 years; give a number of seconds, such as 300, or leave it out for Codex's default", fmtSec(t.tool), humanSpan(t.tool))
	}
}

// humanSpan says how long sec seconds is in years, for a timeout so long
// its number alone does not tell.
func humanSpan(sec float64) string {
	return "about " + strconv.FormatFloat(sec/(365.25*24*3600), 'g', 2, 64) + " years"
}

// numText shows a JSON number in a finding; a long one is cut short.
func numText(s string) string {
	if len(s) > 32 {
		return s[:29] + "..."
	}
	return s
}

// fmtSec formats a timeout in seconds for a warning.
func fmtSec(sec float64) string { return strconv.FormatFloat(sec, 'g', -1, 64) }

// CodexMCPTimeouts returns the timeouts, in seconds, that a Codex MCP
// server's reviewed fields (kept in other as written by the Codex
// reader) give Codex 0.171: the startup timeout (startup_timeout_sec,
// else startup_timeout_ms) and the wait for each tool call
// (tool_timeout_sec). A value Codex gives up on at once (under a
// nanosecond) or panics on (about 2^63 s) is left out, as is one that is
// absent: the caller then writes none, and Codex's default applies
// (codexMCPTimeoutWarnings says so in the review).
func CodexMCPTimeouts(other map[string]json.RawMessage) (startup, tool float64, hasStartup, hasTool bool) {
	usable := func(f float64) bool { return f*1e9 >= 1 && f < codexClockOverflowSec }
	if raw, ok := other["startup_timeout_sec"]; ok {
		if f, err := strconv.ParseFloat(string(raw), 64); err == nil && usable(f) {
			startup, hasStartup = f, true
		}
	} else if raw, ok := other["startup_timeout_ms"]; ok {
		if ms, err := strconv.ParseUint(string(raw), 10, 64); err == nil && usable(float64(ms)/1000) {
			startup, hasStartup = float64(ms)/1000, true
		}
	}
	if raw, ok := other["tool_timeout_sec"]; ok {
		if f, err := strconv.ParseFloat(string(raw), 64); err == nil && usable(f) {
			tool, hasTool = f, true
		}
	}
	return startup, tool, hasStartup, hasTool
}
