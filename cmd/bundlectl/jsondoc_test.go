package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/spf13/cobra"
)

// docs/json.md documents the --json output of every command in field
// tables, each introduced by a line "<!-- shape: NAME -->". The first
// cell of a row names a field by its path: "bundles" is a top-level
// field, "bundles[].name" a field of each element of the list bundles,
// "diff.files" a field of the object diff. A trailing "?" marks a field
// that is omitted when empty. When a table lists any field of an object,
// it lists all of them: jsonshape (a script command, used by
// testdata/script/json_shapes.txtar) fails when real output has a field
// the table does not list, or lacks one it lists without "?". A line
// "<!-- example: NAME -->" before a ```json block holds that example to
// the same table.

const jsonDocPath = "../../docs/json.md"

type docField struct {
	parent, key string // parent "" is the top level
	optional    bool
}

var (
	shapeMarker   = regexp.MustCompile(`^<!-- shape: ([a-z-]+) -->$`)
	exampleMarker = regexp.MustCompile(`^<!-- example: ([a-z-]+) -->$`)
	fieldPath     = regexp.MustCompile(`^[A-Za-z_]+(\[\])?(\.[A-Za-z_]+(\[\])?)*\??$`)
)

type jsonDoc struct {
	shapes   map[string][]docField
	examples map[string][]string // shape -> example JSON texts
}

func readJSONDoc(path string) (*jsonDoc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d := &jsonDoc{shapes: map[string][]docField{}, examples: map[string][]string{}}
	sc := bufio.NewScanner(f)
	n := 0
	shape, example := "", ""
	inTable, inExample := false, false
	var buf strings.Builder
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case inExample:
			if strings.TrimSpace(line) == "```" {
				d.examples[example] = append(d.examples[example], buf.String())
				inExample, example = false, ""
				continue
			}
			buf.WriteString(line + "\n")
			continue
		case example != "":
			if strings.TrimSpace(line) == "" {
				continue
			}
			if strings.TrimSpace(line) != "```json" {
				return nil, fmt.Errorf("%s:%d: an example marker must be followed by a ```json block", path, n)
			}
			inExample = true
			buf.Reset()
			continue
		case shape != "":
			t := strings.TrimSpace(line)
			if !strings.HasPrefix(t, "|") {
				if inTable {
					shape, inTable = "", false
				} else if t != "" {
					return nil, fmt.Errorf("%s:%d: a shape marker must be followed by a table", path, n)
				}
				break
			}
			if !inTable { // the header row
				inTable = true
				continue
			}
			cells := strings.Split(strings.Trim(t, "|"), "|")
			cell := strings.TrimSpace(cells[0])
			if strings.Trim(cell, "-: ") == "" { // the separator row
				continue
			}
			if len(cell) < 3 || cell[0] != '`' || cell[len(cell)-1] != '`' || !fieldPath.MatchString(cell[1:len(cell)-1]) {
				return nil, fmt.Errorf("%s:%d: the first cell of a shape row must be one field path in backticks, not %q", path, n, cell)
			}
			p := cell[1 : len(cell)-1]
			fld := docField{optional: strings.HasSuffix(p, "?")}
			p = strings.TrimSuffix(p, "?")
			if i := strings.LastIndexByte(p, '.'); i >= 0 {
				fld.parent, fld.key = p[:i], p[i+1:]
			} else {
				fld.key = p
			}
			if slices.ContainsFunc(d.shapes[shape], func(o docField) bool { return o.parent == fld.parent && o.key == fld.key }) {
				return nil, fmt.Errorf("%s:%d: shape %s lists %s twice", path, n, shape, p)
			}
			d.shapes[shape] = append(d.shapes[shape], fld)
			continue
		}
		if m := shapeMarker.FindStringSubmatch(line); m != nil {
			if _, dup := d.shapes[m[1]]; dup {
				return nil, fmt.Errorf("%s:%d: shape %s is documented twice", path, n, m[1])
			}
			shape = m[1]
			d.shapes[shape] = nil
		}
		if m := exampleMarker.FindStringSubmatch(line); m != nil {
			example = m[1]
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if inExample || example != "" {
		return nil, fmt.Errorf("%s: unterminated example %s", path, example)
	}
	for name := range d.examples {
		if _, ok := d.shapes[name]; !ok {
			return nil, fmt.Errorf("%s: example of undocumented shape %s", path, name)
		}
	}
	return d, nil
}

// checkShape returns every difference between the JSON text out and the
// documented shape name.
func (d *jsonDoc) checkShape(name, out string) []string {
	fields, ok := d.shapes[name]
	if !ok {
		return []string{fmt.Sprintf("docs/json.md documents no shape %q", name)}
	}
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		return []string{fmt.Sprintf("not one JSON value: %v", err)}
	}
	byParent := map[string][]docField{}
	for _, f := range fields {
		byParent[f.parent] = append(byParent[f.parent], f)
	}
	parents := make([]string, 0, len(byParent))
	for p := range byParent {
		parents = append(parents, p)
	}
	sort.Strings(parents)
	var problems []string
	for _, p := range parents {
		var segs []string
		if p != "" {
			segs = strings.Split(p, ".")
		}
		label := p
		if label == "" {
			label = "the top level"
		}
		for _, obj := range jsonAt(v, segs) {
			m, ok := obj.(map[string]any)
			if !ok {
				continue // null, or not an object: nothing to compare
			}
			for _, f := range byParent[p] {
				if _, ok := m[f.key]; !ok && !f.optional {
					problems = append(problems, fmt.Sprintf("%s lacks documented field %q", label, f.key))
				}
			}
			for k := range m {
				if !slices.ContainsFunc(byParent[p], func(f docField) bool { return f.key == k }) {
					problems = append(problems, fmt.Sprintf("%s has field %q, which docs/json.md does not document", label, k))
				}
			}
		}
	}
	sort.Strings(problems)
	return slices.Compact(problems)
}

// jsonAt returns the values at a documented parent path: "a" is the field
// a of an object, "a[]" each element of the list a.
func jsonAt(v any, segs []string) []any {
	if len(segs) == 0 {
		return []any{v}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	key, list := strings.CutSuffix(segs[0], "[]")
	if !list {
		return jsonAt(m[key], segs[1:])
	}
	elems, _ := m[key].([]any)
	var out []any
	for _, e := range elems {
		out = append(out, jsonAt(e, segs[1:])...)
	}
	return out
}

func init() {
	// jsonshape NAME [file]: fail unless the JSON in file (default the
	// last stdout) has exactly the fields docs/json.md documents for NAME.
	scriptCmds["jsonshape"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) < 1 || len(args) > 2 || neg {
			ts.Fatalf("usage: jsonshape NAME [file]")
		}
		d, err := readJSONDoc(ts.Getenv("JSONDOC"))
		ts.Check(err)
		file := "stdout"
		if len(args) == 2 {
			file = args[1]
		}
		if problems := d.checkShape(args[0], ts.ReadFile(file)); len(problems) > 0 {
			ts.Fatalf("%s does not match docs/json.md's shape %s (update the doc, or the code):\n  %s", file, args[0], strings.Join(problems, "\n  "))
		}
	}
}

// TestJSONDocExamples holds every example in docs/json.md to its table.
func TestJSONDocExamples(t *testing.T) {
	d, err := readJSONDoc(jsonDocPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.shapes) == 0 {
		t.Fatal("docs/json.md documents no shapes")
	}
	for name, fields := range d.shapes {
		if len(fields) == 0 {
			t.Errorf("shape %s has an empty table", name)
		}
		for i, ex := range d.examples[name] {
			for _, p := range d.checkShape(name, ex) {
				t.Errorf("example %d of %s: %s", i+1, name, p)
			}
		}
	}
}

// TestJSONDocShapesChecked fails when a shape in docs/json.md is never
// compared with real output by json_shapes.txtar.
func TestJSONDocShapesChecked(t *testing.T) {
	d, err := readJSONDoc(jsonDocPath)
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("testdata/script/json_shapes.txtar")
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, line := range strings.Split(string(script), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "jsonshape" {
			used[f[1]] = true
		}
	}
	for name := range d.shapes {
		if !used[name] {
			t.Errorf("shape %s of docs/json.md is not checked by testdata/script/json_shapes.txtar", name)
		}
	}
}

// TestJSONDocNamesEveryCommand fails when a command is added without
// docs/json.md saying what it prints with --json.
func TestJSONDocNamesEveryCommand(t *testing.T) {
	doc, err := os.ReadFile(jsonDocPath)
	if err != nil {
		t.Fatal(err)
	}
	root, _ := newRoot(nil, nil, nil)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" {
				continue
			}
			if sub.Runnable() || sub.Name() == "completion" {
				path := strings.TrimPrefix(sub.CommandPath(), root.Name()+" ")
				if !strings.Contains(string(doc), "`bundlectl "+path+"`") {
					t.Errorf("docs/json.md does not name `bundlectl %s`: say what it prints with --json", path)
				}
			}
			if sub.Name() != "completion" {
				walk(sub)
			}
		}
	}
	walk(root)
}
