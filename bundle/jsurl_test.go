package bundle

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// jsURLVector is one line of testdata/jsurl/node20.json: a url, what node
// 20's new URL said of it ("ok" or "refused"; node20.js there writes it
// again), and, when jsURLRefuses leaves the url to the url rules, why
// ("idna": its host needs IDNA beyond ASCII or Punycode, left out).
type jsURLVector struct {
	URL, Node, LeftOut string
}

func loadJSURLVectors(t testing.TB) []jsURLVector {
	data, err := os.ReadFile("testdata/jsurl/node20.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	vs := make([]jsURLVector, len(rows))
	for i, r := range rows {
		if len(r) < 2 || len(r) > 3 || r[1] != "ok" && r[1] != "refused" || len(r) == 3 && (r[2] != "idna" || r[1] != "refused") {
			t.Fatalf("node20.json vector %d is %q: want [url, \"ok\" or \"refused\"] or [url, \"refused\", \"idna\"]", i, r)
		}
		vs[i] = jsURLVector{URL: r[0], Node: r[1]}
		if len(r) == 3 {
			vs[i].LeftOut = r[2]
		}
	}
	return vs
}

// want is what jsURLRefuses must answer: node's verdict, except for a url
// it leaves to the url rules, which it must pass (it answers only what
// it is certain of).
func (v jsURLVector) want() bool { return v.Node == "refused" && v.LeftOut == "" }

// TestJSURLRefusesNode20: jsURLRefuses agrees with node 20's new URL on
// every url of the table — IPv4 hosts in every form ("http://bc3e.9/",
// whose last label is a number, is refused as no IPv4 address), forbidden
// host and domain code points, percent-decoded hosts ("http://c%/"),
// uppercase, trailing dots, fullwidth forms, file and opaque hosts — and
// never refuses one node takes.
func TestJSURLRefusesNode20(t *testing.T) {
	vs := loadJSURLVectors(t)
	if len(vs) < 400 {
		t.Fatalf("only %d vectors", len(vs))
	}
	for _, v := range vs {
		if got := jsURLRefuses(v.URL); got != v.want() {
			t.Errorf("jsURLRefuses(%q) = %v, want %v (node 20: %s%s)", v.URL, got, v.want(), v.Node, map[bool]string{true: ", left out: " + v.LeftOut}[v.LeftOut != ""])
		}
	}
}

// FuzzJSURLRefuses: no input panics; a url of the table gets its answer;
// leading and trailing spaces and controls, and tabs and line breaks
// anywhere, change nothing, as the parser drops them first.
func FuzzJSURLRefuses(f *testing.F) {
	table := map[string]bool{}
	for _, v := range loadJSURLVectors(f) {
		f.Add(v.URL)
		table[v.URL] = v.want()
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := jsURLRefuses(s)
		if want, ok := table[s]; ok && got != want {
			t.Errorf("jsURLRefuses(%q) = %v, the table says %v", s, got, want)
		}
		if padded := " \x01" + strings.ReplaceAll(s, ":", ":\t") + "\n "; jsURLRefuses(padded) != got {
			t.Errorf("jsURLRefuses(%q) = %v, but %v for %q", s, got, !got, padded)
		}
		ClaudeHTTPCannotPost(s)
	})
}

// TestJSURLRefuses: the urls JavaScript's URL refuses (checked with
// node 20's new URL) and some it parses, which are left to the url rules.
func TestJSURLRefuses(t *testing.T) {
	for s, want := range map[string]bool{
		"foo": true, "http://": true, "https://": true, "http:": true, "  ": true, "": true,
		"https://user@/x": true, "http://:80/x": true, "/check": true, "1http://x": true, "ws:///": true,
		"ftp://x": false, "http:host": false, `http:\host`: false, "https:/host": false,
		" http://guard.example.com/check": false, "https://guard.example.com/check#v1": false,
		"http://[::1]/": false, "localhost:8080/check": false, "file:": false, "ht\ttp://x": false,
		"http://x:/": false, "mailto:a@b": false,
		// A port is digits up to 65535: Claude Code expands no ${VAR}
		// there (internal/agenttest TestClaudeHTTPHookURLVarsAndWebSocket).
		"http://127.0.0.1:8080${CLAUDE_PLUGIN_ROOT}/g": true, "http://x:99999/": true, "http://x:8x/": true,
		"http://x:65535/": false, "http://[::1]:80/": false, "http://[::1]:8${X}/": true, "http://${OF_HOST}:80/g": false,
	} {
		if got := jsURLRefuses(s); got != want {
			t.Errorf("jsURLRefuses(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestJSURLRefusesIPv6: a host in brackets is refused as WHATWG's IPv6
// parser refuses it (each want is node 20's new URL), so a zoned literal
// such as [fe80::1%25eth0], which Claude Code cannot parse, gets the
// finding of any url Claude Code cannot parse instead of passing review.
func TestJSURLRefusesIPv6(t *testing.T) {
	for s, want := range map[string]bool{
		"https://[fe80::1%25eth0]/": true, "https://[fe80::1%eth0]/": true, "http://[::1/": true, "http://[::1": true,
		"http://[::1:80/": true, "http://[v1.x]/": true, "http://[::g]/": true, "http://[12345::]/": true,
		"http://[1:2:3:4:5:6:7:8:9]/": true, "http://[1:2:3:4:5:6:7:8]/": false, "http://[1:2:3:4:5:6:7]/": true, "http://[::1.2.3.4]/": false,
		"http://[1.2.3.4::]/": true, "http://[::1.2.3]/": true, "http://[::1.2.3.4.5]/": true, "http://[::01.2.3.4]/": true,
		"http://[::256.2.3.4]/": true, "http://[1:2:3:4:5:6:1.2.3.4]/": false, "http://[1:2:3:4:5:6:7:1.2.3.4]/": true, "http://[::ffff:1.2.3.4]/": false,
		"http://[:1]/": true, "http://[1::2::3]/": true, "http://[::]/": false, "http://[1::]/": false,
		"http://[::1]x/": true, "http://[::1]:80/": false, "http://u@[::1]/": false, "http://[::1]@h/": false,
		"http://[:::1]/": true, "http://[1:]/": true, "http://[]/": true, "http://[::1]]/": true,
		"http://[[::1]]/": true, "http://[ ::1]/": true, "http://[::1.2.3.]/": true, "http://[FFFF::]/": false,
		"http://x[::1]/": true, "ws://[fe80::1%eth0]/": true, "ftp://[::1%1]/": true, "mailto:[::1%1]": false,
		"http://[::1]?q": false, "http://[::1]#f": false, "http://[::1]\\p": false, "http:[::1%1]/": true,
		"http://[::0.0.0.0]/": false, "http://[::1.2.3.04]/": true, "http://[0:0:0:0:0:0:0:0:]/": true, "http://[::1:]/": true,
		"http://[1:2:3:4:5:6:7::]/": false, "http://[1:2:3:4:5:6:7:8::]/": true, "http://[::1:2:3:4:5:6:7]/": false, "http://[::1:2:3:4:5:6:7:8]/": true,
		"http://[::1]:/": false, "http://a:b@[::1]:8080/x": false, "http://a:1:2/": true, "http://[::1]:80:/": true,
	} {
		if got := jsURLRefuses(s); got != want {
			t.Errorf("jsURLRefuses(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestClaudeHTTPHookURLSchema: an http hook whose url JavaScript's URL
// does not parse fails Claude Code's hooks schema (internal/agenttest
// TestClaudeHTTPURLSchema): on PreToolUse nothing of the plugin is Claude
// Code's (hook.schema), on PostToolUse that hook alone is dropped
// (hook.url, a skip) and its sibling kept. Both were read as a url Claude
// Code posts to.
func TestClaudeHTTPHookURLSchema(t *testing.T) {
	// The last: Claude Code expands no variable in a url, so the port is
	// not a number (TestClaudeHTTPHookURLVarsAndWebSocket).
	// A zoned IPv6 literal and IPvFuture: WHATWG's IPv6 parser refuses
	// both (TestJSURLRefusesIPv6). A host whose last label is a number and
	// which is no IPv4 address, and one with a '%' that encodes nothing:
	// its host parser refuses both (TestJSURLRefusesNode20).
	for _, u := range []string{"foo", "http://", "http://127.0.0.1:8080${CLAUDE_PLUGIN_ROOT}/g", "https://[fe80::1%25eth0]/g", "http://[v1.x]/g", "https://bc3e.9/g", "https://c%/g"} {
		t.Run(u, func(t *testing.T) {
			pre := writeTree(t, "p", map[string]string{
				ManifestClaude: `{"name": "p"}`,
				"hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
					{"type": "http", "url": "` + u + `"},
					{"type": "command", "command": "echo sibling"}]}]}}`,
			})
			for _, h := range pre.Components.Hooks {
				if slices.Contains(h.Hosts, HostClaude) {
					t.Errorf("PreToolUse: hook %q kept for Claude Code, which loads nothing of the plugin:%s", h.Command, dumpFindings(pre))
				}
			}
			if !slices.ContainsFunc(pre.Report.Findings, func(f Finding) bool {
				return f.Rule == "hook.schema" && strings.HasSuffix(f.Path, "hooks[0].url")
			}) {
				t.Errorf("PreToolUse: no hook.schema finding at the url:%s", dumpFindings(pre))
			}
			post := writeTree(t, "p", map[string]string{
				ManifestClaude: `{"name": "p"}`,
				"hooks/hooks.json": `{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
					{"type": "http", "url": "` + u + `"},
					{"type": "command", "command": "echo sibling"}]}]}}`,
			})
			var claude []string
			for _, h := range post.Components.Hooks {
				if slices.Contains(h.Hosts, HostClaude) {
					claude = append(claude, h.Command)
				}
			}
			if !slices.Equal(claude, []string{"echo sibling"}) {
				t.Errorf("PostToolUse: Claude Code's hooks %q, want the sibling alone:%s", claude, dumpFindings(post))
			}
			if !slices.ContainsFunc(post.Report.Findings, func(f Finding) bool {
				return f.Rule == "hook.url" && f.Severity == Skip && strings.Contains(f.Message, "hooks schema drops this hook")
			}) {
				t.Errorf("PostToolUse: no hook.url skip:%s", dumpFindings(post))
			}
		})
	}
}

// TestClaudeHTTPCannotPost: the urls Claude Code's hooks schema takes but
// it cannot post to (internal/agenttest TestClaudeHTTPHookAnswers: "ftp:",
// "mailto:", "data:" fail as "Unsupported protocol"; TestClaudeHTTPHookURLVarsAndWebSocket:
// "ws:" and "wss:" get no request): any scheme but http and https, once
// JavaScript's URL parses the url.
func TestClaudeHTTPCannotPost(t *testing.T) {
	for s, want := range map[string]bool{
		"ftp://x": true, " FTP://x": true, "mailto:x": true, "data:,{}": true, "file:///etc/hostname": true, "localhost:8080/check": true,
		"https://x/": false, "http://127.0.0.1/": false, "HTTP://x": false, "ws://x": true, "wss://x": true,
		"http:host": false, "foo": false, "http://": false, "": false,
	} {
		if got := ClaudeHTTPCannotPost(s); got != want {
			t.Errorf("ClaudeHTTPCannotPost(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestClaudeHTTPHookURLWarnings: what the review says of an http guard
// Claude Code 2.1.332 loads but posts to in a way the url does not show
// (internal/agenttest TestClaudeHTTPHookURLVarsAndWebSocket): a ws:// or
// wss:// url gets no request, so the hook fails on every call (it was
// shown as a guard that POSTs, with no warning); ${CLAUDE_PLUGIN_ROOT}
// and the other plugin variables are sent as written (no warning was
// given for them), in the query to the server, in the host to no one.
func TestClaudeHTTPHookURLWarnings(t *testing.T) {
	for _, c := range []struct{ url, says string }{
		{"ws://127.0.0.1:8080/g", "fails on every call and never blocks PreToolUse"},
		{"wss://guard.example.com/g", "fails on every call and never blocks PreToolUse"},
		{"https://guard.example.com/g?root=${CLAUDE_PLUGIN_ROOT}", `does not expand "${CLAUDE_PLUGIN_ROOT}" (allowedEnvVars is for headers only), so the server gets that text`},
		{"https://guard.example.com${PLUGIN_DATA}/g", `does not expand "${PLUGIN_DATA}" (allowedEnvVars is for headers only), so no server is asked`},
		{"https://${GUARD_HOST}/g", `so no server is asked and the hook fails, so this guard never blocks PreToolUse`},
	} {
		b := writeTree(t, "p", map[string]string{
			ManifestClaude:     `{"name": "p"}`,
			"hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "` + c.url + `"}]}]}}`,
		})
		if !slices.ContainsFunc(b.Report.Findings, func(f Finding) bool {
			return f.Rule == "hook.url" && f.Severity == Warning && strings.Contains(f.Message, c.says)
		}) {
			t.Errorf("%s: no hook.url warning saying %q:%s", c.url, c.says, dumpFindings(b))
		}
		if !slices.ContainsFunc(b.Components.Hooks, func(h Hook) bool { return h.URL == c.url && slices.Contains(h.Hosts, HostClaude) }) {
			t.Errorf("%s: the hook is not reviewed for Claude Code:%s", c.url, dumpFindings(b))
		}
	}
}
