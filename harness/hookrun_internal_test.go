package harness

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBlockHint: a block by a hook chain nested past the limit names
// catalog, which lists every active hook and what it runs; any other
// block, or one with a hint already, gets none.
func TestBlockHint(t *testing.T) {
	blocked := Outcome{Blocked: true, Reason: "bundlectl: hook chain refused"}
	for _, c := range []struct {
		o    Outcome
		err  error
		want string
	}{
		{blocked, &ChainError{Depth: MaxHookChain}, "bundlectl catalog"},
		{blocked, &ChainError{Depth: MaxHookChain - 1}, ""},
		{blocked, nil, ""},
		{Outcome{Blocked: true, Reason: "x\nbundlectl: hint: bundlectl list"}, &ChainError{Depth: MaxHookChain}, ""},
		{Outcome{}, &ChainError{Depth: MaxHookChain}, ""},
	} {
		if got := blockHint(c.o, c.err); got != c.want {
			t.Errorf("blockHint(%+v, %v) = %q, want %q", c.o, c.err, got, c.want)
		}
	}
}

// TestEventCwd: the event's cwd, absolute (a relative one from the
// current directory); none when the input is not JSON, names none, or
// holds a NUL (ParseHookEvent refuses that event).
func TestEventCwd(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ input, want string }{
		{`{"cwd":"/w/x"}`, "/w/x"},
		{`{"cwd":"/w/x/../y/"}`, "/w/y"},
		{`{"cwd":"sub"}`, filepath.Join(wd, "sub")},
		{`{"cwd":""}`, ""},
		{`{}`, ""},
		{`{"cwd":"/w\u0000x"}`, ""},
		{`{"cwd":7}`, ""},
		{`not json`, ""},
		// by its exact name, as the host and the hook read it
		{`{"CWD":"/w/x"}`, ""},
		{`{"cwd":"/w/a","CWD":"/w/b","Cwd":"/w/c"}`, "/w/a"},
	} {
		if got := eventCwd([]byte(c.input)); got != c.want {
			t.Errorf("eventCwd(%s) = %q, want %q", c.input, got, c.want)
		}
	}
}
