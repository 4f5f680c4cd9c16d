//go:build unix

package gemini

import (
	"errors"
	"github.com/bundlectl/bundlectl/internal/testtree"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// TestSystemSettingsSkipped: Gemini CLI 0.61 reads the system settings and
// system defaults files only when they and every directory above them are
// owned by root and writable by no one else; otherwise it skips them, and
// exec counts them as absent too: their hooksConfig.enabled true does not
// turn hooks back on over the user's false (internal/agenttest
// TestExecGeminiSystemSettingsSkipped tries it with the real CLI).
func TestSystemSettingsSkipped(t *testing.T) {
	secure := testtree.RootOwnedDir(t)
	user := t.TempDir()
	if err := os.WriteFile(filepath.Join(user, "settings.json"), []byte(`{"hooksConfig": false}`), 0o600); err != nil {
		t.Fatal(err)
	}
	on := []byte(`{"hooksConfig": {"enabled": true}}`)
	write := func(p string, mode os.FileMode) {
		t.Helper()
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.Remove(p)
		if err := os.WriteFile(p, on, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		setup func() string // the system settings path
		read  bool
	}{
		{"root-owned", func() string { p := filepath.Join(secure, "a", "settings.json"); write(p, 0o644); return p }, true},
		{"group-writable", func() string { p := filepath.Join(secure, "b", "settings.json"); write(p, 0o664); return p }, false},
		{"others-writable-dir", func() string {
			p := filepath.Join(secure, "c", "settings.json")
			write(p, 0o644)
			os.Chmod(filepath.Dir(p), 0o757)
			return p
		}, false},
		{"not-root", func() string {
			p := filepath.Join(secure, "d", "settings.json")
			write(p, 0o644)
			if err := os.Chown(p, 1234, 1234); err != nil {
				t.Fatal(err)
			}
			return p
		}, false},
		{"link-to-tmp", func() string {
			target := filepath.Join(t.TempDir(), "settings.json")
			write(target, 0o644)
			p := filepath.Join(secure, "e", "settings.json")
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			return p
		}, false},
		{"under-tmp", func() string { p := filepath.Join(t.TempDir(), "settings.json"); write(p, 0o644); return p }, false},
	} {
		sys := tc.setup()
		if got := systemFileSkipped(sys) == ""; got != tc.read {
			t.Errorf("%s: read %v, want %v (%s)", tc.name, got, tc.read, systemFileSkipped(sys))
		}
		err := hooksOff(user, []string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + sys})
		var off *hosts.HooksOffError
		if refused := errors.As(err, &off); refused == tc.read {
			t.Errorf("%s: refused %v, want %v (%v)", tc.name, refused, !tc.read, err)
		}
		if !tc.read && (err == nil || !strings.Contains(err.Error(), "Gemini CLI skips the system settings file "+`"`+sys+`"`)) {
			t.Errorf("%s: the refusal does not name the skipped file: %v", tc.name, err)
		}
	}

	// The system defaults, below the user's settings, are skipped alike:
	// their enabled false, under silent user settings, keeps hooks off
	// only when Gemini CLI reads them.
	if err := os.WriteFile(filepath.Join(user, "settings.json"), []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{secure, t.TempDir()} {
		defaults := filepath.Join(dir, "system-defaults.json")
		if err := os.WriteFile(defaults, []byte(`{"hooksConfig": {"enabled": false}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		env := []string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + filepath.Join(dir, "settings.json")}
		err := hooksOff(user, env)
		if refused, read := err != nil, dir == secure; refused != read {
			t.Errorf("system defaults %s: refused %v, want %v (%v)", defaults, refused, read, err)
		}
	}

	// A read system file's hooksConfig without enabled still replaces
	// nothing: the user's non-object leaves enabled unset, off.
	sys := filepath.Join(secure, "notif.json")
	os.WriteFile(sys, []byte(`{"hooksConfig": {"notifications": true}}`), 0o644)
	os.WriteFile(filepath.Join(user, "settings.json"), []byte(`{"hooksConfig": false}`), 0o600)
	if err := hooksOff(user, []string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + sys}); err == nil || !strings.Contains(err.Error(), `"hooksConfig": false (not an object`) {
		t.Errorf("the user's non-object under a system hooksConfig without enabled: %v", err)
	}

	// Folder trust is read from the same files: an insecure system file's
	// folderTrust off does not make the folder trusted.
	ft := []byte(`{"security": {"folderTrust": {"enabled": false}}}`)
	for _, dir := range []string{secure, t.TempDir()} {
		sys := filepath.Join(dir, "trust.json")
		os.WriteFile(sys, ft, 0o644)
		if got, want := trustsFolder(user, []string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH=" + sys}, dir), dir == secure; got != want {
			t.Errorf("folderTrust off in %s: trusted %v, want %v", sys, got, want)
		}
	}
}
