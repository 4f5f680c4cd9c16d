package harness_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/lifecycle"
)

// A harness loads the registry once and uses it for the session. Every
// call re-checks the bundle's authority; a refusal names the fix.
func ExampleLoad() {
	opts, done := exampleOptions() // a home where repo-guard is trusted and enabled
	defer done()

	reg, err := harness.Load(opts)
	if err != nil {
		// e.g. an unusable state file. Nothing is active, and so nothing
		// guards: block every event a hook can block (bundle.BlockingEvent)
		// until Load succeeds, as bundlectl hooks run does.
		fmt.Println("no registry:", err)
		return
	}
	defer reg.Close()
	for _, t := range reg.Catalog().Tools {
		fmt.Println(t.Name)
	}
	// Output:
	// plugin__repo-guard__word-count
}

func ExampleRegistry_CallTool() {
	opts, done := exampleOptions()
	defer done()

	reg, err := harness.Load(opts)
	if err != nil {
		return
	}
	defer reg.Close()
	res, err := reg.CallTool(context.Background(), harness.ToolName("repo-guard", "word-count"), []byte(`{"text":"a b c"}`))
	var canceled *harness.CanceledError
	var refused *harness.AuthorityError
	switch {
	case errors.As(err, &canceled):
		// It ran and was killed: its bundle lost its authority meanwhile.
		fmt.Println("killed:", canceled.Cause)
	case errors.As(err, &refused):
		fmt.Println("refused:", refused.Reason, "— fix:", refused.Fix)
	case errors.Is(err, harness.ErrInput):
		fmt.Println("bad input:", err)
	case err == nil:
		fmt.Printf("exit %d: %s", res.ExitCode, res.Stdout)
	}
	// Output:
	// exit 0: {"words":3,"lines":1,"characters":5}
}

func ExampleRegistry_FireHooks() {
	opts, done := exampleOptions()
	defer done()

	reg, err := harness.Load(opts)
	if err != nil {
		return
	}
	defer reg.Close()
	event := []byte(`{"session_id":"s","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`)
	out, _ := reg.FireHooks(context.Background(), "PreToolUse", event)
	if out.Blocked {
		fmt.Println("blocked:", out.Reason)
	}
	// Output:
	// blocked: repo-guard: blocked: recursive forced removal of an absolute path (rm -rf /...)
}

// exampleOptions copies the shipped example workspace to a temporary
// directory and, in a new home there, reviews, trusts and enables its
// repo-guard bundle as `bundlectl review`, `trust` and `enable` would. done
// removes it all.
func exampleOptions() (harness.Options, func()) {
	root, err := os.MkdirTemp("", "bundlectl-example-")
	if err != nil {
		panic(err)
	}
	done := func() { os.RemoveAll(root) }
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	if err := os.CopyFS(ws, os.DirFS(filepath.Join("..", "examples", "workspace"))); err != nil {
		done()
		panic(err)
	}
	m := lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{})
	b, err := m.Find(m.Discover(), "repo-guard")
	if err == nil {
		var h lifecycle.Hashes
		if h, err = lifecycle.Compute(b); err == nil {
			if _, err = m.Trust("repo-guard", h.Token()); err == nil {
				_, err = m.Enable("repo-guard")
			}
		}
	}
	if err != nil {
		done()
		panic(err)
	}
	return harness.Options{Home: home, Workspace: ws}, done
}
