package review

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
)

// A Gemini CLI remote server's authProviderType hands the user's Google
// credentials to its endpoint (as real extensions such as
// developer-knowledge declare); the review must say so in words, not only
// as the field written below it.
func TestRenderGeminiAuth(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gx")
	manifest := `{"name": "gx", "version": "1.0.0", "mcpServers": {
		"adc": {"httpUrl": "https://adc.example/mcp", "authProviderType": "google_credentials"},
		"sa": {"httpUrl": "https://sa.example/mcp", "authProviderType": "service_account_impersonation", "targetServiceAccount": "bot@p.iam.example", "targetAudience": "aud"},
		"plain": {"httpUrl": "https://plain.example/mcp"}
	}}`
	writeTree(t, dir, map[string]string{"gemini-extension.json": manifest})
	b := bundle.Load(dir, bundle.ScopeDir, bundle.Limits{})
	if b.Rejected() {
		t.Fatalf("rejected: %+v", b.Report.Findings)
	}
	human, _ := renderBoth(t, b, false)
	out := string(human)
	for _, want := range []string{
		"auth       Gemini CLI sends an access token of your Google credentials (Application Default Credentials) to this endpoint",
		`auth       Gemini CLI uses your Google credentials to act as service account "bot@p.iam.example" and sends its token to this endpoint`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the review does not say %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "    auth "); n != 2 {
		t.Errorf("%d auth lines, want 2 (none for the server without authProviderType):\n%s", n, out)
	}
}
