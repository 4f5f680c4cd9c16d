package harness

import (
	"testing"

	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// TestHookEventExactFields: the fields bundlectl reads from a hook input
// (tool_name matches the hooks, cwd picks the workspace and its guards,
// hook_event_name the answer) are read by exact name, as the hosts and
// their hooks read them. encoding/json matched any letter case: it read
// {"Tool_Name":"Bash"} as the tool Bash, which no host or hook sees, and
// refused tool_name beside TOOL_NAME as one key given twice. A key in
// another letter case is now a field of its own, passed on as written.
func TestHookEventExactFields(t *testing.T) {
	const name = `"hook_event_name":"PreToolUse"`
	for _, c := range []struct {
		in, tool, cwd, session, out string
	}{
		{`{"tool_name":"Bash","TOOL_NAME":"Read"}`, "Bash", "", "", `{` + name + `,"tool_name":"Bash","TOOL_NAME":"Read"}`},
		{`{"TOOL_NAME":"Read","tool_name":"Bash"}`, "Bash", "", "", `{` + name + `,"TOOL_NAME":"Read","tool_name":"Bash"}`},
		{`{"Tool_Name":"Bash"}`, "", "", "", `{` + name + `,"Tool_Name":"Bash"}`},
		{`{"cwd":"/w","CWD":"/"}`, "", "/w", "", `{"cwd":"/w",` + name + `,"CWD":"/"}`},
		{`{"CWD":"/"}`, "", "", "", `{` + name + `,"CWD":"/"}`},
		{"{\"session_id\":\"a\",\"\u017fession_id\":\"b\"}", "", "", "a", "{\"session_id\":\"a\"," + name + ",\"\u017fession_id\":\"b\"}"}, // ſ folds to s
	} {
		ev, err := ParseHookEvent([]byte(c.in), "PreToolUse")
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if ev.ToolName != c.tool || ev.Cwd != c.cwd || ev.SessionID != c.session {
			t.Errorf("%s: tool_name %q cwd %q session_id %q; want %q %q %q", c.in, ev.ToolName, ev.Cwd, ev.SessionID, c.tool, c.cwd, c.session)
		}
		out, err := jsonobj.MarshalNoEscape(ev)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != c.out {
			t.Errorf("%s: a hook is given %s, want %s", c.in, out, c.out)
		}
	}
	// The input's own name in another letter case is passed on beside the
	// event's; the output reads back as itself.
	ev, err := ParseHookEvent([]byte(`{"hook_event_nAme":"Stop"}`), "PreToolUse")
	if err != nil || ev.HookEventName != "PreToolUse" {
		t.Fatalf("%+v, %v", ev, err)
	}
	out, _ := jsonobj.MarshalNoEscape(ev)
	if string(out) != `{"hook_event_name":"PreToolUse","hook_event_nAme":"Stop"}` {
		t.Errorf("got %s", out)
	}
	if _, err := ParseHookEvent(out, "PreToolUse"); err != nil {
		t.Errorf("%s does not read back: %v", out, err)
	}
}
