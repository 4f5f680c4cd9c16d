package hosts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHooksOffHint: the hint of a settings file that turns hooks off
// greps for the key and finds its line; a key the file spells with
// escapes, which grep would not find, shows the file instead; one that
// cannot be read shows its mode.
func TestHooksOffHint(t *testing.T) {
	off := func(m map[string]any) (string, string, string) {
		if m["disableAllHooks"] == true {
			return `"disableAllHooks": true`, "disableAllHooks", "remove it"
		}
		return "", "", ""
	}
	dir := t.TempDir()
	for _, c := range []struct{ name, text, hint, out string }{
		{"plain.json", "{\n  \"disableAllHooks\" : true\n}\n", "grep -n -E -- '\"disableAllHooks\"' ", "2:  \"disableAllHooks\" : true"},
		{"it's.json", "{\"disableAllHooks\":true}", "grep -n -E -- '\"disableAllHooks\"' ", "1:{\"disableAllHooks\":true}"},
		{"escaped.json", `{"disable\u0041llHooks": true}`, "cat -v -- ", `{"disable\u0041llHooks": true}`},
	} {
		f := filepath.Join(dir, c.name)
		if err := os.WriteFile(f, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		err := CheckSettings("claude", []string{f}, off)
		e, ok := err.(*HooksOffError)
		if !ok || !strings.HasPrefix(e.Hint(), c.hint) {
			t.Errorf("%s: got %v, want a HooksOffError whose hint starts %q", c.name, err, c.hint)
			continue
		}
		out, err := exec.Command("sh", "-c", e.Hint()).Output()
		if err != nil || strings.TrimSpace(string(out)) != c.out {
			t.Errorf("%s: %s printed %q (%v), want %q", c.name, e.Hint(), out, err, c.out)
		}
	}
	err := CheckSettings("claude", []string{dir}, off)
	if e, ok := err.(*HooksOffError); !ok || e.Hint() != "ls -ld -- "+dir {
		t.Errorf("a directory: got %v, want a HooksOffError whose hint is ls -ld", err)
	}
}

// TestUnreadableSettingsHint: exec's refusal of a settings file the host
// reads and bundlectl cannot decode gives the hint list and setup give
// it (UnreadableError.Hint: a UTF-16 file rewritten as UTF-8, the line
// of a number too large shown), not cat -v of the file, which exec's
// refusal of a UTF-16 file once printed.
func TestUnreadableSettingsHint(t *testing.T) {
	const f = "/home/u/.claude/settings.json"
	for _, ue := range []*UnreadableError{{Why: BeyondUTF16, Title: "Claude Code"}, {Why: BeyondNumber, Title: "Claude Code", Line: 3}} {
		e, ok := UnreadableSettings("claude", f, ue).(*HooksOffError)
		if !ok || e.Hint() != ue.Hint(f) {
			t.Errorf("%v: hint %q, want %q", ue.Why, e.Hint(), ue.Hint(f))
		}
	}
}

// TestReadSettingsNodeDecoding: a settings file's bytes that are not
// UTF-8 are read as Claude Code and Gemini CLI (Node.js) decode them, one
// U+FFFD for each maximal invalid sequence: an enabledPlugins key
// "x\xf0\x9f\x98@m" is the plugin "x\ufffd@m" to the host, which exec
// --exclusive must turn off by that id (Go's decoding gave three).
func TestReadSettingsNodeDecoding(t *testing.T) {
	p := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(p, []byte("{\"enabledPlugins\": {\"x\xf0\x9f\x98@m\": true}}"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := ReadSettings(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m["enabledPlugins"].(map[string]any)["x\ufffd@m"]; !ok {
		t.Errorf("read %q, want the key x\\ufffd@m", m)
	}
}
