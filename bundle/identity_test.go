package bundle

import (
	"os/exec"
	"testing"
)

func TestValidAndSuggestedBundleNames(t *testing.T) {
	for _, c := range []struct {
		in      string
		valid   bool
		suggest string
	}{
		{"kit", true, "kit"},
		{"a.b-c9", true, "a.b-c9"},
		{"My_Tool", false, "my-tool"},
		{"--x--", false, "x"},
		{"a..b", false, "a.b"},
		{"日本", false, ""},
		{"", false, ""},
	} {
		if got := ValidBundleName(c.in); got != c.valid {
			t.Errorf("ValidBundleName(%q) = %v", c.in, got)
		}
		got := SuggestBundleName(c.in)
		if got != c.suggest {
			t.Errorf("SuggestBundleName(%q) = %q, want %q", c.in, got, c.suggest)
		}
		if got != "" && !ValidBundleName(got) {
			t.Errorf("SuggestBundleName(%q) = %q is not valid", c.in, got)
		}
	}
}

// ShellArg's output, given to a real shell, is one word equal to the
// input: to sh, and to bash, dash, zsh and fish where each is installed
// (a backslash before a quote or another backslash inside single quotes
// fish reads as an escape: 'a\\b' was a\b to it, as \\ is to sh outside
// quotes; a bare "%self" it read as its process id, and zsh a bare "=ls"
// as /usr/bin/ls).
func TestShellArgRoundTrips(t *testing.T) {
	shells := []string{"/bin/sh"}
	for _, name := range []string{"bash", "dash", "zsh", "fish"} {
		if sh, err := exec.LookPath(name); err == nil {
			shells = append(shells, sh)
		}
	}
	for _, sh := range shells {
		for _, s := range []string{"plain@market", "", "a b", "it's", "$(touch x)", "`x`", "a\"b", "--name=x", `a\\b`, `a\`, `\'`, `it'\''s`, "~x", "a*", "%self", "=ls", "=no-such-command", "a=ls", "%", "a\nb", "a\xffb", "!x"} {
			out, err := exec.Command(sh, "-c", `printf %s `+ShellArg(s)).Output()
			if err != nil {
				t.Errorf("%s: %q: %v", sh, s, err)
				continue
			}
			if string(out) != s {
				t.Errorf("%s: ShellArg(%q) = %s read back as %q", sh, s, ShellArg(s), out)
			}
		}
	}
}

// Operands' output, given to a real shell, is the operands as words, after
// "--" exactly when one of them would otherwise be read as an option.
func TestOperandsEndOptions(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{"odd", "srv"}, "odd|srv|"},
		{[]string{"odd", "-srv"}, "--|odd|-srv|"},
		{[]string{"-bad"}, "--|-bad|"},
		{[]string{"my guard", "--x $y"}, "--|my guard|--x $y|"},
	} {
		out, err := exec.Command("/bin/sh", "-c", `printf '%s|' `+Operands(c.in...)).Output()
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if string(out) != c.want {
			t.Errorf("Operands(%q) = %s read back as %q, want %q", c.in, Operands(c.in...), out, c.want)
		}
	}
}
