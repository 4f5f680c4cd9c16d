package sources

import (
	"path/filepath"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
)

// ValidateHint is the command that prints the full validation report of
// the tree r fetched, for a bundle named name, once that tree is gone (an
// install or update refused for it removes it), or "" where no command
// can show that tree as printed:
//
//   - a local directory (or a local marketplace's entry): bundlectl
//     validate of it;
//   - a git repository (or a marketplace entry fetched from one): the
//     fetched commit's tree written out again and validated
//     (ValidateGitTree);
//   - a local archive: its members extracted into a temporary directory
//     named name, from the archive's directory the fetch took as the
//     bundle's root (a --path, or a single wrapping directory), and
//     validated there (the members passed the fetch's checks already:
//     no link, device, or path that leaves the tree);
//   - a marketplace entry whose manifest the fetch wrote from the
//     catalogue's entry (r.Generated): no copy of the source holds that
//     manifest, so the catalogue shows it: the lines naming its entries
//     (a local one), or the catalogue at the commit read (a git one).
//
// An archive downloaded from a URL gets none: the file is gone, and a
// download again need not be the bytes that were checked.
func (r *Result) ValidateHint(name string) string {
	src := r.Source
	switch {
	case src.Kind == KindMarketplace && len(r.Generated) > 0:
		m := src.Marketplace
		switch {
		case m == nil:
			return ""
		case m.Commit != "":
			return ShowGitFile(m.Location(), m.Commit, catalogueFile(m.Format))
		}
		p := filepath.Join(m.Path, filepath.FromSlash(catalogueFile(m.Format)))
		if !filepath.IsAbs(p) || hasControl(p) {
			return ""
		}
		return "grep -n -F -e " + bundle.ShellArg(`"name"`) + " " + bundle.ShellArg(p)
	case src.Kind == KindGit || src.Kind == KindMarketplace && src.Commit != "":
		return ValidateGitTree(src.Location(), src.Commit, src.Subdir, name)
	case src.Kind == KindDir || src.Kind == KindMarketplace && src.URL == "":
		p := src.Path
		if src.Subdir != "" {
			p = filepath.Join(p, filepath.FromSlash(src.Subdir))
		}
		if !filepath.IsAbs(p) || hasControl(p) {
			return ""
		}
		return "bundlectl validate " + bundle.ShellArg(p)
	case src.Kind == KindArchive && src.URL == "":
		return validateArchive(src.Path, r.archiveRoot, name)
	}
	return ""
}

// validateArchive is the command that extracts the local archive p (tar's
// or unzip's, as its name says it is read) into a temporary directory,
// makes its directory root ("" for the archive's own root) a directory
// named name, validates that, removes the temporary directory, and exits
// as the validation (or the step before it that failed) did: a
// script of sh's given its words as arguments, so that it runs as
// printed in any shell.
func validateArchive(p, root, name string) string {
	if !filepath.IsAbs(p) || hasControl(p) || hasControl(root) || strings.HasPrefix(root, "-") || name == "" || name == "." || name == ".." ||
		strings.ContainsAny(name, "/\\") || hasControl(name) {
		return ""
	}
	extract := `tar -xzf "$1" -C "$d/a"`
	if archiveExt(p) == ".zip" {
		extract = `unzip -q "$1" -d "$d/a"`
	}
	from, args := `"$d/a"`, []string{p, name}
	if root != "" {
		from, args = `"$d/a/$3"`, append(args, root)
	}
	cmd := `sh -c 'd=$(mktemp -d) && mkdir "$d/a" && ` + extract + ` && mv ` + from + ` "$d/$2" && bundlectl validate "$d/$2"; s=$?; rm -rf "$d"; exit $s' sh`
	for _, a := range args {
		cmd += " " + bundle.ShellArg(a)
	}
	return cmd
}
