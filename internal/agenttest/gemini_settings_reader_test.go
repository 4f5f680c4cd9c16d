package agenttest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	bhosts "github.com/bundlectl/bundlectl/hosts"
)

// geminiReader is a node script that reads settings files as Gemini CLI's
// settings loader does: the strip-json-comments its bundle carries (taken
// from the bundle itself), then JSON.parse. It reads a JSON list of texts
// on stdin and prints, for each, the value read as JSON, or null.
const geminiReader = `
const fs = require("fs"), path = require("path");
const dir = process.argv[1];
const mark = '"node_modules/strip-json-comments/index.js"(exports2, module2) {';
let body;
for (const f of fs.readdirSync(dir).filter(f => f.endsWith(".js"))) {
  const s = fs.readFileSync(path.join(dir, f), "utf8");
  const i = s.indexOf(mark);
  if (i < 0) continue;
  const end = s.indexOf("\n  }\n});", i);
  body = s.slice(i + mark.length, end);
  break;
}
if (!body) { console.error("no strip-json-comments in " + dir); process.exit(3); }
const module2 = {exports: {}};
new Function("exports2", "module2", body)(module2.exports, module2);
const strip = module2.exports;
let d = "";
process.stdin.on("data", c => d += c).on("end", () => {
  console.log(JSON.stringify(JSON.parse(d).map(s => {
    try { return JSON.stringify(JSON.parse(strip(s))); } catch (e) { return null; }
  })));
});
`

// TestGeminiSettingsReader: bundlectl reads a settings file with
// comments (hosts.CommentedJSON) exactly as Gemini CLI 0.61.0's own code
// does (its strip-json-comments 3.1.1 and JSON.parse, run by node): the
// same files read, to the same values, the same refused. A repeated key
// is the one difference, on purpose: JSON.parse keeps the last, setup
// refuses what it cannot tell apart.
func TestGeminiSettingsReader(t *testing.T) {
	t.Parallel()
	bin, err := filepath.EvalSymlinks(FindCLI(t, string(GeminiCLI)))
	if err != nil {
		t.Fatal(err)
	}
	vectors := []string{
		`{"a": 1}`,
		"// c\n{\"a\": 1}",
		"{\r\n  // c\r\n  \"a\": 1\r\n}\r\n",
		"/* a */ {\"a\": /* b */ 1 /* c */} // d",
		`{"a": "http://x", "b": "/*", "c": "*/", "d": "x\"//", "e": "\\"}// e`,
		"{\"a\": 1} /* not closed",
		"{\"a\": 1} // no line break",
		"{\"a\": /*/ still */ 1}",
		"{\"a\": 1 // c\r, \"b\": 2\n}",
		"{\"a\": 1 /* line\nbreak */, \"b\": [1, // x\n2]}",
		"{\"a\": 1} //\r",
		"{\"a\": 1,}",
		"\ufeff{\"a\": 1}",
		"{\"a\": 1} // a\u00a0b",
		"{\"a\": 1} /* \v */",
		"{\"a\": 1} /* \u2028 */",
		"{\"a\": 1} /* \u0085 */",
		"{\"a\": 1} # c",
		"{\"a\": 1 / 2}",
		"{\"a\": 1}\f",
		"",
		"// c\n",
		"[1, 2]",
	}
	in, _ := json.Marshal(vectors)
	cmd := exec.Command("node", "-e", geminiReader, filepath.Dir(bin))
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var read []*string
	if err := json.Unmarshal(out, &read); err != nil || len(read) != len(vectors) {
		t.Fatalf("node said %s (%v)", out, err)
	}
	for i, v := range vectors {
		j, err := bhosts.ParseJSONAs([]byte(v), bhosts.CommentedJSON)
		empty := strings.Trim(string(bhosts.StripJSONComments([]byte(v))), " \t\r\n") == ""
		switch {
		case read[i] == nil && err == nil && !empty:
			t.Errorf("%q: Gemini CLI refuses it, bundlectl reads it", v)
		case read[i] != nil && err != nil:
			t.Errorf("%q: Gemini CLI reads %s, bundlectl refuses it: %v", v, *read[i], err)
		case read[i] != nil:
			var want, got any
			json.Unmarshal([]byte(*read[i]), &want)
			json.Unmarshal(bhosts.StripJSONComments(j.Marshal()), &got)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%q: Gemini CLI reads %s, bundlectl %v", v, *read[i], got)
			}
		}
	}
}

// TestGeminiSettingsEdits: setup's edits of settings files written to
// trip a comment lexer (comments holding "*/", "/*", "//", quotes and
// backslashes; strings holding them, with escapes; CRLF, lone CR and LF
// mixed; tabs; no final line break; an unclosed /* or // at the end) are
// read by Gemini CLI 0.61.0's own strip-json-comments and JSON.parse as
// bundlectl reads them, before and after the edit, and setup's own edits
// are never refused for a comment (hosts.CommentError). The files are
// generated from a fixed seed; hosts' FuzzEditCommentedJSON checks the
// edits against bundlectl's reader alone.
func TestGeminiSettingsEdits(t *testing.T) {
	t.Parallel()
	bin, err := filepath.EvalSymlinks(FindCLI(t, string(GeminiCLI)))
	if err != nil {
		t.Fatal(err)
	}
	hooks := []bhosts.SetupHook{{Event: "BeforeTool", Matcher: "*", Command: "/b/bundlectl hooks run BeforeTool --host gemini", Timeout: 60000}}
	servers := map[string]any{"bundlectl-b-s": map[string]any{"command": "/b/bundlectl", "args": []string{"mcp", "/*b*/", "//s"}}}
	edits := map[string]func(*bhosts.JSON){
		"apply hooks":   func(r *bhosts.JSON) { bhosts.ApplyJSONHooks(r, "gemini", hooks) },
		"strip hooks":   func(r *bhosts.JSON) { bhosts.StripJSONHooks(r, "gemini") },
		"apply servers": func(r *bhosts.JSON) { bhosts.ApplyJSONServers(r, "mcpServers", []string{"bundlectl-b-s"}, servers) },
		"strip servers": func(r *bhosts.JSON) { bhosts.StripJSONServers(r, "mcpServers") },
	}
	type text struct{ what, in, out string }
	var texts []text
	g := &settingsGen{seed: 7}
	for range 1500 {
		in := g.file()
		if _, err := bhosts.ParseJSONAs([]byte(in), bhosts.CommentedJSON); err != nil {
			texts = append(texts, text{"read", in, in})
			continue
		}
		for what, edit := range edits {
			out, err := bhosts.EditJSONAs(bhosts.CommentedJSON, edit)([]byte(in))
			var ce *bhosts.CommentError
			if errors.As(err, &ce) {
				t.Errorf("%s refused for a comment (%v):\n%q", what, err, in)
			}
			if err == nil {
				texts = append(texts, text{what, in, string(out)})
			}
		}
	}
	var all []string
	for _, x := range texts {
		all = append(all, x.out)
	}
	data, _ := json.Marshal(all)
	cmd := exec.Command("node", "-e", geminiReader, filepath.Dir(bin))
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var read []*string
	if err := json.Unmarshal(out, &read); err != nil || len(read) != len(all) {
		t.Fatalf("node answered %d of %d (%v)", len(read), len(all), err)
	}
	for i, x := range texts {
		j, err := bhosts.ParseJSONAs([]byte(x.out), bhosts.CommentedJSON)
		empty := strings.Trim(string(bhosts.StripJSONComments([]byte(x.out))), " \t\r\n") == ""
		switch {
		case read[i] == nil && err == nil && !empty:
			t.Errorf("%s: Gemini CLI refuses what bundlectl reads:\n%q\nfrom\n%q", x.what, x.out, x.in)
		case read[i] != nil && err != nil:
			t.Errorf("%s: bundlectl refuses what Gemini CLI reads as %s: %v\n%q", x.what, *read[i], err, x.out)
		case read[i] != nil:
			var want, got any
			json.Unmarshal([]byte(*read[i]), &want)
			json.Unmarshal(bhosts.StripJSONComments(j.Marshal()), &got)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: Gemini CLI reads %s, bundlectl %v:\n%q\nfrom\n%q", x.what, *read[i], got, x.out, x.in)
			}
		}
	}
	if len(texts) < 3000 {
		t.Fatalf("only %d texts compared", len(texts))
	}
}

// settingsGen writes settings files meant to trip a comment lexer, from
// a fixed seed (a linear congruential generator, so that every run and
// every Go version writes the same files).
type settingsGen struct{ seed uint32 }

func (g *settingsGen) n(k int) int {
	g.seed = g.seed*1664525 + 1013904223
	return int(g.seed>>16) % k
}

func (g *settingsGen) pick(s ...string) string { return s[g.n(len(s))] }

// gap is white space, maybe with a comment in it.
func (g *settingsGen) gap() string {
	var b strings.Builder
	for range g.n(3) {
		b.WriteString(g.pick(" ", " ", "\t", "\n", "\r\n", "\r", " \n"))
	}
	if g.n(3) == 0 {
		b.WriteString(g.comment(true))
		b.WriteString(g.pick("", " ", "\t"))
	}
	return b.String()
}

func (g *settingsGen) comment(closed bool) string {
	inside := []string{"a", "/*", "//", "\"", "\\", "*", "/", "x\"y", "\t", " ", "é", `\"`, "**"}
	var b strings.Builder
	if g.n(2) == 0 {
		b.WriteString("//")
		for range g.n(4) {
			b.WriteString(g.pick(append(inside, "*/")...))
		}
		if closed {
			b.WriteString(g.pick("\n", "\r\n", " \n"))
		}
		return b.String()
	}
	b.WriteString("/*")
	for range g.n(4) {
		b.WriteString(g.pick(append(inside, "\n", "\r\n", "\r")...))
	}
	if closed {
		b.WriteString("*/")
	}
	return b.String()
}

func (g *settingsGen) str() string {
	var b strings.Builder
	b.WriteByte('"')
	for range g.n(4) {
		b.WriteString(g.pick("a", "//", "/*", "*/", `\"`, `\\`, `\/`, `\u002f`, `\n`, "http://x"))
	}
	b.WriteByte('"')
	return b.String()
}

// members writes an object's members, each key once, with a "hooks" of
// events holding groups of setup's and of the user's.
func (g *settingsGen) members(depth int) string {
	var parts []string
	used := map[string]bool{}
	for range g.n(4) {
		k := g.pick(`"hooks"`, `"BeforeTool"`, `"mcpServers"`, `"ui"`, `"a"`, `"matcher"`)
		if used[k] {
			continue
		}
		used[k] = true
		parts = append(parts, g.gap()+k+g.gap()+":"+g.gap()+g.value(depth+1, k)+g.gap())
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func (g *settingsGen) value(depth int, key string) string {
	if key == `"hooks"` && depth < 3 && g.n(3) > 0 {
		var events []string
		for _, ev := range []string{`"BeforeTool"`, `"AfterTool"`, `"x"`}[:1+g.n(3)] {
			var groups []string
			for range g.n(3) {
				if g.n(2) == 0 {
					groups = append(groups, g.gap()+`{"matcher":"*",`+g.gap()+`"hooks":[{"type":"command","command":"/b/bundlectl hooks run BeforeTool --host gemini"}`+g.gap()+`]}`+g.gap())
				} else {
					groups = append(groups, g.gap()+`{"matcher":`+g.str()+`,"hooks":[]}`+g.gap())
				}
			}
			events = append(events, g.gap()+ev+g.gap()+":"+g.gap()+"["+strings.Join(groups, ",")+"]"+g.gap())
		}
		return "{" + strings.Join(events, ",") + "}"
	}
	switch r := g.n(10); {
	case depth > 2 || r < 4:
		return g.pick(g.str(), "1", "true", "null", "1.5e3")
	case r < 6:
		var items []string
		for range g.n(3) {
			items = append(items, g.gap()+g.value(depth+1, "")+g.gap())
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	return g.members(depth)
}

// file is a whole settings file, maybe ending in an unclosed comment.
func (g *settingsGen) file() string {
	f := g.gap() + g.members(0) + g.gap()
	if g.n(4) == 0 {
		f += g.comment(false)
	}
	return f
}
