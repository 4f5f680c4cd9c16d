package harness_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/bundlectl/bundlectl/harness"
)

// A harness loads the registry once and uses it for the session. Every
// call re-checks the bundle's authority; a refusal names the fix.
func ExampleLoad() {
	reg, err := harness.Load(harness.Options{
		Home:      os.Getenv("BUNDLECTL_HOME"),
		Workspace: ".",
	})
	if err != nil {
		// e.g. an unusable state file. Nothing is active, and so nothing
		// guards: block every event a hook can block (bundle.BlockingEvent)
		// until Load succeeds, as bundlectl hooks run does.
		fmt.Println("no registry:", err)
		return
	}
	defer reg.Close()
	for _, t := range reg.Catalog().Tools {
		fmt.Println(t.Name, string(t.InputSchema))
	}
}

func ExampleRegistry_CallTool() {
	reg, err := harness.Load(harness.Options{Home: os.Getenv("BUNDLECTL_HOME"), Workspace: "."})
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
}

func ExampleRegistry_FireHooks() {
	reg, err := harness.Load(harness.Options{Home: os.Getenv("BUNDLECTL_HOME"), Workspace: "."})
	if err != nil {
		return
	}
	defer reg.Close()
	event := []byte(`{"session_id":"s","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`)
	out, _ := reg.FireHooks(context.Background(), "PreToolUse", event)
	if out.Blocked {
		fmt.Println("blocked:", out.Reason)
	}
}
