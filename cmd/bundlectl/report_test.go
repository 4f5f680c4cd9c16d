package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/state"
)

// TestBusyStateLockHintsTheSameCommand: a command that gave up waiting for
// the state lock says to run it again, and prints it, quoted, to paste —
// unless an argument may hold a secret, which is never printed back.
func TestBusyStateLockHintsTheSameCommand(t *testing.T) {
	busy := &lifecycle.StateError{Err: &state.LockError{Path: "/h/state.lock", Waited: 10 * time.Second}}
	defer func(a []string) { os.Args = a }(os.Args)
	for _, c := range []struct {
		args []string
		hint string
	}{
		{[]string{"--home", "/h", "disable", "my guard"}, "bundlectl: hint: bundlectl --home /h disable 'my guard'\n"},
		{[]string{"--home=/h", "--workspace=my ws", "enable", "g"}, "bundlectl: hint: bundlectl --home /h --workspace 'my ws' enable g\n"},
		{[]string{"configure", "g", "TOKEN=x"}, ""},
		{[]string{"configure", "g", "--api-key=x"}, ""},
		{[]string{"configure", "g", "--", "--k=v"}, ""},
		{[]string{"--home=/h", "configure", "g", "K=v"}, ""},
		{[]string{"install", "https://u:p@example.com/r.git"}, ""},
		{[]string{"trust", "g", "ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, ""},
	} {
		os.Args = append([]string{"bundlectl"}, c.args...)
		var w bytes.Buffer
		report(&w, busy, &globals{})
		out := w.String()
		if !strings.Contains(out, "run this command again when the other bundlectl command has finished") {
			t.Errorf("%q: no word to run it again:\n%s", c.args, out)
		}
		_, hint, _ := strings.Cut(out, "\n")
		if hint != c.hint {
			t.Errorf("%q: hint %q, want %q", c.args, hint, c.hint)
		}
		if strings.Contains(out, "ghp_") || strings.Contains(out, "u:p@") || strings.Contains(out, "TOKEN=x") {
			t.Errorf("%q: printed an argument back:\n%s", c.args, out)
		}
	}
}
