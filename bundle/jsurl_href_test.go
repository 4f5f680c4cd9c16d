package bundle

import (
	"strings"
	"testing"
)

// jsPostVectors are testdata/jsurl/post_node20.json: a url and the href
// node 20's new URL writes it back as, its fragment cut ("refused" when
// it refuses the url); post_node20.js there writes them again.
func jsPostVectors(t testing.TB) [][2]string { return jsURLVectors(t, "post_node20.json") }

// TestJSURLPostURLIsNodes: the url bundlectl posts an http hook's event
// to, and the review shows as where Claude Code posts, is node 20's href
// of the url, byte for byte (the fragment aside, which no request
// carries; '^' in a path escaped, as Claude Code 2.1.332 escapes it): for every code point up to U+00FF in a path and in a query,
// and for dot segments, escapes, user information, default ports, IP
// literals in other forms and tabs inside. Before, '`', '{', '}', and
// every character past ASCII, were posted as written, and the scheme, a
// default port and an IPv4 literal's form kept.
func TestJSURLPostURLIsNodes(t *testing.T) {
	vs := jsPostVectors(t)
	if len(vs) < 300 {
		t.Fatalf("only %d vectors", len(vs))
	}
	for _, v := range vs {
		url, node := v[0], v[1]
		if node == "refused" {
			continue
		}
		got, _, _ := strings.Cut(JSURLPostURL(url), "#")
		if want := claudeURLFromNode(node); got != want {
			t.Errorf("JSURLPostURL(%q) = %q, want %q (node 20 writes %q)", url, got, want, node)
		}
	}
}

// claudeURLFromNode is href, a special url as node 20's URL writes it, as
// Claude Code 2.1.332's URL writes it: with '^' in the path escaped
// (internal/agenttest TestClaudeHTTPHookURLBytes). node's URL follows an
// older URL Standard; nothing else differs up to U+00FF.
func claudeURLFromNode(href string) string {
	_, rest, ok := strings.Cut(href, "://")
	if !ok {
		return href
	}
	start := len(href) - len(rest)
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		start += i
	} else {
		return href
	}
	end := len(href)
	if i := strings.IndexByte(href[start:], '?'); i >= 0 {
		end = start + i
	}
	return href[:start] + strings.ReplaceAll(href[start:end], "^", "%5E") + href[end:]
}
