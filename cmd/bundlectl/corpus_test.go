package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bundlectl/bundlectl/internal/testtree"

	"github.com/bundlectl/bundlectl/internal/corpus"
)

// cliGuard bounds one in-process command that does not return at all: no
// corpus case may make bundlectl hang. It bounds a hang, not a speed:
// list over every case takes seconds on an idle machine and much longer
// on a busy one, and neither may fail the test.
const cliGuard = 5 * time.Minute

type cliResult struct {
	code           int
	stdout, stderr string
}

// runGuarded calls run in-process and fails the test on a panic or a hang.
func runGuarded(t *testing.T, args ...string) cliResult {
	t.Helper()
	done := make(chan any, 1)
	var res cliResult
	go func() {
		defer func() { done <- recover() }()
		var out, errb bytes.Buffer
		res.code = run(args, strings.NewReader(""), &out, &errb)
		res.stdout, res.stderr = out.String(), errb.String()
	}()
	select {
	case p := <-done:
		if p != nil {
			t.Fatalf("bundlectl %s panicked: %v", strings.Join(args, " "), p)
		}
	case <-time.After(cliGuard):
		t.Fatalf("bundlectl %s hung: no return after %v", strings.Join(args, " "), cliGuard)
	}
	return res
}

// TestCorpusCLI runs validate, validate --json, review and review --json
// on every corpus case that uses the default bounds (the CLI has no
// flag for others): exit 0 for a valid (possibly blocked) bundle and 1
// for one that breaks a rule, every wanted finding printed with its path
// and rule, and no secret of the case anywhere in stdout or stderr.
func TestCorpusCLI(t *testing.T) {
	committed, err := corpus.Committed(filepath.Join("..", "..", "testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	ws := t.TempDir()
	for _, c := range append(committed, corpus.Runtime(t)...) {
		if !c.DefaultLimits() {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			if c.Runtime {
				corpus.Build(t, c)
			}
			dir, err := filepath.Abs(c.Dir)
			if err != nil {
				t.Fatal(err)
			}
			checkCLICase(t, c, home, ws, dir)
		})
	}
}

func checkCLICase(t *testing.T, c corpus.Case, home, ws, dir string) {
	want := exitOK
	if !c.Valid() {
		want = exitFailure
	}
	global := []string{"--home", home, "--workspace", ws}
	outputs := map[string]cliResult{}
	for _, cmd := range [][]string{{"validate"}, {"validate", "--json"}, {"review"}, {"review", "--json"}} {
		name := strings.Join(cmd, " ")
		r := runGuarded(t, append(append(append([]string{}, global...), cmd...), dir)...)
		outputs[name] = r
		want := want
		if cmd[0] == "review" && !c.Rejected() {
			// review exits 1 only for a rejected bundle: one with only
			// skipped components has a trustable review.
			want = exitOK
		}
		if r.code != want {
			t.Errorf("bundlectl %s exited %d, want %d\nstdout:\n%s\nstderr:\n%s", name, r.code, want, r.stdout, r.stderr)
		}
		for _, s := range c.Secrets {
			if strings.Contains(r.stdout, s) || strings.Contains(r.stderr, s) {
				t.Errorf("bundlectl %s echoes the secret %q", name, s)
			}
		}
		if msg := unsafeOutput(r.stdout + r.stderr); msg != "" {
			t.Errorf("bundlectl %s prints %s: bundle text must reach the terminal escaped", name, msg)
		}
		if strings.Contains(r.stderr, "panic") {
			t.Errorf("bundlectl %s: stderr mentions a panic:\n%s", name, r.stderr)
		}
	}

	// Text: every wanted finding is printed as "<path>: <message> [<rule>]".
	text := outputs["validate"].stdout
	for _, w := range c.Wants {
		if !containsFinding(text, w) {
			t.Errorf("validate does not print %s:\n%s", w, text)
		}
	}

	// JSON: the stable fields, each error with a path and a rule.
	var v struct {
		Name     string    `json:"name"`
		Valid    bool      `json:"valid"`
		Blocked  bool      `json:"blocked"`
		Errors   []finding `json:"errors"`
		Warnings []finding `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(outputs["validate --json"].stdout), &v); err != nil {
		t.Fatalf("validate --json: %v\n%s", err, outputs["validate --json"].stdout)
	}
	if v.Name != c.Name || v.Valid != c.Valid() || v.Blocked != (len(c.Blocked) > 0) {
		t.Errorf("validate --json: name %q valid %v blocked %v, want %q %v %v", v.Name, v.Valid, v.Blocked, c.Name, c.Valid(), len(c.Blocked) > 0)
	}
	for _, f := range append(v.Errors, v.Warnings...) {
		if f.Path == "" || f.Rule == "" || f.Message == "" {
			t.Errorf("validate --json: finding without path, rule or message: %+v", f)
		}
	}
	for _, w := range c.Wants {
		list := v.Errors
		if w.Severity == "warning" {
			list = v.Warnings
		}
		found := false
		for _, f := range list {
			found = found || f.Rule == w.Rule && strings.HasPrefix(f.Path, w.Path) && f.Skipped == (w.Severity == "skipped")
		}
		if !found {
			t.Errorf("validate --json lacks %s", w)
		}
	}
	if len(v.Errors) > 0 != !c.Valid() {
		t.Errorf("validate --json: %d errors for a case that is valid=%v", len(v.Errors), c.Valid())
	}
	var rv map[string]any
	if err := json.Unmarshal([]byte(outputs["review --json"].stdout), &rv); err != nil {
		t.Errorf("review --json: %v\n%s", err, outputs["review --json"].stdout)
	}
}

// containsFinding reports whether validate's text output has a line for w:
// the path prefix and, on the same line, the rule in brackets.
func containsFinding(text string, w corpus.Want) bool {
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, w.Path) && strings.HasSuffix(l, fmt.Sprintf("[%s]", w.Rule)) {
			return true
		}
	}
	return false
}

// unsafeOutput describes the first byte sequence in s that could move the
// cursor, recolour, clear the screen or reorder text, or "" if none.
func unsafeOutput(s string) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case unicode.IsControl(r) || r == 0x2028 || r == 0x2029:
			return fmt.Sprintf("the control character U+%04X", r)
		case r == 0x061C || r == 0x200E || r == 0x200F || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069:
			return fmt.Sprintf("the bidirectional character U+%04X", r)
		case unicode.Is(unicode.Cf, r):
			return fmt.Sprintf("the invisible format character U+%04X", r)
		}
	}
	return ""
}

// TestCorpusList installs every corpus case as a workspace bundle and runs
// list and list --json: discovery of hostile bundles must finish, print no
// secret and no raw control text, and give each case the status its
// validity implies (invalid, blocked or untrusted).
func TestCorpusList(t *testing.T) {
	committed, err := corpus.Committed(filepath.Join("..", "..", "testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	bundles := filepath.Join(ws, ".bundlectl", "bundles")
	var cases []corpus.Case
	for _, c := range committed {
		dst := filepath.Join(bundles, c.Name)
		if err := testtree.Copy(c.Dir, dst); err != nil {
			t.Fatal(err)
		}
		c.Dir = dst
		cases = append(cases, c)
	}
	for _, c := range corpus.Runtime(t) {
		switch {
		case !c.DefaultLimits():
			continue
		case c.Name == "rt-device", c.Name == "rt-bundle-path-is-file", c.Name == "rt-bundle-dir-symlink":
			// A device needs a privilege (the bundle test covers it); the
			// other two are about the path given to validate, not a
			// bundle inside a root.
			continue
		}
		c.Dir = filepath.Join(bundles, c.Name)
		corpus.Build(t, c)
		cases = append(cases, c)
	}
	global := []string{"--home", t.TempDir(), "--workspace", ws}
	var secrets []string
	for _, c := range cases {
		secrets = append(secrets, c.Secrets...)
	}
	out := map[string]cliResult{}
	for _, cmd := range [][]string{{"list"}, {"list", "--json"}} {
		name := strings.Join(cmd, " ")
		r := runGuarded(t, append(append([]string{}, global...), cmd...)...)
		out[name] = r
		if r.code != exitOK {
			t.Errorf("bundlectl %s exited %d\nstderr:\n%s", name, r.code, r.stderr)
		}
		for _, s := range secrets {
			if strings.Contains(r.stdout, s) || strings.Contains(r.stderr, s) {
				t.Errorf("bundlectl %s echoes the secret %q", name, s)
			}
		}
		if msg := unsafeOutput(r.stdout + r.stderr); msg != "" {
			t.Errorf("bundlectl %s prints %s", name, msg)
		}
	}
	var list struct {
		Bundles []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
		} `json:"bundles"`
	}
	if err := json.Unmarshal([]byte(out["list --json"].stdout), &list); err != nil {
		t.Fatalf("list --json: %v", err)
	}
	got := map[string]string{}
	for _, e := range list.Bundles {
		got[e.Name] = e.Status
	}
	for _, c := range cases {
		want := "untrusted"
		switch {
		case c.Rejected():
			want = "invalid"
		case len(c.Blocked) > 0:
			want = "blocked"
		}
		if got[c.Name] != want {
			t.Errorf("list: %s has status %q, want %q", c.Name, got[c.Name], want)
		}
	}
}
