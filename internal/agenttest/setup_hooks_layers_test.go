package agenttest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bundlectlUnder runs bundlectl with home, env over this process's
// environment, through launcher when set (a private /etc), as
// BundlectlEnv does.
func bundlectlUnder(t *testing.T, launcher []string, home string, env []string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), HangGuard)
	defer cancel()
	argv := append(append(append([]string(nil), launcher...), Bundlectl(t), "--home", home), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), "BUNDLECTL_HOME="+home), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = 30 * time.Second
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// verdict is what bundlectl setup and list must say of a workspace.
type verdict struct {
	// refuse: setup refuses, its message saying refuseSays; else it
	// writes, warning caveat when set (and of nothing else).
	refuse             bool
	refuseSays, caveat string
	// listOff: list says the lines do not run (in some sessions).
	listOff bool
}

// offVerdict is the verdict for a host that runs none of the lines
// (off) or runs them: setup and list say the same as the host.
func offVerdict(off bool, refuseSays, caveat string) verdict {
	return verdict{refuse: off, refuseSays: refuseSays, caveat: caveat, listOff: off}
}

// checkVerdict runs setup and list for the agent's workspace, in env,
// through launcher when set, and checks they say v.
func checkVerdict(t *testing.T, a *Agent, f *execFixture, launcher, env []string, name string, v verdict) {
	t.Helper()
	out, errOut, err := bundlectlUnder(t, launcher, f.home, env, "--workspace", f.ws, "setup", string(a.Host))
	switch {
	case v.refuse && (err == nil || !strings.Contains(errOut, "so setup wrote nothing") || !strings.Contains(errOut, v.refuseSays)):
		t.Errorf("%s: setup did not refuse, saying %q: %v\n%s%s", name, v.refuseSays, err, out, errOut)
	case !v.refuse && err != nil:
		t.Errorf("%s: setup refused: %v\n%s%s", name, err, out, errOut)
	case !v.refuse && v.caveat == "" && strings.Contains(errOut, "setup's hook lines do not run"):
		t.Errorf("%s: setup warned of something that does not hold\n%s", name, errOut)
	case !v.refuse && !strings.Contains(errOut, v.caveat):
		t.Errorf("%s: setup did not warn %q\n%s%s", name, v.caveat, out, errOut)
	}
	_, errOut, err = bundlectlUnder(t, launcher, f.home, env, "--workspace", f.ws, "list")
	if says := strings.Contains(errOut, "which keeps "+string(a.Host)+" from running them"); err != nil || says != v.listOff {
		t.Errorf("%s: list said the lines do not run: %v, want %v (%v)\n%s", name, says, v.listOff, err, errOut)
	}
}

// TestSetupClaudeWorkspaceSwitches: which layers' disableAllHooks keep
// Claude Code 2.1.332 from running setup's lines (in the user's
// settings.json) in a session started in the workspace, and how they
// combine: the last of the user's, the project's (.claude/settings.json),
// the local (.claude/settings.local.json) and the managed settings that
// sets a boolean decides, so a project's false turns back on what the
// user's true turned off (it is not "true anywhere wins"), and a managed
// false what any turned off; a managed true holds over a later false; a
// value that is not a boolean counts for nothing in the project's, the
// local or the managed settings ("true" there runs the lines), but keeps
// the user's file, and so setup's lines, from running whatever the rest
// say. bundlectl setup and list, for that workspace, say the same (hosts/claude
// disableAllHooksOff); a user's true that this workspace's false undoes
// still holds in other workspaces, which setup says as it writes.
// Setup once refused any value but false anywhere, and list read no
// workspace's settings.
func TestSetupClaudeWorkspaceSwitches(t *testing.T) {
	t.Parallel()
	const caveat = "setup's hook lines do not run in a claude session started in a workspace whose own settings do not turn hooks back on"
	for _, c := range []struct {
		name                          string
		user, project, local, managed string // JSON values, "" for none
		// dropIn is the whole of managed-settings.d/50-org.json, "" for none.
		dropIn             string
		off                bool
		refuseSays, caveat string
	}{
		{name: "project true", project: `true`, off: true, refuseSays: `.claude/settings.json" sets "disableAllHooks": true`},
		{name: "local true", local: `true`, off: true, refuseSays: `.claude/settings.local.json" sets "disableAllHooks": true`},
		{name: "user true, project false", user: `true`, project: `false`, caveat: caveat},
		{name: "project true, local false", project: `true`, local: `false`},
		{name: "project not a boolean", project: `"true"`},
		{name: "user true, project not a boolean", user: `true`, project: `"false"`, off: true, refuseSays: `settings.json" sets "disableAllHooks": true`},
		{name: "user null, project false", user: `null`, project: `false`, off: true, refuseSays: `sets "disableAllHooks": null`},
		{name: "managed false over user true", user: `true`, managed: `false`, caveat: ""},
		{name: "managed not a boolean", managed: `"true"`},
		{name: "managed true over local false", local: `false`, managed: `true`, off: true, refuseSays: `managed-settings.json" sets "disableAllHooks": true`},
		{name: "managed true, a drop-in false", managed: `true`, dropIn: `{"disableAllHooks": false}`},
		{name: "managed false, a drop-in true", managed: `false`, dropIn: `{"disableAllHooks": true}`, off: true, refuseSays: `50-org.json" sets "disableAllHooks": true`},
		{name: "managed-only in a drop-in", dropIn: `{"allowManagedHooksOnly": true}`, off: true, refuseSays: `50-org.json" sets "allowManagedHooksOnly": true`},
		{name: "managed-only \"false\"", dropIn: `{"allowManagedHooksOnly": "false"}`},
		{name: "managed-only null", dropIn: `{"allowManagedHooksOnly": null}`},
		{name: "managed-only 0", dropIn: `{"allowManagedHooksOnly": 0}`, off: true, refuseSays: `50-org.json" sets "allowManagedHooksOnly": 0`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			marker := t.TempDir() + "/" + markerName
			a := New(t, Claude, ShellCall(Claude, "touch "+marker), Say("done"))
			f := newTrustedFixture(t, a, marker)
			f.runSetup(t, a, "owls")
			if c.user != "" {
				var v any
				if err := json.Unmarshal([]byte(c.user), &v); err != nil {
					t.Fatal(err)
				}
				a.Settings["disableAllHooks"] = v
			}
			if c.project != "" {
				writeFile(t, f.ws, ".claude/settings.json", `{"disableAllHooks": `+c.project+`}`, 0o644)
			}
			if c.local != "" {
				// Over setup's approvals, which do not matter here.
				writeFile(t, f.ws, ".claude/settings.local.json", `{"disableAllHooks": `+c.local+`}`, 0o644)
			}
			var launcher []string
			managed := map[string]string{}
			if c.managed != "" {
				managed["managed-settings.json"] = `{"disableAllHooks": ` + c.managed + `}`
			}
			if c.dropIn != "" {
				managed["managed-settings.d/50-org.json"] = c.dropIn
			}
			if len(managed) > 0 {
				launcher = overlayEtcAt(t, "claude-code", managed)
				a.Launcher = launcher
			}
			a.Args = append(a.Args, "--allowedTools", "Bash")
			res := a.Run(t, "touch the marker")
			if _, err := os.Stat(marker); (err == nil) != c.off {
				t.Fatalf("the guarded command ran: %v, want %v: this test's premise (Claude Code 2.1.332) no longer holds\n%s", err == nil, c.off, res)
			}
			checkVerdict(t, a, f, launcher, setupEnv(a), c.name, offVerdict(c.off, c.refuseSays, c.caveat))
		})
	}
}

// TestSetupCodexHooksLayers: which files' features.hooks keep Codex 0.171
// from running setup's lines (in $CODEX_HOME/config.toml) in a session
// started in the workspace (hosts/codex configLayers):
//
//   - the project's .codex/config.toml, over the user's config.toml, only
//     in a trusted project: a trusted project's false turns them off, its
//     true turns back on the user's false; an untrusted project's file is
//     not read (Codex says so on stderr) — bundlectl setup refuses its
//     false all the same, as Codex reads it once the project is trusted,
//     and list names it; but where the user marked the workspace (or its
//     git top) trust_level = "untrusted", Codex never asks and never reads
//     it (TestCodexUntrustedEntryNoAsk for an interactive start), and
//     `codex exec --trust`, which trusts a project with no entry (writing
//     its entry, so reading its file), stops there with an error: setup
//     writes, and list says the lines are wired (but for the profile's
//     file every case here has);
//   - the .codex/config.toml of each directory from the git work tree's
//     top down to the workspace, each read when that directory or the
//     top is trusted: trusting the workspace alone does not cover the
//     top's file, and Codex, which does not ask in a workspace an entry
//     already trusts, never reads it there (`codex exec --trust` writes
//     nothing; TestCodexTrustedWorkspaceNoAskForTop for an interactive
//     start), but asks in a folder below it and, trusted, reads it
//     (TestCodexTrustedWorkspaceSubdirAsks), so setup refuses; where the
//     top's own entry says untrusted, it writes beside its false;
//   - $CODEX_HOME/<name>.config.toml only in a session started with
//     --profile <name>: setup writes its lines and names the profile.
//
// A top-level profile = "…" in config.toml, or a [profiles.<name>]
// table a session selects, stops Codex with an error, running nothing (no
// silent loss: setup writes); an unselected table is ignored.
func TestSetupCodexHooksLayers(t *testing.T) {
	t.Parallel()
	const off, on = "[features]\nhooks = false\n", "[features]\nhooks = true\n"
	trust := func(dir string) string { return "[projects.\"" + dir + "\"]\ntrust_level = \"trusted\"\n" }
	untrust := func(dir string) string { return "[projects.\"" + dir + "\"]\ntrust_level = \"untrusted\"\n" }
	// A project's file Codex reads once the project is trusted: refused,
	// and named by list, though Codex runs the lines now.
	untrusted := verdict{refuse: true, refuseSays: "Codex reads that file once the project is trusted", listOff: true}
	// So is one Codex asks for in a folder below the workspace alone.
	belowAsks := verdict{refuse: true, refuseSays: "in a folder below the workspace", listOff: true}
	// A profile's file: setup cannot know a later session's --profile,
	// so it writes its lines, which run without it, and names the
	// profile, as list does.
	profile := verdict{caveat: "setup's hook lines do not run in a codex session started with --profile work", listOff: true}
	for _, c := range []struct {
		name string
		// user is put before setup's block in config.toml; WORK and TOP
		// stand for the workspace and its parent.
		user, project, top string // project: WORK/.codex/config.toml, top: TOP/.codex/config.toml
		git                bool   // TOP is a git work tree's top
		args               []string
		noProfile          bool   // no work.config.toml
		off                bool   // Codex runs none of setup's lines
		hostRefuses        bool   // Codex stops with an error, running nothing
		hostSays           string // its error says this ("legacy" when unset)
		want               verdict
	}{
		{name: "trusted project false", user: trust("WORK"), project: off, off: true, want: offVerdict(true, `work/.codex/config.toml" sets features.hooks = false`, "")},
		{name: "untrusted project false", project: off, want: untrusted},
		{name: "explicitly untrusted project false", user: untrust("WORK"), project: off, want: profile},
		{name: "explicitly untrusted project false, exec --trust", user: untrust("WORK"), project: off, args: []string{"--trust"}, hostRefuses: true, hostSays: "is marked as untrusted", want: profile},
		{name: "explicitly untrusted git top, its file and the workspace's false", user: untrust("TOP"), project: off, top: off, git: true, want: profile},
		{name: "untrusted project false, exec --trust", project: off, args: []string{"--trust"}, off: true, want: offVerdict(true, `work/.codex/config.toml" sets features.hooks = false`, "")},
		{name: "user false, trusted project true", user: trust("WORK") + off, project: on, want: offVerdict(false, "", "setup's hook lines do not run in a codex session started in a workspace whose own settings do not turn hooks back on")},
		{name: "git top trusted, its file", user: trust("TOP"), top: off, git: true, off: true, want: offVerdict(true, `/.codex/config.toml" sets features.hooks = false`, "")},
		{name: "workspace alone trusted, the top's file", user: trust("WORK"), top: off, git: true, want: belowAsks},
		{name: "workspace alone trusted, the top's file, exec --trust", user: trust("WORK"), top: off, git: true, args: []string{"--trust"}, want: belowAsks},
		{name: "workspace trusted, the untrusted top's file, exec --trust", user: trust("WORK") + untrust("TOP"), top: off, git: true, args: []string{"--trust"}, want: profile},
		{name: "profile, selected", args: []string{"--profile", "work"}, off: true, want: profile},
		{name: "profile, not selected", want: profile},
		{name: "legacy profile key", user: "profile = \"work\"\n", noProfile: true, hostRefuses: true, want: offVerdict(false, "", "")},
		{name: "legacy profiles table, selected", user: "[profiles.work.features]\nhooks = false\n", args: []string{"--profile", "work"}, noProfile: true, hostRefuses: true, want: offVerdict(false, "", "")},
		{name: "legacy profiles table, not selected", user: "[profiles.work.features]\nhooks = false\n", noProfile: true, want: offVerdict(false, "", "")},
	} {
		t.Run(c.name, func(t *testing.T) {
			marker := t.TempDir() + "/" + markerName
			a := New(t, Codex, ShellCall(Codex, "touch "+marker), Say("done"))
			f := newTrustedFixture(t, a, marker)
			f.runSetup(t, a, "hello")
			top := filepath.Dir(f.ws)
			a.CodexConfig = strings.NewReplacer("WORK", f.ws, "TOP", top).Replace(c.user) + "\n" + a.CodexConfig
			if c.project != "" {
				writeFile(t, f.ws, ".codex/config.toml", c.project, 0o644)
			}
			if c.top != "" {
				writeFile(t, top, ".codex/config.toml", c.top, 0o644)
			}
			if c.git {
				if out, err := exec.Command("git", "init", "-q", top).CombinedOutput(); err != nil {
					t.Fatalf("git init: %v %s", err, out)
				}
			}
			if !c.noProfile {
				writeFile(t, a.ConfigDir(), "work.config.toml", off, 0o644)
			}
			a.Args = append(a.Args, c.args...)
			res := a.Run(t, "touch the marker")
			switch {
			case c.hostRefuses && (res.Exit == 0 || len(a.Model.Requests()) > 0 || !strings.Contains(res.Stderr, cmp.Or(c.hostSays, "legacy"))):
				t.Fatalf("codex started, or did not say %q: this test's premise (Codex 0.171) no longer holds\n%s", cmp.Or(c.hostSays, "legacy"), res)
			case !c.hostRefuses && res.Exit != 0:
				t.Fatalf("codex failed\n%s", res)
			}
			if _, err := os.Stat(marker); !c.hostRefuses && (err == nil) != c.off {
				t.Fatalf("the guarded command ran: %v, want %v: this test's premise (Codex 0.171) no longer holds\n%s", err == nil, c.off, res)
			}
			checkVerdict(t, a, f, nil, setupEnv(a), c.name, c.want)
		})
	}
}

// TestSetupGeminiWorkspaceSwitch: the workspace's .gemini/settings.json
// hooksConfig.enabled decides over the user's settings for Gemini CLI
// 0.61 in a folder it trusts: false there keeps setup's lines from
// running, true there turns back on the user's false. bundlectl setup
// and list, run from another directory with --workspace, read that
// workspace's settings (setup once read its own working directory's).
func TestSetupGeminiWorkspaceSwitch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		user, ws  any // hooksConfig.enabled, nil for none
		off       bool
		refuse    string
		caveatFor string
	}{
		{name: "workspace false", ws: false, off: true, refuse: `.gemini/settings.json" sets "hooksConfig": {"enabled": false}`},
		{name: "user false, workspace true", user: false, ws: true, caveatFor: "setup's hook lines do not run in a gemini session started in a workspace whose own settings do not turn hooks back on"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			marker := t.TempDir() + "/" + markerName
			a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
			f := newTrustedFixture(t, a, marker)
			f.runSetup(t, a, "hello")
			if c.user != nil {
				a.Settings["hooksConfig"] = map[string]any{"enabled": c.user}
			}
			wsFile := filepath.Join(f.ws, ".gemini", "settings.json")
			var m map[string]any
			if data, err := os.ReadFile(wsFile); err == nil {
				json.Unmarshal(data, &m)
			}
			if m == nil {
				m = map[string]any{}
			}
			m["hooksConfig"] = map[string]any{"enabled": c.ws}
			writeJSONFile(t, f.ws, ".gemini/settings.json", m)
			res := a.Run(t, "touch the marker")
			if res.Exit != 0 {
				t.Fatalf("gemini failed\n%s", res)
			}
			if _, err := os.Stat(marker); (err == nil) != c.off {
				t.Fatalf("the guarded command ran: %v, want %v: this test's premise (Gemini CLI 0.61) no longer holds\n%s", err == nil, c.off, res)
			}
			// The session trusted the folder (GEMINI_CLI_TRUST_WORKSPACE,
			// as Agent sets it); so does setup's environment here. Setup
			// and list run in this test's directory, not the workspace.
			env := append(setupEnv(a), "GEMINI_CLI_TRUST_WORKSPACE=true")
			checkVerdict(t, a, f, nil, env, c.name, offVerdict(c.off, c.refuse, c.caveatFor))
		})
	}
}
