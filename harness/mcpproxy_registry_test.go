package harness_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/lifecycle"
)

// TestServeMCPEnforcesTheReviewedFilter goes from a manifest's tool
// filter to a running server: a trusted bundle whose server "fs" excludes
// "delete_all" is served through the registry; the list lacks the tool,
// a call of it is refused, and the server (the test binary re-executed as
// a tiny MCP server that logs every call it gets) never sees it.
func TestServeMCPEnforcesTheReviewedFilter(t *testing.T) {
	root := t.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	src := filepath.Join(ws, ".bundlectl", "bundles", "kit")
	logDir := filepath.Join(root, "log")
	for _, d := range []string{filepath.Join(src, "bin"), logDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"plugin.json": `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "kit", "version": "1.0.0",
  "extensions": {"dev.bundlectl": {"mcp": {"fs": {"tools": {"exclude": ["delete_all"]}}}}}}`,
		"mcp.json": `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json",
  "mcpServers": {"fs": {"type": "stdio", "command": "./bin/srv"}}}`,
		"bin/srv": "#!/bin/sh\nHARNESS_TEST_HELPER=mcp-server HARNESS_TEST_LOG=" + filepath.Join(logDir, "calls.log") + " exec " + self + "\n",
	}
	for rel, body := range files {
		if err := os.WriteFile(filepath.Join(src, rel), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	m := lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{})
	activate(t, m, "kit")
	r, err := harness.Load(harness.Options{Home: home, Workspace: ws, Environ: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	defer func() {
		for _, f := range []*os.File{inR, inW, outR, outW} {
			f.Close()
		}
	}()
	done := make(chan error, 1)
	go func() {
		_, err := r.ServeMCP(context.Background(), harness.ServerName("kit", "fs"), harness.Stdio{In: inR, Out: outW, Err: os.Stderr})
		done <- err
	}()
	lines := make(chan map[string]any)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			_ = json.Unmarshal(sc.Bytes(), &m)
			lines <- m
		}
		close(lines)
	}()
	call := func(msg string) map[string]any {
		t.Helper()
		if _, err := inW.WriteString(msg + "\n"); err != nil {
			t.Fatal(err)
		}
		select {
		case m, ok := <-lines:
			if !ok {
				t.Fatalf("the session ended: %v", <-done)
			}
			return m
		case <-time.After(3 * time.Minute): // hang guard
			t.Fatal("no answer")
			return nil
		}
	}
	list := call(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if s, _ := json.Marshal(list); strings.Contains(string(s), "delete_all") || !strings.Contains(string(s), `"echo"`) {
		t.Fatalf("tools/list answered %s", s)
	}
	refused := call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_all"}}`)
	if e, _ := refused["error"].(map[string]any); e == nil || e["code"] != float64(-32602) {
		t.Fatalf("excluded call answered %v", refused)
	} else if msg, _ := e["message"].(string); !strings.Contains(msg, `bundle "kit" MCP server "fs"`) {
		t.Fatalf("the refusal does not say whose filter refused it: %q", msg)
	}
	if ok := call(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"}}`); ok["result"] == nil {
		t.Fatalf("allowed call answered %v", ok)
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(3 * time.Minute):
		t.Fatal("ServeMCP did not return after the client closed")
	}
	log, err := os.ReadFile(filepath.Join(logDir, "calls.log"))
	if err != nil || strings.Fields(string(log))[0] != "echo" || len(strings.Fields(string(log))) != 1 {
		t.Fatalf("the server saw calls %q (%v), want only echo", log, err)
	}
}
