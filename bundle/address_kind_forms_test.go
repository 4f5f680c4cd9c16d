package bundle

import "testing"

// TestMCPURLHostDefaultIPv4Forms: a variable's default host written as
// an IPv4 address in another form JavaScript's URL reads (Claude Code
// and Gemini CLI read a url with it: "127.1" is 127.0.0.1, "0xa9fea9fe"
// 169.254.169.254, a trailing dot dropped), or "localhost.", is of the
// kind of the address it names. They were read as names: no word that,
// unset, the server is on a loopback, private or link-local address.
func TestMCPURLHostDefaultIPv4Forms(t *testing.T) {
	for def, want := range map[string]string{
		"127.1":       "loopback",
		"0x7f.1":      "loopback",
		"0177.0.0.1":  "loopback",
		"2130706433":  "loopback",
		"127.0.0.1.":  "loopback",
		"localhost.":  "loopback",
		"10.1":        "private",
		"0xa9fea9fe":  "metadata",
		"0":           "unspecified",
		"example.com": "",
		"1.2.3.4":     "",
	} {
		ref := "${H:-" + def + "}"
		if _, got := MCPURLHostDefault("https://"+ref+"/mcp", ref); got != want {
			t.Errorf("%s: kind %q, want %q", def, got, want)
		}
	}
}
