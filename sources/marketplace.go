package sources

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"strings"
	"syscall"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// MaxMarketplaceBytes bounds a marketplace catalogue file.
const MaxMarketplaceBytes = 8 << 20

// Catalogue files, relative to the marketplace root.
const (
	ClaudeCatalogue = ".claude-plugin/marketplace.json"
	CodexCatalogue  = ".agents/plugins/marketplace.json"
)

// GeneratedManifest is where a Claude Code marketplace entry's manifest
// fields and component definitions are written when the plugin ships no
// manifest of its own.
const GeneratedManifest = ".claude-plugin/plugin.json"

// marketplaceOnlyKeys describe a Claude Code marketplace listing, not the
// plugin; they are left out of a manifest written from an entry.
var marketplaceOnlyKeys = map[string]bool{"source": true, "strict": true, "category": true, "tags": true, "relevance": true}

// entryComponentKeys are the entry fields Claude Code treats as component
// definitions when it decides whether an entry conflicts with, or adds to,
// a plugin's own plugin.json (Claude Code 2.1.x).
var entryComponentKeys = []string{"commands", "agents", "skills", "hooks", "outputStyles", "themes"}

// utf8BOM is the byte-order mark some editors put at the start of a file.
var utf8BOM = []byte("\xef\xbb\xbf")

// catalogue is a parsed marketplace file.
type catalogue struct {
	format     string
	name       string
	pluginRoot string
	plugins    []json.RawMessage
}

func parseCatalogue(format string, data []byte, display string) (*catalogue, error) {
	file := ClaudeCatalogue
	if format == FormatCodex {
		file = CodexCatalogue
	}
	bad := func(field, msg string) error {
		return &Error{Source: display, Path: file + ": " + field, Reason: msg, Err: ErrRefused}
	}
	var raw struct {
		Name     *string `json:"name"`
		Metadata *struct {
			PluginRoot *string `json:"pluginRoot"`
		} `json:"metadata"`
		Plugins *[]json.RawMessage `json:"plugins"`
		Owner   json.RawMessage    `json:"owner"`
	}
	if bytes.HasPrefix(data, utf8BOM) {
		// Claude Code 2.1 reads a catalogue that starts with a
		// byte-order mark; Codex 0.171 refuses it ("expected value at
		// line 1 column 1").
		if format == FormatCodex {
			return nil, &Error{Source: display, Path: file, Reason: "starts with a UTF-8 byte-order mark, which Codex refuses (\"expected value at line 1 column 1\"): the marketplace must save it without one", Err: ErrRefused}
		}
		data = data[len(utf8BOM):]
	}
	// Claude Code (JSON.parse) and Codex (serde) read each key by its
	// exact name: encoding/json would also take "Plugins" or "PluginRoot",
	// and fetch what the host would not.
	if err := jsonobj.UnmarshalExact(data, &raw); err != nil {
		return nil, &Error{Source: display, Path: file, Reason: "not a valid marketplace file: " + jsonReason(err), Err: ErrRefused}
	}
	if raw.Name == nil {
		return nil, bad("name", "missing")
	}
	if err := CheckName(*raw.Name); err != nil {
		return nil, bad("name", err.Error())
	}
	if raw.Plugins == nil {
		return nil, bad("plugins", "missing")
	}
	if format == FormatCodex {
		if err := checkCodexCatalogue(data, *raw.Plugins, display); err != nil {
			return nil, err
		}
	}
	if format == FormatClaude {
		if field, msg := checkClaudeOwner(raw.Owner); msg != "" {
			return nil, &Error{Source: display, Path: file + ": " + field, Reason: msg, Err: ErrCatalogueOwner}
		}
	}
	c := &catalogue{format: format, name: *raw.Name, plugins: *raw.Plugins}
	if format == FormatClaude && raw.Metadata != nil && raw.Metadata.PluginRoot != nil {
		root, err := cleanSubdir(*raw.Metadata.PluginRoot)
		if err != nil {
			return nil, bad("metadata.pluginRoot", err.Error()+"; it must stay inside the marketplace")
		}
		c.pluginRoot = root
	}
	return c, nil
}

func jsonReason(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("JSON syntax error at byte %d", se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%s has the wrong type", te.Field)
	}
	return "malformed JSON"
}

// entry is the catalogue entry of one plugin.
type entry struct {
	index  int
	raw    map[string]json.RawMessage
	name   string
	strict bool
	src    entrySource
}

// entrySource is where an entry's files are: relative to the marketplace
// (kind "relative"), or in a git repository.
type entrySource struct {
	kind string // "relative", "github", "url", "git-subdir"
	path string // clean relative path (relative, git-subdir)
	url  string // git URL
	ref  string
	sha  string
}

// find returns the entry named plugin, refusing two entries of that name.
func (c *catalogue) find(plugin, display string, local bool) (*entry, error) {
	file := ClaudeCatalogue
	if c.format == FormatCodex {
		file = CodexCatalogue
	}
	var found *entry
	var names []string // the entries' names, for a name that is not there
	for i, raw := range c.plugins {
		at := fmt.Sprintf("%s: plugins[%d]", file, i)
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			continue // not an object: Claude Code skips such an entry (Codex refuses the file: checkCodexCatalogue)
		}
		var name string
		if err := json.Unmarshal(m["name"], &name); err == nil && len(names) < 20 {
			names = append(names, bundle.Quote(name))
		}
		if name != plugin {
			continue
		}
		if found != nil {
			return nil, &Error{Source: display, Path: at, Reason: fmt.Sprintf("a second entry is named %s (the first is plugins[%d]); bundlectl refuses to guess", bundle.Quote(plugin), found.index), Err: ErrRefused}
		}
		e := &entry{index: i, raw: m, name: name, strict: true}
		if s, ok := m["strict"]; ok {
			if err := json.Unmarshal(s, &e.strict); err != nil {
				return nil, &Error{Source: display, Path: at + ".strict", Reason: "must be true or false", Err: ErrRefused}
			}
		}
		if c.format == FormatCodex {
			var policy struct {
				Installation string `json:"installation"`
			}
			if p, ok := m["policy"]; ok && jsonobj.UnmarshalExact(p, &policy) == nil && policy.Installation == "NOT_AVAILABLE" {
				return nil, &Error{Source: display, Path: at + ".policy.installation", Reason: "the marketplace marks this plugin NOT_AVAILABLE for install", Err: ErrRefused}
			}
		}
		if key, twice := repeatedKey(m["source"]); twice && c.format == FormatCodex {
			// Codex 0.171 does not install such an entry: "plugin …
			// was not found in marketplace …".
			return nil, &Error{Source: display, Path: bundle.FieldPath(at+".source", key), Reason: "is written twice in the entry's source; Codex does not install this entry (it says the plugin was not found), so bundlectl does not pick one", Err: ErrRefused}
		}
		src, err := parseEntrySource(m["source"], c, local)
		if err != nil {
			return nil, &Error{Source: display, Path: at + ".source", Reason: err.Error(), Err: ErrRefused}
		}
		e.src = src
		found = e
	}
	if found == nil {
		has := "it lists none"
		if len(names) > 0 {
			has = "it lists " + strings.Join(names, ", ")
			if len(c.plugins) > len(names) {
				has += ", …"
			}
		}
		return nil, &Error{Source: display, Reason: fmt.Sprintf("marketplace %s (%s) has no plugin named %s (%s)", bundle.Quote(c.name), file, bundle.Quote(plugin), has), Err: ErrNotFound}
	}
	return found, nil
}

var githubRepo = lazyRegexp(`^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$`)

// githubURL turns owner/repo into its https clone URL.
func githubURL(repo string) (string, bool) {
	repo = strings.TrimSuffix(repo, ".git")
	if !githubRepo().MatchString(repo) || strings.HasSuffix(repo, "/.") || strings.HasSuffix(repo, "/..") {
		return "", false
	}
	return "https://github.com/" + repo + ".git", true
}

// parseEntrySource reads an entry's source. Relative paths must stay
// inside the marketplace; git URLs follow checkGitURL, and a marketplace
// fetched from elsewhere may not point at this machine (file://).
func parseEntrySource(raw json.RawMessage, c *catalogue, local bool) (entrySource, error) {
	if raw == nil {
		return entrySource{}, errors.New("missing")
	}
	relative := func(p string, bare bool) (entrySource, error) {
		switch {
		case strings.HasPrefix(p, "./") || p == ".":
		case bare && c.pluginRoot != "":
			p = c.pluginRoot + "/" + p
		default:
			return entrySource{}, errors.New("a relative source must start with \"./\"")
		}
		clean, err := cleanSubdir(p)
		if err != nil {
			return entrySource{}, fmt.Errorf("the path leaves the marketplace or is not clean: %v", err)
		}
		return entrySource{kind: "relative", path: clean}, nil
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		if strings.HasPrefix(str, "/") {
			return entrySource{}, errors.New("an absolute path leaves the marketplace")
		}
		return relative(str, c.format == FormatClaude)
	}
	var obj struct {
		Source *string `json:"source"`
		Repo   *string `json:"repo"`
		URL    *string `json:"url"`
		Path   *string `json:"path"`
		Ref    *string `json:"ref"`
		SHA    *string `json:"sha"`
	}
	// By exact name, as the hosts read it: a "URL" written after "url"
	// must not replace the repository the host would fetch.
	if err := jsonobj.UnmarshalExact(raw, &obj); err != nil || obj.Source == nil {
		return entrySource{}, errors.New("must be a path or an object with a \"source\" kind")
	}
	kind := *obj.Source
	get := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	es := entrySource{kind: kind, ref: get(obj.Ref), sha: strings.ToLower(get(obj.SHA))}
	if es.ref != "" {
		if err := checkRef(es.ref); err != nil {
			return entrySource{}, fmt.Errorf("ref: %v", err)
		}
	}
	if es.sha != "" && !isCommit(es.sha) {
		return entrySource{}, errors.New("sha: want a full commit id (40 hex digits)")
	}
	gitURL := func(u string, shorthand bool) (string, error) {
		if u == "" {
			return "", errors.New("url: missing")
		}
		if shorthand {
			if g, ok := githubURL(u); ok {
				return g, nil
			}
		}
		g, err := checkGitURL(u)
		if err != nil {
			return "", fmt.Errorf("url: %v", err)
		}
		if !local && strings.HasPrefix(strings.ToLower(g), "file:") {
			return "", errors.New("url: a marketplace fetched from elsewhere may not point at a path on this machine")
		}
		return g, nil
	}
	var err error
	switch {
	case kind == "local" && c.format == FormatCodex:
		if obj.Path == nil {
			return entrySource{}, errors.New("path: missing")
		}
		return relative(*obj.Path, false)
	case kind == "github" && c.format == FormatClaude:
		u, ok := githubURL(get(obj.Repo))
		if !ok {
			return entrySource{}, errors.New("repo: want owner/repo")
		}
		es.url = u
	case kind == "url":
		es.url, err = gitURL(get(obj.URL), false)
	case kind == "git-subdir":
		if es.url, err = gitURL(get(obj.URL), true); err == nil {
			if obj.Path == nil {
				return entrySource{}, errors.New("path: missing")
			}
			es.path, err = cleanSubdir(*obj.Path)
			if err != nil {
				err = fmt.Errorf("path: %v", err)
			}
		}
	case kind == "npm" || kind == "pip":
		return entrySource{}, fmt.Errorf("%s sources are not supported: bundlectl does not run package managers to fetch a plugin", kind)
	default:
		return entrySource{}, fmt.Errorf("source kind %s is not supported", bundle.Quote(kind))
	}
	if err != nil {
		return entrySource{}, err
	}
	return es, nil
}

func (f *fetcher) fetchMarketplace(s *spec, res *Result) error {
	m := s.market
	formats := []string{FormatClaude, FormatCodex}
	if s.format != "" {
		formats = []string{s.format}
	}
	ms := &MarketplaceSource{URL: m.url, Path: m.path, Ref: m.ref}
	var g *gitRepo
	var read func(format string) ([]byte, bool, error)
	if m.kind == KindDir {
		read = func(format string) ([]byte, bool, error) { return readLocalCatalogue(m.path, format, s.display) }
	} else {
		var err error
		if g, err = f.openRepo(m.url, m.path, s.display); err != nil {
			return err
		}
		want, fallback := m.ref, ""
		if s.pinMkt != "" {
			want, fallback = s.pinMkt, m.ref
		}
		if ms.Commit, err = g.fetch(want, fallback); err != nil {
			return err
		}
		read = func(format string) ([]byte, bool, error) {
			file := catalogueFile(format)
			ok, err := g.exists(ms.Commit, file)
			if err != nil || !ok {
				return nil, false, err
			}
			data, err := g.readFile(ms.Commit, file, MaxMarketplaceBytes)
			return data, true, err
		}
	}
	var cat *catalogue
	var e *entry
	var notFound error
	for _, format := range formats {
		data, ok, err := read(format)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		c, err := parseCatalogue(format, data, s.display)
		if err != nil {
			return withCatalogueHint(err, m, g, ms.Commit, format)
		}
		e, err = c.find(s.plugin, s.display, m.isLocal)
		if errors.Is(err, ErrNotFound) {
			if notFound == nil {
				notFound = withCatalogueHint(err, m, g, ms.Commit, format)
			}
			continue
		}
		if err != nil {
			return withCatalogueHint(err, m, g, ms.Commit, format)
		}
		cat = c
		break
	}
	if cat == nil && notFound != nil {
		return notFound
	}
	if cat == nil {
		return notAMarketplace(s)
	}
	ms.Name, ms.Format = cat.name, cat.format
	r := Resolved{Kind: KindMarketplace, Plugin: s.plugin, Marketplace: ms}

	t, err := f.newTree("plugin", s.display, true)
	if err != nil {
		return err
	}
	defer t.close()
	listBase, listUnder := "", ""   // a plugin copied from a directory: where its refusals are listed
	var gitRemote, gitCommit string // a plugin extracted from a git commit: where they are
	listed := func(err error) error {
		switch {
		case listBase != "":
			return withListing(err, listBase, listUnder)
		case gitCommit != "":
			return withGitListing(err, gitRemote, gitCommit, r.Subdir)
		}
		return err
	}
	switch src := e.src; src.kind {
	case "relative":
		r.Subdir = src.path
		if m.kind == KindDir {
			listBase, listUnder = m.path, src.path
			r.Path = m.path
			if err := copyDir(t, m.path, src.path); err != nil {
				return err
			}
		} else {
			r.URL, r.Path, r.Ref, r.Commit = m.url, m.path, m.ref, ms.Commit
			oid, err := g.subtree(ms.Commit, src.path)
			if err != nil {
				// An entry's path the commit does not hold: the
				// directory it was looked for in, listed there.
				return withGitListing(err, g.remote, ms.Commit, "")
			}
			gitRemote, gitCommit = g.remote, ms.Commit
			if err := g.extract(t, oid); err != nil {
				return listed(err)
			}
		}
	default:
		pg, err := f.openRepo(src.url, "", s.display+" (entry "+src.url+")")
		if err != nil {
			return err
		}
		want, fallback := src.ref, ""
		if src.sha != "" {
			want, fallback = src.sha, src.ref
		}
		if s.pinned != "" {
			if src.sha != "" && src.sha != s.pinned {
				return &Error{Source: s.display, Reason: fmt.Sprintf("the marketplace entry pins commit %s, not the recorded %s", src.sha, s.pinned), Err: ErrPinMismatch}
			}
			want, fallback = s.pinned, src.ref
		}
		commit, err := pg.fetch(want, fallback)
		if err != nil {
			return err
		}
		oid, err := pg.subtree(commit, src.path)
		if err != nil {
			return withGitListing(err, pg.remote, commit, "")
		}
		r.URL, r.Ref, r.Commit, r.Subdir = src.url, src.ref, commit, src.path
		gitRemote, gitCommit = pg.remote, commit
		if err := pg.extract(t, oid); err != nil {
			return listed(err)
		}
	}
	if cat.format == FormatClaude {
		gen, err := applyEntry(t, e, cat, s.display)
		if err != nil {
			return withStrictHint(err, m, g, ms.Commit)
		}
		if gen {
			res.Generated = append(res.Generated, GeneratedManifest)
		}
	}
	if err := t.finish(); err != nil {
		if gitCommit != "" {
			err = withGitCopyWithout(err, gitRemote, gitCommit, r.Subdir, f.name)
		}
		return listed(err)
	}
	res.Source = r
	return nil
}

// applyEntry makes a Claude Code entry's definitions part of the fetched
// tree, as Claude Code itself reads them:
//   - the plugin ships no .claude-plugin/plugin.json: Claude Code uses the
//     entry as the manifest (whatever strict says), so the entry, without
//     its listing-only keys, is written there;
//   - strict: false and the entry defines components while the plugin
//     ships a plugin.json: Claude Code refuses to load the plugin
//     ("conflicting manifests"), and so does bundlectl;
//   - strict: true and the entry defines components beside the plugin's
//     plugin.json: Claude Code merges both; bundlectl does not merge yet
//     and refuses rather than review less than would run.
//
// It reports whether it wrote the manifest.
func applyEntry(t *tree, e *entry, cat *catalogue, display string) (bool, error) {
	var comps []string
	for _, k := range entryComponentKeys {
		if _, ok := e.raw[k]; ok {
			comps = append(comps, k)
		}
	}
	if x, ok := e.raw["experimental"]; ok {
		var exp map[string]json.RawMessage
		if json.Unmarshal(x, &exp) == nil {
			if _, ok := exp["themes"]; ok {
				comps = append(comps, "experimental.themes")
			}
		}
	}
	shipped := t.has(GeneratedManifest, kindFile) || t.has(GeneratedManifest, kindLink)
	where := fmt.Sprintf("%s: plugins[%d]", ClaudeCatalogue, e.index)
	switch {
	case !shipped:
		out := make(map[string]json.RawMessage, len(e.raw))
		for k, v := range e.raw {
			if !marketplaceOnlyKeys[k] {
				out[k] = v
			}
		}
		data, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return false, &Error{Source: display, Path: where, Reason: "the entry cannot be written as a manifest: " + jsonReason(err), Err: ErrRefused}
		}
		data = append(data, '\n')
		return true, t.file(GeneratedManifest, int64(len(data)), false, bytes.NewReader(data))
	case len(comps) == 0:
		return false, nil
	case !e.strict:
		return false, &Error{Source: display, Path: GeneratedManifest, Reason: fmt.Sprintf(
			"the plugin ships its own manifest while marketplace entry %s (%s, strict: false) also defines components (%s): conflicting manifests; Claude Code refuses to load such a plugin and so does bundlectl — the marketplace must set strict: true or drop one of the definitions",
			bundle.Quote(e.name), where, strings.Join(comps, ", ")), Err: ErrRefused}
	default:
		return false, &Error{Source: display, Path: GeneratedManifest, Reason: fmt.Sprintf(
			"marketplace entry %s (%s) adds components (%s) to the plugin's own manifest; Claude Code merges the two, bundlectl does not, and refuses rather than review less than would run",
			bundle.Quote(e.name), where, strings.Join(comps, ", ")), Err: ErrRefused}
	}
}

// withStrictHint gives the refusal of a Claude Code marketplace entry
// whose plugin ships its own manifest while the entry, strict: false,
// defines components too the command that shows where the catalogue
// says so: its "strict" lines in a local one, the catalogue itself, at
// the commit read, in a git one.
func withStrictHint(err error, m *spec, g *gitRepo, commit string) error {
	var e *Error
	if !errors.As(err, &e) || e.Fix != "" {
		return err
	}
	if m.kind != KindDir {
		if g != nil {
			e.Fix = ShowGitFile(g.remote, commit, ClaudeCatalogue)
		}
		return err
	}
	if p := filepath.Join(m.path, filepath.FromSlash(ClaudeCatalogue)); !hasControl(p) {
		e.Fix = "grep -n -F -e " + bundle.ShellArg(`"strict"`) + " " + bundle.ShellArg(p)
	}
	return err
}

func catalogueFile(format string) string {
	if format == FormatCodex {
		return CodexCatalogue
	}
	return ClaudeCatalogue
}

// readLocalCatalogue reads the catalogue of format from the marketplace
// directory root, reached through real directories only, without
// following a link or blocking on a FIFO. ok is false when there is none.
func readLocalCatalogue(root, format, display string) (data []byte, ok bool, err error) {
	file := catalogueFile(format)
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, false, &Error{Source: display, Reason: "cannot open the marketplace: " + errText(err), Err: err}
	}
	defer r.Close()
	parts := strings.Split(file, "/")
	cur := ""
	for i, p := range parts {
		cur = pathJoin(cur, p)
		fi, err := r.Lstat(cur)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, false, nil
		case err != nil:
			return nil, false, &Error{Source: display, Path: cur, Reason: errText(err), Err: err}
		case fi.Mode()&os.ModeSymlink != 0:
			return nil, false, &Error{Source: display, Path: cur, Reason: "is a symbolic link; bundlectl never follows links in a marketplace", Err: ErrRefused}
		case i < len(parts)-1 && !fi.IsDir():
			return nil, false, nil
		case i == len(parts)-1 && !fi.Mode().IsRegular():
			return nil, false, &Error{Source: display, Path: cur, Reason: "is not a regular file", Err: ErrRefused}
		}
	}
	fd, err := r.OpenFile(file, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false, &Error{Source: display, Path: file, Reason: errText(err), Err: err}
	}
	defer fd.Close()
	if fi, err := fd.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false, &Error{Source: display, Path: file, Reason: "is not a regular file", Err: ErrRefused}
	}
	data, err = io.ReadAll(io.LimitReader(fd, MaxMarketplaceBytes+1))
	if err != nil {
		return nil, false, &Error{Source: display, Path: file, Reason: errText(err), Err: err}
	}
	if len(data) > MaxMarketplaceBytes {
		return nil, false, &Error{Source: display, Path: file, Reason: fmt.Sprintf("is larger than %d bytes", MaxMarketplaceBytes), Err: ErrRefused}
	}
	return data, true, nil
}

// notAMarketplace is the refusal of a marketplace source whose location
// has no catalogue. "NAME@DIR" reads like "the plugin at DIR", but names
// a plugin in DIR's catalogue: a local directory that is a bundle gets
// the install of that directory as its fix, any other one a listing.
func notAMarketplace(s *spec) error {
	want := ClaudeCatalogue + " or " + CodexCatalogue
	if s.format != "" {
		want = catalogueFile(s.format)
	}
	e := &Error{Source: s.display, Reason: "the marketplace has no " + want, Err: ErrNotFound}
	if s.market.kind == KindDir {
		e.Fix = "ls -A " + bundle.ShellArg(s.market.path)
		for _, mk := range manifestMarkers {
			if _, err := os.Lstat(filepath.Join(s.market.path, mk)); err == nil {
				e.Reason += "; " + bundle.Quote(s.market.path) + " is a bundle, not a marketplace: install it by its path"
				e.Fix = "bundlectl install " + bundle.ShellArg(s.market.path)
				break
			}
		}
	}
	return e
}

// checkLocalMarketplace refuses a marketplace source in a local directory
// that has no catalogue before the bundle name is checked: a name taken
// by an installed bundle must not hide that the source is no marketplace.
func checkLocalMarketplace(s *spec) error {
	if s.kind != KindMarketplace || s.market == nil || s.market.kind != KindDir {
		return nil
	}
	formats := []string{FormatClaude, FormatCodex}
	if s.format != "" {
		formats = []string{s.format}
	}
	for _, format := range formats {
		_, ok, err := readLocalCatalogue(s.market.path, format, s.display)
		if err != nil || ok {
			return err
		}
	}
	return notAMarketplace(s)
}
