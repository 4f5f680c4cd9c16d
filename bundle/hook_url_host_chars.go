package bundle

import (
	"fmt"
	"strings"
)

// jsOnlyHostChars is why a url whose host holds '{', '}' or '`' is
// refused, or "": the WHATWG URL parser takes those characters in a host
// (none is a forbidden host code point), where Go's url parser refuses
// them. Claude Code 2.1.332 posts an http hook so written: through a
// proxy it asks for "CONNECT a{b.example:443" (internal/agenttest
// TestClaudeHTTPHookURLTrim). No DNS host name holds such a character, and bundlectl judges, lists and posts to none: a guard so
// written still refuses the bundle (fail closed), and the message says
// why and what to write instead.
func jsOnlyHostChars(raw string) string {
	in, start, end, ok := jsSpecialHostSpan(raw)
	if !ok {
		return ""
	}
	host := in[start:end]
	i := strings.IndexAny(host, "{}`")
	if i < 0 {
		return ""
	}
	return fmt.Sprintf("names the host %s, which holds %q: JavaScript's URL takes it and Claude Code posts to it as written, but it is no DNS name and Go's url parser refuses it, so bundlectl neither judges nor posts to it; write the host as a DNS name (letters, digits, '-' and '.') or an IP address", Quote(host), host[i:i+1])
}
