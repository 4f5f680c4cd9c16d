package harness

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// childEnv runs /usr/bin/env with env and returns what the child saw.
func childEnv(t *testing.T, env []string) map[string]string {
	t.Helper()
	res, err := Run(context.Background(), Spec{Argv: []string{"/usr/bin/env"}, Dir: t.TempDir(), Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("env exited %d: %s", res.ExitCode, res.Stderr)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(string(res.Stdout), "\n"), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			got[k] = v
		}
	}
	return got
}

func TestBuildEnvInRealChild(t *testing.T) {
	secrets := map[string]string{
		"SECRET_TOKEN":          "tok-123",
		"AWS_SECRET_ACCESS_KEY": "aws-456",
		"LD_PRELOAD":            "/tmp/evil.so",
		"NODE_OPTIONS":          "--require /tmp/evil.js",
		"PYTHONPATH":            "/tmp/evil",
		"GIT_DIR":               "/tmp/evil",
		"https_proxy":           "http://evil:1",
		"BUNDLECTL_HOME":        "/tmp/evil",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("PATH", "/usr/local/bin::.:bin:/usr/bin:/bin")
	t.Setenv("HOME", "/home/tester")
	t.Setenv("LC_ALL", "C.UTF-8")
	t.Setenv("TZ", "UTC")
	t.Setenv("EDITOR", "vi")

	t.Run("no mapping", func(t *testing.T) {
		env := BuildEnv(os.Environ(), map[string]string{"MODE": "fast"}, nil, "/store/abc", "/data/x")
		got := childEnv(t, env)
		for k := range secrets {
			if _, ok := got[k]; ok {
				t.Errorf("%s reached the child", k)
			}
		}
		if _, ok := got["EDITOR"]; ok {
			t.Error("a variable outside the allowlist reached the child")
		}
		want := map[string]string{
			"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/home/tester", "LC_ALL": "C.UTF-8",
			"TZ": "UTC", "MODE": "fast", "PLUGIN_ROOT": "/store/abc", "PLUGIN_DATA": "/data/x",
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %q, want %q", k, got[k], v)
			}
		}
	})

	t.Run("env_from names the credential", func(t *testing.T) {
		env := BuildEnv(os.Environ(), nil, map[string]string{
			"API_TOKEN":  "SECRET_TOKEN",
			"AWS_SECRET": "AWS_SECRET_ACCESS_KEY",
			"ABSENT":     "NOT_SET_ANYWHERE_42",
			"LD_PRELOAD": "SECRET_TOKEN", // denied destination
		}, "/store/abc", "/data/x")
		got := childEnv(t, env)
		if got["API_TOKEN"] != "tok-123" || got["AWS_SECRET"] != "aws-456" {
			t.Errorf("mapped credentials missing: %v", got)
		}
		for _, k := range []string{"SECRET_TOKEN", "AWS_SECRET_ACCESS_KEY", "ABSENT", "LD_PRELOAD"} {
			if _, ok := got[k]; ok {
				t.Errorf("%s reached the child", k)
			}
		}
	})
}

func TestBuildEnvLayers(t *testing.T) {
	host := []string{"HOME=/h1", "HOME=/h2", "PATH=rel:", "TERM=xterm", "SRC=from-host", "EMPTY=", "junk", "=x"}
	env := BuildEnv(host,
		map[string]string{"TERM": "dumb", "A": "lit", "PLUGIN_ROOT": "/fake", "NODE_OPTIONS": "x", "BAD=NAME": "x", "NUL": "a\x00b"},
		map[string]string{"A": "SRC", "B": "EMPTY", "TERM": "MISSING", "PATH": "SRC"},
		"/snap", "/data")
	want := []string{"A=from-host", "B=", "HOME=/h2", "PLUGIN_DATA=/data", "PLUGIN_ROOT=/snap", "TERM=dumb"}
	if !slices.Equal(env, want) {
		t.Fatalf("BuildEnv =\n%q\nwant\n%q", env, want)
	}
}

func TestDeniedEnvName(t *testing.T) {
	denied := []string{"LD_PRELOAD", "LD_LIBRARY_PATH", "ld_preload", "DYLD_INSERT_LIBRARIES", "NODE_OPTIONS",
		"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PERL5OPT", "PERL5LIB", "RUBYOPT", "BASH_ENV", "ENV",
		"GIT_SSH_COMMAND", "GIT_DIR", "HTTP_PROXY", "https_proxy", "ALL_PROXY", "NO_PROXY", "PATH", "path",
		"BUNDLECTL_HOME", "BUNDLECTL_HOOK_DEPTH"}
	for _, n := range denied {
		if !DeniedEnvName(n) {
			t.Errorf("DeniedEnvName(%q) = false", n)
		}
	}
	allowed := []string{"API_TOKEN", "HOME", "NODE_ENV", "PYTHONUNBUFFERED", "ENVIRONMENT", "MY_LD", "GITHUB_TOKEN", "PROXY", "PATHS"}
	for _, n := range allowed {
		if DeniedEnvName(n) {
			t.Errorf("DeniedEnvName(%q) = true", n)
		}
	}
}

func TestCleanPath(t *testing.T) {
	if got := CleanPath(":/a:.:b::/c/:", ""); got != "/a:/c/" {
		t.Fatalf("CleanPath = %q", got)
	}
	if got := CleanPath("::.", ""); got != "" {
		t.Fatalf("CleanPath = %q", got)
	}
	// Entries inside the workspace resolve bare names to its code.
	got := CleanPath("/ws/node_modules/.bin:/usr/bin:/ws:/ws2/bin:/ws/../ws/bin", "/ws")
	if got != "/usr/bin:/ws2/bin" {
		t.Fatalf("CleanPath with a workspace = %q", got)
	}

	// A link into the workspace, and a workspace named through a link,
	// are inside it too.
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	if err := os.MkdirAll(filepath.Join(ws, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(ws, filepath.Join(base, "wslink")); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(base, "tools")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(base, "wslink", "bin") + ":" + filepath.Join(ws, "bin") + ":" + outside
	for _, w := range []string{ws, filepath.Join(base, "wslink")} {
		if got := CleanPath(path, w); got != outside {
			t.Errorf("CleanPath(%q, %q) = %q, want only %q", path, w, got, outside)
		}
	}
}
