package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFireChainStdinNotHTMLEscaped: a hook is given the event as the host
// writes it (JSON.stringify in Claude Code and Gemini CLI, serde_json in
// Codex), with "&", "<" and ">" as they are, and hooks exec passes the
// host's bytes on unchanged. hooks run re-encoded the event with Go's
// json.Marshal, which writes them as \u0026, \u003c and \u003e, so a
// guard that searches its input's text (grep -F '&&', a redirection
// '>') found nothing and let under hooks run (setup claude, setup
// gemini, the harness) a call it blocks in place and under exec; so also
// the input a Gemini CLI "sequential" hook is shown after a rewrite.
func TestFireChainStdinNotHTMLEscaped(t *testing.T) {
	guard := `if grep -qF '&& rm' ` + "\"$IN\"" + ` || grep -qF '> /etc/' ` + "\"$IN\"" + `; then echo 'no chained rm or write to /etc' >&2; exit 2; fi` + "\n"
	for _, c := range []struct{ event, input string }{
		{"PreToolUse", `{"tool_name":"Bash","tool_input":{"command":"ls && rm -rf ~"}}`},
		{"PreToolUse", `{"tool_name":"Bash","tool_input":{"command":"echo x > /etc/passwd"}}`},
		{"BeforeTool", `{"tool_name":"run_shell_command","tool_input":{"command":"ls && rm -rf ~"}}`},
	} {
		h := newHookEnv(t)
		in := filepath.Join(h.dir, "in-guard")
		g := h.hook("guard", "", strings.ReplaceAll(guard, `"$IN"`, `'`+in+`'`))
		ev, err := ParseHookEvent([]byte(c.input), c.event)
		if err != nil {
			t.Fatal(err)
		}
		o, err := FireChain(context.Background(), []RunnableHook{g}, ev)
		if err != nil {
			t.Fatal(err)
		}
		if !o.Blocked {
			data, _ := os.ReadFile(in)
			t.Errorf("%s %s: the guard was given %s and did not block", c.event, c.input, data)
		}
	}
	// A "sequential" Gemini CLI hook after a rewrite is shown the input
	// spread, also as Gemini CLI writes it.
	h := newHookEnv(t)
	in := filepath.Join(h.dir, "in-guard")
	rewrite := h.hook("rewrite", "", `echo '{"hookSpecificOutput":{"tool_input":{"command":"ls && rm -rf ~"}}}'`+"\n")
	g := h.hook("guard", "", strings.ReplaceAll(guard, `"$IN"`, `'`+in+`'`))
	g.geminiSequential = true
	ev, err := ParseHookEvent([]byte(`{"tool_name":"run_shell_command","tool_input":{"command":"ls"}}`), "BeforeTool")
	if err != nil {
		t.Fatal(err)
	}
	o, err := FireChain(context.Background(), []RunnableHook{rewrite, g}, ev)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Blocked {
		data, _ := os.ReadFile(in)
		t.Errorf("sequential: the guard was given %s and did not block", data)
	}
}

// TestGeminiSpreadNotHTMLEscaped: a string a "sequential" Gemini CLI
// hook answers as tool_input is spread into the next hook's input unit
// by unit, "&" as it is.
func TestGeminiSpreadNotHTMLEscaped(t *testing.T) {
	out, ok := jsSpreadOver([]byte(`{}`), []byte(`"&<>"`))
	if want := `{"0":"&","1":"<","2":">"}`; !ok || string(out) != want {
		t.Errorf("jsSpreadOver = %s, want %s", out, want)
	}
}

// TestFireChainStdinLineSeparators: JSON.stringify writes U+2028 and
// U+2029 as they are; hooks run wrote the event's own strings (the
// prompt here) and a string spread unit by unit with Go's escapes
// \u2028 and \u2029, so a hook matching its input's text saw another
// text than under Gemini CLI.
func TestFireChainStdinLineSeparators(t *testing.T) {
	h := newHookEnv(t)
	g := h.hook("guard", "", "echo '{}'\n")
	ev, err := ParseHookEvent([]byte("{\"prompt\":\"a\u2028b\\u2029c\"}"), "BeforeAgent")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := FireChain(context.Background(), []RunnableHook{g}, ev); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(h.dir, "in-guard"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\"prompt\":\"a\u2028b\u2029c\"") {
		t.Errorf("the hook was given %s, want the prompt's line separators as they are", data)
	}
	out, ok := jsSpreadOver([]byte(`{}`), []byte("\"\u2029\""))
	if want := "{\"0\":\"\u2029\"}"; !ok || string(out) != want {
		t.Errorf("jsSpreadOver = %s, want %s", out, want)
	}
}
