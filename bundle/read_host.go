package bundle

import (
	"encoding/json"
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
)

// This file holds what the host readers (Claude Code, Codex, Gemini CLI)
// share: manifest path fields, hook files, MCP and LSP server objects. A
// host reader is lenient where its host is (an unknown field is a warning
// and is kept in the inventory, never silently dropped) and strict where
// safety needs it (a path that leaves the bundle rejects the bundle).

// hostReader reads one host's manifest and the files it names.
type hostReader struct {
	b    *Bundle
	host Host
	file string // the manifest, for finding paths
}

func (r hostReader) typeErr(path, want string, v *jsonValue) {
	r.b.Report.Skipf(path, "manifest.field-type", "must be %s, not %s", want, v.kind)
}

// sensitive reads an option's "sensitive" flag. Anything but a boolean
// ("true" as a string, say) is a warning and reads as sensitive: a value
// meant to be secret is never shown because its flag was mistyped.
func (r hostReader) sensitive(v *jsonValue, path string) bool {
	if v.kind == jsonBool {
		return v.b
	}
	// Gemini CLI checks no type: `if (setting.sensitive)` decides, so 0,
	// "" and null keep the value in a plain .env file, and anything else
	// in the keychain. bundlectl keeps any value secret.
	r.b.Report.Warnf(path, "manifest.field-type", "must be a boolean, not %s; Gemini CLI reads it as JavaScript truthiness (0, \"\" and null: not sensitive, the value stored in a plain .env file; anything else: sensitive); bundlectl treats the option as sensitive", v.kind)
	return true
}

// str returns v's string, or records a skip finding.
// strs reads an array of strings; anything else is a type finding.
func (r hostReader) strs(v *jsonValue, path string) ([]string, bool) {
	l, ok := stringArray(v)
	if !ok {
		r.typeErr(path, "an array of strings", v)
	}
	return l, ok
}

func (r hostReader) str(v *jsonValue, path string) (string, bool) {
	if v.kind != jsonString {
		r.typeErr(path, "a string", v)
		return "", false
	}
	return v.str, true
}

// strOrList reads a field a host accepts as one string or a list of them.
func (r hostReader) strOrList(v *jsonValue, path string) ([]string, bool) {
	if v.kind == jsonString {
		return []string{v.str}, true
	}
	if l, ok := stringArray(v); ok {
		return l, true
	}
	r.typeErr(path, "a string or an array of strings", v)
	return nil, false
}

func (r hostReader) strMap(v *jsonValue, path string) (map[string]string, bool) {
	m, ok := stringMap(v)
	if !ok {
		r.typeErr(path, "an object of strings", v)
	}
	return m, ok
}

// seconds reads a timeout given in unit (1 for seconds, 1000 for
// milliseconds) and returns whole seconds, rounded up.
func (r hostReader) seconds(v *jsonValue, path string, unit int) (int, bool) {
	if v.kind != jsonNumber {
		r.typeErr(path, "a number", v)
		return 0, false
	}
	f, err := strconv.ParseFloat(v.str, 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) {
		r.b.Report.Skipf(path, "manifest.timeout", "timeout must be a positive number")
		return 0, false
	}
	s := int(math.Ceil(f / float64(unit)))
	if s > MaxTimeoutSec {
		r.b.Report.Skipf(path, "manifest.timeout", "timeout must be at most %d seconds", MaxTimeoutSec)
		return 0, false
	}
	return s, true
}

// hookTimeout reads a hook's timeout given in unit (seconds or
// milliseconds). Each host loads and runs a hook whatever its timeout's
// size (Claude Code 2.1.332, Codex 0.171, Gemini CLI 0.61, tried up to
// 2^63-1 s and 2^53-1 ms: internal/agenttest TestHostsGuardTimeouts), so a
// timeout past MaxTimeoutSec does not skip the hook, which would let a
// tool run where the host runs its guard: bundlectl waits at most
// MaxTimeoutSec (h.TimeoutSec), keeps the host's value as written in
// Other["timeout"], and the harness blocks a guard's event when the hook
// is still running then (HookPastLimit).
func (r hostReader) hookTimeout(h *Hook, v *jsonValue, path string, unit int) bool {
	if v.kind != jsonNumber {
		r.typeErr(path, "a number", v)
		return false
	}
	f, err := strconv.ParseFloat(v.str, 64)
	if err == nil && f > 0 && !math.IsInf(f, 0) && math.Ceil(f/float64(unit)) > MaxTimeoutSec &&
		!(r.host == HostCodex && !codexWholeSeconds(v.str)) { // else Codex runs none (codex.ignored)
		h.TimeoutSec = MaxTimeoutSec
		other(&h.Other, "timeout", v)
		wait := v.str + " s"
		if unit == 1000 {
			wait = v.str + " ms"
		}
		if r.host == HostGemini && f > maxNodeTimerMs {
			r.b.Report.Warnf(path, "manifest.timeout", "Gemini CLI starts this hook and kills it at once: a timeout past %d ms fires immediately in its runtime (Node.js), so the hook never answers and its event goes ahead (internal/agenttest TestHostsGuardTimeouts); bundlectl runs it, waits at most %d s, and blocks a guard's event if it is still running then; set a timeout of at most %d ms", int64(maxNodeTimerMs), MaxTimeoutSec, MaxTimeoutSec*1000)
		} else {
			r.b.Report.Warnf(path, "manifest.timeout", "%s waits up to %s for this hook; bundlectl waits at most %d s, then kills it and, for a guard (an event a hook can block), blocks the event as its answer is unknown", HostTitle(r.host), wait, MaxTimeoutSec)
		}
		return true
	}
	var ok bool
	h.TimeoutSec, ok = r.seconds(v, path, unit)
	return ok
}

// mcpTimeout reads a Claude Code or Gemini CLI MCP server's "timeout" in
// milliseconds. Both hosts load the server and call its tools whatever
// the size (Claude Code 2.1.332 tried up to 2^53-1 ms, Gemini CLI 0.61 up
// to 2147483647 ms: internal/agenttest TestHostsMCPTimeouts), so a timeout
// past MaxTimeoutSec does not skip the server, which would hide a command
// the host runs: it is kept as written in Other["timeout"], TimeoutSec is
// MaxTimeoutSec, and a warning says what the host does. Past 2147483647 ms
// Gemini CLI starts the server and gives up on it at once (Node.js fires a
// longer timer after 1 ms), so none of its tools is offered. Claude Code
// starts no server whose timeout is not a whole number within 2^53-1
// (its schema's positive int): such a server is skipped.
func (r hostReader) mcpTimeout(s *MCPServer, v *jsonValue, path string) (int, bool) {
	if v.kind == jsonNumber {
		f, err := strconv.ParseFloat(v.str, 64)
		if r.host == HostClaude && err == nil && f > 0 && (f != math.Trunc(f) || f > 1<<53-1) {
			r.b.Report.Skipf(path, "manifest.timeout", "Claude Code does not start this server: its timeout must be a whole number of milliseconds of at most 9007199254740991 (internal/agenttest TestHostsMCPTimeouts); give a whole number of milliseconds, at most 600000")
			return 0, false
		}
		if err == nil && f > 0 && !math.IsInf(f, 0) && math.Ceil(f/1000) > MaxTimeoutSec {
			other(&s.Other, "timeout", v)
			if r.host == HostGemini && f > maxNodeTimerMs {
				r.b.Report.Warnf(path, "manifest.timeout", "Gemini CLI starts this server and gives up on it at once: a timeout past %d ms fires immediately in its runtime (Node.js), so Gemini CLI offers none of its tools (internal/agenttest TestHostsMCPTimeouts); set a timeout of at most %d ms", int64(maxNodeTimerMs), MaxTimeoutSec*1000)
			} else {
				r.b.Report.Warnf(path, "manifest.timeout", "%s waits up to %s ms for this server; it is reviewed with bundlectl's limit of %d s", HostTitle(r.host), v.str, MaxTimeoutSec)
			}
			return MaxTimeoutSec, true
		}
	}
	return r.seconds(v, path, 1000)
}

// codexWholeSeconds reports whether Codex (0.171) reads s as a hook
// timeout and starts: a whole number within i64. Another fails its parse
// of the hooks file, or (past i64, within u64) panics at start
// (internal/agenttest TestCodexHookFieldType).
func codexWholeSeconds(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// maxNodeTimerMs is the longest delay Node.js's setTimeout keeps: a
// longer one fires after 1 ms (with a TimeoutOverflowWarning).
const maxNodeTimerMs = 1<<31 - 1

// relPath resolves a manifest path field ("./commands", "hooks/x.json",
// "${CLAUDE_PLUGIN_ROOT}/x") to a clean path relative to the bundle root.
// A path that is absolute or climbs out of the bundle is an Error: a
// manifest pointing outside its own tree is hostile, not a typo.
func (r hostReader) relPath(p, field string) (string, bool) {
	for _, pre := range []string{"${CLAUDE_PLUGIN_ROOT}/", "${PLUGIN_ROOT}/", "${extensionPath}/", "${extensionPath}${/}"} {
		if strings.HasPrefix(p, pre) {
			p = "./" + p[len(pre):]
			break
		}
	}
	if !checkText(r.b, field, p, false) {
		return "", false
	}
	if p == "" {
		r.b.Report.Skipf(field, "manifest.path", "path is empty")
		return "", false
	}
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.Contains(p, `\`) {
		r.b.Report.Errorf(field, "manifest.path-escape", "path %s must be relative to the plugin root", Quote(p))
		return "", false
	}
	clean := path.Clean(strings.TrimPrefix(p, "./"))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		r.b.Report.Errorf(field, "manifest.path-escape", "path %s leaves the plugin root", Quote(p))
		return "", false
	}
	if clean == "." {
		clean = ""
	}
	return clean, true
}

// exists reports whether rel names a walked entry of the given kind
// ("" any). A missing target is a skip finding.
func (r hostReader) exists(rel, field string, wantDir bool) bool {
	e, ok := r.b.Tree.Lookup(rel)
	if rel == "" {
		return wantDir
	}
	switch {
	case !ok:
		r.b.Report.Skipf(field, "manifest.path-missing", "%s does not exist in the plugin", Quote(rel))
		return false
	case wantDir && e.Kind != KindDir:
		r.b.Report.Skipf(field, "manifest.path-type", "%s is not a directory", Quote(rel))
		return false
	case !wantDir && e.Kind == KindDir:
		r.b.Report.Skipf(field, "manifest.path-type", "%s is not a file", Quote(rel))
		return false
	}
	return true
}

// readJSONFile reads and parses a JSON file of the bundle. A problem is a
// skip finding on the file: the components it declares do not load.
func (r hostReader) readJSONFile(rel, rule string) (*jsonValue, bool) {
	data, err := r.b.Tree.ReadFile(rel, MaxManifestBytes)
	if err != nil {
		r.b.Report.Skipf(rel, rule, "cannot read: %v", err)
		return nil, false
	}
	flat := rule == "mcp.invalid-json"
	v, dups, err := parseHostJSON(data, hostJSON{lastServer: true, flatServers: flat})
	if err == nil && flat && v.kind == jsonObject {
		if _, ok := v.obj["mcpServers"]; ok {
			// Not the server map after all: a repeated top-level member
			// is refused as anywhere else.
			for _, d := range dups {
				if d.Parent == "" {
					err = d
					break
				}
			}
		}
	}
	if err != nil {
		reportJSONError(r.b, rel, err, Skip, rule)
		return nil, false
	}
	reportLastServers(r.b, rel, dups)
	return v, true
}

// hostFormat is the format whose manifest declares a host's components.
func hostFormat(h Host) Format {
	switch h {
	case HostCodex:
		return FormatCodex
	case HostGemini:
		return FormatGemini
	}
	return FormatClaude
}

// other keeps a field the model has no slot for as canonical JSON.
func other(m *map[string]json.RawMessage, k string, v *jsonValue) {
	if *m == nil {
		*m = map[string]json.RawMessage{}
	}
	(*m)[k] = canonicalJSON(v.any())
}

// ---- hooks ----

// GeminiSequentialKey is the Hook.Other key holding the "sequential" of
// the Gemini CLI matcher group a hook was declared in, as written; apart
// from a hook's own fields, which Gemini CLI never reads there.
const GeminiSequentialKey = "group.sequential"

// GeminiSequential reports whether a hook's matcher group makes Gemini CLI
// 0.61 run its event's hooks in turn: only a JSON true does ("sequential"
// === true in its hookPlanner).
func GeminiSequential(other map[string]json.RawMessage) bool {
	return string(other[GeminiSequentialKey]) == "true"
}

// hookFields are the fields a host hook object may carry; any other is
// kept in the inventory by name with a warning.
var hookFieldsKnown = map[string]bool{
	"type": true, "command": true, "args": true, "timeout": true, "async": true,
	"url": true, "headers": true, "allowedEnvVars": true, "prompt": true, "model": true,
	"statusMessage": true, "once": true, "name": true, "description": true, "shell": true,
	"env": true,
}

// readHooksFile reads a hooks file ({"hooks": {Event: [groups]}}, or the
// event map itself) declared by a host manifest.
func (r hostReader) readHooksFile(rel string, scope string) {
	v, ok := r.readJSONFile(rel, "hook.file")
	if !ok {
		return
	}
	if r.host == HostCodex {
		r.codexHooksFileIgnored(v, rel)
	}
	r.readHooksValue(v, rel+":", scope)
}

// readHooksValue reads a hooks object: {"hooks": {...}} or the event map.
func (r hostReader) readHooksValue(v *jsonValue, path, scope string) {
	if v.kind != jsonObject {
		r.typeErr(path, "an object", v)
		return
	}
	h, ok := v.obj["hooks"]
	_, modules := v.obj["modules"]
	// Claude Code reads a hooks file's "modules" whether or not it has
	// "hooks": such a file is the wrapper form, never an event map.
	if ok && h.kind == jsonObject || modules && r.host == HostClaude {
		for _, k := range v.keys {
			if k == "hooks" || k == "description" || k == "$schema" {
				continue
			}
			// The host may act on it (Claude Code's "modules" load code
			// into its own process): shown, hashed and checked as written.
			fp := FieldPath(path, k)
			other(&r.b.ManifestOther, string(hostFormat(r.host))+"."+fp, v.obj[k])
			if k == "modules" && r.host == HostClaude {
				r.b.Report.Warnf(fp, "hook.unknown-field", "hook modules run code inside Claude Code itself when it loads the plugin directly; bundlectl exec does not give them to Claude Code; reviewed as written")
			} else {
				r.b.Report.Warnf(fp, "hook.unknown-field", "field %s is not one bundlectl interprets; it is reviewed as written", Quote(k))
			}
		}
		if !ok {
			return
		}
		if h.kind != jsonObject {
			r.typeErr(FieldPath(path, "hooks"), "an object", h)
			return
		}
		v, path = h, FieldPath(path, "hooks")
	}
	r.walkHooks(v, path, scope)
}

// readClaudeInlineHooks reads a hooks object written inline in a Claude
// Code manifest or in front matter. Claude Code (2.1.332) reads it as the
// event map itself, never as the {"hooks": …} wrapper of a hooks file: a
// "hooks" member is an event it does not know, whose hooks never run (it
// refuses a plugin whose manifest has PreToolUse or PermissionRequest
// hooks there), and every member beside it is an event whose hooks run.
// bundlectl reads both, so the review shows every hook either reading runs.
func (r hostReader) readClaudeInlineHooks(v *jsonValue, path, scope string) {
	h, ok := v.obj["hooks"]
	if v.kind != jsonObject || !ok || h.kind != jsonObject {
		r.readHooksValue(v, path, scope)
		return
	}
	r.b.Report.Warnf(FieldPath(path, "hooks"), "hook.event-unknown", "Claude Code reads an inline hooks object as the event map itself: it takes \"hooks\" for an event it does not know and never runs the hooks under it (in a manifest, it refuses the plugin when they include PreToolUse or PermissionRequest hooks); bundlectl reviews them; move them up one level, beside the other events")
	r.walkHooks(h, FieldPath(path, "hooks"), scope)
	events := &jsonValue{kind: jsonObject, obj: map[string]*jsonValue{}}
	for _, k := range v.keys {
		switch k {
		case "hooks", "description", "$schema":
			// description and $schema: events no host fires, as in a
			// hooks file.
		case "modules":
			fp := FieldPath(path, k)
			other(&r.b.ManifestOther, string(FormatClaude)+"."+fp, v.obj[k])
			r.b.Report.Warnf(fp, "hook.unknown-field", "hook modules run code inside Claude Code itself when it loads the plugin directly; bundlectl exec does not give them to Claude Code; reviewed as written")
		default:
			events.keys = append(events.keys, k)
			events.obj[k] = v.obj[k]
		}
	}
	r.walkHooks(events, path, scope)
}

// walkHooks reads an event map {Event: [matcher groups]} into the bundle's
// hooks.
func (r hostReader) walkHooks(v *jsonValue, path, scope string) {
	if r.host == HostClaude && scope == "" && v.kind == jsonObject {
		r.claudeGuardGroups(v, path)
	}
	// sequential is the current matcher group's "sequential", when Gemini
	// CLI reads it: set to true on any group of an event, it makes Gemini
	// CLI 0.61 run all of that event's hooks in turn, each later hook's
	// input carrying what the earlier ones changed (its hookPlanner and
	// hookRunner; internal/agenttest TestGeminiSequentialChain). It is
	// kept on each hook of the group as Other[GeminiSequentialKey],
	// reviewed and hashed as written, and the harness and the view read it.
	var sequential *jsonValue
	walkHookTree(r.b, r, v, path, r.host,
		func(g *jsonValue, gp string) bool {
			if g.kind != jsonObject {
				r.typeErr(gp, "an object", g)
				return false
			}
			sequential = nil
			if s, ok := g.obj["sequential"]; ok && r.host == HostGemini {
				sequential = s
			}
			return true
		},
		func(h *jsonValue, hp, event, matcher string) {
			if hook, ok := r.hook(h, hp, event, matcher, scope); ok {
				if sequential != nil {
					other(&hook.Other, GeminiSequentialKey, sequential)
				}
				r.b.Components.Hooks = append(r.b.Components.Hooks, hook)
			} else {
				// Dropped, it stays in the bundle's files.
				r.b.dropURLs(h, hp, HookURLCredentialAdvice)
			}
		})
}

// claudeGuardGroups records a Claude Code refusal for each matcher group
// of a PreToolUse or PermissionRequest event of a plugin's hooks that
// fails Claude Code's hooks schema in its shape: Claude Code 2.1.332 then
// loads nothing of the plugin, where on another event it drops that hook
// (no type or one it does not know, no command string) or that group (a
// matcher that is no string, hooks that are missing or no list) alone
// (internal/agenttest TestClaudeGuardHookSchema). A "timeout", "async" or
// "shell" of the wrong kind is r.hook's to find.
func (r hostReader) claudeGuardGroups(v *jsonValue, path string) {
	for _, event := range v.keys {
		groups := v.obj[event]
		if !ClaudeGuardEvent(event) || groups.kind != jsonArray {
			continue
		}
		for gi, g := range groups.arr {
			gp := indexPath(FieldPath(path, event), gi)
			if at, why := claudeGroupSchema(g, gp); why != "" {
				r.b.claudeRefuses(at, "hook.schema", why, event, "fix or remove it")
			}
		}
	}
}

// claudeGroupSchema says where and why a matcher group fails Claude Code's
// hooks schema in its shape ("" when it does not).
func claudeGroupSchema(g *jsonValue, gp string) (at, why string) {
	if g.kind != jsonObject {
		return gp, "this matcher group is not an object"
	}
	if m, ok := g.obj["matcher"]; ok && m.kind != jsonString {
		return gp + ".matcher", "its matcher is not a string"
	}
	hs, ok := g.obj["hooks"]
	switch {
	case !ok:
		return gp, "this matcher group has no hooks list"
	case hs.kind != jsonArray:
		return gp + ".hooks", "its hooks are not a list"
	}
	for i, h := range hs.arr {
		hp := indexPath(gp+".hooks", i)
		if h.kind != jsonObject {
			return hp, "this hook is not an object"
		}
		t, ok := h.obj["type"]
		switch {
		case !ok:
			return hp, "this hook has no type"
		case t.kind != jsonString || !slices.Contains([]string{HookCommand, HookHTTP, HookPrompt, HookAgent, HookMCPTool}, t.str):
			return hp + ".type", "its type is not one Claude Code knows (command, http, prompt, agent, mcp_tool)"
		case t.str == HookCommand:
			if c, ok := h.obj["command"]; !ok || c.kind != jsonString {
				return hp, "this command hook has no command string"
			}
		case t.str == HookHTTP:
			// Its schema's url is a string JavaScript's URL parses;
			// with none, or one it does not parse ("foo", "http://"),
			// Claude Code 2.1.332 refuses the plugin (internal/agenttest
			// TestClaudeOnFailureSchema, TestClaudeHTTPURLSchema).
			if u, ok := h.obj["url"]; !ok || u.kind != jsonString || strings.TrimSpace(u.str) == "" {
				return hp, "this http hook has no url string"
			} else if claudeURLRefuses(u.str) {
				return hp + ".url", "its url " + quoteURL(u.str) + " is not a URL (JavaScript's URL does not parse it)"
			}
		}
		if of, ok := h.obj["onFailure"]; ok && !claudeOnFailureValid(of) {
			return hp + ".onFailure", "its onFailure is " + Sanitize(string(canonicalJSON(of.any()))) + ", not \"continue\" or \"block\""
		}
	}
	return "", ""
}

// fieldReader is what a format's reader offers the shared walks: a type
// error of that format's severity, and a string read.
type fieldReader interface {
	typeErr(path, want string, v *jsonValue)
	str(v *jsonValue, path string) (string, bool)
}

// walkHookTree walks the hooks tree every format shares with Claude Code —
// {Event: [{matcher, hooks: [hook…]}]} — in the order written: group checks
// each matcher group, hook takes each hook with its event and matcher. An
// event host does not fire is a warning, never an error.
func walkHookTree(b *Bundle, r fieldReader, v *jsonValue, path string, host Host, group func(g *jsonValue, gp string) bool, hook func(h *jsonValue, hp, event, matcher string)) {
	for _, event := range v.keys {
		groups, ep := v.obj[event], FieldPath(path, event)
		if !KnownHookEvent(host, event) && checkText(b, ep, event, false) {
			b.Report.Warnf(ep, "hook.event-unknown", "event %s is not one %s is known to fire; its hooks are reviewed and kept", Quote(event), HostTitle(host))
		}
		if groups.kind != jsonArray {
			r.typeErr(ep, "an array of matcher groups", groups)
			b.dropURLsIn(groups, ep, HookURLCredentialAdvice)
			continue
		}
		for gi, g := range groups.arr {
			gp := indexPath(ep, gi)
			if !group(g, gp) {
				b.dropURLsIn(g, gp, HookURLCredentialAdvice)
				continue
			}
			matcher := ""
			if m, ok := g.obj["matcher"]; ok {
				s, good := r.str(m, gp+".matcher")
				if !good {
					b.dropURLsIn(g, gp, HookURLCredentialAdvice)
					continue
				}
				matcher = s
			}
			hs, ok := g.obj["hooks"]
			if !ok {
				b.Report.Skipf(gp, "hook.shape", "matcher group has no hooks array")
				continue
			}
			if hs.kind != jsonArray {
				r.typeErr(gp+".hooks", "an array", hs)
				b.dropURLsIn(hs, gp+".hooks", HookURLCredentialAdvice)
				continue
			}
			for hi, h := range hs.arr {
				hook(h, indexPath(gp+".hooks", hi), event, matcher)
			}
		}
	}
}

func (r hostReader) hook(v *jsonValue, path, event, matcher, scope string) (Hook, bool) {
	h := Hook{Event: event, Matcher: matcher, Source: path, Scope: scope, Hosts: addHost(nil, r.host)}
	if v.kind != jsonObject {
		r.typeErr(path, "an object", v)
		return h, false
	}
	keep := true
	h.Type = HookCommand
	if _, ok := v.obj["type"]; !ok && r.host == HostClaude && scope == "" {
		// Claude Code (2.1.332) drops a plugin hook with no type (on a
		// guard's event it loads nothing of the plugin: claudeGroupSchema)
		// (internal/agenttest TestClaudeGuardHookSchema).
		r.b.Report.Skipf(path, "hook.type", "hook has no type: Claude Code does not run it; add \"type\": \"command\"")
		keep = false
	}
	if t, ok := v.obj["type"]; ok {
		s, good := r.str(t, path+".type")
		keep = keep && good
		h.Type = s
		if r.host == HostGemini && s == geminiPluginHook {
			// Gemini CLI (0.61) accepts "plugin" beside "command" and
			// runs its command the same way, as a shell string
			// (internal/agenttest TestGeminiHookShapes): the review
			// shows it as the command hook it is.
			h.Type = HookCommand
		}
	}
	unit := 1
	if r.host == HostGemini {
		unit = 1000 // Gemini CLI hook timeouts are milliseconds
	}
	_, hasArgs := v.obj["args"]
	// badType is the first field whose JSON type Claude Code's hooks
	// schema rejects (a "timeout" that is no number, an "async" that is
	// no boolean), with its path.
	var badType, badTypePath string
	for _, k := range v.keys {
		f, fp := v.obj[k], FieldPath(path, k)
		if badType == "" && (k == "timeout" && f.kind != jsonNumber || k == "async" && f.kind != jsonBool) {
			badType, badTypePath = k, fp
		}
		good := true
		switch k {
		case "type":
		case "command":
			h.Command, good = r.str(f, fp)
		case "args":
			if r.host == HostCodex || r.host == HostGemini {
				// Codex (0.171) and Gemini CLI (0.61) run a command
				// hook's command alone as a shell string and never read
				// args: the review shows what the host runs, with args
				// kept as written (internal/agenttest
				// TestGeminiHookShapes for Gemini CLI).
				other(&h.Other, k, f)
				r.b.Report.Warnf(fp, "hook.unknown-field", "%s ignores a hook's args: it runs the command alone as a shell string; put the arguments in the command; reviewed as written", HostTitle(r.host))
				hasArgs = false
				continue
			}
			h.Args, good = r.strs(f, fp)
		case "timeout":
			if f.kind == jsonNull && r.host == HostCodex {
				// Codex (0.171) reads null as no timeout and runs the
				// hook (internal/agenttest TestCodexHookFieldType).
				break
			}
			good = r.hookTimeout(&h, f, fp, unit)
		case "async":
			h.Async = f.kind == jsonBool && f.b
			if f.kind != jsonBool && r.host == HostClaude && scope == "" && !ClaudeGuardEvent(event) {
				// Claude Code (2.1.332) drops such a hook
				// (internal/agenttest TestClaudeHookAsyncType); for a
				// guard's it loads nothing of the plugin (hook.schema,
				// below).
				r.typeErr(fp, "true or false", f)
				good = false
			}
		case "url":
			h.URL, good = r.str(f, fp)
		case "headers":
			h.Headers, good = r.strMap(f, fp)
		case "allowedEnvVars":
			h.AllowedEnvVars, good = r.strs(f, fp)
		case "prompt":
			h.Prompt, good = r.str(f, fp)
		case "model":
			h.Model, good = r.str(f, fp)
		case "env":
			h.Env, good = r.strMap(f, fp)
		case "statusMessage", "once", "name", "description", "rewakeMessage", "rewakeSummary":
			// Presentation and scheduling; no authority.
		case "onFailure":
			// Claude Code 2.1.332: "continue" (the default) or "block",
			// which takes a failed hook (it could not start, timed out,
			// exited with a status other than 0 or 2) as exit status 2.
			// Reviewed and hashed as written; the harness reads it
			// (bundle.ClaudeOnFailureBlocks).
			// Another host that reads the same file keeps it as written.
			other(&h.Other, k, f)
			switch {
			case r.host != HostClaude || claudeOnFailureValid(f):
			case scope == "" && !ClaudeGuardEvent(event):
				// Claude Code 2.1.332's hooks schema takes only these
				// two (null, a number or a boolean fail it too): it
				// drops the hook, and on a guard's event loads nothing
				// of the plugin (claudeGroupSchema; internal/agenttest
				// TestClaudeOnFailureSchema).
				r.b.Report.Skipf(fp, "hook.on-failure", "Claude Code does not run this hook: its onFailure is %s, not \"continue\" or \"block\", which its hooks schema rejects; set it to \"continue\" or \"block\" or remove it", Sanitize(string(canonicalJSON(f.any()))))
				good = false
			case strings.HasPrefix(scope, "skill:"):
				// Claude Code (2.1.332) runs none of the skill's hooks:
				// the front-matter reader leaves them all out
				// (claudeHookFieldTypeFault; internal/agenttest
				// TestClaudeSkillHookFieldType).
			case scope != "":
				// An agent's or a command's front-matter hook: not
				// tried; fail closed.
				r.b.Report.Warnf(fp, "hook.on-failure", "Claude Code takes onFailure as \"continue\" or \"block\"; bundlectl takes any other value as \"block\": a failure of this hook blocks its event")
			}
		case "if", "shell", "server", "tool", "input", "asyncRewake", "continueOnBlock":
			// Meaning bundlectl does not interpret: reviewed and hashed.
			other(&h.Other, k, f)
		default:
			other(&h.Other, k, f)
			r.b.Report.Warnf(fp, "hook.unknown-field", "hook field %s is not one bundlectl interprets; it is reviewed as written", Quote(k))
		}
		keep = keep && good
	}
	switch h.Type {
	case HookCommand:
		h.Shell = !hasArgs
		if h.Command == "" {
			r.b.Report.Skipf(path, "hook.command", "command hook has no command")
			keep = false
		}
		if r.host == HostClaude && h.Scope == "" {
			if badType != "" && ClaudeGuardEvent(event) {
				// As for "shell" below: Claude Code loads nothing of
				// the plugin (internal/agenttest
				// TestClaudeGuardHookFieldType).
				r.b.claudeRefuses(badTypePath, "hook.schema", fmt.Sprintf("its %s is not %s", Quote(badType), map[string]string{"timeout": "a number", "async": "true or false"}[badType]), event, fmt.Sprintf("make %s %s or remove it", Quote(badType), map[string]string{"timeout": "a number of seconds", "async": "true or false"}[badType]))
			} else if ClaudeBadHookShell(h.Other) && ClaudeGuardEvent(event) {
				// Claude Code refuses the whole plugin: the review
				// cannot show what it would load, which is nothing.
				r.b.claudeRefuses(FieldPath(path, "shell"), "hook.shell", fmt.Sprintf("its \"shell\" is %s, not \"bash\" or \"powershell\"", Sanitize(string(h.Other["shell"]))), event, "set \"shell\" to \"bash\" or remove it")
			} else if why := ClaudeHookShell(h.Other, h.Shell); why != "" {
				r.b.Report.Warnf(FieldPath(path, "shell"), "hook.shell", "%s; bundlectl runs hooks only with a POSIX shell, so neither bundlectl hooks run nor bundlectl exec runs it", why)
			}
		}
		if r.host == HostClaude && strings.HasPrefix(h.Scope, "skill:") {
			if strings.Contains(h.Command, ClaudeDataRef) || slices.ContainsFunc(h.Args, func(a string) bool { return strings.Contains(a, ClaudeDataRef) }) {
				r.b.Report.Warnf(FieldPath(path, "command"), "hook.data-skill", "Claude Code does not run this hook: a skill's front-matter hooks have no %s (it is plugin-only; the hook fails before it starts and the event goes ahead), so neither bundlectl hooks exec nor bundlectl exec runs it; declare the hook in hooks/hooks.json to use the data directory", ClaudeDataRef)
			}
			for _, s := range append([]string{h.Command}, h.Args...) {
				if ref, ok := ClaudeShellOptionRef(s); ok {
					r.b.Report.Warnf(FieldPath(path, "command"), "hook.option-skill", "Claude Code gives a skill's hooks no plugin options: it leaves %s as written (a shell fails on it: /bin/sh as a bad substitution, with exit status 2, which blocks the event) and sets no $CLAUDE_PLUGIN_OPTION_<KEY>, and so does bundlectl; declare the hook in hooks/hooks.json to use the option", Quote(ref))
					break
				}
			}
		}
		if ref, ok := ClaudeShellOptionRef(h.Command); ok && h.Shell && h.Scope == "" && r.host == HostClaude {
			r.b.Report.Warnf(FieldPath(path, "command"), "hook.option-shell", "Claude Code does not run this hook: its shell-form command references %s, and Claude Code refuses any ${user_config.*} in a plugin hook's shell-form command (the value would be parsed by the shell), so bundlectl hooks run does not run it either; pass the value in \"args\" (exec form) or read $CLAUDE_PLUGIN_OPTION_<KEY> from the hook's environment", Quote(ref))
		}
	case HookHTTP:
		if h.URL == "" {
			if r.host != HostClaude || scope != "" || !ClaudeGuardEvent(event) {
				// On a guard's event Claude Code loads nothing of the
				// plugin: claudeGroupSchema's refusal says so.
				r.b.Report.Skipf(path, "hook.url", "http hook has no url")
			}
			keep = false
		} else if r.host == HostClaude && claudeURLRefuses(h.URL) {
			// Its hooks schema refuses the url: Claude Code 2.1.332
			// drops the hook, and on a guard's event loads nothing of
			// the plugin (claudeGroupSchema), so nothing sends the
			// event anywhere (internal/agenttest TestClaudeHTTPURLSchema).
			if scope != "" || !ClaudeGuardEvent(event) {
				r.b.Report.Skipf(FieldPath(path, "url"), "hook.url", "url %s is not a URL (JavaScript's URL does not parse it), so Claude Code's hooks schema drops this hook", quoteURL(h.URL))
			}
			keep = false
		} else if ref, inHost := claudeURLRef(h.URL); ref != "" && r.host == HostClaude {
			// Claude Code (2.1.332) expands no variable in a url, not
			// even one allowedEnvVars lists nor ${CLAUDE_PLUGIN_ROOT}
			// (internal/agenttest TestClaudeHTTPGuardLoopbackForms,
			// TestClaudeHTTPHookURLVarsAndWebSocket): in the host the
			// request goes nowhere, the hook fails and the event goes
			// ahead; in the path or query the server gets the text.
			if inHost {
				guard := ""
				if BlockingEvent(event) {
					guard = ", so this guard never blocks " + event
				}
				r.b.Report.Warnf(FieldPath(path, "url"), "hook.url", "Claude Code sends the url as written: it does not expand %s (allowedEnvVars is for headers only), so no server is asked and the hook fails%s; bundlectl posts it as written too; write the url out", Quote(ref), guard)
			} else {
				r.b.Report.Warnf(FieldPath(path, "url"), "hook.url", "Claude Code sends the url as written: it does not expand %s (allowedEnvVars is for headers only), so the server gets that text, not a value; bundlectl posts it as written too; write the value out", Quote(ref))
			}
		}
	case HookPrompt, HookAgent:
		if h.Prompt == "" {
			r.b.Report.Skipf(path, "hook.prompt", "%s hook has no prompt", h.Type)
			keep = false
		} else if r.host == HostCodex {
			// Codex (0.171) parses them and skips them with a warning
			// (internal/agenttest TestCodexHookShapes).
			r.b.Report.Warnf(path, codexIgnored, "Codex skips %s hooks: this one never runs in Codex; reviewed as written", h.Type)
		}
	case HookMCPTool:
		if _, ok := h.Other["server"]; !ok {
			r.b.Report.Skipf(path, "hook.mcp-tool", "mcp_tool hook names no server")
			keep = false
		} else if _, ok := h.Other["tool"]; !ok {
			r.b.Report.Skipf(path, "hook.mcp-tool", "mcp_tool hook names no tool")
			keep = false
		}
	default:
		r.b.Report.Skipf(path+".type", "hook.type", "hook type %s is not one bundlectl knows (command, http, prompt, agent, mcp_tool)", Quote(h.Type))
		keep = false
	}
	return h, keep
}

// geminiPluginHook is the hook type Gemini CLI runs as a command hook
// besides "command" itself.
const geminiPluginHook = "plugin"

// HostTitle is a host's name as its users write it ("bundlectl" for
// none: a component of bundlectl's own formats).
func HostTitle(h Host) string {
	switch h {
	case HostClaude:
		return "Claude Code"
	case HostCodex:
		return "Codex"
	case HostGemini:
		return "Gemini CLI"
	}
	return "bundlectl"
}

// ---- MCP servers ----

// readMCPServers reads a map of MCP server objects in a host's dialect.
func (r hostReader) readMCPServers(v *jsonValue, path string) {
	if v.kind != jsonObject {
		r.typeErr(path, "an object keyed by server name", v)
		r.b.dropURLsIn(v, path, MCPURLCredentialAdvice)
		return
	}
	for _, name := range v.keys {
		s, ok := r.mcpServer(name, v.obj[name], FieldPath(path, name))
		if !ok {
			// Dropped, it stays in the bundle's files.
			r.b.dropURLs(v.obj[name], FieldPath(path, name), MCPURLCredentialAdvice)
			continue
		}
		// A host merges its MCP files in order and the later declaration of
		// a name wins (Claude Code: .mcp.json, then the manifest's).
		r.b.Components.MCP = declareLater(r, r.b.Components.MCP, s, "mcp.overridden", "server",
			func(s MCPServer) (string, []Host, string) { return s.Name, s.Hosts, s.Source })
	}
}

// declareLater adds c to list, in place of an earlier declaration of the
// same name for this reader's host: a host merges its files in order and
// the later declaration wins. The replaced one is named in a warning.
func declareLater[T any](r hostReader, list []T, c T, rule, what string, id func(T) (name string, hosts []Host, source string)) []T {
	name, _, src := id(c)
	for i, old := range list {
		oname, ohosts, osrc := id(old)
		if oname == name && len(ohosts) == 1 && ohosts[0] == r.host {
			r.b.Report.Warnf(src, rule, "%s %s is also declared at %s; %s loads this one", what, Quote(name), osrc, HostTitle(r.host))
			list[i] = c
			return list
		}
	}
	return append(list, c)
}

// readMCPFile reads an MCP configuration file: {"mcpServers": {...}} or
// the server map itself (Claude Code accepts both).
func (r hostReader) readMCPFile(rel string) {
	v, ok := r.readJSONFile(rel, "mcp.invalid-json")
	if !ok {
		r.b.Components.MCPDisabled = true
		return
	}
	if v.kind != jsonObject {
		r.typeErr(rel, "an object", v)
		r.b.Components.MCPDisabled = true
		return
	}
	if s, ok := v.obj["mcpServers"]; ok {
		for _, k := range v.keys {
			if k != "mcpServers" && k != "$schema" {
				r.b.Report.Warnf(FieldPath(rel+":", k), "mcp.unknown-field", "unknown field %s is ignored", Quote(k))
			}
		}
		r.readMCPServers(s, rel+": mcpServers")
		return
	}
	r.readMCPServers(v, rel+":")
}

func (r hostReader) mcpServer(name string, v *jsonValue, path string) (MCPServer, bool) {
	s := MCPServer{Name: name, Source: path, Hosts: addHost(nil, r.host)}
	if v.kind != jsonObject {
		r.typeErr(path, "an object", v)
		return s, false
	}
	keep := true
	typ := ""
	var httpURL string
	var timeouts codexTimeouts
	for _, k := range v.keys {
		f, fp := v.obj[k], FieldPath(path, k)
		good := true
		switch k {
		case "transport", "httpUrl":
			if r.host == HostClaude {
				// Claude Code (2.1.332) reads neither: it starts the
				// command, or connects to url by type, whatever they say.
				other(&s.Other, k, f)
				r.b.Report.Warnf(fp, "mcp.unknown-field", "Claude Code does not read %s: it starts the server's command, or connects to its url as its type says; reviewed as written, not used", Quote(k))
				break
			}
			if r.host == HostCodex {
				// Codex (0.171) reads neither: it starts the command, else
				// connects to url over streamable HTTP; a server with only
				// an httpUrl does not load (internal/agenttest
				// TestCodexMCPShapes).
				other(&s.Other, k, f)
				r.b.Report.Warnf(fp, "mcp.unknown-field", "Codex does not read %s: it starts the server's command, else connects to its url over streamable HTTP; reviewed as written, not used", Quote(k))
				break
			}
			if k == "transport" {
				typ, good = r.str(f, fp)
			} else {
				httpURL, good = r.str(f, fp)
			}
		case "type":
			typ, good = r.str(f, fp)
		case "command":
			s.Command, good = r.str(f, fp)
		case "args":
			s.Args, good = r.strs(f, fp)
		case "env":
			s.Env, good = r.strMap(f, fp)
		case "cwd":
			s.Cwd, good = r.str(f, fp)
		case "url":
			s.URL, good = r.str(f, fp)
		case "headers", "http_headers":
			if k == "headers" && r.host == HostCodex {
				// Codex (0.171) sends http_headers and never reads
				// headers: bundlectl exec must not send them either.
				other(&s.Other, k, f)
				r.b.Report.Warnf(fp, "mcp.unknown-field", "Codex does not read headers: it sends none of them; write them as http_headers (or env_http_headers, to send a host variable); reviewed as written, not used")
				break
			}
			s.Headers, good = r.strMap(f, fp)
		case "env_http_headers":
			s.EnvHeaders, good = r.strMap(f, fp)
		case "bearer_token_env_var":
			s.BearerTokenEnvVar, good = r.str(f, fp)
		case "env_vars":
			var names []string
			if r.host == HostCodex {
				names, good = r.codexEnvVars(f, fp)
			} else if names, good = stringArray(f); !good {
				r.typeErr(fp, "an array of strings", f)
			}
			for _, n := range names {
				if s.EnvFrom == nil {
					s.EnvFrom = map[string]string{}
				}
				s.EnvFrom[n] = n
			}
		case "includeTools", "enabled_tools":
			s.ToolsInclude, good = r.strs(f, fp)
			r.claudeToolFilter(k, fp)
		case "excludeTools", "disabled_tools":
			s.ToolsExclude, good = r.strs(f, fp)
			r.claudeToolFilter(k, fp)
		case "timeout":
			if r.host == HostCodex {
				// Codex has no such field: it starts the server and
				// calls its tools whatever the value (0.169, tried with
				// 0.0001 and 30000). Nothing to enforce or show.
				break
			}
			// Gemini CLI and Claude Code give MCP timeouts in
			// milliseconds (Claude Code's is its wait for each tool
			// call, internal/agenttest TestClaudeMCPTimeoutPerCall).
			s.TimeoutSec, good = r.mcpTimeout(&s, f, fp)
		case "trust":
			s.Trust = f.kind == jsonBool && f.b
			if f.kind != jsonBool {
				r.typeErr(fp, "a boolean", f)
				good = false
			}
		case "startup_timeout_sec", "startup_timeout_ms", "tool_timeout_sec":
			// Codex drops a server whose value it cannot read, and gives
			// up on, or panics on, some it reads (codexMCPTimeout). One
			// it reads is kept in Other as written: bundlectl exec and
			// setup give it to Codex (CodexMCPTimeouts).
			if r.host == HostCodex {
				if good = r.codexMCPTimeout(&timeouts, k, f, fp); good && f.kind != jsonNull {
					other(&s.Other, k, f)
				}
			}
		case "description":
			// descriptive only
		default:
			// oauth, headersHelper, authProviderType, enabled, required, …:
			// meaning bundlectl does not interpret, kept in the inventory.
			other(&s.Other, k, f)
			if k != "oauth" && k != "enabled" && k != "required" && k != "authProviderType" && k != "targetAudience" && k != "targetServiceAccount" && k != "headersHelper" && k != "default_tools_approval_mode" {
				r.b.Report.Warnf(fp, "mcp.unknown-field", "field %s is not one bundlectl interprets; it is reviewed as written", Quote(k))
			}
		}
		keep = keep && good
	}
	if r.host == HostCodex && keep {
		r.codexMCPTimeoutWarnings(timeouts)
	}
	switch {
	case r.host == HostCodex:
		keep = r.codexTransport(&s, typ, path) && keep
	case httpURL != "":
		s.Transport, s.URL = TransportStreamableHTTP, httpURL
	case typ == "" && s.Command != "":
		s.Transport = TransportStdio
	case typ == "" && s.URL != "":
		// Gemini CLI reads a bare url as SSE; Claude Code requires a type.
		s.Transport = TransportSSE
		if r.host != HostGemini {
			s.Transport = TransportStreamableHTTP
		}
	case typ == "stdio":
		s.Transport = TransportStdio
	case typ == "http" || typ == "streamable-http" || typ == "streamable_http":
		s.Transport = TransportStreamableHTTP
	case typ == "sse":
		s.Transport = TransportSSE
	case typ == "ws" || typ == "websocket":
		s.Transport = TransportWebSocket
	case typ == "":
		r.b.Report.Skipf(path, "mcp.server-type", "server %s has neither a command nor a url", Quote(name))
		keep = false
	default:
		r.b.Report.Skipf(path+".type", "mcp.server-type", "unknown type %s (want stdio, http, sse or ws)", Quote(typ))
		keep = false
	}
	if s.Cwd != "" && !strings.HasPrefix(s.Cwd, "./") && !strings.HasPrefix(s.Cwd, "${") && !strings.HasPrefix(s.Cwd, "/") {
		// Codex and Gemini CLI take a relative cwd from the plugin root.
		s.Cwd = "./" + s.Cwd
		if s.Cwd == "./." {
			s.Cwd = "./"
		}
	}
	if keep && s.Transport == TransportStdio && s.Command == "" {
		r.b.Report.Skipf(path, "mcp.server-field", "stdio server %s has no command", Quote(name))
		keep = false
	}
	if keep && s.Remote() && s.URL == "" {
		r.b.Report.Skipf(path, "mcp.server-field", "remote server %s has no url", Quote(name))
		keep = false
	}
	return s, keep
}

// claudeToolFilter warns that Claude Code (2.1.332) reads no tool filter
// on a server: loaded in place, it offers every tool the server lists.
// bundlectl keeps the filter, which its own MCP proxy enforces under exec.
func (r hostReader) claudeToolFilter(field, path string) {
	if r.host == HostClaude {
		r.b.Report.Warnf(path, "mcp.tools-filter", "Claude Code does not read %s: a session that loads the plugin itself gets every tool of the server; only bundlectl exec, which serves the server through bundlectl, keeps to the filter", Quote(field))
	}
}

// ---- LSP servers ----

// readLSPServers reads Claude Code's LSP map {name: {command, args, …}}.
func (r hostReader) readLSPServers(v *jsonValue, path string) {
	if v.kind != jsonObject {
		r.typeErr(path, "an object keyed by server name", v)
		return
	}
	for _, name := range v.keys {
		d, dp := v.obj[name], FieldPath(path, name)
		l := LSPServer{Name: name, Source: dp, Hosts: addHost(nil, r.host)}
		if d.kind != jsonObject {
			r.typeErr(dp, "an object", d)
			continue
		}
		keep := true
		for _, k := range d.keys {
			f, fp := d.obj[k], FieldPath(dp, k)
			good := true
			switch k {
			case "command":
				l.Command, good = r.str(f, fp)
			case "args":
				l.Args, good = r.strs(f, fp)
			case "env":
				l.Env, good = r.strMap(f, fp)
			case "transport":
				l.Transport, good = r.str(f, fp)
			case "extensionToLanguage":
				l.Languages, good = r.strMap(f, fp)
			default:
				other(&l.Other, k, f)
			}
			keep = keep && good
		}
		if l.Command == "" {
			r.b.Report.Skipf(dp, "lsp.command", "language server %s has no command", Quote(name))
			keep = false
		}
		if !keep {
			continue
		}
		// As for MCP: the later declaration of a name wins (.lsp.json,
		// then the manifest's lspServers).
		r.b.Components.LSP = declareLater(r, r.b.Components.LSP, l, "lsp.overridden", "language server",
			func(l LSPServer) (string, []Host, string) { return l.Name, l.Hosts, l.Source })
	}
}

// ClaudeHookShell says why Claude Code (2.1.332) does not run a plugin
// command hook with a POSIX shell, from its "shell" field (canonical JSON
// in other), or "" when it does. Claude Code accepts only "bash" and
// "powershell": any other value fails its hooks schema and it runs none
// of the hooks declared with it; "powershell" runs a shell-form command
// with pwsh (or powershell) from PATH, and not at all where neither is
// found (internal/agenttest TestClaudeHookShellField). An exec-form hook
// ("args") runs without a shell, whatever "shell" says.
func ClaudeHookShell(other map[string]json.RawMessage, shellForm bool) string {
	raw, ok := other["shell"]
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil || s != "bash" && s != "powershell" {
		return "its \"shell\" is " + Sanitize(string(raw)) + ", not \"bash\" or \"powershell\", so Claude Code rejects this hook and never runs it (the plugin's other hooks still run)"
	}
	if s == "powershell" && shellForm {
		return "its \"shell\" is \"powershell\", so Claude Code runs its command with PowerShell (pwsh or powershell on PATH), and not at all where neither is installed"
	}
	return ""
}

// ClaudeDataRef is the placeholder Claude Code (2.1.332) refuses in a
// skill's front-matter hook: it throws "only ${CLAUDE_PLUGIN_ROOT} is
// available for skill hooks (${CLAUDE_PLUGIN_DATA} is plugin-only)" for a
// command or args holding it, so that hook does not run; the skill's other
// hooks do, and the event goes ahead (internal/agenttest
// TestClaudeSkillHookPluginVars).
const ClaudeDataRef = "${CLAUDE_PLUGIN_DATA}"

// ClaudeBadHookShell reports whether a hook's "shell" is a value Claude
// Code's (2.1.332) hooks schema rejects: anything but "bash" or
// "powershell".
func ClaudeBadHookShell(other map[string]json.RawMessage) bool {
	raw, ok := other["shell"]
	if !ok {
		return false
	}
	var s string
	return json.Unmarshal(raw, &s) != nil || s != "bash" && s != "powershell"
}

// ClaudeGuardEvent reports whether Claude Code (2.1.332) refuses a whole
// plugin for a hook on event that fails its hooks schema: "a
// PreToolUse/PermissionRequest hook that cannot be loaded may be what
// guards the permissions declared beside it, so nothing it sits in is
// applied" (claude plugin validate; internal/agenttest
// TestClaudeHookShellField). On any other event only that hook is dropped.
func ClaudeGuardEvent(event string) bool {
	return event == "PreToolUse" || event == "PermissionRequest"
}

// ClaudeSkillHooksRejected says why Claude Code (2.1.332) runs none of a
// skill's front-matter hooks: one of them has a "shell" its schema
// rejects, which fails the skill's whole hooks object (the skill itself
// still loads; internal/agenttest TestClaudeHookShellField). hs are the
// skill's hooks, each with its Other.
func ClaudeSkillHooksRejected(others []map[string]json.RawMessage) string {
	for _, o := range others {
		if ClaudeBadHookShell(o) {
			return "a hook of the same skill has a \"shell\" of " + Sanitize(string(o["shell"])) + ", not \"bash\" or \"powershell\", so Claude Code rejects the skill's front-matter hooks and runs none of them"
		}
	}
	return ""
}

// ClaudeShellOptionRef returns the first ${user_config.KEY} in command.
// Claude Code (2.1.332) never runs a plugin hook whose shell-form command
// (no "args") holds one, whatever the option (sensitive or not, set or
// not, declared or not): it refuses the hook before it starts ("references
// ${user_config.*} in a shell-form command"; internal/agenttest
// TestClaudeOptionShellForm). Its pattern is \$\{user_config\.([^}]+)\}:
// a key of at least one character.
func ClaudeShellOptionRef(command string) (string, bool) {
	const open = "${user_config."
	s := command
	for {
		i := strings.Index(s, open)
		if i < 0 {
			return "", false
		}
		s = s[i:]
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return "", false
		}
		if end > len(open) {
			return s[:end+1], true
		}
		s = s[len(open):]
	}
}

// ClaudeOnFailureBlocks reports whether a Claude Code hook's "onFailure"
// (canonical JSON in other) makes a failure of the hook a block: "block",
// and, failing closed, any value but "continue" (Claude Code 2.1.332
// takes only "continue" and "block"). Claude Code ignores it for async
// hooks and on Stop, SubagentStop, TaskCompleted and TeammateIdle; the
// caller decides those.
func ClaudeOnFailureBlocks(other map[string]json.RawMessage) bool {
	raw, ok := other["onFailure"]
	return ok && string(raw) != `"continue"`
}

// claudeOnFailureValid reports whether Claude Code's hooks schema takes v
// as a hook's onFailure: "continue" or "block", nothing else.
func claudeOnFailureValid(v *jsonValue) bool {
	return v.kind == jsonString && (v.str == "continue" || v.str == "block")
}

// ClaudeHookBackground reports whether Claude Code runs a hook in the
// background, where its onFailure blocks nothing: "async" or
// "asyncRewake" true (internal/agenttest TestClaudeOnFailureModes).
// other is the hook's fields kept as canonical JSON.
func ClaudeHookBackground(async bool, other map[string]json.RawMessage) bool {
	return async || string(other["asyncRewake"]) == "true"
}

// ClaudeOnFailureIgnoredOn reports whether Claude Code ignores a hook's
// onFailure on event (its failure never blocks there).
func ClaudeOnFailureIgnoredOn(event string) bool {
	switch event {
	case "Stop", "SubagentStop", "TaskCompleted", "TeammateIdle":
		return true
	}
	return false
}

// claudeURLRef is the first ${NAME} in an http hook's url, which Claude
// Code sends as written, and whether it is in the url's host or port
// (before the path, query or fragment). The host is the one JavaScript's
// URL reads: a ${NAME} in user information ("https://${X}@127.0.0.1/",
// which Claude Code posts to 127.0.0.1) is not in it.
func claudeURLRef(u string) (ref string, inHost bool) {
	u = ClaudeURLTrim(u)
	loc := braceRef().FindStringIndex(u)
	if loc == nil {
		return "", false
	}
	if in, start, end, ok := jsSpecialHostSpan(u); ok {
		if l := braceRef().FindStringIndex(in); l != nil {
			return in[l[0]:l[1]], l[0] >= start && l[0] < end
		}
	}
	start := 0
	if i := strings.Index(u, "://"); i >= 0 {
		start = i + 3
	}
	end := len(u)
	if i := strings.IndexAny(u[start:], `/\?#`); i >= 0 {
		end = start + i
	}
	return u[loc[0]:loc[1]], loc[0] >= start && loc[0] < end
}

// ClaudeHTTPCannotPost reports whether Claude Code (2.1.332) loads an http
// hook with url s but can never post the event to it: JavaScript's URL
// parses s (jsURLRefuses does not refuse it) and its scheme is neither
// http nor https (read by bundlectl's url rules). Claude Code fails such a
// hook on every call ("Unsupported protocol"), "ftp:", "mailto:", "data:",
// "ws:" and "wss:" alike: it never reads a data url's text as the answer
// and opens no WebSocket (internal/agenttest TestClaudeHTTPHookAnswers,
// TestClaudeHTTPHookURLVarsAndWebSocket).
func ClaudeHTTPCannotPost(s string) bool {
	s = ClaudeURLTrim(s)
	if jsURLRefuses(s) {
		return false
	}
	scheme, _, _ := strings.Cut(jsURLInput(s), ":")
	switch strings.ToLower(scheme) {
	case "http", "https":
		return false
	}
	return true
}
