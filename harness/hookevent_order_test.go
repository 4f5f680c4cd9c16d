package harness

import (
	"testing"

	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// TestHookEventKeepsHostOrder: a hook is given the event as the host gave
// it — its keys in the host's order (Claude Code writes session_id first,
// Gemini CLI hook_event_name after cwd), each value as written — and a
// field bundlectl sets (hook_event_name when the input lacks it, tool_input
// after an updatedInput) in its place. Before, the keys came sorted.
func TestHookEventKeepsHostOrder(t *testing.T) {
	for _, c := range []struct{ event, in, want string }{
		{"PreToolUse",
			`{"session_id":"s","transcript_path":"/t","cwd":"/w","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls","z":1,"a":2},"tool_use_id":"tu"}`,
			``},
		{"BeforeTool",
			`{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"BeforeTool","timestamp":"2026-01-01T00:00:00.000Z","tool_name":"run_shell_command","tool_input":{"command":"ls"},"mcp_context":null,"original_request_name":"run_shell_command"}`,
			``},
		// escapes the host wrote in a value bundlectl reads are kept; a
		// key is written plain (hosts write keys unescaped), and the
		// whole compact
		{"UserPromptSubmit", `{"zz":1,"prompt":"caf\u00e9 \/","k\u0065y":[1, 2],"hook_event_name":"UserPromptSubmit"}`, `{"zz":1,"prompt":"caf\u00e9 \/","key":[1,2],"hook_event_name":"UserPromptSubmit"}`},
		// the name the event is fired as, in the input's place for it
		{"PostToolUse", `{"tool_name":"Bash","hook_event_name":"PreToolUse","b":1}`, `{"tool_name":"Bash","hook_event_name":"PostToolUse","b":1}`},
		// none in the input: where the hosts write it, after the fields
		// their events start with
		{"Stop", `{"session_id":"s","b":true,"a":false}`, `{"session_id":"s","hook_event_name":"Stop","b":true,"a":false}`},
	} {
		ev, err := ParseHookEvent([]byte(c.in), c.event)
		if err != nil {
			t.Fatal(err)
		}
		got, err := jsonobj.MarshalNoEscape(ev)
		want := c.want
		if want == "" {
			want = c.in
		}
		if err != nil || string(got) != want {
			t.Errorf("event %s\n got %s (%v)\nwant %s", c.in, got, err, want)
		}
	}
	ev, err := ParseHookEvent([]byte(`{"tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/w"}`), "PreToolUse")
	if err != nil {
		t.Fatal(err)
	}
	ev.ToolInput = []byte(`{"command":"ls -a"}`)
	if got, _ := jsonobj.MarshalNoEscape(ev); string(got) != `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -a"},"cwd":"/w"}` {
		t.Errorf("rewritten tool_input: got %s", got)
	}
}

// BenchmarkFireEventEncode: what hooks run does to an event before each
// hook, on Claude Code 2.1.332's PreToolUse event: read it, and write it
// for a hook.
func BenchmarkFireEventEncode(b *testing.B) {
	in := []byte(`{"session_id":"70a07430-476a-4b48-b2ea-6240c8104662","transcript_path":"/tmp/home/.claude/projects/-tmp-work/70a07430-476a-4b48-b2ea-6240c8104662.jsonl","cwd":"/tmp/work","prompt_id":"c47f1617-3e2b-45c0-8d6c-3065f5edeb7d","permission_mode":"default","effort":{"level":"medium"},"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"true","description":"agenttest"},"tool_use_id":"toolu_agenttest_0"}`)
	for b.Loop() {
		ev, err := ParseHookEvent(in, "PreToolUse")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := jsonobj.MarshalNoEscape(ev); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHookEventJudgedValue: a field bundlectl reads (cwd picks the
// workspace and its guards, tool_name the matching hooks) is given to a
// hook as bundlectl read it. encoding/json reads a lone surrogate escape
// as U+FFFD; a hook in JavaScript or Python reads "\ud800" as itself, so
// it would act on another cwd than the one bundlectl judged. A field
// bundlectl does not read is passed as written.
func TestHookEventJudgedValue(t *testing.T) {
	in := `{"cwd":"/w/\ud800","tool_name":"Bash\udc00","x":"\ud800","prompt":"caf\u00e9"}`
	ev, err := ParseHookEvent([]byte(in), "PreToolUse")
	if err != nil {
		t.Fatal(err)
	}
	got, err := jsonobj.MarshalNoEscape(ev)
	want := `{"cwd":"/w/` + "\uFFFD" + `","hook_event_name":"PreToolUse","tool_name":"Bash` + "\uFFFD" + `","x":"\ud800","prompt":"caf\u00e9"}`
	if err != nil || string(got) != want {
		t.Errorf("got  %s (%v)\nwant %s", got, err, want)
	}
}
