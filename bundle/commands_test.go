package bundle

import "testing"

// TestCommandsIn: only a command written as a note writes one is
// rewritten, whole, up to its closing parenthesis outside quotes.
func TestCommandsIn(t *testing.T) {
	flags := func(c string) string { return "bundlectl --home /h" + c[len("bundlectl"):] }
	for _, c := range []struct{ in, want string }{
		{"x (bundlectl review a)", "x (bundlectl --home /h review a)"},
		{"x (run bundlectl verify) y", "x (run bundlectl --home /h verify) y"},
		{"x (after: bundlectl disable a --hook 0a) and (bundlectl list)", "x (after: bundlectl --home /h disable a --hook 0a) and (bundlectl --home /h list)"},
		{"x (set: bundlectl configure a 'K)=V')", "x (set: bundlectl --home /h configure a 'K)=V')"},
		{"bundlectl runs only stdio servers (see catalog)", "bundlectl runs only stdio servers (see catalog)"},
		{"x (bundlectl review a", "x (bundlectl review a"},
		// A name holding a quote, as ShellArg writes it ('\'').
		{"x (set: bundlectl configure " + ShellArg("it's") + " K)", "x (set: bundlectl --home /h configure " + ShellArg("it's") + " K)"},
		// A colon outside parentheses ends prose, not a command's lead-in.
		{`MCP server "s" is remote (https://s.test/mcp): bundlectl runs only stdio servers; connect to it directly (catalog --json lists it)`,
			`MCP server "s" is remote (https://s.test/mcp): bundlectl runs only stdio servers; connect to it directly (catalog --json lists it)`},
	} {
		if got := CommandsIn(c.in, flags); got != c.want {
			t.Errorf("CommandsIn(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
