package agenttest

import (
	"bytes"
	"encoding/json"
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
