package harness

import (
	"os/exec"
	"strings"
	"testing"
)

// TestProxyFixHint: the refusal of a proxy setting Claude Code 2.1.332
// reads but bundlectl does not ends in an export that, run as printed
// by a shell, sets the variable to the proxy Claude Code uses; one
// holding user information, never echoed, gets the generic hint. The
// hint was a placeholder (export https_proxy=http://host:port).
func TestProxyFixHint(t *testing.T) {
	for _, c := range []struct{ value, want string }{
		{" http://127.0.0.1:3128", "http://127.0.0.1:3128"},
		{"http://proxy.example:3128 ", "http://proxy.example:3128"},
		{"localhost:3128/", "http://localhost:3128"},
		{"127.0.0.1:3128/x?y", "http://127.0.0.1:3128"},
		{" http://u:pw@proxy.example:3128", ""},
	} {
		_, why := claudeProxyURL(c.value)
		if why == "" {
			t.Fatalf("%q: read", c.value)
		}
		msg := (&hookProxyError{"https_proxy", c.value, why}).Error()
		if strings.Contains(msg, "pw@") {
			t.Errorf("%q: the message echoes the credential: %s", c.value, msg)
		}
		_, hint, ok := strings.Cut(msg, "to use the proxy Claude Code uses: ")
		if c.want == "" {
			if ok || !strings.HasSuffix(msg, "export https_proxy=http://host:port") {
				t.Errorf("%q: %s; want the generic hint", c.value, msg)
			}
			continue
		}
		if !ok {
			t.Fatalf("%q: no hint: %s", c.value, msg)
		}
		got, err := exec.Command("sh", "-c", hint+`; printf %s "$https_proxy"`).Output()
		if err != nil || string(got) != c.want {
			t.Errorf("%q: %s set https_proxy=%q (%v), want %q", c.value, hint, got, err, c.want)
		}
	}
}
