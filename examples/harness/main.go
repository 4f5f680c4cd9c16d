// Command harness is a small agent harness that embeds bundlectl's
// library: it loads the registry of active bundles, lists the catalogue,
// calls a tool and fires a PreToolUse event. Only bundles that are enabled
// and trusted for their current hashes appear; everything runs from the
// verified snapshots.
//
//	go run ./examples/harness -workspace examples/workspace
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bundlectl/bundlectl/harness"
)

func main() {
	home := flag.String("home", os.Getenv("BUNDLECTL_HOME"), "bundlectl home (default $BUNDLECTL_HOME)")
	workspace := flag.String("workspace", ".", "workspace directory")
	tool := flag.String("tool", "plugin__repo-guard__word-count", "tool to call")
	input := flag.String("input", `{"text":"hello from the example harness"}`, "tool input JSON")
	flag.Parse()
	if *home == "" {
		fmt.Fprintln(os.Stderr, "harness: set BUNDLECTL_HOME or pass -home")
		os.Exit(2)
	}
	ws, _ := filepath.Abs(*workspace)

	reg, err := harness.Load(harness.Options{Home: *home, Workspace: ws})
	if err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		os.Exit(1)
	}
	defer reg.Close()

	cat := reg.Catalog()
	fmt.Println("active catalogue:")
	for _, s := range cat.Skills {
		fmt.Printf("  skill  %s\n", s.Name)
	}
	for _, c := range cat.Commands {
		fmt.Printf("  command %s\n", c.Name)
	}
	for _, t := range cat.Tools {
		fmt.Printf("  tool   %s\n", t.Name)
	}
	for _, h := range cat.Hooks {
		fmt.Printf("  hook   %s %s (%s)\n", h.Event, h.Matcher, h.Bundle)
	}
	for _, m := range cat.MCP {
		fmt.Printf("  mcp    %s (%s)\n", m.Name, m.Transport)
	}
	for _, in := range cat.Inactive {
		fmt.Printf("  not loaded: %s (%s)\n", in.Name, in.Status)
	}

	if len(cat.Skills) > 0 {
		content, err := reg.Content(cat.Skills[0].Name)
		if err != nil {
			fmt.Println("skill refused:", err)
		} else {
			fmt.Printf("\n%s is %d bytes, read from its snapshot after a check\n", cat.Skills[0].Name, len(content))
		}
	}

	fmt.Printf("\ncalling %s with %s\n", *tool, *input)
	res, err := reg.CallTool(context.Background(), *tool, []byte(*input))
	switch {
	case err != nil:
		fmt.Println("  refused:", err)
	default:
		fmt.Printf("  exit %d: %s", res.ExitCode, res.Stdout)
	}

	// Built from HookEvent's fields, the event is written in the order
	// Claude Code writes them, as a hook reads it in the host.
	ev, _ := json.Marshal(harness.HookEvent{
		SessionID: "example", Cwd: ws, HookEventName: "PreToolUse", ToolName: "Bash",
		ToolInput: json.RawMessage(`{"command":"git push --force origin main"}`),
	})
	fmt.Println("\nfiring PreToolUse for Bash: git push --force origin main")
	out, err := reg.FireHooks(context.Background(), "PreToolUse", ev)
	if err != nil {
		fmt.Println("  error:", err)
	}
	if out.Blocked {
		fmt.Println("  blocked:", out.Reason)
	} else {
		fmt.Println("  proceed")
	}
	for _, e := range out.Errors {
		fmt.Println("  hook error:", e)
	}
}
