package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseHookOutput(t *testing.T) {
	cases := []struct {
		name           string
		exit           int
		stdout, stderr string
		timedOut       bool
		check          func(HookResult) bool
	}{
		{"exit 0 silent", 0, "", "", false, func(r HookResult) bool { return r.Failure == "" && !r.Blocked && r.Continue }},
		{"exit 0 plain", 0, "hello\n", "", false, func(r HookResult) bool { return r.PlainOutput == "hello" && r.Failure == "" }},
		{"exit 0 json array is plain", 0, `["x"]`, "", false, func(r HookResult) bool { return r.PlainOutput == `["x"]` }},
		{"exit 0 json", 0, `{"continue":true,"systemMessage":"hi","suppressOutput":true,"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check","additionalContext":"ctx","updatedInput":{"a":1}}}`, "", false,
			func(r HookResult) bool {
				return r.Failure == "" && r.SystemMessage == "hi" && r.SuppressOutput && r.PermissionDecision == "ask" &&
					r.PermissionReason == "check" && r.AdditionalContext == "ctx" && string(r.UpdatedInput) == `{"a":1}` && r.HookEventName == "PreToolUse"
			}},
		{"decision block", 0, `{"decision":"block","reason":"no"}`, "", false, func(r HookResult) bool { return r.Blocked && r.Reason == "no" }},
		{"decision approve", 0, `{"decision":"approve"}`, "", false, func(r HookResult) bool { return !r.Blocked && r.Decision == "approve" && r.Failure == "" }},
		{"continue false", 0, `{"continue":false,"stopReason":"enough"}`, "", false, func(r HookResult) bool { return !r.Continue && r.StopReason == "enough" }},
		{"unknown fields ignored", 0, `{"newField":{"x":1}}`, "", false, func(r HookResult) bool { return r.Failure == "" }},
		{"exit 2", 2, "ignored", "  rm -rf is not allowed\n", false, func(r HookResult) bool { return r.Blocked && r.Reason == "rm -rf is not allowed" }},
		{"exit 2 silent", 2, "", "", false, func(r HookResult) bool { return r.Blocked && r.Reason != "" }},
		{"exit 2 ignores stdout json", 2, `{"decision":"approve"}`, "x", false, func(r HookResult) bool { return r.Blocked && r.Decision == "" }},
		{"exit 1", 1, `{"decision":"block"}`, "boom\nmore", false, func(r HookResult) bool {
			return !r.Blocked && r.Failure == "exited with status 1: boom"
		}},
		{"signal", -1, "", "", false, func(r HookResult) bool { return !r.Blocked && r.Failure != "" }},
		{"timeout", 0, `{"decision":"block"}`, "", true, func(r HookResult) bool { return !r.Blocked && r.Failure != "" }},
		{"malformed", 0, `{"decision":"block"`, "", false, func(r HookResult) bool { return !r.Blocked && strings.Contains(r.Failure, "not one JSON object") }},
		{"trailing", 0, `{"decision":"block"} {}`, "", false, func(r HookResult) bool { return !r.Blocked && r.Failure != "" }},
		{"wrong type", 0, `{"continue":"no"}`, "", false, func(r HookResult) bool { return r.Continue && r.Failure != "" }},
		{"unknown decision", 0, `{"decision":"maybe"}`, "", false, func(r HookResult) bool { return r.Failure != "" }},
		{"unknown permission", 0, `{"hookSpecificOutput":{"permissionDecision":"sure"}}`, "", false, func(r HookResult) bool { return r.Failure != "" }},
		{"updatedInput not object", 0, `{"hookSpecificOutput":{"updatedInput":[1]}}`, "", false, func(r HookResult) bool { return r.Failure != "" && r.UpdatedInput == nil }},
		{"PermissionRequest deny", 0, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no","interrupt":true}}}`, "", false,
			func(r HookResult) bool {
				return r.PermissionDecision == "deny" && r.PermissionReason == "no" && !r.Continue
			}},
		{"PermissionRequest allow", 0, `{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedInput":{"a":2}}}}`, "", false,
			func(r HookResult) bool {
				return r.PermissionDecision == "allow" && string(r.UpdatedInput) == `{"a":2}` && r.Continue
			}},
		{"PermissionRequest bad behavior", 0, `{"hookSpecificOutput":{"decision":{"behavior":"ask"}}}`, "", false, func(r HookResult) bool { return r.Failure != "" }},
		{"both decisions", 0, `{"hookSpecificOutput":{"permissionDecision":"allow","decision":{"behavior":"deny"}}}`, "", false, func(r HookResult) bool { return r.Failure != "" }},
		{"updatedInput null", 0, `{"hookSpecificOutput":{"updatedInput":null}}`, "", false, func(r HookResult) bool { return r.Failure == "" && r.UpdatedInput == nil }},
	}
	for _, c := range cases {
		r := ParseHookOutput(c.exit, []byte(c.stdout), []byte(c.stderr), c.timedOut)
		if !c.check(r) {
			t.Errorf("%s: %+v", c.name, r)
		}
	}
}

func TestMatchHook(t *testing.T) {
	cases := []struct {
		matcher, tool string
		want          bool
	}{
		{"", "Bash", true}, {"*", "Bash", true}, {"", "", true},
		{"Bash", "Bash", true}, {"Bash", "BashOutput", false}, {"Bash", "MyBash", false},
		{"Edit|Write", "Write", true}, {"Edit|Write", "Edit", true}, {"Edit|Write", "NotEdit", false}, {"Edit|Write", "Writer", false},
		{"mcp__.*", "mcp__github__issue", true}, {"mcp__.*", "xmcp__a", false},
		{"Notebook.*", "NotebookEdit", true},
	}
	for _, c := range cases {
		got, err := MatchHook(c.matcher, c.tool)
		if err != nil || got != c.want {
			t.Errorf("MatchHook(%q, %q) = %v, %v", c.matcher, c.tool, got, err)
		}
	}
	var me *MatcherError
	if _, err := MatchHook("(", "Bash"); !errors.As(err, &me) {
		t.Errorf("invalid matcher: err = %v", err)
	}
}

// FuzzMatchHook checks that the shortcut for plain matchers (names joined
// by "|") decides exactly as the anchored expression does.
func FuzzMatchHook(f *testing.F) {
	for _, s := range [][2]string{{"Bash", "Bash"}, {"Edit|Write", "Write"}, {"a||b", ""}, {"|", ""}, {"mcp__gh__x-y:z", "mcp__gh__x-y:z"}, {"Bash|", "Bas"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, matcher, tool string) {
		if !plainMatcher(matcher) {
			return
		}
		re, err := CompileMatcher(matcher)
		if err != nil {
			t.Fatalf("a plain matcher %q does not compile: %v", matcher, err)
		}
		got, err := MatchHook(matcher, tool)
		if err != nil || got != re.MatchString(tool) {
			t.Fatalf("MatchHook(%q, %q) = %v, %v; the expression says %v", matcher, tool, got, err, re.MatchString(tool))
		}
	})
}

func TestParseHookEvent(t *testing.T) {
	in := `{"hook_event_name":"Stop","session_id":"s1","tool_name":"Bash","tool_input":{"command":"ls"},"custom_field":{"deep":[1,2]},"agent_id":"a7"}`
	ev, err := ParseHookEvent([]byte(in), "PreToolUse")
	if err != nil {
		t.Fatal(err)
	}
	if ev.HookEventName != "PreToolUse" || ev.ToolName != "Bash" || ev.AgentID != "a7" || string(ev.ToolInput) != `{"command":"ls"}` {
		t.Fatalf("parsed %+v", ev)
	}
	out, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if back["hook_event_name"] != "PreToolUse" || back["session_id"] != "s1" || back["custom_field"] == nil {
		t.Fatalf("round trip lost fields: %s", out)
	}
	for _, bad := range []string{`[]`, `"x"`, `{"a":1} {}`, `{"tool_name":5}`, `{"a":1,"a":2}`,
		// keys of a value that a case-insensitive reader of it (an MCP
		// server or a guard decoding with encoding/json) takes for one,
		// and a case-sensitive one for two (readEventObject)
		`{"tool_input":{"command":"ls","Command":"rm -rf /"}}`,
		"{\"tool_input\":{\"path\":\"/tmp/ok\",\"\u017fub\":1,\"sub\":2}}", // ſ folds to s
		`{"tool_response":[{"id":1,"ID":2}]}`,
		// not UTF-8
		"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"rm -rf / \xff\"}}",
	} {
		if _, err := ParseHookEvent([]byte(bad), "PreToolUse"); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if _, err := ParseHookEvent([]byte(`{}`), "NoSuchEvent"); err == nil {
		t.Error("unknown event accepted")
	}
	if ev, err := ParseHookEvent(nil, "SessionStart"); err != nil || ev.HookEventName != "SessionStart" {
		t.Errorf("empty input: %v, %v", ev, err)
	}
}

// hookEnv holds one test's hook scripts and marker files.
type hookEnv struct {
	t   *testing.T
	dir string
}

func newHookEnv(t *testing.T) *hookEnv {
	t.Setenv(HookDepthEnv, "")
	os.Unsetenv(HookDepthEnv)
	return &hookEnv{t: t, dir: t.TempDir()}
}

// hook writes a script that touches marker file "ran-<name>", saves its
// stdin to "in-<name>" and then runs body.
func (h *hookEnv) hook(name, matcher, body string) RunnableHook {
	p := script(h.t, h.dir, name+".sh", fmt.Sprintf("touch %q\ncat > %q\n%s",
		filepath.Join(h.dir, "ran-"+name), filepath.Join(h.dir, "in-"+name), body))
	return RunnableHook{Bundle: "b-" + name, Index: 0, Matcher: matcher,
		Spec: Spec{Argv: []string{p}, Dir: h.dir, Env: testEnv}}
}

func (h *hookEnv) ran(name string) bool {
	_, err := os.Stat(filepath.Join(h.dir, "ran-"+name))
	return err == nil
}

func (h *hookEnv) stdin(name string) map[string]json.RawMessage {
	data, err := os.ReadFile(filepath.Join(h.dir, "in-"+name))
	if err != nil {
		h.t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		h.t.Fatalf("hook %s got %q: %v", name, data, err)
	}
	return m
}

func preToolUse(t *testing.T, tool, input string) *HookEvent {
	ev, err := ParseHookEvent([]byte(fmt.Sprintf(`{"session_id":"s","tool_name":%q,"tool_input":%s,"extra":"kept"}`, tool, input)), "PreToolUse")
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func TestFireChainExit0WithAndWithoutJSON(t *testing.T) {
	h := newHookEnv(t)
	plain := h.hook("plain", "", "echo just text\n")
	js := h.hook("json", "Bash", `echo '{"systemMessage":"checked","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","additionalContext":"from json"}}'`+"\n")
	o, err := FireChain(context.Background(), []RunnableHook{plain, js}, preToolUse(t, "Bash", `{"command":"ls"}`))
	if err != nil {
		t.Fatal(err)
	}
	if o.Blocked || !o.Continue || len(o.Errors) != 0 || o.PermissionDecision != "allow" {
		t.Fatalf("outcome %+v", o)
	}
	// PreToolUse: plain stdout is not context; the JSON's context is.
	if strings.Join(o.AdditionalContext, "|") != "from json" || strings.Join(o.SystemMessages, "|") != "checked" {
		t.Fatalf("outcome %+v", o)
	}
	in := h.stdin("plain")
	if string(in["hook_event_name"]) != `"PreToolUse"` || string(in["extra"]) != `"kept"` || string(in["tool_input"]) != `{"command":"ls"}` {
		t.Fatalf("hook stdin %v", in)
	}

	// UserPromptSubmit: plain stdout becomes context; the matcher is ignored.
	ev, _ := ParseHookEvent([]byte(`{"prompt":"$(touch PWNED)"}`), "UserPromptSubmit")
	h2 := newHookEnv(t)
	o, err = FireChain(context.Background(), []RunnableHook{h2.hook("ctx", "NoSuchTool", "echo remember this\n")}, ev)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.AdditionalContext, "|") != "remember this" {
		t.Fatalf("outcome %+v", o)
	}
	if string(h2.stdin("ctx")["prompt"]) != `"$(touch PWNED)"` {
		t.Fatal("prompt not passed through")
	}
	if _, err := os.Stat(filepath.Join(h2.dir, "PWNED")); err == nil {
		t.Fatal("the prompt reached a shell")
	}
}

func TestFireChainFirstBlockStopsTheChain(t *testing.T) {
	h := newHookEnv(t)
	first := h.hook("first", "Bash", "echo 'no rm -rf here' >&2\nexit 2\n")
	second := h.hook("second", "Bash", "exit 0\n")
	o, err := FireChain(context.Background(), []RunnableHook{first, second}, preToolUse(t, "Bash", `{"command":"rm -rf /"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !o.Blocked || o.Reason != "no rm -rf here" || o.BlockedBy == nil || o.BlockedBy.Bundle != "b-first" {
		t.Fatalf("outcome %+v", o)
	}
	if !h.ran("first") || h.ran("second") {
		t.Fatalf("ran first=%v second=%v; the second hook must not run", h.ran("first"), h.ran("second"))
	}
}

// A guard's answer cut at the output cap (a deny with a reason that echoes
// a huge input, say) cannot be read, so a blocking event is blocked rather
// than passed as a failed hook; an event no hook can block proceeds.
func TestFireChainTruncatedAnswerBlocks(t *testing.T) {
	h := newHookEnv(t)
	big := h.hook("big", "", `printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"'; head -c 300000 /dev/zero | tr '\0' x; printf '"}}'`+"\n")
	big.Spec.MaxOutput = 100000
	o, err := FireChain(context.Background(), []RunnableHook{big}, preToolUse(t, "Bash", `{"command":"rm -rf /"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !o.Blocked || !strings.Contains(o.Reason, "cannot be read whole") {
		t.Fatalf("a truncated deny let the event through: %+v", o)
	}
	ev, _ := ParseHookEvent([]byte(`{"tool_name":"Bash"}`), "PermissionDenied")
	o, err = FireChain(context.Background(), []RunnableHook{big}, ev)
	if err != nil {
		t.Fatal(err)
	}
	if o.Blocked {
		t.Fatalf("an event no hook can block was blocked: %+v", o)
	}
}

func TestFireChainDenyIsABlock(t *testing.T) {
	h := newHookEnv(t)
	deny := h.hook("deny", "", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"outside workspace"}}'`+"\n")
	after := h.hook("after", "", "exit 0\n")
	o, _ := FireChain(context.Background(), []RunnableHook{deny, after}, preToolUse(t, "Write", `{}`))
	if !o.Blocked || o.Reason != "outside workspace" || o.PermissionDecision != "deny" || h.ran("after") {
		t.Fatalf("outcome %+v, after ran %v", o, h.ran("after"))
	}
}

func TestFireChainFailuresDoNotBlock(t *testing.T) {
	h := newHookEnv(t)
	fails := h.hook("fails", "", "echo oops >&2\nexit 1\n")
	malformed := h.hook("malformed", "", `echo '{"decision": "block",'`+"\n")
	slow := h.hook("slow", "", "exec sleep 30\n")
	slow.Spec.Timeout = 200 * time.Millisecond
	last := h.hook("last", "", "exit 0\n")
	o, err := FireChain(context.Background(), []RunnableHook{fails, malformed, slow, last}, preToolUse(t, "Bash", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	if o.Blocked || len(o.Errors) != 3 || !h.ran("last") {
		t.Fatalf("outcome %+v, last ran %v", o, h.ran("last"))
	}
	want := []string{"exited with status 1: oops", "not one JSON object", "timed out after 200ms"}
	for i, w := range want {
		if !strings.Contains(o.Errors[i].Message, w) || o.Errors[i].Bundle == "" {
			t.Errorf("error %d = %+v, want %q", i, o.Errors[i], w)
		}
	}
}

// TestFireChainMatcher: a hook whose matcher does not select the call does
// not run. One whose matcher cannot be read blocks a blocking event (the
// host may read it and run the guard: skipping it would fail open), and is
// reported for any other.
func TestFireChainMatcher(t *testing.T) {
	h := newHookEnv(t)
	edit := h.hook("edit", "Edit|Write", "exit 2\n")
	o, err := FireChain(context.Background(), []RunnableHook{edit}, preToolUse(t, "Bash", `{}`))
	if err != nil || o.Blocked || h.ran("edit") || len(o.Errors) != 0 {
		t.Fatalf("outcome %+v, %v", o, err)
	}
	bad := h.hook("bad", "(", "exit 2\n")
	o, err = FireChain(context.Background(), []RunnableHook{edit, bad}, preToolUse(t, "Bash", `{}`))
	if err != nil || !o.Blocked || !strings.Contains(o.Reason, "so whether it guards this call is unknown") || h.ran("bad") {
		t.Fatalf("a blocking event with an unreadable matcher: outcome %+v, %v", o, err)
	}
	o, err = FireChain(context.Background(), []RunnableHook{bad}, &HookEvent{HookEventName: "SessionStart", Source: "startup"})
	if err != nil || o.Blocked || h.ran("bad") || len(o.Errors) != 1 {
		t.Fatalf("SessionStart with an unreadable matcher: outcome %+v, %v", o, err)
	}
}

// Any number of hooks may match one event: an eleventh bundle hooking
// PreToolUse must not block every tool call.
func TestFireChainRunsAnyNumberOfHooks(t *testing.T) {
	h := newHookEnv(t)
	var hooks []RunnableHook
	for i := range 3*MaxHookChain + 1 {
		hooks = append(hooks, h.hook(fmt.Sprint("h", i), "Bash", "exit 0\n"))
	}
	hooks = append(hooks, h.hook("other", "Read", "exit 0\n"))
	o, err := FireChain(context.Background(), hooks, preToolUse(t, "Bash", `{}`))
	if err != nil || o.Blocked || !o.Proceed() {
		t.Fatalf("err = %v, outcome %+v", err, o)
	}
	for i := range 3*MaxHookChain + 1 {
		if !h.ran(fmt.Sprint("h", i)) {
			t.Fatalf("hook %d did not run", i)
		}
	}
	if h.ran("other") {
		t.Fatal("a hook whose matcher does not match ran")
	}
}

// Whatever input finally runs has been judged by every hook: a later hook
// that rewrites the input the guard approved is judged by the guard again.
func TestFireChainRejudgesRewrittenInput(t *testing.T) {
	h := newHookEnv(t)
	guard := h.hook("guard", "Bash", fmt.Sprintf(`grep -q 'rm -rf' %q && { echo "guard: no" >&2; exit 2; }; exit 0`+"\n", filepath.Join(h.dir, "in-guard")))
	rewriter := h.hook("rewriter", "Bash", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"rm -rf /home"}}}'`+"\n")
	o, err := FireChain(context.Background(), []RunnableHook{guard, rewriter}, preToolUse(t, "Bash", `{"command":"ls"}`))
	if err != nil || !o.Blocked || !strings.Contains(o.Reason, "guard: no") || o.UpdatedInput != nil {
		t.Fatalf("the rewritten input was not judged by the guard: err = %v, outcome %+v", err, o)
	}
	// A rewriter that never settles is refused rather than let through.
	counter := filepath.Join(h.dir, "count")
	growing := h.hook("growing", "Bash", fmt.Sprintf(`echo x >> %q; n=$(wc -l < %q | tr -d ' '); echo "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"updatedInput\":{\"command\":\"ls $n\"}}}"`+"\n", counter, counter))
	o, err = FireChain(context.Background(), []RunnableHook{growing}, preToolUse(t, "Bash", `{"command":"ls"}`))
	if err != nil || !o.Blocked || !strings.Contains(o.Reason, "kept rewriting") {
		t.Fatalf("a rewriter that never settles: err = %v, outcome %+v", err, o)
	}
}

func TestFireChainNestingDepth(t *testing.T) {
	h := newHookEnv(t)
	depthFile := filepath.Join(h.dir, "depth")
	hk := h.hook("d", "", "printf '%s' \"$"+HookDepthEnv+"\" > "+depthFile+"\n")
	hk.Spec.Env = append(hk.Spec.Env, HookDepthEnv+"=0") // a stale value is replaced
	ev, _ := ParseHookEvent(nil, "Stop")

	t.Setenv(HookDepthEnv, "9")
	if _, err := FireChain(context.Background(), []RunnableHook{hk}, ev); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(depthFile); string(data) != "10" {
		t.Fatalf("hook saw depth %q, want 10", data)
	}
	os.Remove(filepath.Join(h.dir, "ran-d"))
	for _, v := range []string{"10", "11", "-1", "x"} {
		t.Setenv(HookDepthEnv, v)
		o, err := FireChain(context.Background(), []RunnableHook{hk}, ev)
		var ce *ChainError
		if !errors.As(err, &ce) || !o.Blocked || h.ran("d") {
			t.Fatalf("depth %s: err = %v, outcome %+v, ran %v", v, err, o, h.ran("d"))
		}
	}
}

func TestFireChainUpdatedInputAndContext(t *testing.T) {
	h := newHookEnv(t)
	rewrite := h.hook("rewrite", "Bash", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls -la"},"additionalContext":"one"}}'`+"\n")
	asker := h.hook("asker", "Bash", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"confirm","additionalContext":"two"}}'`+"\n")
	o, err := FireChain(context.Background(), []RunnableHook{rewrite, asker}, preToolUse(t, "Bash", `{"command":"ls"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(h.stdin("asker")["tool_input"]); got != `{"command":"ls -la"}` {
		t.Fatalf("second hook saw tool_input %s, want the updated input", got)
	}
	if string(o.UpdatedInput) != `{"command":"ls -la"}` || strings.Join(o.AdditionalContext, "|") != "one|two" {
		t.Fatalf("outcome %+v", o)
	}
	if o.PermissionDecision != "ask" || o.PermissionReason != "confirm" {
		t.Fatalf("ask must win over allow: %+v", o)
	}
}

func TestFireChainUpdatedInputOnlyBeforeTheTool(t *testing.T) {
	h := newHookEnv(t)
	rewrite := h.hook("rewrite", "", `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedInput":{"command":"forged"}}}'`+"\n")
	next := h.hook("next", "", "exit 0\n")
	ev, _ := ParseHookEvent([]byte(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`), "PostToolUse")
	o, err := FireChain(context.Background(), []RunnableHook{rewrite, next}, ev)
	if err != nil || o.UpdatedInput != nil || !o.Proceed() {
		t.Fatalf("err = %v, outcome %+v", err, o)
	}
	if got := string(h.stdin("next")["tool_input"]); got != `{"command":"ls"}` {
		t.Fatalf("PostToolUse hook rewrote what later hooks see: %s", got)
	}
}

func TestFireChainContinueFalseStops(t *testing.T) {
	h := newHookEnv(t)
	stop := h.hook("stop", "", `echo '{"continue":false,"stopReason":"budget spent"}'`+"\n")
	after := h.hook("after", "", "exit 0\n")
	ev, _ := ParseHookEvent([]byte(`{}`), "SessionStart")
	o, _ := FireChain(context.Background(), []RunnableHook{stop, after}, ev)
	if o.Continue || o.StopReason != "budget spent" || o.Blocked || o.Proceed() || h.ran("after") {
		t.Fatalf("outcome %+v", o)
	}
}

func TestFireChainCancel(t *testing.T) {
	h := newHookEnv(t)
	slow := h.hook("slow", "", "exec sleep 30\n")
	after := h.hook("after", "", "exit 0\n")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	o, err := FireChain(ctx, []RunnableHook{slow, after}, preToolUse(t, "Bash", `{}`))
	if !errors.Is(err, context.DeadlineExceeded) || !o.Blocked || h.ran("after") {
		t.Fatalf("err = %v, outcome %+v", err, o)
	}
}

func TestFireChainRefusesUnknownEvent(t *testing.T) {
	h := newHookEnv(t)
	hk := h.hook("x", "", "exit 0\n")
	for _, ev := range []*HookEvent{nil, {HookEventName: "NoSuchEvent"}} {
		o, err := FireChain(context.Background(), []RunnableHook{hk}, ev)
		var ce *ChainError
		if !errors.As(err, &ce) || !o.Blocked || h.ran("x") {
			t.Fatalf("%v: err = %v, outcome %+v", ev, err, o)
		}
	}
}

func TestFireChainVerifyBeforeSpawn(t *testing.T) {
	h := newHookEnv(t)
	hk := h.hook("v", "", "exit 2\n")
	hk.Verify = func(context.Context) error { return errors.New("bundle \"b-v\" is no longer trusted") }
	o, err := FireChain(context.Background(), []RunnableHook{hk}, preToolUse(t, "Bash", `{}`))
	if err != nil || o.Blocked || h.ran("v") || len(o.Errors) != 1 {
		t.Fatalf("err = %v, outcome %+v", err, o)
	}
}

func TestCombinePrecedence(t *testing.T) {
	res := []HookResult{
		{Bundle: "a", Continue: true, PermissionDecision: "allow", PermissionReason: "ok"},
		{Bundle: "b", Continue: true, Failure: "exited with status 1"},
		{Bundle: "c", Continue: true, Blocked: true, Reason: "stop"},
		{Bundle: "d", Continue: true, SystemMessage: "never seen"},
	}
	o := Combine("PreToolUse", res)
	if !o.Blocked || o.BlockedBy.Bundle != "c" || len(o.SystemMessages) != 0 || len(o.Errors) != 1 {
		t.Fatalf("outcome %+v", o)
	}
	o = Combine("PostToolUse", []HookResult{{Continue: true, HookEventName: "PreToolUse", AdditionalContext: "x"}})
	if len(o.AdditionalContext) != 0 || len(o.Errors) != 1 {
		t.Fatalf("mismatched hookEventName used: %+v", o)
	}
}

func TestWriteOutcome(t *testing.T) {
	var out, errOut bytes.Buffer
	o := NewOutcome("PreToolUse")
	code, err := WriteOutcome(&out, &errOut, o)
	if err != nil || code != 0 || out.String() != "{}\n" || errOut.Len() != 0 {
		t.Fatalf("empty: %d %v %q %q", code, err, out.String(), errOut.String())
	}

	out.Reset()
	o = Combine("UserPromptSubmit", []HookResult{
		{Bundle: "a", Continue: true, PlainOutput: "ctx one"},
		{Bundle: "b", Index: 1, Failure: "exited with status 1"},
		{Bundle: "c", Continue: true, SystemMessage: "note", UpdatedInput: json.RawMessage(`{"x":1}`)},
	})
	code, err = WriteOutcome(&out, &errOut, o)
	if err != nil || code != 0 {
		t.Fatal(code, err)
	}
	var j map[string]any
	if err := json.Unmarshal(out.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	hs, _ := j["hookSpecificOutput"].(map[string]any)
	if hs["hookEventName"] != "UserPromptSubmit" || hs["additionalContext"] != "ctx one" || hs["updatedInput"] != nil {
		t.Fatalf("json %s", out.String())
	}
	if msg, _ := j["systemMessage"].(string); !strings.Contains(msg, "note") || !strings.Contains(msg, `"b" hook 1: exited with status 1`) {
		t.Fatalf("systemMessage %q", msg)
	}
	if !strings.Contains(errOut.String(), "exited with status 1") {
		t.Fatalf("stderr %q", errOut.String())
	}

	for _, ev := range []string{"PreToolUse", "Stop"} {
		out.Reset()
		errOut.Reset()
		o = Combine(ev, []HookResult{{Bundle: "a", Continue: true, Blocked: true, Reason: "not now"}, {Bundle: "b", Failure: "x"}})
		code, err = WriteOutcome(&out, &errOut, o)
		if err != nil || code != 2 || errOut.String() != "not now\n" {
			t.Fatalf("%s blocked: %d %v stderr %q", ev, code, err, errOut.String())
		}
		j = nil
		if err := json.Unmarshal(out.Bytes(), &j); err != nil {
			t.Fatal(err)
		}
		hs, _ = j["hookSpecificOutput"].(map[string]any)
		if ev == "PreToolUse" && (hs["permissionDecision"] != "deny" || hs["permissionDecisionReason"] != "not now") {
			t.Fatalf("json %s", out.String())
		}
		if ev == "Stop" && (j["decision"] != "block" || j["reason"] != "not now") {
			t.Fatalf("json %s", out.String())
		}
	}

	out.Reset()
	o = Combine("PreToolUse", []HookResult{{Continue: true, PermissionDecision: "allow", UpdatedInput: json.RawMessage(`{"x":1}`)}})
	if code, _ = WriteOutcome(&out, &errOut, o); code != 0 || out.String() != `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"x":1}}}`+"\n" {
		t.Fatalf("allow with updatedInput: %d %s", code, out.String())
	}
	out.Reset()
	o = Combine("PermissionRequest", []HookResult{{Continue: true, PermissionDecision: "allow", UpdatedInput: json.RawMessage(`{"x":1}`)}})
	if code, _ = WriteOutcome(&out, &errOut, o); code != 0 || out.String() != `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"x":1}}}}`+"\n" {
		t.Fatalf("PermissionRequest allow: %d %s", code, out.String())
	}
	out.Reset()
	errOut.Reset()
	o = Combine("PermissionRequest", []HookResult{{Continue: true, PermissionDecision: "deny", PermissionReason: "line1\n\x1b[2Jline2"}})
	if code, _ = WriteOutcome(&out, &errOut, o); code != 2 || !strings.Contains(out.String(), `"decision":{"behavior":"deny","message":"line1\n\u001b[2Jline2"}`) {
		t.Fatalf("PermissionRequest deny: %d %s", code, out.String())
	}
	if errOut.String() != "line1\n\\x1b[2Jline2\n" {
		t.Fatalf("stderr reason not made terminal-safe: %q", errOut.String())
	}

	out.Reset()
	o = Combine("Stop", []HookResult{{Continue: false, StopReason: "done"}})
	if code, _ = WriteOutcome(&out, &errOut, o); code != 0 || !strings.Contains(out.String(), `"continue":false`) || !strings.Contains(out.String(), `"stopReason":"done"`) {
		t.Fatalf("continue false: %d %s", code, out.String())
	}
}

func FuzzHookOutput(f *testing.F) {
	seeds := []string{
		``, `plain`, `{}`, `{"decision":"block","reason":"r"}`, `{"continue":false}`, `{"decision":`,
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","updatedInput":{"a":[1]}}}`,
		`{"hookSpecificOutput":null}`, `{"hookSpecificOutput":{"updatedInput":"x"}}`, "{\"systemMessage\":\"\x1b[2J\"}", `{"a":1,"a":2}`,
	}
	for _, s := range seeds {
		for _, code := range []int{0, 2, 1} {
			f.Add(code, []byte(s), []byte("stderr"), false)
		}
	}
	f.Add(0, []byte(`{}`), []byte{}, true)
	f.Fuzz(func(t *testing.T, code int, stdout, stderr []byte, timedOut bool) {
		r := ParseHookOutput(code, stdout, stderr, timedOut)
		if r.Failure != "" && (r.Blocked || r.UpdatedInput != nil || !r.Continue) {
			t.Fatalf("a failure carries a decision: %+v", r)
		}
		if (timedOut || code != 0 && code != 2) && r.Failure == "" {
			t.Fatalf("exit %d timedOut %v is not a failure", code, timedOut)
		}
		if r.UpdatedInput != nil && !json.Valid(r.UpdatedInput) {
			t.Fatalf("invalid updatedInput %q", r.UpdatedInput)
		}
		o := Combine("PreToolUse", []HookResult{r})
		var out, errOut bytes.Buffer
		code2, err := WriteOutcome(&out, &errOut, o)
		if err != nil || !json.Valid(out.Bytes()) {
			t.Fatalf("WriteOutcome: %v %q", err, out.Bytes())
		}
		if (code2 == 2) != o.Blocked {
			t.Fatalf("exit %d for blocked=%v", code2, o.Blocked)
		}
	})
}

func BenchmarkFireChain3(b *testing.B) {
	dir := b.TempDir()
	var hooks []RunnableHook
	for i := range 3 {
		p := script(b, dir, fmt.Sprint("h", i), "cat >/dev/null\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"additionalContext\":\"x\"}}'\n")
		hooks = append(hooks, RunnableHook{Bundle: "b", Index: i, Spec: Spec{Argv: []string{p}, Dir: dir, Env: testEnv}})
	}
	ev, err := ParseHookEvent([]byte(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`), "PreToolUse")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		o, err := FireChain(context.Background(), hooks, ev)
		if err != nil || len(o.AdditionalContext) != 3 {
			b.Fatal(o, err)
		}
	}
}

// FuzzHookEvent: ParseHookEvent never panics, and an accepted event
// round-trips: what a hook receives parses back to the same bytes.
func FuzzHookEvent(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"tool_name":"Bash","tool_input":{"command":"ls"},"x":[1,{"y":null}]}`,
		`{"hook_event_name":"Stop","stop_hook_active":true}`, `{"tool_input":null}`, `[]`, `{"a":1,"a":2}`, `{"prompt":"\u202e"}`,
		// a key that differs from a field only in letter case is another
		// field, kept; encoding/json read it as the field, and the
		// re-parse refused the output's two spellings as one key
		`{"hook_event_nAme":"x"}`, `{"Tool_Name":"Bash","tool_name":"Read","CWD":"/"}`, "{\"\u017fession_id\":\"s\"}",
		`{"session_id":"s","cwd":"/w","permission_mode":"default","tool_name":"Bash"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := ParseHookEvent(data, "PreToolUse")
		if err != nil {
			return
		}
		out, err := json.Marshal(ev)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		ev2, err := ParseHookEvent(out, "PreToolUse")
		if err != nil {
			t.Fatalf("re-parse of %s: %v", out, err)
		}
		out2, err := json.Marshal(ev2)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("round trip changed %s into %s (%v)", out, out2, err)
		}
	})
}

// TestGeminiMatch: Gemini CLI's own matching of its manifests' matchers
// (packages/core hookPlanner: trimmed, "*" or empty selects all, an
// unanchored regular expression for tools, equality when it does not
// compile and for triggers).
func TestGeminiMatch(t *testing.T) {
	for _, c := range []struct {
		matcher, value string
		onTool, want   bool
	}{
		{"", "run_shell_command", true, true},
		{" * ", "read_file", true, true},
		{"shell", "run_shell_command", true, true},
		{"run_shell_command ", "run_shell_command", true, true},
		{"^read_file$", "read_file", true, true},
		{"^read_file$", "read_file_x", true, false},
		{"write_file|replace", "replace", true, true},
		{"write", "read_file", true, false},
		{"(?<=x)y", "(?<=x)y", true, true}, // not RE2: compared by equality
		{"(?<=x)y", "xy", true, false},
		{"auto", "auto", false, true},
		{"aut", "auto", false, false}, // a trigger: equality
	} {
		if got, err := GeminiMatch(c.matcher, c.value, c.onTool); got != c.want || err != nil {
			t.Errorf("GeminiMatch(%q, %q, %v) = %v, %v, want %v", c.matcher, c.value, c.onTool, got, err, c.want)
		}
	}
	// JavaScript's \s (no u flag) is Unicode, Go's ASCII: against a
	// non-ASCII name the two could disagree, so it is an error (a block
	// for a guard's event); \w is ASCII to both.
	if _, err := GeminiMatch(`mcp_x_a\sb`, "mcp_x_a\u00a0b", true); err == nil {
		t.Error(`\s against a non-ASCII name was not an error`)
	}
	if _, err := GeminiMatch(`a\sb`, "a\vb", true); err == nil {
		t.Error(`\s against a name with a vertical tab (not \s to Go) was not an error`)
	}
	if ok, err := GeminiMatch(`a\sb`, "a b", true); err != nil || !ok {
		t.Errorf(`\s against an ASCII name: %v, %v`, ok, err)
	}
	if ok, err := GeminiMatch(`^mcp_\w+$`, "mcp_café", true); err != nil || ok {
		t.Errorf(`JavaScript's \w is ASCII as Go's: %v, %v`, ok, err)
	}
}

// TestClaudeMatch: Claude Code's own matching of its manifests' matchers
// (read from the installed @anthropic-ai/claude-code): name lists exact,
// joined by "|" or, on most events, ",", anything else an unanchored
// regular expression. On StopFailure a list with "," or "-" is a regular
// expression (internal/agenttest TestClaudeStopFailureMatcher).
func TestClaudeMatch(t *testing.T) {
	for _, c := range []struct {
		event, matcher, value string
		want                  bool
	}{
		{"PreToolUse", "", "Bash", true},
		{"PreToolUse", "*", "Bash", true},
		{"PreToolUse", "Bash", "Bash", true},
		{"PreToolUse", "Bash", "BashOutput", false},
		{"PreToolUse", "Edit|Write", "Write", true},
		{"PreToolUse", "Edit, Write", "Write", true},
		{"PreToolUse", "Edit, Write", "Edit, Write", false},
		{"PreToolUse", "^Bash", "BashOutput", true},
		{"PreToolUse", "mcp__fs__.*", "mcp__fs__write", true},
		{"PreToolUse", "Notebook.", "NotebookEdit", true},
		{"SessionStart", "startup, resume", "resume", true},
		{"SubagentStart", "general-purpose", "general-purpose", true},
		{"SubagentStart", "general", "general-purpose", false},
		{"SubagentStop", "Explore, general-purpose", "general-purpose", true},
		{"StopFailure", "unknown|server_error", "unknown", true},
		{"StopFailure", "unknown, server_error", "unknown", false},
		{"StopFailure", "unknown, server_error", "unknown, server_error", true},
		{"StopFailure", "rate-limit|unknown", "unknown", true},
		{"StopFailure", "unknown-x", "unknown-xy", true},
		{"StopFailure", "unk", "unknown", false},
	} {
		got, err := ClaudeMatch(c.event, c.matcher, c.value)
		if err != nil || got != c.want {
			t.Errorf("ClaudeMatch(%q, %q, %q) = %v, %v; want %v", c.event, c.matcher, c.value, got, err, c.want)
		}
	}
	if _, err := ClaudeMatch("PreToolUse", "(", "x"); err == nil {
		t.Error("a matcher that does not compile was not an error")
	}
	// JavaScript's \s is Unicode, Go's ASCII: against a non-ASCII name the
	// two could disagree, so it is an error (a block for a guard's event).
	if _, err := ClaudeMatch("PreToolUse", `mcp__x__a\sb`, "mcp__x__a\u00a0b"); err == nil {
		t.Error(`\s against a non-ASCII name was not an error`)
	}
	if ok, err := ClaudeMatch("PreToolUse", `mcp__x__a\sb`, "mcp__x__a b"); err != nil || !ok {
		t.Errorf(`\s against an ASCII name: %v, %v`, ok, err)
	}
	if ok, err := ClaudeMatch("PreToolUse", `mcp__x__\w+`, "mcp__x__café"); err != nil || !ok {
		t.Errorf(`JavaScript's \w is ASCII as Go's: %v, %v`, ok, err)
	}
}

// TestCodexMatch: the vectors of Codex's own matcher (codex-rs hooks).
func TestCodexMatch(t *testing.T) {
	for _, c := range []struct {
		matcher, value string
		want           bool
	}{
		{"", "Bash", true},
		{"*", "Bash", true},
		{"Bash", "Bash", true},
		{"Bash", "BashOutput", false},
		{"Edit|Write", "Write", true},
		{"Edit|Write", "Bash", false},
		{"Edit, Write", "Write", false}, // not a list to Codex: the regular expression "Edit, Write"
		{"Edit, Write", "Edit, Write", true},
		{"mcp__memory", "mcp__memory__create_entities", false},
		{"mcp__memory__.*", "mcp__memory__create_entities", true},
		{"mcp__.*__write.*", "mcp__filesystem__read_file", false},
		{"^Bash", "BashOutput", true},
		{"^Bash$", "BashOutput", false},
		{"start.*", "startup", true},
	} {
		got, err := CodexMatch(c.matcher, c.value)
		if err != nil || got != c.want {
			t.Errorf("CodexMatch(%q, %q) = %v, %v; want %v", c.matcher, c.value, got, err, c.want)
		}
	}
	if _, err := CodexMatch("[", "Bash"); err == nil {
		t.Error("a matcher that does not compile was not an error")
	}
	// Rust's \w, \d, \s and \b are Unicode, Go's ASCII: ^mcp__\w+$ selects
	// mcp__café to Codex but not to Go, so against a non-ASCII name such a
	// matcher is an error (a block for a guard's event); \\w is a literal.
	for _, m := range []string{`^mcp__\w+$`, `mcp__\d`, `\bcafé`, `x\Sy`} {
		if _, err := CodexMatch(m, "mcp__café"); err == nil {
			t.Errorf("CodexMatch(%q, non-ASCII) was not an error", m)
		}
	}
	if ok, err := CodexMatch(`^mcp__\w+$`, "mcp__cafe"); err != nil || !ok {
		t.Errorf(`\w against an ASCII name: %v, %v`, ok, err)
	}
	if ok, err := CodexMatch(`^mcp__\\w`, "mcp__café"); err != nil || ok {
		t.Errorf(`an escaped backslash: %v, %v`, ok, err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestWriteOutcomeBlockSurvivesStdoutError: a block stays exit 2 with its
// reason on stderr when stdout cannot be written; exit 1 would let the
// host proceed.
func TestWriteOutcomeBlockSurvivesStdoutError(t *testing.T) {
	var errOut bytes.Buffer
	o := NewOutcome("PreToolUse")
	o.Blocked, o.Reason = true, "guarded"
	code, err := WriteOutcome(failingWriter{}, &errOut, o)
	if code != 2 || err == nil || errOut.String() != "guarded\n" {
		t.Fatalf("got %d %v %q, want 2, the write error and the reason on stderr", code, err, errOut.String())
	}
	code, err = WriteOutcome(failingWriter{}, &errOut, NewOutcome("PreToolUse"))
	if code != 1 || err == nil {
		t.Fatalf("not blocked: got %d %v, want 1 and the error", code, err)
	}
}

// A decision that exists only in the JSON (ask, a replaced input, stop)
// must not be lost as exit 1, which runs the tool unasked with its original
// input: it is denied (exit 2) when stdout cannot be written.
func TestWriteOutcomeDecisionSurvivesStdoutError(t *testing.T) {
	ask := NewOutcome("PreToolUse")
	ask.PermissionDecision = PermissionAsk
	upd := NewOutcome("PreToolUse")
	upd.UpdatedInput = []byte(`{"command":"ls"}`)
	stop := NewOutcome("PreToolUse")
	stop.Continue = false
	for name, o := range map[string]Outcome{"ask": ask, "updatedInput": upd, "continue false": stop} {
		var errOut bytes.Buffer
		if code, err := WriteOutcome(failingWriter{}, &errOut, o); code != 2 || err == nil || errOut.Len() == 0 {
			t.Errorf("%s: got %d %v %q, want 2, the error and a reason", name, code, err, errOut.String())
		}
	}
}
