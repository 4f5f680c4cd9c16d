package agenttest

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/testtree"
)

// listSetup runs bundlectl list --json for the fixture and returns its
// setup entries.
func listSetup(t *testing.T, a *Agent, f *execFixture) []map[string]any {
	t.Helper()
	out, errOut, err := BundlectlEnv(t, f.home, setupEnv(a), "--workspace", f.ws, "list", "--json")
	if err != nil {
		t.Fatalf("bundlectl list: %v\n%s%s", err, out, errOut)
	}
	var v struct {
		Setup []map[string]any `json:"setup"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	return v.Setup
}

// TestListClaudeSettingsUTF16: Claude Code 2.1.332 reads the user's
// settings.json saved as UTF-16 little-endian behind its byte order mark,
// setup's hook lines and all: the guard blocks the command. bundlectl
// cannot read it, and list once said the lines were gone (hint: setup,
// which refuses the file); it says it cannot read it (unreadable).
func TestListClaudeSettingsUTF16(t *testing.T) {
	t.Parallel()
	marker := t.TempDir() + "/" + markerName
	a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	wrote := f.runSetup(t, a, "owls")
	a.SettingsFile = []byte(testtree.UTF16LE(string(wrote)))
	a.Args = append(a.Args, "--allowedTools", "Bash")
	res := a.Run(t, "touch the marker")
	if res.Exit != 0 {
		t.Fatalf("the agent failed (it did not read the file?)\n%s", res)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the guarded command ran: this test's premise (Claude Code 2.1.332 runs setup's lines from a UTF-16 settings.json) no longer holds\n%s", res)
	}
	sts := listSetup(t, a, f)
	if len(sts) != 1 || sts[0]["status"] != "unreadable" || sts[0]["unreadable"] != "utf-16" {
		t.Fatalf("list --json setup = %v, want one unreadable (utf-16)", sts)
	}
}

// TestListCodexConfigCRLF: Codex 0.171 reads a config.toml with CRLF line
// breaks (as a Windows editor saves it), setup's block and all: the guard
// blocks the command. list once found none of the block's lines (it looked
// for its markers ending in LF) and said them gone, and setup then wrote a
// second block; now list says nothing, and setup finds its block.
func TestListCodexConfigCRLF(t *testing.T) {
	t.Parallel()
	marker := t.TempDir() + "/" + markerName
	a := New(t, Codex, ShellCall(Codex, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	f.runSetup(t, a, "hello")
	a.CodexConfig = strings.ReplaceAll(a.CodexConfig, "\n", "\r\n")
	res := a.Run(t, "touch the marker")
	if res.Exit != 0 {
		t.Fatalf("the agent failed (it did not read the file?)\n%s", res)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the guarded command ran: this test's premise (Codex 0.171 runs setup's lines from a CRLF config.toml) no longer holds\n%s", res)
	}
	if sts := listSetup(t, a, f); len(sts) != 0 {
		t.Errorf("list --json setup = %v, want nothing (the lines are there, and run)", sts)
	}
	if err := os.WriteFile(a.ConfigDir()+"/config.toml", []byte(a.CodexConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := BundlectlEnv(t, f.home, setupEnv(a), "--workspace", f.ws, "setup", "codex")
	if err != nil || !strings.HasPrefix(out, "unchanged ") {
		t.Errorf("setup on the CRLF file: %v, want it unchanged\n%s%s", err, out, errOut)
	}
}

// TestGeminiSettingsByteOrderMark: Gemini CLI 0.61 does not start with a
// user settings.json behind a UTF-8 byte order mark ("Error in <file>":
// its JSON.parse refuses the mark), setup's lines in it or not. list once
// said the lines were gone ("none is there now"), with setup, which
// refuses the file, as the fix; it says the file does not parse, that
// Gemini CLI refuses to start, and shows the line.
func TestGeminiSettingsByteOrderMark(t *testing.T) {
	t.Parallel()
	marker := t.TempDir() + "/" + markerName
	a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
	f := newTrustedFixture(t, a, marker)
	wrote := f.runSetup(t, a, "owls")
	a.SettingsFile = append([]byte("\ufeff"), wrote...)
	res := a.Run(t, "touch the marker")
	if res.Exit == 0 || !strings.Contains(res.Stderr+res.Stdout, "Error in ") {
		t.Fatalf("Gemini CLI started: this test's premise (Gemini CLI 0.61 refuses a settings.json behind a byte order mark) no longer holds\n%s", res)
	}
	sts := listSetup(t, a, f)
	if len(sts) != 1 || sts[0]["status"] != "gone" || !strings.Contains(sts[0]["message"].(string), "refuses to start") || !strings.HasPrefix(sts[0]["hint"].(string), "sed -n 1p ") {
		t.Fatalf("list --json setup = %v, want the lines gone to Gemini CLI, which refuses the file, and its line shown", sts)
	}
}

// TestListSettingsDuplicateKey: Claude Code 2.1.332 and Gemini CLI 0.61
// read a user settings.json with a key written twice (JSON.parse takes
// the last), setup's lines and all: the guard blocks. bundlectl's JSON
// reader refuses such a file (setup writes it back whole); list once
// said the lines were gone (Gemini: that it refuses to start), with
// setup, which refuses the file, as the fix. It says it cannot read it
// (unreadable, duplicate-key), with the line.
func TestListSettingsDuplicateKey(t *testing.T) {
	t.Parallel()
	for _, host := range []Host{Claude, GeminiCLI} {
		t.Run(string(host), func(t *testing.T) {
			t.Parallel()
			marker := t.TempDir() + "/" + markerName
			a := New(t, host, ShellCall(host, "touch "+marker), Say("done"))
			f := newTrustedFixture(t, a, marker)
			wrote := f.runSetup(t, a, "owls")
			a.SettingsFile = []byte(strings.Replace(string(wrote), "{\n", "{\n  \"x\": 1,\n  \"x\": 2,\n", 1))
			if host == Claude {
				a.Args = append(a.Args, "--allowedTools", "Bash")
			}
			res := a.Run(t, "touch the marker")
			if res.Exit != 0 {
				t.Fatalf("the agent failed (it did not read the file?)\n%s", res)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("the guarded command ran: this test's premise (%s runs setup's lines from a settings.json with a key written twice) no longer holds\n%s", host, res)
			}
			// As the session started (Gemini CLI writes its settings back).
			if err := os.WriteFile(a.ConfigDir()+"/settings.json", a.SettingsFile, 0o644); err != nil {
				t.Fatal(err)
			}
			sts := listSetup(t, a, f)
			if len(sts) != 1 || sts[0]["status"] != "unreadable" || sts[0]["unreadable"] != "duplicate-key" || !strings.HasPrefix(sts[0]["hint"].(string), "sed -n 3p ") {
				t.Fatalf("list --json setup = %v, want one unreadable (duplicate-key), the hint showing line 3 (the second)", sts)
			}
		})
	}
}
