package bundle

import (
	"strings"
	"testing"
)

// TestHookURLVarOutsideHost: Claude Code 2.1.332 expands no "${…}" in an
// http hook's url, so a "${" outside the host JavaScript's URL reads is
// text and the host is known: "http://${X}@127.0.0.1:9/g" is posted to
// 127.0.0.1 with user information, and its deny honoured (internal/agenttest
// TestClaudeHTTPGuardURLVarUserinfo); "https:/0\${X}" is posted to
// 0.0.0.0, where Go's parser reads no host. endpointHost read such a "${"
// as a variable that picks the host, named none and found nothing wrong,
// so the review kept the guard (saying no server is asked) while
// ClaudeHTTPURLRefused, reading through Go, missed the metadata address
// in "https://${X}@169.254.169.254/".
func TestHookURLVarOutsideHost(t *testing.T) {
	for raw, want := range map[string]string{
		"http://${X}@127.0.0.1:9/g":         "must not contain user information",
		"https://${X}@10.0.0.5/g":           "must not contain user information",
		"https://u:${X}@c%41.example.com/g": "must not contain user information",
		`https:/0\${X}/g`:                   "must be an absolute URL with a host",
		`https:\\10.0.0.5\${X}`:             "must be an absolute URL with a host",
		"http://10.0.0.5/${X}":              msgPlainHTTP,
	} {
		if h, msg := hookURLHost(raw); msg != want {
			t.Errorf("hookURLHost(%q) = %q, %q; want the problem %q", raw, h, msg, want)
		}
	}
	// A "${" in the host leaves it unknown, as before: no server is asked.
	for _, raw := range []string{"https://e${X}.example/g", "https://c%41${X}.example/g"} {
		if h, msg := hookURLHost(raw); h != "" || msg != "" {
			t.Errorf("hookURLHost(%q) = %q, %q; want no host and no problem", raw, h, msg)
		}
	}
	// A "${" in the path keeps the host known.
	if h, msg := hookURLHost("https://c%41.example.com/${X}"); h != "ca.example.com" || msg != "" {
		t.Errorf("hookURLHost with a variable in the path = %q, %q", h, msg)
	}
	for _, raw := range []string{"https://${X}@169.254.169.254/g", `https:\\169.254.169.254\x`, "https://169%2\te254.169.254/"} {
		if a, why := ClaudeHTTPURLRefused(raw); why == "" || a.String() != "169.254.169.254" {
			t.Errorf("ClaudeHTTPURLRefused(%q) = %v, %q; want 169.254.169.254 refused, as JavaScript's URL reads it", raw, a, why)
		}
	}
	if ref, inHost := claudeURLRef("http://${X}@127.0.0.1:9/g"); ref != "${X}" || inHost {
		t.Errorf("claudeURLRef of a variable in user information = %q, in the host %v; want it outside the host", ref, inHost)
	}
	if ref, inHost := claudeURLRef("https://e${X}.example/g"); ref != "${X}" || !inHost {
		t.Errorf("claudeURLRef of a variable in the host = %q, in the host %v", ref, inHost)
	}
}

// TestHookURLVarUserinfoGuard: a Claude Code guard posting to
// "http://${X}@127.0.0.1:PORT/g" is refused for its user information, as
// any guard whose url has some, with no warning that no server is asked:
// Claude Code asks 127.0.0.1 and honours its deny, and bundlectl, whose Go
// client refuses such user information, would fail the hook and let the
// call through.
func TestHookURLVarUserinfoGuard(t *testing.T) {
	b := writeTree(t, "p", map[string]string{
		ManifestClaude: `{"name": "p"}`,
		"hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "http", "url": "http://${X}@127.0.0.1:9/g"}]}]}}`,
	})
	refused := false
	for _, f := range b.Report.Findings {
		if f.Rule == "hook.url" && f.Severity == Error && strings.Contains(f.Message, "must not contain user information") {
			refused = true
		}
		if strings.Contains(f.Message, "no server is asked") {
			t.Errorf("a finding says no server is asked: %s", f.Message)
		}
	}
	if !refused {
		t.Errorf("the guard is not refused for its user information:%s", dumpFindings(b))
	}
}

// TestClaudeHTTPURLRefusedIsNodes: ClaudeHTTPURLRefused reads the address
// node 20's new URL reads in every url of testdata/jsurl/hosts_node20.json
// whose hostname is an IP literal Claude Code refuses, however it is
// written (escaped dots and digits, a backslash after the host or for
// its slashes, a tab inside an escape; a host that is not ASCII once
// decoded is left to the url rules): Go's parser, which it read the
// url through, reads no host in https:\\169%2e254.169.254\x and refuses
// "https://169%2\te254.169.254/".
func TestClaudeHTTPURLRefusedIsNodes(t *testing.T) {
	for _, v := range jsHostVectors(t) {
		url, node := v[0], v[1]
		// A host not ASCII once decoded is refused by the url rules
		// (msgNonASCIIHost), its IDNA mapping not computed.
		if node == "refused" || !strings.HasPrefix(strings.ToLower(strings.TrimSpace(url)), "http") || !isASCII(percentDecode(url)) {
			continue
		}
		want, ok := JSURLIPHost(node)
		if !ok || ClaudeHTTPRefusedAddr(want, true) == "" {
			continue
		}
		if a, why := ClaudeHTTPURLRefused(url); why == "" || a != want {
			t.Errorf("ClaudeHTTPURLRefused(%q) = %v, %q; node reads %s, which Claude Code refuses", url, a, why, want)
		}
	}
}

// FuzzHookURLHost: an http hook's url with a "${" is never read as one
// whose host a variable picks unless the "${" is in the host JavaScript's
// URL reads (Claude Code expands none in it); and an IP literal the url
// rules name as its host is the address the refused-address check reads.
func FuzzHookURLHost(f *testing.F) {
	for _, v := range jsHostVectors(f) {
		f.Add(v[0])
	}
	for _, s := range []string{"http://${X}@127.0.0.1:9/g", `https:/0\${X}/g`, "https://e${X}.example/g", "https://u:${X}@c%41.example.com/g"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, msg := hookURLHost(s)
		if h == "" && msg == "" {
			if in, start, end, ok := jsSpecialHostSpan(s); ok && !strings.Contains(in[start:end], "${") {
				t.Errorf("hookURLHost(%q) names no host and no problem, but JavaScript's URL reads the host %q", s, in[start:end])
			}
			return
		}
		if msg != "" {
			return
		}
		lit := h
		if strings.Contains(h, ":") {
			lit = "[" + h + "]"
		}
		want, ok := JSURLIPHost(lit)
		if !ok {
			return
		}
		if got, _ := ClaudeHTTPURLRefused(s); got != want && !(got.Is4In6() && got.Unmap() == want.Unmap()) {
			t.Errorf("hookURLHost(%q) = %q, ClaudeHTTPURLRefused reads %v", s, h, got)
		}
	})
}
