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
	// WrittenHost is set when the variable is in the url's user
	// information or port, not its host (bundle.MCPURLAuthorityVar): the
	// host the url writes, which it is reached at while the variable's
	// value holds none of '/', '\', '?', '#' and '@' (network_hosts lists
	// it); a value holding one ends the user information or port early,
	// and the url names another host.
	WrittenHost string `json:"written_host,omitempty"`
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
		written := ""
		if ref == "" {
			if ref, by = bundle.MCPURLAuthorityVar(s.URL, s.Hosts); ref == "" {
				continue
			}
			written = bundle.MCPURLWrittenHost(s.URL)
		}
		h := RunTimeHost{MCPServer: s.Name, Variable: ref, Hosts: make([]string, len(by)), WrittenHost: written}
		for i, x := range by {
			h.Hosts[i] = string(x)
		}
		if written == "" {
			h.DefaultHost, h.DefaultAddress = bundle.MCPURLHostDefault(s.URL, ref)
		}
		out = append(out, h)
	}
	slices.SortStableFunc(out, func(a, b RunTimeHost) int { return strings.Compare(a.MCPServer, b.MCPServer) })
	return out
}

// authorityChars are the characters whose presence in the value of a
// variable in a url's user information or port makes the url name
// another host than the one written.
const authorityChars = `'/', '\', '?', '#' or '@'`

// writtenText says, for a variable in the user information or port,
// which host the url is reached at and when another: `; "h.example"
// unless its value holds '/', …`, or "".
func (h RunTimeHost) writtenText() string {
	if h.WrittenHost == "" {
		return ""
	}
	return "; " + bundle.Quote(h.WrittenHost) + " unless its value holds " + authorityChars
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
