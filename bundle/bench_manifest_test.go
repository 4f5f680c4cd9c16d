package bundle

import "testing"

// BenchmarkLoadFullBundle measures Load (walk, plugin.json, mcp.json, a
// skill, documents and every rule, with one params schema compiled) on the
// full example bundle.
func BenchmarkLoadFullBundle(b *testing.B) {
	dir := writeBundle(b, "demo", fullBundle(b))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if bd := Load(dir, ScopeDir, Limits{}); !bd.Valid() {
			b.Fatalf("invalid:%s", dumpFindings(bd))
		}
	}
}

// BenchmarkParsePluginJSON measures the manifest reader and checkModel
// alone, without the filesystem.
func BenchmarkParsePluginJSON(b *testing.B) {
	data := []byte(seed(b, "plugin-full.json"))
	root := b.TempDir()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bd := &Bundle{Name: "demo", Format: FormatAgentPlugins, Tree: &Tree{Root: root}}
		parseAgentPlugins(bd, data)
		checkModel(bd)
	}
}
