package bundle

import "testing"

// TestMCPURLHostDefault: the host a remote MCP url names when the
// variable that picks it is unset and gives a default, and what kind of
// address that is, which the review points out for a private or
// loopback one as a literal one is seen in the url.
func TestMCPURLHostDefault(t *testing.T) {
	for _, c := range []struct{ url, ref, host, kind string }{
		{"https://${H:-10.0.0.1}/mcp", "${H:-10.0.0.1}", "10.0.0.1", "private"},
		{"https://${H:-192.168.1.2}:8443/mcp", "${H:-192.168.1.2}", "192.168.1.2", "private"},
		{"https://${H:-100.64.0.1}/mcp", "${H:-100.64.0.1}", "100.64.0.1", "private"},
		{"https://${H:-[fd00::1]}/mcp", "${H:-[fd00::1]}", "fd00::1", "private"},
		{"http://${H:-127.0.0.1}:8080/mcp", "${H:-127.0.0.1}", "127.0.0.1", "loopback"},
		{"http://${H:-localhost}:8080/mcp", "${H:-localhost}", "localhost", "loopback"},
		{"http://${H:-[::1]}/mcp", "${H:-[::1]}", "::1", "loopback"},
		// A cloud metadata address is named so, not by its range
		// (link-local, unique-local), which the review called it.
		{"https://${H:-169.254.169.254}/mcp", "${H:-169.254.169.254}", "169.254.169.254", "metadata"},
		{"https://${H:-[fd00:ec2::254]}/mcp", "${H:-[fd00:ec2::254]}", "fd00:ec2::254", "metadata"},
		{"https://${H:-[::ffff:169.254.169.254]}/mcp", "${H:-[::ffff:169.254.169.254]}", "::ffff:169.254.169.254", "metadata"},
		{"https://${H:-metadata.google.internal}/mcp", "${H:-metadata.google.internal}", "metadata.google.internal", "metadata"},
		{"https://${H:-METADATA.goog.}/mcp", "${H:-METADATA.goog.}", "metadata.goog.", "metadata"},
		// AWS's container credentials endpoint (ECS) and EKS Pod
		// Identity agent answer with credentials too: they were called
		// link-local.
		{"https://${H:-169.254.170.2}/mcp", "${H:-169.254.170.2}", "169.254.170.2", "metadata"},
		{"https://${H:-169.254.170.23:80}/mcp", "${H:-169.254.170.23:80}", "169.254.170.23", "metadata"},
		{"https://${H:-[::ffff:169.254.170.2]}/mcp", "${H:-[::ffff:169.254.170.2]}", "::ffff:169.254.170.2", "metadata"},
		{"https://${H:-169.254.1.1}/mcp", "${H:-169.254.1.1}", "169.254.1.1", "link_local"},
		{"https://${H:-[fe80::1]}/mcp", "${H:-[fe80::1]}", "fe80::1", "link_local"},
		{"https://${H:-168.63.129.16}/mcp", "${H:-168.63.129.16}", "168.63.129.16", "metadata"},
		{"https://${H:-0.0.0.0}/mcp", "${H:-0.0.0.0}", "0.0.0.0", "unspecified"},
		{"https://${H:-pub.example}/mcp", "${H:-pub.example}", "pub.example", ""},
		{"https://${H:-8.8.8.8}/mcp", "${H:-8.8.8.8}", "8.8.8.8", ""},
		{"https://${H:-10.0.0}.${N}/mcp", "${H:-10.0.0}", "", ""},
		{"https://${HOST}/mcp", "${HOST}", "", ""},
		{"https://$NET.9/mcp", "$NET", "", ""},
	} {
		host, kind := MCPURLHostDefault(c.url, c.ref)
		if host != c.host || kind != c.kind {
			t.Errorf("MCPURLHostDefault(%q, %q) = %q, %q, want %q, %q", c.url, c.ref, host, kind, c.host, c.kind)
		}
	}
}
