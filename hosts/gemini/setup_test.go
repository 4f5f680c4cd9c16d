package gemini

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// TestSetupCommentedSettings: Gemini CLI reads a settings.json with
// comments (strip-json-comments, then JSON.parse), and so does setup: it
// wires the file keeping each comment and the CRLF line breaks, reads its
// lines back to say which events and timeouts are out of date, and
// --undo gives the user's bytes back. It once refused such a file ("not
// plain JSON"), and read back none of its lines.
func TestSetupCommentedSettings(t *testing.T) {
	home, user, ws := t.TempDir(), t.TempDir(), t.TempDir()
	// A folder Gemini CLI trusts (one no rule decides is named: TestUndecided).
	environ := []string{"HOME=" + user, "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(user, "no-system-settings.json"), "GEMINI_CLI_TRUST_WORKSPACE=true"}
	settings := filepath.Join(user, ".gemini", "settings.json")
	orig := strings.ReplaceAll(`// my settings
{
  "ui": {"theme": "GitHub"}, /* not "hooks" */
  "tools": {"exclude": ["http://x", "/*"]} // last
}
`, "\n", "\r\n")
	write := func(data []byte) {
		t.Helper()
		if err := os.WriteFile(settings, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Dir(settings), 0o700)
	write([]byte(orig))
	h := Host{}
	in := hosts.SetupInput{Reentry: hosts.Reentry{Exe: "/bin/bundlectl", Home: home, Workspace: ws}, Environ: environ}
	res, err := hosts.Setup(home, h, in)
	if err != nil || len(res) != 1 || !res[0].Changed {
		t.Fatalf("Setup = %+v, %v", res, err)
	}
	wired, _ := os.ReadFile(settings)
	for _, kept := range []string{"// my settings\r\n{\r\n", `"ui": {"theme": "GitHub"}, /* not "hooks" */` + "\r\n", `"tools": {"exclude": ["http://x", "/*"]}, // last` + "\r\n"} {
		if !bytes.Contains(wired, []byte(kept)) {
			t.Errorf("setup did not keep %q:\n%s", kept, wired)
		}
	}
	if bytes.Count(wired, []byte("\n")) != bytes.Count(wired, []byte("\r\n")) {
		t.Errorf("setup wrote LF line breaks into a CRLF file:\n%q", wired)
	}
	if got := h.WiredEvents(wired); !slices.Equal(got, Events) {
		t.Errorf("WiredEvents = %v, want %v", got, Events)
	}
	if res, err := hosts.Setup(home, h, in); err != nil || res[0].Changed {
		t.Errorf("Setup again = %+v, %v, want nothing changed", res, err)
	}
	if st, err := hosts.CheckSetup(home, h, environ); st != nil || err != nil {
		t.Errorf("CheckSetup = %+v, %v, want nothing out of date", st, err)
	}
	if sts := hosts.CheckSetups(home, ws, environ); len(sts) != 0 {
		t.Errorf("CheckSetups = %+v, want nothing (the lines are there)", sts[0])
	}

	// One event's line taken out by hand, comments kept: named.
	root, err := hosts.ParseJSONAs(wired, hosts.CommentedJSON)
	if err != nil {
		t.Fatal(err)
	}
	hooks, _ := root.Get("hooks")
	hooks.Delete("BeforeTool")
	write(root.Marshal())
	if st, _ := hosts.CheckSetup(home, h, environ); st == nil || !slices.Equal(st.Missing, []string{"BeforeTool"}) {
		t.Errorf("CheckSetup = %+v, want BeforeTool missing", st)
	}
	// A timeout shortened by hand: named.
	write(bytes.Replace(wired, []byte("86400000"), []byte("60000 /* a minute */"), 1))
	if st, _ := hosts.CheckSetup(home, h, environ); st == nil || st.Timeout != 60000 {
		t.Errorf("CheckSetup = %+v, want the 60000 ms timeout named", st)
	}

	write(wired)
	if _, err := hosts.Undo(home, h, in); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(settings); string(b) != orig {
		t.Errorf("--undo left\n%q\nwant\n%q", b, orig)
	}
}

// TestSetupStaleTimerOverflow: a setup line whose timeout was raised past
// 2^31-1 ms is out of date, and says why: Gemini CLI's timer (Node.js)
// fires such a delay after 1 ms, so it kills `hooks run` at once, reads a
// failed hook and runs the tool (internal/agenttest
// TestHostsGuardTimeouts, 2147483648 ms). CheckSetup took the line for
// the longest of all, and list and the SessionStart check said nothing.
func TestSetupStaleTimerOverflow(t *testing.T) {
	home, user, ws := t.TempDir(), t.TempDir(), t.TempDir()
	environ := []string{"HOME=" + user, "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(user, "no-system-settings.json")}
	h := Host{}
	in := hosts.SetupInput{Reentry: hosts.Reentry{Exe: "/bin/bundlectl", Home: home, Workspace: ws}, Environ: environ}
	if _, err := hosts.Setup(home, h, in); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(user, ".gemini", "settings.json")
	wired, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	for _, long := range []string{"2147483648", "1e400"} {
		if err := os.WriteFile(settings, bytes.Replace(wired, []byte("86400000"), []byte(long), 1), 0o600); err != nil {
			t.Fatal(err)
		}
		st, _ := hosts.CheckSetup(home, h, environ)
		if st == nil || !st.AtOnce || !strings.Contains(st.Message(), "its timeout is past 2147483647 ms, which Gemini CLI's runtime (Node.js) fires after 1 ms") {
			t.Errorf("timeout %s: CheckSetup = %+v, want it named as fired at once", long, st)
		}
	}
	// At the limit, a timer Node.js keeps: current.
	if err := os.WriteFile(settings, bytes.ReplaceAll(wired, []byte("86400000"), []byte("2147483647")), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, _ := hosts.CheckSetup(home, h, environ); st != nil {
		t.Errorf("timeout 2147483647: CheckSetup = %+v, want nothing out of date", st)
	}
}
