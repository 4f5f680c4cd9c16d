package bundle

import (
	"fmt"
	"os"
	"path/filepath"
)

// Manifest file names. When both exist, plugin.json is read.
const (
	ManifestJSON = "plugin.json"
	ManifestTOML = "plugin.toml"
)

// Load reads and validates the bundle in dir. It never fails: every problem
// is a finding in the bundle's Report. It writes nothing, launches nothing
// and opens no connection.
func Load(dir string, scope Scope, lim Limits) *Bundle { return load(dir, scope, lim, true) }

// load is Load; prescan says whether the walk may use several workers
// (Discover, which already loads bundles in parallel, says no).
func load(dir string, scope Scope, lim Limits, prescan bool) *Bundle {
	b := &Bundle{Scope: scope, Name: filepath.Base(filepath.Clean(dir))}
	defer forgetRejectedSpecs(b)
	canon, err := canonicalDir(dir)
	if err != nil {
		b.Dir = dir
		b.ID = Identity(scope, dir, b.Name)
		b.Report.Errorf(".", "tree.unreadable", "cannot resolve the bundle directory: %v", err)
		return b
	}
	b.Dir = canon
	b.ID = Identity(scope, canon, b.Name)
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

	skillsDir := "skills"
	switch {
	case hasFile(tree, ManifestJSON):
		data, err := tree.ReadFile(ManifestJSON, MaxManifestBytes)
		if err != nil {
			b.Report.Errorf(ManifestJSON, "manifest.read", "cannot read the manifest: %v", err)
			return b
		}
		b.Format = FormatAgentPlugins
		parseAgentPlugins(b, data)
	case hasFile(tree, ManifestTOML):
		data, err := tree.ReadFile(ManifestTOML, MaxManifestBytes)
		if err != nil {
			b.Report.Errorf(ManifestTOML, "manifest.read", "cannot read the manifest: %v", err)
			return b
		}
		b.Format = FormatTOML
		skillsDir = parseTOML(b, data)
	case walkStopped(rep):
		// The walk stopped at a bound before it reached the manifest; its
		// finding says why, and "not a regular file" would be false.
		return b
	default:
		if _, err := os.Lstat(filepath.Join(canon, ManifestJSON)); err == nil {
			b.Report.Errorf(ManifestJSON, "manifest.type", "plugin.json is not a regular file")
		} else if _, err := os.Lstat(filepath.Join(canon, ManifestTOML)); err == nil {
			b.Report.Errorf(ManifestTOML, "manifest.type", "plugin.toml is not a regular file")
		} else {
			b.Report.Errorf(".", "manifest.missing", "no plugin.json or plugin.toml at the bundle root")
		}
		return b
	}
	if b.Rejected() {
		// A fatal manifest violation: the Agent Plugins spec forbids
		// discovering any component of a rejected plugin.
		return b
	}
	if skillsDir != "" {
		loadSkills(b, skillsDir)
	}
	loadDocuments(b)
	checkModel(b)
	return b
}

// forgetRejectedSpecs keeps only the surface and name of the inactive
// declarations of a rejected bundle: their spec and detail are printed by
// validate and review, and may hold the very value (a credential in an lsp
// argv, say) that rejected the bundle.
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
