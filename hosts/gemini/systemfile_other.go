//go:build !unix

package gemini

// systemFileSkipped is "" where Gemini CLI checks a system settings file's
// access rules rather than its owner and mode (Windows): bundlectl reads
// the file as Gemini CLI would if it passes.
func systemFileSkipped(string) string { return "" }
