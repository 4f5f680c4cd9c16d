package bundle

import (
	"strings"
	"testing"
)

// cwdCode flags argv that runs code from the working directory, through
// an exec-form shell string and env too; it never quotes an operand that
// could be a flag's value.
func TestCwdCode(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		args []string
		want bool
	}{
		{"bash", []string{"-c", "./evil.sh"}, true},
		{"sh", []string{"-c", "python3 evil.py"}, true},
		{"sh", []string{"-c", "cd . && sh evil.sh"}, true},
		{"sh", []string{"-c", `"${PWD}/evil.sh"`}, true},
		{"sh", []string{"-c", "echo ok"}, false},
		{"env", []string{"python3", "./evil.py"}, true},
		{"env", []string{"-i", "A=1", "python3", "-c", "x"}, true},
		{"env", []string{"node", "/abs/server.js"}, false},
		{"python3", []string{"-c", "import x"}, true},
		{"python3", []string{"evil.py"}, true},
		{"node", []string{"${CLAUDE_PLUGIN_ROOT}/s.js"}, false},
		{"node", []string{"--api-key", "s3cr3t-value"}, false},
		{"./bin/server", nil, false}, // resolves in the snapshot
		{"../x", nil, true},
	} {
		got := cwdCode(c.cmd, c.args)
		if (got != "") != c.want {
			t.Errorf("cwdCode(%q, %q) = %q, want flagged %v", c.cmd, c.args, got, c.want)
		}
		if strings.Contains(got, "s3cr3t") {
			t.Errorf("cwdCode quotes a flag's value: %q", got)
		}
	}
	for s, want := range map[string]bool{
		"sh \"$CLAUDE_PROJECT_DIR\"/evil.sh":   true,
		"python3 evil.py":                      true,
		"${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh": false,
		"echo hi | grep h":                     false,
	} {
		if got := shellCwdCode(s); (got != "") != want {
			t.Errorf("shellCwdCode(%q) = %q, want flagged %v", s, got, want)
		}
	}
}
