package bundle

import (
	"net/netip"
	"strings"
	"sync"
)

// ClaudeHTTPRefusedAddr says why Claude Code (2.1.332) refuses to post an
// http hook's event to address a — "link-local, cloud metadata or
// reserved", "private" — or "" when it posts. It checks twice (read in
// its code, tried in internal/agenttest TestClaudeHTTPHookPrivateAddress):
//
//   - literal: the url's host is the IP literal a. Before connecting it
//     refuses a link-local (169.254.0.0/16, fe80::/10) or cloud metadata
//     address (168.63.129.16, 192.0.0.192, 100.100.100.200, fd00:ec2::254,
//     …), an IPv6 address embedding one of those, 127.0.0.0/8 or
//     0.0.0.0/8 (NAT64, 6to4, IPv4-compatible, ISATAP), and the local-use
//     NAT64 prefix 64:ff9b:1::/48. A private literal (10.0.0.0/8,
//     172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7, 0.0.0.0,
//     ::) is posted to: it resolves no literal, so its resolver check
//     never sees one.
//   - resolved (literal false): a is one of the addresses the url's host
//     name resolved to, when it connects directly (not through a proxy).
//     It refuses the name when any of them is private, link-local or
//     unspecified (the ranges above, and 0.0.0.0/8, ::, IPv4-mapped forms
//     of all of them) or a metadata address; loopback is allowed.
func ClaudeHTTPRefusedAddr(a netip.Addr, literal bool) string {
	a = a.WithZone("")
	if !literal {
		if k := claudeAddrClass(a); k != "" && k != "loopback" {
			return "private"
		}
		if k := claudeMetadataClass(a); k != "" && k != "nat64_local_use" {
			return "link-local, cloud metadata or reserved"
		}
		return ""
	}
	if claudeMetadataClass(a) != "" {
		return "link-local, cloud metadata or reserved"
	}
	return ""
}

// claudeMetadataAddrs are the cloud metadata addresses Claude Code names
// besides 169.254.0.0/16 and fe80::/10.
var claudeMetadataAddrs = sync.OnceValue(func() map[netip.Addr]bool {
	return map[netip.Addr]bool{
		netip.MustParseAddr("100.100.100.200"):    true,
		netip.MustParseAddr("168.63.129.16"):      true,
		netip.MustParseAddr("192.0.0.192"):        true,
		netip.MustParseAddr("fd00:ec2::254"):      true,
		netip.MustParseAddr("fd00:ec2::23"):       true,
		netip.MustParseAddr("fd20:ce::254"):       true,
		netip.MustParseAddr("fd00:c1::a9fe:a9fe"): true,
		netip.MustParseAddr("fd00:a9fe:a9fe::1"):  true,
	}
})

// claudeAddrClass is Claude Code's class of a (an IPv4-mapped address as
// its IPv4 address): "loopback", a private class, or "" for the rest.
func claudeAddrClass(a netip.Addr) string {
	a = a.Unmap()
	if a.Is6() {
		b := a.As16()
		switch {
		case b[0] == 0xfc || b[0] == 0xfd:
			return "unique_local"
		case b[0] == 0xfe && b[1] >= 0x80 && b[1] <= 0xbf:
			return "link_local"
		}
		for _, c := range b[:15] {
			if c != 0 {
				return ""
			}
		}
		switch b[15] {
		case 0:
			return "unspecified"
		case 1:
			return "loopback"
		}
		return ""
	}
	b := a.As4()
	switch {
	case b[0] == 0:
		return "this_network"
	case b[0] == 10, b[0] == 172 && b[1] >= 16 && b[1] <= 31, b[0] == 192 && b[1] == 168:
		return "private"
	case b[0] == 100 && b[1] >= 64 && b[1] <= 127:
		return "carrier_nat"
	case b[0] == 127:
		return "loopback"
	case b[0] == 169 && b[1] == 254:
		return "link_local"
	}
	return ""
}

// claudeV4Special is Claude Code's "d": 127/8, 169.254/16 and 0/8.
func claudeV4Special(b [4]byte) bool {
	return b[0] == 127 || b[0] == 169 && b[1] == 254 || b[0] == 0
}

// claudeEmbedded are the IPv4 addresses Claude Code reads inside an IPv6
// address: 6to4 (2002::/16), IPv4-mapped, IPv4-compatible, NAT64
// (64:ff9b::/96) and ISATAP.
func claudeEmbedded(b [16]byte) [][4]byte {
	var out [][4]byte
	if b[0] == 0x20 && b[1] == 0x02 {
		out = append(out, [4]byte{b[2], b[3], b[4], b[5]})
	}
	zero10 := true
	for _, c := range b[:10] {
		zero10 = zero10 && c == 0
	}
	nat64 := b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b
	zero4to12 := true
	for _, c := range b[4:12] {
		zero4to12 = zero4to12 && c == 0
	}
	mapped := zero10 && b[10] == 0xff && b[11] == 0xff
	compat := zero10 && b[10] == 0 && b[11] == 0
	isatap := (b[8] == 0 || b[8] == 2) && b[9] == 0 && b[10] == 0x5e && b[11] == 0xfe
	if mapped || compat || nat64 && zero4to12 || isatap {
		out = append(out, [4]byte{b[12], b[13], b[14], b[15]})
	}
	return out
}

// claudeMetadataClass is Claude Code's check of a url's literal host
// before it connects ("… is a link-local, cloud metadata or reserved
// address"): a class, or "" for an address it posts to.
func claudeMetadataClass(a netip.Addr) string {
	if a.Is4() || a.Is4In6() {
		if v := a.Unmap().As4(); v[0] == 127 || v[0] == 0 {
			return ""
		}
	}
	if a.Is6() && !a.Is4In6() {
		b := a.As16()
		low := true
		for _, c := range b[:15] {
			low = low && c == 0
		}
		if low && b[15] <= 1 {
			return ""
		}
	}
	if !claudeReservedHost(a) {
		return ""
	}
	if k := claudeAddrClass(a); k != "" && k != "loopback" {
		return k
	}
	if a.Is4() {
		return "metadata"
	}
	b := a.As16()
	if b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && b[4] == 0 && b[5] == 1 {
		return "nat64_local_use"
	}
	emb := claudeEmbedded(b)
	for _, v := range emb {
		w := netip.AddrFrom4(v)
		if k := claudeAddrClass(w); k != "" && k != "loopback" {
			return k
		}
		if claudeMetadataAddrs()[w] {
			return "metadata"
		}
	}
	if !a.Is4In6() {
		for _, v := range emb {
			if v[0] == 127 {
				return "loopback"
			}
		}
	}
	return "metadata"
}

// claudeReservedHost is Claude Code's "gU" for an IP literal.
func claudeReservedHost(a netip.Addr) bool {
	if a.Is4() {
		return claudeMetadataAddrs()[a] || claudeV4Special(a.As4())
	}
	b := a.As16()
	if b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && b[4] == 0 && b[5] == 1 {
		return true
	}
	if a.IsUnspecified() || a == netip.IPv6Loopback() || claudeMetadataAddrs()[a] {
		return true
	}
	if b[0] == 0xfe && b[1] >= 0x80 && b[1] <= 0xbf {
		return true
	}
	for _, v := range claudeEmbedded(b) {
		if claudeV4Special(v) || claudeMetadataAddrs()[netip.AddrFrom4(v)] {
			return true
		}
	}
	return false
}

// JSURLIPHost is the IP address JavaScript's URL reads a special url's
// host as, and whether it reads one: an IPv6 literal in brackets, or an
// IPv4 address in any form the WHATWG URL parser accepts ("10.1",
// "0x0a000001", "012.0.0.1", "167772161"; whatwgIPv4).
func JSURLIPHost(host string) (netip.Addr, bool) {
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		a, err := netip.ParseAddr(host[1 : len(host)-1])
		return a, err == nil && a.Is6() && a.Zone() == ""
	}
	return whatwgIPv4(strings.ToLower(host))
}

// ClaudeHTTPURLRefused is the address an http hook's url names as an IP
// literal and why Claude Code (2.1.332) refuses to post to it, or "" when
// its host is a name or an address it posts to. The host is the one
// JavaScript's URL reads, found by its parser (jsSpecialHostSpan), not by
// Go's: Go refuses "https://${X}@169.254.169.254/" (a "${" in user
// information) and reads no host in https:\\169.254.169.254\x, both of
// which Claude Code reads as the metadata address.
func ClaudeHTTPURLRefused(raw string) (netip.Addr, string) {
	raw = ClaudeURLTrim(raw)
	in, start, end, ok := jsSpecialHostSpan(raw)
	if !ok {
		return netip.Addr{}, ""
	}
	switch scheme, _, _ := strings.Cut(in, ":"); strings.ToLower(scheme) {
	case "http", "https", "ws", "wss":
	default:
		return netip.Addr{}, ""
	}
	a, ok := JSURLIPHost(strings.ToLower(percentDecode(in[start:end])))
	if !ok {
		return netip.Addr{}, ""
	}
	return a, ClaudeHTTPRefusedAddr(a, true)
}

// HookAddressAtRun is the host name in an http hook's url that Claude
// Code and bundlectl resolve only when they post the event, and then
// refuse when any address it resolves to is private, link-local,
// unspecified or a metadata address and no proxy is in the way
// (ClaudeHTTPRefusedAddr with literal false; harness directHookTransport).
// It is "" when the url's host is an IP literal in any form JavaScript's
// URL reads (checked as written, before connecting), is chosen by a
// variable, or the url is one neither posts to. The review names it
// without resolving it: it stays offline and asks no resolver.
func HookAddressAtRun(raw string) string {
	raw = ClaudeURLTrim(raw)
	if jsURLRefuses(raw) || ClaudeHTTPCannotPost(raw) {
		return ""
	}
	h, msg := hookURLHost(raw)
	if msg != "" || h == "" {
		return ""
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return ""
	}
	if _, ok := JSURLIPHost(h); ok {
		return ""
	}
	return h
}
