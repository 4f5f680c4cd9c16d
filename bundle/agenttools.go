package bundle

import (
	"slices"
	"strings"
	"unicode"
)

// Claude Code (2.1.332) reads an agent's "tools" as a list of names: every
// string value (a list's items, or the one string) is split at "," and
// " " outside parentheses, each piece trimmed, empty pieces dropped. A
// "*" among the names gives the agent every tool of the session, as no
// tools key does; a tools key that names nothing ("tools:", "", [], " ",
// ",") gives it no tools at all (internal/agenttest TestClaudeAgentEmptyTools).

// ClaudeAgentToolNames returns the tool names Claude Code reads from an
// agent's tools list as written (Grants.Tools).
func ClaudeAgentToolNames(tools []string) []string {
	var out []string
	for _, item := range tools {
		var cur strings.Builder
		inParens := false
		flush := func() {
			if name := strings.TrimFunc(cur.String(), isJSSpace); name != "" {
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

// isJSSpace is JavaScript's String.prototype.trim set: white space and
// line terminators (U+FEFF included, U+0085 not).
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\v', '\f', ' ', '\u00a0', '\ufeff', '\n', '\r', '\u2028', '\u2029':
		return true
	}
	return unicode.Is(unicode.Zs, r)
}
