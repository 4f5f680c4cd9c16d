package bundle

import (
	"net/netip"
	"regexp"
	"slices"
	"strings"
)

// MCPURLHostVar is the variable, as written in a remote MCP server's url
// ("$NET", "${HOST}"), that picks the host the server is reached at when
// it is, and the hosts that expand it, or "" when the url names its host
// itself. hosts are the hosts
// that read the server (none: every one). A "${NAME}" in the url's scheme
// or host (urlVarPicksHost) is one Claude Code and Gemini CLI
// expand (Codex sends it as written: a codex.ignored warning says so); a
// bare "$NAME" there is one Gemini CLI alone expands from its environment
// (geminiVarPicksHost: "https://$NET.9/mcp" is https://10.0.0.9/mcp when
// NET is 10.0.0, internal/agenttest TestGeminiMCPURLBareVar). The review
// says the host is decided by it at run time, and, where only Gemini CLI
// reads the server, lists no host for it (remoteHosts), where it listed
// the literal "$net.9". A variable only in the user information or the
// port ("https://${U}@h.example/", "https://h.example:${P}/") picks no
// host while its value is an ordinary user name or port: the server is
// reached at h.example, which is listed (endpointHost); the review names
// the variable as one whose value could pick another
// (MCPURLAuthorityVar).
func MCPURLHostVar(url string, hosts []Host) (ref string, expandedBy []Host) {
	if len(hosts) == 0 {
		hosts = []Host{HostClaude, HostCodex, HostGemini}
	}
	if ref := hostVar(url, braceRef()); ref != "" {
		expandedBy = slices.DeleteFunc(slices.Clone(hosts), func(h Host) bool { return h == HostCodex })
		if len(expandedBy) > 0 {
			return ref, expandedBy
		}
	}
	if geminiVarPicksHost(MCPServer{URL: url, Hosts: hosts}) {
		return hostVar(url, geminiRef()), []Host{HostGemini}
	}
	return "", nil
}

// geminiOnlyVarHost reports whether only Gemini CLI reads s and a bare
// $NAME or ${NAME} in its url's host picks it: its host is the
// variable's, known at run time only, and no literal one is listed.
func geminiOnlyVarHost(s MCPServer) bool {
	return len(s.Hosts) > 0 && !slices.ContainsFunc(s.Hosts, func(h Host) bool { return h != HostGemini }) && geminiVarPicksHost(s)
}

// geminiVarPicksHost is geminiVarBeforePath for a variable that picks
// the host (urlVarPicksHost), not one only in the user information or
// the port.
func geminiVarPicksHost(s MCPServer) bool {
	if len(s.Hosts) > 0 && !slices.Contains(s.Hosts, HostGemini) {
		return false
	}
	return hostVar(s.URL, geminiRef()) != ""
}

// hostVar is the first variable re finds in url s that picks its host
// (urlVarPicksHost), as written, or "".
func hostVar(s string, re *regexp.Regexp) string {
	for _, loc := range re.FindAllStringIndex(s, -1) {
		if urlVarPicksHost(s, loc) {
			return s[loc[0]:loc[1]]
		}
	}
	return ""
}

// urlVarPicksHost reports whether the variable at s[loc[0]:loc[1]] may
// pick the host url s is reached at: it is in the scheme (or s has none:
// it may hold "https://host"), or it touches the host, not only the user
// information before it or the port, path, query or fragment after it.
// A variable whose default holds an '@', '/' or ':' is read the
// conservative way: it picks the host.
func urlVarPicksHost(s string, loc []int) bool {
	colon := strings.IndexByte(s, ':')
	if colon < 0 || loc[0] < colon {
		return true
	}
	start, end := urlHostSpan(s, colon)
	return loc[1] > start && loc[0] < end
}

// urlHostSpan is where the host of url s, whose scheme ends at colon,
// starts and ends as written: after the slashes and the user information
// (up to the authority's last '@'), up to the first ':' outside brackets
// or the path, query or fragment.
func urlHostSpan(s string, colon int) (start, end int) {
	start = colon + 1
	for start < len(s) && isSlash(s[start]) {
		start++
	}
	end = len(s)
	if i := strings.IndexAny(s[start:], `/\?#`); i >= 0 {
		end = start + i
	}
	if at := strings.LastIndexByte(s[start:end], '@'); at >= 0 {
		start += at + 1
	}
	inBrackets := false
	for j := start; j < end; j++ {
		switch s[j] {
		case '[':
			inBrackets = true
		case ']':
			inBrackets = false
		case ':':
			if !inBrackets {
				return start, j
			}
		}
	}
	return start, end
}

// literalHostURL is url s cut to its scheme and host ("https://h.example/")
// when every "${" in it lies outside its host (urlVarPicksHost), in the
// user information or the port: endpointHost judges and lists that host,
// which the server is reached at whatever the variables hold.
func literalHostURL(s string) (string, bool) {
	colon := strings.IndexByte(s, ':')
	if colon < 0 {
		return "", false
	}
	for i := 0; ; {
		k := strings.Index(s[i:], "${")
		if k < 0 {
			break
		}
		open := i + k
		close := len(s)
		if c := strings.IndexByte(s[open:], '}'); c >= 0 {
			close = open + c + 1
		}
		if urlVarPicksHost(s, []int{open, close}) {
			return "", false
		}
		i = open + 2
	}
	start, end := urlHostSpan(s, colon)
	return s[:colon] + "://" + s[start:end] + "/", true
}

// MCPURLHostDefault is the host remote MCP url s is reached at when ref,
// the variable that picks its host (MCPURLHostVar), is unset and gives a
// default ("${H:-10.0.0.1}" is 10.0.0.1), and what kind of address that
// is (AddressKind: "private", "loopback", …, "" for a public address or
// another name): the review points a private or loopback default out, as
// a literal host of that kind is seen in the url. It is "", "" when ref
// gives no default or the default leaves the host unknown.
func MCPURLHostDefault(s, ref string) (host, kind string) {
	inner, ok := strings.CutPrefix(ref, "${")
	if !ok {
		return "", ""
	}
	_, def, ok := strings.Cut(strings.TrimSuffix(inner, "}"), ":-")
	if !ok {
		return "", ""
	}
	host, msg := endpointHost(strings.Replace(s, ref, def, 1))
	if msg != "" || host == "" {
		return "", ""
	}
	return host, AddressKind(host)
}

// AddressKind is what kind of address host (as endpointHost returns it)
// names: "loopback" (127.0.0.0/8, ::1, localhost), "metadata" (a cloud
// metadata address: 169.254.169.254, fd00:ec2::254 and the others Claude
// Code names, an IPv6 address embedding one, or the metadata server's
// name metadata.google.internal or metadata.goog), "private" (10/8,
// 172.16/12, 192.168/16, 100.64/10, fc00::/7), "link_local",
// "unspecified" (0.0.0.0/8, ::), or "" for any other address or name. A
// metadata address is named so before its range: 169.254.169.254 is
// link-local and fd00:ec2::254 unique-local (private), and the review
// called them that, which hides what a request there reads (the
// instance's credentials).
//
// An IPv4 address is read as JavaScript's URL reads a host, as Claude
// Code and Gemini CLI do ("127.1", "0x7f.1", "2130706433", a trailing
// dot), and a name with one trailing dot as the name ("localhost."):
// read by netip alone they were names of no kind.
func AddressKind(host string) string {
	switch n := strings.TrimSuffix(strings.ToLower(host), "."); {
	case n == "localhost" || strings.HasSuffix(n, ".localhost"):
		return "loopback"
	case n == "metadata.google.internal" || n == "metadata.goog":
		return "metadata"
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		var ok bool
		if a, ok = JSURLIPHost(host); !ok {
			return ""
		}
	}
	a = a.Unmap()
	if isCloudMetadataAddr(a) {
		return "metadata"
	}
	switch k := claudeAddrClass(a); k {
	case "loopback", "link_local", "private":
		return k
	case "unique_local", "carrier_nat":
		return "private"
	case "unspecified", "this_network":
		return "unspecified"
	}
	if claudeMetadataClass(a) != "" {
		return "metadata"
	}
	return ""
}

// isCloudMetadataAddr reports whether a is a cloud metadata address:
// 169.254.169.254 (AWS, GCP, Azure, OCI, …), AWS's container
// credentials endpoint 169.254.170.2 (ECS, Fargate) and EKS Pod
// Identity agent 169.254.170.23 (whose IPv6 address, fd00:ec2::23, Claude
// Code names; both answer with the workload's AWS credentials, and the
// review called them link-local), one of those Claude Code names
// (claudeMetadataAddrs: 100.100.100.200, 168.63.129.16, fd00:ec2::254,
// …), or an IPv6 address that embeds one (IPv4-mapped, 6to4, NAT64, …,
// as claudeEmbedded reads them).
func isCloudMetadataAddr(a netip.Addr) bool {
	a = a.WithZone("").Unmap()
	is := func(x netip.Addr) bool {
		switch x {
		case netip.AddrFrom4([4]byte{169, 254, 169, 254}), netip.AddrFrom4([4]byte{169, 254, 170, 2}), netip.AddrFrom4([4]byte{169, 254, 170, 23}):
			return true
		}
		return claudeMetadataAddrs()[x]
	}
	if is(a) {
		return true
	}
	if a.Is6() {
		for _, v := range claudeEmbedded(a.As16()) {
			if is(netip.AddrFrom4(v)) {
				return true
			}
		}
	}
	return false
}

// AddressKindText is kind (AddressKind) in words: "a private address".
func AddressKindText(kind string) string {
	switch kind {
	case "link_local":
		return "a link-local address"
	case "metadata":
		return "a cloud metadata address"
	case "unspecified":
		return "an unspecified address"
	}
	return "a " + kind + " address"
}

// MCPURLUserinfoVar is the first variable (as Gemini CLI expands it: $NAME
// or ${NAME}) in remote MCP url s's user information, or "". Gemini CLI
// 0.61 connects to such a url only when the variable is set and empty:
// set to a value, or unset (left as written), it is user information,
// and its fetch refuses a url with one, so it asks nothing
// (internal/agenttest TestGeminiMCPURLUserinfo).
func MCPURLUserinfoVar(s string) string {
	colon := strings.IndexByte(s, ':')
	if colon < 0 {
		return ""
	}
	auth := colon + 1
	for auth < len(s) && isSlash(s[auth]) {
		auth++
	}
	start, _ := urlHostSpan(s, colon)
	if start <= auth {
		return ""
	}
	return geminiRef().FindString(s[auth:start])
}

// MCPURLAuthorityVar is the first variable, as written, in the user
// information or the port of remote MCP url s whose host is written
// (MCPURLHostVar is ""), and the hosts that expand it: "${NAME}" Claude
// Code and Gemini CLI (Codex sends it as written), a bare "$NAME" Gemini
// CLI alone. The host written is the one the url is reached at while the
// variable's value is an ordinary user name or port (internal/agenttest
// TestGeminiMCPURLVarOutsideHost), and it is listed (endpointHost); but
// the value is the host's environment's, not the bundle's, and one
// holding '/', '\', '?', '#' or '@' ends the user information or the
// port early, so the url names another host: "https://${U}@h.example/"
// with U set to "evil.example/#" is https://evil.example/. The review
// says so (review's run_time_hosts, with the host written), where it
// named no variable.
func MCPURLAuthorityVar(s string, hosts []Host) (ref string, expandedBy []Host) {
	if r, _ := MCPURLHostVar(s, hosts); r != "" {
		return "", nil
	}
	if len(hosts) == 0 {
		hosts = []Host{HostClaude, HostCodex, HostGemini}
	}
	colon := strings.IndexByte(s, ':')
	if colon < 0 {
		return "", nil
	}
	auth := colon + 1
	for auth < len(s) && isSlash(s[auth]) {
		auth++
	}
	end := len(s)
	if i := strings.IndexAny(s[auth:], `/\?#`); i >= 0 {
		end = auth + i
	}
	in := func(re *regexp.Regexp) string {
		for _, loc := range re.FindAllStringIndex(s, -1) {
			if loc[0] >= auth && loc[0] < end {
				return s[loc[0]:loc[1]]
			}
		}
		return ""
	}
	if ref := in(braceRef()); ref != "" {
		expandedBy = slices.DeleteFunc(slices.Clone(hosts), func(h Host) bool { return h == HostCodex })
		if len(expandedBy) > 0 {
			return ref, expandedBy
		}
	}
	if slices.Contains(hosts, HostGemini) {
		if ref := in(geminiRef()); ref != "" {
			return ref, []Host{HostGemini}
		}
	}
	return "", nil
}

// MCPURLWrittenHost is the host remote MCP url s names as written
// (endpointHost), "" when it names none.
func MCPURLWrittenHost(s string) string {
	h, msg := endpointHost(s)
	if msg != "" {
		return ""
	}
	return h
}
