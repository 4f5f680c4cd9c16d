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
// fields HookEvent names, is what the same values build (but for a field
// at its zero value, which a built event leaves out: Claude Code writes
// "stop_hook_active":false). bundlectl wrote a built event's keys sorted.
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
		want := strings.Replace(withoutKeys(t, h.Input, func(k string) bool { return named[k] }), `,"stop_hook_active":false`, "", 1)
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
