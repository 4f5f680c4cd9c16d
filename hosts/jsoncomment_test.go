package hosts

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

// geminiHooks are setup's lines for a fake bundlectl; the server's
// arguments hold text that looks like comments, which are strings.
func geminiHooks() []SetupHook {
	return []SetupHook{
		{Event: "BeforeTool", Matcher: "*", Command: "/b/bundlectl --home /h hooks run BeforeTool --host gemini", Timeout: 86400000},
		{Event: "AfterTool", Matcher: "*", Command: "/b/bundlectl --home /h hooks run AfterTool --host gemini", Timeout: 86400000},
	}
}

var geminiServers = map[string]any{"bundlectl-b-s": map[string]any{"command": "/b/bundlectl", "args": []string{"mcp", "http://x/*y*/", "//z"}}}

// setupChanges are the changes setup makes to a Gemini CLI settings file.
var setupChanges = map[string]func(*JSON){
	"apply hooks":   func(r *JSON) { ApplyJSONHooks(r, "gemini", geminiHooks()) },
	"strip hooks":   func(r *JSON) { StripJSONHooks(r, "gemini") },
	"apply servers": func(r *JSON) { ApplyJSONServers(r, "mcpServers", []string{"bundlectl-b-s"}, geminiServers) },
	"strip servers": func(r *JSON) { StripJSONServers(r, "mcpServers") },
}

// commentedSeeds are settings files as Gemini CLI 0.61.0 reads them
// (each tried with its strip-json-comments and JSON.parse).
var commentedSeeds = []string{
	"{\n  // my theme\n  \"ui\": {\"theme\": \"GitHub\"}\n}\n",
	"/* head */ {\"ui\": {\"theme\": \"dark\"}} // tail",
	"{\"a\": \"http://x\", \"b\": \"/*\", \"c\": \"x\\\"//\", \"d\": \"*/\"}",
	"{\r\n  // crlf\r\n  \"ui\": {\"theme\": \"dark\"}, /* x */\r\n  \"hooks\": {\r\n    \"BeforeTool\": [ // mine\r\n      {\"matcher\": \"x\", \"hooks\": []}\r\n    ]\r\n  }\r\n}\r\n",
	"{\n  \"hooks\" /* k */ : /* v */ {\n    // before\n    \"BeforeTool\": [\n      {\"matcher\": \"*\", \"hooks\": [{\"type\": \"command\", \"command\": \"/b/bundlectl hooks run BeforeTool --host gemini\" /* inside */, \"timeout\": 1}]} // same line\n      // after\n    ] /* after value */ ,\n    \"AfterTool\": [] // empty\n  }\n}\n",
	"{\"mcpServers\": {\"bundlectl-b-old\": {\"command\": \"/b/bundlectl\" /* c */}, \"mine\": {\"command\": \"x\"}}}",
	"{\"a\": 1} /* unterminated",
	"{\"a\": 1} // unterminated",
	"{\"a\": /*/ still */ 1}",
	"// only a comment\n",
	"{\n    \"ui\": {\n        \"theme\": \"dark\"\n    }\n}\n",
	"{\n\t\"hooks\": {\n\t\t\"BeforeTool\": \"not a list\" // x\n\t}\n}",
	"{\"hooks\": {\"AfterTool\": [{\"hooks\": [{\"command\": \"/b/bundlectl hooks run AfterTool --host gemini\"}]}, // mine\n{\"matcher\": \"m\"}]}}",
	// a // comment in a value setup replaces, before white space that
	// ends a line
	"{\"hooks\":[[//\n]] \n}",
	"{\"mcpServers\":[//\n] \n}",
}

// canonical is j written as a value built here: its layout forgotten.
func canonical(j *JSON) string {
	var forget func(*JSON) *JSON
	forget = func(j *JSON) *JSON {
		c := *j
		c.lay, c.doc = nil, nil
		c.Items = nil
		for _, it := range j.Items {
			c.Items = append(c.Items, forget(it))
		}
		if j.Kind == JSONObject {
			c.Fields = map[string]*JSON{}
			for k, v := range j.Fields {
				c.Fields[k] = forget(v)
			}
		}
		return &c
	}
	return string(forget(j).Marshal())
}

func commentTexts(data []byte) []string {
	var out []string
	for _, c := range jsonComments(data) {
		out = append(out, string(data[c.start:c.end]))
	}
	return out
}

// FuzzEditCommentedJSON: setup's edits of a file Gemini CLI reads keep
// every comment byte for byte and in order, write what Gemini CLI reads
// (CommentedJSON), change the same as editing the file with its comments
// blanked, change nothing when they take nothing out or add nothing, and
// applied twice change nothing more.
func FuzzEditCommentedJSON(f *testing.F) {
	for _, s := range commentedSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ParseJSONAs(data, CommentedJSON)
		for name, change := range setupChanges {
			out, editErr := EditJSONAs(CommentedJSON, change)(data)
			if err != nil || in.Kind != JSONObject {
				if editErr == nil {
					t.Fatalf("%s: edited a file that does not parse: %q", name, data)
				}
				return
			}
			if editErr != nil {
				t.Fatalf("%s: %v\n%q", name, editErr, data)
			}
			got, err := ParseJSONAs(out, CommentedJSON)
			if err != nil {
				t.Fatalf("%s: wrote what does not parse (%v):\n%s\nfrom\n%s", name, err, out, data)
			}
			if a, b := commentTexts(data), commentTexts(out); strings.Join(a, "\x00") != strings.Join(b, "\x00") || len(a) != len(b) {
				t.Fatalf("%s: comments %q became %q:\n%s\nfrom\n%s", name, a, b, out, data)
			}
			plain, err := EditJSON(change)(StripJSONComments(data))
			if err != nil {
				t.Fatalf("%s: the blanked file: %v", name, err)
			}
			want, _ := ParseJSON(plain)
			if canonical(got) != canonical(want) {
				t.Fatalf("%s: wrote\n%s\nand with the comments blanked\n%s", name, canonical(got), canonical(want))
			}
			if canonical(got) == canonical(in) && len(bytes.TrimSpace(StripJSONComments(data))) > 0 && !bytes.Equal(out, data) {
				t.Fatalf("%s: changed nothing but the text:\n%q\nfrom\n%q", name, out, data)
			}
			again, err := EditJSONAs(CommentedJSON, change)(out)
			if err != nil || !bytes.Equal(again, out) {
				t.Fatalf("%s: applied twice (%v):\n%s\nonce:\n%s", name, err, again, out)
			}
		}
		// --undo of a file changed since setup takes setup's lines out,
		// every comment kept.
		wired, _ := EditJSONAs(CommentedJSON, setupChanges["apply hooks"])(data)
		undone, err := EditJSONAs(CommentedJSON, setupChanges["strip hooks"])(wired)
		if err != nil {
			t.Fatalf("undo: %v\n%s", err, wired)
		}
		if a, b := commentTexts(data), commentTexts(undone); strings.Join(a, "\x00") != strings.Join(b, "\x00") || len(a) != len(b) {
			t.Fatalf("setup then undo: comments %q became %q:\n%s", a, b, undone)
		}
	})
}

// TestCommentedJSONRefused: what Gemini CLI 0.61.0 does not read either
// (each tried with its strip-json-comments and JSON.parse) is refused at
// its line.
func TestCommentedJSONRefused(t *testing.T) {
	for _, c := range []struct {
		name, in string
		line     int
		says     string
	}{
		{"trailing comma", "{\n  \"a\": 1,\n}", 2, "invalid character '}'"},
		{"byte order mark", "\ufeff{\"a\": 1}", 1, "byte order mark"},
		{"no-break space in a comment", "{\n  // a\u00a0b\n  \"a\": 1\n}", 2, "U+00A0"},
		{"vertical tab in a comment", "{\"a\": 1} /*\n\v*/", 2, "U+000B"},
		{"line separator in a comment", "{\"a\": 1} // \u2028", 1, "U+2028"},
		{"hash comment", "{\"a\": 1}\n# c", 2, "data after the JSON document"},
		{"slash alone", "{\"a\": 1 / 2}", 1, "invalid character '/'"},
		{"repeated key", "{\"a\": 1, // c\n \"a\": 2}", 2, `duplicate key "a"`},
		// Refused as encoding/json refuses it: the parser recursed once a
		// level, and some million levels crashed bundlectl (stack overflow).
		{"nested too deep", "{\n\"a\": " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "}", 2, "nested more than 10000 deep"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := EditJSONAs(CommentedJSON, setupChanges["apply hooks"])([]byte(c.in))
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line != c.line || !strings.Contains(err.Error(), c.says) || !strings.HasPrefix(err.Error(), "not JSON at line") {
				t.Errorf("got %v, want line %d: …%s…", err, c.line, c.says)
			}
		})
	}
}

// wiredGroup is setup's group for BeforeTool as TestCommentedJSONEdits
// wires it, as setup writes it at depth 3.
const wiredGroup = `      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": "bundlectl hooks run BeforeTool --host gemini",
            "timeout": 5
          }
        ]
      }`

// TestCommentedJSONEdits: setup's edit of a settings file with comments
// leaves every byte outside what it changes as it was, writes its own in
// the file's line breaks and indentation, and keeps each comment of what
// it takes out or replaces where that was.
func TestCommentedJSONEdits(t *testing.T) {
	hs := []SetupHook{{Event: "BeforeTool", Matcher: "*", Command: "bundlectl hooks run BeforeTool --host gemini", Timeout: 5}}
	apply := EditJSONAs(CommentedJSON, func(r *JSON) { ApplyJSONHooks(r, "gemini", hs) })
	strip := EditJSONAs(CommentedJSON, func(r *JSON) { StripJSONHooks(r, "gemini") })
	own := `{"matcher": "*", "hooks": [{"type": "command", "command": "bundlectl hooks run BeforeTool --host gemini", "timeout": 5}]}`
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	for _, c := range []struct {
		name     string
		edit     func([]byte) ([]byte, error)
		in, want string
	}{
		{"each kind, and strings that look like comments", apply,
			"// my settings\n{\n  /* theme */ \"ui\": {\"theme\": \"GitHub\"}, // trailing\n  \"tools\": {\"exclude\": [\"http://x\", \"/*\", \"*/\", \"//\"]} // last\n}\n",
			"// my settings\n{\n  /* theme */ \"ui\": {\"theme\": \"GitHub\"}, // trailing\n  \"tools\": {\"exclude\": [\"http://x\", \"/*\", \"*/\", \"//\"]}, // last\n  \"hooks\": {\n    \"BeforeTool\": [\n" + wiredGroup + "\n    ]\n  }\n}\n"},
		{"CRLF line breaks", apply,
			crlf("{\n  // c\n  \"ui\": {}\n}\n"),
			crlf("{\n  // c\n  \"ui\": {},\n  \"hooks\": {\n    \"BeforeTool\": [\n" + wiredGroup + "\n    ]\n  }\n}\n")},
		{"indented by four", apply,
			"{\n    \"ui\": {\n        \"theme\": \"dark\" /* x */\n    }\n}\n",
			"{\n    \"ui\": {\n        \"theme\": \"dark\" /* x */\n    },\n    \"hooks\": {\n        \"BeforeTool\": [\n" + strings.ReplaceAll(wiredGroup, "  ", "    ") + "\n        ]\n    }\n}\n"},
		{"one line, spread", apply,
			"{\"ui\": {\"theme\": \"dark\"}, /* c */ \"tools\": {}}\n",
			"{\n  \"ui\": {\"theme\": \"dark\"},\n  /* c */ \"tools\": {},\n  \"hooks\": {\n    \"BeforeTool\": [\n" + wiredGroup + "\n    ]\n  }\n}\n"},
		{"undo: a comment by the key it deletes, and one after setup's line", strip,
			"{\n  \"ui\": {},\n  // guards\n  \"hooks\": {\n    \"BeforeTool\": [\n      " + own + " // wired\n    ]\n  }\n}\n",
			"{\n  \"ui\": {}\n  // guards\n  // wired\n}\n"},
		{"a comment inside setup's entry", apply,
			"{\n  \"hooks\": {\n    \"BeforeTool\": [\n      {\"matcher\": \"mine\", \"hooks\": []},\n      {\n        // keep me\n        \"matcher\": \"*\", /* and me */\n        \"hooks\": [{\"type\": \"command\", \"command\": \"bundlectl hooks run BeforeTool --host gemini\", \"timeout\": 1}]\n      }\n    ]\n  }\n}\n",
			"{\n  \"hooks\": {\n    \"BeforeTool\": [\n      {\"matcher\": \"mine\", \"hooks\": []},\n      // keep me\n      /* and me */\n" + wiredGroup + "\n    ]\n  }\n}\n"},
		{"a value setup replaces", apply,
			"{\n  \"hooks\": {\n    \"BeforeTool\": /* was */ \"off\" /* in */ // note\n  }\n}\n",
			"{\n  \"hooks\": {\n    \"BeforeTool\": /* was */ [\n" + wiredGroup + "\n    ] /* in */ // note\n  }\n}\n"},
		// The // comment of the group taken out is kept after what
		// comes before it ("{"), and the space after "]," (white space
		// before a line break) is left out: it would have ended the
		// comment, and the edit was refused as not keeping it.
		{"undo: a // comment moved before white space that ends a line", strip,
			"{\n  \"hooks\": {\n    \"BeforeTool\": [\n      {\"matcher\": \"*\", // wired\n       \"hooks\": [{\"type\": \"command\", \"command\": \"bundlectl hooks run BeforeTool --host gemini\", \"timeout\": 5}]}\n    ], \n    \"AfterTool\": []\n  }\n}\n",
			"{\n  \"hooks\": { // wired\n    \"AfterTool\": []\n  }\n}\n"},
		{"nothing to take out", strip,
			"/* a */ {\"a\": \"//\" /* b */ , \"c\": [ // d\n 1]} // e",
			"/* a */ {\"a\": \"//\" /* b */ , \"c\": [ // d\n 1]} // e"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.edit([]byte(c.in))
			if err != nil || string(got) != c.want {
				t.Errorf("got (%v)\n%s\nwant\n%s", err, got, c.want)
			}
		})
	}
}

// TestCommentedJSONCommentNotKept: an edit that would write a comment
// twice, or lose one, is refused at its line, with a hint that shows it.
// Setup's own changes never do (FuzzEditCommentedJSON); a change that
// moves a member does.
func TestCommentedJSONCommentNotKept(t *testing.T) {
	in := "{\n  \"a\": {\n    // c\n    \"x\": 1\n  },\n  \"b\": 2\n}\n"
	_, err := EditJSONAs(CommentedJSON, func(r *JSON) {
		a := r.Fields["a"]
		r.Delete("a")
		r.Set("a", a)
	})([]byte(in))
	var ce *CommentError
	if !errors.As(err, &ce) || ce.Line != 3 {
		t.Fatalf("got %v, want the comment of line 3 named", err)
	}
	fe := &SetupFileError{Path: "/home/a b/.gemini/settings.json", Host: "gemini", Err: err}
	if got, want := fe.Hint(), `sed -n 3p '/home/a b/.gemini/settings.json'`; got != want {
		t.Errorf("Hint() = %q, want %q", got, want)
	}
	if !strings.Contains(fe.Error(), "line 3: setup's edit would not keep this comment as written, so setup does not edit it") {
		t.Errorf("Error() = %q", fe.Error())
	}
}

// TestCommentedJSONReadBack: the checks that read setup's lines and
// entries back (wired events, their timeout, the servers' timeouts) read
// a file as its host does: with comments for Gemini CLI, none for a host
// that reads a file with a comment as malformed (Claude Code).
func TestCommentedJSONReadBack(t *testing.T) {
	servers := map[string]any{"bundlectl-b-s": map[string]any{"command": "/b/bundlectl", "args": []string{"mcp", "b", "s"}, "timeout": 70000}}
	data := []byte(`{
  // wired by bundlectl
  "hooks": {"BeforeTool": [{"matcher": "*", "hooks": [{"type": "command", "command": "/b/bundlectl hooks run BeforeTool --host gemini", /* was 86400000 */ "timeout": 1000}]}]},
  "mcpServers": {"bundlectl-b-s": {"command": "/b/bundlectl", "args": ["mcp", "b", "s"]} /* no timeout */}
}`)
	if got := WiredJSONEvents(data, CommentedJSON, "gemini"); !slices.Equal(got, []string{"BeforeTool"}) {
		t.Errorf("WiredJSONEvents = %v", got)
	}
	if got, ok := WiredJSONTimeout(data, CommentedJSON, "gemini", 60000, NodeTimerMax); got != 1000 || !ok {
		t.Errorf("WiredJSONTimeout = %d, %v", got, ok)
	}
	if got := ShortJSONServerTimeouts(data, CommentedJSON, "mcpServers", []string{"bundlectl-b-s"}, servers); !slices.Equal(got, []string{"bundlectl-b-s"}) {
		t.Errorf("ShortJSONServerTimeouts = %v", got)
	}
	if got := WiredJSONEvents(data, PlainJSON, "gemini"); got != nil {
		t.Errorf("WiredJSONEvents as plain JSON = %v, want none", got)
	}
}
