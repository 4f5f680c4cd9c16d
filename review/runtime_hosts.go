package review

import (
	"slices"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
)

// RunTimeHost is a remote MCP server whose host a variable in its url
// decides when a host connects (bundle.MCPURLHostVar), as review --json
// gives it in run_time_hosts: such a host is in no network_hosts, so a
// harness reading only those would take the bundle to contact nothing
// more. An http hook has none: Claude Code expands no variable in a
// hook's url (a hook.url warning says so), Codex skips http hooks and
// Gemini CLI runs command hooks only.
type RunTimeHost struct {
	MCPServer string `json:"mcp_server"`
	// Variable is the variable as written ("${HOST}", "$NET",
	// "${H:-10.0.0.1}").
	Variable string `json:"variable"`
	// Hosts are the hosts that expand it ("claude", "gemini").
	Hosts []string `json:"hosts"`
	// DefaultHost is the host the url names when the variable is unset
	// and gives a default; DefaultAddress what kind of address that is
	// (bundle.AddressKind: "private", "loopback", "link_local",
	// "metadata", "unspecified"), absent for another.
	DefaultHost    string `json:"default_host,omitempty"`
	DefaultAddress string `json:"default_address,omitempty"`
}

// runTimeHostList is every remote MCP server of b whose host a variable
// decides, sorted by name.
func runTimeHostList(b *bundle.Bundle) []RunTimeHost {
	var out []RunTimeHost
	for _, s := range b.Components.MCP {
		if !s.Remote() {
			continue
		}
		ref, by := bundle.MCPURLHostVar(s.URL, s.Hosts)
		if ref == "" {
			continue
		}
		h := RunTimeHost{MCPServer: s.Name, Variable: ref, Hosts: make([]string, len(by))}
		for i, x := range by {
			h.Hosts[i] = string(x)
		}
		h.DefaultHost, h.DefaultAddress = bundle.MCPURLHostDefault(s.URL, ref)
		out = append(out, h)
	}
	slices.SortStableFunc(out, func(a, b RunTimeHost) int { return strings.Compare(a.MCPServer, b.MCPServer) })
	return out
}

// defaultText says what the host is with the variable unset when that
// is an address of a kind the review points out ("private",
// "loopback", …): `; with it unset, it is "10.0.0.1", a private
// address`, or "".
func (h RunTimeHost) defaultText() string {
	if h.DefaultAddress == "" {
		return ""
	}
	return "; with it unset, it is " + bundle.Quote(h.DefaultHost) + ", " + bundle.AddressKindText(h.DefaultAddress)
}
