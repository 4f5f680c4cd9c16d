package bundle

import (
	"slices"
	"testing"
)

// TestMCPURLAuthorityVar: a variable only in a remote MCP url's user
// information or port is named, with the hosts that expand it, because
// its value can end them early and name another host ("${U}" set to
// "evil.example/#"); MCPURLHostVar names none for it, as the host
// written is the one reached for an ordinary value. A variable in the
// host is MCPURLHostVar's, one after the authority nobody's.
func TestMCPURLAuthorityVar(t *testing.T) {
	all := []Host{HostClaude, HostGemini}
	for _, c := range []struct {
		url   string
		hosts []Host
		ref   string
		by    []Host
	}{
		{"https://${U}@ub.example/mcp", []Host{HostClaude}, "${U}", []Host{HostClaude}},
		{"https://pv.example:${P}/mcp", all, "${P}", all},
		{"https://$U@ub.example/mcp", []Host{HostGemini}, "$U", []Host{HostGemini}},
		{"https://$U@ub.example/mcp", []Host{HostClaude}, "", nil},
		{"https://${U}@ub.example/mcp", []Host{HostCodex}, "", nil},
		{"https://${U}:${P}@ub.example/mcp", nil, "${U}", []Host{HostClaude, HostGemini}},
		{"https://${H}/mcp", all, "", nil},
		{"https://h.example/${P}/mcp", all, "", nil},
		{"https://h.example/mcp?u=${U}", all, "", nil},
	} {
		ref, by := MCPURLAuthorityVar(c.url, c.hosts)
		if ref != c.ref || !slices.Equal(by, c.by) {
			t.Errorf("MCPURLAuthorityVar(%q, %v) = %q, %v, want %q, %v", c.url, c.hosts, ref, by, c.ref, c.by)
		}
	}
	if h := MCPURLWrittenHost("https://${U}@UB.example/mcp"); h != "ub.example" {
		t.Errorf("MCPURLWrittenHost = %q, want ub.example", h)
	}
}
