package main

import (
	"errors"
	"testing"

	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/sources"
)

// sync's hint for a failed fetch comes from the fetch's own error (the
// repository that failed), not from matching the problem's text: a
// reason that merely reads like one gets no ls-remote hint.
func TestSyncNextFromTypedFetchError(t *testing.T) {
	fetch := &sources.Error{Source: "file:///srv/r", Reason: "git fetch failed: fatal: x", Err: sources.ErrNotFound, Fix: "git ls-remote file:///srv/r"}
	if _, h := syncNext("/nonexistent/bundlectl.lock", &lifecycle.SyncError{Problems: []lifecycle.SyncProblem{{Name: "p", Reason: fetch.Error(), Err: fetch}}}); h != fetch.Fix {
		t.Errorf("hint %q, want %q", h, fetch.Fix)
	}
	other := errors.New("a name like \"git fetch failed\"")
	if _, h := syncNext("/nonexistent/bundlectl.lock", &lifecycle.SyncError{Problems: []lifecycle.SyncProblem{{Name: "p", Reason: other.Error(), Err: other}}}); h != "" {
		t.Errorf("hint %q for a problem that is not a failed fetch", h)
	}
}

// A sync that cannot use the workspace's tmp (a planted link) hints what
// its error names: the command that removes the link.
func TestSyncNextFromWorkspaceTmpRefusal(t *testing.T) {
	refused := &lifecycle.SourceError{Reason: `the workspace's "/w/.bundlectl/tmp" is a symbolic link`, Fix: "rm -- /w/.bundlectl/tmp", Err: lifecycle.ErrRefused}
	if _, h := syncNext("/nonexistent/bundlectl.lock", &lifecycle.SyncError{Problems: []lifecycle.SyncProblem{{Name: "p", Reason: refused.Error(), Err: refused}}}); h != refused.Fix {
		t.Errorf("hint %q, want %q", h, refused.Fix)
	}
}
