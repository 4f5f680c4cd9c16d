package bundle

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// benchTreeVersion names the layout of the cached benchmark tree; change it
// whenever benchTree builds something different.
const benchTreeVersion = "v1-100x200"

const (
	benchBundles      = 100
	benchFilesPerDir  = 20
	benchDirsPerBundl = 10
	// 100 bundles of a manifest and 199 other files: 20,000 files.
	benchFilesPerBundle = benchFilesPerDir*benchDirsPerBundl - 1
)

// benchTree returns a $BUNDLECTL_HOME holding 100 valid bundles with
// 20,000 files in all. It is built once under os.TempDir and reused by
// later runs (creating 20,000 files is slow on some filesystems); a run
// that finds a half-built tree builds a new one beside it.
func benchTree(b *testing.B) string {
	b.Helper()
	home := filepath.Join(os.TempDir(), "bundlectl-bench-"+benchTreeVersion)
	marker := filepath.Join(home, "complete")
	if data, err := os.ReadFile(marker); err == nil && string(data) == benchTreeVersion {
		return home
	}
	tmp, err := os.MkdirTemp(os.TempDir(), "bundlectl-bench-build-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	content := make([]byte, 512)
	for i := range content {
		content[i] = byte('a' + i%26)
	}
	for i := 0; i < benchBundles; i++ {
		name := fmt.Sprintf("bundle-%03d", i)
		dir := filepath.Join(tmp, "bundles", name)
		n := 0
		for d := 0; d < benchDirsPerBundl; d++ {
			sub := filepath.Join(dir, fmt.Sprintf("dir%02d", d))
			if err := os.MkdirAll(sub, 0o755); err != nil {
				b.Fatal(err)
			}
			for f := 0; f < benchFilesPerDir && n < benchFilesPerBundle; f++ {
				if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("file%02d.txt", f)), content, 0o644); err != nil {
					b.Fatal(err)
				}
				n++
			}
		}
		manifest := fmt.Sprintf("schema_version = 1\n[plugin]\nname = %q\n", name)
		if err := os.WriteFile(filepath.Join(dir, ManifestTOML), []byte(manifest), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, "complete"), []byte(benchTreeVersion), 0o644); err != nil {
		b.Fatal(err)
	}
	os.RemoveAll(home) // a stale or half-built tree
	if err := os.Rename(tmp, home); err != nil {
		// Another run may have finished first.
		if data, rerr := os.ReadFile(marker); rerr == nil && string(data) == benchTreeVersion {
			return home
		}
		b.Fatal(err)
	}
	return home
}

func BenchmarkDiscover(b *testing.B) {
	home := benchTree(b)
	roots := Roots{Home: home}
	d := Discover(roots, Limits{})
	files := 0
	for _, bd := range d.Bundles {
		if bd.Rejected() {
			b.Fatalf("%s: %v", bd.ID, bd.Report.Findings)
		}
		files += bd.Tree.Files
	}
	if len(d.Bundles) != benchBundles || files != benchBundles*(benchFilesPerBundle+1) {
		b.Fatalf("%d bundles, %d files", len(d.Bundles), files)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Discover(roots, Limits{})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(files), "ns/file")
}

// BenchmarkLstatWalk is the floor for BenchmarkDiscover: one directory
// listing per directory and one lstat per entry of the same tree, in one
// goroutine, with no checks at all.
func BenchmarkLstatWalk(b *testing.B) {
	root := filepath.Join(benchTree(b), "bundles")
	b.ReportAllocs()
	b.ResetTimer()
	files := 0
	for b.Loop() {
		files = 0
		err := filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := os.Lstat(p)
			if err != nil {
				return err
			}
			if fi.Mode().IsRegular() {
				files++
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if files != benchBundles*(benchFilesPerBundle+1) {
		b.Fatalf("%d files", files)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(files), "ns/file")
}
