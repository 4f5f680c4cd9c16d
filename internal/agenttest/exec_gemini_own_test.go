package agenttest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ownContext is the context text of the user's own Gemini CLI extension:
// it reaches the model only when that extension loads.
const ownContext = "agenttest-own-extension-context-4e21"

// ownSkillDescription is the description of a skill of the user's own in
// ~/.agents/skills: configuration, not an extension, it loads in every
// session.
const ownSkillDescription = "agenttest-own-agents-skill-8c03"

// geminiOwnNote is exec's line naming one of the user's own extensions
// that loads beside the views.
func geminiOwnNote(name string) string {
	return `bundlectl: gemini: your own extension "` + name + `" loads beside the views, never reviewed by bundlectl (bundlectl --home `
}

// writeOwnGeminiExtensions installs the user's own extensions in the
// throw-away home, each with a BeforeAgent hook that touches rec/<name>
// when it runs:
//   - own-hooked: a directory with its install record (as `gemini
//     extensions install` leaves it) and a context file; its enablement
//     rule disables it elsewhere only;
//   - own-linked: a link record (as `gemini extensions link` leaves it)
//     sending Gemini CLI to a source directory elsewhere;
//   - own-off: a directory disabled for the workspace by its enablement
//     rule;
//   - ws-ext: in the workspace's .gemini/extensions/, which Gemini CLI
//     0.61 does not read;
//
// and the user's own configuration: a BeforeAgent hook in settings.json
// that touches conf/settings-hook, and a skill in ~/.agents/skills.
func writeOwnGeminiExtensions(t *testing.T, a *Agent, rec, conf string) {
	t.Helper()
	hook := func(name string) map[string]any {
		return map[string]any{"hooks": map[string]any{"BeforeAgent": []any{map[string]any{
			"hooks": []any{map[string]any{"type": "command", "command": "touch " + filepath.Join(rec, name)}}}}}}
	}
	ext := filepath.Join(a.ConfigDir(), "extensions")
	src := t.TempDir()

	dir := filepath.Join(ext, "own-hooked")
	writeJSONFile(t, dir, "gemini-extension.json", map[string]any{"name": "own-hooked", "version": "1.0.0", "contextFileName": "OWN.md"})
	writeFile(t, dir, "OWN.md", "# own\n\n"+ownContext+"\n", 0o644)
	writeJSONFile(t, dir, "hooks/hooks.json", hook("own-hooked"))
	writeJSONFile(t, dir, ".gemini-extension-install.json", map[string]any{"source": filepath.Join(src, "own-hooked"), "type": "local"})

	linked := filepath.Join(src, "own-linked")
	writeJSONFile(t, linked, "gemini-extension.json", map[string]any{"name": "own-linked", "version": "1.0.0"})
	writeJSONFile(t, linked, "hooks/hooks.json", hook("own-linked"))
	writeJSONFile(t, filepath.Join(ext, "own-linked"), ".gemini-extension-install.json", map[string]any{"source": linked, "type": "link"})

	dir = filepath.Join(ext, "own-off")
	writeJSONFile(t, dir, "gemini-extension.json", map[string]any{"name": "own-off", "version": "1.0.0"})
	writeJSONFile(t, dir, "hooks/hooks.json", hook("own-off"))

	ws, err := filepath.EvalSymlinks(a.Workdir)
	if err != nil {
		t.Fatal(err)
	}
	writeJSONFile(t, ext, "extension-enablement.json", map[string]any{
		"own-hooked": map[string]any{"overrides": []string{"!/nowhere/*"}},
		"own-off":    map[string]any{"overrides": []string{"/elsewhere/*", "!" + ws + "/*"}},
	})

	// The user's own configuration: a hook in settings.json and a skill in
	// ~/.agents/skills, which stay whatever --exclusive says.
	a.Settings = map[string]any{"hooks": map[string]any{"BeforeAgent": []any{map[string]any{
		"hooks": []any{map[string]any{"type": "command", "command": "touch " + filepath.Join(conf, "settings-hook")}}}}}}
	writeFile(t, a.Home, ".agents/skills/own-skill/SKILL.md", "---\nname: own-skill\ndescription: "+ownSkillDescription+"\n---\n\nmine\n", 0o644)

	dir = filepath.Join(a.Workdir, ".gemini", "extensions", "ws-ext")
	writeJSONFile(t, dir, "gemini-extension.json", map[string]any{"name": "ws-ext", "version": "1.0.0"})
	writeJSONFile(t, dir, "hooks/hooks.json", hook("ws-ext"))
}

// ranOwn lists the own extensions whose hook ran.
func ranOwn(t *testing.T, rec string) []string {
	t.Helper()
	ents, err := os.ReadDir(rec)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestExecGeminiOwnExtensions: Gemini CLI 0.61 loads the user's own
// extensions — installed directories and link records in
// <home>/.gemini/extensions/, enabled for the working directory by
// extension-enablement.json's rules, or named by -e — never one in the
// workspace's .gemini/extensions/. bundlectl exec names each that loads
// (and no other) and, with --exclusive, keeps every one out while the
// bundle view's guard still runs. A -e list, which makes Gemini CLI load
// what it names and nothing else, can no longer keep a view's guard out;
// under --exclusive a -e naming an own extension is refused (exit 2)
// before Gemini CLI starts. The user's own configuration — a hook in
// settings.json, a skill in ~/.agents/skills — loads in every mode.
// Nothing in the user's extensions directory is written.
func TestExecGeminiOwnExtensions(t *testing.T) {
	t.Parallel()
	type want struct {
		ran, named []string
		context    bool
		exit       int
	}
	for _, tc := range []struct {
		name      string
		exclusive bool
		args      []string
		want      want
	}{
		{"default", false, nil, want{ran: []string{"own-hooked", "own-linked"}, named: []string{"own-hooked", "own-linked"}, context: true}},
		{"exclusive", true, nil, want{}},
		{"e-own", false, []string{"-e", "own-linked"}, want{ran: []string{"own-linked"}, named: []string{"own-linked"}}},
		{"e-none", false, []string{"--extensions=none"}, want{}},
		{"exclusive-e-none", true, []string{"-e", "none"}, want{}},
		{"exclusive-e-own", true, []string{"-e", "Own-Hooked"}, want{exit: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), markerName)
			a := New(t, GeminiCLI, ShellCall(GeminiCLI, "touch "+marker), Say("done"))
			f := newTrustedFixture(t, a, marker)
			rec, conf := t.TempDir(), t.TempDir()
			writeOwnGeminiExtensions(t, a, rec, conf)
			before := treeState(t, filepath.Join(a.ConfigDir(), "extensions"))
			a.Launcher = f.launcher(t)
			if tc.exclusive {
				a.Launcher = slices.Insert(a.Launcher, len(a.Launcher)-1, "--exclusive")
			}
			a.Args = append(a.Args, tc.args...)
			res := a.Run(t, "tell me about owls")

			if res.Exit != tc.want.exit {
				t.Fatalf("exit %d, want %d\n%s", res.Exit, tc.want.exit, res)
			}
			if got := ranOwn(t, rec); !slices.Equal(got, tc.want.ran) {
				t.Errorf("the own extensions whose hooks ran: %q, want %q\n%s", got, tc.want.ran, res)
			}
			for _, n := range []string{"own-hooked", "own-linked", "own-off", "ws-ext"} {
				if named := strings.Contains(res.Stderr, geminiOwnNote(n)); named != slices.Contains(tc.want.named, n) {
					t.Errorf("stderr names %q as loading: %v, want %v\n%s", n, named, !named, res.Stderr)
				}
			}
			reached := false
			for _, r := range a.Model.Requests() {
				reached = reached || r.Contains(ownContext)
			}
			if reached != tc.want.context {
				t.Errorf("the own extension's context reached the model: %v, want %v", reached, tc.want.context)
			}
			if after := treeState(t, filepath.Join(a.ConfigDir(), "extensions")); after != before {
				t.Errorf("the user's extensions directory changed:\n%s\n---\n%s", before, after)
			}
			if tc.want.exit == 2 {
				if len(a.Model.Requests()) > 0 {
					t.Errorf("Gemini CLI started")
				}
				for _, w := range []string{`the argument "-e Own-Hooked" names your own extension "own-hooked"`, "bundlectl: hint: bundlectl --home"} {
					if !strings.Contains(res.Stderr, w) {
						t.Errorf("stderr lacks %q:\n%s", w, res.Stderr)
					}
				}
				return
			}
			t.Logf("%s", res)
			f.checkGuard(t, a, res, 0)
			if _, err := os.Stat(filepath.Join(conf, "settings-hook")); err != nil {
				t.Errorf("the hook of the user's settings.json did not run")
			}
			if r, ok := lastAt(a, 0); !ok || !r.Contains(ownSkillDescription) {
				t.Errorf("the user's own skill in ~/.agents/skills was not offered to the model")
			}
			if ents, _ := os.ReadDir(filepath.Join(f.home, "views", "sessions")); len(ents) > 0 {
				t.Errorf("a session directory is left: %v", ents)
			}
		})
	}
}

// TestGeminiExtensionNameRule: Gemini CLI 0.61 skips an extension whose
// name is not ASCII letters, digits and "-" (validateName), hooks and
// all, so a bundle by such a name gets no Gemini CLI view but a note
// (hosts/gemini TestViewName), never a view that silently does not load.
func TestGeminiExtensionNameRule(t *testing.T) {
	t.Parallel()
	rec := t.TempDir()
	a := New(t, GeminiCLI, Say("done"))
	for _, name := range []string{"ok-Name9", "under_score", "do.t"} {
		dir := filepath.Join(a.ConfigDir(), "extensions", name)
		writeJSONFile(t, dir, "gemini-extension.json", map[string]any{"name": name, "version": "1.0.0"})
		writeJSONFile(t, dir, "hooks/hooks.json", map[string]any{"hooks": map[string]any{"BeforeAgent": []any{map[string]any{
			"hooks": []any{map[string]any{"type": "command", "command": "touch " + filepath.Join(rec, name)}}}}}})
	}
	res := a.Run(t, "hello")
	if got := ranOwn(t, rec); !slices.Equal(got, []string{"ok-Name9"}) {
		t.Errorf("the extensions whose hooks ran: %q, want only %q\n%s", got, "ok-Name9", res)
	}
}
