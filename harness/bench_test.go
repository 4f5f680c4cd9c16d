package harness_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/lifecycle"
)

// benchFixture builds (once, cached under the temp dir) a trusted, enabled
// bundle with n files and a trivial tool, and returns its home and
// workspace.
func benchFixture(b *testing.B, n int) (home, ws string) {
	b.Helper()
	base := filepath.Join(os.TempDir(), fmt.Sprintf("bundlectl-bench-harness-v1-%d", n))
	home, ws = filepath.Join(base, "home"), filepath.Join(base, "ws")
	if _, err := os.Stat(filepath.Join(base, "ready")); err == nil {
		return home, ws
	}
	os.RemoveAll(base)
	src := filepath.Join(ws, ".bundlectl", "bundles", "kit")
	manifest := `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "kit",
  "extensions": {"dev.bundlectl": {"tools": [{"name": "true", "command": "./bin/true"}]}}}`
	files := map[string]string{"bin/true": "#!/bin/sh\nexit 0\n"}
	for i := 0; len(files) < n-1; i++ {
		files[fmt.Sprintf("data/d%03d/f%05d.txt", i%400, i)] = fmt.Sprintf("file %d\n", i)
	}
	for rel, body := range files {
		p := filepath.Join(src, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if rel == "bin/true" {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(src, "plugin.json"), []byte(manifest), 0o644); err != nil {
		b.Fatal(err)
	}
	m := lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{})
	bd, err := m.Find(m.Discover(), "kit")
	if err != nil {
		b.Fatal(err)
	}
	h, err := lifecycle.Compute(bd)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := m.Trust("kit", h.Token()); err != nil {
		b.Fatal(err)
	}
	if _, err := m.Enable("kit"); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "ready"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return home, ws
}

var benchSizes = []int{10, 10000}

// BenchmarkAuthorize is the cost of the authority and integrity check a
// long-lived registry makes before every spawn (Ready runs exactly that
// check). Compare with BenchmarkSpawn: the target is at most 5%.
func BenchmarkAuthorize(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			home, ws := benchFixture(b, n)
			r, err := harness.Load(harness.Options{Home: home, Workspace: ws})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			if err := r.Ready("kit"); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := r.Ready("kit"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSpawn is the spawn the check guards: the same trivial tool run
// directly through harness.Run, with no registry.
func BenchmarkSpawn(b *testing.B) {
	home, ws := benchFixture(b, 10)
	r, err := harness.Load(harness.Options{Home: home, Workspace: ws})
	if err != nil {
		b.Fatal(err)
	}
	cat := r.Catalog()
	r.Close()
	if len(cat.Tools) != 1 {
		b.Fatalf("catalog: %+v", cat)
	}
	snap := ""
	s, _ := lifecycle.New(bundle.Roots{Home: home, Workspace: ws}, bundle.Limits{}).LoadState()
	for _, id := range s.IDs() {
		rec, _ := s.Bundle(id)
		snap = rec.Receipt.Snapshot
	}
	spec := harness.Spec{Argv: []string{filepath.Join(snap, "bin", "true")}, Dir: ws, Env: []string{"PATH=/usr/bin:/bin"}, Stdin: []byte("{}")}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := harness.Run(context.Background(), spec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallTool is check plus spawn through the registry.
func BenchmarkCallTool(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			home, ws := benchFixture(b, n)
			r, err := harness.Load(harness.Options{Home: home, Workspace: ws})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := r.CallTool(context.Background(), "plugin__kit__true", []byte("{}"))
				if err != nil || !res.Success() {
					b.Fatal(err, res)
				}
			}
		})
	}
}
