package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/hosts"
)

// TestListUnparsedSettings: setup's lines in a user settings.json that
// Gemini CLI cannot read (saved behind a UTF-8 byte order mark, which its
// JSON.parse refuses: it does not start, internal/agenttest
// TestGeminiSettingsByteOrderMark) are not taken out: list says the file
// does not parse, at which line, and that Gemini CLI refuses to start,
// with a hint showing the line, not setup (which refuses the file). It
// once said "none is there now", with setup as the fix.
func TestListUnparsedSettings(t *testing.T) {
	home, user, ws := t.TempDir(), t.TempDir(), t.TempDir()
	environ := []string{"HOME=" + user, "GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(user, "no-system-settings.json")}
	settings := filepath.Join(user, ".gemini", "settings.json")
	in := hosts.SetupInput{Reentry: hosts.Reentry{Exe: "/bin/bundlectl", Home: home, Workspace: ws}, Environ: environ}
	if _, err := hosts.Setup(home, Host{}, in); err != nil {
		t.Fatal(err)
	}
	wrote, _ := os.ReadFile(settings)
	if err := os.WriteFile(settings, append([]byte("\ufeff"), wrote...), 0o644); err != nil {
		t.Fatal(err)
	}
	sts := hosts.CheckSetups(home, ws, environ)
	if len(sts) != 1 || !sts[0].Gone || sts[0].Syntax == nil || sts[0].Syntax.Line != 1 {
		t.Fatalf("CheckSetups = %+v, want the lines gone to Gemini CLI, the file not parsing at line 1", sts)
	}
	if want := "sed -n 1p " + bundle.ShellArg(settings); sts[0].Fix() != want {
		t.Errorf("Fix = %q, want %q", sts[0].Fix(), want)
	}
	if msg := sts[0].Message(); !strings.Contains(msg, "byte order mark") || !strings.Contains(msg, "refuses to start") || strings.Contains(msg, "none is there") {
		t.Errorf("Message = %q", msg)
	}
	for _, c := range []struct{ name, data string }{{"an array", "[]"}, {"null", "null"}} {
		if err := os.WriteFile(settings, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if sts := hosts.CheckSetups(home, ws, environ); len(sts) != 1 || sts[0].Syntax == nil {
			t.Errorf("%s: CheckSetups = %+v, want a file Gemini CLI refuses", c.name, sts)
		}
	}
	if err := os.WriteFile(settings, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if sts := hosts.CheckSetups(home, ws, environ); len(sts) != 1 || sts[0].Syntax != nil || sts[0].Fix() != "bundlectl setup gemini" {
		t.Errorf("CheckSetups = %+v, want the lines gone, setup the fix", sts)
	}
}

// TestConfigUnreadable: a settings.json Gemini CLI reads (JSON.parse
// takes the last of a key written twice) and WiredEvents does not is
// unreadable, never a file Gemini CLI refuses to start with (agenttest
// TestListSettingsDuplicateKey: it runs setup's lines); one nested past
// 10000 it refuses ("Maximum call stack size exceeded").
func TestConfigUnreadable(t *testing.T) {
	for _, c := range []struct {
		name, data string
		want       hosts.Beyond
		refuses    bool
	}{
		{"a key written twice", "{\"x\": 1, // mine\n\"x\": 2}", hosts.BeyondDuplicateKey, false},
		{"nested 10001 deep", `{"x": ` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`, 0, true},
		{"a byte order mark", "\ufeff{}", 0, true},
		{"a comment", "{} // mine", 0, false},
	} {
		got := Host{}.ConfigUnreadable([]byte(c.data))
		if (got == nil) != (c.want == 0) || got != nil && got.Why != c.want {
			t.Errorf("%s: ConfigUnreadable = %+v, want %v", c.name, got, c.want)
		}
		if se, _ := (Host{}).ConfigSyntax([]byte(c.data)); (se != nil) != c.refuses {
			t.Errorf("%s: ConfigSyntax = %v, want refused %v", c.name, se, c.refuses)
		}
	}
}
