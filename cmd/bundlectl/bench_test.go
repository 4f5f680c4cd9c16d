package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkRunOneShot is `bundlectl run` of a trivial tool from a 100-file
// bundle, in process (no exec of bundlectl itself): discovery, state,
// full verification of source and snapshot, the authority check, and the
// spawn. bench/run.sh compares the whole process with running the tool
// directly.
func BenchmarkRunOneShot(b *testing.B) {
	dir := b.TempDir()
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	src := filepath.Join(ws, ".bundlectl", "bundles", "kit")
	files := map[string]string{
		"plugin.json": `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "kit",
 "extensions": {"dev.bundlectl": {"tools": [{"name": "hello", "command": "./bin/hello"}]}}}`,
		"bin/hello": "#!/bin/sh\ncat >/dev/null\necho '{\"ok\":true}'\n",
	}
	for i := 0; len(files) < 100; i++ {
		files[fmt.Sprintf("data/f%d.txt", i)] = fmt.Sprintf("data file %d\n", i)
	}
	for rel, body := range files {
		p := filepath.Join(src, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(rel, "bin/") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			b.Fatal(err)
		}
	}
	cli := func(out io.Writer, args ...string) {
		if code := run(append([]string{"--home", home, "--workspace", ws}, args...), strings.NewReader(""), out, io.Discard); code != 0 {
			b.Fatalf("bundlectl %v: exit %d", args, code)
		}
	}
	var rv strings.Builder
	cli(&rv, "review", "--json", "kit")
	var review struct{ Token string }
	if err := json.Unmarshal([]byte(rv.String()), &review); err != nil {
		b.Fatal(err)
	}
	cli(io.Discard, "trust", "kit", review.Token)
	cli(io.Discard, "enable", "kit")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cli(io.Discard, "run", "kit", "hello")
	}
}
