package agenttest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodexCatalogueStrictness pins what sources' checkCodexCatalogue
// (TestMarketplaceCodexRefusesWhatCodexRefuses) holds bundlectl to: real
// Codex 0.171.0 refuses the whole marketplace file at `codex plugin
// marketplace add` for a key written twice (escaped or not) in the top
// level, an entry or its policy, an entry or policy that is no object
// (null included) and an unknown or null policy.installation, and does not
// install an entry whose source repeats a key, while it installs from a
// file that repeats a key it does not read ("zz", which bundlectl
// refuses: it does not know every field Codex reads); real Claude Code 2.1.332 takes the last of a repeated
// key (the plugin of the second "source" is installed) and skips an entry
// that is no object.
func TestCodexCatalogueStrictness(t *testing.T) {
	t.Parallel()
	const entry = `{"name":"plug1","source":{"source":"local","path":"./plugins/a"}}`
	for name, tc := range map[string]struct{ doc, addErr string }{
		"top":               {`{"name":"mkt1","name":"mkt1","plugins":[` + entry + `]}`, "duplicate field `name`"},
		"escaped":           {`{"name":"mkt1","plugins":[{"name":"plug1","source":"./plugins/a","\u0073ource":"./plugins/b"}]}`, "duplicate field `source`"},
		"category":          {`{"name":"mkt1","plugins":[{"name":"plug1","source":"./plugins/a","category":"x","category":"y"}]}`, "duplicate field `category`"},
		"policy":            {`{"name":"mkt1","plugins":[{"name":"plug1","source":"./plugins/a","policy":{"installation":"NOT_AVAILABLE","installation":"AVAILABLE"}}]}`, "duplicate field `installation`"},
		"installation":      {`{"name":"mkt1","plugins":[{"name":"plug1","source":"./plugins/a","policy":{"installation":"not_available"}}]}`, "unknown variant `not_available`"},
		"stray":             {`{"name":"mkt1","plugins":[3,` + entry + `]}`, "invalid type: integer `3`"},
		"null entry":        {`{"name":"mkt1","plugins":[null,` + entry + `]}`, "invalid type: null"},
		"null policy":       {`{"name":"mkt1","plugins":[{"name":"plug1","source":"./plugins/a","policy":null}]}`, "invalid type: null"},
		"null installation": {`{"name":"mkt1","plugins":[{"name":"plug1","source":"./plugins/a","policy":{"installation":null}}]}`, "expected value"},
		"unknown twice":     {`{"name":"mkt1","zz":1,"zz":2,"plugins":[{"name":"plug1","source":"./plugins/a","zz":1,"zz":2}]}`, ""},
		"source path":       {`{"name":"mkt1","plugins":[{"name":"plug1","source":{"source":"local","path":"./plugins/a","path":"./plugins/b"}}]}`, ""},
	} {
		t.Run("codex/"+name, func(t *testing.T) {
			t.Parallel()
			a := New(t, Codex, Say("done"))
			mkt := catalogueMarket(t, ".codex-plugin/plugin.json", ".agents/plugins/marketplace.json", tc.doc)
			env := hostEnv(t, a)
			out, err := hostCLI(a, env, "plugin", "marketplace", "add", mkt)
			if tc.addErr != "" {
				if err == nil || !strings.Contains(out, "invalid marketplace file") || !strings.Contains(out, tc.addErr) {
					t.Fatalf("codex plugin marketplace add: want it refused (%s), got %v:\n%s", tc.addErr, err, out)
				}
				return
			}
			if err != nil {
				t.Fatalf("codex plugin marketplace add: %v\n%s", err, out)
			}
			out, err = hostCLI(a, env, "plugin", "add", "plug1@mkt1")
			if name == "unknown twice" {
				if err != nil {
					t.Errorf("codex plugin add: %v\n%s", err, out)
				}
				return
			}
			if err == nil || !strings.Contains(out, "was not found") {
				t.Errorf("codex plugin add: want the entry not found, got %v:\n%s", err, out)
			}
		})
	}
	for name, doc := range map[string]string{
		"twice": `{"name":"mkt1","owner":{"name":"x"},"plugins":[3,{"name":"plug1","source":"./plugins/a","\u0073ource":"./plugins/b"}]}`,
	} {
		t.Run("claude/"+name, func(t *testing.T) {
			t.Parallel()
			a := New(t, Claude, Say("done"))
			mkt := catalogueMarket(t, ".claude-plugin/plugin.json", ".claude-plugin/marketplace.json", doc)
			env := hostEnv(t, a)
			for _, args := range [][]string{{"plugin", "marketplace", "add", mkt}, {"plugin", "install", "plug1@mkt1"}} {
				if out, err := hostCLI(a, env, args...); err != nil {
					t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
				}
			}
			if got := installedWhich(filepath.Join(a.ConfigDir(), "plugins")); got != "which-b" {
				t.Errorf("claude installed %q, want which-b (the last \"source\")", got)
			}
		})
	}
}

// catalogueMarket makes a marketplace holding plugins/a and plugins/b,
// both named plug1 (each with a which-<dir> file), and the catalogue doc
// at cat.
func catalogueMarket(t *testing.T, manifest, cat, doc string) string {
	mkt := filepath.Join(t.TempDir(), "mkt")
	for _, d := range []string{"a", "b"} {
		writeFile(t, mkt, "plugins/"+d+"/"+manifest, `{"name":"plug1","version":"1.0.0"}`, 0o644)
		writeFile(t, mkt, "plugins/"+d+"/which-"+d, d, 0o644)
	}
	writeFile(t, mkt, cat, doc, 0o644)
	return mkt
}

// hostEnv is the environment of a's host CLI, made once: Agent.Command
// rewrites the host's configuration, which would forget a marketplace
// added with an earlier one.
func hostEnv(t *testing.T, a *Agent) []string {
	_, env := a.Command(t, "unused")
	return env
}

func hostCLI(a *Agent, env []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), HangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, a.Bin, args...)
	cmd.Env, cmd.Dir = env, a.Workdir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// installedWhich names the which-* files of the installed plugin plug1
// under root.
func installedWhich(root string) string {
	var got []string
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasPrefix(fi.Name(), "which-") && strings.Contains(p, "/plug1/") {
			got = append(got, fi.Name())
		}
		return nil
	})
	return strings.Join(got, ",")
}

// TestClaudeCatalogueOwner pins what sources' checkClaudeOwner
// (TestMarketplaceClaudeOwner) holds bundlectl to: real Claude Code
// 2.1.332 refuses the whole marketplace at `claude plugin marketplace
// add` ("Invalid schema: … owner…") for no owner (or only "Owner"), one
// that is no object, a name missing, not a string or empty, an email not
// a string; it adds one whose name is written twice, the last not empty.
func TestClaudeCatalogueOwner(t *testing.T) {
	t.Parallel()
	const plugins = `"plugins":[{"name":"plug1","source":"./plugins/a"}]`
	for name, tc := range map[string]struct{ owner, want string }{
		"none":       {``, "owner: Invalid input"},
		"Owner":      {`"Owner":{"name":"a"},`, "owner: Invalid input"},
		"string":     {`"owner":"a",`, "owner: Invalid input"},
		"null":       {`"owner":null,`, "owner: Invalid input"},
		"no name":    {`"owner":{},`, "owner.name: Invalid input"},
		"name num":   {`"owner":{"name":3},`, "owner.name: Invalid input"},
		"name empty": {`"owner":{"name":"x","name":""},`, "owner.name: Author name cannot be empty"},
		"email num":  {`"owner":{"name":"a","email":3},`, "owner.email: Invalid input"},
		"last name":  {`"owner":{"name":"","name":"a","email":"a@example.com"},`, ""},
	} {
		t.Run(name, func(t *testing.T) {
			a := New(t, Claude, Say("done"))
			mkt := catalogueMarket(t, ".claude-plugin/plugin.json", ".claude-plugin/marketplace.json", `{"name":"mkt1",`+tc.owner+plugins+`}`)
			out, err := hostCLI(a, hostEnv(t, a), "plugin", "marketplace", "add", mkt)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("claude plugin marketplace add: %v\n%s", err, out)
			case tc.want != "" && (err == nil || !strings.Contains(out, "Invalid schema") || !strings.Contains(out, tc.want)):
				t.Errorf("claude plugin marketplace add: want it refused (%s), got %v:\n%s", tc.want, err, out)
			}
		})
	}
}
