package lifecycle

import (
	"testing"

	"github.com/bundlectl/bundlectl/sources"
)

// A tree that cannot be read where it was placed (sync reads it back by
// path, which a swap of the workspace's root can point at an empty
// directory) is an error, never a panic.
func TestSourceRecordOfNoTree(t *testing.T) {
	if _, err := sourceRecord(sources.Resolved{}, nil); err == nil {
		t.Fatal("sourceRecord recorded a tree it could not read")
	}
}
