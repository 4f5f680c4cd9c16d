package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/hookcases"
)

// TestClaudeHTTPHookAnswers: what Claude Code 2.1.332 does with a
// PreToolUse http hook that cannot answer, found by trying it, and that
// bundlectl exec -- claude does the same with the trusted bundle.
//
//   - A url JavaScript's URL parses whose scheme Claude Code cannot post
//     to ("ftp://x", "mailto:x", "file:" or "data:" with a deny in its text: Claude
//     Code's debug log says "Unsupported protocol data:") loads and fails
//     on every call: the tool
//     runs, unless onFailure is "block", when every call is blocked.
//     bundlectl refused such a bundle ("skipping it would let ... through
//     unguarded"); it now reviews it with a hook.url warning saying the
//     guard never blocks, or blocks every call, and runs it the same way.
//   - A 2xx answer whose body is not a JSON object ("ok" as text/plain,
//     HTML, "{not json") fails the hook: the tool runs, unless onFailure is
//     "block"; a blank body is an empty answer. Through exec, hooks exec
//     handed such a body on as a command hook's stdout after exit 0, which
//     Claude Code reads as plain output, so an onFailure "block" guard let
//     the tool through; it now exits 1 (harness TestClaudeOnFailureModes,
//     which runs the same internal/hookcases answers).
func TestClaudeHTTPHookAnswers(t *testing.T) {
	t.Parallel()
	srv := hookcases.NewHTTPAnswers(t)
	denyFile := filepath.Join(t.TempDir(), "deny.json")
	if err := os.WriteFile(denyFile, []byte(`{"decision":"block","reason":"d"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	type answerCase struct {
		name, url, onFailure string
		blocked              bool
		says                 string // in the review's warnings ("-": anything)
	}
	cases := []answerCase{
		{"ftp", "ftp://x", "", false, "so the hook fails on every call and never blocks PreToolUse"},
		{"ftp-block", "ftp://x", "block", true, "blocks every PreToolUse it matches"},
		{"mailto-block", "mailto:x", "block", true, `blocks every PreToolUse it matches`},
		{"text", srv.URL + "/text", "", false, "-"},
		{"file-deny", "file://" + denyFile, "", false, "never blocks PreToolUse"},
		{"data-deny", `data:application/json,{"decision":"block","reason":"d"}`, "", false, "never blocks PreToolUse"},
	}
	for _, h := range hookcases.HTTPAnswers {
		cases = append(cases, answerCase{h.Name + "-block", srv.URL + h.Path, "block", h.Blocked, "-"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			hook := map[string]any{"type": "http", "url": c.url}
			if c.onFailure != "" {
				hook["onFailure"] = c.onFailure
			}
			rec := t.TempDir()
			a := New(t, Claude, ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
			dir := filepath.Join(a.Workdir, ".bundlectl", "bundles", "ha")
			writeClaudeBashGuard(t, dir, "ha", hook)
			a.Args = []string{"--allowedTools", "Bash", "--plugin-dir", dir}
			res := a.Run(t, "hello")
			if ran := exists(filepath.Join(rec, "tool-ran")); ran == c.blocked {
				t.Fatalf("Claude Code: the tool ran = %v, want %v (found by trying Claude Code 2.1.332)\n%s", ran, !c.blocked, res)
			}

			home := t.TempDir()
			t.Cleanup(func() { Writable(home) })
			out, _, err := BundlectlEnv(t, home, nil, "--workspace", a.Workdir, "review", "--json", "ha")
			var rv struct {
				Token    string
				Warnings []ReviewWarning
			}
			json.Unmarshal([]byte(out), &rv)
			if err != nil || rv.Token == "" {
				t.Fatalf("bundlectl review refused the bundle: %v\n%s", err, out)
			}
			if c.says != "-" && !strings.Contains(out, c.says) {
				t.Errorf("the review does not say %q\n%s", c.says, out)
			}
			BundlectlRun(t, home, "--workspace", a.Workdir, "trust", "ha", rv.Token)
			BundlectlRun(t, home, "--workspace", a.Workdir, "enable", "ha")
			os.Remove(filepath.Join(rec, "tool-ran"))
			b := New(t, Claude, ShellCall(Claude, "touch "+filepath.Join(rec, "tool-ran")), Say("done"))
			b.Workdir = a.Workdir
			b.Launcher = execLauncher(t, home, b.Workdir)
			b.Args = []string{"--allowedTools", "Bash"}
			res = b.Run(t, "hello")
			if ran := exists(filepath.Join(rec, "tool-ran")); ran == c.blocked {
				t.Errorf("bundlectl exec -- claude: the tool ran = %v, want %v as in place\n%s", ran, !c.blocked, res)
			}
		})
	}
}
