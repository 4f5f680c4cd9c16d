package bundle

import (
	"net/netip"
	"testing"
)

// TestClaudeHTTPRefusedAddr: the addresses Claude Code 2.1.332 refuses to
// post an http hook's event to. The literal column was found by trying
// (internal/agenttest TestClaudeHTTPHookPrivateAddress and its debug
// log: a private literal is connected to), the resolved column read in
// its code (a name resolving to a private address is refused).
func TestClaudeHTTPRefusedAddr(t *testing.T) {
	for _, c := range []struct {
		addr              string
		literal, resolved bool // refused
	}{
		{"169.254.169.254", true, true},
		{"169.254.1.1", true, true},
		{"fe80::1", true, true},
		{"168.63.129.16", true, true},
		{"192.0.0.192", true, true},
		{"100.100.100.200", true, true},
		{"64:ff9b::a9fe:a9fe", true, true},
		{"::ffff:169.254.169.254", true, true},
		{"fd00:ec2::254", true, true},
		{"10.0.0.5", false, true},
		{"192.168.1.2", false, true},
		{"172.16.0.1", false, true},
		{"100.64.0.1", false, true},
		{"fd00::1", false, true},
		{"::ffff:10.0.0.1", false, true},
		{"0.0.0.0", false, true},
		{"::", false, true},
		{"127.0.0.1", false, false},
		{"127.0.0.2", false, false},
		{"::1", false, false},
		{"::ffff:127.0.0.1", false, false},
		{"192.0.2.2", false, false},
		{"8.8.8.8", false, false},
		{"2002:a00:1::", false, false},
		{"2606:4700::1111", false, false},
	} {
		a := netip.MustParseAddr(c.addr)
		if got := ClaudeHTTPRefusedAddr(a, true) != ""; got != c.literal {
			t.Errorf("literal %s: refused = %v, want %v", c.addr, got, c.literal)
		}
		if got := ClaudeHTTPRefusedAddr(a, false) != ""; got != c.resolved {
			t.Errorf("resolved %s: refused = %v, want %v", c.addr, got, c.resolved)
		}
	}
}

func TestJSURLIPHost(t *testing.T) {
	for host, want := range map[string]string{
		"10.0.0.5":         "10.0.0.5",
		"10.1":             "10.0.0.1",
		"0x0a000001":       "10.0.0.1",
		"012.0.0.1":        "10.0.0.1",
		"167772161":        "10.0.0.1",
		"0xa9.0xfe.0xa9fe": "169.254.169.254",
		"169.254.169.254.": "169.254.169.254",
		"[fd00::1]":        "fd00::1",
		"example.com":      "",
		"1.2.3.4.5":        "",
		"256.1.1.1":        "",
		"0x1g":             "",
		"[fe80::1%25eth0]": "",
	} {
		a, ok := JSURLIPHost(host)
		if got := ""; ok {
			got = a.String()
			if got != want {
				t.Errorf("JSURLIPHost(%q) = %s, want %q", host, got, want)
			}
		} else if want != "" {
			t.Errorf("JSURLIPHost(%q) reads no address, want %s", host, want)
		}
	}
}
