package agenttest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// codexModelEvents are hooks for Codex's own PreModelRequest and
// PostModelRequest, each with a matcher that names nothing and with none,
// and a PreModelRequest guard that exits 2.
var codexModelEvents = map[string][]matcherCase{
	"PreModelRequest":  {{"premodel-nomatch", "nomatch"}, {"premodel-none", "-"}},
	"PostModelRequest": {{"postmodel-nomatch", "nomatch"}, {"postmodel-none", "-"}},
}

// codexModelHooks is matcherHooks(rec, codexModelEvents) with the guard
// that exits 2 (after saving its input as "premodel-deny").
func codexModelHooks(rec string) map[string]any {
	h := matcherHooks(rec, codexModelEvents)
	ev := h["hooks"].(map[string]any)
	ev["PreModelRequest"] = append(ev["PreModelRequest"].([]any), map[string]any{"hooks": []any{map[string]any{
		"type": "command", "command": "cat > " + filepath.Join(rec, "premodel-deny") + "; echo no model for you >&2; exit 2"}}})
	return h
}

var codexModelRan = []string{"postmodel-nomatch", "postmodel-none", "premodel-deny", "premodel-nomatch", "premodel-none"}

// TestCodexModelRequestEvents: Codex 0.171 runs a plugin's
// PreModelRequest hooks before each request to the model and its
// PostModelRequest hooks after it, every one whatever its matcher says,
// and a PreModelRequest hook that exits 2 does not stop the request
// (Codex reports the hook failed and sends it: the shell command of the
// model's first answer runs, and the model is asked again). The input
// holds kind ("sampling"), request_id, attempt_number, session_id,
// thread_id, turn_id, cwd, transcript_path, model and hook_event_name;
// PostModelRequest's adds status, error, token_usage and response_id.
// bundlectl's review shows both events as ones Codex fires, with no
// matcher narrowing them and no guard that could block.
func TestCodexModelRequestEvents(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "ran")
	rec := t.TempDir()
	a := New(t, Codex, ShellCall(Codex, "touch "+marker), Say("done"))
	root := versionDir(filepath.Join(a.ConfigDir(), "plugins", "cache"))
	writeJSONFile(t, root, ".codex-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeJSONFile(t, root, "hooks/hooks.json", codexModelHooks(rec))
	a.CodexConfig = "[plugins.\"" + codexPluginID + "\"]\nenabled = true\n"
	ran, inputs := runSession(t, a, rec, []string{"-c", "features.plugins=true", "--dangerously-bypass-hook-trust"}, []string{"hello"})
	if !slices.Equal(ran, codexModelRan) {
		t.Fatalf("Codex ran the hooks %q, want %q (found by trying Codex 0.171)", ran, codexModelRan)
	}
	if _, err := os.Stat(marker); err != nil || len(a.Model.ModelCalls()) != 2 {
		t.Fatalf("a PreModelRequest hook that exits 2 stopped the request (tool ran: %v, model calls: %d), which Codex 0.171 did not\n%s", err == nil, len(a.Model.ModelCalls()), a.Model.Dump())
	}
	for _, k := range []string{`"kind":"sampling"`, `"request_id"`, `"model"`, `"turn_id"`} {
		if !bytes.Contains(inputs["premodel-none"], []byte(k)) {
			t.Errorf("PreModelRequest's input has no %s: %s", k, inputs["premodel-none"])
		}
	}
	src := filepath.Join(a.Workdir, ".bundlectl", "bundles", pluginName)
	writeJSONFile(t, src, ".codex-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	// Without the guard that exits 2: hooks run reports its exit 2 as a
	// failure and answers exit 0 (TestCodexNonBlockingExit2), as Codex
	// takes the guard's own as a failed hook.
	writeJSONFile(t, src, "hooks/hooks.json", matcherHooks(rec, codexModelEvents))
	delete(inputs, "premodel-deny")
	want := slices.DeleteFunc(slices.Clone(codexModelRan), func(id string) bool { return id == "premodel-deny" })
	checkMatcherParity(t, Codex, a.Workdir, rec, codexModelEvents, want, inputs)
	warnings, out := ReviewWarnings(t, src)
	for _, w := range warnings {
		if w.Rule == "hook.event-unknown" {
			t.Errorf("the review says Codex does not fire an event it fired (%s)\n%s", w.Path, out)
		}
	}
}

// TestExecCodexModelRequestEvents: through `bundlectl exec -- codex`
// Codex runs the view's PreModelRequest and PostModelRequest hooks as it
// runs them installed (TestCodexModelRequestEvents), from the snapshot.
func TestExecCodexModelRequestEvents(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "ran")
	a := New(t, Codex, ShellCall(Codex, "touch "+marker), Say("done"))
	f := newExecFixture(t, a)
	rec := t.TempDir() // f.rec is the plugin's MCP server's too
	writeJSONFile(t, f.src, "hooks/hooks.json", codexModelHooks(rec))
	f.trust(t)
	a.Launcher = f.launcher(t)
	ran, _ := runSession(t, a, rec, append(a.Args, "-c", "features.plugins=true"), []string{"hello"})
	if !slices.Equal(ran, codexModelRan) {
		t.Fatalf("through bundlectl exec, Codex ran the hooks %q, want %q (as installed: TestCodexModelRequestEvents)", ran, codexModelRan)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("through bundlectl exec, the tool call did not run: %v", err)
	}
}

// TestCodexInterruptEvent: Codex 0.171 runs a plugin's Interrupt hooks
// when a turn is interrupted (SIGINT to the process group of codex exec
// while a tool runs, as a terminal's Ctrl-C sends it), whatever their
// matcher says; the input holds session_id, turn_id, transcript_path,
// cwd, hook_event_name, model and permission_mode. codex exec then exits
// and kills the hooks still running: one that takes a second never
// finishes. Through `bundlectl exec -- codex`, which passes the signal
// on, Codex starts the view's Interrupt hook too ("hook: Interrupt");
// whether bundlectl's re-entry gets to run the hook's command before
// Codex ends it depends on timing (logged, not asserted), so an
// Interrupt hook is at best a notice. So does a
// session bundlectl setup codex wired: it starts setup's Interrupt line
// (one, `bundlectl hooks run Interrupt`), trusted by its hash for
// codex.ClampedHookTimeout; written with a day, as for the other events,
// Codex warns "clamping" and does not start it.
func TestCodexInterruptEvent(t *testing.T) {
	t.Parallel()
	for _, through := range []string{"installed", "exec", "setup"} {
		t.Run(through, func(t *testing.T) {
			t.Parallel()
			started := filepath.Join(t.TempDir(), "started")
			rec := t.TempDir()
			a := New(t, Codex, ShellCall(Codex, "touch "+started+"; sleep 600"), Say("done"))
			hooks := matcherHooks(rec, map[string][]matcherCase{"Interrupt": {{"interrupt-nomatch", "nomatch"}, {"interrupt-none", "-"}}})
			lines := 2 // the Interrupt hooks Codex starts
			if through == "setup" {
				installCodexHooks(t, a, "setup", hooks)
				lines = 1
			} else if through == "installed" {
				root := versionDir(filepath.Join(a.ConfigDir(), "plugins", "cache"))
				writeJSONFile(t, root, ".codex-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
				writeJSONFile(t, root, "hooks/hooks.json", hooks)
				a.CodexConfig = "[plugins.\"" + codexPluginID + "\"]\nenabled = true\n"
				a.Args = append(a.Args, "-c", "features.plugins=true", "--dangerously-bypass-hook-trust")
			} else {
				f := newExecFixture(t, a)
				writeJSONFile(t, f.src, "hooks/hooks.json", hooks)
				f.trust(t)
				a.Launcher = f.launcher(t)
				a.Args = append(a.Args, "-c", "features.plugins=true")
			}
			out := interruptRun(t, a, started)
			if !strings.Contains(out, "turn interrupted") || strings.Count(out, "hook: Interrupt\n") != lines || strings.Contains(out, "clamping") {
				t.Fatalf("Codex (%s) did not start the %d Interrupt hook line(s) of the interrupted turn, or clamped one (found by trying Codex 0.171)\n%s", through, lines, out)
			}
			ran, inputs := takeRan(t, rec)
			if through != "installed" {
				t.Logf("through bundlectl %s, the hooks that ran to the end: %q", through, ran)
				return
			}
			if want := []string{"interrupt-nomatch", "interrupt-none"}; !slices.Equal(ran, want) {
				t.Fatalf("Codex ran the hooks %q on an interrupted turn, want %q (found by trying Codex 0.171)\n%s", ran, want, out)
			}
			if !bytes.Contains(inputs["interrupt-none"], []byte(`"hook_event_name":"Interrupt"`)) {
				t.Errorf("the Interrupt hook's input: %s", inputs["interrupt-none"])
			}
		})
	}
}

// interruptRun runs a (through its Launcher, if any), waits for the
// file started, which the model's shell command creates, and then sends
// the first process SIGINT, as a user's Ctrl-C would reach it; it returns
// what the process printed.
func interruptRun(t *testing.T, a *Agent, started string) string {
	t.Helper()
	argv, env := a.Command(t, "hello")
	argv = append(append([]string(nil), a.Launcher...), argv...)
	ctx, cancel := context.WithTimeout(context.Background(), HangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, a.Workdir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("%s ended before the shell command started: %v\n%s", a.Host, err, &out)
		case <-tick.C:
		}
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	if err := <-done; ctx.Err() != nil {
		t.Fatalf("%s still running after the %v hang guard: %v\n%s", a.Host, HangGuard, err, &out)
	}
	return out.String()
}
