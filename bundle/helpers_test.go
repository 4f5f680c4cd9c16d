package bundle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// files describes a test bundle: relative path -> content. A path ending in
// "/" is an empty directory; a path ending in "*" is an executable file
// (the "*" is not part of the name).
type files map[string]string

const minimalPlugin = `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "demo"}`

// writeBundle creates dir/<name> from fs and returns its path.
func writeBundle(t testing.TB, name string, fs files) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for p, content := range fs {
		full := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(p, "*")))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, "*") {
			mode = 0o755
		}
		if err := os.WriteFile(full, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// loadFiles writes a bundle named "demo" and loads it.
func loadFiles(t testing.TB, fs files) *Bundle {
	t.Helper()
	return Load(writeBundle(t, "demo", fs), ScopeDir, Limits{})
}

// withPlugin adds a minimal plugin.json unless fs has one.
func withPlugin(fs files) files {
	if _, ok := fs["plugin.json"]; !ok {
		fs["plugin.json"] = minimalPlugin
	}
	return fs
}

// pluginWithExt returns a plugin.json whose dev.bundlectl extension is ext.
func pluginWithExt(ext string) string {
	return `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "demo",
	"extensions": {"dev.bundlectl": ` + ext + `}}`
}

func mcpJSON(servers string) string {
	return `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": ` + servers + `}`
}

func dumpFindings(b *Bundle) string {
	var sb strings.Builder
	for _, f := range b.Report.Findings {
		sb.WriteString("\n  " + f.Severity.String() + " " + f.String())
	}
	return sb.String()
}

// requireFinding asserts a finding with the severity and rule whose path
// contains pathPart.
func requireFinding(t testing.TB, b *Bundle, sev Severity, rule, pathPart string) Finding {
	t.Helper()
	for _, f := range b.Report.Findings {
		if f.Rule == rule && f.Severity == sev && strings.Contains(f.Path, pathPart) {
			return f
		}
	}
	t.Fatalf("no %s finding %q at a path containing %q; findings:%s", sev, rule, pathPart, dumpFindings(b))
	return Finding{}
}

// requireNoFinding asserts no finding with that rule.
func requireNoFinding(t testing.TB, b *Bundle, rule string) {
	t.Helper()
	for _, f := range b.Report.Findings {
		if f.Rule == rule {
			t.Fatalf("unexpected finding %s; findings:%s", f, dumpFindings(b))
		}
	}
}

// requireClean asserts that the bundle has no Error or Skip finding.
func requireClean(t testing.TB, b *Bundle) {
	t.Helper()
	if !b.Valid() {
		t.Fatalf("bundle is not valid; findings:%s", dumpFindings(b))
	}
}

// requireNoSecret asserts that secret appears in no finding.
func requireNoSecret(t testing.TB, b *Bundle, secret string) {
	t.Helper()
	for _, f := range b.Report.Findings {
		if strings.Contains(f.Path, secret) || strings.Contains(f.Message, secret) {
			t.Fatalf("finding echoes the secret: %s", f)
		}
	}
	if err := b.Report.Err(); err != nil && strings.Contains(err.Error(), secret) {
		t.Fatalf("report error echoes the secret: %v", err)
	}
}
