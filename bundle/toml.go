package bundle

// Placeholder until the plugin.toml reader lands.

// parseTOML fills b from a plugin.toml and returns the skills directory.
func parseTOML(b *Bundle, data []byte) string {
	b.Report.Errorf(ManifestTOML, "manifest.unsupported", "plugin.toml reading is not built yet")
	return ""
}
