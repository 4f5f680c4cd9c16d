package review_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/internal/corpus"
	"github.com/bundlectl/bundlectl/review"
)

var updateReaders = flag.Bool("update-readers", false, "rewrite testdata/readers.golden after bumping bundle.ReadersRevision")

const readersGolden = "testdata/readers.golden"

// TestReadersRevision holds bundle.ReadersRevision to what it promises: a
// source hash recorded under one revision stands for the capability hash
// the readers of that revision compute, so any change to what a reader
// makes of a tree must come with a new revision (or a trusted bundle
// whose source is unchanged would keep the older reading's hash, and no
// "update pending review", until its source next changed). The golden
// file is the capability hash of every committed corpus case that loads,
// under the revision on its first line.
func TestReadersRevision(t *testing.T) {
	cases, err := corpus.Committed(filepath.Join("..", "testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	fmt.Fprintf(&got, "revision %d\n", bundle.ReadersRevision)
	for _, c := range cases {
		if c.Limits != (bundle.Limits{}) {
			continue
		}
		b := bundle.Load(c.Dir, bundle.ScopeDir, c.Limits)
		if b.Rejected() || b.Tree == nil {
			continue
		}
		k, _, err := review.CapabilityHash(b)
		if err != nil {
			fmt.Fprintf(&got, "%s error\n", c.Name)
			continue
		}
		fmt.Fprintf(&got, "%s %s\n", c.Name, k)
	}
	want, err := os.ReadFile(readersGolden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) == got.String() {
		return
	}
	wantRev, _, _ := strings.Cut(string(want), "\n")
	gotLines := strings.Split(got.String(), "\n")
	wantHash := map[string]string{}
	for _, l := range strings.Split(string(want), "\n")[1:] {
		name, hash, _ := strings.Cut(l, " ")
		wantHash[name] = hash
	}
	var changed []string
	for _, l := range gotLines[1:] {
		name, hash, _ := strings.Cut(l, " ")
		if old, ok := wantHash[name]; ok && old != hash {
			changed = append(changed, name)
		}
	}
	if wantRev == gotLines[0] && len(changed) > 0 {
		// -update-readers too: rewriting the hashes under the same
		// revision would make the check pass with the promise broken.
		t.Fatalf("the readers now compute other capability hashes for %d corpus case(s) (%s) under the same revision: raise bundle.ReadersRevision (bundle/load.go), then run: go test ./review -run TestReadersRevision -update-readers", len(changed), strings.Join(first(changed, 5), ", "))
	}
	// A case added or removed, or a new revision: the golden file is
	// only out of date.
	if *updateReaders {
		if err := os.WriteFile(readersGolden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("%s (%s) does not list the corpus as the readers of %s read it: run go test ./review -run TestReadersRevision -update-readers", readersGolden, wantRev, gotLines[0])
}

func first(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
