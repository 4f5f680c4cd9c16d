package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/internal/jsjson"
	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// MaxHookChain bounds how deep hooks may nest (a hook that runs bundlectl,
// which fires hooks, …): deeper is refused before anything runs. Any
// number of hooks may match one event.
const MaxHookChain = 10

// maxRejudge bounds the rounds of a chain whose hooks keep rewriting the
// tool input: every round re-runs every hook on the latest input, and a
// chain still rewriting after this many rounds is refused.
const maxRejudge = 3

// HookDepthEnv carries the nesting depth into every hook's environment:
// a hook started by a bundlectl at depth d sees d+1. BUNDLECTL_* names are
// denied to bundle env, so a bundle cannot reset it.
const HookDepthEnv = "BUNDLECTL_HOOK_DEPTH"

// MaxHookEventBytes bounds the event read by `bundlectl hooks run`.
const MaxHookEventBytes = 16 << 20

// Permission decisions of PreToolUse (Claude Code semantics).
const (
	PermissionAllow = "allow"
	PermissionDeny  = "deny"
	PermissionAsk   = "ask"
)

// EventUsesMatcher reports whether a hook's matcher applies to event.
func EventUsesMatcher(event string) bool { return matchField(event) != "" }

// matchField names the event input field a hook matcher is matched
// against (bundle.MatchField); "" for an event whose hooks all run
// whatever their matcher says.
func matchField(event string) string { return bundle.MatchField(event) }

// matchValue returns the value a matcher is matched against in ev.
func matchValue(ev *HookEvent) string {
	switch f := matchField(ev.HookEventName); f {
	case "tool_name":
		return ev.ToolName
	case "source":
		return ev.Source
	case "trigger":
		return ev.Trigger
	case "":
		return ""
	default:
		var v string
		if raw, ok := ev.raw[f]; ok {
			json.Unmarshal(raw, &v)
		}
		return v
	}
}

// MatcherError is returned for a matcher that is not a valid regular
// expression.
type MatcherError struct {
	Matcher string
	Err     error
}

func (e *MatcherError) Error() string {
	return fmt.Sprintf("matcher %s is not a valid regular expression: %v", truncateText(strconv.Quote(e.Matcher), 120), e.Err)
}

func (e *MatcherError) Unwrap() error { return e.Err }

// CompileMatcher compiles a hook matcher anchored to the whole tool name,
// ^(?:matcher)$, so "Bash" does not match "BashOutput" and "Edit|Write"
// matches both tools. "" and "*" match everything and compile to nil.
// Validation uses it to reject a bad matcher before review.
func CompileMatcher(matcher string) (*regexp.Regexp, error) {
	if matcher == "" || matcher == "*" {
		return nil, nil
	}
	re, err := regexp.Compile("^(?:" + matcher + ")$")
	if err != nil {
		return nil, &MatcherError{Matcher: matcher, Err: err}
	}
	return re, nil
}

// MatchHook reports whether matcher selects toolName.
func MatchHook(matcher, toolName string) (bool, error) {
	if plainMatcher(matcher) {
		// Names and alternatives only: the anchored expression matches
		// exactly the listed names, so no expression is compiled (every
		// hook of the event is matched on every call).
		for alt := range strings.SplitSeq(matcher, "|") {
			if alt == toolName {
				return true, nil
			}
		}
		return false, nil
	}
	re, err := CompileMatcher(matcher)
	if err != nil || re == nil {
		return err == nil, err
	}
	return re.MatchString(toolName), nil
}

// ClaudeMatch reports whether matcher, from a Claude Code manifest's hook
// on event, selects value as Claude Code itself matches (checked in the
// installed @anthropic-ai/claude-code, 2.1.332, and by running it:
// internal/agenttest TestClaudeHookMatcherMoreEvents,
// TestClaudeStopFailureMatcher): "" or "*" selects everything; names of
// letters, digits and "_" joined by "|" are a list of exact names, and so,
// on most events (bundle.ClaudeCommaList), are names that also hold "-"
// joined by "," (spaces around them allowed); anything else is an
// unanchored regular expression ("^Bash" selects BashOutput too). A
// matcher Go cannot compile is a *MatcherError.
func ClaudeMatch(event, matcher, value string) (bool, error) {
	if matcher == "" || matcher == "*" {
		return true, nil
	}
	if commas := bundle.ClaudeCommaList(event); claudeNameList(matcher, commas) {
		seps := "|"
		if commas {
			seps = "|,"
		}
		for _, name := range strings.FieldsFunc(matcher, func(r rune) bool { return strings.ContainsRune(seps, r) }) {
			if strings.TrimSpace(name) == value {
				return true, nil
			}
		}
		return false, nil
	}
	if c := classReadOtherwise(matcher, value, "sS"); c != "" {
		return false, &MatcherError{Matcher: matcher, Err: fmt.Errorf("Claude Code's JavaScript reads %s as Unicode and Go as ASCII, so it cannot be applied to the non-ASCII name %s as Claude Code would", c, strconv.Quote(value))}
	}
	re, err := regexp.Compile(matcher)
	if err != nil {
		return false, &MatcherError{Matcher: matcher, Err: err}
	}
	return re.MatchString(value), nil
}

// classReadOtherwise returns the first escape \c of matcher (c one of
// classes) when value is not ASCII: a character class the host's regular
// expressions take as Unicode (JavaScript's \s; Rust's \w, \d, \s, \b
// and their negations) and Go's as ASCII, which may then select such a
// value differently. "" when there is none, or value is ASCII without a
// vertical tab.
func classReadOtherwise(matcher, value, classes string) string {
	same := true
	for i := 0; i < len(value); i++ {
		// Go's \s is [\t\n\f\r ]: it lacks the vertical tab that
		// JavaScript's and Rust's \s hold even on ASCII.
		if value[i] >= utf8.RuneSelf || value[i] == '\v' {
			same = false
			break
		}
	}
	if same {
		return ""
	}
	for i := 0; i+1 < len(matcher); i++ {
		if matcher[i] != '\\' {
			continue
		}
		if strings.IndexByte(classes, matcher[i+1]) >= 0 {
			return matcher[i : i+2]
		}
		i++ // an escaped character, \\ included
	}
	return ""
}

// claudeNameList reports whether Claude Code reads matcher as a list of
// names rather than a regular expression: letters, digits, "_" and "|",
// and with commas also "-", "," and spaces.
func claudeNameList(matcher string, commas bool) bool {
	for _, r := range matcher {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '|':
		case commas && strings.ContainsRune(", -", r):
		default:
			return false
		}
	}
	return true
}

// CodexMatch reports whether matcher, from a Codex manifest, selects
// value as Codex itself matches (codex-rs hooks, matches_matcher): "" or
// "*" selects everything; a matcher of ASCII letters, digits, "_" and "|"
// only is a list of exact names; anything else is an unanchored regular
// expression ("^Bash" selects BashOutput too; "mcp__fs" does not select
// mcp__fs__write, "mcp__fs.*" does). A matcher Go cannot compile is a
// *MatcherError. Codex's regular expressions are Rust's, close to Go's
// RE2 but not the same: a matcher only Rust reads (verbose mode, \<,
// \b{start}) is an error here, which blocks a blocking event (FireChain);
// so is \w, \d, \s or \b (Unicode to Rust, ASCII to Go) against a name
// that is not ASCII.
// For a tool, Codex also
// matches its aliases: see bundle.CodexMatchNames.
func CodexMatch(matcher, value string) (bool, error) {
	if matcher == "" || matcher == "*" {
		return true, nil
	}
	if codexNameList(matcher) {
		return slices.Contains(strings.Split(matcher, "|"), value), nil
	}
	if c := classReadOtherwise(matcher, value, "wWdDsSbB"); c != "" {
		return false, &MatcherError{Matcher: matcher, Err: fmt.Errorf("Codex's Rust reads %s as Unicode and Go as ASCII, so it cannot be applied to the non-ASCII name %s as Codex would", c, strconv.Quote(value))}
	}
	re, err := regexp.Compile(matcher)
	if err != nil {
		return false, &MatcherError{Matcher: matcher, Err: err}
	}
	return re.MatchString(value), nil
}

func codexNameList(matcher string) bool {
	for i := 0; i < len(matcher); i++ {
		c := matcher[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '|') {
			return false
		}
	}
	return true
}

// GeminiMatch reports whether matcher, from a Gemini CLI manifest,
// selects value as Gemini CLI itself matches: the matcher trimmed; empty
// or "*" selects everything; a tool name (onTool) is matched by an
// unanchored regular expression, or, when the matcher does not compile,
// by equality; any other value (a trigger, a source) by equality.
// JavaScript and Go differ in a few regular-expression forms (look-around,
// backreferences): validation skips a hook whose matcher Go cannot parse,
// so such a matcher is compared by equality only here. Gemini CLI compiles
// without the u flag, where \s is Unicode and Go's is ASCII: against a
// name that is not ASCII, a matcher with \s or \S is an error (a block for
// a guard's event), as for Claude Code.
func GeminiMatch(matcher, value string, onTool bool) (bool, error) {
	m := strings.TrimSpace(matcher)
	switch {
	case m == "" || m == "*":
		return true, nil
	case !onTool:
		return m == value, nil
	}
	if c := classReadOtherwise(m, value, "sS"); c != "" {
		return false, &MatcherError{Matcher: matcher, Err: fmt.Errorf("Gemini CLI's JavaScript reads %s as Unicode and Go as ASCII, so it cannot be applied to the non-ASCII name %s as Gemini CLI would", c, strconv.Quote(value))}
	}
	re, err := regexp.Compile(m)
	if err != nil {
		return m == value, nil
	}
	return re.MatchString(value), nil
}

// plainMatcher reports whether matcher is tool names joined by "|", with
// no character a regular expression treats specially.
func plainMatcher(matcher string) bool {
	if matcher == "" || matcher == "*" {
		return false
	}
	for i := 0; i < len(matcher); i++ {
		c := matcher[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == ':' || c == '|') {
			return false
		}
	}
	return true
}

// HookEvent is the JSON a hook reads on stdin, Claude Code's hook input.
// The named fields are the ones bundlectl itself reads or sets; every other
// field of the input it was parsed from is kept and passed through
// unchanged, so an existing hook script sees what the calling harness
// sent.
type HookEvent struct {
	// In the order Claude Code 2.1.332 writes them (MarshalJSON writes
	// an event built from these fields alone so). omitempty leaves a
	// field out at its zero value only where no host writes it so: one
	// the hosts always write for the event is written at zero too
	// (writtenAtZero).
	SessionID          string          `json:"session_id,omitempty"`
	TranscriptPath     string          `json:"transcript_path,omitempty"`
	Cwd                string          `json:"cwd,omitempty"`
	PermissionMode     string          `json:"permission_mode,omitempty"`
	AgentID            string          `json:"agent_id,omitempty"`
	AgentType          string          `json:"agent_type,omitempty"`
	HookEventName      string          `json:"hook_event_name"`
	ToolName           string          `json:"tool_name,omitempty"`
	ToolInput          json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse       json.RawMessage `json:"tool_response,omitempty"`
	ToolUseID          string          `json:"tool_use_id,omitempty"`
	Prompt             string          `json:"prompt,omitempty"`
	Source             string          `json:"source,omitempty"`
	StopHookActive     bool            `json:"stop_hook_active,omitempty"`
	Trigger            string          `json:"trigger,omitempty"`
	CustomInstructions string          `json:"custom_instructions,omitempty"`

	raw map[string]json.RawMessage
	// order is the input's top-level keys as the host wrote them:
	// MarshalJSON writes them in that order, as the host gives a hook
	// its event. It is nil only for an event built from the named
	// fields, read from no input (not even an empty one).
	order []string
	// jsPrompt: raw["prompt"] is the prompt as Gemini CLI writes it after
	// a chained hook's additionalContext (geminiChainInput), a lone
	// surrogate kept as its escape where Prompt holds U+FFFD; MarshalJSON
	// writes it as it is. bundlectl never judges a prompt.
	jsPrompt bool
}

// HookEventError is returned for an event bundlectl cannot pass on.
type HookEventError struct{ Problem string }

func (e *HookEventError) Error() string { return "hook event: " + e.Problem }

// ValidHookEvent reports whether name is an event a supported host fires.
func ValidHookEvent(name string) bool {
	return bundle.KnownHookEvent("", name) || bundle.KnownHookEvent(bundle.HostCodex, name) || bundle.KnownHookEvent(bundle.HostGemini, name)
}

// ParseHookEvent reads a hook input object for event. The input's own
// hook_event_name, if any, is replaced by event: the event bundlectl was
// asked to fire is the one its hooks are told about. Empty input is an
// event with no fields besides the name.
func ParseHookEvent(data []byte, event string) (*HookEvent, error) {
	if !ValidHookEvent(event) {
		return nil, &HookEventError{Problem: fmt.Sprintf("unknown event %s (want an event of Claude Code, Codex or Gemini CLI, such as PreToolUse or BeforeTool)", truncateText(strconv.Quote(event), 80))}
	}
	if len(data) > MaxHookEventBytes {
		return nil, &HookEventError{Problem: fmt.Sprintf("input is larger than %d bytes", MaxHookEventBytes)}
	}
	ev := &HookEvent{order: []string{}} // read: no field the input lacks is added (writtenAtZero)
	if len(bytes.TrimSpace(data)) > 0 {
		// Not UTF-8, or two keys of a value that differ only in letter
		// case: readers of the event would not all see the same one
		// (readEventObject).
		if !utf8.Valid(data) {
			return nil, &HookEventError{Problem: "input is not UTF-8 (JSON must be)"}
		}
		members, err := readEventObject(data)
		if err != nil {
			return nil, err
		}
		ev.raw, ev.order = make(map[string]json.RawMessage, len(members)), make([]string, len(members))
		for i, m := range members {
			ev.raw[m.Key], ev.order[i] = m.Val, m.Key
		}
		// Each field by its exact name, as the hosts and their hooks read
		// it: a "CWD" or "Tool_Name" is some other field, passed on as it
		// is, and never the cwd that picks the guards or the tool they
		// match.
		if err := jsonobj.DecodeMembers(ev.raw, ev); err != nil {
			return nil, &HookEventError{Problem: "input field has the wrong type: " + truncateText(err.Error(), maxProblemText)}
		}
		// The workspace, and so which guards apply, comes from cwd: one
		// that names no directory must not quietly select none.
		if strings.IndexByte(ev.Cwd, 0) >= 0 {
			return nil, &HookEventError{Problem: "input field cwd is not a path (it holds a NUL byte): " + truncateText(strconv.Quote(ev.Cwd), 120)}
		}
	}
	ev.HookEventName = event
	return ev, nil
}

// readEventObject reads the members of the event object data, in the
// order written, each value a copy of its bytes: one pass (jsonobj.Scan)
// that refuses what checkSingleValue refuses and, in an object inside
// the top-level one (tool_input, tool_response, llm_request, ...), two
// keys that differ only in letter case, each refusal worded by the walk
// (walkCheck). Those values come from the model and the tools, and
// whoever reads them next may read them with a case-insensitive decoder
// (Go's encoding/json in an MCP server or a guard, which keeps the last
// of the two) where a case-sensitive one (a JavaScript guard, the host)
// reads the other: a guard could judge one path and the tool act on
// another. The top level is the host's own, read by exact name
// (ParseHookEvent), so a key there is simply another field.
func readEventObject(data []byte) ([]jsonobj.Member, error) {
	members, isObject, ok := jsonobj.Scan(data, jsonobj.UniqueFoldedInside)
	if !ok {
		err := walkCheck(data, true) // says why (Scan, just run, would only refuse again)
		if err == nil {
			err = errors.New("not one JSON value with each key once")
		}
		return nil, &HookEventError{Problem: "input is not one JSON object: " + truncateText(err.Error(), maxProblemText)}
	}
	if !isObject {
		return nil, &HookEventError{Problem: "input is not a JSON object"}
	}
	// The values share data's bytes: one copy for all of them, so that
	// the event does not change with its caller's buffer.
	owned := bytes.Clone(data)
	for i := range members {
		m := &members[i]
		start := cap(data) - cap(m.Val)
		m.Val = owned[start : start+len(m.Val) : start+len(m.Val)]
	}
	return members, nil
}

// MarshalJSON writes the named fields that are set and every other field
// of the original input as it came. An event read from input keeps the
// input's key order and, for a field bundlectl did not change, its value's
// bytes, so a hook reads the event as the host would give it. When the
// input lacks hook_event_name it goes where the hosts write it: after the
// fields each host's events start with (hostLeadingField) and before the
// event's own; another named field the input lacks (a tool_input a hook
// added) goes right after the nearest field before it in HookEvent's
// order that the event has (placeAdded), tool_input after tool_name as
// the hosts write it. An event built from the named fields alone is
// written in Claude Code's order, as its hook contract is bundlectl's,
// with the fields the hosts always write at their zero value too
// (writtenAtZero).
func (e HookEvent) MarshalJSON() ([]byte, error) { return e.encode() }

// encode is the event as jsonobj.MarshalNoEscape writes it (compact,
// U+2028 and U+2029 as the characters), written here in one pass over
// its values: through encoding/json, a hook's input of 1 MB was encoded,
// decoded again and compacted twice, 20 ms before every hook.
func (e *HookEvent) encode() ([]byte, error) {
	named, err := e.namedMembers(e.order == nil)
	if err != nil {
		return nil, err
	}
	size := 2
	for _, v := range e.raw {
		size += len(v) + 64
	}
	for _, m := range named {
		size += len(m.Val) + 64
	}
	w := eventWriter{b: make([]byte, 0, size)}
	w.b = append(w.b, '{')
	if len(e.raw) == 0 {
		for _, m := range named {
			w.member(m.Key, m.Val)
		}
		return w.end()
	}
	set := make(map[string]json.RawMessage, len(named))
	for _, m := range named {
		set[m.Key] = m.Val
	}
	order := e.order
	if len(order) != len(e.raw) {
		order = slices.Sorted(maps.Keys(e.raw)) // no order known: a stable one
	}
	const nameKey = "hook_event_name"
	_, nameDue := set[nameKey]
	if _, given := e.raw[nameKey]; given {
		nameDue = false
	}
	first, after := e.placeAdded(set)
	write := func(k string, v json.RawMessage) {
		w.member(k, v)
		for _, a := range after[k] {
			w.member(a, set[a])
		}
	}
	for _, a := range first {
		w.member(a, set[a])
	}
	leading := true
	for _, k := range order {
		leading = leading && hostLeadingField(k)
		if nameDue && !leading {
			write(nameKey, set[nameKey])
			nameDue = false
		}
		v, ok := e.raw[k]
		if !ok {
			return nil, fmt.Errorf("hook event: key %q lost", k)
		}
		if s, isNamed := set[k]; isNamed && !sameJSONString(s, v) && !(k == "prompt" && (e.jsPrompt || sameAsRead(s, v))) {
			v = s // changed by bundlectl: its new value
		}
		write(k, v)
	}
	if nameDue { // the input's fields all lead
		write(nameKey, set[nameKey])
	}
	return w.end()
}

// placeAdded says where each named field of set that the input lacks
// goes (hook_event_name apart, which goes where hostLeadingField says):
// right after the nearest field before it in HookEvent's order that the
// event has — a tool_input a hook's updatedInput added right after
// tool_name, where Claude Code, Codex and Gemini CLI all write it —
// and, with none before it, first.
func (e *HookEvent) placeAdded(set map[string]json.RawMessage) (first []string, after map[string][]string) {
	has := func(k string) bool {
		_, ok := e.raw[k]
		return ok || k == "hook_event_name"
	}
	for i, k := range hookEventFields {
		if _, named := set[k]; !named || has(k) {
			continue
		}
		j := i - 1
		for j >= 0 && !has(hookEventFields[j]) {
			j--
		}
		if j < 0 {
			first = append(first, k)
			continue
		}
		if after == nil {
			after = map[string][]string{}
		}
		after[hookEventFields[j]] = append(after[hookEventFields[j]], k)
	}
	return first, after
}

// namedMembers is each named field that is set (omitempty leaves out a
// zero value) — and, of an event built from the named fields alone, each
// the host writes whatever its value (writtenAtZero) — in HookEvent's
// order, its value as JSON: a string as jsonobj.MarshalNoEscape writes
// it, a json.RawMessage as it is (the eventWriter compacts it).
func (e *HookEvent) namedMembers(built bool) ([]jsonobj.Member, error) {
	v := reflect.ValueOf(e).Elem()
	t := v.Type()
	ms := make([]jsonobj.Member, 0, len(hookEventFields))
	for i := range t.NumField() {
		name, opts, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "" {
			continue
		}
		f := v.Field(i)
		var val json.RawMessage
		switch zero := opts == "omitempty" && f.IsZero(); {
		case zero && built && name == "custom_instructions" && writtenAtZero(e.HookEventName, name):
			ms = append(ms, jsonobj.Member{Key: name, Val: json.RawMessage("null")}) // Claude Code's none
			continue
		case zero && (!built || f.Kind() == reflect.Slice || !writtenAtZero(e.HookEventName, name)):
			continue // a json.RawMessage left nil has no value to write
		}
		switch f.Kind() {
		case reflect.String:
			if s := f.String(); plainKey(s) {
				val = append(append(append(make([]byte, 0, len(s)+2), '"'), s...), '"')
			} else {
				var err error
				if val, err = jsonobj.MarshalNoEscape(s); err != nil {
					return nil, err
				}
			}
		case reflect.Bool:
			val = json.RawMessage(strconv.FormatBool(f.Bool()))
		default: // json.RawMessage
			val = f.Bytes()
			if val == nil {
				val = json.RawMessage("null")
			}
		}
		ms = append(ms, jsonobj.Member{Key: name, Val: val})
	}
	return ms, nil
}

// writtenAtZero reports whether the hosts write the named field key on
// event whatever its value, so that an event built from HookEvent's
// fields writes it at its zero value too ("stop_hook_active":false):
// session_id, transcript_path and cwd on every event of the three hosts
// (harness testdata/host-events.json), and each other field where
// Claude Code 2.1.332's hook input for the event has it as a key whatever
// its value (tool_name on the tool events, tool_use_id on those but
// PermissionRequest; prompt on UserPromptSubmit; source on SessionStart; stop_hook_active on Stop and
// SubagentStop; agent_id and agent_type on SubagentStart and
// SubagentStop; trigger on PreCompact, PostCompact and Setup;
// custom_instructions, null when none, on PreCompact). Codex 0.171 and
// Gemini CLI 0.61 write those their events share, and Gemini CLI's
// BeforeTool and AfterTool tool_name, BeforeAgent and AfterAgent prompt,
// AfterAgent stop_hook_active.
func writtenAtZero(event, key string) bool {
	switch key {
	case "session_id", "transcript_path", "cwd":
		return true
	case "tool_name":
		return bundle.ToolEvent(event)
	case "tool_use_id":
		return event == "PreToolUse" || event == "PostToolUse" || event == "PostToolUseFailure" || event == "PermissionDenied"
	case "prompt":
		return event == "UserPromptSubmit" || event == "BeforeAgent" || event == "AfterAgent"
	case "source":
		return event == "SessionStart"
	case "stop_hook_active":
		return event == "Stop" || event == "SubagentStop" || event == "AfterAgent"
	case "agent_id", "agent_type":
		return event == "SubagentStart" || event == "SubagentStop"
	case "trigger":
		return event == "PreCompact" || event == "PostCompact" || event == "Setup"
	case "custom_instructions":
		return event == "PreCompact"
	}
	return false
}

// hookEventFields are the keys of HookEvent's fields, in its order.
var hookEventFields = func() []string {
	t := reflect.TypeFor[HookEvent]()
	var keys []string
	for i := range t.NumField() {
		if k, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}()

// hostLeadingField reports whether key is one of the fields a host's hook
// input starts with, before hook_event_name (read from each host's code
// and seen in every event it gave a hook offline: harness
// testdata/host-events.json): Claude Code 2.1.332's session_id,
// transcript_path, cwd, scratchpad_dir, prompt_id, permission_mode,
// agent_id, agent_type and effort; Codex 0.171's session_id, turn_id,
// transcript_path and cwd; Gemini CLI 0.61's session_id, transcript_path
// and cwd.
func hostLeadingField(key string) bool {
	switch key {
	case "session_id", "turn_id", "transcript_path", "cwd", "scratchpad_dir", "prompt_id", "permission_mode", "agent_id", "agent_type", "effort":
		return true
	}
	return false
}

// eventWriter writes the members of a hook event object, keeping the
// first error.
type eventWriter struct {
	b   []byte
	err error
}

func (w *eventWriter) member(k string, v json.RawMessage) {
	if len(w.b) > 1 {
		w.b = append(w.b, ',')
	}
	if plainKey(k) {
		w.b = append(append(append(w.b, '"'), k...), '"', ':')
	} else {
		name, err := jsonobj.MarshalNoEscape(k)
		w.keep(err)
		w.b = append(append(w.b, name...), ':')
	}
	var err error
	w.b, err = jsonobj.AppendCompact(w.b, v)
	w.keep(err)
}

func (w *eventWriter) keep(err error) {
	if err != nil && w.err == nil {
		w.err = err
	}
}

// end closes the object: its bytes, or the first error.
func (w *eventWriter) end() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	return append(w.b, '}'), nil
}

// plainKey reports whether JSON writes k between quotes as it is:
// printable ASCII without '"' or '\\'.
func plainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// sameAsRead reports whether set, the JSON of a string field bundlectl
// holds, is raw, the field as the host wrote it, read by encoding/json:
// bundlectl left it as it was. For the prompt, which bundlectl never
// judges, the hook is then given the host's own spelling, as in place: a
// lone surrogate of a prompt Gemini CLI wrote with JSON.stringify
// ("\ud800") stays its escape, where encoding/json reads U+FFFD.
func sameAsRead(set, raw json.RawMessage) bool {
	var a, b string
	return json.Unmarshal(set, &a) == nil && json.Unmarshal(raw, &b) == nil && a == b
}

// sameJSONString reports whether the JSON values a and b are the same:
// byte for byte, or two strings that read the same ("\u00e9" and "é")
// as UTF-16 code units. encoding/json reads a lone surrogate ("\ud800")
// as U+FFFD, the value bundlectl matched and judged; a hook in JavaScript
// or Python reads it as itself, so the two are not the same and the hook
// is given the value bundlectl judged.
func sameJSONString(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if len(a) == 0 || len(b) == 0 || a[0] != '"' || b[0] != '"' {
		return false
	}
	return sameJSON(a, b)
}

// HookResult is one hook's answer, read by ParseHookOutput. Bundle and
// Index say which hook gave it (FireChain fills them in).
type HookResult struct {
	Bundle string
	Index  int
	ID     string // the hook's inventory id, when known

	ExitCode int
	TimedOut bool
	// Failure, when set, makes the result a reported, non-blocking
	// failure; every other field but ExitCode and TimedOut is then zero.
	Failure string

	// Blocked is set by exit status 2 (Reason is stderr) and by a JSON
	// "decision": "block" (Reason is "reason").
	Blocked bool
	Reason  string
	// Decision is the JSON "decision" as written ("block", "approve").
	Decision string

	Continue       bool // false when the JSON says "continue": false
	StopReason     string
	SuppressOutput bool
	SystemMessage  string

	// From hookSpecificOutput.
	HookEventName      string
	PermissionDecision string // "allow", "deny", "ask" or ""
	PermissionReason   string
	AdditionalContext  string
	UpdatedInput       json.RawMessage // a JSON object, or nil
	// ToolConfig is hookSpecificOutput.toolConfig, Gemini CLI's
	// BeforeToolSelection answer, read as Gemini CLI 0.61 reads it
	// (ReadToolConfig), or nil; ToolConfigProblem says why one that was
	// given could not be read. Other events ignore both, as Gemini CLI does.
	ToolConfig        *ToolConfig
	ToolConfigProblem string
	// GeminiToolInput is hookSpecificOutput.tool_input, Gemini CLI's
	// BeforeTool rewrite of the tool's arguments, when it is a JSON
	// object (Gemini CLI ignores any other value), else nil. It replaces
	// the arguments whole (runRound); updatedInput means nothing there.
	GeminiToolInput json.RawMessage
	// LLMRequest and LLMResponse are hookSpecificOutput.llm_request and
	// llm_response, Gemini CLI's BeforeModel and AfterModel answers, when
	// they are JSON objects, else nil. bundlectl relays them as given.
	LLMRequest, LLMResponse json.RawMessage
	// TailToolCallRequest is hookSpecificOutput.tailToolCallRequest, a
	// Gemini CLI AfterTool hook's request to run another tool whose result
	// replaces this one's, when it is a JSON object (as Gemini CLI
	// requires), else nil. ClearContext is AfterAgent's
	// hookSpecificOutput.clearContext: true.
	TailToolCallRequest json.RawMessage
	ClearContext        bool

	// PlainOutput is stdout of an exit-0 hook that is not a JSON object.
	PlainOutput string

	// geminiShared is set when Gemini CLI reads this answer on an event
	// whose name it shares with Claude Code (geminiSharedAnswer).
	geminiShared bool
	// geminiChain is the answer as Gemini CLI 0.61 passes it on to the
	// next hook of a sequential group (geminiChainInput): the values of
	// hookSpecificOutput as given, whatever their JSON type.
	geminiChain geminiChainAnswer
	// codexAnswer is set when Codex reads this answer (--host codex):
	// Codex 0.171 takes any of its event names in hookEventName and never
	// compares it with the event (codex-rs hooks/src/schema.rs
	// HookEventNameWire), so a deny naming another event still blocks
	// (internal/agenttest TestCodexPreToolUseOtherEventName).
	codexAnswer bool
}

// hookOutput is the JSON a hook may print on exit 0. Pointers tell an
// absent field from a zero one; a field of the wrong type is a failure.
type hookOutput struct {
	Continue           *bool   `json:"continue"`
	StopReason         *string `json:"stopReason"`
	SuppressOutput     *bool   `json:"suppressOutput"`
	SystemMessage      *string `json:"systemMessage"`
	Decision           *string `json:"decision"`
	Reason             *string `json:"reason"`
	HookSpecificOutput *struct {
		HookEventName            *string         `json:"hookEventName"`
		PermissionDecision       *string         `json:"permissionDecision"`
		PermissionDecisionReason *string         `json:"permissionDecisionReason"`
		AdditionalContext        *string         `json:"additionalContext"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		ToolConfig               json.RawMessage `json:"toolConfig"`
		ToolInput                json.RawMessage `json:"tool_input"`
		LLMRequest               json.RawMessage `json:"llm_request"`
		LLMResponse              json.RawMessage `json:"llm_response"`
		TailToolCallRequest      json.RawMessage `json:"tailToolCallRequest"`
		ClearContext             json.RawMessage `json:"clearContext"`
		// PermissionRequest answers with a decision object instead.
		Decision *struct {
			Behavior     *string         `json:"behavior"`
			Message      *string         `json:"message"`
			UpdatedInput json.RawMessage `json:"updatedInput"`
			Interrupt    *bool           `json:"interrupt"`
		} `json:"decision"`
	} `json:"hookSpecificOutput"`
}

// ParseHookOutput interprets a finished hook by Claude Code's contract:
//
//   - a timeout, or an exit status other than 0 and 2: a reported,
//     non-blocking failure;
//   - exit status 2: block, with stderr (trimmed) as the reason;
//   - exit status 0: stdout that starts with '{' (after white space, a
//     byte order mark included: trimAnswer) must
//     be one JSON object of the hook output schema — if it does not parse,
//     has a field of the wrong type or an unknown decision value, the
//     whole result is a reported, non-blocking failure and none of it is
//     used; any other stdout is plain output. PermissionRequest's
//     hookSpecificOutput.decision {behavior, message, updatedInput,
//     interrupt} is read into the same permission fields.
//
// It never panics, whatever the bytes.
func ParseHookOutput(exitCode int, stdout, stderr []byte, timedOut bool) HookResult {
	r := HookResult{ExitCode: exitCode, TimedOut: timedOut, Continue: true}
	switch {
	case timedOut:
		r.Failure = "timed out and was killed"
		return r
	case exitCode == 2:
		r.Blocked = true
		r.Reason = strings.TrimSpace(string(stderr))
		if r.Reason == "" {
			r.Reason = "blocked by a hook (exit status 2)"
		}
		return r
	case exitCode < 0:
		r.Failure = "was killed by a signal" + stderrSuffix(stderr)
		return r
	case exitCode != 0:
		r.Failure = fmt.Sprintf("exited with status %d", exitCode) + stderrSuffix(stderr)
		return r
	}
	out := trimAnswer(stdout)
	if len(out) == 0 {
		return r
	}
	if out[0] != '{' {
		r.PlainOutput = string(out)
		return r
	}
	fail := func(format string, args ...any) HookResult {
		return HookResult{ExitCode: exitCode, Continue: true, Failure: fmt.Sprintf(format, args...)}
	}
	// Checked once the keys the answer has are picked as the hosts pick
	// them, by exact name: a key given twice counts with its last value
	// there, as JSON.parse and serde_json's Value keep it. Else
	// {"decision":"block","Decision":"approve"} (a guard echoing its
	// input into its JSON, say) read as "approve" here and let the tool
	// run where Claude Code and Gemini CLI read "block".
	answer := jsonobj.Exact(out, (*hookOutput)(nil))
	// One JSON object whose picked keys are each given once (exactKeys
	// re-encodes them) may still repeat a name inside a value passed on
	// (updatedInput, tool_input, ...): that value is malformed, but a
	// block, deny or stop beside it still counts (passedOnDup below), as
	// the hosts read the rest of the answer.
	dup := checkSingleValue(answer)
	if dup != nil && !json.Valid(answer) {
		return fail("output looks like JSON but is not one JSON object: %s", truncateText(dup.Error(), maxProblemText))
	}
	var ho hookOutput
	if err := json.Unmarshal(answer, &ho); err != nil {
		return fail("output JSON does not follow the hook output schema: %s", truncateText(err.Error(), maxProblemText))
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	if ho.Continue != nil {
		r.Continue = *ho.Continue
	}
	r.StopReason = str(ho.StopReason)
	r.SuppressOutput = ho.SuppressOutput != nil && *ho.SuppressOutput
	r.SystemMessage = str(ho.SystemMessage)
	r.Decision = str(ho.Decision)
	r.Reason = str(ho.Reason)
	switch r.Decision {
	case "", "approve":
	case geminiAllow, geminiDeny, geminiAsk:
		// Gemini CLI's words: Outcome.add reads them on its events only.
	case "block":
		r.Blocked = true
		if r.Reason == "" {
			r.Reason = "blocked by a hook"
		}
	default:
		return fail("output JSON has an unknown decision %s", truncateText(strconv.Quote(r.Decision), 80))
	}
	if hs := ho.HookSpecificOutput; hs != nil {
		r.HookEventName = str(hs.HookEventName)
		r.PermissionDecision = str(hs.PermissionDecision)
		r.PermissionReason = str(hs.PermissionDecisionReason)
		r.AdditionalContext = str(hs.AdditionalContext)
		r.ToolConfig, r.ToolConfigProblem = ReadToolConfig(hs.ToolConfig)
		r.GeminiToolInput = jsonObject(hs.ToolInput)
		r.LLMRequest, r.LLMResponse = jsonObject(hs.LLMRequest), jsonObject(hs.LLMResponse)
		r.geminiChain = geminiChainAnswer{contextGiven: hs.AdditionalContext != nil, context: answerContext(answer), toolInput: slices.Clone(hs.ToolInput), llmRequest: slices.Clone(hs.LLMRequest)}
		r.TailToolCallRequest = jsonObject(hs.TailToolCallRequest)
		r.ClearContext = string(bytes.TrimSpace(hs.ClearContext)) == "true" // Gemini CLI: === true
		switch r.PermissionDecision {
		case "", PermissionAllow, PermissionDeny, PermissionAsk, permissionDefer:
		default:
			return fail("output JSON has an unknown permissionDecision %s", truncateText(strconv.Quote(r.PermissionDecision), 80))
		}
		updated := hs.UpdatedInput
		if d := hs.Decision; d != nil {
			// PermissionRequest: {"behavior": "allow"|"deny", "message",
			// "updatedInput", "interrupt"}, folded into the same fields.
			if r.PermissionDecision != "" {
				return fail("output JSON has both permissionDecision and decision")
			}
			switch b := str(d.Behavior); b {
			case PermissionAllow, PermissionDeny:
				r.PermissionDecision = b
			default:
				return fail("output JSON has an unknown decision.behavior %s", truncateText(strconv.Quote(b), 80))
			}
			r.PermissionReason = str(d.Message)
			if d.Interrupt != nil && *d.Interrupt {
				r.Continue = false
				r.StopReason = firstNonEmpty(r.StopReason, r.PermissionReason)
			}
			if len(updated) == 0 {
				updated = d.UpdatedInput
			}
		}
		if u := bytes.TrimSpace(updated); len(u) > 0 && !bytes.Equal(u, []byte("null")) {
			if u[0] != '{' {
				return fail("output JSON updatedInput is not a JSON object")
			}
			r.UpdatedInput = json.RawMessage(slices.Clone(u))
		}
		if dup != nil && passedOnDup(hs.UpdatedInput, hs.ToolInput, hs.LLMRequest, hs.LLMResponse, hs.TailToolCallRequest, hs.ClearContext, decisionUpdatedInput(hs.Decision)) {
			// A toolConfig is read as Gemini CLI reads it (the last
			// value of a name: ReadToolConfig) and relayed re-encoded.
			refuses := r.Blocked || r.Decision == geminiDeny || r.PermissionDecision == PermissionDeny || !r.Continue
			if !refuses {
				return fail("output looks like JSON but is not one JSON object: %s", truncateText(dup.Error(), maxProblemText))
			}
			// The refusal stands (Claude Code, Codex and Gemini CLI
			// read it beside the malformed value); nothing is passed on.
			r.UpdatedInput, r.GeminiToolInput, r.LLMRequest, r.LLMResponse, r.TailToolCallRequest, r.ClearContext = nil, nil, nil, nil, nil, false
			r.geminiChain = geminiChainAnswer{}
		}
	} else if dup != nil {
		return fail("output looks like JSON but is not one JSON object: %s", truncateText(dup.Error(), maxProblemText))
	}
	return r
}

// passedOnDup reports whether one of the values a hook's answer passes on
// repeats a name in one of its objects.
func passedOnDup(values ...json.RawMessage) bool {
	for _, v := range values {
		if len(bytes.TrimSpace(v)) > 0 && checkSingleValue(v) != nil {
			return true
		}
	}
	return false
}

// decisionUpdatedInput is PermissionRequest's decision.updatedInput, if any.
func decisionUpdatedInput(d *struct {
	Behavior     *string         `json:"behavior"`
	Message      *string         `json:"message"`
	UpdatedInput json.RawMessage `json:"updatedInput"`
	Interrupt    *bool           `json:"interrupt"`
}) json.RawMessage {
	if d == nil {
		return nil
	}
	return d.UpdatedInput
}

// jsonObject returns raw, trimmed and copied, when it is a JSON object,
// else nil.
func jsonObject(raw json.RawMessage) json.RawMessage {
	if v := bytes.TrimSpace(raw); len(v) > 0 && v[0] == '{' {
		return json.RawMessage(slices.Clone(v))
	}
	return nil
}

func stderrSuffix(stderr []byte) string {
	line, _, _ := strings.Cut(strings.TrimSpace(string(stderr)), "\n")
	if line == "" {
		return ""
	}
	return ": " + truncateText(line, maxProblemText)
}

// HookRef names one hook: its bundle and its index in that bundle's hooks.
type HookRef struct {
	Bundle string `json:"bundle"`
	Hook   int    `json:"hook"`
	// ID is the hook's id in its bundle's inventory (the one review,
	// show and switches name), when known.
	ID string `json:"-"`
}

func (h HookRef) String() string {
	if h.ID != "" {
		return fmt.Sprintf("%s hook %s", bundle.Quote(h.Bundle), h.ID)
	}
	return fmt.Sprintf("%s hook %d", bundle.Quote(h.Bundle), h.Hook)
}

// HookError is a reported, non-blocking failure of one hook.
type HookError struct {
	Bundle  string `json:"bundle"`
	Hook    int    `json:"hook"`
	ID      string `json:"-"` // as HookRef's
	Message string `json:"message"`
	// Hint is the command that fixes it, if bundlectl knows one. It is
	// printed on a line of its own (WithHint); the message, which may
	// quote a hook's output, never breaks a line, so it cannot forge one.
	Hint string `json:"hint,omitempty"`
}

func (e HookError) Error() string {
	msg := fmt.Sprintf("%s: %s", HookRef{e.Bundle, e.Hook, e.ID}, bundle.Sanitize(e.Message))
	if e.Hint == "" {
		return msg
	}
	return WithHint(msg, bundle.Sanitize(e.Hint))
}

// Outcome is the combined answer of a hook chain.
type Outcome struct {
	Event string
	// Host is the host the outcome is written for ("" for bundlectl's
	// own contract): under Codex a guard that cannot run on PreCompact is
	// answered with a stop (StopsOnFailedGuardIn).
	Host bundle.Host

	// Blocked: the action the event describes must not proceed (exit 2,
	// "decision": "block" or "permissionDecision": "deny"), for the
	// Reason given by BlockedBy. A refused or canceled chain is blocked
	// too.
	Blocked   bool
	Reason    string
	BlockedBy *HookRef
	// NoToolName: the event is a tool event whose input names no tool,
	// so the hooks that match on a tool name could not be applied (the
	// block, or the note, ends with NoToolNameFix).
	NoToolName bool
	// answered: the block is a hook's own answer, relayed as the host
	// reads it, not bundlectl failing closed (StopsOnFailedGuard).
	answered bool
	// blockFix is the command that shows what to change about a block
	// bundlectl made of the hooks' answers (geminiArgs), printed by the
	// caller (HookRun.Fire), which knows the user's flags.
	blockFix string

	// Continue false: stop the agent altogether (Claude Code's
	// "continue": false), with StopReason for the user.
	Continue   bool
	StopReason string

	// PermissionDecision is "ask" if any hook asked, else "allow" if
	// any allowed, else empty; "deny" only with Blocked.
	PermissionDecision string
	PermissionReason   string

	AdditionalContext []string
	// UpdatedInput is the last hook's replacement of tool_input, or nil;
	// only PreToolUse and PermissionRequest hooks can set it.
	UpdatedInput   json.RawMessage
	SuppressOutput bool
	SystemMessages []string
	Errors         []HookError

	// NoTools: a guard of Gemini CLI's BeforeToolSelection could not run.
	// No answer there blocks (Gemini CLI 0.61 reads only a tool
	// configuration), so bundlectl fails closed by answering one that
	// offers no tools (mode "NONE"), which wins over every other hook's
	// answer (internal/agenttest TestGeminiBeforeToolSelectionNone).
	NoTools bool
	// ToolConfig is the hooks' BeforeToolSelection answers merged as
	// Gemini CLI merges several hooks' (MergeToolConfigs), or nil when
	// none gave one. NoTools overrides it.
	ToolConfig *ToolConfig
	// LLMRequest and LLMResponse are Gemini CLI's BeforeModel and
	// AfterModel answers (hookSpecificOutput.llm_request, llm_response):
	// the last hook's that gave one, as Gemini CLI merges several hooks'
	// answers there (field by field, the later replacing the earlier).
	LLMRequest, LLMResponse json.RawMessage
	// TailToolCallRequest is Gemini CLI's AfterTool tail call, the last
	// hook's that asked for one (Gemini CLI's merge); ClearContext is set
	// when any AfterAgent hook asked to clear the context.
	TailToolCallRequest json.RawMessage
	ClearContext        bool
}

// WithholdsTools reports whether a guard of event that cannot run is
// answered with a tool configuration offering no tools (Outcome.NoTools)
// rather than with a block, which the host would ignore.
func WithholdsTools(event string) bool { return event == "BeforeToolSelection" }

// StopsOnFailedGuard reports whether a guard of event that cannot run is
// answered with "continue": false (the agent stops) rather than with a
// block. On Gemini CLI 0.61's AfterModel a block stops only the rest of
// the model's streamed answer: the chunk the hook judged is still used,
// a tool call in it included, while "continue": false ends the turn
// before it is (its geminiChat and Turn; internal/agenttest
// TestSetupGeminiAfterModelBlock). A hook's own block there is relayed
// as it is, as Gemini CLI reads it.
func StopsOnFailedGuard(event string) bool { return event == "AfterModel" }

// StopsOnFailedGuardIn is StopsOnFailedGuard for host: also, under Codex,
// the events bundlectl fails closed on (bundle.BlockingEvent) where Codex
// 0.171 takes a hook's exit 2 as a failed hook and goes ahead, but stops
// on "continue": false: PreCompact, where a stop aborts the turn before
// the compaction (codex-rs hooks/src/events/compact.rs parse_pre_completed:
// any status but 0 is Failed, continue false is should_stop).
func StopsOnFailedGuardIn(host bundle.Host, event string) bool {
	if StopsOnFailedGuard(event) {
		return true
	}
	return host == bundle.HostCodex && bundle.BlockingEvent(event) && !bundle.Exit2Blocks(bundle.HostCodex, event) &&
		slices.Contains(codexStopsOnContinue, event)
}

// codexStopsOnContinue are the events on which Codex 0.171 no hook can
// block but a hook's "continue": false stops (codexIgnoresContinue has
// the others).
var codexStopsOnContinue = []string{"SessionStart", "PreCompact", "PostCompact"}

// StopWhy says why a guard of event that cannot run stops the agent under
// host rather than blocking the event (StopsOnFailedGuardIn).
func StopWhy(host bundle.Host, event string) string {
	if StopsOnFailedGuard(event) {
		return "a block on " + event + " would still let the answer it judged through"
	}
	return "Codex takes a block on " + event + " as a failed hook and goes ahead"
}

// guardedEvent reports whether a guard of event that cannot run must
// fail closed with a block, or, where a block does not hold under host
// (StopsOnFailedGuardIn), a stop. event is host's name of it.
func guardedEvent(host bundle.Host, event string) bool {
	return bundle.BlockingEvent(event) || StopsOnFailedGuardIn(host, event)
}

// withholdTools is block's counterpart for an event WithholdsTools: the
// event proceeds with no tools offered, and reason tells the user why.
func (o *Outcome) withholdTools(reason string) {
	o.NoTools = true
	o.SystemMessages = append(o.SystemMessages, reason)
}

// Proceed reports whether the action the event describes may go ahead:
// not blocked and not told to stop. Callers must not look at Blocked
// alone: "continue": false stops a tool call too.
func (o Outcome) Proceed() bool { return !o.Blocked && o.Continue }

// takesUpdatedInput reports whether event's hooks may replace tool_input:
// only before the tool runs. Elsewhere updatedInput is ignored.
func takesUpdatedInput(event string) bool {
	return event == "PreToolUse" || event == "PermissionRequest" || event == geminiBeforeTool
}

// relaysModelAnswers reports whether event is Gemini CLI's BeforeModel or
// AfterModel, whose hooks may answer a changed model request
// (llm_request), a synthetic or changed response (llm_response).
func relaysModelAnswers(event string) bool { return event == "BeforeModel" || event == "AfterModel" }

// geminiBeforeTool is Gemini CLI's event before a tool runs, whose hooks
// rewrite its arguments with hookSpecificOutput.tool_input, which
// replaces them whole (runRound), never with updatedInput.
const (
	geminiBeforeTool  = "BeforeTool"
	geminiBeforeAgent = "BeforeAgent"
	geminiBeforeModel = "BeforeModel"
)

// NewOutcome is the outcome of an empty chain: proceed.
func NewOutcome(event string) Outcome { return Outcome{Event: event, Continue: true} }

// Combine folds results in precedence order and stops at the first one
// that blocks or says "continue": false; later results are not looked at.
func Combine(event string, results []HookResult) Outcome {
	o := NewOutcome(event)
	for _, r := range results {
		if o.add(r) {
			break
		}
	}
	return o
}

// add folds one result into o and reports whether the chain stops here.
func (o *Outcome) add(r HookResult) bool {
	ref := HookRef{Bundle: r.Bundle, Hook: r.Index, ID: r.ID}
	if o.Event == "PreSkillShellCommand" {
		r = skillShellAnswer(r)
	} else if r.Failure == "" && r.PermissionDecision == permissionDefer {
		r = HookResult{Bundle: r.Bundle, Index: r.Index, ID: r.ID, ExitCode: r.ExitCode, Continue: true,
			Failure: fmt.Sprintf("output JSON has an unknown permissionDecision %q", permissionDefer)}
	}
	if r.Failure == "" && o.Event == geminiBeforeTool && r.PermissionDecision == PermissionAsk {
		// Gemini CLI reads no hookSpecificOutput.permissionDecision; its
		// ask is the top-level decision, read next.
		r.PermissionDecision = ""
	}
	if r.Failure == "" && (r.Decision == geminiAllow || r.Decision == geminiDeny || r.Decision == geminiAsk) {
		r = geminiDecision(o.Event, r)
	}
	if r.Failure != "" {
		o.Errors = append(o.Errors, HookError{Bundle: r.Bundle, Hook: r.Index, ID: r.ID, Message: r.Failure})
		return false
	}
	if r.HookEventName != "" && r.HookEventName != o.Event && !geminiOnlyEvent(o.Event) && !r.geminiShared &&
		!(r.codexAnswer && bundle.KnownHookEvent(bundle.HostCodex, r.HookEventName)) {
		// Gemini CLI 0.61 never reads hookSpecificOutput.hookEventName
		// (DefaultHookOutput): on its own events an answer naming
		// another event counts all the same, its deny included
		// (TestSetupGeminiExitAnswers other-event-deny).
		o.Errors = append(o.Errors, HookError{Bundle: r.Bundle, Hook: r.Index, ID: r.ID,
			Message: fmt.Sprintf("hookSpecificOutput names event %s, not %s; output ignored", truncateText(strconv.Quote(r.HookEventName), 80), o.Event)})
		return false
	}
	if r.SystemMessage != "" {
		o.SystemMessages = append(o.SystemMessages, r.SystemMessage)
	}
	if r.geminiShared {
		return o.addGeminiShared(ref, r)
	}
	if WithholdsTools(o.Event) {
		return o.addToolSelection(ref, r)
	}
	o.SuppressOutput = o.SuppressOutput || r.SuppressOutput
	if o.Event == geminiBeforeTool && r.GeminiToolInput == nil {
		r.UpdatedInput = nil // Gemini CLI reads no updatedInput there
	}
	if r.UpdatedInput != nil && takesUpdatedInput(o.Event) {
		o.UpdatedInput = r.UpdatedInput
	}
	if r.AdditionalContext != "" {
		o.AdditionalContext = append(o.AdditionalContext, r.AdditionalContext)
	}
	if o.Event == "AfterTool" && r.TailToolCallRequest != nil {
		o.TailToolCallRequest = r.TailToolCallRequest
	}
	if o.Event == "AfterAgent" && r.ClearContext {
		o.ClearContext = true
	}
	if relaysModelAnswers(o.Event) {
		if r.LLMRequest != nil {
			o.LLMRequest = r.LLMRequest
		}
		if r.LLMResponse != nil {
			o.LLMResponse = r.LLMResponse
		}
	}
	if r.PlainOutput != "" && (o.Event == "UserPromptSubmit" || o.Event == "SessionStart") {
		o.AdditionalContext = append(o.AdditionalContext, r.PlainOutput)
	}
	stop := false
	if !r.Continue {
		o.Continue = false
		o.StopReason = r.StopReason
		stop = true
	}
	if relaysModelAnswers(o.Event) {
		return o.addModelAnswer(ref, r)
	}
	switch {
	case r.PermissionDecision == PermissionDeny:
		o.block(ref, firstNonEmpty(r.PermissionReason, r.Reason, "denied by a hook"))
		o.PermissionDecision, o.PermissionReason = PermissionDeny, o.Reason
		o.answered = true
		return true
	case r.Blocked:
		o.block(ref, r.Reason)
		o.answered = true
		return true
	case r.PermissionDecision == PermissionAsk:
		o.PermissionDecision, o.PermissionReason = PermissionAsk, r.PermissionReason
	case r.PermissionDecision == PermissionAllow || r.Decision == "approve" && o.Event == "PreToolUse":
		if o.PermissionDecision == "" {
			o.PermissionDecision = PermissionAllow
			o.PermissionReason = firstNonEmpty(r.PermissionReason, r.Reason)
		}
	}
	return stop
}

// addModelAnswer folds the block of a BeforeModel or AfterModel hook
// into o without ending the chain: Gemini CLI 0.61 runs every hook of
// these events and merges their answers field by field
// (mergeWithFieldReplacement), so a later hook's "continue": false still
// stops the agent after an earlier hook's block, which on AfterModel
// alone would let the judged chunk, and a tool call in it, through
// (TestSetupGeminiAfterModelBlock). Stricter than Gemini CLI, a block or
// a stop stays once given: a later hook's "decision": "allow" or
// "continue": true does not undo it here.
func (o *Outcome) addModelAnswer(ref HookRef, r HookResult) bool {
	if (r.Blocked || r.PermissionDecision == PermissionDeny) && !o.Blocked {
		o.block(ref, firstNonEmpty(r.Reason, r.PermissionReason, "blocked by a hook"))
		o.answered = true
	}
	return false
}

// addToolSelection folds a BeforeToolSelection answer into o as Gemini
// CLI 0.61 reads one: only its tool configuration counts, merged with the
// others' (MergeToolConfigs), and the chain never stops, since every hook
// there runs and is merged. A block, a deny or "continue": false changes
// nothing in Gemini CLI on this event (TestGeminiBeforeToolSelectionCannotBlock),
// so it neither blocks nor ends the chain here; the user is told it was
// ignored. A tool configuration Gemini CLI would misread offers no tools.
func (o *Outcome) addToolSelection(ref HookRef, r HookResult) bool {
	o.SuppressOutput = o.SuppressOutput || r.SuppressOutput
	if r.ToolConfigProblem != "" {
		o.withholdTools(fmt.Sprintf("bundlectl: %s: its %s, so it cannot be applied as written; no tools are offered", ref, r.ToolConfigProblem))
	}
	o.ToolConfig = MergeToolConfigs(o.ToolConfig, r.ToolConfig)
	if r.Blocked || r.PermissionDecision == PermissionDeny || !r.Continue {
		o.SystemMessages = append(o.SystemMessages, fmt.Sprintf("bundlectl: %s answered a block or a stop on %s, which Gemini CLI ignores there (it reads only a toolConfig); ignored", ref, o.Event))
	}
	return false
}

// addGeminiShared folds an answer Gemini CLI 0.61 reads on an event it
// shares with Claude Code (geminiSharedAnswer) into o as Gemini CLI uses
// it: SessionStart's additionalContext goes to the model and every
// systemMessage to the user; Gemini CLI runs all of the event's hooks and
// uses nothing else from them (SessionEnd's, Notification's and
// PreCompress's answers not at all), so a block, a deny or "continue":
// false neither stops the other hooks nor the event, and the user is told
// it was ignored. Plain output after exit 0 is a systemMessage there, as
// Gemini CLI reads it (convertPlainTextToHookOutput), not context.
func (o *Outcome) addGeminiShared(ref HookRef, r HookResult) bool {
	o.SuppressOutput = o.SuppressOutput || r.SuppressOutput
	if r.AdditionalContext != "" {
		o.AdditionalContext = append(o.AdditionalContext, r.AdditionalContext)
	}
	if r.PlainOutput != "" {
		o.SystemMessages = append(o.SystemMessages, r.PlainOutput)
	}
	if r.Blocked || r.PermissionDecision == PermissionDeny || !r.Continue {
		o.SystemMessages = append(o.SystemMessages, fmt.Sprintf("bundlectl: %s answered a block or a stop on %s, which Gemini CLI ignores there (no hook can block or stop it); ignored", ref, o.Event))
	}
	return false
}

// geminiSharedAnswer reads a hook as Gemini CLI 0.61 does on an event
// whose name it shares with Claude Code, where no hook can block: as on
// its own events (geminiExitAnswer), and after exit status 2 too, when
// Gemini CLI reads the output as any other status's (hookRunner): a JSON
// object there is the answer, and text is a deny Gemini CLI ignores, so a
// reported failure; the event's other hooks still run.
func geminiSharedAnswer(event string, r HookResult, res *Result) HookResult {
	if res.ExitCode == 2 && !res.TimedOut {
		text := jsTrim(res.Stdout)
		if len(text) == 0 {
			text = jsTrim(res.Stderr)
		}
		r = HookResult{ExitCode: 2, Continue: true, Failure: fmt.Sprintf("exited with status 2, which Gemini CLI ignores on %s (no hook can block it)", event) + stderrSuffix(res.Stderr)}
		if obj := geminiAnswerObject(text); obj != nil {
			if a := ParseHookOutput(0, obj, nil, false); a.Failure == "" {
				r = a
				r.ExitCode = 2
			}
		}
	} else {
		r = geminiExitAnswer(r, res)
	}
	if r.Failure == "" {
		r.geminiShared = true
	}
	return r
}

// ToolConfigMisread says why Gemini CLI 0.61 would misread the
// BeforeToolSelection answer of a hook that ended as res (a toolConfig
// that is not an object, allowedFunctionNames that is not a list of
// strings: ReadToolConfig), reading it as Gemini CLI does whatever the
// exit status, or "" when it would not. Gemini CLI iterates a string's
// characters as names, and another value makes it drop every hook's
// configuration, a guard's "NONE" included; `hooks exec` answers such a
// hook with no tools instead, as hooks run resolves it.
func ToolConfigMisread(res *Result) string {
	if res.TimedOut {
		return ""
	}
	var r HookResult
	if res.ExitCode == 2 {
		text := jsTrim(res.Stdout)
		if len(text) == 0 {
			text = jsTrim(res.Stderr)
		}
		if obj := geminiAnswerObject(text); obj != nil {
			r = ParseHookOutput(0, obj, nil, false)
		}
	} else {
		r = geminiExitAnswer(ParseHookOutput(res.ExitCode, res.Stdout, res.Stderr, false), res)
	}
	return r.ToolConfigProblem
}

// Gemini CLI 0.61's top-level decisions beside "block": "deny" is its
// alias (DefaultHookOutput.isBlockingDecision), "allow" says nothing,
// and "ask" (isAskDecision) makes BeforeTool ask the user whatever the
// approval mode, yolo included, and says nothing on its other events.
const (
	geminiAllow = "allow"
	geminiDeny  = "deny"
	geminiAsk   = "ask"
)

// geminiDecision reads r's "allow" or "deny" as Gemini CLI does on its
// own events (BeforeTool, AfterTool, BeforeAgent, ...): "deny" blocks as
// "block" does, with "reason" as the reason, and "ask" on BeforeTool is
// PermissionAsk, which WriteOutcome answers as Gemini CLI's "ask" (a
// block wins over it, and it over an allow, as Gemini CLI merges
// several hooks' decisions: HookAggregator.mergeWithOrDecision). On any
// other event, which
// Claude Code or Codex fires and whose contract has no such value, the
// output is malformed, as before.
func geminiDecision(event string, r HookResult) HookResult {
	if !geminiOnlyEvent(event) && !r.geminiShared {
		return HookResult{Bundle: r.Bundle, Index: r.Index, ID: r.ID, ExitCode: r.ExitCode, Continue: true,
			Failure: fmt.Sprintf("output JSON has an unknown decision %q", r.Decision)}
	}
	switch {
	case r.Decision == geminiDeny:
		r.Blocked = true
		if r.Reason == "" {
			r.Reason = "blocked by a hook"
		}
	case r.Decision == geminiAsk && event == geminiBeforeTool && r.PermissionDecision != PermissionDeny:
		r.PermissionDecision, r.PermissionReason = PermissionAsk, r.Reason
	}
	return r
}

// geminiOnlyEvent reports whether only Gemini CLI fires event (BeforeTool,
// AfterTool, BeforeAgent, ...), so its hooks' answers are read as Gemini
// CLI reads them.
func geminiOnlyEvent(event string) bool {
	return bundle.KnownHookEvent(bundle.HostGemini, event) && !bundle.KnownHookEvent("", event) && !bundle.KnownHookEvent(bundle.HostCodex, event)
}

// geminiExitAnswer reads a hook as Gemini CLI 0.61 does (hookRunner),
// whatever its exit status but 2: its stdout, or its stderr when stdout
// is empty, is its answer, and a JSON string there is decoded once more
// (JSON.parse twice). A JSON object is read as an exit-0 answer, and
// other text after an exit status above 2 denies with that text as the
// reason (tried: a BeforeTool hook's exit 3 with a message, exit 1 with
// {"decision":"deny"}, exit 0 with that deny on stderr and stdout empty,
// and exit 0 or 1 with the deny as a JSON string, each keep the shell
// command from running, TestSetupGeminiExitAnswers). Exit 1 with text is
// Gemini CLI's warning: a reported failure, as before; exit 0 with text
// is plain output, as before. A timeout or a signal stays a reported
// failure.
func geminiExitAnswer(r HookResult, res *Result) HookResult {
	if res.TimedOut || res.ExitCode == 2 {
		return r
	}
	code := res.ExitCode
	if code < 0 {
		// Killed by a signal: Gemini CLI reads its null exit status as
		// 0 (exitCode || 0) and so its output as an exit-0 answer.
		code = 0
	}
	text := jsTrim(res.Stdout)
	if len(text) == 0 {
		text = jsTrim(res.Stderr)
	}
	if len(text) == 0 {
		return r
	}
	obj := geminiAnswerObject(text)
	if code == 0 {
		if obj == nil || res.ExitCode == 0 && bytes.Equal(obj, trimAnswer(res.Stdout)) {
			return r // read by ParseHookOutput already, or no answer
		}
		a := ParseHookOutput(0, obj, nil, false)
		a.ExitCode = res.ExitCode
		if res.ExitCode < 0 && a.Failure != "" {
			return r
		}
		return a
	}
	if obj != nil {
		a := ParseHookOutput(0, obj, nil, false)
		a.ExitCode = res.ExitCode
		if a.Failure == "" {
			return a
		}
	}
	if res.ExitCode == 1 {
		return r
	}
	// Gemini CLI reads output that is not JSON as text: denied.
	return HookResult{ExitCode: res.ExitCode, Continue: true, Blocked: true,
		Reason: string(text)}
}

// codexStatelessFields are the fields of a hook's JSON answer that Codex
// 0.171 reads on the events it lets no hook block: the universal ones and
// hookSpecificOutput (SessionStart's additionalContext). Its output
// schemas there refuse any other field (codex-rs hooks/src/schema.rs,
// deny_unknown_fields), "decision" and "reason" included.
var codexStatelessFields = []string{"continue", "stopReason", "suppressOutput", "systemMessage", "hookSpecificOutput"}

// codexStatelessAnswer reads r, the exit-0 answer of a hook on event,
// an event Codex 0.171 lets no hook block, as Codex does: a JSON answer
// with a field its schema for the event lacks ({"decision":"block"},
// say) does not parse, so Codex takes the hook as failed ("hook returned
// invalid session start JSON output"), uses nothing of its answer and
// runs the event's other hooks (codex-rs hooks/src/events
// session_start.rs parse_completed; internal/agenttest
// TestCodexNonBlockingDecision). Such an answer is a reported failure
// here too, so it neither stops the chain nor counts.
func codexStatelessAnswer(event string, r HookResult, res *Result) HookResult {
	if r.Failure != "" || res.ExitCode != 0 || res.TimedOut {
		return r
	}
	out := trimAnswer(res.Stdout)
	if len(out) == 0 || out[0] != '{' {
		return r
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(out, &fields) != nil {
		return r
	}
	keys := slices.Sorted(maps.Keys(fields))
	for _, k := range keys {
		if !slices.Contains(codexStatelessFields, k) {
			return HookResult{ExitCode: res.ExitCode, Continue: true,
				Failure: fmt.Sprintf("output JSON has the field %s, which Codex's output schema for %s does not have; Codex takes the whole answer as invalid (a failed hook) and uses none of it", truncateText(strconv.Quote(k), 80), event)}
		}
	}
	if !r.Continue && slices.Contains(codexIgnoresContinue, event) {
		note := fmt.Sprintf("bundlectl: the hook answered continue: false, which Codex ignores on %s; the other hooks run", event)
		r.Continue, r.StopReason = true, ""
		r.SystemMessage = strings.TrimPrefix(r.SystemMessage+"\n"+note, "\n")
	}
	return r
}

// codexIgnoresContinue are the events on which Codex 0.171 takes a
// hook's "continue": false as nothing: the hook completes, the event's
// other hooks run and the request is sent (tried: PreModelRequest and
// PostModelRequest, internal/agenttest TestCodexNonBlockingDecision;
// read: SubagentStart, codex-rs hooks/src/events/session_start.rs
// parse_completed, "Only SessionStart honors continue:false"). On
// SessionStart, PreCompact and PostCompact it stops, as bundlectl does.
var codexIgnoresContinue = []string{"PreModelRequest", "PostModelRequest", "SubagentStart"}

// trimAnswer trims a hook's stdout so that whatever a host reads as a
// JSON answer is read as one here: Claude Code and Gemini CLI trim as
// JavaScript does (a byte order mark, U+FEFF, goes too), Codex as Rust
// does (U+0085 goes too); both go here (TestClaudeHookAnswerBOM).
func trimAnswer(b []byte) []byte {
	return bytes.TrimFunc(b, func(r rune) bool { return r == '\uFEFF' || unicode.IsSpace(r) })
}

// jsTrim is JavaScript's String.prototype.trim, with which Gemini CLI
// reads a hook's output: it takes off a byte order mark (U+FEFF) too,
// where bytes.TrimSpace does not, and leaves U+0085, which
// bytes.TrimSpace takes off.
func jsTrim(b []byte) []byte {
	return bytes.TrimFunc(b, func(r rune) bool {
		return r == '\uFEFF' || r != '\u0085' && unicode.IsSpace(r)
	})
}

// AnswerCut reports whether the output the host reads as a hook's
// answer to event was cut at the output cap, so that a deny in it cannot
// be read: stdout after exit 0; on an event only Gemini CLI fires, which
// Gemini CLI 0.61 reads whole whatever the exit status (geminiExitAnswer),
// stdout after any status but 2, or stderr when stdout is empty. Never
// after a timeout.
func AnswerCut(event string, res *Result) bool {
	if res.TimedOut {
		return false
	}
	if res.StdoutTruncated && res.ExitCode == 0 {
		return true
	}
	if !geminiOnlyEvent(event) || res.ExitCode == 2 {
		return false
	}
	return res.StdoutTruncated || len(bytes.TrimSpace(res.Stdout)) == 0 && res.StderrTruncated
}

// CutAnswer says why the answer of bundleName's hook, cut at the output
// cap (AnswerCut), cannot be read.
func CutAnswer(bundleName, hook string, res *Result) string {
	if !res.StdoutTruncated && res.StderrTruncated {
		return fmt.Sprintf("bundle %s hook %s wrote nothing to stdout and more than %d bytes to stderr, which Gemini CLI then reads as its answer, so its answer cannot be read whole and the event is blocked", bundle.Quote(bundleName), hook, len(res.Stderr))
	}
	return TruncatedAnswer(bundleName, hook, res)
}

// geminiAnswerObject returns the JSON object Gemini CLI reads in a hook's
// output text: the text itself, or the object a JSON string in it
// encodes; nil when there is none.
func geminiAnswerObject(text []byte) []byte {
	if len(text) > 0 && text[0] == '"' {
		var s string
		if json.Unmarshal(text, &s) != nil {
			return nil
		}
		// JSON.parse of the string skips JSON's white space only.
		text = bytes.Trim([]byte(s), " \t\r\n")
	}
	if len(text) == 0 || text[0] != '{' || !json.Valid(text) {
		return nil
	}
	return text
}

// permissionDefer is the permissionDecision a hook gives to leave the
// call to the host's own handling. bundlectl reads it only on
// PreSkillShellCommand, where Claude Code does not run the command.
const permissionDefer = "defer"

// skillShellAnswer reads r as Claude Code (2.1.332) reads a
// PreSkillShellCommand hook's answer: a skill's inline shell command
// cannot wait for approval nor take another command, so "ask", "defer"
// and an updatedInput each keep it from running, and an answer written
// for PreToolUse or PermissionRequest counts as this event's.
func skillShellAnswer(r HookResult) HookResult {
	if r.Failure != "" {
		return r
	}
	if r.HookEventName == "PreToolUse" || r.HookEventName == "PermissionRequest" {
		r.HookEventName = "PreSkillShellCommand"
	}
	if r.Blocked || r.PermissionDecision == PermissionDeny {
		return r
	}
	const approval = "the hook asked for approval, which a skill can't wait for"
	switch {
	case r.PermissionDecision == PermissionAsk || r.PermissionDecision == permissionDefer:
		why := firstNonEmpty(r.PermissionReason, r.Reason)
		r.Blocked, r.Reason = true, approval
		if why != "" {
			r.Reason = why + "; " + approval
		}
	case r.UpdatedInput != nil:
		r.Blocked, r.Reason = true, "the hook changed the command, which isn't supported here"
	default:
		return r
	}
	r.PermissionDecision, r.UpdatedInput = "", nil
	return r
}

func (o *Outcome) block(ref HookRef, reason string) {
	o.Blocked = true
	o.Reason = reason
	o.BlockedBy = &ref
	o.answered = false
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// RunnableHook is one hook ready to run: its frozen launch spec (Stdin is
// replaced by the event, a zero Timeout becomes DefaultHookTimeout), its
// matcher, and who it belongs to.
type RunnableHook struct {
	Bundle  string
	Index   int    // the hook's index among its bundle's hooks, for messages
	ID      string // the hook's id in its bundle's inventory, if known
	Matcher string
	// Match, when set, is how Matcher selects the event's match value
	// (the host's rules, or bundlectl's own hooks under a host whose tool
	// names differ); nil is MatchHook.
	Match func(value string) (bool, error)
	Spec  Spec
	// Verify, when set, is called immediately before the hook is
	// spawned (the registry re-checks authority and the snapshot there).
	// A *BlockError blocks the event; errSkip skips the hook with a systemMessage;
	// any other error skips it and is reported, like a hook failure.
	Verify func(context.Context) error
	// Run runs the hook; nil means Run(ctx, spec).
	Run func(context.Context, Spec) (*Result, error)
	// exit2FailsIn, when set, names the host (or contract) that takes
	// this hook's exit status 2 as a failed hook, not a block (Codex or
	// Claude Code on an event it lets no hook block), so the chain
	// reports it and goes on to the event's other hooks.
	exit2FailsIn string
	// codex, when set, reads this hook's answer as Codex 0.171 reads it
	// (HookResult.codexAnswer).
	codex bool
	// codexUnblockable, when set, reads this hook's answer as Codex 0.171
	// reads it on an event it lets no hook block (SessionStart,
	// PostModelRequest, ...): codexStatelessAnswer.
	codexUnblockable bool
	// geminiShared, when set, reads this hook's answer as Gemini CLI 0.61
	// reads it on an event it shares with Claude Code (SessionStart,
	// SessionEnd, Notification, PreCompress): geminiSharedAnswer.
	geminiShared bool
	// geminiSequential, when set, says the hook's Gemini CLI matcher group
	// has "sequential": true (bundle.GeminiSequential): Gemini CLI 0.61
	// then runs every hook of the event in turn and gives each the input
	// as the earlier ones changed it (geminiChainInput).
	geminiSequential bool
	// onFailureBlock, when set, makes a failure of this hook (not run,
	// could not start, timed out, an exit status other than 0 and 2, an
	// answer that fails) a block, as Claude Code's hook field
	// "onFailure": "block" does (internal/agenttest TestClaudeOnFailureBlock).
	onFailureBlock bool
	// plainPasses, for a command hook, lets an answer Claude Code takes
	// as plain output (claudePlainAnswer) pass its onFailureBlock; an
	// http hook's answer is not known to be read so, and blocks.
	plainPasses bool
	// host is the host whose answer to a guard that cannot run the
	// chain gives (guardedEvent); "" is bundlectl's own contract.
	host bundle.Host
	// pastLimit, when set, says the hook's host waits for it longer than
	// bundlectl does (its timeout past MaxTimeout, kept as written:
	// HookWaitsPastLimit): timing out at bundlectl's limit, a guard
	// blocks its event, as its answer is unknown.
	pastLimit bool
}

// failedBlock blocks o's event for a hook h whose onFailure is "block".
func failedBlock(o *Outcome, h RunnableHook, why string) {
	o.block(HookRef{Bundle: h.Bundle, Hook: h.Index, ID: h.ID}, fmt.Sprintf("bundlectl: bundle %s hook %s failed (%s), and its onFailure is \"block\", so the event is blocked", bundle.Quote(h.Bundle), h.ID, why))
}

// claudePlainAnswer reports whether Claude Code takes a hook's answer as
// plain output, not as a failed one, though bundlectl reports it failed:
// stdout after exit status 0 that starts with '{' but is no JSON at all.
// Claude Code 2.1.332 does not block on it even with onFailure "block"
// (internal/agenttest TestClaudeOnFailureModes); JSON that fails its
// output schema does block there, and here.
func claudePlainAnswer(res *Result) bool {
	if res.ExitCode != 0 || res.TimedOut {
		return false
	}
	out := trimAnswer(res.Stdout)
	return len(out) > 0 && out[0] == '{' && !json.Valid(out)
}

// ChainError is returned when a chain is refused before anything runs.
type ChainError struct {
	Matching int // hooks that matched the event
	Depth    int // this process's nesting depth, from HookDepthEnv
	Problem  string
}

func (e *ChainError) Error() string {
	return "hook chain refused: " + e.Problem
}

// hookDepth reads this process's nesting depth. Unset is 0; a value that
// is not a small non-negative integer is refused rather than guessed.
func hookDepth() (int, error) {
	v, ok := os.LookupEnv(HookDepthEnv)
	if !ok {
		return 0, nil
	}
	d, err := strconv.Atoi(v)
	if err != nil || d < 0 || d > 1000 {
		return 0, fmt.Errorf("%s is not a valid depth", HookDepthEnv)
	}
	return d, nil
}

// FireChain runs the hooks of hooks that match ev, serially, in the order
// given (precedence order), each with the event JSON on stdin, and folds
// their answers into an Outcome. It stops at the first block.
//
// Whatever tool input finally runs has been judged by every hook: when a
// hook returns an updatedInput, the hooks after it receive that input, and
// the whole chain then runs again on it, so that the hooks before it judge
// it too; the chain ends when a full round changes nothing. A chain still
// rewriting the input after maxRejudge rounds is refused (blocked). Every
// hook's environment gets HookDepthEnv set to this process's depth plus
// one.
//
// The chain is refused — nothing runs, the Outcome is Blocked and the
// error a *ChainError — when this process is already MaxHookChain levels
// deep. If ctx is done before the chain completes, the running hook is
// killed, the Outcome is Blocked and the error is ctx's. Otherwise the
// error is nil and hook failures are in Outcome.Errors.
func FireChain(ctx context.Context, hooks []RunnableHook, ev *HookEvent) (Outcome, error) {
	if ev == nil {
		ev = &HookEvent{}
	}
	o := NewOutcome(ev.HookEventName)
	if !ValidHookEvent(ev.HookEventName) {
		return o.refuse(&ChainError{Problem: fmt.Sprintf("unknown event %s", truncateText(strconv.Quote(ev.HookEventName), 80))})
	}
	depth, err := hookDepth()
	if err != nil {
		return o.refuse(&ChainError{Depth: -1, Problem: err.Error()})
	}
	if depth >= MaxHookChain {
		return o.refuse(&ChainError{Depth: depth, Problem: fmt.Sprintf("hooks are nested %d deep (%s), the limit is %d", depth+1, HookDepthEnv, MaxHookChain)})
	}
	var matching []RunnableHook
	value := matchValue(ev)
	for _, h := range hooks {
		if EventUsesMatcher(ev.HookEventName) {
			match := h.Match
			if match == nil {
				match = func(v string) (bool, error) { return MatchHook(h.Matcher, v) }
			}
			ok, err := match(value)
			if err != nil {
				if guardedEvent(h.host, ev.HookEventName) {
					// The host may read the matcher (JavaScript's or Rust's
					// regular expressions) and run the guard; skipping it
					// would fail open.
					ref := HookRef{Bundle: h.Bundle, Hook: h.Index, ID: h.ID}
					o.block(ref, fmt.Sprintf("bundlectl: %s has a %s, so whether it guards this call is unknown; refused", ref, err))
					return o, nil
				}
				if WithholdsTools(ev.HookEventName) {
					ref := HookRef{Bundle: h.Bundle, Hook: h.Index, ID: h.ID}
					o.withholdTools(fmt.Sprintf("bundlectl: %s has a %s, so whether it guards this request is unknown; no tools are offered", ref, err))
					continue
				}
				o.Errors = append(o.Errors, HookError{Bundle: h.Bundle, Hook: h.Index, ID: h.ID, Message: err.Error()})
				continue
			}
			if !ok {
				continue
			}
		}
		matching = append(matching, h)
	}
	if len(matching) == 0 {
		return o, nil
	}
	cur := *ev // tool_input changes along the chain; the caller's event does not
	asked, askReason := false, ""
	for round := 1; ; round++ {
		ro, changed, err := runRound(ctx, matching, &cur, depth)
		ro.Errors = append(slices.Clone(o.Errors), ro.Errors...)
		// An ask stands once given: Claude Code and Gemini CLI merge every
		// hook's answer (deny, then ask, then allow) with the rewritten
		// input, so a guard that asked about an earlier version of the
		// call still has the user asked about the one that runs.
		if ro.PermissionDecision == PermissionAsk && !asked {
			asked, askReason = true, ro.PermissionReason
		} else if asked && !ro.Blocked && ro.PermissionDecision != PermissionDeny && ro.PermissionDecision != PermissionAsk {
			ro.PermissionDecision, ro.PermissionReason = PermissionAsk, askReason
		}
		if err != nil || ro.Blocked || !ro.Continue || !changed {
			if !ro.Blocked && !sameJSON(cur.ToolInput, ev.ToolInput) {
				ro.UpdatedInput = cur.ToolInput
			} else {
				ro.UpdatedInput = nil
			}
			return ro, err
		}
		if round == maxRejudge {
			ro.UpdatedInput = nil
			ro.block(HookRef{Bundle: "bundlectl", Hook: -1}, fmt.Sprintf("bundlectl: the hooks kept rewriting the tool input after %d rounds, so no version of it was judged by every hook; refused", maxRejudge))
			return ro, nil
		}
	}
}

// runRound runs every matching hook once on cur, updating cur.ToolInput
// as hooks rewrite it, and reports whether any hook changed it.
func runRound(ctx context.Context, matching []RunnableHook, cur *HookEvent, depth int) (Outcome, bool, error) {
	o := NewOutcome(cur.HookEventName)
	changed := false
	childDepth := HookDepthEnv + "=" + strconv.Itoa(depth+1)
	// in is what each hook is given: cur, or under a Gemini CLI
	// sequential group, cur as the earlier hooks changed it.
	in := cur
	chains := geminiChains(matching, cur.HookEventName)
	var args geminiArgs // what Gemini CLI would build the call from
	if chains {
		c := *cur
		c.raw = maps.Clone(cur.raw)
		in = &c
	}
	for _, h := range matching {
		if err := ctx.Err(); err != nil {
			out, err := o.cancel(err)
			return out, changed, err
		}
		if h.Verify != nil {
			if err := h.Verify(ctx); err != nil {
				var be *BlockError
				var nte *noToolsError
				switch {
				case errors.As(err, &nte):
					o.withholdTools(nte.reason)
				case errors.Is(err, errSkip):
					// The user's choice: not a failure, but not silent.
					o.SystemMessages = append(o.SystemMessages, fmt.Sprintf("bundlectl: bundle %s hook %s is switched off, so it did not run", bundle.Quote(h.Bundle), h.ID))
				case errors.As(err, &be):
					o.block(HookRef{Bundle: h.Bundle, Hook: h.Index, ID: h.ID}, be.Reason)
					return o, changed, nil
				default:
					// A check's fix is printed as the caller prints fix
					// commands (fixedError); any other error's as it is.
					fix := hintOf(err)
					var fe *fixedError
					if errors.As(err, &fe) {
						err, fix = fe.err, fe.fix
					}
					if h.onFailureBlock {
						failedBlock(&o, h, "not run: "+err.Error())
						return o, changed, nil
					}
					o.Errors = append(o.Errors, HookError{Bundle: h.Bundle, Hook: h.Index, ID: h.ID, Message: "not run: " + err.Error(), Hint: fix})
				}
				continue
			}
		}
		stdin, err := in.encode() // what jsonobj.MarshalNoEscape(in) writes, without encoding/json's passes
		if err != nil {
			o.Errors = append(o.Errors, HookError{Bundle: h.Bundle, Hook: h.Index, ID: h.ID, Message: "cannot encode the event: " + err.Error()})
			continue
		}
		spec := h.Spec
		spec.Stdin = stdin
		if spec.Timeout == 0 {
			spec.Timeout = DefaultHookTimeout
		}
		spec.Env = withEnv(spec.Env, childDepth)
		run := h.Run
		if run == nil {
			run = Run
		}
		res, err := run(ctx, spec)
		if err != nil {
			if ctx.Err() != nil {
				out, err := o.cancel(ctx.Err())
				return out, changed, err
			}
			var ce *CanceledError
			if errors.As(err, &ce) && failsClosed(ce.Cause) && guardedEvent(h.host, cur.HookEventName) {
				reason := "bundlectl: " + err.Error()
				reason = WithHint(reason, ce.Fix)
				o.block(HookRef{Bundle: h.Bundle, Hook: h.Index, ID: h.ID}, reason)
				return o, changed, nil
			}
			if errors.As(err, &ce) && failsClosed(ce.Cause) && WithholdsTools(cur.HookEventName) {
				o.withholdTools(WithHint("bundlectl: "+err.Error()+"; no tools are offered", ce.Fix))
				continue
			}
			var se *StartError
			if errors.As(err, &se) && guardedEvent(h.host, cur.HookEventName) {
				// A guard that cannot start guards nothing: blocked, as
				// hooks exec blocks it (exit 2), though Claude Code
				// 2.1.332 lets the tool run unless its onFailure is
				// "block" (internal/agenttest TestClaudeSpawnFailure).
				o.block(HookRef{Bundle: h.Bundle, Hook: h.Index, ID: h.ID}, fmt.Sprintf("bundlectl: bundle %s hook %s cannot run, so the event is blocked: %s", bundle.Quote(h.Bundle), h.ID, err))
				return o, changed, nil
			}
			if errors.As(err, &se) && WithholdsTools(cur.HookEventName) {
				o.withholdTools(fmt.Sprintf("bundlectl: bundle %s hook %s cannot run, so no tools are offered: %s", bundle.Quote(h.Bundle), h.ID, err))
				continue
			}
			if h.onFailureBlock {
				failedBlock(&o, h, err.Error())
				return o, changed, nil
			}
			o.Errors = append(o.Errors, HookError{Bundle: h.Bundle, Hook: h.Index, ID: h.ID, Message: err.Error()})
			continue
		}
		if res.Canceled {
			out, err := o.cancel(ctx.Err())
			return out, changed, err
		}
		if AnswerCut(cur.HookEventName, res) && guardedEvent(h.host, cur.HookEventName) {
			// Its answer was cut at the output cap: a deny it gave
			// cannot be read, so a guard's event is blocked.
			o.block(HookRef{Bundle: h.Bundle, Hook: h.Index, ID: h.ID}, "bundlectl: "+CutAnswer(h.Bundle, fmt.Sprint(h.Index), res))
			return o, changed, nil
		}
		if AnswerCut(cur.HookEventName, res) && WithholdsTools(cur.HookEventName) {
			o.withholdTools("bundlectl: " + strings.TrimSuffix(CutAnswer(h.Bundle, fmt.Sprint(h.Index), res), " and the event is blocked") + "; no tools are offered")
			continue
		}
		if h.geminiShared && !res.TimedOut && (res.StdoutTruncated || len(bytes.TrimSpace(res.Stdout)) == 0 && res.StderrTruncated) {
			// Gemini CLI reads the answer whole, whatever the exit
			// status; a cut one is not relayed as if whole (its context
			// or systemMessage cut short) but reported, naming the hook.
			why := strings.TrimSuffix(CutAnswer(h.Bundle, fmt.Sprint(h.Index), res), " and the event is blocked")
			o.Errors = append(o.Errors, HookError{Bundle: h.Bundle, Hook: h.Index, ID: h.ID, Message: why + "; it is not used (Gemini CLI reads it whole)"})
			continue
		}
		r := ParseHookOutput(res.ExitCode, res.Stdout, res.Stderr, res.TimedOut)
		if res.Problem != "" && r.Failure != "" {
			// bundlectl's own refusal, shown whole: its hint is a
			// command, useless cut as a hook's stderr is.
			r.Failure = fmt.Sprintf("exited with status %d: %s", res.ExitCode, bundle.Sanitize(res.Problem))
		}
		if h.exit2FailsIn != "" && res.ExitCode == 2 && !res.TimedOut {
			r = HookResult{ExitCode: 2, Continue: true, Failure: fmt.Sprintf("exited with status 2, which %s takes as a failed hook on %s, not a block", h.exit2FailsIn, cur.HookEventName) + stderrSuffix(res.Stderr)}
		} else if h.codexUnblockable {
			r = codexStatelessAnswer(cur.HookEventName, r, res)
		} else if h.geminiShared {
			r = geminiSharedAnswer(cur.HookEventName, r, res)
		} else if geminiOnlyEvent(cur.HookEventName) {
			r = geminiExitAnswer(r, res)
		}
		r.Bundle, r.Index, r.ID = h.Bundle, h.Index, h.ID
		r.codexAnswer = h.codex
		if cur.HookEventName == geminiBeforeTool && r.Failure == "" {
			// Gemini CLI reads tool_input there and no updatedInput:
			// the last hook's object becomes the arguments whole
			// (hookAggregator keeps the last tool_input; the
			// scheduler's evaluateBeforeToolHook builds the call from
			// it alone), so a key it leaves out is dropped.
			r.UpdatedInput = r.GeminiToolInput
		}
		if r.TimedOut {
			r.Failure = fmt.Sprintf("timed out after %s and was killed", res.Timeout)
			if h.pastLimit && guardedEvent(h.host, cur.HookEventName) {
				o.block(HookRef{Bundle: h.Bundle, Hook: h.Index, ID: h.ID}, pastLimitReason(h.Bundle, h.ID, res.Timeout))
				return o, changed, nil
			}
			if h.pastLimit && WithholdsTools(cur.HookEventName) {
				o.withholdTools(pastLimitText(h.Bundle, h.ID, res.Timeout) + ", so no tools are offered")
				continue
			}
		}
		if r.Failure != "" && h.onFailureBlock && !(h.plainPasses && claudePlainAnswer(res)) {
			failedBlock(&o, h, r.Failure)
			return o, changed, nil
		}
		if chains && r.Failure == "" && r.ExitCode == 0 && !r.TimedOut {
			geminiChainInput(in, r)
		}
		stop := o.add(r)
		if cur.HookEventName == geminiBeforeTool && r.Failure == "" {
			args.answered(HookRef{Bundle: h.Bundle, Hook: h.Index, ID: h.ID}, r, cur.ToolInput)
		}
		if r.Failure == "" && r.UpdatedInput != nil && takesUpdatedInput(cur.HookEventName) && !sameJSON(r.UpdatedInput, cur.ToolInput) {
			cur.ToolInput = r.UpdatedInput
			changed = true
		}
		if stop {
			break
		}
	}
	if args.reset != nil && !o.Blocked {
		o.UpdatedInput = nil
		o.block(args.reset.by, args.resetReason())
		o.blockFix = "bundlectl show " + bundle.ShellArg(args.reset.by.Bundle)
	}
	return o, changed, nil
}

// geminiArgs follows, through one round of BeforeTool hooks, which
// arguments Gemini CLI 0.61 would build the call from: its
// hookAggregator keeps the last hook's tool_input of any type, and its
// scheduler (evaluateBeforeToolHook, getModifiedToolInput) builds the
// call from it only when it is an object, else from the model's
// arguments (internal/agenttest TestGeminiToolInputReset).
type geminiArgs struct {
	rewrite *HookRef // the last hook whose tool_input changed the arguments
	// reset is set while the last tool_input given is not an object and
	// came after a rewrite: Gemini CLI would then run the arguments the
	// rewriter was given and did not let through as they were.
	reset *geminiReset
}

type geminiReset struct {
	by, after HookRef
	value     json.RawMessage
}

// answered notes hook ref's answer r, given the round's arguments in.
func (g *geminiArgs) answered(ref HookRef, r HookResult, in json.RawMessage) {
	given := bytes.TrimSpace(r.geminiChain.toolInput)
	switch {
	case len(given) == 0: // no tool_input: the last one given stands
	case r.GeminiToolInput != nil:
		g.reset = nil
		if !sameJSON(r.GeminiToolInput, in) {
			g.rewrite = &ref
		}
	case g.rewrite != nil:
		g.reset = &geminiReset{by: ref, after: *g.rewrite, value: slices.Clone(given)}
	}
}

// resetReason says why a round whose last tool_input undoes a rewrite
// is refused rather than run as Gemini CLI runs it.
func (g *geminiArgs) resetReason() string {
	var value bytes.Buffer
	if json.Compact(&value, g.reset.value) != nil {
		value.Write(g.reset.value)
	}
	return fmt.Sprintf("bundlectl: bundle %s answered hookSpecificOutput.tool_input %s, which is not an object, after bundle %s rewrote the arguments; Gemini CLI would then run the model's arguments, which the rewriting hook did not let through as they were, so no version of the arguments was judged by every hook; refused",
		g.reset.by, truncateText(value.String(), 80), g.reset.after)
}

// geminiChains reports whether Gemini CLI 0.61 would give the hooks of
// event, matching, inputs the earlier ones changed: when any of them
// comes from a "sequential": true group (its hookPlanner makes the whole
// event's plan sequential then), on BeforeAgent, BeforeModel and
// BeforeTool. (On BeforeTool every chain passes the arguments that would
// run on to the next hook, and has them judged again: FireChain.)
func geminiChains(matching []RunnableHook, event string) bool {
	if event != geminiBeforeAgent && event != geminiBeforeModel && event != geminiBeforeTool {
		return false
	}
	return slices.ContainsFunc(matching, func(h RunnableHook) bool { return h.geminiSequential })
}

// answerContext is hookSpecificOutput.additionalContext of the answer
// JSON object as written (the last one given, as JSON.parse keeps it),
// nil when there is none.
func answerContext(answer []byte) json.RawMessage {
	var hs, ctx json.RawMessage
	ms, _ := jsonobj.Members(answer)
	for _, m := range ms {
		if m.Key == "hookSpecificOutput" {
			hs = m.Val
		}
	}
	ms, _ = jsonobj.Members(hs)
	for _, m := range ms {
		if m.Key == "additionalContext" {
			ctx = m.Val
		}
	}
	return slices.Clone(ctx)
}

// geminiChainAnswer is what geminiChainInput reads of an answer.
type geminiChainAnswer struct {
	contextGiven bool // additionalContext is a string, maybe empty
	// context is that string as the answer wrote it (a lone surrogate
	// escape kept), nil when it was not given so.
	context               json.RawMessage
	toolInput, llmRequest json.RawMessage
}

// geminiChainInput changes in as Gemini CLI 0.61 changes the next hook's
// input after a hook that exited 0 (its hookRunner's
// applyHookOutputToInput): on BeforeAgent the hook's additionalContext,
// when a string (even an empty one), is added to the prompt after a
// blank line; on BeforeModel and BeforeTool its llm_request or
// tool_input, when truthy in JavaScript, is spread over the input's
// ({...cur, ...given}: an object's keys, an array's or a string's
// indexes). internal/agenttest TestGeminiSequentialChain and
// TestGeminiSequentialToolInput try them.
func geminiChainInput(in *HookEvent, r HookResult) {
	switch in.HookEventName {
	case geminiBeforeAgent:
		cur, ok := in.raw["prompt"]
		if !ok || !r.geminiChain.contextGiven {
			return
		}
		in.Prompt += "\n\n" + r.AdditionalContext
		if joined, ok := jsConcat(cur, json.RawMessage(`"\n\n"`), r.geminiChain.context); ok {
			in.raw["prompt"], in.jsPrompt = joined, true
		}
	case geminiBeforeModel:
		cur, ok := in.raw["llm_request"]
		if !ok || !jsTruthy(r.geminiChain.llmRequest) {
			return
		}
		if merged, ok := jsSpreadOver(cur, r.geminiChain.llmRequest); ok {
			in.raw["llm_request"] = merged
		}
	case geminiBeforeTool:
		if len(bytes.TrimSpace(in.ToolInput)) == 0 || !jsTruthy(r.geminiChain.toolInput) {
			return
		}
		if merged, ok := jsSpreadOver(in.ToolInput, r.geminiChain.toolInput); ok {
			in.ToolInput = merged
		}
	}
}

// jsConcat is the JSON strings parts joined with + in JavaScript, as
// JSON.stringify writes the result (internal/jsjson): a lone surrogate
// in one stays its escape. ok is false when a part is not a JSON string.
func jsConcat(parts ...json.RawMessage) (json.RawMessage, bool) {
	vs := make([]*jsjson.Value, len(parts))
	for i, raw := range parts {
		v, err := jsjson.Parse(raw)
		if err != nil {
			return nil, false
		}
		vs[i] = v
	}
	joined, ok := jsjson.Concat(vs...)
	if !ok {
		return nil, false
	}
	return joined.Stringify(), true
}

// jsTruthy reports whether JavaScript takes the JSON value v as true:
// anything but null, false, 0 and "" (and an absent value).
func jsTruthy(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return false
	}
	switch v[0] {
	case 'n', 'f':
		return false
	case '"':
		return len(v) > 2
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		var f float64
		return json.Unmarshal(v, &f) != nil || f != 0
	}
	return true
}

// jsSpreadOver is {...base, ...over} in JavaScript, on JSON values, as
// JSON.stringify writes it (internal/jsjson): an object spreads its keys,
// an array its indexes, a string its UTF-16 code units by index; null,
// booleans and numbers spread nothing. Gemini CLI parses a hook's answer
// with JSON.parse and writes the next hook's input with JSON.stringify,
// so the keys come in JavaScript's order, numbers as Number::toString
// writes them (1.0 is 1), strings with JSON.stringify's escapes and a lone
// surrogate kept: a hook that compares or hashes its input's text reads
// what Gemini CLI gives it. ok is false when a value cannot be read.
func jsSpreadOver(base, over json.RawMessage) (json.RawMessage, bool) {
	var vs []*jsjson.Value
	for _, raw := range []json.RawMessage{base, over} {
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		v, err := jsjson.Parse(raw)
		if err != nil {
			return nil, false
		}
		vs = append(vs, v)
	}
	return jsjson.Spread(vs...).Stringify(), true
}

// sameJSON reports whether two JSON documents have the same value (keys
// in any order); two empty ones are the same. Numbers are the same only
// as written: float64 would take 9007199254740993 for 9007199254740992
// (and -0 for 0), which Codex's serde_json tells apart, so a hook's
// rewrite of one into the other would be dropped and the arguments it
// rewrote run there. A JavaScript host reads them as one number, so
// counting them as a rewrite only relays what it would run anyway.
// Strings are the same only as the same UTF-16 code units: encoding/json
// reads a lone surrogate ("\ud800") as U+FFFD, so a hook rewriting one
// into U+FFFD was dropped and the model's string ran under a JavaScript
// host, which tells the two apart (decodeExact).
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		// The same bytes decode the same: the chain's end compares a
		// tool_input no hook rewrote with itself, and decoding 1 MB of
		// it twice took 15 ms.
		return true
	}
	if len(bytes.TrimSpace(a)) == 0 || len(bytes.TrimSpace(b)) == 0 {
		return len(bytes.TrimSpace(a)) == len(bytes.TrimSpace(b))
	}
	va, errA := decodeExact(a)
	vb, errB := decodeExact(b)
	if errA != nil || errB != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(va, vb)
}

func (o Outcome) refuse(err *ChainError) (Outcome, error) {
	o.Blocked, o.answered = true, false
	o.Reason = "bundlectl refused the hook chain: " + err.Problem
	return o, err
}

func (o Outcome) cancel(err error) (Outcome, error) {
	if err == nil {
		err = context.Canceled
	}
	o.Blocked, o.answered = true, false
	o.Reason = "bundlectl: the hook chain was canceled before it completed"
	return o, err
}

// withEnv returns env with kv ("NAME=value") replacing any entry of the
// same name.
func withEnv(env []string, kv string) []string {
	name, _, _ := strings.Cut(kv, "=")
	out := make([]string, 0, len(env)+1)
	for _, e := range env {
		if k, _, _ := strings.Cut(e, "="); k != name {
			out = append(out, e)
		}
	}
	return append(out, kv)
}

type outcomeJSON struct {
	Continue           *bool             `json:"continue,omitempty"`
	StopReason         string            `json:"stopReason,omitempty"`
	SuppressOutput     bool              `json:"suppressOutput,omitempty"`
	SystemMessage      string            `json:"systemMessage,omitempty"`
	Decision           string            `json:"decision,omitempty"`
	Reason             string            `json:"reason,omitempty"`
	HookSpecificOutput *hookSpecificJSON `json:"hookSpecificOutput,omitempty"`
}

type hookSpecificJSON struct {
	HookEventName            string              `json:"hookEventName"`
	PermissionDecision       string              `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string              `json:"permissionDecisionReason,omitempty"`
	Decision                 *permissionDecision `json:"decision,omitempty"`
	AdditionalContext        string              `json:"additionalContext,omitempty"`
	UpdatedInput             json.RawMessage     `json:"updatedInput,omitempty"`
	ToolInput                json.RawMessage     `json:"tool_input,omitempty"`
	LLMRequest               json.RawMessage     `json:"llm_request,omitempty"`
	LLMResponse              json.RawMessage     `json:"llm_response,omitempty"`
	TailToolCallRequest      json.RawMessage     `json:"tailToolCallRequest,omitempty"`
	ClearContext             bool                `json:"clearContext,omitempty"`
	ToolConfig               *ToolConfig         `json:"toolConfig,omitempty"`
}

// permissionDecision is PermissionRequest's answer.
type permissionDecision struct {
	Behavior     string          `json:"behavior"`
	Message      string          `json:"message,omitempty"`
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
}

// WriteOutcome writes o in Claude Code's hook output contract, so that
// `bundlectl hooks run` can stand in for the hooks of an existing
// harness, and returns the exit status to end with: 2 when Blocked, else
// 0. On exit 2 stderr carries the reason and nothing else, as Claude Code
// feeds stderr back on exit 2 and ignores stdout. stdout always gets one
// JSON object (possibly {}), which on exit 2 expresses the block too, for
// harnesses that read JSON. Permission fields and updatedInput are
// written for PreToolUse (permissionDecision) and PermissionRequest
// (decision.behavior) only, and PreModelSwitch's permissionDecision,
// which Claude Code reads as PreToolUse's. Hook failures are appended to systemMessage,
// so the user sees them, and on exit 0 also written to stderr. Gemini
// CLI's BeforeToolSelection gets the hooks' merged toolConfig, or one
// offering no tools (mode NONE) when a guard could not run or the chain
// was refused, always with exit 0: no answer blocks there.
func WriteOutcome(stdout, stderr io.Writer, o Outcome) (int, error) {
	if o.Blocked && !o.answered && StopsOnFailedGuardIn(o.Host, o.Event) {
		// bundlectl failing closed where the host's block would still
		// use what the hook judged, or would not hold: stop the agent
		// instead, with the reason and its fix where the host shows them.
		o.SystemMessages = append(slices.Clone(o.SystemMessages), "bundlectl: the agent is stopped, as "+StopWhy(o.Host, o.Event), o.Reason)
		o.Blocked, o.Continue = false, false
		o.StopReason = firstNonEmpty(o.StopReason, o.Reason)
		o.LLMRequest, o.LLMResponse = nil, nil
	}
	if o.Blocked && WithholdsTools(o.Event) {
		// A refused or canceled chain, or an event that could not be
		// read: Gemini CLI ignores a block here, so fail closed the one
		// way it allows, with no tools offered.
		o.SystemMessages = append(slices.Clone(o.SystemMessages), o.Reason+"; no tools are offered")
		o.Blocked, o.NoTools = false, true
	}
	j := outcomeJSON{SuppressOutput: o.SuppressOutput, StopReason: o.StopReason}
	if !o.Continue {
		f := false
		j.Continue = &f
	}
	msgs := slices.Clone(o.SystemMessages)
	for _, e := range o.Errors {
		msgs = append(msgs, "bundlectl: "+e.Error())
	}
	j.SystemMessage = strings.Join(msgs, "\n")
	hs := &hookSpecificJSON{HookEventName: o.Event, AdditionalContext: strings.Join(o.AdditionalContext, "\n")}
	perm, reason, updated := o.PermissionDecision, o.PermissionReason, o.UpdatedInput
	if o.Blocked {
		perm, reason, updated = PermissionDeny, o.Reason, nil
	}
	switch o.Event {
	case "PreToolUse", "PreModelSwitch":
		hs.PermissionDecision, hs.PermissionDecisionReason, hs.UpdatedInput = perm, reason, updated
	case geminiBeforeTool:
		hs.ToolInput = updated
		switch {
		case o.Blocked:
			j.Decision, j.Reason = "block", o.Reason
		case o.PermissionDecision == PermissionAsk:
			// Gemini CLI then asks the user before the tool runs, in
			// any approval mode.
			j.Decision, j.Reason = geminiAsk, o.PermissionReason
		}
	case "PermissionRequest":
		if perm == PermissionAllow || perm == PermissionDeny {
			hs.Decision = &permissionDecision{Behavior: perm, Message: reason, UpdatedInput: updated}
		}
	default:
		if o.Blocked {
			j.Decision, j.Reason = "block", o.Reason
		}
	}
	if !o.Blocked {
		// Gemini CLI runs a tail call only for a result it did not block.
		hs.TailToolCallRequest = o.TailToolCallRequest
	}
	// Read by Gemini CLI when AfterAgent stops or blocks (retries).
	hs.ClearContext = o.ClearContext
	if relaysModelAnswers(o.Event) {
		// On a block Gemini CLI reads BeforeModel's llm_response as the
		// synthetic answer of the call it skips (stdout's JSON is read on
		// exit 2 too); a changed request matters only when it proceeds.
		hs.LLMResponse = o.LLMResponse
		if !o.Blocked {
			hs.LLMRequest = o.LLMRequest
		}
		if o.Blocked && o.Event == "AfterModel" {
			hs.LLMResponse = nil
		}
	}
	switch {
	case o.NoTools && !o.Blocked:
		hs.ToolConfig = &ToolConfig{Mode: ToolModeNone, AllowedFunctionNames: []string{}}
	case o.ToolConfig != nil && !o.Blocked && WithholdsTools(o.Event):
		tc := *o.ToolConfig
		if tc.AllowedFunctionNames == nil {
			tc.AllowedFunctionNames = []string{}
		}
		hs.ToolConfig = &tc
	}
	if hs.PermissionDecision != "" || hs.Decision != nil || hs.AdditionalContext != "" || hs.UpdatedInput != nil || hs.ToolInput != nil || hs.ToolConfig != nil || hs.LLMRequest != nil || hs.LLMResponse != nil || hs.TailToolCallRequest != nil || hs.ClearContext {
		j.HookSpecificOutput = hs
	}
	data, err := json.Marshal(j)
	if err != nil {
		return 1, err
	}
	_, werr := stdout.Write(append(data, '\n'))
	if o.Blocked {
		// A block is exit 2 with the reason on stderr, whatever became of
		// the JSON on stdout: a write error must not turn it into exit 1,
		// which every host treats as "proceed".
		io.WriteString(stderr, terminalSafe(o.Reason)+"\n")
		return 2, werr
	}
	if werr != nil {
		if takesUpdatedInput(o.Event) && (!o.Continue || o.PermissionDecision == PermissionAsk || o.UpdatedInput != nil) {
			// The decision (stop, ask the user, or a replaced tool input)
			// was only in the JSON: exit 1 would run the tool unasked,
			// with its original input. Deny it instead.
			io.WriteString(stderr, terminalSafe("bundlectl: the hooks' decision could not be written to stdout, so the tool call is denied: "+werr.Error())+"\n")
			return 2, werr
		}
		return 1, werr
	}
	for _, e := range o.Errors {
		if _, err := fmt.Fprintf(stderr, "bundlectl: %s\n", e.Error()); err != nil {
			return 1, err
		}
	}
	return 0, nil
}

// WithHint ends a block reason or a systemMessage with the command that
// fixes it, on a line of its own in the form of every bundlectl error
// ("bundlectl: hint: <command>"): the host shows the text as it is, and
// the command runs as printed (everything after "hint: " on that line).
// Both are escaped as bundle text (bundle.Sanitize) before they are
// joined: a line break in either, such as one in a workspace path the fix
// names (an agent's cd can choose the event's cwd), must not start a line
// that reads as bundlectl's hint, on stderr or in the JSON the host shows.
func WithHint(reason, cmd string) string {
	if cmd == "" {
		return reason
	}
	return bundle.Sanitize(reason) + "\nbundlectl: hint: " + bundle.Sanitize(cmd)
}

// terminalSafe escapes control and bidirectional characters line by line,
// keeping the line breaks of a multi-line reason.
func terminalSafe(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = bundle.Sanitize(l)
	}
	return strings.Join(lines, "\n")
}
