package main

import (
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
)

// TestHintOnlyRewritesCommands: --home and --workspace go into a printed
// command of bundlectl, not into prose in parentheses that starts with
// "bundlectl", nor into a command that already carries them.
func TestHintOnlyRewritesCommands(t *testing.T) {
	g := &globals{home: "/h", workspace: "/w"}
	for _, c := range []struct{ in, want string }{
		{"bundlectl review x", "bundlectl --home /h --workspace /w review x"},
		{"bundlectl help trust", "bundlectl --home /h --workspace /w help trust"},
		{"bundlectl keeps at most that much", "bundlectl keeps at most that much"},
		{"bundlectl wires the processes it runs", "bundlectl wires the processes it runs"},
		{"bundlectl --home /a list", "bundlectl --home /a list"},
		{"bundlectl review --help", "bundlectl review --help"},
	} {
		if got := g.hint(c.in); got != c.want {
			t.Errorf("hint(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	msg := `tool "t" succeeded, but its stdout was cut at 10 bytes (bundlectl keeps at most that much of each stream); run it again (run bundlectl verify t)`
	want := `tool "t" succeeded, but its stdout was cut at 10 bytes (bundlectl keeps at most that much of each stream); run it again (run bundlectl --home /h --workspace /w verify t)`
	if got := bundle.CommandsIn(msg, g.hint); got != want {
		t.Errorf("CommandsIn:\n got %s\nwant %s", got, want)
	}
}
