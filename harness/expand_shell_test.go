package harness

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestShellValueAfterCommentStaysOneWord: a comment holding an apostrophe
// or a double quote does not change how later placeholders are quoted: a
// value with spaces and a "*" reaches printf as one word, unglobbed.
func TestShellValueAfterCommentStaysOneWord(t *testing.T) {
	x := expander{host: true, options: map[string]string{"label": "a b *"}}
	for _, cmd := range []string{
		"# it's done\nprintf '[%s]\\n' ${user_config.label}",
		"# don\"t split\nprintf '[%s]\\n' ${user_config.label}",
		"true # it's here\nprintf '[%s]\\n' ${user_config.label}",
		"printf '[%s]\\n' a#b${user_config.label}", // not a comment: a#b is one word
	} {
		script, out, err := runShell(t, x, cmd)
		if err != nil {
			t.Fatalf("%q: %v", script, err)
		}
		want := "[a b *]\n"
		if strings.Contains(cmd, "a#b") {
			want = "[a#ba b *]\n"
		}
		if string(out) != want {
			t.Errorf("command %q ran as %q and printed %q, want %q", cmd, script, out, want)
		}
	}
}

// TestShellCommentLookalikes: a "#" the comment rule takes for a comment's
// start that the shell does not (a here-document's line, one inside
// backquotes, one after an escaped blank or in "${X:- …}") keeps the
// placeholders after it: before, they were copied as written and the shell
// failed with "Bad substitution" (a PreToolUse guard then denied every
// call).
func TestShellCommentLookalikes(t *testing.T) {
	x := expander{host: true, options: map[string]string{"label": "a b *"}}
	for cmd, want := range map[string]string{
		"cat <<EOF\n# label: ${user_config.label}\nEOF":                                  "# label: \"a b *\"\n", // a here-document keeps the quotes, as before
		"printf '[%s]' `echo x #c` ${user_config.label}":                                 "[x][a b *]",
		"printf '[%s]' ${NOPE:-x #y} ${user_config.label}":                               "[x][#y][a b *]",
		"printf '[%s]' a\\ #b ${user_config.label}":                                      "[a #b][a b *]",
		"# it's a comment with ${user_config.label}\nprintf '[%s]' ${user_config.label}": "[a b *]",
	} {
		script, out, err := runShell(t, x, cmd)
		if err != nil || string(out) != want {
			t.Errorf("command %q ran as %q and printed %q (%v), want %q", cmd, script, out, err, want)
		}
	}
}

// runShell expands cmd as a shell-form hook and runs it with /bin/sh in a
// directory holding one file, so that an unquoted "*" would show by
// globbing; out is stdout and stderr together.
func runShell(t *testing.T, x expander, cmd string) (script string, out []byte, err error) {
	t.Helper()
	script, env := x.shell(cmd)
	c := exec.Command("/bin/sh", "-c", script)
	c.Env = append(os.Environ(), env...)
	c.Dir = t.TempDir()
	if err := os.WriteFile(c.Dir+"/zz-file", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = c.CombinedOutput()
	return script, out, err
}
