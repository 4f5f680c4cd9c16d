package sources

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The command a failed fetch hints never repeats a credential: a remote
// with userinfo (other than an ssh:// login name alone, which is not a
// secret), a query or a fragment gets no hint rather than a redacted one
// that would not work as printed.
func TestLsRemoteNeverPrintsCredentials(t *testing.T) {
	for remote, want := range map[string]string{
		"https://example.com/org/repo.git":        "git ls-remote https://example.com/org/repo.git",
		"file:///srv/repo":                        "git ls-remote file:///srv/repo",
		"/srv/my repo":                            "git ls-remote '/srv/my repo'",
		"git@example.com:org/repo.git":            "git ls-remote git@example.com:org/repo.git",
		"https://user:ghp_secret@example.com/r":   "",
		"https://ghp_secret@example.com/r":        "",
		"ssh://git@example.com/org/repo.git":      "git ls-remote ssh://git@example.com/org/repo.git",
		"SSH://git@example.com:2222/org/repo.git": "git ls-remote SSH://git@example.com:2222/org/repo.git",
		"ssh://git:pw@example.com/org/repo.git":   "",
		"ssh://git%3Apw@example.com/org/repo.git": "",
		"https://git@example.com/org/repo.git":    "",
		"user:ghp_secret@example.com:org/repo":    "",
		"https://example.com/r.git?token=secret":  "",
		"https://example.com/r.git#access=secret": "",
		"-uhack": "",
		"":       "",
	} {
		if got := LsRemote(remote); got != want {
			t.Errorf("LsRemote(%q) = %q, want %q", remote, got, want)
		}
	}
}

// The command that shows a git marketplace's catalogue names the remote
// only where git ls-remote may (never a credential) and only a full
// commit id, so what it prints is what was read.
func TestShowGitFileNeverPrintsCredentials(t *testing.T) {
	const c = "0123456789abcdef0123456789abcdef01234567"
	const show = `sh -c 'd=$(mktemp -d) && git -C "$d" init -q && git -C "$d" fetch -q --depth 1 -- "$1" "$2" && git -C "$d" show "FETCH_HEAD:$3"; s=$?; rm -rf "$d"; exit $s' sh `
	for _, tc := range []struct{ remote, commit, want string }{
		{"file:///srv/m", c, show + `file:///srv/m ` + c + ` .claude-plugin/marketplace.json`},
		{"/srv/my market", c, show + `'/srv/my market' ` + c + ` .claude-plugin/marketplace.json`},
		{"https://ghp_secret@example.com/r", c, ""},
		{"https://example.com/r.git?token=secret", c, ""},
		{"https://example.com/r.git", "main", ""},
		{"https://example.com/r.git", "", ""},
	} {
		if got := ShowGitFile(tc.remote, tc.commit, ".claude-plugin/marketplace.json"); got != tc.want {
			t.Errorf("ShowGitFile(%q, %q) = %q, want %q", tc.remote, tc.commit, got, tc.want)
		}
	}
}

// The commands that list a directory of a fetched commit, and validate
// its tree, name the remote only where git ls-remote may, only a full
// commit id, and a directory name that is one.
func TestGitTreeHintsNeverPrintCredentials(t *testing.T) {
	const c = "0123456789abcdef0123456789abcdef01234567"
	const fetch = `sh -c 'd=$(mktemp -d) && git -C "$d" init -q && git -C "$d" fetch -q --depth 1 -- "$1" "$2" && `
	const validate = `mkdir "$d/$3" && mkdir -p "$d/.git/info" && echo "* -export-ignore -export-subst -text -filter -ident -working-tree-encoding" > "$d/.git/info/attributes" && git -C "$d" archive "$4" | tar -x -C "$d/$3" && bundlectl validate "$d/$3"; s=$?; rm -rf "$d"; exit $s' sh `
	for _, tc := range []struct{ got, want string }{
		{ListGitDir("file:///srv/r", c, ""), fetch + `git -C "$d" ls-tree FETCH_HEAD; s=$?; rm -rf "$d"; exit $s' sh file:///srv/r ` + c},
		{ListGitDir("file:///srv/r", c, "my dir"), fetch + `git -C "$d" ls-tree FETCH_HEAD -- "$3"; s=$?; rm -rf "$d"; exit $s' sh file:///srv/r ` + c + ` 'my dir/'`},
		{ListGitDir("https://ghp_secret@example.com/r", c, "a"), ""},
		{ListGitDir("file:///srv/r", "main", "a"), ""},
		{ListGitDir("file:///srv/r", c, "a\nb"), ""},
		{ValidateGitTree("file:///srv/r", c, "", "p1"), fetch + validate + `file:///srv/r ` + c + ` p1 FETCH_HEAD`},
		{ValidateGitTree("file:///srv/r", c, "plugins/p 1", "p 1"), fetch + validate + `file:///srv/r ` + c + ` 'p 1' 'FETCH_HEAD:plugins/p 1'`},
		{ValidateGitTree("https://example.com/r.git?token=secret", c, "", "p1"), ""},
		{ValidateGitTree("file:///srv/r", c, "", "../p1"), ""},
		{ValidateGitTree("file:///srv/r", c, "", ".."), ""},
		{ValidateGitTree("file:///srv/r", c, "", ""), ""},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %q\nwant %q", tc.got, tc.want)
		}
	}
}

// The commands that show a file, list a directory and validate the tree
// of a fetched commit run as printed in sh, bash, dash, zsh and fish
// (each where installed; fish has no name=$(…), and reads a backslash
// inside single quotes as an escape), for a remote and a directory that
// hold quotes, a backslash, a dollar sign and spaces.
func TestGitHintsRunInEveryShell(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	shells := []string{"/bin/sh"}
	for _, name := range []string{"bash", "dash", "zsh", "fish"} {
		if sh, err := exec.LookPath(name); err == nil {
			shells = append(shells, sh)
		}
	}
	odd := `it's "a" \h $x`
	r := &testRepo{t: t, dir: filepath.Join(t.TempDir(), odd)}
	r.git("init", "-q", "-b", "main", r.dir)
	r.write(".claude-plugin/marketplace.json", `{"name": "acme"}`, 0o644)
	r.write(odd+"/plugin.toml", "schema_version = 1\n", 0o644)
	c := r.commit("one")
	// a stand-in for bundlectl that lists the directory it validates
	bin := t.TempDir()
	writeFile(t, filepath.Join(bin, "bundlectl"), "#!/bin/sh\n[ \"$1\" = validate ] && cd \"$2\" && printf 'validate %s: ' \"${2##*/}\" && ls -A\n", 0o755)
	for _, tc := range []struct{ hint, want string }{
		{ShowGitFile(r.dir, c, ".claude-plugin/marketplace.json"), `{"name": "acme"}`},
		{ListGitDir(r.url(), c, odd), `/plugin.toml"`},
		// a bundle's directory name holds no backslash (ValidateGitTree)
		{ValidateGitTree(r.dir, c, odd, `it's "a" $x`), `validate it's "a" $x: plugin.toml`},
	} {
		if tc.hint == "" {
			t.Fatalf("no hint for %q", tc.want)
		}
		for _, sh := range shells {
			cmd := exec.Command(sh, "-c", tc.hint)
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), tc.want) {
				t.Errorf("%s: %s\n%v: %s\nwant %q in it", sh, tc.hint, err, out, tc.want)
			}
		}
	}
}

// A git repository (or a git marketplace's plugin) refused for a
// directory shaped as a bare repository (a test fixture) hints what
// docs/sources.md says to do: the fetched commit's tree written out
// without it, and installed from there; the hint runs as printed in sh,
// bash, dash, zsh and fish (a stand-in bundlectl shows what it was asked
// to install: the copy, named as the bundle, without the fixture).
func TestGitShapeHintsCopyWithout(t *testing.T) {
	r := newTestRepo(t)
	r.write(".claude-plugin/plugin.json", "{}", 0o644)
	r.write("tests/keep.md", "k", 0o644)
	r.write("plugins/p/.claude-plugin/plugin.json", "{}", 0o644)
	r.write("plugins/p/fx/HEAD", "ref: refs/heads/main\n", 0o644)
	r.write("plugins/p/fx/objects/.keep", "", 0o644)
	r.write("plugins/p/fx/refs/.keep", "", 0o644)
	r.write(".claude-plugin/marketplace.json", `{"name": "acme", "owner": {"name": "A"}, "plugins": [{"name": "p", "source": "./plugins/p"}]}`, 0o644)
	c := r.commit("one")
	bin := t.TempDir()
	writeFile(t, filepath.Join(bin, "bundlectl"), "#!/bin/sh\nfor a; do last=$a; done\nprintf '%s|' \"$@\"; cd \"$last\" && find . | LC_ALL=C sort\n", 0o755)
	shells := []string{"/bin/sh"}
	for _, name := range []string{"bash", "dash", "zsh", "fish"} {
		if sh, err := exec.LookPath(name); err == nil {
			shells = append(shells, sh)
		}
	}
	for _, tc := range []struct {
		q               Request
		opts            Options
		hint, want, not string
	}{
		// the repository as a whole, and the marketplace's plugin in it
		{Request{Source: r.url()}, Options{Name: "kit"}, InstallGitCopyWithout(r.url(), c, "", "kit", "plugins/p/fx"), "/kit|.\n", "./plugins/p/fx"},
		{Request{Source: "p@" + r.url()}, Options{}, InstallGitCopyWithout(r.url(), c, "plugins/p", "p", "fx"), "/p|.\n", "./fx"},
	} {
		err := mustFail(t, tc.q, tc.opts, ErrRefused, "the shape of a bare git repository")
		var e *Error
		if !errors.As(err, &e) || tc.hint == "" || e.Hint() != tc.hint {
			t.Errorf("%s: hint %q, want %q", tc.q.Source, e.Hint(), tc.hint)
			continue
		}
		for _, sh := range shells {
			cmd := exec.Command(sh, "-c", e.Hint())
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
			out, rerr := cmd.CombinedOutput()
			got := string(out)
			if rerr != nil || !strings.HasPrefix(got, "install|/") || !strings.Contains(got, tc.want) || !strings.Contains(got, "\n./.claude-plugin/plugin.json\n") || strings.Contains(got, tc.not) {
				t.Errorf("%s: %s: the hint %q (%v) printed %q: want an install of the copy, without %s", sh, tc.q.Source, e.Hint(), rerr, got, tc.not)
			}
		}
	}
}

// A hint that prints what a command of bundlectl's (or git's) says about
// a tree written out into a temporary directory exits as that command
// did, not as the removal of the temporary directory after it: a user
// (or a script) running it is told the tree is invalid by its status,
// and a failure on the way (a file the commit does not hold) is not
// reported as success. The temporary directory is removed either way.
// Run in sh, bash, dash, zsh and fish, each where installed.
func TestTreeHintsExitAsTheirCommand(t *testing.T) {
	for _, tool := range []string{"git", "tar", "unzip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	shells := []string{"/bin/sh"}
	for _, name := range []string{"bash", "dash", "zsh", "fish"} {
		if sh, err := exec.LookPath(name); err == nil {
			shells = append(shells, sh)
		}
	}
	r := newTestRepo(t)
	r.write("p/plugin.toml", "schema_version = 1\n", 0o644)
	c := r.commit("one")
	tgz := filepath.Join(t.TempDir(), "a.tar.gz")
	makeTarGz(t, tgz, []tmember{{name: "p/plugin.toml", body: "x"}})
	zp := filepath.Join(t.TempDir(), "a.zip")
	makeZip(t, zp, []tmember{{name: "p/plugin.toml", body: "x"}})
	// a stand-in for bundlectl whose validate finds the tree invalid
	bin := t.TempDir()
	writeFile(t, filepath.Join(bin, "bundlectl"), "#!/bin/sh\n[ \"$1\" = validate ] && [ -f \"$2/plugin.toml\" ] && echo 'invalid' && exit 3\nexit 9\n", 0o755)
	for _, tc := range []struct {
		hint string
		code int
	}{
		{ValidateGitTree(r.url(), c, "p", "p"), 3},
		{validateArchive(tgz, "p", "p"), 3},
		{validateArchive(zp, "p", "p"), 3},
		{ShowGitFile(r.url(), c, "no/such/file"), 128},
	} {
		if tc.hint == "" {
			t.Fatal("no hint")
		}
		for _, sh := range shells {
			tmp := t.TempDir()
			cmd := exec.Command(sh, "-c", tc.hint)
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "TMPDIR="+tmp, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
				t.Errorf("%s: %s\nexited %v, want status %d: %s", sh, tc.hint, err, tc.code, out)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("%s: %s left %d entries in its temporary directory", sh, tc.hint, len(left))
			}
		}
	}
}
