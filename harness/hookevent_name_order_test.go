package harness

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// hostEvent is one event a real host gave a hook of its own, as written
// (testdata/host-events.json: Claude Code 2.1.332, Codex 0.171.0 and
// Gemini CLI 0.61.0 offline under internal/agenttest, their temporary
// paths shortened).
type hostEvent struct{ Host, Event, Input string }

func loadHostEvents(t *testing.T) []hostEvent {
	t.Helper()
	data, err := os.ReadFile("testdata/host-events.json")
	if err != nil {
		t.Fatal(err)
	}
	var evs []hostEvent
	if err := json.Unmarshal(data, &evs); err != nil {
		t.Fatal(err)
	}
	if len(evs) < 15 {
		t.Fatalf("only %d host events", len(evs))
	}
	return evs
}

// withoutKeys is the JSON object in with only the members keep keeps,
// in their order.
func withoutKeys(t *testing.T, in string, keep func(string) bool) string {
	t.Helper()
	ms, ok := jsonobj.Members([]byte(in))
	if !ok {
		t.Fatalf("not an object: %s", in)
	}
	var parts []string
	for _, m := range ms {
		if keep(m.Key) {
			k, _ := json.Marshal(m.Key)
			parts = append(parts, string(k)+":"+string(m.Val))
		}
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// TestHookEventNameWhereHostsPutIt: an input that lacks hook_event_name
// gets it where each host writes it, after the fields every event of the
// host starts with (session_id, transcript_path, cwd, and Claude Code's
// prompt_id, permission_mode, effort, Codex's turn_id) and before the
// event's own: taken out of each real event and put back, it gives the
// host's bytes. bundlectl wrote it after every key of the input.
func TestHookEventNameWhereHostsPutIt(t *testing.T) {
	for _, h := range loadHostEvents(t) {
		in := withoutKeys(t, h.Input, func(k string) bool { return k != "hook_event_name" })
		ev, err := ParseHookEvent([]byte(in), h.Event)
		if err != nil {
			t.Fatalf("%s %s: %v", h.Host, h.Event, err)
		}
		got, err := jsonobj.MarshalNoEscape(ev)
		if err != nil || string(got) != h.Input {
			t.Errorf("%s %s without hook_event_name is given\n%s\nwhere %s gives\n%s", h.Host, h.Event, got, h.Host, h.Input)
		}
	}
	// No field of the hosts' own at the start: it comes first; only
	// theirs: last.
	for _, c := range []struct{ in, want string }{
		{`{"tool_name":"Bash","session_id":"s"}`, `{"hook_event_name":"PreToolUse","tool_name":"Bash","session_id":"s"}`},
		{`{"session_id":"s","cwd":"/w"}`, `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse"}`},
		{`{}`, `{"hook_event_name":"PreToolUse"}`},
	} {
		ev, err := ParseHookEvent([]byte(c.in), "PreToolUse")
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := jsonobj.MarshalNoEscape(ev); string(got) != c.want {
			t.Errorf("%s is given %s, want %s", c.in, got, c.want)
		}
	}
}

// TestBuiltHookEventClaudeOrder: an event an embedding harness builds
// from HookEvent's fields alone (no input it was read from) is written in
// the order Claude Code 2.1.332, whose hook contract bundlectl's is,
// writes those fields: each real Claude Code event, cut down to the
// fields HookEvent names, is what the same values build, a field at its
// zero value included ("stop_hook_active":false, which a built event
// left out). bundlectl wrote a built event's keys sorted.
func TestBuiltHookEventClaudeOrder(t *testing.T) {
	named := map[string]bool{}
	for _, m := range mustMembers(t, `{"hook_event_name":"x","session_id":"s","transcript_path":"t","cwd":"c","permission_mode":"p","tool_name":"n","tool_use_id":"u","tool_input":{},"tool_response":{},"prompt":"p","source":"s","stop_hook_active":true,"trigger":"t","custom_instructions":"c","agent_id":"a","agent_type":"t"}`) {
		named[m.Key] = true
	}
	n := 0
	for _, h := range loadHostEvents(t) {
		if h.Host != "claude" {
			continue
		}
		n++
		want := withoutKeys(t, h.Input, func(k string) bool { return named[k] })
		var ev HookEvent // built: no input order
		if err := json.Unmarshal([]byte(want), &ev); err != nil {
			t.Fatal(err)
		}
		ev.order, ev.raw = nil, nil
		got, err := jsonobj.MarshalNoEscape(ev)
		if err != nil || string(got) != want {
			t.Errorf("built %s is written\n%s\nwhere Claude Code writes\n%s", h.Event, got, want)
		}
	}
	if n == 0 {
		t.Fatal("no Claude Code event")
	}
}

func mustMembers(t *testing.T, in string) []jsonobj.Member {
	t.Helper()
	ms, ok := jsonobj.Members([]byte(in))
	if !ok {
		t.Fatalf("not an object: %s", in)
	}
	return ms
}

// TestBuiltHookEventZeroFields: an event built from HookEvent's fields
// with every one but the name at its zero value writes the fields the
// hosts write on that event whatever their value, as the host writes
// their zero (Claude Code 2.1.332's hook inputs; custom_instructions is
// null when there are none); each is a field of the real event of every
// host that gave one (testdata/host-events.json), and no other field is
// written. An event read from an input, even an empty one, gets no field
// the input lacks. bundlectl left every zero value out.
func TestBuiltHookEventZeroFields(t *testing.T) {
	const base = `"session_id":"","transcript_path":"","cwd":""`
	for event, want := range map[string]string{
		"Stop":              `{` + base + `,"hook_event_name":"Stop","stop_hook_active":false}`,
		"SubagentStop":      `{` + base + `,"agent_id":"","agent_type":"","hook_event_name":"SubagentStop","stop_hook_active":false}`,
		"PreToolUse":        `{` + base + `,"hook_event_name":"PreToolUse","tool_name":"","tool_use_id":""}`,
		"PermissionRequest": `{` + base + `,"hook_event_name":"PermissionRequest","tool_name":""}`,
		"UserPromptSubmit":  `{` + base + `,"hook_event_name":"UserPromptSubmit","prompt":""}`,
		"SessionStart":      `{` + base + `,"hook_event_name":"SessionStart","source":""}`,
		"PreCompact":        `{` + base + `,"hook_event_name":"PreCompact","trigger":"","custom_instructions":null}`,
		"SessionEnd":        `{` + base + `,"hook_event_name":"SessionEnd"}`,
		"AfterAgent":        `{` + base + `,"hook_event_name":"AfterAgent","prompt":"","stop_hook_active":false}`,
		"BeforeTool":        `{` + base + `,"hook_event_name":"BeforeTool","tool_name":""}`,
	} {
		got, err := jsonobj.MarshalNoEscape(HookEvent{HookEventName: event})
		if err != nil || string(got) != want {
			t.Errorf("built %s is written\n%s (%v)\nwant\n%s", event, got, err, want)
		}
	}
	for _, h := range loadHostEvents(t) {
		host := map[string]bool{}
		for _, m := range mustMembers(t, h.Input) {
			host[m.Key] = true
		}
		got, err := jsonobj.MarshalNoEscape(HookEvent{HookEventName: h.Event})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mustMembers(t, string(got)) {
			if !host[m.Key] {
				t.Errorf("built %s writes %s, which %s's own %s lacks", h.Event, m.Key, h.Host, h.Event)
			}
		}
	}
	for _, in := range []string{``, `{}`, `{"cwd":"/w"}`} {
		ev, err := ParseHookEvent([]byte(in), "Stop")
		if err != nil {
			t.Fatal(err)
		}
		got, _ := jsonobj.MarshalNoEscape(ev)
		if want := strings.Replace(`{"cwd":"/w","hook_event_name":"Stop"}`, `"cwd":"/w",`, map[bool]string{true: `"cwd":"/w",`}[in == `{"cwd":"/w"}`], 1); string(got) != want {
			t.Errorf("read %q is given %s, want %s", in, got, want)
		}
	}
}

// TestHookEventAddedToolInputWhereHostsPutIt: a tool_input the input
// lacks that bundlectl adds (a hook's updatedInput) goes where the hosts
// write it, right after tool_name: taken out of each real tool event and
// set again, it gives the host's bytes. bundlectl wrote it after every
// key of the input.
func TestHookEventAddedToolInputWhereHostsPutIt(t *testing.T) {
	n := 0
	for _, h := range loadHostEvents(t) {
		var toolInput json.RawMessage
		for _, m := range mustMembers(t, h.Input) {
			if m.Key == "tool_input" {
				toolInput = m.Val
			}
		}
		if toolInput == nil {
			continue
		}
		n++
		in := withoutKeys(t, h.Input, func(k string) bool { return k != "tool_input" })
		ev, err := ParseHookEvent([]byte(in), h.Event)
		if err != nil {
			t.Fatalf("%s %s: %v", h.Host, h.Event, err)
		}
		ev.ToolInput = toolInput
		got, err := jsonobj.MarshalNoEscape(ev)
		if err != nil || string(got) != h.Input {
			t.Errorf("%s %s with tool_input added is given\n%s\nwhere %s gives\n%s", h.Host, h.Event, got, h.Host, h.Input)
		}
	}
	if n < 6 { // the six tool events of the three hosts
		t.Fatalf("only %d tool events", n)
	}
	// Without tool_name, right after hook_event_name; with no field
	// before it, first.
	for _, c := range []struct{ in, want string }{
		{`{"session_id":"s","hook_event_name":"PreToolUse","tool_use_id":"u"}`, `{"session_id":"s","hook_event_name":"PreToolUse","tool_input":{"a":1},"tool_use_id":"u"}`},
		{`{"x":1}`, `{"hook_event_name":"PreToolUse","tool_input":{"a":1},"x":1}`},
	} {
		ev, err := ParseHookEvent([]byte(c.in), "PreToolUse")
		if err != nil {
			t.Fatal(err)
		}
		ev.ToolInput = json.RawMessage(`{"a":1}`)
		if got, _ := jsonobj.MarshalNoEscape(ev); string(got) != c.want {
			t.Errorf("%s is given %s, want %s", c.in, got, c.want)
		}
	}
}
