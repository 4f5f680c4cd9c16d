package agenttest

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodexPluginInstalled installs a plugin the way Codex users do —
// `codex plugin marketplace add <local dir>`, then `codex plugin add
// <plugin>@<marketplace>` — and records what Codex then does with it
// (docs/codex.md "A plugin Codex installs itself", "Hooks", "Where
// bundlectl differs from Codex"):
//
//   - the plugin directory is copied as it is into
//     $CODEX_HOME/plugins/cache/<marketplace>/<plugin>/<version>/ (modes
//     kept), config.toml enables it, and no hook trust is recorded; but a
//     command of commands/ without $ARGUMENTS or !`…` is also written as a
//     skill, .codex-plugin/migrated-command-skills/source-command-<name>/,
//     which Codex offers to the model;
//   - a command hook runs as a shell string made of its command alone: its
//     args are never passed (bundle.TestCodexHookArgsIgnored reads it so);
//   - ${PLUGIN_ROOT}, ${CLAUDE_PLUGIN_ROOT}, ${PLUGIN_DATA} and
//     ${CLAUDE_PLUGIN_DATA} are replaced in the hook's text, inside single
//     quotes too, and set in its environment; the hook runs in the
//     session's working directory;
//   - an MCP server's args and env are passed as written (no ${…}
//     expanded), and a server without cwd starts in the session's working
//     directory, where ./bin/fakemcp is the workspace's.
func TestCodexPluginInstalled(t *testing.T) {
	t.Parallel()
	const commandDescription = "agenttest-command-desc-3c51"
	tmp := t.TempDir()
	rec := filepath.Join(tmp, "rec")
	if err := os.Mkdir(rec, 0o755); err != nil {
		t.Fatal(err)
	}
	market := filepath.Join(tmp, "market")
	src := filepath.Join(market, "plugins", pluginName)
	writeJSONFile(t, market, ".agents/plugins/marketplace.json", map[string]any{"name": codexMarketplace, "plugins": []any{map[string]any{
		"name": pluginName, "source": map[string]any{"source": "local", "path": "./plugins/" + pluginName}}}})
	writeJSONFile(t, src, ".codex-plugin/plugin.json", map[string]any{"name": pluginName, "version": "1.0.0"})
	writeJSONFile(t, src, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
		"matcher": "Bash", "hooks": []any{
			map[string]any{"type": "command", "command": fmt.Sprintf(`echo "n=$# 1=$1" > %s/hook-args`, rec), "args": []string{"A"}},
			map[string]any{"type": "command", "command": fmt.Sprintf(`echo '${PLUGIN_ROOT}|${CLAUDE_PLUGIN_ROOT}|${PLUGIN_DATA}|${CLAUDE_PLUGIN_DATA}|${HOME}' > %[1]s/hook-text; env | sort > %[1]s/hook-env.txt; pwd > %[1]s/hook-cwd.txt`, rec)},
		}}}}})
	writeJSONFile(t, src, ".mcp.json", map[string]any{"mcpServers": map[string]any{
		"rooted": map[string]any{"command": "./bin/fakemcp", "cwd": ".",
			"args": []string{"-record", filepath.Join(rec, "rooted.jsonl"), "-answer", "${PLUGIN_ROOT}|${HOME}"},
			"env":  map[string]any{"X": "${CLAUDE_PLUGIN_ROOT}", "Y": "${AGENTTEST_API_KEY}"}},
		"nocwd": map[string]any{"command": "./bin/fakemcp", "args": []string{"-record", filepath.Join(rec, "nocwd.jsonl")}},
	}})
	copyFakeMCP(t, src)
	writeSkill(t, src)
	// A command Codex turns into a skill at install, and one it does not
	// ($ARGUMENTS).
	writeFile(t, src, "commands/zz.md", "---\ndescription: "+commandDescription+"\n---\nbody\n", 0o644)
	writeFile(t, src, "commands/kept.md", "---\ndescription: agenttest-kept-command\n---\nfix $ARGUMENTS\n", 0o644)

	marker := filepath.Join(tmp, markerName)
	a := New(t, Codex, ShellCall(Codex, "touch "+marker), Say("done"))
	_, env := a.Command(t, "x")
	for _, args := range [][]string{{"plugin", "marketplace", "add", market}, {"plugin", "add", codexPluginID}} {
		cmd := exec.Command(a.Bin, args...)
		cmd.Env, cmd.Dir = env, a.Workdir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("codex %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	root := versionDir(filepath.Join(a.ConfigDir(), "plugins", "cache"))
	migrated := filepath.Join(root, ".codex-plugin", "migrated-command-skills")
	skill, err := os.ReadFile(filepath.Join(migrated, "source-command-zz", "SKILL.md"))
	if err != nil || !strings.Contains(string(skill), commandDescription) {
		t.Errorf("the command was not migrated into a skill (%v):\n%s", err, skill)
	}
	entries, _ := os.ReadDir(migrated)
	if len(entries) != 1 {
		t.Errorf("migrated %d commands, want only the one without $ARGUMENTS", len(entries))
	}
	if err := os.RemoveAll(migrated); err != nil {
		t.Fatal(err)
	}
	if got, want := treeContent(t, root), treeContent(t, src); got != want {
		t.Errorf("the installed copy is not the plugin as it is:\ninstalled:\n%s\nsource:\n%s", got, want)
	}
	if err := os.MkdirAll(filepath.Join(migrated, "source-command-zz"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(migrated, "source-command-zz", "SKILL.md"), skill, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(a.ConfigDir(), "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cfg), fmt.Sprintf("[plugins.%q]\nenabled = true", codexPluginID)) || strings.Contains(string(cfg), "hooks") {
		t.Errorf("config.toml after install: want the plugin enabled and no hook trust:\n%s", cfg)
	}

	// A fakemcp in the workspace, where a server without cwd looks.
	copyFakeMCP(t, a.Workdir)
	a.CodexConfig = string(cfg)
	a.Args = []string{"-c", "features.plugins=true", "--dangerously-bypass-hook-trust"}
	res := a.Run(t, "hi")

	if first := a.Model.CallsAt(0); len(first) == 0 || !first[0].Contains(commandDescription) {
		t.Errorf("the migrated command skill was not offered to the model\n%s", a.Model.Dump())
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(rec, name))
		if err != nil {
			t.Errorf("%s not recorded: %v\n%s", name, err, res)
		}
		return strings.TrimSpace(string(b))
	}
	if got := read("hook-args"); got != "n=0 1=" {
		t.Errorf("hook with args ran with %q, want its command alone (n=0 1=)", got)
	}
	data := filepath.Join(a.ConfigDir(), "plugins", "data", pluginName+"-"+codexMarketplace)
	if got, want := read("hook-text"), strings.Join([]string{root, root, data, data, "${HOME}"}, "|"); got != want {
		t.Errorf("hook text after Codex's substitution:\n got %s\nwant %s", got, want)
	}
	if got := read("hook-cwd.txt"); got != a.Workdir {
		t.Errorf("hook ran in %s, want the session's working directory %s", got, a.Workdir)
	}
	henv := envOf(t, filepath.Join(rec, "hook-env.txt"))
	for k, want := range map[string]string{"PLUGIN_ROOT": root, "CLAUDE_PLUGIN_ROOT": root, "PLUGIN_DATA": data, "CLAUDE_PLUGIN_DATA": data} {
		if henv[k] != want {
			t.Errorf("hook saw %s=%q, want %q", k, henv[k], want)
		}
	}
	for _, c := range []struct{ server, cwd string }{{"rooted", root}, {"nocwd", a.Workdir}} {
		starts := 0
		for _, r := range mcpRecord(t, filepath.Join(rec, c.server+".jsonl")) {
			if r["kind"] != "start" {
				continue
			}
			starts++
			if r["cwd"] != c.cwd {
				t.Errorf("MCP server %s ran in %v, want %s", c.server, r["cwd"], c.cwd)
			}
			if c.server != "rooted" {
				continue
			}
			argv := fmt.Sprint(r["argv"])
			if !strings.Contains(argv, "${PLUGIN_ROOT}|${HOME}") {
				t.Errorf("MCP server args expanded: %s", argv)
			}
			menv := fmt.Sprint(r["env"])
			if !strings.Contains(menv, "X=${CLAUDE_PLUGIN_ROOT}") || !strings.Contains(menv, "Y=${AGENTTEST_API_KEY}") || strings.Contains(menv, "PLUGIN_ROOT="+root) {
				t.Errorf("MCP server env: want its env as written and no plugin variables, got %s", menv)
			}
		}
		if starts == 0 {
			t.Errorf("MCP server %s never started\n%s", c.server, res)
		}
	}
}

// treeContent lists every entry under root with its mode, and each
// file's SHA-256.
func treeContent(t *testing.T, root string) string {
	t.Helper()
	var b bytes.Buffer
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(&b, "%s %v", rel, fi.Mode())
		if fi.Mode().IsRegular() {
			c, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " sha256:%x", sha256.Sum256(c))
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
