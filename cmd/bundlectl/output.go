package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/state"
)

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (g *globals) manager() (*lifecycle.Manager, error) {
	r, err := g.roots()
	if err != nil {
		return nil, err
	}
	return lifecycle.New(r, bundle.Limits{}), nil
}

// finding is a finding in --json output.
type finding struct {
	Path    string `json:"path"`
	Message string `json:"message"`
	Rule    string `json:"rule"`
	Skipped bool   `json:"skipped,omitempty"`
}

func findings(fs []bundle.Finding) []finding {
	out := []finding{}
	for _, f := range fs {
		out = append(out, finding{Path: f.Path, Message: f.Message, Rule: f.Rule, Skipped: f.Severity == bundle.Skip})
	}
	return out
}

// bundleArg loads the bundle a <name|dir> argument names.
func (g *globals) bundleArg(cmd, arg string) (*bundle.Bundle, error) {
	m, err := g.manager()
	if err != nil {
		return nil, err
	}
	if isDirArg(arg) {
		if err := dirArgMissing(arg); err != nil {
			return nil, err
		}
		// A directory that is a bundle of a root is that bundle, with
		// its shadowing and status: not an ad-hoc copy to install.
		real := func(p string) (string, error) {
			a, err := filepath.Abs(p)
			if err != nil {
				return "", err
			}
			return filepath.EvalSymlinks(a)
		}
		if abs, err := real(arg); err == nil {
			for _, r := range m.Roots.List() {
				root, err := real(r.Path)
				if err != nil || filepath.Dir(abs) != root {
					continue
				}
				d := m.Discover()
				for _, b := range d.Bundles {
					if b.Dir == abs {
						return b, nil
					}
				}
			}
		}
		return m.LoadDir(arg), nil
	}
	b, err := m.Find(m.Discover(), arg)
	if err == nil {
		// A word without a slash is a bundle's name, even where a
		// directory of that name is here: say which one this is, and
		// how to name the other.
		if fi, serr := os.Stat(arg); serr == nil && fi.IsDir() {
			if abs, aerr := filepath.Abs(arg); aerr != nil || !sameDir(abs, b.Dir) {
				dir := "./" + arg
				fmt.Fprintf(g.stderr, "bundlectl: note: %s is the bundle of that name (%s, %s); a directory %s is in the current directory too, and a name without a slash is a bundle's name: name the directory as %s\n",
					bundle.Quote(arg), b.Scope, bundle.Quote(b.Dir), bundle.Quote(arg), bundle.Quote(dir))
				fmt.Fprintf(g.stderr, "bundlectl: hint: %s\n", bundle.Sanitize(g.hint("bundlectl "+cmd+" "+bundle.ShellArg(dir))))
			}
		}
	}
	if errors.Is(err, lifecycle.ErrNotFound) {
		// A directory of that name here is what a user who typed it
		// most likely meant: say how to name it as one.
		if fi, serr := os.Stat(arg); serr == nil && fi.IsDir() {
			dir := "./" + arg
			return nil, &codeError{code: exitFailure,
				err:  fmt.Errorf("%w; a directory %s is in the current directory, but a name without a slash is a bundle's name: name the directory as %s", err, bundle.Quote(arg), bundle.Quote(dir)),
				hint: "bundlectl " + cmd + " " + bundle.ShellArg(dir)}
		}
	}
	return b, err
}

// dirArgMissing is the error for a directory argument that names
// nothing: a mistyped path, which would otherwise be reviewed as a bundle
// with one finding and no command to run. It says where it was looked
// for and hints the listing of the nearest directory that exists, as
// install does for a source.
func dirArgMissing(arg string) error {
	abs, err := filepath.Abs(arg)
	if err != nil {
		return nil
	}
	if _, err := os.Lstat(abs); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	hint := "bundlectl list"
	if d := existingDir(abs); d != "" {
		hint = "ls -A " + bundle.ShellArg(d)
	}
	return &codeError{code: exitFailure,
		err:  fmt.Errorf("%s: no such file or directory (looked for %s); an argument with a slash or a leading dot is a directory, a bare word a bundle's name", bundle.Quote(arg), bundle.Quote(abs)),
		hint: hint}
}

// namedWithState finds the discovered bundle name and loads the state a
// read-only command reports it against.
func (g *globals) namedWithState(name string) (*lifecycle.Manager, *bundle.Bundle, *state.State, error) {
	m, err := g.manager()
	if err != nil {
		return nil, nil, nil, err
	}
	b, err := m.Find(m.Discover(), name)
	if err != nil {
		return nil, nil, nil, err
	}
	s, err := m.LoadState()
	if err != nil {
		return nil, nil, nil, err
	}
	return m, b, s, nil
}

// isDirArg reports whether a <name|dir> argument names a directory: it
// contains a slash or starts with a dot. A bare word is a bundle name; use
// ./name for a directory of that name.
func isDirArg(s string) bool {
	return strings.ContainsRune(s, '/') || strings.HasPrefix(s, ".")
}

// sameDir reports whether the directories a and b are one (after their
// links are resolved).
func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
