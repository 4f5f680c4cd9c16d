package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/sources"
	"github.com/bundlectl/bundlectl/state"
	"github.com/pelletier/go-toml/v2"
)

// InstallOptions tune Install.
type InstallOptions struct {
	// Scope is the root to install into: bundle.ScopeUser (the default)
	// or bundle.ScopeWorkspace.
	Scope bundle.Scope
	// Name overrides the bundle name derived from the source.
	Name string
	// Timeout bounds the fetch (sources.DefaultTimeout when zero).
	Timeout time.Duration
}

// Installed describes a bundle Install placed in a root. Its JSON form is
// the output of `bundlectl install --json` (docs/sources.md).
type Installed struct {
	Name   string           `json:"name"`
	ID     string           `json:"id"`
	Scope  bundle.Scope     `json:"scope"`
	Path   string           `json:"path"`
	Source sources.Resolved `json:"source"`
	// Generated lists files the fetch wrote itself (a marketplace entry's
	// definitions as .claude-plugin/plugin.json).
	Generated []string `json:"generated"`
	// Notes say what else the reviewer should know (a bundle it shadows,
	// a stale state record it cleared).
	Notes []string `json:"notes"`
	// Recovered: the root already held, with no recorded source, exactly
	// the tree the fetch brought (left by an install killed before its
	// state write, or placed by hand): its source was recorded and
	// nothing was replaced.
	Recovered bool `json:"recovered"`
	// Trusted and Enabled are the bundle's state after the install: a
	// fresh install is neither; a recovered tree keeps a trust whose
	// receipt covers exactly it, and the enabled bit with it.
	Trusted bool `json:"trusted"`
	Enabled bool `json:"enabled"`
}

// Install fetches the source q names into a temporary directory inside the
// home, validates it (a tree discovery would reject is refused), renames
// it into the root of opts.Scope under its name and records the source in
// state. It never trusts and never enables: the bundle starts untrusted
// and disabled like every discovered bundle. A name that is taken in the
// root (under Unicode NFC and case folding), or that an earlier root
// holds (the new bundle would be shadowed), is refused — but for a tree
// at exactly that name with no recorded source that is exactly the tree
// the fetch brings (what an install killed between its rename and its
// state write leaves): its source is recorded and nothing is replaced,
// keeping a trust whose receipt covers that tree and refusing one that
// does not. On any failure nothing is left in the root.
func (m *Manager) Install(ctx context.Context, q sources.Request, opts InstallOptions) (*Installed, error) {
	scope := opts.Scope
	if scope == "" {
		scope = bundle.ScopeUser
	}
	root, err := m.rootDir(scope)
	if err != nil {
		return nil, &SourceError{Reason: err.Error()}
	}
	// A source that cannot be fetched at all (a mistyped path) is
	// refused before the root and the home are created for it.
	if _, err := sources.Classify(q); err != nil {
		return nil, sourceErr("", err)
	}
	// What this install creates (the home, the root) is removed again
	// when it fails: a mistyped --home, or a first install whose fetch
	// fails, leaves nothing behind.
	fresh := missingDirs(m.Roots.Home, filepath.Dir(root), root)
	installed := false
	defer func() {
		if !installed {
			m.removeFresh(fresh)
		}
	}()
	// The root is created under the fetch lock: a failed command removes
	// what it created only while it holds that lock exclusively
	// (removeFresh), so it never removes a root this command is using.
	unlock, err := m.lockFetchesFresh(&fresh)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if scope == bundle.ScopeWorkspace {
		unlockWS, err := m.lockWorkspaceDir(root, &fresh)
		if err != nil {
			return nil, &SourceError{Reason: "cannot use the workspace root: " + err.Error(), Err: err}
		}
		defer unlockWS()
	}
	// Runs while the locks are held: when another command holds them
	// too, this one's cleanup is skipped, and the record is what lets the
	// next command that holds them exclusively do it.
	defer func() {
		if !installed {
			m.noteFresh(fresh)
		} else {
			m.clearFresh(fresh)
		}
	}()
	// A failed command's cleanup may have removed the root since it was
	// looked for; under the locks no other cleanup runs.
	addFresh(&fresh, missingDirs(root)...)
	if err := ensureRoot(root, scope); err != nil {
		var se *SourceError
		if errors.As(err, &se) {
			return nil, &SourceError{Reason: "cannot use the " + string(scope) + " root: " + se.Reason, Fix: se.Fix, Err: se.Err}
		}
		return nil, &SourceError{Reason: "cannot use the " + string(scope) + " root: " + err.Error()}
	}
	// Recorded before anything goes in: a SIGKILL from here on leaves
	// the records, and gc reclaims what stays empty.
	m.noteFresh(fresh)
	if testOnlyInstallLocked != nil {
		testOnlyInstallLocked()
	}

	var clash *SourceError
	isTaken := func(name string) bool {
		// A tree with no recorded source may be what a killed install
		// left: it is compared with the fetched tree below.
		if c := m.nameClash(scope, root, name); c != nil && !m.unrecorded(scope, root, name) {
			clash = c
			return true
		}
		return false
	}
	h, err := m.fetchHolder(root)
	if err != nil {
		return nil, err
	}
	defer h.remove()
	res, err := h.fetch(func(parent string, held *os.Root) (*sources.Result, error) {
		return sources.Fetch(ctx, parent, q, sources.Options{Limits: m.Limits, Timeout: opts.Timeout, Name: opts.Name, Taken: isTaken, Parent: held})
	})
	if err != nil {
		if clash != nil {
			return nil, clash
		}
		return nil, sourceErr("", err)
	}
	dir := h.at(res.Name)
	if testOnlyInstallFetched != nil {
		testOnlyInstallFetched()
	}
	var notes []string
	if opts.Name == "" && res.Source.Kind != sources.KindMarketplace {
		// A repository or archive is often not named like the bundle it
		// holds: the manifest's name wins (Agent Plugins requires the
		// directory to carry it).
		if mn := manifestName(dir); mn != "" && mn != res.Name && sources.CheckName(mn) == nil && bundle.ValidBundleName(mn) {
			if c := m.nameClash(scope, root, mn); c != nil && !m.unrecorded(scope, root, mn) {
				return nil, c
			}
			if err := h.rename(res.Name, mn); err != nil {
				return nil, err
			}
			renamed := h.at(mn)
			notes = append(notes, fmt.Sprintf("named %s after its manifest (the source would have named it %s; --name overrides)", bundle.Quote(mn), bundle.Quote(res.Name)))
			dir, res.Name = renamed, mn
		}
	}
	if !bundle.ValidBundleName(res.Name) {
		// It would install, and could never be trusted.
		why := "cannot be a bundle name (" + bundle.BundleNameRule + "), so it was not installed"
		fix, from := "", res.Name
		if mn := manifestName(dir); mn != "" && opts.Name == "" {
			from = mn // the name the plugin gives itself
		}
		if mn := agentPluginsName(dir); mn != "" {
			// The directory must carry the manifest's name: no --name helps.
			why = fmt.Sprintf("cannot be a bundle name (%s), and an Agent Plugins bundle's directory must carry the name its plugin.json gives (%s), so it cannot be installed until the plugin is renamed", bundle.BundleNameRule, bundle.Quote(mn))
			from = ""
		}
		if s := bundle.SuggestBundleName(from); s != "" {
			fix = installCommand(q, opts.Scope, s)
		}
		return nil, &SourceError{Bundle: res.Name, Reason: why, Fix: fix, Err: ErrRefused}
	}
	if mn := agentPluginsName(dir); opts.Name != "" && mn != "" && mn != opts.Name {
		return nil, &SourceError{Bundle: opts.Name,
			Reason: fmt.Sprintf("its plugin.json names it %s, and an Agent Plugins bundle's directory must carry that name, so --name cannot rename it: install it under its own name", bundle.Quote(mn)),
			Fix:    installCommand(q, opts.Scope, ""), Err: ErrRefused}
	}
	nb, err := validateFetched(dir, scope, m.Limits, res.Name)
	if err != nil {
		return nil, withValidateHint(err, res, res.Name)
	}
	if err := h.holds(res.Name, nb.Tree); err != nil {
		return nil, err // what was validated may not be what is held
	}
	raw, err := sourceRecord(res.Source, nb.Tree)
	if err != nil {
		return nil, err
	}
	in := &Installed{Name: res.Name, Scope: scope, Source: res.Source, Generated: res.Generated, Notes: append([]string{}, notes...)}
	if in.Generated == nil {
		in.Generated = []string{}
	}
	placed := false
	undoMark := func() {}
	_, err = m.stateStore().Update(func(s *state.State) error {
		// Re-check under the lock: another install may have won the name.
		if c := m.nameClash(scope, root, res.Name); c != nil {
			if !m.unrecorded(scope, root, res.Name) {
				return c
			}
			return m.recoverUnrecorded(s, in, scope, root, nb, raw, c, &undoMark)
		}
		if scope == bundle.ScopeWorkspace {
			if undoMark, err = m.markHome(root, res.Name); err != nil {
				return err
			}
		}
		if err := h.place(res.Name, res.Name); err != nil {
			return fmt.Errorf("cannot move the fetched tree into place: %w", err)
		}
		placed = true
		id, canon, err := canonicalID(scope, root, res.Name)
		if err != nil {
			return err
		}
		in.ID, in.Path = id, canon
		if _, ok := s.Bundle(id); ok {
			// A record left by a bundle removed by hand: its receipt was
			// for other content, its switches for other components.
			if _, err := s.Forget(id); err != nil {
				return err
			}
			in.Notes = append(in.Notes, "a state record left for an earlier bundle at this path (removed by hand) was cleared: the new bundle starts untrusted and disabled")
		}
		_, err = s.SetSource(id, raw)
		return err
	})
	if err != nil {
		if placed {
			h.undoPlace(res.Name, res.Name) // back into the holder, removed below
		}
		undoMark()
		return nil, stateErr(err)
	}
	in.Notes = append(in.Notes, m.shadowNotes(scope, res.Name)...)
	installed = true
	return in, nil
}

// nameClash refuses a name the target root already holds, or that an
// earlier root holds (the new bundle would be shadowed and never active).
func (m *Manager) nameClash(scope bundle.Scope, root, name string) *SourceError {
	if have, ok := taken(root, name); ok {
		reason := fmt.Sprintf("a bundle named %s is already installed in the %s root", bundle.Quote(have), scope)
		if have != name {
			reason = fmt.Sprintf("the %s root already holds %s, which collides with %s (names are compared under Unicode normalisation and case folding)", scope, bundle.Quote(have), bundle.Quote(name))
		}
		if !m.hasSource(filepath.Join(root, have), scope) {
			// update would refuse it: it has no source to fetch again.
			return &SourceError{Bundle: name, Reason: reason + " (placed there by hand, or left by an install that was killed); install this one under another name (--name; not for an Agent Plugins bundle, whose directory carries its plugin.json's name), or delete that one first (it may be the only copy: bundlectl uninstall --force --scope " + string(scope) + " " + bundle.ShellArg(have) + ")",
				Fix: "bundlectl show " + bundle.ShellArg(have), Err: ErrRefused}
		}
		return &SourceError{Bundle: name, Reason: reason + "; to fetch its source again, update it, or install this one under another name (--name; not for an Agent Plugins bundle, whose directory carries its plugin.json's name)",
			Fix: "bundlectl update " + bundle.ShellArg(have), Err: ErrRefused}
	}
	return m.shadowClash(scope, name)
}

// shadowClash refuses a name that an earlier root holds: the new bundle
// would be shadowed and never active.
func (m *Manager) shadowClash(scope bundle.Scope, name string) *SourceError {
	if by, ok := m.shadowedBy(scope, name); ok {
		return &SourceError{Bundle: name, Reason: fmt.Sprintf("the %s root already has a bundle named %s, which would shadow this one (it could never become active); install it under another name (--name; not for an Agent Plugins bundle, whose directory carries its plugin.json's name)", by.Scope, bundle.Quote(by.Name)),
			Fix: "bundlectl show " + bundle.ShellArg(by.Name), Err: ErrRefused}
	}
	return nil
}

// unrecorded reports whether root holds a bundle at exactly name with no
// recorded source: placed there by hand, or left by an install killed
// between its rename and its state write.
func (m *Manager) unrecorded(scope bundle.Scope, root, name string) bool {
	have, ok := taken(root, name)
	return ok && have == name && !m.hasSource(filepath.Join(root, name), scope)
}

// recoverUnrecorded finishes, under the state lock, an install whose name
// is held by a tree with no recorded source (unrecorded). When that tree
// is exactly the fetched nb (the comparison update makes of a tree a
// killed update left), its source raw is recorded and nothing is
// replaced; otherwise the tree may be a local edit or another bundle, and
// clash, the refusal of the taken name, is returned. A state record at
// its id without a receipt is cleared, as install clears one; a receipt
// is kept only when it covers exactly that tree (no trust is lost or
// widened), and one for other content is refused.
func (m *Manager) recoverUnrecorded(s *state.State, in *Installed, scope bundle.Scope, root string, nb *bundle.Bundle, raw json.RawMessage, clash *SourceError, undoMark *func()) error {
	id, canon, err := canonicalID(scope, root, in.Name)
	if err != nil {
		return err
	}
	pb := bundle.Load(canon, scope, m.Limits)
	if pb.Rejected() || !sameTree(pb.Tree, nb.Tree) {
		return clash
	}
	if c := m.shadowClash(scope, in.Name); c != nil {
		return c
	}
	in.ID, in.Path, in.Recovered = id, canon, true
	rec, ok := s.Bundle(id)
	switch {
	case len(rec.Source) > 0:
		return clash // recorded since unrecorded looked: not left by a killed install
	case rec.Receipt != nil:
		h, err := Compute(pb)
		if err != nil || h.Token() != rec.Receipt.Token() {
			return &SourceError{Bundle: in.Name, Reason: fmt.Sprintf("the %s root holds a bundle named %s with no recorded source, exactly the tree this source brings, but it is trusted for other content (a receipt for content %s, capabilities %s): recording the source would keep that trust, and clearing it would lose it, so nothing was changed; review the bundle and trust it as it is, then install again to record its source, or delete it first (bundlectl uninstall --force --scope %s %s) and install again",
				scope, bundle.Quote(in.Name), rec.Receipt.ContentHash.Short(), rec.Receipt.CapabilityHash.Short(), scope, bundle.ShellArg(in.Name)),
				Fix: "bundlectl review " + bundle.ShellArg(in.Name), Err: ErrRefused}
		}
		in.Trusted, in.Enabled = true, rec.Enabled
		in.Notes = append(in.Notes, "its trust is kept: the receipt covers exactly the tree in place")
	case ok:
		if _, err := s.Forget(id); err != nil {
			return err
		}
		in.Notes = append(in.Notes, "a state record left at this path without a trust was cleared: the bundle starts disabled")
	}
	in.Notes = append(in.Notes, "recovered the tree an interrupted install left (or one placed by hand): it is exactly what the source brings, so its source is recorded and nothing was replaced")
	if scope == bundle.ScopeWorkspace {
		if others, more, err := m.otherHomes(root, in.Name); err != nil {
			// Nothing is deleted or replaced here; marking (below)
			// refuses a link or a non-directory.
			in.Notes = append(in.Notes, "whether another bundlectl home installed this tree too is unknown: "+err.Error())
		} else if len(others) > 0 {
			in.Notes = append(in.Notes, fmt.Sprintf("another bundlectl home installed this tree too (%s): the homes share it, and an uninstall here forgets it in this home but leaves the tree", homesNames(others, more)))
		}
		if *undoMark, err = m.markHome(root, in.Name); err != nil {
			return err
		}
	}
	_, err = s.SetSource(id, raw)
	return err
}

// hasSource reports whether the bundle in dir has a recorded source (it
// was installed, not placed by hand). A state that cannot be read says
// yes: update then reports what is wrong with it.
func (m *Manager) hasSource(dir string, scope bundle.Scope) bool {
	s, err := m.LoadState()
	if err != nil {
		return true
	}
	rec, _ := s.Bundle(bundle.Load(dir, scope, m.Limits).ID)
	return len(rec.Source) > 0
}

// shadowing is a bundle of an earlier root that takes a name.
type shadowing struct {
	Scope bundle.Scope
	Name  string
}

// shadowedBy reports the bundle of a root earlier than scope's that holds
// name (under the comparison roots use), which would shadow a bundle of
// that name in scope's root.
func (m *Manager) shadowedBy(scope bundle.Scope, name string) (shadowing, bool) {
	for _, r := range m.Roots.List() {
		if r.Scope == scope {
			break
		}
		if have, ok := taken(r.Path, name); ok {
			return shadowing{r.Scope, have}, true
		}
	}
	return shadowing{}, false
}

// shadowNotes names the bundles of later roots that the new one shadows.
func (m *Manager) shadowNotes(scope bundle.Scope, name string) []string {
	var notes []string
	after := false
	for _, r := range m.Roots.List() {
		if r.Scope == scope {
			after = true
			continue
		}
		if have, ok := taken(r.Path, name); ok && after {
			notes = append(notes, fmt.Sprintf("it shadows the %s bundle %s, which can no longer become active", r.Scope, bundle.Quote(have)))
		}
	}
	return notes
}

// agentPluginsName returns the name an Agent Plugins manifest (plugin.json
// at the top) gives the bundle in dir, which its directory must carry ("",
// when there is none).
func agentPluginsName(dir string) string {
	var doc struct {
		Schema string `json:"$schema"`
		Name   string `json:"name"`
	}
	if !readManifestJSON(dir, bundle.ManifestJSON, &doc) || doc.Schema == "" {
		return "" // without $schema the loader ignores plugin.json (an npm one, say)
	}
	return doc.Name
}

// readManifestJSON decodes the manifest file in dir into v, never
// following a link and reading at most a manifest's limit.
func readManifestJSON(dir, file string, v any) bool {
	f, err := bundle.OpenNoFollow(dir, file)
	if err != nil {
		return false
	}
	defer f.Close()
	return json.NewDecoder(io.LimitReader(f, bundle.MaxManifestBytes)).Decode(v) == nil
}

// manifestName returns the name the bundle's manifest declares, in the
// order the readers apply them ("" when none declares one).
func manifestName(dir string) string {
	for _, m := range []string{bundle.ManifestJSON, bundle.ManifestClaude, bundle.ManifestCodex, bundle.ManifestGemini} {
		var doc struct {
			Name string `json:"name"`
		}
		if readManifestJSON(dir, m, &doc) && doc.Name != "" {
			return doc.Name
		}
	}
	f, err := bundle.OpenNoFollow(dir, bundle.ManifestTOML)
	if err != nil {
		return ""
	}
	defer f.Close()
	var doc struct {
		Name string `toml:"name"`
	}
	if toml.NewDecoder(io.LimitReader(f, bundle.MaxManifestBytes)).Decode(&doc) == nil {
		return doc.Name
	}
	return ""
}

// validateFetched refuses a fetched tree that discovery would reject.
func validateFetched(dir string, scope bundle.Scope, lim bundle.Limits, name string) (*bundle.Bundle, error) {
	done := func() {}
	if testOnlyValidating != nil {
		done = testOnlyValidating(dir)
	}
	b := bundle.Load(dir, scope, lim)
	done()
	if !b.Rejected() && b.Tree != nil {
		return b, nil
	}
	var why []string
	for _, f := range b.Report.Errors() {
		if f.Severity == bundle.Error {
			why = append(why, f.String())
		}
	}
	if len(why) > 5 {
		why = append(why[:5], fmt.Sprintf("and %d more", len(why)-5))
	}
	return nil, &SourceError{Bundle: name, Reason: "the fetched bundle is invalid, so it was not installed: " + bundle.Sanitize(strings.Join(why, "; ")), Err: ErrRefused}
}

// testOnlyValidating runs in validateFetched right before the fetched
// tree dir is read, and what it returns right after.
var testOnlyValidating func(dir string) func()

// withValidateHint gives the refusal of an invalid fetched tree the
// command that prints its full validation report (the refusal names at
// most five findings): sources.Result.ValidateHint, since the tree
// itself is gone once the install failed.
func withValidateHint(err error, res *sources.Result, name string) error {
	var se *SourceError
	if !errors.As(err, &se) || se.Fix != "" {
		return err
	}
	se.Fix = res.ValidateHint(name)
	return err
}

// sourceErr makes a sources error a SourceError: refusals (a rule broken,
// a pin that does not match) are refusals (exit 3), the rest failures.
func sourceErr(name string, err error) error {
	var se *SourceError
	if errors.As(err, &se) {
		return err
	}
	e := &SourceError{Bundle: name, Reason: err.Error(), Err: err}
	if errors.Is(err, sources.ErrRefused) || errors.Is(err, sources.ErrPinMismatch) {
		e.Err = errors.Join(err, ErrRefused)
	}
	return e
}

// installCommand is the install command line of q into scope under name:
// every flag the request was made with, so that it works as printed.
func installCommand(q sources.Request, scope bundle.Scope, name string) string {
	cmd := "bundlectl install " + bundle.ShellArg(q.Source)
	for _, f := range []struct{ flag, value string }{
		{"--scope", string(scope)}, {"--ref", q.Ref}, {"--path", q.Subdir},
		{"--sha256", q.SHA256}, {"--format", q.Format}, {"--name", name},
	} {
		if f.value != "" && !(f.flag == "--scope" && f.value == string(bundle.ScopeUser)) {
			cmd += " " + f.flag + " " + bundle.ShellArg(f.value)
		}
	}
	return cmd
}
