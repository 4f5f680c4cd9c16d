package harness

import "testing"

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
