package agenttest

import (
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// geminiTTY is an interactive Gemini CLI in a terminal (script(1)), its
// screen kept as it is drawn and its keyboard written to.
type geminiTTY struct {
	screen syncBuffer
	in     io.WriteCloser
	exited chan struct{}
}

// startGeminiTTY starts argv with env in dir in a 40×120 terminal; the
// test's cleanup kills it and what it started.
func startGeminiTTY(t *testing.T, argv, env []string, dir string) *geminiTTY {
	t.Helper()
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed")
	}
	var line strings.Builder
	line.WriteString("stty rows 40 cols 120; exec ")
	for _, x := range argv {
		line.WriteString(shellQuote(x) + " ")
	}
	g := &geminiTTY{exited: make(chan struct{})}
	cmd := exec.Command("script", "-qfec", line.String(), "/dev/null")
	cmd.Env, cmd.Dir = append(env, "TERM=xterm-256color"), dir
	cmd.Stdout, cmd.Stderr = &g.screen, &g.screen
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	g.in = in
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(g.exited) }()
	t.Cleanup(func() {
		in.Close()
		// script(1) puts gemini in a session of its own: its group is
		// gemini's pid's, which ps finds under script.
		killSessionUnder(cmd.Process.Pid)
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-g.exited
	})
	return g
}

// waitFor polls ok until it holds, failing the test when gemini exits
// first or at the hang guard; it never decides on time alone.
func (g *geminiTTY) waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	guard := time.After(HangGuard)
	for !ok() {
		select {
		case <-g.exited:
			if ok() {
				return
			}
			t.Fatalf("gemini exited before %s\n%s", what, g.screen.String())
		case <-guard:
			t.Fatalf("no %s within the %v hang guard\n%s", what, HangGuard, g.screen.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// shows reports whether the screen has shown text (white space and
// terminal sequences ignored).
func (g *geminiTTY) shows(text string) bool {
	return strings.Contains(squash(g.screen.String()), squash(text))
}

func (g *geminiTTY) waitShown(t *testing.T, text string) {
	t.Helper()
	g.waitFor(t, strings.TrimSpace(text)+" on the screen", func() bool { return g.shows(text) })
}

func (g *geminiTTY) keys(s string) { io.WriteString(g.in, s) }
