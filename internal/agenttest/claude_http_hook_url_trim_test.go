package agenttest

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestClaudeHTTPHookURLTrim: real Claude Code 2.1.332 posts an http hook
// whose url has a space, a tab, a line break, a C0 control or a white
// space JavaScript's trim takes off (U+00A0, U+FEFF, U+3000) around it, or
// a tab or line break inside it, to the host bundle/testdata/jsurl/
// claude_trim.json records, "refused" where it posts nothing: it trims
// the url (String.prototype.trim), then JavaScript's URL removes tabs and
// line breaks and strips C0 controls and spaces, in that order
// (bundle.ClaudeURLTrim). Each is seen as the CONNECT it asks a recording
// proxy for. bundlectl exec -- claude, whose hooks run posts a trusted
// bundle's hooks, CONNECTs to the same hosts for the urls a review can
// trust (one holding a control character refuses the bundle:
// text.control), where the review refused each as "not a valid URL" (and
// read "\u00a0https://…" as one Claude Code's schema drops). Claude Code
// also posts to a host holding '{' or '`' as written, which bundlectl
// still refuses, saying why.
func TestClaudeHTTPHookURLTrim(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "bundle", "testdata", "jsurl", "claude_trim.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vectors [][2]string
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	var all, trustable []string
	want, wantTrusted := map[string]bool{}, map[string]bool{}
	for _, v := range vectors {
		all = append(all, v[0])
		if v[1] == "refused" {
			continue
		}
		line := "CONNECT " + v[1] + ":443 HTTP/1.1"
		want[line] = true
		// One holding a control (U+2028 and U+2029 too) refuses the
		// bundle: text.control.
		if !strings.ContainsFunc(v[0], func(r rune) bool { return unicode.IsControl(r) || r == 0x2028 || r == 0x2029 }) {
			trustable = append(trustable, v[0])
			wantTrusted[line] = true
		}
	}
	// A host holding '{' or '`', which JavaScript's URL takes: Claude
	// Code asks the proxy for it as written; the review refuses such a
	// guard and says why (bundle TestHookURLHostJSOnlyChars).
	for _, host := range []string{"a{b.example", "a`b.example"} {
		all = append(all, "https://"+host+"/x")
		want["CONNECT "+host+":443 HTTP/1.1"] = true
	}
	rec := newConnectRecorder(t)
	a := New(t, Claude, ShellCall(Claude, "true"), Say("done"))
	a.Env = rec.Env
	check := func(via string, want map[string]bool) {
		res := a.Run(t, "hello")
		got := rec.take()
		slices.Sort(got)
		if wantLines := slices.Sorted(maps.Keys(want)); !slices.Equal(got, wantLines) {
			t.Errorf("%s asked the proxy for\n%q\nwant\n%q\n%s", via, got, wantLines, res)
		}
	}
	dir := filepath.Join(a.Workdir, "tr")
	writeHTTPHookPlugin(t, dir, "tr", "PostToolUse", all...)
	a.Args = []string{"--allowedTools", "Bash", "--plugin-dir", dir}
	check("claude --plugin-dir (2.1.332)", want)

	writeHTTPHookPlugin(t, filepath.Join(a.Workdir, ".bundlectl", "bundles", "trx"), "trx", "PreToolUse", trustable...)
	launchThroughExec(t, a, "trx")
	a.Args = []string{"--allowedTools", "Bash"}
	check("bundlectl exec", wantTrusted)
}
