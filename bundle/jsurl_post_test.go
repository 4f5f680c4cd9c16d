package bundle

import (
	"testing"
)

// TestJSURLPostURL: the url bundlectl posts an http hook's event to is the
// one Claude Code posts to, the path resolved as JavaScript's URL resolves
// it (each value read from node 20's new URL(u).href, the fragment aside,
// which no request carries): Go's client sent "/allow/../deny" as
// written (harness TestHTTPHookDotSegmentPath). On 30,000 generated paths
// of dots, escaped dots and slashes and backslashes the path agreed with
// node 20's but for one, "\bx./.xa///.#f" after a port, where node's ada
// keeps the last "." and the URL Standard, which this and Bun follow,
// drops it.
func TestJSURLPostURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://h/allow/../deny":        "https://h/deny",
		"https://h/allow/%2e%2E/deny":    "https://h/deny",
		`https://h/a\..\deny`:            "https://h/deny",
		"https://h/a/./b/.":              "https://h/a/b/",
		"https://h/a/..":                 "https://h/",
		"https://h/a/.%2e?q=/../x":       "https://h/?q=/../x",
		"https://h/%2E/x":                "https://h/x",
		"https://h:8443/../../x":         "https://h:8443/x",
		"https://C%41.example/x/../y":    "https://ca.example/y",
		"https://h/x/..#/../f":           "https://h/#/../f",
		"https://h":                      "https://h/",
		"https://h?x=/../y":              "https://h/?x=/../y",
		"https://h/a/...":                "https://h/a/...",
		"foo://h/a/../b":                 "foo://h/a/../b",
		"https://h/a/../b\t":             "https://h/b",
		"https://[::1]:9/a/%2e%2e/b/.":   "https://[::1]:9/b/",
		"https://EXAMPLE.COM/x":          "https://example.com/x",
		"HTTPS://U@EXAMPLE.COM/x":        "https://U@example.com/x",
		"https://h/?a b'\"<>`{}|^~\x7fé": "https://h/?a%20b%27%22%3C%3E`{}|^~%7F%C3%A9",
		"https://h/p?q=%zz&x=a%20b#f g":  "https://h/p?q=%zz&x=a%20b#f g",
	} {
		if got := JSURLPostURL(in); got != want {
			t.Errorf("JSURLPostURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzJSURLPostURL: no input panics, a url is resolved once for all (a
// second pass keeps it), and its host is the one jsSerializeHost writes of
// the host JavaScript's URL reads in the input.
func FuzzJSURLPostURL(f *testing.F) {
	for _, v := range jsHostVectors(f) {
		f.Add(v[0])
	}
	for _, v := range jsPostVectors(f) {
		f.Add(v[0])
	}
	f.Add("https://h/allow/../deny")
	f.Add(`https:\\h\a\%2e%2E\..\b?c/../d#e/../f`)
	f.Fuzz(func(t *testing.T, s string) {
		p := JSURLPostURL(s)
		if again := JSURLPostURL(p); again != p {
			t.Errorf("JSURLPostURL(%q) = %q, then %q", s, p, again)
		}
		if p == s {
			return
		}
		in1, s1, e1, ok1 := jsSpecialHostSpan(s)
		in2, s2, e2, ok2 := jsSpecialHostSpan(p)
		if !ok1 || !ok2 || jsSerializeHost(in1[s1:e1]) != in2[s2:e2] {
			t.Errorf("JSURLPostURL(%q) = %q, whose host is not %q's", s, p, s)
		}
	})
}
