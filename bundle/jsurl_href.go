package bundle

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSURLPostURL is s as the url Claude Code posts to: s as JavaScript's
// URL writes it back (its href), which is where, and with which request
// line, the request goes. Once trimmed as Claude Code trims it
// (ClaudeURLTrim), tabs and line breaks are removed and
// leading and trailing controls and spaces trimmed, its scheme is
// lowercased; its user information percent-encoded ("${X}@" is
// "$%7BX%7D@", an empty password dropped); its host decoded
// (JSURLDecodedHost), lowercased, an IPv4 address in another form
// ("0x7f.1") written in dotted decimal and an IPv6 one compressed; the
// scheme's default port dropped ("https://h:443/" is https://h/); its path
// resolved (jsResolvePath: a backslash read as '/', the dot segments
// removed) and encoded (jsEncodePath: '|' kept, '^', '`' and '{'
// escaped, escapes as written, "%zz" too); and its query encoded
// (jsEncodeQuery). The fragment stays as written (no request carries
// it). A url JavaScript's URL refuses, or that is not special, is s.
//
// Each of these was held to node 20's new URL(s).href on
// testdata/jsurl/post_node20.json, which holds every code point up to
// U+00FF in a path and a query (TestJSURLPostURLIsNodes), but for '^' in
// a path, which Claude Code 2.1.332 escapes and node 20 keeps; and the
// path and query to Claude Code's own post of every such code point
// (internal/agenttest TestClaudeHTTPHookURLBytes).
func JSURLPostURL(s string) string {
	origin, path, query, fragment, ok := jsHref(ClaudeURLTrim(s))
	if !ok {
		return s
	}
	return origin + path + query + fragment
}

// JSURLRequestTarget is the url Claude Code posts to (JSURLPostURL) in
// the parts a request is made of: its origin (scheme, user information,
// host and port), its path and its query (from its '?', "" when there is
// none), false when JavaScript's URL refuses s or it is no special url.
// The path and query are the bytes the request line carries, which Go's
// url package would write otherwise ('|' and a single quote escaped in a
// path, and the whole path decoded and escaped again when it escapes one).
func JSURLRequestTarget(s string) (origin, path, query string, ok bool) {
	origin, path, query, _, ok = jsHref(ClaudeURLTrim(s))
	return origin, path, query, ok
}

// jsHref is s as JavaScript's URL writes it back (see JSURLPostURL), in
// parts: origin, path, query (from its '?') and fragment as written
// (from its '#'); false when JavaScript's URL refuses s or it is no
// special url.
func jsHref(s string) (origin, path, query, fragment string, ok bool) {
	in, hostStart, hostEnd, ok := jsSpecialHostSpan(s)
	if !ok {
		return "", "", "", "", false
	}
	colon := strings.IndexByte(in, ':')
	scheme := strings.ToLower(in[:colon])
	authStart := colon + 1
	for authStart < len(in) && isSlash(in[authStart]) {
		authStart++
	}
	rest := in[hostEnd:]
	pathStart := len(rest)
	if i := strings.IndexAny(rest, `/\?#`); i >= 0 {
		pathStart = i
	}
	port := strings.TrimPrefix(rest[:pathStart], ":")
	rest = rest[pathStart:]
	pathEnd := len(rest)
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		pathEnd = i
	}
	query = rest[pathEnd:]
	if i := strings.IndexByte(query, '#'); i >= 0 {
		query, fragment = query[:i], query[i:]
	}
	path = rest[:pathEnd]
	if path == "" {
		path = "/"
	}
	origin = scheme + "://" + jsUserinfo(in[authStart:hostStart]) + jsSerializeHost(in[hostStart:hostEnd]) + jsSerializePort(scheme, port)
	return origin, jsEncodePath(jsResolvePath(path)), jsEncodeQuery(query), fragment, true
}

// jsUserinfo is a special url's user information as written (what comes
// before the last '@' of the authority, with it; "" when there is none)
// as JavaScript's URL writes it back: user and password, split at the
// first ':', each encoded (jsUserinfoEscape), the password and its ':'
// dropped when empty, and the whole dropped when both are.
func jsUserinfo(ui string) string {
	if ui == "" {
		return ""
	}
	user, pass, _ := strings.Cut(strings.TrimSuffix(ui, "@"), ":")
	out := jsEscape(user, jsUserinfoEscape)
	if pass != "" {
		out += ":" + jsEscape(pass, jsUserinfoEscape)
	}
	if out == "" {
		return ""
	}
	return out + "@"
}

// jsSerializeHost is h, a special url's host as written, as JavaScript's
// URL writes it: percent-decoded and lowercased, an IPv4 address in any
// form it reads ("10.1", "0x7f.1") in dotted decimal, an IPv6 address in
// its compressed form. A host that keeps a character other than ASCII is
// decoded only (bundlectl computes no IDNA; the url rules refuse it).
func jsSerializeHost(h string) string {
	if strings.HasPrefix(h, "[") {
		if a, ok := JSURLIPHost(h); ok {
			return "[" + whatwgIPv6String(a) + "]"
		}
		return strings.ToLower(h)
	}
	d := percentDecode(h)
	if !isASCII(d) {
		return d
	}
	d = strings.ToLower(d)
	if jsEndsInNumber(d) {
		if a, ok := whatwgIPv4(d); ok {
			return a.String()
		}
	}
	return d
}

// whatwgIPv6String is a as the URL Standard serializes an IPv6 address:
// eight lowercase hex pieces without leading zeros, the first longest run
// of two or more zero pieces written "::". Unlike netip's, it never
// writes an IPv4 address in it ("::ffff:1.2.3.4" is "::ffff:102:304").
func whatwgIPv6String(a netip.Addr) string {
	b := a.As16()
	var pieces [8]uint16
	for i := range pieces {
		pieces[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	start, length := -1, 1
	for i := 0; i < 8; {
		j := i
		for j < 8 && pieces[j] == 0 {
			j++
		}
		if j-i > length {
			start, length = i, j-i
		}
		i = j + 1
	}
	var out strings.Builder
	for i := 0; i < 8; i++ {
		if i == start {
			out.WriteString("::")
			i += length - 1
			continue
		}
		if i > 0 && i != start+length {
			out.WriteByte(':')
		}
		out.WriteString(strconv.FormatUint(uint64(pieces[i]), 16))
	}
	return out.String()
}

// jsSerializePort is a special url's port as written (digits, which
// jsURLRefuses checked; "" when none or empty) as JavaScript's URL writes
// it: ":" and its value, nothing when it is the scheme's default.
func jsSerializePort(scheme, port string) string {
	if port == "" {
		return ""
	}
	v, err := strconv.Atoi(port)
	if err != nil {
		return ":" + port // not reached: jsPort took it
	}
	if def := map[string]int{"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}[scheme]; v == def {
		return ""
	}
	return ":" + strconv.Itoa(v)
}

// jsEncodePath is a special url's resolved path as Claude Code's URL
// writes it: a control, space, '"', '<', '>', '^', '`', '{', '}', DEL and
// every character past ASCII (as its UTF-8 bytes) percent-encoded, the
// rest — '|', a single quote, and '%' whether or not an escape follows —
// as written. That is node 20's URL but for '^', which Claude Code
// 2.1.332 (Bun's URL) escapes in a path and node 20's keeps
// (internal/agenttest TestClaudeHTTPHookURLBytes, every code point up to
// U+00FF). Go's url package escapes '|' and a single quote too, and
// decodes and re-encodes the whole path when it does ("%41" sent as "A").
func jsEncodePath(p string) string {
	return jsEscape(p, func(c byte) bool {
		switch c {
		case ' ', '"', '#', '<', '>', '?', '^', '`', '{', '}':
			return true
		}
		return c < 0x20 || c >= 0x7F
	})
}

// jsUserinfoEscape is the URL Standard's userinfo percent-encode set: the
// path's (jsEncodePath) and '/', ':', ';', '=', '@', '[', '\', ']', '^',
// '|'.
func jsUserinfoEscape(c byte) bool {
	switch c {
	case ' ', '"', '#', '<', '>', '?', '`', '{', '}', '/', ':', ';', '=', '@', '[', '\\', ']', '^', '|':
		return true
	}
	return c < 0x20 || c >= 0x7F
}

// jsEncodeQuery is the query q of a special url (from its '?') as
// JavaScript's URL writes it: a control, space, a double or single
// quote, '<', '>', DEL and every byte past ASCII percent-encoded, the
// rest, escapes included, as written. Go's client sends a query as
// written, and a space in it breaks the request line: the hook failed
// where Claude Code posts.
func jsEncodeQuery(q string) string {
	return jsEscape(q, func(c byte) bool {
		switch c {
		case ' ', '"', '#', '\'', '<', '>':
			return true
		}
		return c < 0x20 || c >= 0x7F
	})
}

// jsEscape percent-encodes each byte of s that escape names, as the URL
// Standard encodes a string: as UTF-8, a byte that is not part of valid
// UTF-8 being U+FFFD (JavaScript's strings hold no such byte; its JSON
// reader makes it U+FFFD).
func jsEscape(s string, escape func(byte) bool) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; escape(c) {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// jsResolvePath is p, the path of a special url as written (empty, or
// starting with '/' or '\'), as WHATWG's path state leaves it.
func jsResolvePath(p string) string {
	if p == "" {
		return p
	}
	segs := splitSlashes(p[1:])
	var out []string
	for i, seg := range segs {
		last := i == len(segs)-1
		switch strings.ToLower(seg) {
		case "..", ".%2e", "%2e.", "%2e%2e":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		case ".", "%2e":
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, seg)
		}
	}
	return "/" + strings.Join(out, "/")
}

// splitSlashes splits s at every '/' and '\', keeping empty segments.
func splitSlashes(s string) []string {
	var segs []string
	for {
		i := strings.IndexAny(s, `/\`)
		if i < 0 {
			return append(segs, s)
		}
		segs = append(segs, s[:i])
		s = s[i+1:]
	}
}
