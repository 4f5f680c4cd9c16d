package harness_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/internal/hookcases"
)

// TestClaudeOnFailureModes: each way a PreToolUse hook can fail, with
// "onFailure": "block", against what Claude Code 2.1.332 does with it
// (internal/agenttest TestClaudeOnFailureModes): it blocks on a timeout, a
// command not found, a spawn failure, a non-2 exit with output, JSON that
// fails its output schema, and an http hook whose server refuses the
// connection or answers 500, or answers 2xx with a body that is not JSON
// ("ok", HTML, "{not json"; a blank body is an empty answer); it does not
// on a command's stdout that starts with '{' but is no JSON (plain output
// to it), nor for an async or asyncRewake hook, which runs in the
// background. The cases are internal/hookcases', which the real-CLI
// tests run too.
func TestClaudeOnFailureModes(t *testing.T) {
	srv := hookcases.NewHTTPAnswers(t)
	cases := hookcases.ClaudeOnFailureModes(srv.URL+"/g", hookcases.RefusedURL(t))
	for _, a := range hookcases.HTTPAnswers {
		cases = append(cases, hookcases.OnFailure{Name: "http-" + a.Name, Hook: map[string]any{"type": "http", "url": srv.URL + a.Path}, Blocked: a.Blocked})
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			c.Hook["onFailure"] = "block"
			hooksJSON, err := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{c.Hook}}}}})
			must(t, err)
			home, ws := httpGuard(t, hooksJSON)
			r, err := harness.Load(harness.Options{Home: home, Workspace: ws, Host: bundle.HostClaude})
			must(t, err)
			defer r.Close()
			out, err := r.FireHooks(context.Background(), "PreToolUse", []byte(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`))
			must(t, err)
			if out.Blocked != c.Blocked {
				t.Fatalf("blocked %v, want %v as Claude Code does; reason %q, errors %+v", out.Blocked, c.Blocked, out.Reason, out.Errors)
			}
		})
	}
}
