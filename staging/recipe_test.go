package staging

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/bundlectl/bundlectl/review"
)

// TestStageDigestIsTheContentHash checks that the digest Stage computes
// from the bytes it writes is the "bundle tree v1" content hash, as the
// plain reference recipe and review.ContentHash compute it.
func TestStageDigestIsTheContentHash(t *testing.T) {
	trees := map[string]map[string]string{
		"sample":      sampleTree(),
		"empty":       {},
		"dirs only":   {"a/": "", "a/b/": "", "c/": ""},
		"one empty":   {"f": ""},
		"executables": {"bin/run": "#!/bin/sh\n", "bin/data": "x"},
		// Larger than one worker buffer, and not a multiple of it.
		"large":   {"big": strings.Repeat("0123456789", (bufSize+3)/10+1), "small": "s"},
		"unicode": {"été/ñ.md": "accents", "日本/語": "kanji", "a b/c": "space"},
		"order":   {"a-b": "1", "a/b": "2", "a.b": "3", "ab": "4"},
	}
	for name, files := range trees {
		t.Run(name, func(t *testing.T) {
			src := t.TempDir()
			writeTree(t, src, files)
			ref := referenceHash(t, src)
			got, err := review.ContentHash(walk(t, src))
			if err != nil {
				t.Fatal(err)
			}
			if got != ref {
				t.Fatalf("review.ContentHash %s, reference recipe %s", got, ref)
			}
			s := newStore(t)
			_, err = s.Stage(walk(t, src), receipts.Digest{}, bundle.Limits{})
			var me *MismatchError
			if !errors.As(err, &me) {
				t.Fatalf("Stage with the zero digest: %v", err)
			}
			if me.Got != ref {
				t.Fatalf("Stage computed %s, the content hash is %s", me.Got, ref)
			}
			if _, err := s.Stage(walk(t, src), ref, bundle.Limits{}); err != nil {
				t.Fatal(err)
			}
			if err := s.Verify(ref); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestStagePublishedVectors stages every tree of the published test
// vectors (review/testdata/vectors, docs/hashing.md) and checks the digest
// Stage computes while copying is the published one.
func TestStagePublishedVectors(t *testing.T) {
	paths, err := filepath.Glob("../review/testdata/vectors/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no vectors: %v", err)
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			a, err := txtar.ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			modes := map[string]os.FileMode{}
			var digest string
			src := t.TempDir()
			for _, f := range a.Files {
				switch f.Name {
				case ":mode":
					for _, line := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
						m, rel, _ := strings.Cut(line, " ")
						mode, err := strconv.ParseUint(m, 8, 32)
						if err != nil {
							t.Fatalf("bad :mode line %q", line)
						}
						modes[strings.TrimSuffix(rel, "/")] = os.FileMode(mode)
					}
				case ":digest":
					digest = strings.TrimSpace(string(f.Data))
				}
			}
			var links [][2]string
			for _, f := range a.Files {
				if f.Name != ":links" {
					continue
				}
				for _, line := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
					rel, text, ok := strings.Cut(line, " -> ")
					if !ok {
						t.Fatalf("bad :links line %q", line)
					}
					links = append(links, [2]string{rel, strings.ReplaceAll(text, "@ROOT@", src)})
				}
			}
			for _, f := range a.Files {
				if strings.HasPrefix(f.Name, ":") {
					continue
				}
				writeTree(t, src, map[string]string{f.Name: string(f.Data)})
				if m, ok := modes[f.Name]; ok {
					os.Chmod(filepath.Join(src, filepath.FromSlash(f.Name)), m)
				}
			}
			for _, l := range links {
				p := filepath.Join(src, filepath.FromSlash(l[0]))
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.Symlink(l[1], p); err != nil {
					t.Fatal(err)
				}
			}
			want, err := receipts.Parse(digest)
			if err != nil {
				t.Fatalf(":digest: %v", err)
			}
			// A vector may hold links that are not part of the bundle
			// (skipped findings); only an error would stop a trust.
			tree, rep := bundle.Walk(src, bundle.Limits{})
			if tree == nil || rep.Rejected() {
				t.Fatalf("walk: %v", rep.Err())
			}
			s := newStore(t)
			_, err = s.Stage(tree, receipts.Digest{}, bundle.Limits{})
			var me *MismatchError
			if !errors.As(err, &me) || me.Got != want {
				t.Fatalf("Stage computed %v, the vector says %s", err, want)
			}
			if _, err := s.Stage(tree, want, bundle.Limits{}); err != nil {
				t.Fatal(err)
			}
			if err := s.Verify(want); err != nil {
				t.Fatalf("Verify of the staged vector: %v", err)
			}
		})
	}
}
