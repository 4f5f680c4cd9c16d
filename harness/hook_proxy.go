package harness

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
)

// claudeProxyVars are the variables Claude Code 2.1.332 takes an http
// hook's proxy from, in the order it reads them: the first one set
// names the proxy for every hook url, http:// and https:// alike
// (internal/agenttest TestClaudeHTTPHookProxyChoice). ALL_PROXY is not
// read. Go's rule (http.ProxyFromEnvironment: HTTP_PROXY for http urls,
// HTTPS_PROXY for https, upper case first) sent hooks elsewhere.
var claudeProxyVars = []string{"https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY"}

// hookProxyError is a proxy setting Claude Code's choice cannot be
// reproduced from safely: the hook fails and nothing is posted.
type hookProxyError struct {
	Var, Value, Why string
}

func (e *hookProxyError) Error() string {
	return fmt.Sprintf("http hook: %s=%s %s, so nothing is posted; %s", e.Var, bundle.Quote(redactedProxy(e.Value)), e.Why, e.fix())
}

// fix is the hint: the export of the value Claude Code 2.1.332 was seen
// to read the setting as (proxyFix), which works as printed, or, for
// another setting or one holding user information (never echoed), what
// to set it to.
func (e *hookProxyError) fix() string {
	if v := proxyFix(e.Value); v != "" && !strings.Contains(v, "@") {
		return "to use the proxy Claude Code uses: export " + e.Var + "=" + bundle.ShellArg(v)
	}
	return "set it to the proxy's http:// or https:// url with its port: export " + e.Var + "=http://host:port"
}

// proxyFix is the url of the proxy Claude Code 2.1.332 posts through for
// a setting bundlectl does not read (internal/agenttest
// TestClaudeHTTPHookProxyOtherForms): one with spaces around it (" http:
// //127.0.0.1:3128" is that proxy), or a host:port with no scheme and a
// path ("localhost:3128/" is http://localhost:3128); "" for another.
func proxyFix(value string) string {
	if t := strings.Trim(value, " "); t != value {
		if _, why := claudeProxyURL(t); why == "" {
			return t
		}
		return ""
	}
	if hp, _, ok := strings.Cut(value, "/"); ok && hp != "" {
		if host, port, err := net.SplitHostPort(hp); err == nil && isDecimal(port) && proxyHostName(host) && !jsReadsOtherwise(host) {
			return "http://" + hp
		}
	}
	return ""
}

// redactedProxy is a proxy setting with its user information hidden,
// also in a form url.Parse reads no user information in
// ("u:pw@proxy.example:3128"): a credential goes in no message.
func redactedProxy(v string) string {
	if i := strings.LastIndex(v, "@"); i >= 0 {
		scheme, _, ok := strings.Cut(v[:i], "://")
		if !ok {
			return "***" + v[i:]
		}
		return scheme + "://***" + v[i:]
	}
	return v
}

// claudeHookProxy is the proxy Claude Code 2.1.332 posts req through,
// read from getenv, or nil when it posts directly: the first variable of
// claudeProxyVars set, unless NO_PROXY / no_proxy name req's host. It
// speaks to every proxy as to an http one (CONNECT in the clear, TLS to
// an https:// one): a host:port with no scheme, and a socks url, get
// "CONNECT host:port" in the clear, as tried (claudeProxyURL). A setting of another form,
// whose reading was not tried, and a proxy at a link-local or metadata
// address Claude Code refuses, are errors: nothing is posted.
func claudeHookProxy(getenv func(string) string, req *http.Request) (*url.URL, error) {
	name, value := firstSet(getenv, claudeProxyVars)
	if name == "" || claudeNoProxy(getenv, req.URL) {
		return nil, nil
	}
	p, why := claudeProxyURL(value)
	if why != "" {
		return nil, &hookProxyError{name, value, why}
	}
	if a, ok := bundle.JSURLIPHost(p.Hostname()); ok && bundle.ClaudeHTTPRefusedAddr(a, true) != "" {
		return nil, &hookProxyError{name, value, "is at a link-local, cloud metadata or reserved address, to which Claude Code posts no http hook"}
	}
	if strings.HasPrefix(p.Host, "[") {
		if a, ok := bundle.JSURLIPHost("[" + p.Hostname() + "]"); ok && bundle.ClaudeHTTPRefusedAddr(a, true) != "" {
			return nil, &hookProxyError{name, value, "is at a link-local, cloud metadata or reserved address, to which Claude Code posts no http hook"}
		}
	}
	return p, nil
}

// claudeProxyURL is the proxy value names as Claude Code 2.1.332 speaks
// to it, or why bundlectl does not reproduce it. As tried with the real
// CLI (internal/agenttest TestClaudeHTTPHookProxyChoice): a host:port
// with no scheme, an IP ("127.0.0.1:3128") or a name ("proxy.example:
// 3128"), is an http proxy there; a socks4://, socks5:// or socks5h://
// url gets an http CONNECT in the clear, not the socks handshake; a url
// with no port is at its scheme's (connectDialer). Another form (no
// port and no scheme, "//host:port", another scheme) is refused, and so
// is a host:port whose host Claude Code refuses (jsReadsOtherwise), and
// a setting with spaces around it or a host:port with a path, which
// Claude Code reads (proxyFix) but bundlectl does not: the refusal's
// hint exports the proxy Claude Code used.
func claudeProxyURL(value string) (*url.URL, string) {
	if strings.Trim(value, " ") != value {
		return nil, "has spaces around it" // Claude Code 2.1.332 trims a leading one; the message stays short enough to show whole
	}
	if host, port, err := net.SplitHostPort(value); err == nil && isDecimal(port) && proxyHostName(host) {
		if jsReadsOtherwise(host) {
			return nil, "is a host:port whose host JavaScript's URL reads as another name or address, which Claude Code 2.1.332 refuses as a proxy (\"Invalid proxy URL\": it does not start)"
		}
		return &url.URL{Scheme: "http", Host: value}, ""
	}
	if proxyFix(value) != "" {
		return nil, "has a path after host:port" // Claude Code 2.1.332 reads http://host:port
	}
	p, err := url.Parse(value)
	if err != nil || p.Scheme == "" || p.Host == "" || p.Opaque != "" {
		return nil, "is not an http:// or https:// url with a host, and how Claude Code reads it was not tried"
	}
	switch p.Scheme {
	case "http", "https":
	case "socks4", "socks5", "socks5h":
		p.Scheme = "http"
	default:
		return nil, fmt.Sprintf("names a %s proxy, and how Claude Code speaks to it was not tried", bundle.Quote(p.Scheme))
	}
	return p, ""
}

// proxyHostName reports whether host, of a proxy setting with no scheme,
// is an IP address or a DNS name (letters, digits, '-' and '.'): nothing
// a url would read otherwise ("u:pw@proxy", "//proxy").
func proxyHostName(host string) bool {
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	return host != "" && strings.Trim(strings.ToLower(host), "abcdefghijklmnopqrstuvwxyz0123456789-.") == ""
}

// jsReadsOtherwise reports whether host, a DNS-name-looking host of a
// proxy setting with no scheme, is one real Claude Code 2.1.332 refuses
// ("Invalid proxy URL … cannot be parsed as a URL", and it does not
// start; internal/agenttest TestClaudeHTTPHookProxyChoice): one
// JavaScript's URL reads as an IPv4 address in another form ("127.1",
// "0x7f000001", "0177.0.0.1"), or a name with an empty label
// ("localhost."). Go's resolver would look such a name up instead, and
// hooks run would post through a proxy Claude Code never uses.
func jsReadsOtherwise(host string) bool {
	if _, err := netip.ParseAddr(host); err == nil {
		return false
	}
	if _, ok := bundle.JSURLIPHost(host); ok {
		return true
	}
	return slices.Contains(strings.Split(host, "."), "")
}

// isDecimal reports whether s is a non-empty run of ASCII digits.
func isDecimal(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// firstSet is the first of names getenv gives a non-empty value, and
// that value; an empty variable counts as unset, as in Claude Code.
func firstSet(getenv func(string) string, names []string) (string, string) {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return n, v
		}
	}
	return "", ""
}

// claudeNoProxy reports whether Claude Code 2.1.332 posts to u past its
// proxy: no_proxy and NO_PROXY are read together (either "*" is every
// host), lowercased and split at commas and white space; an entry with a
// ':' matches host:port (the scheme's default port when u has none,
// "[::1]:80" for IPv6), one starting '.' the host itself and any name
// ending in it, any other the host exactly. There is no "*.example"
// wildcard, no CIDR range and no IP matching beyond the text.
func claudeNoProxy(getenv func(string) string, u *url.URL) bool {
	lower, upper := getenv("no_proxy"), getenv("NO_PROXY")
	if lower == "*" || upper == "*" {
		return true
	}
	list := lower
	switch {
	case lower != "" && upper != "" && lower != upper:
		list = lower + "," + upper
	case lower == "":
		list = upper
	}
	host := strings.ToLower(u.Hostname())
	if strings.HasPrefix(u.Host, "[") {
		host = "[" + host + "]"
	}
	port := u.Port()
	if port == "" {
		port = map[bool]string{true: "443", false: "80"}[u.Scheme == "https"]
	}
	for _, e := range strings.FieldsFunc(strings.ToLower(list), func(r rune) bool { return r == ',' || isJSRegexpSpace(r) }) {
		switch {
		case strings.Contains(e, ":"):
			if e == host+":"+port {
				return true
			}
		case strings.HasPrefix(e, "."):
			if host == e[1:] || strings.HasSuffix(host, e) {
				return true
			}
		case e == host:
			return true
		}
	}
	return false
}

// isJSRegexpSpace is JavaScript's \s, which Claude Code splits the
// NO_PROXY list at.
func isJSRegexpSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// hookProxyEnv reads the proxy variables from bundlectl's environment.
var hookProxyEnv = os.Getenv

// tunnelTransportFor posts req through a CONNECT tunnel of proxy, http
// and https urls alike, as Claude Code 2.1.332 does ("CONNECT
// plain.example:80" for an http url, where Go's transport sends a proxy
// in the clear the url in absolute form); inside the tunnel the request
// line is in origin form, a "//" path rewritten as directTransportFor
// rewrites it.
func tunnelTransportFor(base *http.Transport, req *http.Request, proxy *url.URL) http.RoundTripper {
	tunnel := base.Clone()
	tunnel.Proxy = nil
	tunnel.DialContext = connectDialer(base, proxy)
	return originFormFor(tunnel, req)
}
