package bundle

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/bundlectl/bundlectl/internal/jsspace"
)

// Claude Code (2.1.332) reads an agent's "tools" as a list of names: every
// string value (a list's items, or the one string) is split at "," and
// " " outside parentheses, each piece trimmed, empty pieces dropped. A
// "*" among the names gives the agent every tool of the session, as no
// tools key does; a tools key that names nothing ("tools:", "", [], " ",
// ",") gives it no tools at all (internal/agenttest TestClaudeAgentEmptyTools).
//
// An agent with "memory" set to one of ClaudeAgentMemoryScopes and a tools
// list without "*" gets ClaudeAgentMemoryTools added to that list (when
// Claude Code's auto memory is on, as it is by default): "tools: Read" and
// "memory: user" is Read, Write and Edit, and an empty list with memory is
// those three (internal/agenttest TestClaudeAgentMemoryTools).

// ClaudeAgentMemoryScopes are the memory values Claude Code accepts on an
// agent; any other is ignored, with a warning in its debug log.
var ClaudeAgentMemoryScopes = []string{"user", "project", "local"}

// ClaudeAgentMemoryTools are the tools an agent's memory adds to its tools
// list.
var ClaudeAgentMemoryTools = []string{"Write", "Edit", "Read"}

// ClaudeAgentToolNames returns the tool names Claude Code reads from an
// agent's tools list as written (Grants.Tools).
func ClaudeAgentToolNames(tools []string) []string {
	var out []string
	for _, item := range tools {
		var cur strings.Builder
		inParens := false
		flush := func() {
			if name := jsspace.Trim(cur.String()); name != "" {
				out = append(out, name)
			}
			cur.Reset()
		}
		for _, c := range item {
			switch {
			case c == '(':
				inParens = true
				cur.WriteRune(c)
			case c == ')':
				inParens = false
				cur.WriteRune(c)
			case (c == ',' || c == ' ') && !inParens:
				flush()
			default:
				cur.WriteRune(c)
			}
		}
		flush()
	}
	return out
}

// AgentToolsEvery reports whether an agent's tools list as written gives
// the agent every tool of its session in Claude Code: a "*" among the
// names it reads. A review must not show such a list as a restriction.
func AgentToolsEvery(tools []string) bool {
	return slices.Contains(ClaudeAgentToolNames(tools), "*")
}

// addMemoryTools adds ClaudeAgentMemoryTools to an agent's tools list as
// written, when its front matter sets a memory scope and the list is not
// every tool already, and returns what it added.
func addMemoryTools(g *Grants, m frontMatter) []string {
	n, ok := m.vals["memory"]
	if !ok || n.Kind != yaml.ScalarNode || n.Tag != "!!str" || !slices.Contains(ClaudeAgentMemoryScopes, n.Value) {
		return nil
	}
	if _, listed := m.vals["tools"]; !listed || AgentToolsEvery(g.Tools) {
		return nil
	}
	names := ClaudeAgentToolNames(g.Tools)
	var added []string
	for _, t := range ClaudeAgentMemoryTools {
		if !slices.Contains(names, t) {
			added = append(added, t)
		}
	}
	g.Tools = append(g.Tools, added...)
	return added
}
