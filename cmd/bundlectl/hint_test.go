package main

import (
	"slices"
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
		// a script of sh's that runs bundlectl "$@": the flags are its
		// trailing arguments (sources.InstallCopyWithout)
		{`sh -c 'shift 3 && bundlectl "$@" install "$p"' sh /r n x`, `sh -c 'shift 3 && bundlectl "$@" install "$p"' sh /r n x --home /h --workspace /w`},
		{`sh -c 'bundlectl validate "$d"' sh /r`, `sh -c 'bundlectl validate "$d"' sh /r`},
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

// The command hinted after a fetch that timed out gives --timeout once,
// four times the one given and at least the default, and never after a
// "--" (where it would be an operand).
func TestWithLongerTimeout(t *testing.T) {
	for _, tc := range []struct{ args, want []string }{
		{[]string{"install", "file:///r"}, []string{"install", "file:///r", "--timeout", "40m0s"}},
		{[]string{"install", "--timeout", "1ms", "file:///r"}, []string{"install", "file:///r", "--timeout", "10m0s"}},
		{[]string{"install", "--timeout=30m", "file:///r"}, []string{"install", "file:///r", "--timeout", "2h0m0s"}},
		{[]string{"install", "--timeout", "nonsense", "file:///r"}, []string{"install", "file:///r", "--timeout", "40m0s"}},
		{[]string{"install", "--", "--timeout"}, []string{"install", "--timeout", "40m0s", "--", "--timeout"}},
	} {
		if got := withLongerTimeout(tc.args); !slices.Equal(got, tc.want) {
			t.Errorf("withLongerTimeout(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// A command hinted again prints an ssh url's user and a marketplace
// plugin's name back, and never a url's user information that may be a
// token or a password.
func TestRerunAt(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"ssh://git@host/r.git", "bundlectl install ssh://git@host/r.git"},
		{"git@host:r.git", "bundlectl install git@host:r.git"},
		{"p@/dir/m", "bundlectl install p@/dir/m"},
		{"p@ssh://git@host/m.git", "bundlectl install p@ssh://git@host/m.git"},
		{"p@https://host/m.git", "bundlectl install p@https://host/m.git"},
		{"https://tok@host/r.git", ""},
		{"HTTPS://tok@host/r.git", ""},
		{"ssh://git:pw@host/r.git", ""},
		{"p@https://tok@host/m.git", ""},
		{"p@ssh://git@host/m.git#https://tok@h", ""},
		{"u:pw@host:r.git", ""},
		{"x:y@p@/dir", ""},
	} {
		if got := rerun([]string{"install", tc.arg}); got != tc.want {
			t.Errorf("rerun(install %q) = %q, want %q", tc.arg, got, tc.want)
		}
	}
}
