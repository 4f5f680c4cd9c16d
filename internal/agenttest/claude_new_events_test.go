package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Claude Code 2.1.332's hook events that bundlectl took for unknown ones
// (PreSkillShellCommand, PreModelSwitch, PostModelSwitch, DirectoryAdded,
// MessageDisplay), tried with the real CLI where a -p session fires them.

// skillShellPlugin writes a plugin into src whose skill "probe" holds one
// inline shell command ("!" and a command in backquotes) that creates
// made, and whose hooks are events.
func skillShellPlugin(t *testing.T, src, rec, made string, events map[string][]matcherCase) {
	t.Helper()
	writeJSONFile(t, src, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeFile(t, src, "skills/probe/SKILL.md", "---\nname: probe\ndescription: probe skill\n---\n\nResult: !`touch "+made+"`\n", 0o644)
	writeJSONFile(t, src, "hooks/hooks.json", matcherHooks(rec, events))
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestClaudePreSkillShellCommand: Claude Code 2.1.332 fires
// PreSkillShellCommand for a plugin's hooks before a skill's inline shell
// command runs, with tool_name "Bash" and tool_input.command; it matches
// the matcher against tool_name as on PreToolUse ("PowerShell, Bash" is a
// list). bundlectl's review shows the matchers and hooks run --host
// claude runs the same hooks on the input Claude Code gave.
func TestClaudePreSkillShellCommand(t *testing.T) {
	t.Parallel()
	rec := t.TempDir()
	made := filepath.Join(t.TempDir(), "skill-shell-ran")
	events := map[string][]matcherCase{"PreSkillShellCommand": append(matchedCases("skillshell", "Bash"),
		matcherCase{"skillshell-list", "PowerShell, Bash"})}
	a := New(t, Claude, Say("done"))
	src := filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName)
	skillShellPlugin(t, src, rec, made, events)
	ran, inputs := runSession(t, a, rec, []string{"--plugin-dir", src, "--allowedTools", "Bash"}, []string{"/" + pluginName + ":probe"})
	want := append(matchedRan("skillshell"), "skillshell-list")
	slices.Sort(want)
	if !slices.Equal(ran, want) {
		t.Fatalf("Claude Code ran the hooks %q, want %q (found by trying Claude Code 2.1.332)", ran, want)
	}
	if !exists(made) {
		t.Fatal("the skill's inline shell command did not run")
	}
	in := string(inputs["skillshell-value"])
	for _, s := range []string{`"hook_event_name":"PreSkillShellCommand"`, `"tool_name":"Bash"`, "touch " + made, `"command_name":"` + pluginName + `:probe"`} {
		if !strings.Contains(in, s) {
			t.Errorf("the hook's input lacks %s:\n%s", s, in)
		}
	}
	checkMatcherParity(t, Claude, a.Workdir, rec, events, want, inputs)
}

// TestExecClaudePreSkillShellCommand: under `bundlectl exec -- claude` a
// plugin's PreSkillShellCommand guard runs from the snapshot (the Claude
// view carries it) and its exit 2 keeps the skill's inline shell command
// from running, as Claude Code honours it. When the guard cannot run (the
// snapshot was changed after trust), bundlectl blocks the event: it
// answered with exit 1, which Claude Code reads as "show stderr and run
// the command", so the skill's command ran unguarded.
func TestExecClaudePreSkillShellCommand(t *testing.T) {
	t.Parallel()
	for _, tampered := range []bool{false, true} {
		name := "guard"
		if tampered {
			name = "tampered"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := New(t, Claude, Say("done"))
			f := newExecFixture(t, a)
			writeFile(t, f.src, "skills/probe/SKILL.md", "---\nname: probe\ndescription: probe skill\n---\n\nResult: !`touch "+f.marker+"`\n", 0o644)
			writeJSONFile(t, f.src, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreSkillShellCommand": []any{map[string]any{
				"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/bin/guard.sh"}}}}}})
			f.trust(t)
			a.Launcher = f.launcher(t)
			a.Args = []string{"--allowedTools", "Bash,Skill"}
			prompt := "/" + pluginName + ":probe"
			if tampered {
				// Changed once the session runs (at launch, exec would
				// not load the skill at all); Claude then loads the skill.
				guard := filepath.Join(f.snapshot(t), "bin", "guard.sh")
				evil := filepath.Join(filepath.Dir(f.tamper), "evil")
				writeFile(t, filepath.Dir(f.tamper), "evil", "#!/bin/sh\ntouch "+f.tamper+"\nexit 0\n", 0o755)
				a.Model.Script = []Turn{ShellCall(Claude, "chmod u+w "+guard+" && cat "+evil+" > "+guard),
					Call("Skill", map[string]any{"skill": pluginName + ":probe"}), Say("done")}
				prompt = "go"
			}
			res := a.Run(t, prompt)
			if r, ok := lastAt(a, 2); tampered && (!ok || !r.Contains("[not run: blocked by hook: bundlectl: bundle \""+pluginName+"\" has a guard for this event that cannot run")) {
				t.Errorf("the skill's text did not reach the model with the block naming the bundle\n%s\n%s", res, a.Model.Dump())
			}
			if exists(f.marker) {
				t.Fatalf("the skill's inline shell command ran past the plugin's guard\n%s", res)
			}
			if exists(f.tamper) {
				t.Fatalf("the tampered guard ran\n%s", res)
			}
			in, err := os.ReadFile(filepath.Join(f.rec, "hook-stdin.json"))
			switch {
			case !tampered && (err != nil || !strings.Contains(string(in), `"hook_event_name":"PreSkillShellCommand"`)):
				t.Fatalf("the guard did not run on PreSkillShellCommand (%v)\n%s\n%s", err, in, res)
			case tampered && err == nil:
				t.Fatalf("the snapshot's original guard ran\n%s", in)
			}
		})
	}
}

// skillShellAnswer is a PreSkillShellCommand hook that saves its input as
// rec/<line>.json and answers by the line the command names.
func skillShellAnswer(rec string) string {
	return `#!/bin/sh
input=$(cat)
for k in ask defer update pretool control; do
  case "$input" in *$k-line*) printf '%s' "$input" > ` + rec + `/$k.json ;; esac
done
case "$input" in
*ask-line*) echo '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"ask"}}' ;;
*defer-line*) echo '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"defer"}}' ;;
*update-line*) echo '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"allow","updatedInput":{"command":"true"}}}' ;;
*pretool-line*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}' ;;
esac
exit 0
`
}

// TestClaudePreSkillShellAnswers: Claude Code 2.1.332 does not run a
// skill's shell line whose PreSkillShellCommand hook answers "ask" or
// "defer", changes the command, or denies it in PreToolUse's words; it
// runs the line the hook does not object to. bundlectl's hooks run, given
// the input Claude Code gave, ran all four (exit 0): now it blocks them
// (harness TestSkillShellAnswers).
func TestClaudePreSkillShellAnswers(t *testing.T) {
	t.Parallel()
	rec, made := t.TempDir(), t.TempDir()
	a := New(t, Claude, Say("done"))
	src := filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName)
	writeJSONFile(t, src, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	body := ""
	kinds := []string{"ask", "defer", "update", "pretool", "control"}
	for _, k := range kinds {
		body += "- !`touch " + filepath.Join(made, k+"-line") + "`\n"
	}
	writeFile(t, src, "skills/probe/SKILL.md", "---\nname: probe\ndescription: probe skill\n---\n\n"+body, 0o644)
	writeFile(t, src, "bin/answer.sh", skillShellAnswer(rec), 0o755)
	writeJSONFile(t, src, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreSkillShellCommand": []any{map[string]any{
		"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/bin/answer.sh"}}}}}})
	a.Args = []string{"--plugin-dir", src, "--allowedTools", "Bash"}
	res := a.Run(t, "/"+pluginName+":probe")
	for _, k := range kinds {
		if ran := exists(filepath.Join(made, k+"-line")); ran != (k == "control") {
			t.Fatalf("Claude Code ran the %s line: %v (found by trying Claude Code 2.1.332: only the control line runs)\n%s", k, ran, res)
		}
	}
	inputs := map[string][]byte{}
	for _, k := range kinds {
		b, err := os.ReadFile(filepath.Join(rec, k+".json"))
		if err != nil {
			t.Fatalf("the hook did not run for the %s line: %v", k, err)
		}
		inputs[k] = b
	}

	home := filepath.Join(t.TempDir(), "bundlectl-home")
	t.Cleanup(func() { Writable(home) })
	f := &execFixture{home: home, ws: a.Workdir}
	f.trust(t)
	for _, k := range kinds {
		ctx, cancel := context.WithTimeout(context.Background(), HangGuard)
		cmd := exec.CommandContext(ctx, Bundlectl(t), "--home", home, "--workspace", a.Workdir, "hooks", "run", "PreSkillShellCommand", "--host", "claude")
		cmd.Env = append(os.Environ(), "BUNDLECTL_HOME="+home)
		cmd.Stdin = bytes.NewReader(inputs[k])
		out, err := cmd.CombinedOutput()
		cancel()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 0, false: 2}[k == "control"]; code != want {
			t.Errorf("bundlectl hooks run on the %s line exited %d, want %d as Claude Code ran it or not\n%s", k, code, want, out)
		}
	}
}

// TestClaudeModelSwitchMatcher: Claude Code 2.1.332 fires PreModelSwitch
// and PostModelSwitch for "/model claude-sonnet-4-6" in a -p session
// (source "command") and matches their matchers against to_model,
// reading "claude-haiku-4-5, claude-sonnet-4-6" as a list. bundlectl's
// review and hooks run --host claude agree.
func TestClaudeModelSwitchMatcher(t *testing.T) {
	t.Parallel()
	rec := t.TempDir()
	model := "claude-sonnet-4-6"
	events := map[string][]matcherCase{
		"PreModelSwitch":  append(matchedCases("premodel", model), matcherCase{"premodel-list", "claude-haiku-4-5, " + model}),
		"PostModelSwitch": matchedCases("postmodel", model),
	}
	a := New(t, Claude, Say("done"))
	src := filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName)
	writeJSONFile(t, src, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeJSONFile(t, src, "hooks/hooks.json", matcherHooks(rec, events))
	ran, inputs := modelSwitchSession(t, a, rec, nil, []string{"--plugin-dir", src}, model)
	want := append(matchedRan("premodel", "postmodel"), "premodel-list")
	slices.Sort(want)
	if !slices.Equal(ran, want) {
		t.Fatalf("Claude Code ran the hooks %q, want %q (found by trying Claude Code 2.1.332)", ran, want)
	}
	if in := string(inputs["premodel-value"]); !strings.Contains(in, `"to_model":"`+model+`"`) || !strings.Contains(in, `"source":"command"`) {
		t.Errorf("PreModelSwitch input: %s", in)
	}
	checkMatcherParity(t, Claude, a.Workdir, rec, events, want, inputs)
}

// modelSwitchSession runs one stream-json -p session of a (through
// launcher when it is set) that is told "hello", then "/model model",
// then "again", and returns the hooks that ran and their inputs (see
// takeRan). Claude Code 2.1.332 does not wait for a PostModelSwitch hook
// before a -p session ends: a "/model" as the last prompt leaves the hook
// to be killed with the session's process group, its input cut (tried).
// It waits for the hook's answer before the next model request, so the
// "again" after the switch makes every hook finish before the session
// does.
func modelSwitchSession(t *testing.T, a *Agent, rec string, launcher, args []string, model string) ([]string, map[string][]byte) {
	t.Helper()
	a.Args = append(append([]string(nil), args...), "--input-format", "stream-json", "--output-format", "stream-json", "--verbose")
	argv, env := a.Command(t, "")
	argv = append([]string{argv[0], "-p"}, argv[3:]...) // the prompts come on stdin
	argv = append(append([]string(nil), launcher...), argv...)
	ctx, cancel := context.WithTimeout(context.Background(), HangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, a.Workdir
	var in strings.Builder
	for _, p := range []string{"hello", "/model " + model, "again"} {
		m, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": p}})
		in.Write(append(m, '\n'))
	}
	cmd.Stdin = strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%q: %v\n%s", argv, err, out)
	}
	return takeRan(t, rec)
}

// TestClaudeModelSwitchBlock: a PreModelSwitch hook that exits 2, or
// answers "ask" (a -p session cannot ask, so it refuses), cancels the
// switch: PostModelSwitch does not fire and the model stays. bundlectl's
// hooks run, given the input Claude Code gave, blocks on the first and
// writes the "ask" for Claude Code to act on; it wrote no
// permissionDecision for this event, so the switch went on.
func TestClaudeModelSwitchBlock(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, command string }{
		{"exit2", "cat > $REC/pre.json; echo 'no switching' >&2; exit 2"},
		{"ask", `cat > $REC/pre.json; echo '{"hookSpecificOutput":{"hookEventName":"PreModelSwitch","permissionDecision":"ask","permissionDecisionReason":"costly"}}'`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rec := t.TempDir()
			command := strings.ReplaceAll(c.command, "$REC", rec)
			a := New(t, Claude, Say("done"))
			src := filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName)
			writeJSONFile(t, src, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
			writeJSONFile(t, src, "hooks/hooks.json", map[string]any{"hooks": map[string]any{
				"PreModelSwitch":  []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command}}}},
				"PostModelSwitch": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "touch " + rec + "/post"}}}},
			}})
			_, _ = runSession(t, a, rec, []string{"--plugin-dir", src}, []string{"hello"})
			a.Args = []string{"--plugin-dir", src, "--continue"}
			res := a.Run(t, "/model claude-sonnet-4-6")
			input, err := os.ReadFile(filepath.Join(rec, "pre.json"))
			if err != nil {
				t.Fatalf("the PreModelSwitch hook did not run: %v\n%s", err, res)
			}
			if exists(filepath.Join(rec, "post")) {
				t.Fatalf("Claude Code switched the model past the hook (found by trying Claude Code 2.1.332: it does not)\n%s", res)
			}
			os.Remove(filepath.Join(rec, "pre.json"))

			f := &execFixture{home: filepath.Join(t.TempDir(), "bundlectl-home"), ws: a.Workdir}
			t.Cleanup(func() { Writable(f.home) })
			f.trust(t)
			ctx, cancel := context.WithTimeout(context.Background(), HangGuard)
			defer cancel()
			cmd := exec.CommandContext(ctx, Bundlectl(t), "--home", f.home, "--workspace", a.Workdir, "hooks", "run", "PreModelSwitch", "--host", "claude")
			cmd.Env = append(os.Environ(), "BUNDLECTL_HOME="+f.home)
			cmd.Stdin = bytes.NewReader(input)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			switch c.name {
			case "exit2":
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), "no switching") {
					t.Errorf("hooks run did not block the switch: %v\n%s%s", err, out, stderr.Bytes())
				}
			case "ask":
				if err != nil || !strings.Contains(string(out), `"permissionDecision":"ask"`) {
					t.Errorf("hooks run did not pass the ask on: %v\n%s%s", err, out, stderr.Bytes())
				}
			}
		})
	}
}

// TestClaudeMessageDisplayMatcher: Claude Code 2.1.332 fires
// MessageDisplay in a -p session too, once for the answer's text (final
// true, the lines in delta), and runs every hook whatever its matcher,
// "[" too. bundlectl's review says Claude Code ignores the matcher, and
// hooks run --host claude runs them all.
func TestClaudeMessageDisplayMatcher(t *testing.T) {
	t.Parallel()
	rec := t.TempDir()
	events := map[string][]matcherCase{"MessageDisplay": {
		{"display-nomatch", "nomatch"}, {"display-regex", "^x"}, {"display-invalid", "["}, {"display-star", "*"}, {"display-none", "-"},
	}}
	want := []string{"display-invalid", "display-nomatch", "display-none", "display-regex", "display-star"}
	a := New(t, Claude, Say("done\nline two\n"))
	src := filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName)
	writeJSONFile(t, src, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeJSONFile(t, src, "hooks/hooks.json", matcherHooks(rec, events))
	ran, inputs := runSession(t, a, rec, []string{"--plugin-dir", src}, []string{"hello"})
	if !slices.Equal(ran, want) {
		t.Fatalf("Claude Code ran the hooks %q, want %q (found by trying Claude Code 2.1.332)", ran, want)
	}
	if in := string(inputs["display-none"]); !strings.Contains(in, `"final":true`) || !strings.Contains(in, `"delta":"done\nline two\n"`) {
		t.Errorf("MessageDisplay input: %s", in)
	}
	home := filepath.Join(t.TempDir(), "bundlectl-home")
	t.Cleanup(func() { Writable(home) })
	human := BundlectlRun(t, home, "--workspace", a.Workdir, "review", pluginName)
	for _, c := range events["MessageDisplay"] {
		if c.matcher != "-" && c.matcher != "*" && !strings.Contains(human, `on "MessageDisplay", matcher "`+c.matcher+`" (Claude Code ignores it on this event and runs the hook every time)`) {
			t.Errorf("the review shows the matcher %q as narrowing:\n%s", c.matcher, human)
		}
	}
	f := &execFixture{home: home, ws: a.Workdir}
	f.trust(t)
	ctx, cancel := context.WithTimeout(context.Background(), HangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, Bundlectl(t), "--home", home, "--workspace", a.Workdir, "hooks", "run", "MessageDisplay", "--host", "claude")
	cmd.Env = append(os.Environ(), "BUNDLECTL_HOME="+home)
	cmd.Stdin = bytes.NewReader(inputs["display-none"])
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hooks run MessageDisplay: %v\n%s", err, out)
	}
	if got, _ := takeRan(t, rec); !slices.Equal(got, want) {
		t.Errorf("bundlectl hooks run --host claude ran %q; Claude Code ran %q", got, want)
	}
}

// TestExecClaudeNewEvents: under `bundlectl exec -- claude` a plugin's
// hooks on PreModelSwitch, PostModelSwitch and MessageDisplay run from
// the snapshot through bundlectl, each with the input Claude Code gave
// (TestExecClaudePreSkillShellCommand covers PreSkillShellCommand).
func TestExecClaudeNewEvents(t *testing.T) {
	t.Parallel()
	a := New(t, Claude, Say("done"))
	f := newExecFixture(t, a)
	rec := t.TempDir()
	events := map[string][]matcherCase{
		"PreModelSwitch":  {{"pre", "claude-sonnet-4-6"}},
		"PostModelSwitch": {{"post", "-"}},
		"MessageDisplay":  {{"display", "nomatch"}},
	}
	writeJSONFile(t, f.src, "hooks/hooks.json", matcherHooks(rec, events))
	f.trust(t)
	ran, inputs := modelSwitchSession(t, a, rec, f.launcher(t), nil, "claude-sonnet-4-6")
	if want := []string{"display", "post", "pre"}; !slices.Equal(ran, want) {
		t.Fatalf("under exec Claude Code ran the hooks %q, want %q", ran, want)
	}
	for id, ev := range map[string]string{"pre": "PreModelSwitch", "post": "PostModelSwitch", "display": "MessageDisplay"} {
		if !strings.Contains(string(inputs[id]), `"hook_event_name":"`+ev+`"`) {
			t.Errorf("the %s hook's input: %s", ev, inputs[id])
		}
	}
}

// TestSetupClaudePreSkillShellCommand: with `bundlectl setup claude`'s hook
// lines, Claude Code 2.1.332 calls `bundlectl hooks run
// PreSkillShellCommand` before a project skill's inline shell command, and
// a trusted bundle's guard there keeps it from running. setup wired no
// line for this event, so the guard never ran and the command did.
func TestSetupClaudePreSkillShellCommand(t *testing.T) {
	t.Parallel()
	a := New(t, Claude, Say("done"))
	f := newExecFixture(t, a)
	writeJSONFile(t, f.src, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreSkillShellCommand": []any{map[string]any{
		"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/bin/guard.sh"}}}}}})
	f.trust(t)
	writeFile(t, a.Workdir, ".claude/skills/probe/SKILL.md", "---\nname: probe\ndescription: probe skill\n---\n\nResult: !`touch "+f.marker+"`\n", 0o644)
	f.runSetup(t, a, "probe")
	a.Args = []string{"--allowedTools", "Bash"}
	res := a.Run(t, "/probe")
	in, err := os.ReadFile(filepath.Join(f.rec, "hook-stdin.json"))
	if err != nil || !strings.Contains(string(in), `"hook_event_name":"PreSkillShellCommand"`) {
		t.Fatalf("the bundle's guard did not run on PreSkillShellCommand (%v)\n%s\n%s", err, in, res)
	}
	if exists(f.marker) {
		t.Fatalf("the skill's inline shell command ran past the bundle's guard\n%s", res)
	}
}

// TestClaudeDirectoryAddedMatcher: Claude Code 2.1.332 fires
// DirectoryAdded for a stream-json session's register_repo_root control
// request (source "register_repo_root"; /add-dir is not available in a -p
// session) and matches the matcher against source, reading
// "slash_command, register_repo_root" as a list. bundlectl's review and
// hooks run --host claude agree.
func TestClaudeDirectoryAddedMatcher(t *testing.T) {
	t.Parallel()
	rec := t.TempDir()
	events := map[string][]matcherCase{"DirectoryAdded": append(matchedCases("diradded", "register_repo_root"),
		matcherCase{"diradded-list", "slash_command, register_repo_root"})}
	a := New(t, Claude, Say("done"))
	src := filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName)
	writeJSONFile(t, src, ".claude-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeJSONFile(t, src, "hooks/hooks.json", matcherHooks(rec, events))
	sub := filepath.Join(a.Workdir, "sub") // a strict subdirectory of the working directory
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	a.Args = []string{"--plugin-dir", src, "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"}
	argv, env := a.Command(t, "")
	argv = append([]string{argv[0], "-p"}, argv[3:]...) // the prompt comes on stdin
	ctx, cancel := context.WithTimeout(context.Background(), HangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, a.Workdir
	req, _ := json.Marshal(map[string]any{"type": "control_request", "request_id": "r1",
		"request": map[string]any{"subtype": "register_repo_root", "directory": sub}})
	cmd.Stdin = strings.NewReader(string(req) + "\n" + `{"type":"user","message":{"role":"user","content":"hello"}}` + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	ran, inputs := takeRan(t, rec)
	want := append(matchedRan("diradded"), "diradded-list")
	slices.Sort(want)
	if !slices.Equal(ran, want) {
		t.Fatalf("Claude Code ran the hooks %q, want %q (found by trying Claude Code 2.1.332)", ran, want)
	}
	if in := string(inputs["diradded-value"]); !strings.Contains(in, `"directory":"`+sub+`"`) {
		t.Errorf("DirectoryAdded input: %s", in)
	}
	checkMatcherParity(t, Claude, a.Workdir, rec, events, want, inputs)
}
