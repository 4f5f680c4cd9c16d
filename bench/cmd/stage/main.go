// Command stage is the benchmark driver for staging.Store.Stage: it walks
// a directory and stages it into a store, as `bundlectl trust` would.
//
//	stage -hash SRC                 print the content hash of SRC
//	stage -want HEX SRC STORE       walk SRC and stage it into STORE
//
// With -times it prints "walk <µs> stage <µs>" on stderr, so the cost of
// the walk (validation: names, NFC, case folding) can be told apart from
// the copy itself.
//
// It exists for bench/stage.sh, which times the second form against cp -a.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/bundlectl/bundlectl/review"
	"github.com/bundlectl/bundlectl/staging"
)

func main() {
	hashOnly := flag.Bool("hash", false, "print the content hash of SRC and exit")
	wantHex := flag.String("want", "", "the content hash SRC must have")
	times := flag.Bool("times", false, "print the walk and stage durations in µs on stderr")
	flag.Parse()
	if err := run(*hashOnly, *wantHex, *times, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "stage:", err)
		os.Exit(1)
	}
}

func run(hashOnly bool, wantHex string, times bool, args []string) error {
	if len(args) < 1 {
		return fmt.Errorf("usage: stage -hash SRC | stage -want HEX SRC STORE")
	}
	src, err := filepath.Abs(args[0])
	if err != nil {
		return err
	}
	t0 := time.Now()
	tree, rep := bundle.Walk(src, bundle.Limits{})
	walked := time.Since(t0)
	if err := rep.Err(); err != nil {
		return err
	}
	if hashOnly {
		d, err := contentHash(tree)
		if err != nil {
			return err
		}
		fmt.Println(d)
		return nil
	}
	if len(args) != 2 {
		return fmt.Errorf("usage: stage -want HEX SRC STORE")
	}
	want, err := receipts.Parse(wantHex)
	if err != nil {
		return err
	}
	store, err := filepath.Abs(args[1])
	if err != nil {
		return err
	}
	t1 := time.Now()
	_, err = (&staging.Store{Dir: store}).Stage(tree, want, bundle.Limits{})
	if times {
		fmt.Fprintf(os.Stderr, "walk %d stage %d\n", walked.Microseconds(), time.Since(t1).Microseconds())
	}
	return err
}

// contentHash is the plain, sequential recipe, independent of Stage.
func contentHash(t *bundle.Tree) (receipts.Digest, error) {
	th := review.NewTreeHasher()
	buf := make([]byte, 1<<20)
	for _, e := range t.Entries {
		var d receipts.Digest
		if e.Kind.Regular() {
			f, _, err := t.Open(e.Path)
			if err != nil {
				return d, err
			}
			d, _, err = review.FileDigest(f, buf)
			f.Close()
			if err != nil {
				return d, err
			}
		}
		if err := th.AddEntry(e, d); err != nil {
			return d, err
		}
	}
	return th.Sum(), nil
}
