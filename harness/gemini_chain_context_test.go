package harness

import (
	"context"
	"testing"
)

// TestFireChainGeminiContextLoneSurrogate: in a sequential BeforeAgent
// chain Gemini CLI 0.61 adds a hook's additionalContext to the prompt
// with JavaScript's + and gives the next hook JSON.stringify of it, so a
// lone surrogate, in the context or in the prompt before it, reaches that
// hook as its escape (internal/agenttest TestGeminiChainedContextBytes).
// hooks run gave it U+FFFD, another text than in place.
func TestFireChainGeminiContextLoneSurrogate(t *testing.T) {
	for _, c := range []struct{ prompt, context, want string }{
		{`"hello"`, `"\ud800"`, `"hello\n\n\ud800"`},
		{`"x\ud800"`, `"\udc00y"`, `"x\ud800\n\n\udc00y"`},
		{`"caf\u00e9"`, `"ok"`, "\"caf\u00e9\\n\\nok\""},
	} {
		h := newHookEnv(t)
		add := h.hook("add", "", `echo '{"hookSpecificOutput":{"additionalContext":`+c.context+`}}'`+"\n")
		next := h.hook("next", "", "echo '{}'\n")
		next.geminiSequential = true
		ev, err := ParseHookEvent([]byte(`{"prompt":`+c.prompt+`}`), "BeforeAgent")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := FireChain(context.Background(), []RunnableHook{add, next}, ev); err != nil {
			t.Fatal(err)
		}
		if got := string(h.stdin("next")["prompt"]); got != c.want {
			t.Errorf("prompt %s, context %s: the next hook was given %s, want %s", c.prompt, c.context, got, c.want)
		}
	}
}

// TestFireGeminiPromptLoneSurrogate: Gemini CLI 0.61 writes the event it
// gives a hook with JSON.stringify, so a lone surrogate in the user's
// prompt reaches the hook as its escape (the writer of
// internal/agenttest TestGeminiChainedContextBytes). hooks run gave it
// U+FFFD, as encoding/json reads it; bundlectl never judges a prompt, so
// the hook now gets the host's spelling.
func TestFireGeminiPromptLoneSurrogate(t *testing.T) {
	for _, prompt := range []string{`"a\ud800b"`, `"\udc00"`, `"caf\u00e9"`} {
		h := newHookEnv(t)
		first := h.hook("first", "", "echo '{}'\n")
		ev, err := ParseHookEvent([]byte(`{"hook_event_name":"BeforeAgent","prompt":`+prompt+`}`), "BeforeAgent")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := FireChain(context.Background(), []RunnableHook{first}, ev); err != nil {
			t.Fatal(err)
		}
		if got := string(h.stdin("first")["prompt"]); got != prompt {
			t.Errorf("prompt %s: the hook was given %s", prompt, got)
		}
	}
}
