package harness_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/harness"
)

// What Catalog returns is the caller's (docs/harness.md): changing a
// server's tool filter or a tool's input schema in it changes neither the
// filter ServeMCP enforces nor the schema CallTool validates against.
func TestCatalogServersAndToolsAreCopies(t *testing.T) {
	manifest := `{
  "$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
  "name": "kit",
  "version": "1.0.0",
  "extensions": {"dev.bundlectl": {
    "tools": [
      {"name": "echo", "command": "./bin/echo",
       "params": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"], "additionalProperties": false}}
    ],
    "mcp": {"echo": {"tools": {"exclude": ["delete_all"]}}}
  }}
}`
	f := newFixtureOf(t, manifest)
	r := f.load(t)
	c := r.Catalog()
	if len(c.MCP) != 1 || len(c.MCP[0].ToolsExclude) != 1 || len(c.Tools) != 1 {
		t.Fatalf("catalog %+v", c)
	}
	c.MCP[0].ToolsExclude[0] = "changed"
	if i := bytes.Index(c.Tools[0].InputSchema, []byte("false")); i >= 0 {
		copy(c.Tools[0].InputSchema[i:], "true ")
	}
	again := r.Catalog()
	if again.MCP[0].ToolsExclude[0] != "delete_all" {
		t.Errorf("Catalog().MCP aliases the registry's tool filter: now exclude %q", again.MCP[0].ToolsExclude)
	}
	_, err := r.CallTool(context.Background(), harness.ToolName("kit", "echo"), []byte(`{"text":"a","extra":1}`))
	if !errors.Is(err, harness.ErrInput) {
		t.Errorf("Catalog().Tools aliases the registry's params schema: an input it refused now gets %v", err)
	}
	// end to end: the excluded tool's call must be refused by the proxy,
	// not reach the server (bin/srv is cat: a forwarded call comes back).
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	defer outR.Close()
	done := make(chan error, 1)
	go func() {
		_, err := r.ServeMCP(context.Background(), harness.ServerName("kit", "echo"), harness.Stdio{In: inR, Out: outW, Err: os.Stderr})
		inR.Close()
		outW.Close()
		done <- err
	}()
	inW.WriteString(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"delete_all"}}` + "\n")
	line, _ := bufio.NewReader(outR).ReadString('\n')
	inW.Close()
	<-done
	if !strings.Contains(line, `"error"`) {
		t.Errorf("after the caller changed its Catalog, an excluded tools/call reached the server: %q", line)
	}
}
