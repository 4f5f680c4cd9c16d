package bundle

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWarnViewSize: a bundle whose files total more than the 256 MiB a
// host view holds (three sparse 90 MiB files in a skill's directory,
// which the walk takes: a file may hold 128 MiB, a bundle 512 MiB) gets a
// bounds.view warning, as exec loads only its hooks when a host
// loads those files (cmd/bundlectl exec_view_too_large.txtar); it can
// still be trusted. One at 256 MiB exactly gets none. The files are
// sparse: the test writes no data and the walk reads none.
func TestWarnViewSize(t *testing.T) {
	for _, c := range []struct {
		name  string
		sizes []int64
		warn  bool
	}{
		{"over", []int64{90 << 20, 90 << 20, 90 << 20}, true},
		{"exactly", []int64{128 << 20, 0}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := files{
				".claude-plugin/plugin.json": `{"name": "demo", "version": "1.0.0"}`,
				"skills/data/SKILL.md":       "---\nname: data\ndescription: big data\n---\nUse it.\n",
			}
			dir := writeBundle(t, "demo", fs)
			var written int64
			for _, f := range fs {
				written += int64(len(f))
			}
			for i, size := range c.sizes {
				if i == len(c.sizes)-1 && !c.warn {
					// The last file fills the bundle to the bound exactly.
					size = MaxViewBytes - written
				}
				sparse(t, filepath.Join(dir, "skills", "data", fmt.Sprintf("part%d.bin", i+1)), size)
				written += size
			}
			b := Load(dir, ScopeDir, Limits{})
			if c.warn {
				f := requireFinding(t, b, Warning, "bounds.view", ".")
				if !strings.Contains(f.Message, "more than the 268435456 bytes (256 MiB) one host view holds") {
					t.Errorf("message %q", f.Message)
				}
				// exec alone builds host views: bundlectl run calls a
				// tool from the snapshot, whatever its size.
				if !strings.Contains(f.Message, "bundlectl exec cannot make its view") {
					t.Errorf("message %q names another command than exec", f.Message)
				}
				requireClean(t, b)
				return
			}
			if b.Tree.Bytes != MaxViewBytes {
				t.Fatalf("the bundle holds %d bytes, want exactly %d", b.Tree.Bytes, MaxViewBytes)
			}
			requireNoFinding(t, b, "bounds.view")
		})
	}
}

// sparse makes a file of size bytes that holds no data blocks.
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}
