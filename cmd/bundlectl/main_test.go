package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/bundlectl/bundlectl/internal/testtree"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/spf13/cobra"
)

func TestMain(m *testing.M) {
	testscript.Main(defaultSignals{m}, map[string]func(){
		"bundlectl": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// goraceQuickExit is GORACE for the bundlectl processes the tests start:
// under -race each would otherwise sleep a second at exit
// (atexit_sleep_ms, so that other threads can still report a race), and
// the scripts start hundreds of them: 543 s for this package in CI,
// against 43 s without -race. A race found in a child is still reported
// (and fails its script) before it exits.
var goraceQuickExit = strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")

// defaultSignals runs the tests with every process they start getting
// interrupt and hang-up at their defaults, as an interactive shell starts a
// job, also when go test runs ignoring them (in a script's background job,
// or under nohup): bundlectl keeps a signal ignored that it was started
// ignoring, and the tests that signal it would hang. A subscription makes
// Go's runtime reset the signal in the processes it starts; this process
// drops it, as it ignored it. (A test that wants a signal ignored starts
// bundlectl with sh -c 'trap "" INT; exec bundlectl ...'.) As bundlectl,
// the test binary keeps the dispositions it is started with.
type defaultSignals struct{ m *testing.M }

func (d defaultSignals) Run() int {
	os.Setenv("GORACE", goraceQuickExit) // for the processes tests start with this environment
	var ignored []os.Signal
	for _, s := range []os.Signal{syscall.SIGINT, syscall.SIGHUP} {
		if signal.Ignored(s) {
			ignored = append(ignored, s)
		}
	}
	if len(ignored) > 0 {
		signal.Notify(make(chan os.Signal, 1), ignored...)
	}
	return d.m.Run()
}

// TestScripts runs the CLI scripts in testdata/script. Each script runs in
// a fresh $WORK with HOME=/no-home and BUNDLECTL_HOME=$WORK/home; the
// example workspace is copied to $WORK/ws (so scripts may edit it) and
// $EXAMPLES names the pristine one. $JSONDOC is docs/json.md, which the
// jsonshape command holds output to.
func TestScripts(t *testing.T) {
	examples, err := filepath.Abs("../../examples/workspace")
	if err != nil {
		t.Fatal(err)
	}
	jsonDoc, err := filepath.Abs(jsonDocPath)
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("BUNDLECTL_UPDATE_SCRIPTS") == "1",
		Setup: func(env *testscript.Env) error {
			env.Setenv("BUNDLECTL_HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("EXAMPLES", examples)
			env.Setenv("JSONDOC", jsonDoc)
			env.Setenv("NO_COLOR", "1")
			env.Setenv("GORACE", goraceQuickExit)
			env.Setenv("CI", os.Getenv("CI")) // a script needing a tool CI installs fails, not skips, in CI
			return testtree.Copy(examples, filepath.Join(env.WorkDir, "ws"))
		},
		Cmds: scriptCmds,
	})
}

// TestRootForOneCommandIsTheSameTree: a call builds only the command it
// invokes (newRootFor), and must answer exactly as the whole tree would:
// the table names every command, and each command's help and usage
// errors, at every depth, are the same.
func TestRootForOneCommandIsTheSameTree(t *testing.T) {
	full, _ := newRoot(nil, io.Discard, io.Discard)
	var names []string
	for _, c := range full.Commands() {
		if c.Name() != "help" && c.Name() != "completion" {
			names = append(names, c.Name())
		}
	}
	var table []string
	for _, c := range commands {
		table = append(table, c.name)
	}
	slices.Sort(names)
	slices.Sort(table)
	if !slices.Equal(names, table) {
		t.Fatalf("commands table %v, tree %v", table, names)
	}
	answer := func(root *cobra.Command, args []string) string {
		var out, errOut bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&errOut)
		root.SetArgs(args)
		_, err := root.ExecuteC()
		return fmt.Sprintf("%s\n--\n%s\n--\n%v", out.String(), errOut.String(), err)
	}
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			if sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			p := append(slices.Clone(path), sub.Name())
			for _, args := range [][]string{append(slices.Clone(p), "--help"), append(slices.Clone(p), "--no-such-flag")} {
				want, _ := newRoot(nil, io.Discard, io.Discard)
				got, _ := newRootFor(invoked(args), nil, io.Discard, io.Discard)
				if invoked(args) != p[0] {
					t.Fatalf("invoked(%q) = %q, want %q", args, invoked(args), p[0])
				}
				if w, g := answer(want, args), answer(got, args); w != g {
					t.Errorf("bundlectl %s: the one-command tree answers\n%s\nthe whole tree\n%s", strings.Join(args, " "), g, w)
				}
			}
			walk(sub, p)
		}
	}
	walk(full, nil)

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"list"}, "list"},
		{[]string{"--home", "h", "--workspace=w", "--json", "hooks", "run"}, "hooks"},
		{[]string{"--workspace", "list", "show"}, "show"}, // "list" is the flag's value
		{[]string{"--version"}, ""},
		{[]string{"help", "list"}, ""},
		{[]string{"completion", "bash"}, ""},
		{[]string{"__complete", "show", ""}, ""},
		{[]string{"lsit"}, ""},
		{[]string{"-x", "list"}, ""},
		{nil, ""},
	} {
		if got := invoked(c.args); got != c.want {
			t.Errorf("invoked(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}
