package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileDirectoryNameIsEscaped: a workspace bundle directory whose
// name holds a newline and an escape sequence (a hostile repository
// chooses it) never reaches the terminal raw, whichever command prints it.
func TestHostileDirectoryNameIsEscaped(t *testing.T) {
	home, ws := filepath.Join(t.TempDir(), "home"), t.TempDir()
	name := "zz\nstatus:   trusted and enabled\x1b[31m"
	if err := os.MkdirAll(filepath.Join(ws, ".bundlectl", "bundles", name, "commands"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".bundlectl", "bundles", name, "commands", "hi.md"), []byte("hi\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"show", name}, {"validate", name}, {"diff", name}, {"list"}, {"review", name}} {
		var out, errOut bytes.Buffer
		run(append([]string{"--home", home, "--workspace", ws}, args...), strings.NewReader(""), &out, &errOut)
		for _, s := range []string{out.String(), errOut.String()} {
			if strings.Contains(s, "\x1b") || strings.Contains(s, "\nstatus:   trusted") {
				t.Errorf("%v printed the directory name raw:\n%s", args, s)
			}
		}
	}
}
