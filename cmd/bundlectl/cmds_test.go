package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

var idHash = regexp.MustCompile(`\b(builtin|user|workspace)/[0-9a-f]{12}/`)

var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	// jsonvar VAR path.to.field: set VAR from the last command's JSON
	// stdout; a number in the path indexes a list (hooks.0.id).
	"jsonvar": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: jsonvar VAR field[.field...]")
		}
		var v any
		ts.Check(json.Unmarshal([]byte(ts.ReadFile("stdout")), &v))
		for _, k := range strings.Split(args[1], ".") {
			switch x := v.(type) {
			case map[string]any:
				v = x[k]
			case []any:
				i, err := strconv.Atoi(k)
				if err != nil || i < 0 || i >= len(x) {
					ts.Fatalf("jsonvar: %s is not an index of a list of %d", k, len(x))
				}
				v = x[i]
			default:
				ts.Fatalf("jsonvar: %s is not an object", k)
			}
		}
		s, ok := v.(string)
		if !ok {
			s = fmt.Sprint(v)
		}
		ts.Setenv(args[0], s)
	},
	// exits N command args...: run command and fail unless it exits N.
	"exits": func(ts *testscript.TestScript, neg bool, args []string) {
		want, err := strconv.Atoi(args[0])
		ts.Check(err)
		got := 0
		if err := ts.Exec(args[1], args[2:]...); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				ts.Fatalf("%v", err)
			}
			got = ee.ExitCode()
		}
		if (got == want) == neg {
			ts.Fatalf("%s exited %d, want %d", args[1], got, want)
		}
	},
	// golden file want: compare the last stdout with want after replacing
	// the work directory with $WORK and bundle ids' path hashes with ID.
	"golden": func(ts *testscript.TestScript, neg bool, args []string) {
		got := strings.ReplaceAll(ts.ReadFile(args[0]), ts.Getenv("WORK"), "$WORK")
		got = idHash.ReplaceAllString(got, "$1/ID/")
		if dir := os.Getenv("BUNDLECTL_GOLDEN_OUT"); dir != "" {
			ts.Check(os.WriteFile(filepath.Join(dir, filepath.Base(args[1])), []byte(got), 0o644))
		}
		if want := ts.ReadFile(args[1]); got != want {
			ts.Fatalf("%s differs from %s:\n%s", args[0], args[1], got)
		}
	},
	// mkfifo path
	"mkfifo": func(ts *testscript.TestScript, neg bool, args []string) {
		ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o644))
	},
	// hardlink old new
	"hardlink": func(ts *testscript.TestScript, neg bool, args []string) {
		ts.Check(os.Link(ts.MkAbs(args[0]), ts.MkAbs(args[1])))
	},
	// appendfile path text: append a line to a file.
	"appendfile": func(ts *testscript.TestScript, neg bool, args []string) {
		f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_APPEND|os.O_WRONLY, 0)
		ts.Check(err)
		_, err = fmt.Fprintln(f, strings.Join(args[1:], " "))
		ts.Check(err)
		ts.Check(f.Close())
	},
	// mode path octal: fail unless path has exactly that permission mode.
	"mode": func(ts *testscript.TestScript, neg bool, args []string) {
		fi, err := os.Lstat(ts.MkAbs(args[0]))
		ts.Check(err)
		got := fmt.Sprintf("%04o", fi.Mode().Perm())
		if (got == args[1]) == neg {
			ts.Fatalf("%s has mode %s", args[0], got)
		}
	},
	// sameas a b: fail unless files a and b are byte-for-byte equal.
	"sameas": func(ts *testscript.TestScript, neg bool, args []string) {
		if (ts.ReadFile(args[0]) == ts.ReadFile(args[1])) == neg {
			ts.Fatalf("%s and %s differ (or are equal, negated)", args[0], args[1])
		}
	},
	// cpfile src dst: copy a file keeping its mode.
	"cpfile": func(ts *testscript.TestScript, neg bool, args []string) {
		src := ts.MkAbs(args[0])
		fi, err := os.Stat(src)
		ts.Check(err)
		data, err := os.ReadFile(src)
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), data, fi.Mode().Perm()))
	},
}
