package bundle

import (
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"

	"github.com/bundlectl/bundlectl/internal/testtree"
)

// fuzzTrees walks each full host fixture once: the fuzzed manifest bytes
// are read against that tree, so the readers follow their path fields to
// real files without a file written per input.
var (
	fuzzOnce  sync.Once
	fuzzTrees map[string]*Tree
)

func fuzzTree(f testing.TB, rel string) *Tree {
	fuzzOnce.Do(func() {
		fuzzTrees = map[string]*Tree{}
		root, err := os.MkdirTemp("", "bundlectl-fuzz-")
		if err != nil {
			f.Fatal(err)
		}
		for _, r := range []string{"claude-code/full", "codex/full", "gemini-cli/full"} {
			dst := filepath.Join(root, filepath.Base(filepath.Dir(r)))
			if err := testtree.Copy(filepath.Join("testdata", "hosts", r), dst); err != nil {
				f.Fatal(err)
			}
			t, _ := Walk(dst, Limits{})
			fuzzTrees[r] = t
		}
	})
	return fuzzTrees[rel]
}

var fuzzTokenShape = regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{16,}|sk-[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16}`)

// fuzzHostReader runs one host reader and the model rules on data and
// checks the invariants every finding keeps.
func fuzzHostReader(f *testing.F, fixture, manifest string, format Format, read func(*Bundle, []byte)) {
	seed, err := os.ReadFile(filepath.Join("testdata", "hosts", fixture, manifest))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"name": "x", "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/x --token=ghp_aaaaaaaaaaaaaaaaaaaaaaaa"}]}]}}`))
	f.Add([]byte(`{"name": "x", "mcpServers": {"a": {"command": "./../../etc/x", "cwd": "../", "headers": {"Authorization": "Bearer sk-aaaaaaaaaaaaaaaaaaaaaaaa"}}}}`))
	// A byte-order mark (Claude Code skips it before its manifest) and a
	// repeated server name (every host takes the last definition).
	f.Add([]byte("\uFEFF" + `{"name": "x", "mcpServers": {"a": {"command": "x"}}}`))
	f.Add([]byte(`{"name": "x", "mcpServers": {"a": {"command": "x"}, "a": {"url": "https://example.com/mcp"}, "mcpServers": {"b": {"command": "y"}, "b": {"command": "z"}}}}`))
	// Codex MCP timeouts Codex drops, gives up on or panics on.
	f.Add([]byte(`{"name": "x", "mcpServers": {"a": {"command": "x", "startup_timeout_sec": 1e400, "startup_timeout_ms": -0, "tool_timeout_sec": 9223372036854775807}, "b": {"command": "y", "startup_timeout_ms": 18446744073709551616, "tool_timeout_sec": -0.0}, "c": {"url": "https://example.com/mcp", "startup_timeout_sec": 1e-400, "tool_timeout_sec": "60"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tree := fuzzTree(t, fixture)
		b := &Bundle{Name: "full", Scope: ScopeDir, Dir: tree.Root, Tree: tree}
		b.useFormat(format)
		read(b, data)
		if !b.Rejected() {
			loadDocuments(b)
			deriveModel(b)
			checkModel(b)
		}
		// AllFindings' pass reads on past a rejection: it must not panic.
		all := &Bundle{Name: "full", Scope: ScopeDir, Dir: tree.Root, Tree: tree, findAll: true}
		all.useFormat(format)
		read(all, data)
		loadDocuments(all)
		deriveModel(all)
		checkModel(all)
		for _, fd := range b.Report.Findings {
			if fd.Path == "" || fd.Rule == "" || fd.Message == "" {
				t.Fatalf("finding without path, rule or message: %+v", fd)
			}
			if fuzzTokenShape.MatchString(fd.Path + fd.Message) {
				t.Fatalf("finding %s carries a credential: %s: %s", fd.Rule, fd.Path, fd.Message)
			}
		}
		for _, h := range b.Components.Hooks {
			if h.Type == "" || h.Event == "" {
				t.Fatalf("a hook without type or event was kept: %+v", h)
			}
		}
		for _, s := range b.Components.MCP {
			if s.Transport == TransportStdio && s.Command == "" || s.Remote() && s.URL == "" {
				t.Fatalf("a server without what it runs or reaches was kept: %+v", s)
			}
		}
	})
}

func FuzzClaudeManifest(f *testing.F) {
	fuzzHostReader(f, "claude-code/full", ManifestClaude, FormatClaude, readClaude)
}

func FuzzCodexManifest(f *testing.F) {
	fuzzHostReader(f, "codex/full", ManifestCodex, FormatCodex, readCodex)
}

func FuzzGeminiManifest(f *testing.F) {
	fuzzHostReader(f, "gemini-cli/full", ManifestGemini, FormatGemini, readGemini)
}

// FuzzHooksFile: a hooks file in any host's dialect.
func FuzzHooksFile(f *testing.F) {
	for _, p := range []string{"claude-code/full/hooks/hooks.json", "codex/full/hooks/hooks.json", "gemini-cli/full/hooks/hooks.json"} {
		if data, err := os.ReadFile(filepath.Join("testdata", "hosts", p)); err == nil {
			f.Add(data, uint8(0))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, host uint8) {
		tree := fuzzTree(t, "claude-code/full")
		b := &Bundle{Name: "full", Scope: ScopeDir, Dir: tree.Root, Tree: tree}
		r := hostReader{b: b, host: []Host{HostClaude, HostCodex, HostGemini}[host%3], file: "hooks.json"}
		v, err := parseJSONValue(data)
		if err != nil {
			return
		}
		r.readHooksValue(v, "hooks.json:", "")
		deriveModel(b)
		checkModel(b)
		for _, fd := range b.Report.Findings {
			if fd.Path == "" || fd.Rule == "" || fd.Message == "" {
				t.Fatalf("finding without path, rule or message: %+v", fd)
			}
		}
	})
}
