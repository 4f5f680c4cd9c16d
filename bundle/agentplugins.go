package bundle

// Placeholder until the plugin.json reader lands; owned by the manifest work.

func parseAgentPlugins(b *Bundle, data []byte) {
	b.Report.Errorf(ManifestJSON, "manifest.unsupported", "plugin.json reading is not built yet")
}

func loadSkills(b *Bundle, dir string) {}

func loadDocuments(b *Bundle) {}

func checkModel(b *Bundle) {}
