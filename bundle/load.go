package bundle

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Manifest file names, relative to the bundle root.
// ReadersRevision names what the readers make of a tree: it goes up with
// every change that makes a reader read some tree differently (a
// component found or skipped, a field read another way, another host),
// that is, whenever a capability hash of the same tree changes. A source
// hash recorded under another revision is computed again
// (lifecycle.SourceHashes), so a trusted bundle these readers see more
// in shows "update pending review" at once. review's
// TestReadersRevision holds the capability hashes of the corpus under
// this revision and fails when they change without it.
const ReadersRevision = 25

const (
	ManifestJSON   = "plugin.json"                // Agent Plugins v1.0.0
	ManifestTOML   = "plugin.toml"                // legacy
	ManifestClaude = ".claude-plugin/plugin.json" // Claude Code (optional)
	ManifestCodex  = ".codex-plugin/plugin.json"  // Codex
	ManifestCursor = ".cursor-plugin/plugin.json" // Cursor; read only as Codex reads it
	ManifestGemini = "gemini-extension.json"      // Gemini CLI
)

// A reader fills the model from one manifest format. Readers only read
// and record: every semantic rule is applied to the model afterwards, by
// checkModel, whichever reader filled it.
type reader struct {
	format Format
	// manifest is the file that selects the reader; "" for a format that
	// needs none (a manifest-less Claude Code plugin).
	manifest string
	read     func(b *Bundle, data []byte)
}

// readers in the order Load applies them. The first one that reads is the
// bundle's primary format: its metadata and name rules are the bundle's.
var readers = []reader{
	{FormatAgentPlugins, ManifestJSON, parseAgentPlugins},
	{FormatTOML, ManifestTOML, func(b *Bundle, data []byte) { readTOML(b, data) }},
	{FormatClaude, ManifestClaude, readClaude},
	{FormatCodex, ManifestCodex, readCodex},
	{FormatGemini, ManifestGemini, readGemini},
}

// Load reads and validates the bundle in dir. It never fails: every problem
// is a finding in the bundle's Report. It writes nothing, launches nothing
// and opens no connection.
func Load(dir string, scope Scope, lim Limits) *Bundle { return load(dir, scope, lim, true, false) }

// load is Load; prescan says whether the walk may use several workers
// (Discover, which already loads bundles in parallel, says no), and
// canonical that dir is canonicalDir's answer already.
func load(dir string, scope Scope, lim Limits, prescan, canonical bool) *Bundle {
	b := &Bundle{Scope: scope, Name: filepath.Base(filepath.Clean(dir))}
	defer forgetRejectedSpecs(b)
	canon, err := dir, error(nil)
	if !canonical {
		canon, err = canonicalDir(dir)
	}
	if err != nil {
		b.Dir = dir
		b.ID = Identity(scope, dir, b.Name)
		b.Report.Errorf(".", "tree.unreadable", "cannot resolve the bundle directory: %v", err)
		return b
	}
	b.Dir = canon
	if b.Name == "." || b.Name == ".." {
		// "validate ." names the directory it is in.
		b.Name = filepath.Base(canon)
	}
	b.ID = Identity(scope, canon, b.Name)
	b.WalkedAt = time.Now()
	tree, rep := walk(canon, lim, prescan)
	b.Tree = tree
	b.Report.Merge(rep)
	if tree == nil {
		return b
	}
	if msg, rule := CheckName(b.Name); msg != "" {
		b.Report.Errorf(".", rule, "bundle directory name: %s", msg)
		return b
	}
	if !readManifests(b, rep) {
		return b
	}
	if b.Rejected() {
		// A fatal manifest violation: nothing of a rejected bundle is
		// discovered (the Agent Plugins spec requires it for plugin.json,
		// and bundlectl holds every format to it).
		return b
	}
	loadDocuments(b)
	deriveModel(b)
	checkModel(b)
	warnViewSize(b)
	return b
}

// AllFindings reads the bundle in dir as Load does, but goes on where a
// fatal finding stops Load (a bad directory name, a rejected manifest):
// the components are read too, so that validate can report every finding
// at once rather than one fix at a time. The bundle it reads is discarded
// (nothing of a rejected bundle is discovered); only its findings are
// returned. A reader that cannot go on past what rejected the bundle ends
// the pass with what it found so far.
func AllFindings(dir string, scope Scope, lim Limits) (rep Report) {
	b := &Bundle{Scope: scope, Name: filepath.Base(filepath.Clean(dir)), findAll: true}
	defer func() {
		if recover() != nil {
			rep = b.Report
		}
	}()
	canon, err := canonicalDir(dir)
	if err != nil {
		return b.Report
	}
	b.Dir = canon
	if b.Name == "." || b.Name == ".." {
		b.Name = filepath.Base(canon)
	}
	b.ID = Identity(scope, canon, b.Name)
	tree, wrep := walk(canon, lim, true)
	b.Tree = tree
	b.Report.Merge(wrep)
	if tree == nil {
		return b.Report
	}
	if msg, rule := CheckName(b.Name); msg != "" {
		b.Report.Errorf(".", rule, "bundle directory name: %s", msg)
	}
	if !readManifests(b, wrep) {
		return b.Report
	}
	loadDocuments(b)
	deriveModel(b)
	checkModel(b)
	warnViewSize(b)
	return b.Report
}

// readManifests applies every reader whose manifest the tree carries and
// reports whether any did.
func readManifests(b *Bundle, walkRep Report) bool {
	attempted := false
	for _, r := range readers {
		if r.format == FormatTOML && b.HasFormat(FormatAgentPlugins) {
			if hasFile(b.Tree, ManifestTOML) {
				b.Notes = append(b.Notes, "plugin.json was read; plugin.toml is ignored")
				b.Report.Warnf(ManifestTOML, "manifest.ignored", "plugin.json and plugin.toml both exist; plugin.json is read and plugin.toml is ignored")
			}
			continue
		}
		if !hasFile(b.Tree, r.manifest) {
			if e, ok := b.Tree.Lookup(r.manifest); ok && e.Kind == KindDir {
				b.Report.Errorf(r.manifest, "manifest.type", "%s is not a regular file", r.manifest)
			}
			continue
		}
		attempted = true
		data, err := b.Tree.ReadFile(r.manifest, MaxManifestBytes)
		if err != nil {
			b.Report.Errorf(r.manifest, "manifest.read", "cannot read the manifest: %v", err)
			continue
		}
		if r.format == FormatAgentPlugins && hasHostManifest(b.Tree) && !declaresSchema(data) {
			// A plugin.json with no $schema is not an Agent Plugins
			// manifest; beside a host's manifest it is some tool's own file
			// (the content hash still covers it).
			b.Report.Warnf(ManifestJSON, "manifest.ignored", "plugin.json has no $schema, so it is not an Agent Plugins manifest; it is not read (the host manifests are)")
			continue
		}
		b.useFormat(r.format)
		r.read(b, data)
	}
	if len(b.Formats) > 0 {
		readCodexFallback(b)
		settleClaudeRefusal(b)
		return true
	}
	if attempted || walkStopped(walkRep) {
		// A manifest that could not be read says why already. Or the walk stopped at a bound before it reached a manifest; its
		// finding says why, and "missing" would be false.
		return false
	}
	// A manifest that is a link, a FIFO or a device is not read, and the
	// bundle must not then pass for a manifest-less Claude Code plugin.
	for _, m := range []string{ManifestJSON, ManifestTOML, ManifestClaude, ManifestCodex, ManifestGemini} {
		if _, err := os.Lstat(filepath.Join(b.Dir, m)); err == nil {
			b.Report.Errorf(m, "manifest.type", "%s is not a regular file", m)
			return false
		}
	}
	if b.Rejected() {
		return false // a manifest that exists but could not be read
	}
	// Claude Code needs no manifest: its default component locations make
	// a plugin, named after its directory.
	if claudeDefaultsPresent(b.Tree) {
		b.useFormat(FormatClaude)
		readClaude(b, nil)
		readCodexFallback(b)
		settleClaudeRefusal(b)
		return true
	}
	b.Report.Errorf(".", "manifest.missing", "no manifest: want plugin.json, plugin.toml, .claude-plugin/plugin.json, .codex-plugin/plugin.json or gemini-extension.json, or Claude Code's default directories (commands/, agents/, skills/, hooks/hooks.json, .mcp.json)")
	return false
}

// useFormat records that the bundle is read through f.
func (b *Bundle) useFormat(f Format) {
	if b.Format == "" {
		b.Format = f
	}
	b.Formats = append(b.Formats, f)
}

// forgetRejectedSpecs keeps only the surface and name of the inactive
// declarations of a rejected bundle: their spec and detail are printed by
// validate and review, and may hold the very value that rejected the
// bundle.
func forgetRejectedSpecs(b *Bundle) {
	if !b.Rejected() {
		return
	}
	for i := range b.Inactive {
		b.Inactive[i].Spec, b.Inactive[i].Detail = nil, ""
	}
}

// walkStopped reports whether the walk stopped recording entries at the
// entry or total-size bound, so that the tree may lack later entries.
func walkStopped(r Report) bool {
	for _, f := range r.Findings {
		if f.Rule == "bounds.entries" || f.Rule == "bounds.total" {
			return true
		}
	}
	return false
}

func hasFile(t *Tree, rel string) bool {
	e, ok := t.Lookup(rel)
	return ok && e.Kind != KindDir
}

func hasDir(t *Tree, rel string) bool {
	e, ok := t.Lookup(rel)
	return ok && e.Kind == KindDir
}

// canonicalDir resolves dir to an absolute path whose parent has no
// symbolic links. The last element is kept as is and not followed: a
// symlinked bundle directory must fail closed in Walk, not be resolved.
func canonicalDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	parent, base := filepath.Split(abs)
	if base == "" {
		return "", fmt.Errorf("%q is not a bundle directory", dir)
	}
	rp, err := filepath.EvalSymlinks(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(rp, base), nil
}

// declaresSchema reports whether a JSON manifest has a top-level $schema.
func declaresSchema(data []byte) bool {
	v, err := parseJSONValue(data)
	if err != nil || v.kind != jsonObject {
		return true // let the reader report what is wrong with it
	}
	_, ok := v.obj["$schema"]
	return ok
}

// hasHostManifest reports whether the tree carries a host's manifest or
// Claude Code's default locations.
func hasHostManifest(t *Tree) bool {
	return hasFile(t, ManifestClaude) || hasFile(t, ManifestCodex) || hasFile(t, ManifestGemini) || claudeDefaultsPresent(t)
}
