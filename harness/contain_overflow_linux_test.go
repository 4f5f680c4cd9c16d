package harness

import (
	"os"
	"testing"

	"github.com/bundlectl/bundlectl/internal/overflowid"
	"github.com/bundlectl/bundlectl/internal/testtree"
)

// A bundlectl running as the overflow uid (nobody, 65534) never starts a
// child in a user namespace mapping only its own ids: there every file
// another user owns, root's included, would look like the child's own,
// and git's refusal of a repository another user owns, or ssh's of a
// config file, would pass. Here the test runs as uid 65534 (re-run so by
// root) and checks the level it would start a child at, and the one it
// probes.
func TestOverflowUIDGetsNoUserNamespace(t *testing.T) {
	if testtree.RerunAsNobody(t) {
		return
	}
	if !overflowid.IsUID(os.Geteuid()) {
		t.Skip("runs as the overflow uid (re-run so by root)")
	}
	if got := presumedLevel().String() + " " + Containment().String(); got != "subreaper subreaper" && got != "process-group process-group" {
		t.Fatalf("uid %d: presumed and probed levels %q; want no user namespace (the subreaper, or the process group alone)", os.Geteuid(), got)
	}
}
