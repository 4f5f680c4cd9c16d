package bundle

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
)

// Gemini CLI extensions (docs/gemini-cli.md): gemini-extension.json holds
// MCP servers, context files, excluded tools and settings; commands/ holds
// TOML commands, hooks/hooks.json hooks, skills/ and agents/ content, and
// policies/ TOML policy rules.

var geminiMeta = map[string]bool{
	"$schema": true, "name": true, "version": true, "description": true,
}

func readGemini(b *Bundle, data []byte) {
	r := hostReader{b: b, host: HostGemini, file: ManifestGemini}
	root, dups, err := parseHostJSON(data, hostJSON{lastServer: true})
	if err != nil {
		reportJSONError(b, ManifestGemini, err, Error, "manifest.json")
		return
	}
	reportLastServers(b, ManifestGemini, dups)
	if root.kind != jsonObject {
		b.Report.Errorf(ManifestGemini, "manifest.not-object", "the manifest must be a JSON object, not %s", root.kind)
		return
	}
	r.manifestName(root)
	if b.Format == FormatGemini {
		r.metadata(root)
	}
	if b.stop() {
		return
	}
	m := func(field string) string { return FieldPath(ManifestGemini+":", field) }
	contextNamed := false
	for _, k := range root.keys {
		v := root.obj[k]
		switch k {
		case "mcpServers":
			r.readMCPServers(v, m(k))
		case "contextFileName":
			if jsFalsy(v) {
				continue // Gemini CLI reads "", null, false and 0 as no name: GEMINI.md
			}
			contextNamed = true
			r.geminiContexts(v, m(k))
		case "excludeTools":
			if l, ok := r.strs(v, m(k)); ok {
				b.ExcludeTools = append(b.ExcludeTools, l...)
				for i, t := range l {
					if strings.Contains(t, "(") {
						// Gemini CLI (0.61) matches an extension's entries
						// against tool names exactly; only its settings'
						// tools.allowed reads a "(…)" command narrowing.
						b.Report.Warnf(indexPath(m(k), i), "manifest.exclude-tools", "Gemini CLI removes whole tools by exact name only: %s removes nothing, and the tool still runs every command; to deny commands, write a rule in policies/*.toml (toolName = \"run_shell_command\", commandPrefix = \"…\", decision = \"deny\")", Quote(t))
					}
				}
			}
		case "settings":
			r.geminiSettings(v, m(k))
		default:
			if !geminiMeta[k] {
				other(&b.ManifestOther, string(FormatGemini)+"."+k, v)
				b.Report.Warnf(m(k), "manifest.unknown-field", "field %s is not one bundlectl interprets; it is reviewed as written", Quote(k))
			}
		}
	}
	if !contextNamed && hasFile(b.Tree, "GEMINI.md") {
		b.addLocation(docLocation{kind: kindContext, rel: "GEMINI.md", file: true, host: HostGemini, field: "GEMINI.md"})
	}
	for _, l := range []struct {
		dir  string
		kind docKind
	}{{"commands", kindGeminiCommand}, {"skills", kindSkills}, {"agents", kindAgent}} {
		if hasDir(b.Tree, l.dir) {
			b.addLocation(docLocation{kind: l.kind, rel: l.dir, host: HostGemini, field: l.dir})
		}
	}
	if hasFile(b.Tree, "skills/SKILL.md") {
		// Gemini CLI loads skills/SKILL.md as a skill too, beside each
		// skills/<dir>/SKILL.md (its pattern: SKILL.md, */SKILL.md).
		b.addLocation(docLocation{kind: kindSkills, rel: "skills/SKILL.md", file: true, host: HostGemini, field: "skills/SKILL.md"})
	}
	if hasFile(b.Tree, "hooks/hooks.json") {
		r.readHooksFile("hooks/hooks.json", "")
	}
	if hasDir(b.Tree, "policies") {
		for _, e := range descendants(b.Tree, "policies") {
			if e.Kind != KindDir && strings.HasSuffix(e.Path, ".toml") {
				r.readPolicy(e.Path)
			}
		}
	}
	r.geminiHiddenFiles()
}

// geminiHiddenFiles reads the two files at the top of an extension that
// no manifest field names and that change what Gemini CLI 0.61 runs from
// it when the directory is installed as it is (internal/agenttest
// TestGeminiExtensionHiddenParts): .gemini-extension-install.json, its
// install record, whose "type": "link" makes it load the extension from
// the "source" directory instead (kept as written); and .env, the
// extension's stored settings, whose values fill ${VAR} in the manifest,
// hooks, skills and agents (its variable names kept, never a value).
// bundlectl exec copies neither into a view.
func (r hostReader) geminiHiddenFiles() {
	const install = ".gemini-extension-install.json"
	if hasFile(r.b.Tree, install) {
		data, err := r.b.Tree.ReadFile(install, MaxManifestBytes)
		var v any
		if err == nil {
			err = json.Unmarshal(data, &v)
		}
		if err != nil {
			v = "(not read: " + err.Error() + ")"
		}
		r.b.ManifestOther = setOther(r.b.ManifestOther, string(FormatGemini)+"."+install, canonicalJSON(v))
		r.b.Report.Warnf(install, "gemini.install-metadata", "Gemini CLI reads this file as the extension's install record: with \"type\": \"link\" it loads the extension from the directory \"source\" names instead of this one, which bundlectl did not review (bundlectl exec does not copy the file); remove it from the bundle")
	}
	if hasFile(r.b.Tree, ".env") {
		data, err := r.b.Tree.ReadFile(".env", MaxManifestBytes)
		names := []string{}
		if err == nil {
			names = dotEnvNames(data)
		}
		r.b.ManifestOther = setOther(r.b.ManifestOther, string(FormatGemini)+"..env", canonicalJSON(names))
		r.b.Report.Warnf(".env", "gemini.env-file", "Gemini CLI reads this file as the extension's settings: its values (for %s) fill ${VAR} in the manifest, hooks, skills and agents, in place of the host variables the review lists (bundlectl exec does not copy the file); remove it from the bundle", variableList(names))
	}
}

// dotEnvLine is the dotenv package's LINE (Gemini CLI 0.61 reads .env
// files with it): an optional export, a name, = or ":", and a value,
// which a quote may carry over several lines. The whole value is matched
// so that a line inside it that looks like NAME= (the last line of a
// base64 key, say) is taken for what it is, part of a value, and its text
// is never printed as a name. Its \s is JavaScript's, which takes a byte
// order mark (a name after one counts).
var dotEnvLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(strings.ReplaceAll("(?m)^\\s*(?:export\\s+)?([\\w.-]+)(?:\\s*=\\s*?|:\\s+?)(\\s*'(?:\\\\'|[^'])*'|\\s*\"(?:\\\\\"|[^\"])*\"|\\s*`(?:\\\\`|[^`])*`|[^#\\r\\n]+)?\\s*(?:#.*)?$", `\s`, `[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]`))
})

// dotEnvNames are the variables a .env file sets, sorted, without repeats.
func dotEnvNames(data []byte) []string {
	seen := map[string]bool{}
	var names []string
	// As dotenv does, a CRLF or CR ends a line as LF does.
	data = bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n"))
	for _, m := range dotEnvLine().FindAllSubmatch(data, -1) {
		if n := string(m[1]); !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// setOther sets k in m, made when nil.
func setOther(m map[string]json.RawMessage, k string, v json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	m[k] = v
	return m
}

// variableList is names quoted and joined; "no variable" for none.
func variableList(names []string) string {
	if len(names) == 0 {
		return "no variable"
	}
	return strings.Join(quoteAll(names), ", ")
}

// jsFalsy reports whether JavaScript reads v as false: null, false, "",
// or a number equal to 0.
func jsFalsy(v *jsonValue) bool {
	switch v.kind {
	case jsonNull:
		return true
	case jsonBool:
		return !v.b
	case jsonString:
		return v.str == ""
	case jsonNumber:
		f, err := strconv.ParseFloat(v.str, 64)
		return err == nil && f == 0
	}
	return false
}

// geminiContexts reads contextFileName as Gemini CLI does: one name or a
// list of them, each checked on its own (an entry that is not a string is
// skipped, and the others load), after substituting ${/} and
// ${pathSeparator}, so "docs${/}CTX.md" is docs/CTX.md.
func (r hostReader) geminiContexts(v *jsonValue, path string) {
	type entry struct{ name, field string }
	var entries []entry
	switch v.kind {
	case jsonString:
		entries = append(entries, entry{v.str, path})
	case jsonArray:
		for i, e := range v.arr {
			fp := indexPath(path, i)
			if e.kind != jsonString {
				r.typeErr(fp, "a string", e)
				continue
			}
			entries = append(entries, entry{e.str, fp})
		}
	default:
		r.typeErr(path, "a string or an array of strings", v)
		return
	}
	b := r.b
	for _, e := range entries {
		n := strings.NewReplacer("${/}", "/", "${pathSeparator}", "/").Replace(e.name)
		rel, ok := r.relPath(n, e.field)
		if !ok {
			continue
		}
		if hasFile(b.Tree, rel) {
			b.addLocation(docLocation{kind: kindContext, rel: rel, file: true, host: HostGemini, field: e.field})
		} else {
			b.Report.Warnf(e.field, "context.missing", "context file %s does not exist; nothing is added to the model's context", Quote(e.name))
		}
	}
}

// geminiSettings reads [{name, description, envVar, sensitive}].
func (r hostReader) geminiSettings(v *jsonValue, path string) {
	if v.kind != jsonArray {
		r.typeErr(path, "an array of settings", v)
		return
	}
	for i, s := range v.arr {
		sp := indexPath(path, i)
		if s.kind != jsonObject {
			r.typeErr(sp, "an object", s)
			continue
		}
		o := UserOption{Source: sp, Hosts: addHost(nil, r.host)}
		for _, k := range s.keys {
			f := s.obj[k]
			switch k {
			case "name":
				o.Title, _ = r.str(f, FieldPath(sp, k))
			case "description":
				o.Description, _ = r.str(f, FieldPath(sp, k))
			case "envVar":
				o.EnvVar, _ = r.str(f, FieldPath(sp, k))
			case "sensitive":
				o.Sensitive = r.sensitive(f, FieldPath(sp, k))
			}
		}
		if o.EnvVar == "" {
			r.b.Report.Skipf(sp, "setting.env-var", "setting has no envVar")
			continue
		}
		o.Key = o.EnvVar
		r.b.UserConfig = append(r.b.UserConfig, o)
	}
}

// readPolicy reads a policies/*.toml file into canonical JSON: every rule
// it holds is authority over the host's tool calls.
func (r hostReader) readPolicy(rel string) {
	data, err := r.b.Tree.ReadFile(rel, MaxManifestBytes)
	if err != nil {
		r.b.Report.Skipf(rel, "policy.read", "cannot read: %v", err)
		return
	}
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		r.b.Report.Skipf(rel, "policy.toml", "not valid TOML: %s", tomlErrorPosition(err))
		return
	}
	raw, err := canonicalJSONChecked(doc)
	if err != nil {
		r.b.Report.Skipf(rel, "policy.toml", "cannot be represented as JSON: %v", err)
		return
	}
	r.b.Components.Policies = append(r.b.Components.Policies, Policy{Path: rel, Rules: raw, Hosts: addHost(nil, r.host)})
	r.geminiPolicyIgnored(rel, doc)
}
