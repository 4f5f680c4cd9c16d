package harness

import (
	"context"
	"errors"
)

// ToolFilter is the reviewed include/exclude filter of an MCP server.
type ToolFilter struct{ Include, Exclude []string }

// Empty reports whether the filter lets every tool through.
func (f ToolFilter) Empty() bool { return len(f.Include)+len(f.Exclude) == 0 }

// ExecFiltered is Exec with the MCP tool filter enforced between the
// client and the server.
func ExecFiltered(ctx context.Context, spec Spec, stdio Stdio, f ToolFilter) (*Result, error) {
	if f.Empty() {
		return Exec(ctx, spec, stdio)
	}
	return nil, errors.New("mcp tool filters are not enforced yet: refusing to start the server")
}
