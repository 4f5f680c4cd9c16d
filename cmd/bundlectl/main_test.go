package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/internal/testtree"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"bundlectl": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
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
			return testtree.Copy(examples, filepath.Join(env.WorkDir, "ws"))
		},
		Cmds: scriptCmds,
	})
}
