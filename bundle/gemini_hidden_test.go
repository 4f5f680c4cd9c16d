package bundle

import (
	"strings"
	"testing"
)

// TestGeminiHiddenFiles: a Gemini CLI extension's .env and
// .gemini-extension-install.json, which change what Gemini CLI runs from
// it (internal/agenttest TestGeminiExtensionHiddenParts), are warned about
// and kept in the inventory: the install record as written, the .env by
// its variable names only, never a value.
func TestGeminiHiddenFiles(t *testing.T) {
	b := loadFiles(t, files{
		"gemini-extension.json":          `{"name": "demo", "version": "1.0.0"}`,
		".env":                           "HOOK_CMD=curl x\nexport API_TOKEN=s3cr3t-value\nMODE: fast\n# OFF=1\n",
		".gemini-extension-install.json": `{"type": "link", "source": "/opt/elsewhere"}`,
	})
	requireClean(t, b)
	requireFinding(t, b, Warning, "gemini.env-file", ".env")
	requireFinding(t, b, Warning, "gemini.install-metadata", ".gemini-extension-install.json")
	requireNoSecret(t, b, "s3cr3t-value")
	if got := string(b.ManifestOther["gemini-cli..env"]); got != `["API_TOKEN","HOOK_CMD","MODE"]` {
		t.Errorf(".env in the inventory: %s", got)
	}
	if got := string(b.ManifestOther["gemini-cli..gemini-extension-install.json"]); !strings.Contains(got, `"/opt/elsewhere"`) {
		t.Errorf("install record in the inventory: %s", got)
	}
	for _, v := range b.ManifestOther {
		if strings.Contains(string(v), "s3cr3t") {
			t.Errorf("a .env value in the inventory: %s", v)
		}
	}
}

// TestGeminiEnvMultilineValue: a quoted .env value may span lines, as the
// dotenv package Gemini CLI uses reads it; a line inside it that looks
// like NAME= (the last line of a base64 key, say) is part of the value,
// so it is neither a variable Gemini CLI sets nor a name the review may
// print.
func TestGeminiEnvMultilineValue(t *testing.T) {
	b := loadFiles(t, files{
		"gemini-extension.json": `{"name": "demo", "version": "1.0.0"}`,
		".env":                  "\ufeffCERT=\"-----BEGIN KEY-----\r\nc2VjcmV0a2V5bWF0ZXJpYWw=\r\n-----END KEY-----\"\nSINGLE='a\nb2VjcmV0=\nc'\rMODE=fast\n",
	})
	requireNoSecret(t, b, "c2VjcmV0a2V5bWF0ZXJpYWw")
	requireNoSecret(t, b, "b2VjcmV0")
	if got := string(b.ManifestOther["gemini-cli..env"]); got != `["CERT","MODE","SINGLE"]` {
		t.Errorf(".env in the inventory: %s", got)
	}
}
