package sources

import (
	"archive/tar"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCatalogue: no catalogue panics the parser, and every entry it
// accepts from a marketplace fetched from elsewhere stays inside the
// marketplace or names a remote git repository.
func FuzzCatalogue(f *testing.F) {
	for _, name := range []string{"claude", "codex"} {
		data, err := os.ReadFile(filepath.Join("testdata", "marketplaces", name+".json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, name == "codex")
	}
	f.Fuzz(func(t *testing.T, data []byte, codex bool) {
		format := FormatClaude
		if codex {
			format = FormatCodex
		}
		c, err := parseCatalogue(format, data, "fuzz")
		if err != nil {
			return
		}
		if CheckName(c.name) != nil || checkSubdir(c.pluginRoot) != nil {
			t.Fatalf("accepted name %q root %q", c.name, c.pluginRoot)
		}
		for i, raw := range c.plugins {
			if i == 8 {
				break
			}
			var e struct{ Name string }
			if json.Unmarshal(raw, &e) != nil || CheckName(e.Name) != nil {
				continue
			}
			en, err := c.find(e.Name, "fuzz", false)
			if err != nil {
				continue
			}
			switch s := en.src; s.kind {
			case "relative":
				if checkSubdir(s.path) != nil || strings.HasPrefix(s.path, "/") {
					t.Fatalf("relative entry leaves the marketplace: %q", s.path)
				}
			case "github", "url", "git-subdir":
				if _, err := checkGitURL(s.url); err != nil || strings.HasPrefix(strings.ToLower(s.url), "file:") {
					t.Fatalf("entry url %q: %v", s.url, err)
				}
				if checkSubdir(s.path) != nil || (s.ref != "" && checkRef(s.ref) != nil) || (s.sha != "" && !isCommit(s.sha)) {
					t.Fatalf("entry %+v", s)
				}
			default:
				t.Fatalf("entry kind %q accepted", s.kind)
			}
		}
	})
}

// FuzzArchive: no archive panics the extractor, and what it extracts is
// only directories and regular files inside the output directory.
func FuzzArchive(f *testing.F) {
	seeds := [][]tmember{
		{{name: "w/", typ: tar.TypeDir}, {name: "w/plugin.json", body: "{}"}, {name: "w/bin/x", body: "x", mode: 0o755}},
		{{name: "a", body: "x"}, {name: "../evil", body: "y"}},
		{{name: "l", typ: tar.TypeSymlink, linkname: "/etc/passwd"}},
	}
	for i, ms := range seeds {
		f.Add(tarGzBytes(ms), false, i == 0)
		f.Add(zipBytes(ms), true, i == 0)
	}
	f.Fuzz(func(t *testing.T, data []byte, isZip, useSub bool) {
		tmp := t.TempDir()
		file := filepath.Join(tmp, "archive")
		os.WriteFile(file, data, 0o600)
		out := filepath.Join(tmp, "out")
		os.Mkdir(out, 0o700)
		tr, err := newTree(out, smallLimits(), false, "archive", "fuzz")
		if err != nil {
			t.Fatal(err)
		}
		defer tr.close()
		lim := smallLimits()
		var a archiveReader = &tarGz{ctx: context.Background(), file: file, maxHeaders: lim.MaxEntries + 16, maxBytes: tarStreamBound(lim)}
		if isZip {
			z, err := openZip(context.Background(), file, lim.MaxEntries)
			if err != nil {
				return
			}
			a = z
		}
		defer a.close()
		sub := ""
		if useSub {
			sub = "bin"
		}
		if extractArchive(tr, a, sub) != nil || tr.finish() != nil {
			return
		}
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				t.Fatal(err)
			}
			if !d.IsDir() && !d.Type().IsRegular() {
				t.Fatalf("%s is neither a directory nor a regular file", p)
			}
			if rel, _ := filepath.Rel(out, p); strings.HasPrefix(rel, "..") {
				t.Fatalf("%s is outside the output", p)
			}
			return nil
		})
		if ents, _ := os.ReadDir(tmp); len(ents) != 2 {
			t.Fatalf("the extractor wrote beside its output: %v", ents)
		}
	})
}
