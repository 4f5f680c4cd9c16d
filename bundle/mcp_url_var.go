package bundle

import "slices"

// MCPURLHostVar is the variable, as written in a remote MCP server's url
// ("$NET", "${HOST}"), that picks the host the server is reached at when
// it is, and the hosts that expand it, or "" when the url names its host
// itself. hosts are the hosts
// that read the server (none: every one). A "${NAME}" in the url's scheme
// or authority (urlVarBeforePath) is one Claude Code and Gemini CLI
// expand (Codex sends it as written: a codex.ignored warning says so); a
// bare "$NAME" there is one Gemini CLI alone expands from its environment
// (geminiVarBeforePath: "https://$NET.9/mcp" is https://10.0.0.9/mcp when
// NET is 10.0.0, internal/agenttest TestGeminiMCPURLBareVar). The review
// says the host is decided by it at run time, and, where only Gemini CLI
// reads the server, lists no host for it (remoteHosts), where it listed
// the literal "$net.9".
func MCPURLHostVar(url string, hosts []Host) (ref string, expandedBy []Host) {
	if len(hosts) == 0 {
		hosts = []Host{HostClaude, HostCodex, HostGemini}
	}
	if urlVarBeforePath(url) {
		expandedBy = slices.DeleteFunc(slices.Clone(hosts), func(h Host) bool { return h == HostCodex })
		if len(expandedBy) > 0 {
			return braceRef().FindString(url), expandedBy
		}
	}
	if geminiVarBeforePath(MCPServer{URL: url, Hosts: hosts}) {
		return geminiRef().FindString(url), []Host{HostGemini}
	}
	return "", nil
}

// geminiOnlyVarHost reports whether only Gemini CLI reads s and a bare
// $NAME or ${NAME} in its url's authority picks its host: its host is
// the variable's, known at run time only, and no literal one is listed.
func geminiOnlyVarHost(s MCPServer) bool {
	return len(s.Hosts) > 0 && !slices.ContainsFunc(s.Hosts, func(h Host) bool { return h != HostGemini }) && geminiVarBeforePath(s)
}
