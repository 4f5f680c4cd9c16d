package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGeminiDialogSavesSettings: /theme, /editor, /settings and /auth, chosen in
// an interactive Gemini CLI 0.61 session started before setup wired the
// guards, save through the same saveSettings as /vim
// (TestGeminiInteractiveSavesSettings): the copy of settings.json the
// session read at its start is written back with the one change, so
// setup's lines are gone, and list says so. (/theme is unavailable with
// NO_COLOR set, which Agent sets: the session runs without it.) Each step
// waits for what the screen or the file shows, never for time.
func TestGeminiDialogSavesSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		command, completion, dialog, saves string
	}{
		{"/theme", "Change the theme", "Select Theme", `"theme"`},
		// No editor is installed here: the choice Enter makes leaves
		// general.preferredEditor unset, and the copy is saved all the same.
		{"/editor", "Set external editor preference", "Select Editor", ""},
		// Its first entry, Vim Mode, toggled.
		{"/settings", "View and edit Gemini CLI settings", "Vim Mode", `"vimMode"`},
		// Its first choice is the method already selected (the offline
		// API key's); choosing it saves security.auth.selectedType in the
		// user's file before it asks for the key.
		{"/auth", "Manage authentication", "Get started", `"selectedType"`},
	} {
		t.Run(strings.TrimPrefix(tc.command, "/"), func(t *testing.T) {
			t.Parallel()
			a := New(t, GeminiCLI, Say("done"))
			f := newTrustedFixture(t, a, filepath.Join(t.TempDir(), markerName))
			a.Env = []string{"NO_COLOR="} // /theme is unavailable with NO_COLOR set
			argv, env := a.Command(t, "unused")
			argv = argv[:len(argv)-2] // no -p: interactive
			userFile, _ := setupFiles(a)
			g := startGeminiTTY(t, argv, env, a.Workdir)
			g.waitShown(t, "Type your message")

			senv := append(setupEnv(a), "GEMINI_CLI_TRUST_WORKSPACE=true")
			if out, errOut, err := BundlectlEnv(t, f.home, senv, "--workspace", f.ws, "setup", "gemini"); err != nil {
				t.Fatalf("setup: %v\n%s%s", err, out, errOut)
			}
			wired, _ := os.ReadFile(userFile)
			g.keys(tc.command)
			g.waitShown(t, tc.completion)
			g.waitFor(t, tc.dialog+" dialog", func() bool {
				if g.shows(tc.dialog) {
					return true
				}
				g.keys("\r")
				return false
			})
			g.waitFor(t, tc.saves+" saved", func() bool {
				// Gemini CLI writes the file in place: read a whole one.
				data, _ := os.ReadFile(userFile)
				if json.Valid(data) && string(data) != string(wired) {
					return true
				}
				g.keys("\r")
				return false
			})
			data, _ := os.ReadFile(userFile)
			t.Logf("%s: wired:\n%s\nsaved:\n%s", tc.command, wired, data)
			if !strings.Contains(string(data), tc.saves) { // "" for any
				t.Errorf("%s saved no %s:\n%s", tc.command, tc.saves, data)
			}
			if strings.Contains(string(data), "hooks run") {
				t.Fatalf("Gemini CLI kept setup's lines when %s saved its settings: this test's premise no longer holds\n%s", tc.command, data)
			}
			if st := setupStatus(t, f, senv); st == nil || st["status"] != "gone" {
				t.Fatalf("list after %s saved the settings: %v, want status gone\n%s", tc.command, st, data)
			}
		})
	}
}

// TestGeminiAuthKeepsSetupLines: /auth in a Gemini CLI 0.61 session
// started after setup wired the guards saves security.auth.selectedType
// into the user's settings.json by writing back the copy it read, which
// holds setup's lines: the file is written again (in Gemini CLI's own
// layout, comments kept) and the lines are kept, so list still finds them and says nothing.
// Each step waits for what the screen shows, never for time.
func TestGeminiAuthKeepsSetupLines(t *testing.T) {
	t.Parallel()
	a := New(t, GeminiCLI, Say("done"))
	f := newTrustedFixture(t, a, filepath.Join(t.TempDir(), markerName))
	argv, env := a.Command(t, "unused")
	argv = argv[:len(argv)-2] // no -p: interactive
	userFile, _ := setupFiles(a)
	senv := append(setupEnv(a), "GEMINI_CLI_TRUST_WORKSPACE=true")
	if out, errOut, err := BundlectlEnv(t, f.home, senv, "--workspace", f.ws, "setup", "gemini"); err != nil {
		t.Fatalf("setup: %v\n%s%s", err, out, errOut)
	}
	// A comment setup keeps, which tells Gemini CLI's rewrite from none.
	wired, _ := os.ReadFile(userFile)
	wired = append([]byte("// mine\n"), wired...)
	if err := os.WriteFile(userFile, wired, 0o644); err != nil {
		t.Fatal(err)
	}
	// An old time, so the write /auth makes shows even where it writes
	// the same bytes.
	old := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(userFile, old, old); err != nil {
		t.Fatal(err)
	}
	g := startGeminiTTY(t, argv, env, a.Workdir)
	g.waitShown(t, "Type your message")
	g.keys("/auth")
	g.waitShown(t, "Manage authentication")
	// The method already selected is the first choice: Enter saves it and
	// then asks for the key.
	g.waitFor(t, "the API key dialog", func() bool {
		if g.shows("Enter Gemini API Key") {
			return true
		}
		g.keys("\r")
		return false
	})
	data, _ := os.ReadFile(userFile)
	t.Logf("wired:\n%s\nsaved:\n%s", wired, data)
	if fi, err := os.Stat(userFile); err != nil || fi.ModTime().Equal(old) {
		t.Fatalf("/auth did not write the file (%v): this test's premise no longer holds", err)
	}
	if !strings.Contains(string(data), "hooks run") || !strings.Contains(string(data), "// mine") {
		t.Fatalf("/auth's rewrite dropped setup's lines or the comment\n%s", data)
	}
	if st := setupStatus(t, f, senv); st != nil {
		t.Errorf("list after /auth rewrote the file: %v, want nothing\n%s", st, data)
	}
}
