package bundle

import (
	"net/netip"
	"strings"
	"unicode/utf8"

	"github.com/bundlectl/bundlectl/internal/jsspace"
)

// This file reads a url as JavaScript's URL does: the WHATWG URL
// Standard's parser, which node (Gemini CLI) and Bun (Claude Code) both
// implement. Claude Code's hooks schema takes an http hook's url only when
// that parser does, and reads an IP literal in the forms it accepts
// ("0xa9fea9fe", "10.1"). Only what decides whether a url parses, and
// which address a host names, is here: the rest of a url (its path, query
// and fragment) never makes the parser fail.
//
// Go's url.Parse refuses a host that percent-escapes an ASCII character
// ("c%41.example.com"), which this parser decodes: JSURLDecodedHost
// writes such a url's host decoded for the url rules, the address checks
// and bundlectl's own post.
//
// What is left out: IDNA (UTS #46) beyond ASCII and the fullwidth forms.
// A host that still holds another non-ASCII character after percent-
// decoding, or an ASCII label starting "xn--" (Punycode, whose decoded
// characters IDNA's tables judge), is not judged: jsURLRefuses passes it,
// and the url rules vet it as written (one not ASCII they refuse:
// endpointHost, msgNonASCIIHost). Bun, whose URL Claude Code runs,
// refuses some "xn--" labels node takes ("http://xn--a-/"). IDNA is not
// modelled on purpose: golang.org/x/net/idna is not a dependency, and its
// Unicode tables, node's ICU and Bun's need not agree on every character,
// where refusing is certain; TestEndpointHostIsNodes holds the refusal to
// node 20's mapping on a table of such hosts.
//
// For the same reason the review shows an "xn--" label as written, never
// decoded to the Unicode it encodes (JSURLPostURL keeps it): the ASCII
// form is the one a reviewer can compare letter by letter, where a
// decoded one can hide a look-alike.

// jsURLRefuses reports whether JavaScript's URL (the WHATWG URL parser,
// which Claude Code's hooks schema applies to an http hook's url) refuses
// s: once tabs and line breaks are removed and leading and trailing
// controls and spaces trimmed, s has no scheme (a relative URL, and there
// is no base), or its authority fails: a special scheme (http, https, ws,
// wss, ftp) with no host ("http://", "https://user@/x", "http://:80"), a
// port that is no number up to 65535, or a host the WHATWG host parser
// refuses (jsHostRefuses: "http://bc3e.9/", whose last label is a number
// so the host is read as an IPv4 address, which it is not; "http://c%/";
// "[fe80::1%25eth0]", a zone, which Go's url.Parse takes). A file url's
// host and a non-special url's opaque host are held to their own rules.
// It answers only certain cases; a url it passes may still fail to parse
// (IDNA, above), and is then vetted by the url rules as written (a
// guard's refuses the bundle).
func jsURLRefuses(s string) bool {
	s = jsURLInput(s)
	i := strings.IndexByte(s, ':')
	if i <= 0 || !isASCIIAlpha(s[0]) {
		return true
	}
	for _, c := range []byte(s[1:i]) {
		if !isASCIIAlpha(c) && (c < '0' || c > '9') && c != '+' && c != '-' && c != '.' {
			return true
		}
	}
	rest := s[i+1:]
	switch strings.ToLower(s[:i]) {
	case "http", "https", "ws", "wss", "ftp":
		// Any run of slashes and backslashes leads to the authority,
		// none too ("http:host").
		return jsAuthorityRefuses(strings.TrimLeft(rest, `/\`), true)
	case "file":
		return jsFileHostRefuses(rest)
	}
	if strings.HasPrefix(rest, "//") {
		return jsAuthorityRefuses(rest[2:], false)
	}
	return false // a path: "mailto:a@b", "data:,x"
}

// JSURLRefuses is jsURLRefuses for hosts/claude, whose settings schema
// model holds a settings file's http hook url to the same parser.
func JSURLRefuses(s string) bool { return jsURLRefuses(s) }

// jsURLInput is s as the WHATWG URL parser starts on it: every tab and
// line break removed, and leading and trailing C0 controls and spaces.
func jsURLInput(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	return strings.TrimFunc(s, func(r rune) bool { return r <= 0x20 })
}

// ClaudeURLTrim is s as Claude Code (2.1.332) hands an http hook's url
// to JavaScript's URL: trimmed by String.prototype.trim, which takes off
// white space (jsspace.Is: U+00A0, U+FEFF, U+3000, line breaks, …) and not
// the other C0 controls. The parser then removes every tab and line break
// and strips leading and trailing C0 controls and spaces (jsURLInput), in
// that order: "\u00a0https://h/" posts to h, "\u0001\u00a0https://h/"
// is no URL (the trim stops at U+0001, and the parser is left with
// "\u00a0https:"), as the real CLI has it (testdata/jsurl/
// claude_trim.json, internal/agenttest TestClaudeHTTPHookURLTrim).
// hosts/claude's settings model trims a settings file's hook url the same
// way.
func ClaudeURLTrim(s string) string { return strings.TrimFunc(s, jsspace.Is) }

// claudeURLRefuses is jsURLRefuses of an http hook's url as Claude Code
// hands it to JavaScript's URL (ClaudeURLTrim).
func claudeURLRefuses(s string) bool { return jsURLRefuses(ClaudeURLTrim(s)) }

// jsAuthorityRefuses reports whether the WHATWG parser fails on the
// authority that starts auth (it ends at the path, query or fragment):
// userinfo up to the last '@', then a host, then a port. A special
// scheme's host is a domain or IP address (jsHostRefuses) and may not be
// empty; another scheme's is opaque (jsOpaqueHostRefuses).
func jsAuthorityRefuses(auth string, special bool) bool {
	ends := "/?#"
	if special {
		ends += `\`
	}
	if end := strings.IndexAny(auth, ends); end >= 0 {
		auth = auth[:end]
	}
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		auth = auth[at+1:]
		if auth == "" {
			return true // "http://user@/": credentials and no host
		}
	}
	// The host ends at the first ':' outside brackets (WHATWG's host
	// state): "http://[::1:80/" has host "[::1:80" and no port.
	host, port, hasPort := auth, "", false
	inBrackets := false
	for j := 0; j < len(auth); j++ {
		if auth[j] == '[' {
			inBrackets = true
		} else if auth[j] == ']' {
			inBrackets = false
		} else if auth[j] == ':' && !inBrackets {
			host, port, hasPort = auth[:j], auth[j+1:], true
			break
		}
	}
	// A port is ASCII digits up to 65535: "http://h:80${X}/" fails to
	// parse, as Claude Code 2.1.332 expands no variable in a url
	// (internal/agenttest TestClaudeHTTPHookURLVarsAndWebSocket).
	if !jsPort(port) {
		return true
	}
	switch {
	case host == "":
		// "http://", "http://:80", "foo://:80"; "foo:///x" has an
		// empty host, which a non-special url may.
		return special || hasPort
	case special:
		return jsHostRefuses(host)
	}
	return jsOpaqueHostRefuses(host)
}

// jsPort reports whether p is a port WHATWG takes: empty, or ASCII digits
// whose value is at most 65535 (leading zeros allowed).
func jsPort(p string) bool {
	v := 0
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
		if v = v*10 + int(p[i]-'0'); v > 65535 {
			return false
		}
	}
	return true
}

// jsFileHostRefuses reports whether the WHATWG parser fails on the host of
// a file url, rest being what follows "file:". Only a url that starts
// with two slashes or backslashes has one; it holds no userinfo and no
// port, a Windows drive letter there ("file://C:/") is a path, and an
// empty host is the local machine.
func jsFileHostRefuses(rest string) bool {
	if len(rest) < 2 || !isSlash(rest[0]) || !isSlash(rest[1]) {
		return false
	}
	host := rest[2:]
	if end := strings.IndexAny(host, `/\?#`); end >= 0 {
		host = host[:end]
	}
	if host == "" || len(host) == 2 && isASCIIAlpha(host[0]) && (host[1] == ':' || host[1] == '|') {
		return false
	}
	return jsHostRefuses(host)
}

func isSlash(c byte) bool { return c == '/' || c == '\\' }

// jsOpaqueHostRefuses reports whether the WHATWG opaque-host parser (a
// url whose scheme is not special, "foo://host/") fails on h: an IPv6
// literal in brackets it does not take, or a forbidden host code point
// outside them. Anything else, '%' and non-ASCII included, is kept
// percent-encoded.
func jsOpaqueHostRefuses(h string) bool {
	if strings.HasPrefix(h, "[") {
		return !strings.HasSuffix(h, "]") || !whatwgIPv6(h[1:len(h)-1])
	}
	return strings.ContainsFunc(h, func(r rune) bool { return r < utf8.RuneSelf && jsForbiddenHost(byte(r)) })
}

// jsHostRefuses reports whether the WHATWG host parser, for a special
// scheme, fails on h as written in the url. In its order:
//
//   - in brackets, h must be an IPv6 address as WHATWG's IPv6 parser
//     takes it: no zone ("[fe80::1%25eth0]"), no IPvFuture ("[v1.x]");
//   - h is percent-decoded ("c%41" is "ca"; a '%' not followed by two hex
//     digits stays) and read as UTF-8, a byte that is not becoming U+FFFD,
//     which IDNA refuses ("%FF");
//   - IDNA maps it: ASCII letters to lowercase, the fullwidth forms
//     (U+FF01–U+FF5E) to ASCII, the ideographic full stops to '.';
//   - a forbidden domain code point fails it: C0 controls, space, '#',
//     '%', '/', ':', '<', '>', '?', '@', '[', '\', ']', '^', '|', DEL
//     ("c%", "a%2Fb", "a b");
//   - a host whose last label (a trailing dot dropped) is a number —
//     ASCII digits, or "0x" and hex digits — is an IPv4 address, and
//     fails when it is not one (whatwgIPv4: "bc3e.9", "1.2.3.256",
//     "a.0x", "08").
//
// A host that keeps another non-ASCII character is not judged (false):
// its IDNA mapping is left out (see the top of this file).
func jsHostRefuses(h string) bool {
	if strings.HasPrefix(h, "[") {
		return !strings.HasSuffix(h, "]") || !whatwgIPv6(h[1:len(h)-1])
	}
	d := percentDecode(h)
	if !utf8.ValidString(d) || strings.ContainsRune(d, utf8.RuneError) {
		return true
	}
	d = idnaFoldASCII(d)
	ascii := true
	for i := 0; i < len(d); i++ {
		if d[i] >= utf8.RuneSelf {
			ascii = false
		} else if jsForbiddenDomain(d[i]) {
			return true
		}
	}
	if !ascii {
		return false
	}
	if jsEndsInNumber(d) {
		_, ok := whatwgIPv4(d)
		return !ok
	}
	return false
}

// percentDecode decodes every '%' followed by two hex digits; any other
// '%' stays as it is, as WHATWG's percent-decode has it.
func percentDecode(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHexDigit(s[i+1]) && isHexDigit(s[i+2]) {
			b = append(b, hexVal(s[i+1])<<4|hexVal(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

func hexVal(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// idnaFoldASCII is the part of IDNA's (UTS #46) mapping that ends in
// ASCII: ASCII letters lowercased, a fullwidth form (U+FF01–U+FF5E) as
// its ASCII character (a letter lowercased: "ＣＯＭ" is "com", "／" is
// '/'), and the ideographic full stops U+3002 and U+FF61 as '.'. Other
// characters are kept.
func idnaFoldASCII(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 0xFF01 && r <= 0xFF5E:
			r -= 0xFEE0
		case r == 0x3002 || r == 0xFF61:
			r = '.'
		}
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r
	}, s)
}

// jsForbiddenHost reports whether c is a forbidden host code point: one no
// host of any url may hold.
func jsForbiddenHost(c byte) bool {
	switch c {
	case 0, '\t', '\n', '\r', ' ', '#', '/', ':', '<', '>', '?', '@', '[', '\\', ']', '^', '|':
		return true
	}
	return false
}

// jsForbiddenDomain reports whether c is a forbidden domain code point:
// the forbidden host code points, C0 controls, '%' and DEL.
func jsForbiddenDomain(c byte) bool {
	return jsForbiddenHost(c) || c < 0x20 || c == '%' || c == 0x7F
}

// jsEndsInNumber is WHATWG's "ends in a number": the last label of d (a
// trailing empty label dropped, unless it is the only one) is ASCII
// digits, or an IPv4 number in another form ("0x1f", "0x").
func jsEndsInNumber(d string) bool {
	labels := strings.Split(d, ".")
	if labels[len(labels)-1] == "" {
		if len(labels) == 1 {
			return false
		}
		labels = labels[:len(labels)-1]
	}
	last := labels[len(labels)-1]
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	_, ok := ipv4Number(last)
	return ok
}

// whatwgIPv4 is the IPv4 address WHATWG's IPv4 parser reads d as (d
// lowercase ASCII), and whether it reads one: one to four numbers
// separated by dots (a trailing dot dropped), each decimal, octal with a
// leading 0, or hex after "0x"; each but the last at most 255, the last
// filling the bytes left ("10.1" is 10.0.0.1, "167772161" 10.0.0.1).
func whatwgIPv4(d string) (netip.Addr, bool) {
	parts := strings.Split(d, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for i, p := range parts {
		n, ok := ipv4Number(p)
		if !ok {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if n > 255 {
				return netip.Addr{}, false
			}
			v |= n << (8 * (3 - i))
			continue
		}
		if n >= 1<<(8*(5-len(parts))) {
			return netip.Addr{}, false
		}
		v |= n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// ipv4Number is WHATWG's IPv4 number parser on lowercase p: decimal, octal
// after a leading "0", hex after "0x" ("0x" alone is 0); "" fails. A
// value past 2^32, which no part of an address may hold, is capped there.
func ipv4Number(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := uint64(10)
	switch {
	case len(p) >= 2 && p[:2] == "0x":
		base, p = 16, p[2:]
	case len(p) >= 2 && p[0] == '0':
		base, p = 8, p[1:]
	}
	var n uint64
	for i := 0; i < len(p); i++ {
		var d uint64
		switch c := p[i]; {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		if n = n*base + d; n > 1<<32 {
			n = 1<<32 + 1
		}
	}
	return n, true
}

// whatwgIPv6 reports whether the WHATWG URL Standard's IPv6 parser (the
// one JavaScript's URL applies between a host's brackets) takes s.
func whatwgIPv6(s string) bool {
	pieces, compress, p := 0, -1, 0
	at := func(i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	if at(0) == ':' {
		if at(1) != ':' {
			return false
		}
		p, pieces, compress = 2, 1, 1
	}
	for p < len(s) {
		if pieces == 8 {
			return false
		}
		if s[p] == ':' {
			if compress >= 0 {
				return false
			}
			p++
			pieces++
			compress = pieces
			continue
		}
		n := 0
		for n < 4 && isHexDigit(at(p)) {
			p++
			n++
		}
		switch at(p) {
		case '.':
			// A dotted IPv4 address: four decimal numbers up to
			// 255, without leading zeros, taking the last two pieces.
			if n == 0 || pieces > 6 {
				return false
			}
			p -= n
			for seen := 0; seen < 4; seen++ {
				if seen > 0 {
					if at(p) != '.' {
						return false
					}
					p++
				}
				start, v := p, 0
				for at(p) >= '0' && at(p) <= '9' {
					if p > start && v == 0 {
						return false
					}
					v = v*10 + int(s[p]-'0')
					if v > 255 {
						return false
					}
					p++
				}
				if p == start {
					return false
				}
			}
			if p != len(s) {
				return false
			}
			pieces += 2
			return compress >= 0 || pieces == 8
		case ':':
			p++
			if p == len(s) {
				return false
			}
		case 0:
			if p != len(s) {
				return false
			}
		default:
			return false
		}
		pieces++
	}
	return compress >= 0 || pieces == 8
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isASCIIAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// JSURLDecodedHost is s with the host of its authority percent-decoded,
// as JavaScript's URL decodes it, when s escapes a character there
// ("https://c%41.example.com/" is https://ca.example.com/, and
// "https://1%30.0.0.5/" the IP literal 10.0.0.5), and s as it is
// otherwise. Go's url.Parse refuses an escaped ASCII character in a host,
// where Claude Code (its hooks schema, and the request it posts), Gemini
// CLI and Codex (the WHATWG parser of Rust's url crate) read it decoded:
// so the url rules, the address checks and bundlectl's own post read the
// host the agent connects to. Only the host is rewritten, decoded and
// lowercased (an IPv4 address in another form, "10.1", is then read as
// one written so is: JSURLIPHost); the rest of s stays as written. A host
// that decodes to a character other than ASCII is written out in it, for
// the url rules to refuse (msgNonASCIIHost), as bundlectl computes no
// IDNA. A url the parser would first trim or strip of tabs is left as it
// is: Go refuses it anyway.
func JSURLDecodedHost(s string) string {
	in, start, end, ok := jsSpecialHostSpan(s)
	if !ok || in != s {
		return s
	}
	host := in[start:end]
	if !strings.Contains(host, "%") || strings.HasPrefix(host, "[") {
		return s
	}
	return in[:start] + strings.ToLower(percentDecode(host)) + in[end:]
}

// jsSpecialHostSpan is s as the WHATWG parser starts on it (jsURLInput)
// and where in it the host of a special url's authority starts and ends,
// false when JavaScript's URL refuses s or it is no special url.
func jsSpecialHostSpan(s string) (string, int, int, bool) {
	if jsURLRefuses(s) {
		return "", 0, 0, false
	}
	in := jsURLInput(s)
	colon := strings.IndexByte(in, ':')
	switch strings.ToLower(in[:colon]) {
	case "http", "https", "ws", "wss", "ftp":
	default:
		return "", 0, 0, false
	}
	start, end := urlHostSpan(in, colon)
	return in, start, end, true
}
