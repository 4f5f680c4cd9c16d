package codex

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// TestSetupHooksOffLayers: Codex reads /etc/codex/config.toml below the
// user's config.toml, so a features.hooks = false there keeps setup's
// lines from running unless the user's file sets features.hooks itself.
// Setup once read the user's file alone and said all was wired.
func TestSetupHooksOffLayers(t *testing.T) {
	for _, c := range []struct {
		system, user string
		want         string // the file that turns hooks off, "" for none
	}{
		{"", "", ""},
		{"[features]\nhooks = false\n", "", "etc/config.toml"},
		{"[features]\nhooks = false\n", "model = \"x\"\n", "etc/config.toml"},
		{"[features]\nhooks = false\n", "[features]\nhooks = true\n", ""},
		{"[features]\nhooks = true\n", "[features]\nhooks = false\n", "home/config.toml"},
		{"", "[features]\nhooks = false\n", "home/config.toml"},
	} {
		files := map[string]string{"home/": ""}
		if c.system != "" {
			files["etc/config.toml"] = c.system
		}
		if c.user != "" {
			files["home/config.toml"] = c.user
		}
		root := ownFixture(t, files)
		err := Host{}.SetupHooksOff(hosts.SetupInput{Environ: []string{"CODEX_HOME=" + filepath.Join(root, "home")}})
		var off *hosts.HooksOffError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("system %q, user %q: %v, want nil", c.system, c.user, err)
		case c.want != "" && (!errors.As(err, &off) || off.File != filepath.Join(root, c.want) || off.Setting != "features.hooks = false" || off.Pattern == ""):
			t.Errorf("system %q, user %q: %#v, want features.hooks = false in %s with its line", c.system, c.user, err, c.want)
		}
	}
}

// TestSetupHooksOffProject: a session started in the workspace reads the
// project's .codex/config.toml files, from the project root down to the
// workspace, over the user's config.toml, each only when the projects
// table trusts its directory or the project root (Codex 0.171, agenttest
// TestSetupCodexHooksLayers). A trusted one that turns hooks off is
// refused; so is an untrusted one, which Codex reads once the project is
// trusted (it asks), unless an entry for the project root or the git top
// already decides the workspace's trust, either way: Codex then never
// asks, nor reads it. An entry for a workspace below the git top alone
// decides for it, not for a folder below it, where Codex asks and, once
// trusted, reads the top's file (agenttest
// TestCodexTrustedWorkspaceSubdirAsks): that is a refusal again, as it
// was before a commit took it for a false alarm. A trusted one turning
// them back on over the user's false is no refusal.
// Setup once read no project's file at all.
func TestSetupHooksOffProject(t *testing.T) {
	const off, on = "[features]\nhooks = false\n", "[features]\nhooks = true\n"
	trust := func(dir string) string { return "[projects.\"ROOT/" + dir + "\"]\ntrust_level = \"trusted\"\n" }
	untrust := func(dir string) string { return "[projects.\"ROOT/" + dir + "\"]\ntrust_level = \"untrusted\"\n" }
	for _, c := range []struct {
		name  string
		files map[string]string
		git   bool   // ROOT/ws is a git work tree's top
		sub   bool   // the workspace is ROOT/ws/sub
		want  string // the file refused, "" for none
		trust bool   // the refusal says the project is not trusted
	}{
		{name: "trusted project false", files: map[string]string{"home/config.toml": trust("ws"), "ws/.codex/config.toml": off}, want: "ws/.codex/config.toml"},
		{name: "untrusted project false", files: map[string]string{"ws/.codex/config.toml": off}, want: "ws/.codex/config.toml", trust: true},
		{name: "explicitly untrusted project false", files: map[string]string{"home/config.toml": untrust("ws"), "ws/.codex/config.toml": off}},
		{name: "explicitly untrusted git top, workspace below, its false", git: true, sub: true, files: map[string]string{"home/config.toml": untrust("ws"), "ws/.codex/config.toml": off, "ws/sub/.codex/config.toml": off}},
		{name: "explicitly untrusted workspace below a trusted git top, the top's false", git: true, sub: true, files: map[string]string{"home/config.toml": trust("ws") + untrust("ws/sub"), "ws/.codex/config.toml": off}, want: "ws/.codex/config.toml"},
		{name: "explicitly untrusted project false, user true", files: map[string]string{"home/config.toml": untrust("ws") + on, "ws/.codex/config.toml": off}},
		{name: "explicitly untrusted other project, this one's false", files: map[string]string{"home/config.toml": untrust("other"), "ws/.codex/config.toml": off}, want: "ws/.codex/config.toml", trust: true},
		{name: "explicitly untrusted project true, user false", files: map[string]string{"home/config.toml": untrust("ws") + off, "ws/.codex/config.toml": on}, want: "home/config.toml", trust: true},
		{name: "user false, trusted project true", files: map[string]string{"home/config.toml": trust("ws") + off, "ws/.codex/config.toml": on}},
		{name: "user false, untrusted project true", files: map[string]string{"home/config.toml": off, "ws/.codex/config.toml": on}, want: "home/config.toml", trust: true},
		{name: "system false, trusted project true", files: map[string]string{"etc/config.toml": off, "home/config.toml": trust("ws"), "ws/.codex/config.toml": on}},
		{name: "trusted project false, user true", files: map[string]string{"home/config.toml": trust("ws") + on, "ws/.codex/config.toml": off}, want: "ws/.codex/config.toml"},
		{name: "git root trusted, workspace below", git: true, sub: true, files: map[string]string{"home/config.toml": trust("ws"), "ws/sub/.codex/config.toml": off}, want: "ws/sub/.codex/config.toml"},
		{name: "git root's file, root trusted", git: true, sub: true, files: map[string]string{"home/config.toml": trust("ws"), "ws/.codex/config.toml": off}, want: "ws/.codex/config.toml"},
		{name: "git root's file, workspace alone trusted", git: true, sub: true, files: map[string]string{"home/config.toml": trust("ws/sub"), "ws/.codex/config.toml": off}, want: "ws/.codex/config.toml", trust: true},
		{name: "explicitly untrusted git root's file, workspace trusted", git: true, sub: true, files: map[string]string{"home/config.toml": untrust("ws") + trust("ws/sub"), "ws/.codex/config.toml": off}},
		{name: "git root's file, root and workspace with no entry", git: true, sub: true, files: map[string]string{"home/config.toml": trust("other"), "ws/.codex/config.toml": off}, want: "ws/.codex/config.toml", trust: true},
		{name: "git root's false, workspace's true, workspace trusted", git: true, sub: true, files: map[string]string{"home/config.toml": trust("ws/sub"), "ws/.codex/config.toml": off, "ws/sub/.codex/config.toml": on}},
		{name: "above the project, not read", files: map[string]string{"home/config.toml": "[projects.\"ROOT\"]\ntrust_level = \"trusted\"\n", ".codex/config.toml": off}},
	} {
		files := map[string]string{"home/": "", "ws/sub/": ""}
		for k, v := range c.files {
			files[k] = v
		}
		if c.git {
			files["ws/.git/HEAD"] = "ref: refs/heads/main\n"
		}
		root := ownFixture(t, files)
		ws := filepath.Join(root, "ws")
		if c.sub {
			ws = filepath.Join(ws, "sub")
		}
		err := Host{}.SetupHooksOff(hosts.SetupInput{Environ: []string{"CODEX_HOME=" + filepath.Join(root, "home")}, Reentry: hosts.Reentry{Workspace: ws}})
		var e *hosts.HooksOffError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want nil", c.name, err)
		case c.want != "" && (!errors.As(err, &e) || e.File != filepath.Join(root, c.want) || e.Setting != "features.hooks = false" || e.Pattern == ""):
			t.Errorf("%s: %v, want features.hooks = false in %s with its line", c.name, err, c.want)
		case c.want != "" && strings.Contains(e.Fix, "trusted") != c.trust:
			t.Errorf("%s: the fix %q says the project is not trusted: %v, want %v", c.name, e.Fix, !c.trust, c.trust)
		case c.want != "" && (e.When != "") != (c.trust && strings.Contains(c.want, ".codex")):
			t.Errorf("%s: when %q", c.name, e.When)
		}
	}
}

// TestSetupHooksOffWhenProfile: a profile's <name>.config.toml turning
// the hooks feature off holds only in a session started with --profile
// <name> (Codex 0.171): not refused, but named (with its When), unless a
// trusted project's file turns them back on, or the default session
// already runs none of the lines (refused instead). A file that merely
// ends in .config.toml without a name, or a directory, is no profile.
func TestSetupHooksOffWhenProfile(t *testing.T) {
	const off, on = "[features]\nhooks = false\n", "[features]\nhooks = true\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		want  []string // the profiles named
	}{
		{name: "one off", files: map[string]string{"home/work.config.toml": off, "home/fast.config.toml": "model = \"x\"\n"}, want: []string{"work"}},
		{name: "two off, sorted", files: map[string]string{"home/b.config.toml": off, "home/a.config.toml": off}, want: []string{"a", "b"}},
		{name: "trusted project turns it back on", files: map[string]string{"home/work.config.toml": off, "home/config.toml": "[projects.\"ROOT/ws\"]\ntrust_level = \"trusted\"\n", "ws/.codex/config.toml": on}},
		{name: "user off too", files: map[string]string{"home/work.config.toml": off, "home/config.toml": off}},
		{name: "profile on over user off", files: map[string]string{"home/work.config.toml": on, "home/config.toml": off}},
		{name: "no name", files: map[string]string{"home/.config.toml": off}},
		{name: "directory", files: map[string]string{"home/x.config.toml/": ""}},
	} {
		files := map[string]string{"home/": ""}
		for k, v := range c.files {
			files[k] = v
		}
		root := ownFixture(t, files)
		home := filepath.Join(root, "home")
		in := hosts.SetupInput{Environ: []string{"CODEX_HOME=" + home}, Reentry: hosts.Reentry{Workspace: filepath.Join(root, "ws")}}
		var got []string
		for _, e := range (Host{}).SetupHooksOffWhen(in) {
			name := strings.TrimPrefix(e.When, "started with --profile ")
			if e.File != filepath.Join(home, name+".config.toml") || e.Setting != "features.hooks = false" || e.Pattern == "" {
				t.Errorf("%s: %+v", c.name, e)
			}
			got = append(got, name)
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: named %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSetupHooksOffSpellings: Codex 0.171 reads a config.toml behind a
// byte order mark, and takes a [projects."…"] key as the directory
// written, with no trailing slash or ".." folded (agenttest
// TestSetupCodexConfigSpellings). So a trusted project's false behind a
// byte order mark is refused (setup once could not parse it and took it
// for no setting), and a project trusted only by such a key is not
// trusted: its true does not undo the user's false (setup once folded
// the key and wrote its lines beside the false).
func TestSetupHooksOffSpellings(t *testing.T) {
	const off, on = "[features]\nhooks = false\n", "[features]\nhooks = true\n"
	key := func(dir string) string { return "[projects.\"" + dir + "\"]\ntrust_level = \"trusted\"\n" }
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string // the file refused
	}{
		{name: "trusted project false behind a byte order mark", files: map[string]string{"home/config.toml": key("ROOT/ws"), "ws/.codex/config.toml": "\ufeff" + off}, want: "ws/.codex/config.toml"},
		{name: "user false behind a byte order mark", files: map[string]string{"home/config.toml": "\ufeff" + off}, want: "home/config.toml"},
		{name: "key with a trailing slash", files: map[string]string{"home/config.toml": key("ROOT/ws/") + off, "ws/.codex/config.toml": on}, want: "home/config.toml"},
		{name: "key through ..", files: map[string]string{"home/config.toml": key("ROOT/ws/../ws") + off, "ws/.codex/config.toml": on}, want: "home/config.toml"},
		{name: "keys written twice, the exact one untrusted", files: map[string]string{"home/config.toml": "[projects.\"ROOT/ws\"]\ntrust_level = \"untrusted\"\n" + key("ROOT/ws/") + off, "ws/.codex/config.toml": on}, want: "home/config.toml"},
	} {
		files := map[string]string{"home/": "", "ws/": ""}
		for k, v := range c.files {
			files[k] = v
		}
		root := ownFixture(t, files)
		ws := filepath.Join(root, "ws")
		err := Host{}.SetupHooksOff(hosts.SetupInput{Environ: []string{"CODEX_HOME=" + filepath.Join(root, "home")}, Reentry: hosts.Reentry{Workspace: ws}})
		var e *hosts.HooksOffError
		if !errors.As(err, &e) || e.File != filepath.Join(root, c.want) || e.Setting != "features.hooks = false" || e.When != "" {
			t.Errorf("%s: %v, want features.hooks = false in %s, in every session", c.name, err, c.want)
		}
	}
}

// TestWorktreeHooksOff: a `codex --worktree` session reads the project
// files committed at HEAD, from the project root down to the workspace
// (internal/agenttest TestSetupCodexWorktree): HEAD's false in the git
// top's file holds for a workspace below it whose working copy turns
// hooks on; nothing is committed outside a git work tree, or before the
// first commit; a top marked untrusted reads none; a false committed in
// a directory above the project root (a marker inside the repository)
// is not read.
func TestWorktreeHooksOff(t *testing.T) {
	const off, on = "[features]\nhooks = false\n", "[features]\nhooks = true\n"
	for _, c := range []struct {
		name        string
		user        string // home/config.toml
		commit      bool
		git         bool
		marker      bool // top/sub is a project root of its own (project_root_markers = ["m"])
		want        bool
		wantFileRel string
	}{
		{name: "HEAD's false at the top, the workspace below", git: true, commit: true, want: true, wantFileRel: "top/.codex/config.toml"},
		{name: "no commit", git: true},
		{name: "no git", commit: false},
		// The user's false and the working copy's true: with no commit,
		// or no repository, there is no --worktree session to warn of.
		{name: "no commit, the user's false", user: off, git: true},
		{name: "no git, the user's false", user: off},
		{name: "the top marked untrusted", user: `[projects."ROOT/top"]` + "\ntrust_level = \"untrusted\"\n", git: true, commit: true},
		{name: "a root below the top", user: "project_root_markers = [\"m\"]\n", git: true, commit: true, marker: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := ownFixture(t, map[string]string{"home/config.toml": c.user, "top/.codex/config.toml": off, "top/sub/keep": ""})
			top, sub := filepath.Join(root, "top"), filepath.Join(root, "top", "sub")
			if c.marker {
				os.WriteFile(filepath.Join(sub, "m"), nil, 0o644)
			}
			git := func(args ...string) {
				cmd := exec.Command("git", append([]string{"-C", top, "-c", "user.name=t", "-c", "user.email=t@example.invalid"}, args...)...)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %q: %v %s", args, err, out)
				}
			}
			if c.git {
				git("init", "-q")
				if c.commit {
					git("add", "-A")
					git("commit", "-qm", "hooks off")
				}
			}
			os.WriteFile(filepath.Join(top, ".codex", "config.toml"), []byte(on), 0o644)
			off := worktreeHooksOff(filepath.Join(root, "home"), sub)
			if (off != nil) != c.want || off != nil && (off.File != filepath.Join(root, c.wantFileRel) || off.Lines != "HEAD's copy" || off.Show != "git -C "+top+" show HEAD:./.codex/config.toml") {
				t.Errorf("got %+v, want a caveat: %v (%s)", off, c.want, c.wantFileRel)
			}
		})
	}
}
