package hosts

import (
	"bytes"
	crand "crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/google/renameio/v2"
	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

// Wiring is implemented by an adapter that can wire bundlectl into the
// host's own configuration, for users who do not launch through exec:
// one hook per event calling `bundlectl hooks run`, and one MCP entry per
// stdio server of the active bundles calling `bundlectl mcp`.
type Wiring interface {
	Setup(in SetupInput) ([]FileEdit, error)
}

// SetupInput is what an adapter's Setup works from.
type SetupInput struct {
	// Reentry names the bundlectl, home and workspace the entries call.
	Reentry Reentry
	// Bundles are the active bundles of the workspace, for MCP entries.
	Bundles []*Bundle
	// Environ locates the host's configuration (HOME, CODEX_HOME, …).
	Environ []string
}

// FileEdit is one configuration file setup changes.
type FileEdit struct {
	Path string // absolute
	// What says what the edit puts there, for the user.
	What string
	// Mode is the permission of the file when setup creates it.
	Mode fs.FileMode
	// Apply returns the file with bundlectl's entries in place (replacing
	// any earlier ones); Strip returns it without them. A missing file is
	// nil. Apply(Apply(x)) == Apply(x).
	Apply func(cur []byte) ([]byte, error)
	Strip func(cur []byte) ([]byte, error)
	// Notes are consequences the user must know (Codex's hook trust).
	Notes []string
	// ShortTimeouts, when set, names setup's MCP entries in cur whose
	// timeout is missing or other than the one Apply writes (an older
	// setup wrote none): the host does not wait for the server as the
	// review shows.
	ShortTimeouts func(cur []byte) []string
	// StripsToo are other files, absolute, that setup writes this edit
	// into in another environment (Claude Code's cowork_settings.json
	// for its settings.json): --undo takes setup's entries out of them
	// with Strip too, when they changed since setup, whatever environment
	// it runs in.
	StripsToo []string
}

// SetupRecord is what setup remembers per host, under
// $BUNDLECTL_HOME/setup/<host>.json, so that --undo can restore exactly.
type SetupRecord struct {
	Files []SetupFile `json:"files"`
}

// SetupFile is one file setup wrote.
type SetupFile struct {
	Path string `json:"path"`
	// Existed says whether the file existed before the first setup; when
	// it did, Backup holds its bytes and Mode its permission.
	Existed bool   `json:"existed"`
	Mode    string `json:"mode,omitempty"`
	Backup  string `json:"backup,omitempty"`
	// Written is the BLAKE3 of what setup last wrote.
	Written string `json:"written"`
	// Home is the $HOME of the setup that first wrote the file: --undo
	// undoes the files of its own $HOME only, and names the others with
	// the command that undoes them (one run with another $HOME once
	// undid them all). "" (a record of a bundlectl before it): any.
	Home string `json:"home,omitempty"`
	// Edited: a later setup found the file other than setup had left it
	// (the user or the host changed it, or removed it). Backup is then
	// no longer the file less setup's entries, and --undo takes out
	// setup's entries only, keeping that change, even once setup has
	// written the file again.
	Edited bool `json:"edited,omitempty"`
}

// SetupResult says what happened to one file.
type SetupResult struct {
	Path    string
	What    string
	Changed bool
	Backup  string // where the previous content is kept
	Notes   []string
}

func digestOf(b []byte) string {
	s := blake3.Sum256(b)
	return hex.EncodeToString(s[:])
}

// setupDir is $BUNDLECTL_HOME/setup.
func setupDir(home string) string { return filepath.Join(home, "setup") }

// SetupDir is where setup keeps its records and backups.
func SetupDir(home string) string { return setupDir(home) }

// ActiveBundles loads the workspace's registry and returns its active
// bundles for host.
func ActiveBundles(home, workspace, host string) ([]*Bundle, []Notice, error) {
	reg, err := harness.Load(harness.Options{Home: home, Workspace: workspace, NoWatch: true})
	if err != nil {
		return nil, nil, err
	}
	defer reg.Close()
	active, refused := reg.Active()
	var notices []Notice
	for name, err := range refused {
		// Said of every refused bundle, whatever it holds: one with no
		// MCP server has none to leave unwired.
		notices = append(notices, Notice{Bundle: name, Text: "its check failed, so nothing of it runs until it is repaired (an event one of its hooks guards is blocked): " + err.Error(), Fix: fixOf(err, "bundlectl verify")})
	}
	var out []*Bundle
	for _, a := range active {
		out = append(out, NewBundle(a, host))
	}
	return out, notices, nil
}

// Setup applies the adapter's edits: each file is written atomically
// (a temporary file renamed into place), its content before the first setup kept under
// $BUNDLECTL_HOME/setup/backups/, and a file whose content would not
// change is not written at all. Every file is read, edited and checked
// (planSetup) before any is written: one refused (read-only, hard links,
// a directory not writable, not parsed or written back whole) leaves
// every file as it was, where an earlier file of a multi-file host
// (Claude Code's settings.json before its workspace's .mcp.json) was once
// written before a later one was refused.
func Setup(home string, host Host, in SetupInput) ([]SetupResult, error) {
	w, ok := host.(Wiring)
	if !ok {
		return nil, fmt.Errorf("bundlectl setup does not know how to wire %s", host.Name())
	}
	edits, err := w.Setup(in)
	if err != nil {
		return nil, err
	}
	if g, ok := host.(HooksGate); ok {
		if err := g.SetupHooksOff(in); err != nil {
			removeLeftoversOfRefused(home, host.Name(), edits)
			return nil, setupHooksOff(host.Name(), err)
		}
	}
	// Cleaned up before any later refusal too, so that what a setup
	// killed before left goes whatever this one decides (a refused one
	// once left it all).
	unlock, err := lockSetup(home)
	if err != nil {
		return nil, err
	}
	defer unlock()
	key, err := pendingKey(home, true)
	if err != nil {
		return nil, err
	}
	rec, err := readRecord(home, host.Name())
	left := removeLeftovers(key, editPaths(edits), rec)
	if err != nil {
		return nil, err
	}
	plans, err := planSetup(edits, host.Name(), in)
	if err != nil {
		return nil, err
	}
	var results []SetupResult
	for _, pl := range plans {
		res, wrote, err := applySetup(home, key, host.Name(), rec, pl, in, left[pl.path])
		if err != nil {
			return results, err
		}
		if wrote {
			results = append(results, res)
		}
	}
	return results, writeRecord(home, host.Name(), rec)
}

// setupPlan is one file setup edits, as read and edited before any file
// is written: cur its content (nil when missing), next what setup writes.
type setupPlan struct {
	edit    FileEdit
	path    string // real path
	cur     []byte
	next    []byte
	mode    fs.FileMode
	existed bool
}

// planSetup reads every file of edits, edits it, and checks that setup
// may write it (replaceable), writing nothing: the first refusal is
// returned, so that no file is written when any is refused.
func planSetup(edits []FileEdit, host string, in SetupInput) ([]setupPlan, error) {
	var plans []setupPlan
	for _, e := range edits {
		if err := notThroughLink(e.Path, in.Reentry.Workspace, host); err != nil {
			return nil, err
		}
		path, err := realPath(e.Path)
		if err != nil { // a link to nothing, or in a loop: name it
			return nil, &SetupFileError{Path: e.Path, Host: host, Err: err}
		}
		cur, mode, existed, err := readConfig(path)
		if err != nil {
			return nil, &SetupFileError{Path: path, Host: host, Err: err}
		}
		if link := danglingParent(path); !existed && link != "" {
			return nil, &SetupFileError{Path: link, Host: host, Err: errDanglingDir}
		}
		if j := slices.IndexFunc(plans, func(pl setupPlan) bool { return pl.path == path }); j >= 0 {
			// A file an earlier edit reaches too (through a link): this
			// edit goes over what that one writes.
			cur, mode, existed = plans[j].after()
		}
		next, err := e.Apply(cur)
		if err != nil {
			return nil, &SetupFileError{Path: path, Host: host, Err: err}
		}
		if existed && !bytes.Equal(cur, next) || !existed && next != nil {
			if err := replaceable(path, mode, existed, in.Environ); err != nil {
				return nil, &SetupFileError{Path: path, Host: host, Err: err}
			}
		}
		plans = append(plans, setupPlan{edit: e, path: path, cur: cur, next: next, mode: mode, existed: existed})
	}
	return plans, nil
}

// after is the file as applySetup leaves it: its content, mode, and
// whether it exists.
func (pl setupPlan) after() ([]byte, fs.FileMode, bool) {
	switch {
	case !pl.existed && pl.next == nil:
		return nil, 0, false
	case !pl.existed:
		return pl.next, pl.edit.Mode, true
	}
	return pl.next, pl.mode, true
}

// holdsLinesOf says whether cur holds a hook line of a setup run with
// home ("--home <home> hooks run", as Reentry.HooksRun's command spells
// it), as written or escaped in a JSON or TOML string (with or without
// json.Marshal's HTML escapes). With no home to tell (a caller that
// gives none), any line is taken for one.
func holdsLinesOf(cur []byte, home string) bool {
	if home == "" {
		return true
	}
	mark := ShellJoin([]string{"--home", home, "hooks", "run"})
	if bytes.Contains(cur, []byte(mark)) {
		return true
	}
	// Escaped as setup's writers escape it: the JSON editor without HTML
	// escapes, Codex's TOML block with json.Marshal's (& < > as \u0026
	// \u003c \u003e), which a home holding one of them once missed.
	for _, html := range []bool{false, true} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		enc.Encode(mark)
		esc := bytes.TrimSuffix(bytes.TrimSpace(b.Bytes()), []byte(`"`))
		esc = bytes.TrimPrefix(esc, []byte(`"`))
		if bytes.Contains(cur, esc) {
			return true
		}
	}
	return false
}

// applySetup writes one planned file, keeping rec (its backup, what setup
// wrote) up to date; wrote is false for a file missing that setup has
// nothing to put in.
func applySetup(home string, key []byte, host string, rec *SetupRecord, pl setupPlan, in SetupInput, removed []leftover) (res SetupResult, wrote bool, err error) {
	environ := in.Environ
	path, cur, next, mode, existed := pl.path, pl.cur, pl.next, pl.mode, pl.existed
	res = SetupResult{Path: path, What: pl.edit.What, Notes: pl.edit.Notes}
	if existed && !bytes.Equal(cur, next) || !existed && next != nil {
		// Checked again, as it is now: planSetup checked it before the
		// files before it were written, and a directory made read-only
		// meanwhile was written into all the same (as root).
		if err := replaceable(path, modeNow(path, mode), existed, environ); err != nil {
			return res, false, &SetupFileError{Path: path, Host: host, Err: err}
		}
	}
	for _, stale := range removed {
		res.Notes = append(slices.Clone(res.Notes), stale.note(path))
	}
	i := rec.find(path)
	if i >= 0 && rec.Files[i].Written != "" && (!existed || digestOf(cur) != rec.Files[i].Written) {
		rec.Files[i].Edited = true
	}
	if !existed && next == nil {
		return res, false, nil // nothing to wire there, and nothing to take back
	}
	if i < 0 {
		f := SetupFile{Path: path, Existed: existed, Home: homeOf(environ)}
		if existed {
			f.Mode = fmt.Sprintf("%04o", mode)
			f.Backup = filepath.Join(setupDir(home), "backups", host+"-"+digestOf([]byte(path))[:16])
			// A file new to the record may hold setup's entries already
			// (a dotfiles copy setup wrote under another name, since
			// made the file this name leads to): the backup is the file
			// without them, so that --undo never "restores" them. Only
			// a setup's of this home (its hook lines call it): another
			// home's lines, which this setup replaces, are the file as
			// it was before, for --undo to give back (they were once
			// dropped from the backup, and that home's guards with them).
			before := cur
			if pl.edit.Strip != nil && holdsLinesOf(cur, in.Reentry.Home) {
				if stripped, err := pl.edit.Strip(cur); err == nil {
					before = stripped
				}
			}
			if err := writeAtomic(f.Backup, before, 0o600); err != nil {
				return res, false, err
			}
		}
		rec.Files = append(rec.Files, f)
		i = len(rec.Files) - 1
	}
	res.Backup = rec.Files[i].Backup
	if existed && bytes.Equal(cur, next) {
		rec.Files[i].Written = digestOf(cur)
		return res, true, nil
	}
	if !existed {
		mode = pl.edit.Mode
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return res, false, err
	}
	// The record first: a setup killed after the file was written
	// but before its record was would leave the next setup taking
	// the file, setup's lines in it, for the one before setup, and
	// keep that as the backup --undo restores. Killed before the
	// file is written, the record says so (Written differs from the
	// file), and --undo takes out only setup's entries.
	rec.Files[i].Written = digestOf(next)
	if err := writeRecord(home, host, rec); err != nil {
		return res, false, err
	}
	testOnlyBeforeConfigWrite(path)
	if err := writeConfig(key, path, next, mode, cur, existed); err != nil {
		return res, false, &SetupFileError{Path: path, Host: host, Err: err}
	}
	testOnlyAfterConfigWrite(path)
	res.Changed = true
	return res, true, nil
}

// HooksGate is implemented by a Wiring whose host has settings that keep
// the hook lines setup writes from running (Claude Code's
// disableAllHooks, Gemini CLI's hooksConfig, Codex's features.hooks): the
// host then calls no guard, says nothing, and a setup that wrote the
// lines and said so would leave the user believing the guards run.
type HooksGate interface {
	// SetupHooksOff returns a *HooksOffError naming the setting that
	// keeps the lines from running in a session started in
	// in.Reentry.Workspace (none of the workspace's settings when it is
	// ""), read as the host reads its settings, in its precedence, or a
	// file among them that cannot be read; or nil. A setting of the
	// workspace's that the host reads only once the workspace is trusted
	// counts as read: whether it will be cannot be known here.
	SetupHooksOff(in SetupInput) error
}

// HooksOffWhen is implemented by a HooksGate whose host reads settings
// that a session's own arguments select (Codex's --profile <name>, which
// adds $CODEX_HOME/<name>.config.toml): setup cannot know what a later
// session selects, so such a setting turning hooks off does not stop it
// (a session started without it runs the lines): setup writes them and
// warns of it (SetupCaveats), and list names it (CheckSetups).
type HooksOffWhen interface {
	// SetupHooksOffWhen returns a *HooksOffError, When set, for each
	// such setting of the sessions in in.Reentry.Workspace, in a stable
	// order; only those that hold where SetupHooksOff finds nothing.
	SetupHooksOffWhen(in SetupInput) []*HooksOffError
}

// SetupCaveat is a setting that keeps setup's hook lines from running
// in some sessions, not in one started in the workspace setup ran for
// with no arguments (which setup refuses instead): Off.When says which.
type SetupCaveat struct {
	Host string
	Off  *HooksOffError
}

// Message says which sessions run no guard, and what to change.
func (c *SetupCaveat) Message() string {
	return fmt.Sprintf("setup's hook lines do not run in a %s session %s: %s sets %s; %s for the guards to run there too",
		c.Host, c.Off.When, c.Off.Source(), c.Off.Setting, setupFix(c.Off))
}

// Hint shows the setting in its file.
func (c *SetupCaveat) Hint() string { return (&SetupHooksOffError{Host: c.Host, Off: c.Off}).Hint() }

// elsewhere is the When of a setting of the user's (or the machine's)
// that the workspace's own settings undo.
const elsewhere = "started in a workspace whose own settings do not turn hooks back on"

// SetupCaveats are the settings that keep setup's lines from running in
// some sessions, though a session started in in.Reentry.Workspace with
// no arguments runs them (the gate found nothing there): a switch of the
// user's (or the machine's) that the workspace's own settings turn back
// on still holds in every other workspace, and a Codex profile's in the
// sessions that select it (HooksOffWhen). Setup writes its lines and
// says each: a guard that runs in one workspace only is not what a user
// who ran setup expects.
func SetupCaveats(host Host, in SetupInput) []*SetupCaveat {
	g, ok := host.(HooksGate)
	if !ok {
		return nil
	}
	var out []*SetupCaveat
	if in.Reentry.Workspace != "" {
		other := in
		other.Reentry.Workspace = ""
		if off := plainOff(g.SetupHooksOff(other)); off != nil {
			off.When = elsewhere
			out = append(out, &SetupCaveat{Host: host.Name(), Off: off})
		}
	}
	if w, ok := host.(HooksOffWhen); ok {
		for _, off := range w.SetupHooksOffWhen(in) {
			out = append(out, &SetupCaveat{Host: host.Name(), Off: off})
		}
	}
	return out
}

// plainOff is err's *HooksOffError when it names a setting (not a file
// that cannot be read, nor a refusal worded for its own case), else nil.
func plainOff(err error) *HooksOffError {
	var off *HooksOffError
	if errors.As(err, &off) && !strings.HasPrefix(off.Setting, cannotRead) && off.Text == "" {
		return off
	}
	return nil
}

// SetupHooksOffError refuses setup when the host's own settings would
// keep the hook lines from running: setup writes nothing.
type SetupHooksOffError struct {
	Host string
	Off  *HooksOffError
}

func setupHooksOff(host string, err error) error {
	var off *HooksOffError
	if !errors.As(err, &off) {
		return err
	}
	if strings.HasPrefix(off.Setting, cannotRead) {
		// A settings file the host reads that bundlectl cannot: named
		// as such, with the line that does not parse.
		data, err := os.ReadFile(off.File)
		if err != nil {
			return &SetupFileError{Path: off.File, Host: host, Err: err, Gate: true}
		}
		var v any
		if err := json.Unmarshal(StripJSONComments(data), &v); err != nil {
			return &SetupFileError{Path: off.File, Host: host, Err: fmt.Errorf("not JSON at %w", syntaxAt(data, 0, err)), Gate: true}
		}
	}
	return &SetupHooksOffError{Host: host, Off: off}
}

// setupFix is off's fix as setup says it: the fixes are worded for
// exec, and setup's next step is setup.
func setupFix(off *HooksOffError) string {
	fix := off.Fix
	for _, tail := range []string{", then start the agent again", " and start the agent again"} {
		if i := strings.Index(fix, tail); i >= 0 {
			fix = fix[:i]
		}
	}
	if off.Text != "" || fix == "" {
		fix = "remove that setting"
	}
	return fix
}

func (e *SetupHooksOffError) Error() string {
	fix := setupFix(e.Off)
	return fmt.Sprintf("setup wires bundlectl's guards into %s as hooks, and %s sets %s, which keeps %s from running them, so setup wrote nothing: %s, then run setup again (bundlectl setup %s)",
		e.Host, e.Off.Source(), e.Off.Setting, e.Host, fix, e.Host)
}

// Hint shows the setting in its file (HooksOffError.Hint), also when
// the refusal names a variable that lifts it for one exec session (Gemini
// CLI's GEMINI_CLI_TRUST_WORKSPACE), which setup's lines do not get: the
// file is what setup reads again.
func (e *SetupHooksOffError) Hint() string {
	if h := e.Off.Hint(); h != "" {
		return h
	}
	if e.Off.Pattern != "" && e.Off.Args == nil && e.Off.Env == "" {
		return "grep -n -E -- " + bundle.ShellArg(e.Off.Pattern) + " " + bundle.ShellArg(e.Off.File)
	}
	return "bundlectl setup " + e.Host
}

func (e *SetupHooksOffError) Unwrap() error { return e.Off }

// SetupFileError is a configuration file setup cannot edit: it does not
// parse as its host reads it (a *SyntaxError, with its line), or setup's
// edit would not keep one of its comments (a *CommentError), or it is
// not a regular file, or cannot be read. Setup writes nothing to it.
type SetupFileError struct {
	Path, Host string
	Err        error
	// Gate: a settings file the host reads for its hook switches
	// (HooksGate), which setup need not edit.
	Gate bool
	// Undo: the file is one setup --undo was restoring; Removes: by
	// removing it (setup had created it).
	Undo, Removes bool
}

func (e *SetupFileError) Error() string {
	var se *SyntaxError
	var ce *CommentError
	var pe *fs.PathError
	var ro *ReadOnlyError
	var rd *ReadOnlyDirError
	var hl *HardLinksError
	switch {
	case e.Gate && errors.As(e.Err, &se):
		return fmt.Sprintf("%s: %v, so setup cannot tell whether it turns %s's hooks off, and writes nothing: fix that line, then run setup again (bundlectl setup %s)", bundle.Quote(e.Path), e.Err, e.Host, e.Host)
	case e.Gate:
		return fmt.Sprintf("%s cannot be read (%v), so setup cannot tell whether it turns %s's hooks off, and writes nothing: make it readable, or move it away, then run setup again (bundlectl setup %s)", bundle.Quote(e.Path), pathErr(e.Err), e.Host, e.Host)
	case errors.As(e.Err, &ce):
		return fmt.Sprintf("%s: %v, so setup does not edit it: move that comment out of the entries setup writes, or wire %s by hand (docs/hosts.md shows each line), then run setup again (bundlectl setup %s)", bundle.Quote(e.Path), e.Err, e.Host, e.Host)
	case errors.As(e.Err, &se):
		edits := "valid TOML"
		var nj *notJSONError
		if errors.As(e.Err, &nj) {
			edits = nj.edits()
		}
		return fmt.Sprintf("%s: %v, so setup does not edit it (it edits only what the host reads and it can write back whole: %s): fix that line, or wire %s by hand (docs/hosts.md shows each line), then run setup again (bundlectl setup %s)", bundle.Quote(e.Path), e.Err, edits, e.Host, e.Host)
	case errors.Is(e.Err, errChanged) && e.Undo:
		return fmt.Sprintf("%s %v (by %s itself, or another program), so setup --undo did not write it, keeping that change: run it again (bundlectl setup %s --undo)", bundle.Quote(e.Path), e.Err, e.Host, e.Host)
	case errors.Is(e.Err, errChanged):
		return fmt.Sprintf("%s %v (by %s itself, or another program), so setup did not write it, keeping that change: run setup again (bundlectl setup %s)", bundle.Quote(e.Path), e.Err, e.Host, e.Host)
	case errors.As(e.Err, &ro) && ro.Others:
		return fmt.Sprintf("%s is read-only (mode %04o) and another user's (uid %d), so %s does not replace it: ask its owner to make it writable, or put a copy of your own in its place (cp, then chmod u+w; the hint shows whose it is), then run %s again (bundlectl setup %s%s)", bundle.Quote(e.Path), ro.Mode, ro.Owner, e.command(), e.command(), e.Host, e.undoFlag())
	case errors.As(e.Err, &ro):
		return fmt.Sprintf("%s is read-only (mode %04o), so %s does not replace it, taking that as meant: to let it, make the file writable (the hint does), then run %s again (bundlectl setup %s%s)", bundle.Quote(e.Path), ro.Mode, e.command(), e.command(), e.Host, e.undoFlag())
	case errors.As(e.Err, &rd) && rd.Others:
		return fmt.Sprintf("%s is %v, so %s does not %s it: make the directory yours, or run %s as its owner (the hint shows whose it is), then run %s again (bundlectl setup %s%s)", bundle.Quote(e.Path), rd, e.command(), e.verb(), e.command(), e.command(), e.Host, e.undoFlag())
	case errors.As(e.Err, &rd):
		return fmt.Sprintf("%s is %v, so %s does not %s it, taking that as meant: to let it, make the directory writable (the hint does), then run %s again (bundlectl setup %s%s)", bundle.Quote(e.Path), rd, e.command(), e.verb(), e.command(), e.Host, e.undoFlag())
	case errors.As(e.Err, &hl) && e.Removes:
		return fmt.Sprintf("%s has %d hard links: setup created it, and setup --undo would remove this name only, leaving the others with setup's entries in them, out of any undo's reach; so setup --undo does not remove it: find the other names (the hint looks under %s) and remove them (copy what you need of one first: it holds setup's entries), then run setup --undo again (bundlectl setup %s --undo)", bundle.Quote(e.Path), hl.Links, bundle.Quote(hl.Under), e.Host)
	case errors.As(e.Err, &hl):
		return fmt.Sprintf("%s has %d hard links, and %s writes a new file in its place (so that one killed halfway leaves the old whole), which the file's other names would not get: they would keep its old content, and a host reading one of them would run what that holds; so %s does not write it: find the other names (the hint looks under %s), make each a symbolic link to this file (ln -sf), or this file a copy of its own, then run %s again (bundlectl setup %s%s)", bundle.Quote(e.Path), hl.Links, e.command(), e.command(), bundle.Quote(hl.Under), e.command(), e.Host, e.undoFlag())
	case errors.Is(e.Err, errDanglingDir):
		return fmt.Sprintf("%s is a symbolic link to nothing, and setup would create a directory there for %s's settings: point it at a directory, or remove it, then run setup again (bundlectl setup %s)", bundle.Quote(e.Path), e.Host, e.Host)
	case errors.Is(e.Err, errNotRegular):
		return fmt.Sprintf("%s is not a regular file, so setup does not write it: move it away, then run setup again (bundlectl setup %s)", bundle.Quote(e.Path), e.Host)
	case errors.As(e.Err, &pe):
		return fmt.Sprintf("%s cannot be read (%v), so setup does not edit it: make it readable, then run setup again (bundlectl setup %s)", bundle.Quote(e.Path), pathErr(e.Err), e.Host)
	}
	return fmt.Sprintf("%s: %v", bundle.Quote(e.Path), e.Err)
}

func (e *SetupFileError) Unwrap() error { return e.Err }

// Hint shows the line that does not parse or holds the comment, or the
// file's type and mode, or makes readable a file the host reads and
// bundlectl cannot.
func (e *SetupFileError) Hint() string {
	var se *SyntaxError
	var ce *CommentError
	var pe *fs.PathError
	var ue *UnreadableError
	var ro *ReadOnlyError
	var rd *ReadOnlyDirError
	var hl *HardLinksError
	var kept *replacedKeptError
	switch {
	case errors.As(e.Err, &ue):
		return ue.Hint(e.Path)
	case errors.As(e.Err, &se):
		return SyntaxHint(se, e.Path)
	case errors.As(e.Err, &ce):
		return fmt.Sprintf("sed -n %dp %s", ce.Line, bundle.ShellArg(e.Path))
	case errors.As(e.Err, &ro) && ro.Others:
		return "ls -l " + bundle.ShellArg(e.Path)
	case errors.As(e.Err, &ro):
		return "chmod u+w " + bundle.ShellArg(e.Path)
	case errors.As(e.Err, &rd) && rd.Others:
		return "ls -ld " + bundle.ShellArg(rd.Dir)
	case errors.As(e.Err, &rd):
		return "chmod u+w " + bundle.ShellArg(rd.Dir)
	case errors.As(e.Err, &hl):
		return "find " + bundle.ShellArg(hl.Under) + " -xdev -samefile " + bundle.ShellArg(e.Path)
	case errors.As(e.Err, &kept):
		return "diff " + bundle.ShellArg(kept.Kept) + " " + bundle.ShellArg(e.Path)
	case errors.Is(e.Err, errChanged) && e.Undo:
		return "bundlectl setup " + e.Host + " --undo"
	case errors.Is(e.Err, errChanged):
		return "bundlectl setup " + e.Host
	case errors.Is(e.Err, errNotRegular), errors.Is(e.Err, errDanglingDir), errors.As(e.Err, &pe):
		return "ls -ld " + bundle.ShellArg(e.Path)
	}
	return ""
}

var errNotRegular = errors.New("not a regular file")

// errDanglingDir is a directory setup would create that is a symbolic
// link to nothing (danglingParent).
var errDanglingDir = errors.New("a symbolic link to nothing")

// command is what refuses the file, as the user ran it.
func (e *SetupFileError) command() string {
	if e.Undo {
		return "setup --undo"
	}
	return "setup"
}

// verb is what the command would do to the file.
func (e *SetupFileError) verb() string {
	if e.Removes {
		return "remove"
	}
	return "write"
}

func (e *SetupFileError) undoFlag() string {
	if e.Undo {
		return " --undo"
	}
	return ""
}

// ReadOnlyError is a configuration file its owner may not write (no
// u+w): setup would replace it all the same (a rename needs only the
// directory), and a user who made it read-only most likely meant to keep
// it as it is. Others: the file is another user's (Owner, a uid), which
// this user cannot chmod, so the hint shows whose it is instead.
type ReadOnlyError struct {
	Mode   fs.FileMode
	Others bool
	Owner  int
}

func (e *ReadOnlyError) Error() string { return fmt.Sprintf("read-only (mode %04o)", e.Mode) }

// HardLinksError is a configuration file with other names (hard links):
// setup's rename puts a new file under one name, and the others keep the
// old content, which a host (or a dotfile manager copying it back) may
// read, running no guard. Under is where the hint looks for the others:
// the user's home when the file is in it, else the file's directory.
type HardLinksError struct {
	Links uint64
	Under string
}

func (e *HardLinksError) Error() string { return fmt.Sprintf("%d hard links", e.Links) }

// ReadOnlyDirError is the directory of a configuration file setup would
// write: its owner made it read-only (no u+w), which setup takes as meant
// (as root it could write there all the same), or, Others, it is not
// this user's to write. Setup writes a new file there in either case, so
// the file's own mode does not tell. Owner is its owner's uid.
type ReadOnlyDirError struct {
	Dir    string
	Mode   fs.FileMode
	Others bool
	Owner  int
}

func (e *ReadOnlyDirError) Error() string {
	if e.Others {
		return fmt.Sprintf("in %s, a directory not writable by this user (owner uid %d, mode %04o)", bundle.Quote(e.Dir), e.Owner, e.Mode)
	}
	return fmt.Sprintf("in %s, a read-only directory (mode %04o)", bundle.Quote(e.Dir), e.Mode)
}

// writableDir refuses a file setup would write (create, or replace by a
// rename) in a directory made read-only or not this user's: the error a
// failed create gave said the file could not be read, and came after
// setup had written its record and backup. A directory missing is
// created in its nearest parent there is, which is checked instead: the
// failed create came after setup had written the host's other files.
func writableDir(dir string) error {
	var st unix.Stat_t
	for {
		err := unix.Stat(dir, &st)
		if err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if !errors.Is(err, unix.ENOENT) || parent == dir {
			return nil // the write says why
		}
		dir = parent
	}
	mode := fs.FileMode(st.Mode) & fs.ModePerm
	switch {
	case mode&0o200 == 0 && (int(st.Uid) == os.Geteuid() || os.Geteuid() == 0):
		return &ReadOnlyDirError{Dir: dir, Mode: mode, Owner: int(st.Uid)}
	case unix.Access(dir, unix.W_OK|unix.X_OK) != nil:
		return &ReadOnlyDirError{Dir: dir, Mode: mode, Others: true, Owner: int(st.Uid)}
	}
	return nil
}

// replaceable refuses to write the file at p (its permission mode, and
// whether it exists) when the user's own arrangement says not to:
// read-only for its owner, other hard links, or a read-only directory.
// Each is kept and named, never overridden.
func replaceable(p string, mode fs.FileMode, existed bool, environ []string) error {
	if err := writableDir(filepath.Dir(p)); err != nil || !existed {
		return err
	}
	if mode&0o200 == 0 {
		return readOnly(p, mode, os.Geteuid())
	}
	if hl := hardLinksOf(p, environ); hl != nil {
		return hl
	}
	return nil
}

// hardLinksOf is the HardLinksError of the file at p when it has other
// names, or nil.
func hardLinksOf(p string, environ []string) *HardLinksError {
	n := hardLinks(p)
	if n <= 1 {
		return nil
	}
	under := filepath.Dir(p)
	if home := envValue(environ, "HOME"); home != "" && within(p, home) {
		under = home
	}
	return &HardLinksError{Links: n, Under: under}
}

// readOnly is the ReadOnlyError of the file at p (its mode) as the user
// euid sees it: one it cannot chmod (another user's, unless euid is root)
// is named as such, since "chmod u+w" would fail as printed.
func readOnly(p string, mode fs.FileMode, euid int) *ReadOnlyError {
	e := &ReadOnlyError{Mode: mode, Owner: -1}
	var st unix.Stat_t
	if unix.Stat(p, &st) == nil {
		e.Owner = int(st.Uid)
		e.Others = euid != 0 && e.Owner != euid
	}
	return e
}

// envValue is the last value of key in environ, or "".
func envValue(environ []string, key string) string {
	v := ""
	for _, kv := range environ {
		if s, ok := strings.CutPrefix(kv, key+"="); ok {
			v = s
		}
	}
	return v
}

// pathErr is what a file system error says, without the path the message
// names already.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// testOnlyAfterConfigWrite runs after setup wrote a configuration file
// (a test kills the process there); testOnlyBeforeConfigWrite before it
// writes one (a test writes the file there, as the host would).
var (
	testOnlyAfterConfigWrite  = func(string) {}
	testOnlyBeforeConfigWrite = func(string) {}
	// testOnlyPendingWritten runs once the new content is in its
	// temporary file, before the rename (a test kills the process there).
	testOnlyPendingWritten = func(string) {}
	// testOnlyBeforeRename runs after the re-read, just before the
	// rename; testOnlyAfterExchange (Linux) just after the exchange,
	// before what it replaced is compared (a test writes the file there,
	// as the host would).
	testOnlyBeforeRename  = func(string) {}
	testOnlyAfterExchange = func(string) {}
	// testOnlySetupTempWritten runs once a record or backup is in its
	// temporary file, before the rename (a test kills the process there).
	testOnlySetupTempWritten = func(string) {}
	// testOnlyAfterUndoRecord runs once --undo wrote its record without
	// a file it undid, before it removes that file's backup (a test
	// kills the process there).
	testOnlyAfterUndoRecord = func(string) {}
)

// errChanged is a configuration file that changed after setup read it.
var errChanged = errors.New("changed while setup was editing it")

// replacedKeptError is a file that changed while setup was replacing it
// and that setup could not put back: its temporary name, Kept, holds the
// file it replaced (not setup's), so it is left there and named.
type replacedKeptError struct {
	Kept string
	Err  error
}

func (e *replacedKeptError) Error() string {
	return fmt.Sprintf("changed while setup was replacing it, and setup could not put it back (%v): the file it replaced is kept as %s", e.Err, bundle.Quote(e.Kept))
}

func (e *replacedKeptError) Unwrap() error { return e.Err }

// keepReplaced renames pending, a temporary file of setup's now holding
// the file it replaced, out of the names removeStalePending removes
// (".bundlectl-kept-" for pendingMark), and returns where it is.
func keepReplaced(pending string) string {
	dir, base := filepath.Split(pending)
	kept := filepath.Join(dir, strings.Replace(base, pendingMark, ".bundlectl-kept-", 1))
	if os.Rename(pending, kept) != nil {
		return pending
	}
	return kept
}

// writeConfig writes a configuration file as writeAtomic does, once its
// content is still cur (or it is still missing, !existed): the host
// rewrites its own settings (Claude Code does, at a /config change) and
// takes no lock of bundlectl's, so a write of the host's between setup's
// read and its rename would be lost. The check narrows that window to the
// rename; a change caught is refused, nothing written. The new content
// goes into a temporary file beside p (createPending), which a later
// setup removes if this one is killed before the rename
// (removeStalePending); on Linux the rename itself is checked too
// (replaceChecked).
func writeConfig(key []byte, p string, data []byte, mode fs.FileMode, cur []byte, existed bool) error {
	f, lock, err := createPending(key, p, mode)
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(f.Name())
		}
		// After the temporary file: a lock file gone says its writer is.
		os.Remove(lock.Name())
		lock.Close()
	}()
	if err := f.Chmod(mode); err != nil { // the umask took bits of mode
		return err
	}
	if err := writePendingNote(f, lock, cur); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	testOnlyPendingWritten(p)
	now, err := os.ReadFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist) && existed, err == nil && (!existed || !bytes.Equal(now, cur)):
		return errChanged
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	testOnlyBeforeRename(p)
	if err := replaceChecked(f.Name(), p, cur, existed); err != nil {
		var kept *replacedKeptError
		done = errors.As(err, &kept) // the user's file, not setup's
		return err
	}
	// On Linux the name now holds the file replaced (an exchange), else
	// nothing.
	os.Remove(f.Name())
	done = true
	syncDir(filepath.Dir(p))
	return nil
}

// writePendingNote writes into lock, the lock file of f, a temporary file
// of setup's, what lets a later setup tell whether the file at f's name
// is one it may remove once this process is gone (pendingRemovable): the
// device and inode of f, and the digest of cur, the content setup read
// and means to replace. After the exchange (replaceChecked), f's name
// holds the file it replaced: a host's write made between setup's
// re-read and the exchange, when this process was killed before it could
// exchange back, is then neither f nor cur, and is kept.
func writePendingNote(f, lock *os.File, cur []byte) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	dev, ino, ok := devIno(fi)
	if !ok {
		return nil // nothing to prove it with: only an empty file goes
	}
	_, err = fmt.Fprintf(lock, "%d %d %s\n", dev, ino, digestOf(cur))
	return err
}

// devIno is fi's device and inode number.
func devIno(fi fs.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true
}

// pendingRemovable says whether name, a temporary file of setup's (its
// tag checked) whose writer is gone, with fi its Lstat, holds nothing
// but what setup wrote or read: it is empty (killed before it wrote
// anything), or it is the very file setup created (the device and inode
// the writer noted in its lock file, note; killed before its exchange,
// or after exchanging back), or it holds exactly the content the writer
// read and replaced (killed after the exchange: the file it read, whose
// content its own file at the name it replaced holds too). Anything else
// (the host's write that the exchange handed to setup, or a file setup
// could not put back, its lock file removed) is never removed.
func pendingRemovable(name string, fi fs.FileInfo, note []byte) bool {
	if fi.Size() == 0 {
		return true
	}
	var dev, ino uint64
	var digest string
	if n, err := fmt.Sscanf(string(note), "%d %d %s\n", &dev, &ino, &digest); err != nil || n != 3 {
		return false
	}
	if d, i, ok := devIno(fi); ok && d == dev && i == ino {
		return true
	}
	data, err := os.ReadFile(name)
	return err == nil && digestOf(data) == digest
}

// pendingMark is what the name of a temporary file of setup's holds
// after "." and the configuration file's name, before the process id of
// the setup writing it, a random part and its tag (pendingTag):
// ".settings.json.bundlectl-setup-4242-1x9k-<32 hex>". Beside it, for as
// long as its writer runs, is its lock file, the same name and ".lock",
// which the writer holds locked (flock). The tag, keyed with this home's
// own key (pendingKey), is what proves a name setup's: a repository
// cannot ship a file of a name this home would take for its own, nor can
// another home's setup, and the name is chosen before the file is
// created (O_EXCL), so a file of that name is setup's from its first
// moment, with nothing yet written. A name of this form whose tag does
// not match, or the marks a bundlectl before the tags wrote into its lock
// files (plain text a repository could ship too), proves nothing.
const pendingMark = ".bundlectl-setup-"

// lockSuffix ends the name of a temporary file's lock file.
const lockSuffix = ".lock"

// pendingKeyName is the file under the setup directory holding this
// home's key of the tags (pendingTag): 32 random bytes, owner-only,
// made by the first setup or --undo that writes a file, under the setup
// lock.
const pendingKeyName = "pending-key"

// pendingKeyPath is where home's key of the tags is.
func pendingKeyPath(home string) string { return filepath.Join(setupDir(home), pendingKeyName) }

// PendingKeyError is a key of the tags (pendingKeyName) that is not 32
// bytes, or not a regular file (readKey): setup writes nothing with it, since a temporary file it left
// could not be told its own afterwards.
type PendingKeyError struct {
	Path string
	Err  error
}

func (e *PendingKeyError) Error() string {
	return fmt.Sprintf("the key setup names its temporary files with, %s, cannot be used: %v", bundle.Quote(e.Path), e.Err)
}

func (e *PendingKeyError) Unwrap() error { return e.Err }

// Hint removes the key: the next setup makes another, and a temporary
// file a setup killed before left under the old one is then kept,
// never removed, as any file setup cannot prove its own. A directory
// there (no key setup made) takes "rm -r": plain rm refuses it.
func (e *PendingKeyError) Hint() string { return removeHint(e.Path) }

// pendingKey reads home's key of the tags; missing, it is made when
// create, else nil is returned (no name can be setup's then). The caller
// holds the setup lock.
func pendingKey(home string, create bool) ([]byte, error) {
	p := pendingKeyPath(home)
	key, err := readKey(p)
	switch {
	case errors.Is(err, fs.ErrNotExist) && create:
		key = make([]byte, 32)
		crand.Read(key)
		if err := writeAtomic(p, key, 0o600); err != nil {
			return nil, err
		}
		return key, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, &PendingKeyError{Path: p, Err: pathErr(err)}
	case len(key) != 32:
		return nil, &PendingKeyError{Path: p, Err: fmt.Errorf("%d bytes, not 32", len(key))}
	}
	return key, nil
}

// readKey reads the key at p, a regular file, and at most one byte more
// than a key holds: a FIFO there (opened without waiting for a writer)
// or a link to a device (/dev/zero) is refused, not read for good under
// the setup lock.
func readKey(p string) ([]byte, error) {
	return readRegular(p, 33)
}

// readRegular reads at most limit bytes of p (through a link), a regular
// file: opened without waiting (O_NONBLOCK), so that a FIFO there never
// holds the setup lock waiting for a writer, and refused, with what it
// is, unless regular (a directory, a FIFO, a device such as /dev/zero).
// setup's own files under $BUNDLECTL_HOME/setup are read through it.
func readRegular(p string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		kind := "a device, a socket or another special file"
		switch {
		case fi.IsDir():
			kind = "a directory"
		case fi.Mode()&fs.ModeNamedPipe != 0:
			kind = "a named pipe"
		}
		return nil, fmt.Errorf("%w: %s", errNotRegular, kind)
	}
	return io.ReadAll(io.LimitReader(f, limit))
}

// removeHint is the command that removes p as printed: "rm -r" for a
// directory (plain rm refuses one), else "rm".
func removeHint(p string) string {
	if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
		return "rm -r " + bundle.ShellArg(p)
	}
	return "rm " + bundle.ShellArg(p)
}

// pendingTag is the tag of the temporary name of p with random part
// random: 16 bytes of BLAKE3 keyed with key, over p and random, in hex.
// Bound to p, a name seen beside one file (left in a checkout, say) is
// no use beside another.
func pendingTag(key []byte, p, random string) string {
	h, err := blake3.NewKeyed(key)
	if err != nil {
		panic(err) // pendingKey returns 32 bytes only
	}
	h.WriteString("bundlectl setup temporary file\x00" + p + "\x00" + random)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// testOnlyLockCreated runs once a lock file of setup's is created,
// before it is locked; testOnlyPendingCreated once its temporary file is
// created, before anything is written to it (a test kills the process
// at each).
var (
	testOnlyLockCreated    = func(string) {}
	testOnlyPendingCreated = func(string) {}
)

// createPending creates p's temporary file, beside it (a rename stays on
// one file system), owner-only until writeConfig gives it mode, and,
// first, its lock file, locked, which the caller removes after the
// temporary file and then closes. Both are named with key's tag.
func createPending(key []byte, p string, mode fs.FileMode) (f, lock *os.File, err error) {
	prefix := filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+pendingMark+strconv.Itoa(os.Getpid())+"-")
	for range 100 {
		random := strconv.FormatUint(rand.Uint64(), 36)
		name := prefix + random + "-" + pendingTag(key, p, random)
		lock, err := lockPending(name + lockSuffix)
		if errors.Is(err, errLockLost) || errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, mode&0o600)
		if err == nil {
			testOnlyPendingCreated(p)
			return f, lock, nil
		}
		os.Remove(lock.Name())
		lock.Close()
		if !errors.Is(err, fs.ErrExist) {
			return nil, nil, err
		}
	}
	return nil, nil, fmt.Errorf("no free temporary name beside %s", bundle.Quote(p))
}

// errLockLost is a lock file removed between its create and its lock:
// the lock then holds a file no one finds, and another name is taken.
var errLockLost = errors.New("lock file removed before it was locked")

// lockPending creates the lock file at name and locks it. A process's
// lock is what tells it is running: its pid, in the name, may be one of
// another pid namespace (a container's), which kill(pid, 0) here says is
// gone; a lock is released by the system when its holder dies, in any
// namespace, and seen through any name of the file's. (A cleaner of
// this home's holds the setup lock as the writer does, so none runs
// beside it; the lock is the second proof.)
func lockPending(name string) (*os.File, error) {
	lock, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	testOnlyLockCreated(name)
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if errors.Is(err, unix.EWOULDBLOCK) {
			// Someone holds it, a moment after it was made: another
			// name is taken, and this one, this process's own, goes.
			removeIfSame(lock, name)
			lock.Close()
			return nil, errLockLost
		}
		lock.Close()
		return nil, err
	}
	held, err1 := lock.Stat()
	there, err2 := os.Lstat(name)
	if err1 != nil || err2 != nil || !os.SameFile(held, there) {
		lock.Close()
		return nil, errLockLost
	}
	return lock, nil
}

// removeIfSame removes name when it still names the file f has open.
func removeIfSame(f *os.File, name string) {
	held, err1 := f.Stat()
	there, err2 := os.Lstat(name)
	if err1 == nil && err2 == nil && os.SameFile(held, there) {
		os.Remove(name)
	}
}

// pendingGone says whether the writer of the temporary file name, a name
// of setup's (its tag checked), is gone: its lock file is missing, or a
// regular file not locked. lock is that lock file, then held locked by
// the caller, who closes it (nil when missing).
func pendingGone(name string) (gone bool, lock *os.File) {
	lock, err := os.OpenFile(name+lockSuffix, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, nil // cannot tell: kept
	}
	if fi, err := lock.Stat(); err != nil || !fi.Mode().IsRegular() {
		lock.Close()
		return false, nil
	}
	if unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		lock.Close()
		return false, nil
	}
	return true, lock
}

// removeStalePending removes the temporary files of p that a setup of
// this home (key; nil: none was ever made) killed before its rename left
// beside it, and returns their names: only regular files named by
// createPending with key's tag (pendingTag) whose writer is gone
// (pendingGone), so that neither a file of the user's or a repository's
// of a like name, whatever its content, nor one of another home's setup
// (another key, another lock) is touched. A lock file whose temporary
// file is gone, and whose writer is, goes too: empty, or with an empty
// temporary file, as a setup killed the moment after it created them
// left them. A temporary file of a bundlectl before the tags cannot be
// told from a file of the user's, and is kept.
func removeStalePending(key []byte, p string) []leftover {
	if key == nil {
		return nil
	}
	dir := filepath.Dir(p)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	prefix := "." + filepath.Base(p) + pendingMark
	var out []leftover
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		rest, isLock := strings.CutSuffix(rest, lockSuffix)
		if !pendingName(key, p, rest) {
			continue
		}
		name := filepath.Join(dir, prefix+rest)
		if isLock {
			if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
				removeLockOfGone(name) // its temporary file's entry removes it otherwise
			}
			continue
		}
		gone, lock := pendingGone(name)
		if !gone {
			continue
		}
		var note []byte
		if lock != nil {
			note, _ = io.ReadAll(io.LimitReader(lock, 200))
		}
		if fi, err := os.Lstat(name); err == nil && fi.Mode().IsRegular() {
			switch {
			case pendingRemovable(name, fi, note):
				if os.Remove(name) == nil {
					out = append(out, leftover{Name: name})
				}
			default:
				out = append(out, leftover{Name: name, Kept: keepReplaced(name)})
			}
		}
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) && lock != nil {
			// Its lock file last: one without its temporary file is
			// never taken for a writer's that still runs.
			removeIfSame(lock, name+lockSuffix)
		}
		if lock != nil {
			lock.Close()
		}
	}
	return out
}

// leftover is a temporary file a setup killed while writing a file left
// beside it (removeStalePending): Name, removed, or, when it holds what
// setup did not write (pendingRemovable), kept as Kept (keepReplaced;
// Name itself when that rename failed).
type leftover struct {
	Name string
	Kept string
}

// note is what setup says of l, a leftover beside p.
func (l leftover) note(p string) string {
	if l.Kept == "" {
		return "removed " + bundle.Quote(l.Name) + ", a temporary file a setup killed while writing this file left"
	}
	return "kept " + bundle.Quote(l.Kept) + ": a setup killed while writing this file left it, holding a file setup did not write (the host's write the exchange handed to it, or one it could not put back); compare it with: diff " + bundle.ShellArg(l.Kept) + " " + bundle.ShellArg(p)
}

// pendingName says whether rest, what follows pendingMark in a name
// beside p (without lockSuffix), is "<pid>-<random>-<tag>" as
// createPending names a temporary file of p's with key. Its pid may be
// this process's: a setup killed in another pid namespace whose setups
// get the same pid each run (a container's pid 1) left it, and only its
// lock tells whether its writer runs (pendingGone; a lock this process
// held would be one of another open file, which flock refuses too). A
// name of this process's pid was once skipped, and stayed for good.
func pendingName(key []byte, p, rest string) bool {
	pidText, tail, ok := strings.Cut(rest, "-")
	random, tag, ok2 := strings.Cut(tail, "-")
	pid, err := strconv.Atoi(pidText)
	if !ok || !ok2 || err != nil || pid <= 0 || !pendingRandom(random) {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(tag), []byte(pendingTag(key, p, random))) == 1
}

// removeLockOfGone removes the lock file of the temporary file name when
// its writer is gone (killed after its lock file was made and before its
// temporary file was, or after it removed that).
func removeLockOfGone(name string) {
	if gone, lock := pendingGone(name); gone && lock != nil {
		removeIfSame(lock, name+lockSuffix)
		lock.Close()
	}
}

// pendingRandom says whether s is the random part createPending writes
// (a uint64 in base 36, as FormatUint spells it), so that a file of the
// user's named like one (".settings.json.bundlectl-setup-1-mine") is not
// taken for setup's.
func pendingRandom(s string) bool {
	v, err := strconv.ParseUint(s, 36, 64)
	return err == nil && strconv.FormatUint(v, 36) == s
}

// syncDir makes a rename in dir durable; a directory that cannot be
// synced (some file systems refuse) leaves it as the rename left it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// UndoResult says what --undo did to one file.
type UndoResult struct {
	Path string
	// Restored: the file was exactly as setup left it, and is now exactly
	// as it was before (or gone, if setup created it). Otherwise it
	// changed since, and only bundlectl's entries were taken out.
	Restored bool
	Removed  bool
	// LinkKept, when set, is where Path, a file setup created, leads
	// now (its real path, else the link as written): a symbolic link
	// someone made in its place since, which --undo leaves (setup never
	// makes one), and drops from the record.
	LinkKept string
	// OtherHome, when set, is the $HOME of the setup that wrote Path,
	// another than --undo's: the file is left as it is, and the record
	// keeps it, for a --undo run with that $HOME.
	OtherHome string
	// Kept, when set, says only that a setup killed while writing Path
	// left a temporary file holding what setup did not write, which
	// --undo's cleanup kept under another name (removeStalePending):
	// what setup says of it, the command comparing it with Path
	// included. Nothing else of Path is said by this result.
	Kept string
}

// Undo takes back every file setup wrote for host. Every file is read
// and checked (planUndo) before any is written or removed: one refused
// (read-only, hard links, in a directory not writable, its entries not
// told apart) leaves every file as it was, where --undo once restored the
// files before it and then stopped, and removed a file setup had created
// from a directory made read-only (as root) or failed there with the
// system's words (as another user).
func Undo(home string, host Host, in SetupInput) (results []UndoResult, err error) {
	unlock, err := lockSetup(home)
	if err != nil {
		return nil, err
	}
	defer unlock()
	key, err := pendingKey(home, true)
	if err != nil {
		return nil, err
	}
	rec, err := readRecord(home, host.Name())
	var paths []string
	if w, ok := host.(Wiring); ok {
		if edits, err := w.Setup(in); err == nil {
			paths = editPaths(edits)
		}
	}
	left := removeLeftovers(key, paths, rec) // also with nothing to undo
	// A leftover kept is said whatever --undo does next: it was once
	// renamed out of sight with nothing said, on every --undo path.
	defer func() {
		for _, p := range slices.Sorted(maps.Keys(left)) {
			for _, l := range left[p] {
				if l.Kept != "" {
					results = append(results, UndoResult{Path: p, Kept: l.note(p)})
				}
			}
		}
	}()
	if err != nil {
		return nil, err
	}
	mine, others := filesOfHome(rec.Files, homeOf(in.Environ))
	plans, err := planUndo(&SetupRecord{Files: mine}, host, in)
	if err != nil {
		return nil, err
	}
	for _, pl := range plans {
		if err := applyUndo(key, pl, host.Name(), in.Environ); err != nil {
			return results, err
		}
		// The record before the backup goes: killed between, the record
		// named the file and its backup was gone, and every --undo after
		// stopped there (for a file setup had left as it was, whose
		// record is its own digest).
		rec.Files = slices.DeleteFunc(rec.Files, func(f SetupFile) bool { return f.Path == pl.f.Path })
		if err := writeRecord(home, host.Name(), rec); err != nil {
			return results, err
		}
		testOnlyAfterUndoRecord(pl.f.Path)
		if pl.f.Backup != "" {
			os.Remove(pl.f.Backup)
		}
		results = append(results, pl.res)
	}
	for _, f := range others {
		results = append(results, UndoResult{Path: f.Path, OtherHome: f.Home})
	}
	if len(rec.Files) == 0 {
		os.Remove(recordPath(home, host.Name()))
	}
	return results, nil
}

// homeOf is the $HOME of environ as setup records it (cleaned, so that
// "/home/me/" is "/home/me", and absolute: a relative one, "." in one
// directory and "." in another, once passed for one home), or "".
func homeOf(environ []string) string {
	h := envValue(environ, "HOME")
	if h == "" {
		return ""
	}
	if abs, err := filepath.Abs(h); err == nil {
		return abs
	}
	return filepath.Clean(h)
}

// filesOfHome splits files into those a --undo run with $HOME home undoes
// (written by a setup with that $HOME, or by one that recorded none) and
// the others, each in its order.
func filesOfHome(files []SetupFile, home string) (mine, others []SetupFile) {
	for _, f := range files {
		if f.Home == "" || f.Home == home {
			mine = append(mine, f)
		} else {
			others = append(others, f)
		}
	}
	return mine, others
}

// undoPlan is what --undo does to one file setup wrote, decided before
// any is written: write next (with mode) in place of cur, or remove the
// file, or leave it.
type undoPlan struct {
	f       SetupFile
	res     UndoResult
	cur     []byte
	existed bool
	curMode fs.FileMode // the file's now
	write   bool
	next    []byte
	mode    fs.FileMode // what it is written with
	remove  bool
}

// planUndo reads every file rec names and decides, and checks, what
// --undo does to it, writing nothing: the first refusal is returned.
func planUndo(rec *SetupRecord, host Host, in SetupInput) ([]undoPlan, error) {
	// Each file's Strip, by its path, and by its name for a file setup
	// wrote in another workspace (.mcp.json of a setup --workspace
	// elsewhere): the one file of that name setup writes here, if one.
	// Edits reaching one file (Gemini CLI's user and workspace
	// settings.json, setup run in the home directory) strip it in turn:
	// the last alone once left the first's hook lines in place.
	var strip map[string]func([]byte) ([]byte, error)
	byName := map[string][]func([]byte) ([]byte, error){}
	if w, ok := host.(Wiring); ok {
		if edits, err := w.Setup(in); err == nil {
			strip = map[string]func([]byte) ([]byte, error){}
			for _, e := range edits {
				if p, err := realPath(e.Path); err == nil {
					strip[p] = stripBoth(strip[p], e.Strip)
				}
			}
			for _, e := range edits {
				for _, other := range e.StripsToo {
					if p, err := realPath(other); err == nil && strip[p] == nil {
						strip[p] = e.Strip
					}
				}
			}
			for p, s := range strip {
				byName[filepath.Base(p)] = append(byName[filepath.Base(p)], s)
			}
		}
	}
	var plans []undoPlan
	for _, f := range rec.Files {
		if fi, err := os.Lstat(f.Path); !f.Existed && err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			// Not the file setup created (setup never makes a link, and
			// records a file by its real path): neither removed nor
			// replaced, whatever it leads to holds — nor read, so that
			// a link to a directory, a FIFO, or in a loop is kept as
			// well (--undo once refused them all, and every other file
			// with them, with no hint).
			pl := undoPlan{f: f, res: UndoResult{Path: f.Path}}
			if pl.res.LinkKept, err = realPath(f.Path); err != nil {
				pl.res.LinkKept, _ = os.Readlink(f.Path)
			}
			plans = append(plans, pl)
			continue
		}
		cur, mode, existed, err := readConfig(f.Path)
		if err != nil {
			return nil, err
		}
		pl := undoPlan{f: f, res: UndoResult{Path: f.Path}, cur: cur, existed: existed, curMode: mode, mode: mode}
		switch {
		case !f.Edited && (existed && digestOf(cur) == f.Written || !existed):
			pl.res.Restored = true
			if f.Existed {
				old, err := os.ReadFile(f.Backup)
				if err != nil {
					return nil, fmt.Errorf("the backup of %s: %w", bundle.Quote(f.Path), err)
				}
				pl.mode = 0o600
				fmt.Sscanf(f.Mode, "%o", &pl.mode)
				pl.write, pl.next = true, old
			} else if existed {
				pl.remove = true
				pl.res.Removed = true
			}
		default:
			s := strip[f.Path]
			if c := byName[filepath.Base(f.Path)]; s == nil && len(c) == 1 {
				s = c[0]
			}
			if s == nil {
				// Not the backup: it lacks the change made since.
				return nil, fmt.Errorf("%s changed since setup and bundlectl cannot tell its entries apart here: run setup --undo again with the workspace (--workspace) and environment setup ran with, or take bundlectl's entries out by hand", bundle.Quote(f.Path))
			}
			next, err := s(cur)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", bundle.Quote(f.Path), err)
			}
			if old, err := os.ReadFile(f.Backup); f.Existed && err == nil {
				next = layoutAsBefore(next, old)
			}
			pl.write, pl.next = !bytes.Equal(next, cur), next
		}
		if err := undoWritable(pl, host.Name(), in.Environ); err != nil {
			return nil, err
		}
		plans = append(plans, pl)
	}
	return plans, nil
}

// stripBoth is first, then second, over one file's content (first nil:
// second alone).
func stripBoth(first, second func([]byte) ([]byte, error)) func([]byte) ([]byte, error) {
	if first == nil {
		return second
	}
	return func(cur []byte) ([]byte, error) {
		mid, err := first(cur)
		if err != nil {
			return nil, err
		}
		return second(mid)
	}
}

// undoWritable refuses a file --undo would write (replaceable) or remove
// (its directory not writable, as setup refuses to write there).
func undoWritable(pl undoPlan, host string, environ []string) error {
	switch {
	case pl.write:
		return undoReplaceable(pl.f.Path, pl.curMode, pl.existed, host, environ)
	case pl.remove:
		if err := writableDir(filepath.Dir(pl.f.Path)); err != nil {
			return &SetupFileError{Path: pl.f.Path, Host: host, Err: err, Undo: true, Removes: true}
		}
		if hl := hardLinksOf(pl.f.Path, environ); hl != nil {
			// Linked since setup created it: removing this name would
			// leave the others holding setup's entries, no undo in
			// reach; the user says what the other names are for.
			return &SetupFileError{Path: pl.f.Path, Host: host, Err: hl, Undo: true, Removes: true}
		}
	}
	return nil
}

// applyUndo writes or removes one planned file, checked again as it is
// now (planUndo checked it before the files before it were undone).
func applyUndo(key []byte, pl undoPlan, host string, environ []string) error {
	pl.curMode = modeNow(pl.f.Path, pl.curMode)
	if err := undoWritable(pl, host, environ); err != nil {
		return err
	}
	switch {
	case pl.write:
		testOnlyBeforeConfigWrite(pl.f.Path)
		if err := writeConfig(key, pl.f.Path, pl.next, pl.mode, pl.cur, pl.existed); err != nil {
			return &SetupFileError{Path: pl.f.Path, Host: host, Err: err, Undo: true}
		}
	case pl.remove:
		if err := os.Remove(pl.f.Path); err != nil {
			return err
		}
	}
	return nil
}

// undoReplaceable is replaceable for a file --undo would write, as
// --undo's refusal.
func undoReplaceable(p string, mode fs.FileMode, existed bool, host string, environ []string) error {
	if err := replaceable(p, mode, existed, environ); err != nil {
		return &SetupFileError{Path: p, Host: host, Err: err, Undo: true}
	}
	return nil
}

func (r *SetupRecord) find(path string) int {
	for i, f := range r.Files {
		if f.Path == path {
			return i
		}
	}
	return -1
}

func recordPath(home, host string) string { return filepath.Join(setupDir(home), host+".json") }

// setupRecord is readRecord, or nil when setup with home never wrote a
// record for host (nothing of it to compare).
func setupRecord(home, host string) (*SetupRecord, error) {
	if _, err := os.Stat(recordPath(home, host)); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return readRecord(home, host)
}

// RecordError is a setup record (recordPath) that is not a regular file
// (readRegular): a directory, a FIFO (once opened waiting for a writer,
// under the setup lock, so that setup and --undo hung for good), a link
// to a device. Setup never writes such a thing there, so it holds no
// record of setup's: the hint removes it.
type RecordError struct {
	Path string
	Err  error
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("setup's record %s cannot be read: %v", bundle.Quote(e.Path), e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

func (e *RecordError) Hint() string { return removeHint(e.Path) }

func readRecord(home, host string) (*SetupRecord, error) {
	data, err := readRegular(recordPath(home, host), math.MaxInt64)
	if errors.Is(err, fs.ErrNotExist) {
		return &SetupRecord{}, nil
	}
	if errors.Is(err, errNotRegular) {
		return nil, &RecordError{Path: recordPath(home, host), Err: err}
	}
	if err != nil {
		return nil, err
	}
	var r SetupRecord
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("setup record %s: %v", bundle.Quote(recordPath(home, host)), err)
	}
	return &r, nil
}

func writeRecord(home, host string, r *SetupRecord) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(recordPath(home, host), append(data, '\n'), 0o600)
}

// lockSetup takes the setup lock of home, and removes what a setup or
// --undo killed before left in the setup directory (removeStaleSetupTemps,
// removeOrphanBackups): every writer there holds this lock.
func lockSetup(home string) (func(), error) {
	dir := setupDir(home)
	if err := os.MkdirAll(filepath.Join(dir, "backups"), 0o700); err != nil {
		return nil, err
	}
	unlock, err := takeLock(filepath.Join(dir, ".lock"), "another bundlectl setup")
	if err == nil {
		removeStaleSetupTemps(home)
		removeOrphanBackups(home)
	}
	return unlock, err
}

// editPaths are the files edits write, each as setup writes it (its real
// path); one whose link leads nowhere is left out (planSetup names it).
func editPaths(edits []FileEdit) []string {
	var out []string
	for _, e := range edits {
		if p, err := realPath(e.Path); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// removeLeftovers removes, beside each of paths and of the files rec
// (nil: none) names, the temporary files a setup or --undo killed while
// writing it left (removeStalePending), and returns their names by the
// file's path, for setup's notes. It runs before setup or --undo decides
// anything, so that one refused, or with nothing to undo, cleans up too.
func removeLeftovers(key []byte, paths []string, rec *SetupRecord) map[string][]leftover {
	if rec != nil {
		for _, f := range rec.Files {
			paths = append(paths, f.Path)
		}
	}
	out := map[string][]leftover{}
	for _, p := range paths {
		if _, done := out[p]; !done {
			out[p] = removeStalePending(key, p)
		}
	}
	return out
}

// removeLeftoversOfRefused is removeLeftovers, under the setup lock, for
// a setup refused before it took that lock (the host's switch): only
// when the setup directory is there, which a setup killed with this home
// made, so that a refusal never creates a home (a mistyped --home).
func removeLeftoversOfRefused(home, host string, edits []FileEdit) {
	if _, err := os.Stat(setupDir(home)); err != nil {
		return
	}
	unlock, err := lockSetup(home)
	if err != nil {
		return
	}
	defer unlock()
	key, err := pendingKey(home, false)
	if err != nil {
		return
	}
	rec, _ := readRecord(home, host)
	removeLeftovers(key, editPaths(edits), rec)
}

// removeOrphanBackups removes the backups under the setup directory that
// no record names: a setup killed after it wrote a backup and before the
// record naming it (the file not yet written), or a --undo killed after
// it wrote its record without a file and before it removed that file's
// backup (the file undone), left one, which once stayed for good. Only
// names setup gives its backups (backupName) go, and none while any
// record cannot be read (what it names cannot be told).
func removeOrphanBackups(home string) {
	dir := setupDir(home)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	named := map[string]bool{}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		var r SetupRecord
		if err != nil || json.Unmarshal(data, &r) != nil {
			return
		}
		for _, f := range r.Files {
			if f.Backup != "" {
				named[filepath.Base(f.Backup)] = true
			}
		}
	}
	backups := filepath.Join(dir, "backups")
	ents, err = os.ReadDir(backups)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.Type().IsRegular() && backupName(e.Name()) && !named[e.Name()] {
			os.Remove(filepath.Join(backups, e.Name()))
		}
	}
}

// backupName says whether name is one setup gives a backup
// ("<host>-<16 hex>", applySetup), a host's name being lower-case
// letters and digits.
func backupName(name string) bool {
	host, digest, ok := strings.Cut(name, "-")
	return ok && host != "" && strings.Trim(host, "abcdefghijklmnopqrstuvwxyz0123456789") == "" && len(digest) == 16 && isLowerHex(digest)
}

// notThroughLink refuses a workspace file (p under workspace) that is, or
// is under, a symbolic link below the workspace: a repository can ship
// .mcp.json as a link to any file of the user's, which setup would then
// rewrite. A user's own configuration files may be links (dotfile
// managers keep them so); a workspace's are not followed.
func notThroughLink(p, workspace, host string) error {
	rel, err := filepath.Rel(workspace, p)
	if workspace == "" || err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	cur := workspace
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if err != nil {
			return nil // missing: setup creates it, inside the workspace
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return &WorkspaceLinkError{Path: cur, Host: host}
		}
	}
	return nil
}

// WorkspaceLinkError is a workspace file setup would write that is, or is
// under, a symbolic link.
type WorkspaceLinkError struct{ Path, Host string }

func (e *WorkspaceLinkError) Error() string {
	return fmt.Sprintf("%s is a symbolic link, and setup writes a workspace's files only inside the workspace: remove the link, then run setup again (bundlectl setup %s)", bundle.Quote(e.Path), e.Host)
}

// Hint is the command that removes the link (not what it points to).
func (e *WorkspaceLinkError) Hint() string { return "rm " + bundle.ShellArg(e.Path) }

// realPath resolves a configuration file that is a symbolic link (dotfile
// managers keep them so), so that the file is edited where it lives.
func realPath(p string) (string, error) {
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return p, nil
	}
	return filepath.EvalSymlinks(p)
}

// danglingParent is the directory of p setup would create that is a
// symbolic link to nothing (its target gone), or "": setup's create
// there fails ("mkdir …: file exists", naming no file of the user's),
// after the files before it were written.
func danglingParent(p string) string {
	for dir := filepath.Dir(p); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			return ""
		}
		if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return dir
		}
	}
	return ""
}

// modeNow is the permission mode of the file at p now, or planned when
// it cannot be told (missing).
func modeNow(p string, planned fs.FileMode) fs.FileMode {
	if fi, err := os.Stat(p); err == nil {
		return fi.Mode().Perm()
	}
	return planned
}

// hardLinks is the number of names the file at p has (0 when it cannot
// be told).
func hardLinks(p string) uint64 {
	var st unix.Stat_t
	if unix.Stat(p, &st) != nil {
		return 0
	}
	return uint64(st.Nlink)
}

// readConfig reads a configuration file; a missing one is nil.
func readConfig(p string) (data []byte, mode fs.FileMode, existed bool, err error) {
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, false, fmt.Errorf("%s is %w", bundle.Quote(p), errNotRegular)
	}
	data, err = os.ReadFile(p)
	return data, fi.Mode().Perm(), true, err
}

// writeAtomic writes setup's own record or backup under the setup lock
// (renameio: a synced temporary file beside it, ".<name><digits>", renamed
// into place); one a setup killed before its rename left is removed by
// the next (removeStaleSetupTemps).
func writeAtomic(p string, data []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	t, err := renameio.NewPendingFile(p, renameio.WithTempDir(filepath.Dir(p)), renameio.WithPermissions(mode))
	if err != nil {
		return err
	}
	defer t.Cleanup()
	if _, err := t.Write(data); err != nil {
		return err
	}
	testOnlySetupTempWritten(p)
	return t.CloseAtomicallyReplace()
}

// removeStaleSetupTemps removes the temporary files writeAtomic's
// renameio left in the setup directory and its backups when a setup was
// killed before its rename: ".<host>.json<digits>" and
// ".<host>-<16 hex><digits>". It runs under
// the setup lock, which every writer of those names holds while it
// writes, and which the system releases when its holder dies (in any pid
// namespace): such a file there is one whose writer is gone.
func removeStaleSetupTemps(home string) {
	dir := setupDir(home)
	for _, d := range []string{dir, filepath.Join(dir, "backups")} {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.Type().IsRegular() && (setupTempName(e.Name(), d != dir) || d == dir && keyTempName(e.Name())) {
				os.Remove(filepath.Join(d, e.Name()))
			}
		}
	}
}

// setupTempName says whether name is renameio's temporary name for a
// record (".<host>.json<digits>") or, backup, a backup
// (".<host>-<16 hex><digits>"), a host's name being lower-case letters
// and digits (the hosts a test registers too).
func setupTempName(name string, backup bool) bool {
	rest, ok := strings.CutPrefix(name, ".")
	i := strings.IndexFunc(rest, func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') })
	if !ok || i <= 0 {
		return false
	}
	tail := rest[i:]
	if backup {
		tail, ok = strings.CutPrefix(tail, "-")
		if !ok || len(tail) < 16 || !isLowerHex(tail[:16]) {
			return false
		}
		tail = tail[16:]
	} else if tail, ok = strings.CutPrefix(tail, ".json"); !ok {
		return false
	}
	return tail != "" && strings.Trim(tail, "0123456789") == ""
}

// keyTempName says whether name is renameio's temporary name for the
// key of the tags (".pending-key<digits>").
func keyTempName(name string) bool {
	tail, ok := strings.CutPrefix(name, "."+pendingKeyName)
	return ok && tail != "" && strings.Trim(tail, "0123456789") == ""
}

func isLowerHex(s string) bool {
	return strings.Trim(s, "0123456789abcdef") == ""
}

// HookBlock is implemented by a Wiring whose hook lines setup can read
// back, so that a block written by an older bundlectl, with fewer events
// than the host now fires, is noticed: a guard on a missing event never
// runs, and the host says nothing.
type HookBlock interface {
	// HookConfig is the file setup writes its hook lines into.
	HookConfig(environ []string) (string, error)
	// SetupEvents are the events this bundlectl's setup wires.
	SetupEvents() []string
	// WiredEvents are the events that data, the file's content, holds
	// one of setup's hook lines for.
	WiredEvents(data []byte) []string
	// SetupTimeout is the timeout this bundlectl's setup gives each hook
	// line, and the unit the host reads it in ("s" or "ms").
	SetupTimeout() (int, string)
	// WiredTimeout is the shortest timeout of setup's hook lines in data
	// (a line without one counts as the host's default), and false when
	// data holds none of them.
	WiredTimeout(data []byte) (int, bool)
}

// StaleSetup says that the hook lines an earlier setup wrote into Path
// leave out events the host fires, or have a timeout shorter than this
// bundlectl's (Timeout), or, Gone, that none is left there, or,
// Unreadable, that bundlectl cannot read Path to tell.
type StaleSetup struct {
	Host    string
	Path    string
	Missing []string
	// Timeout, when not 0, is the shortest timeout of the lines, shorter
	// than Want, the one this bundlectl's setup writes, both in Unit: the
	// host would kill `hooks run` in the middle of a chain of slow guards,
	// read a failed hook and let the tool run. AtOnce: it is one the host
	// fires at once (past NodeTimerMax ms in Gemini CLI; Timeout is then 1).
	Timeout, Want int
	Unit          string
	AtOnce        bool
	// Extra are events the lines hook that this bundlectl's setup no
	// longer wires (an older setup wired them): a host may hand such an
	// event's hook work of its own, which `hooks run` does not do.
	Extra []string
	// Gone: setup wrote hook lines into Path, and the file holds none
	// now (or is gone): no guard runs in a session that is not started
	// through exec. Missing is then every event setup wires.
	Gone bool
	// OtherHome, with Gone: the file holds setup's hook lines, every one
	// of them running another $BUNDLECTL_HOME (its --home), none this
	// home's: that home's setup replaced them.
	OtherHome bool
	// Syntax, when set with Gone, is where Path does not parse as the
	// host reads it (ConfigParse), and Then, when set, what more the
	// host does with it: the lines may be there, and the host reads none.
	Syntax *SyntaxError
	Then   string
	// Unread, when set with Gone, is why Path cannot be read now (it is
	// a directory, a link in a loop, not readable): the host, which
	// runs as the same user, reads none of the lines either.
	Unread error
	// Off, when set, is the setting of the host's that keeps it from
	// running any of the lines (HooksGate) in a session started in
	// Workspace, or, Off.When set, in some of them (HooksOffWhen);
	// Missing is then empty.
	Off       *HooksOffError
	Workspace string
	// Servers, when set, are the MCP entries setup wrote into Path
	// without the timeout the review gives their server, or with another
	// (CheckServerTimeouts); Missing is then empty.
	Servers []string
	// Unreadable, when set, is why bundlectl cannot read Path, which the
	// host reads (UnreadableConfig): whether the lines are there cannot
	// be told, and setup refuses the file too. Missing is then empty.
	Unreadable *UnreadableError
	// Env, when set, is the environment assignment ("NAME=value") under
	// which the host reads Path, another file than in list's own
	// environment (OtherHookConfig: Claude Code's cowork_settings.json):
	// Path's lines and the host's switches were read as in a session
	// started with it, and Fix's bundlectl command runs with it.
	Env string
}

// Message says what is missing and what it means, for the user.
func (s *StaleSetup) Message() string {
	if s.Env != "" {
		return fmt.Sprintf("%s (%s reads %s, and these settings, in a session started with %s; list ran without it)",
			s.message(), bundle.HostTitle(bundle.Host(s.Host)), bundle.Quote(s.Path), s.Env)
	}
	return s.message()
}

// message is Message without what Env adds.
func (s *StaleSetup) message() string {
	if s.Off != nil && s.Off.When != "" {
		// A setting that holds only in some sessions carries its own
		// fix (a Gemini CLI trust rule is not removed but answered).
		fix := "remove the setting"
		if s.Off.Fix != "" {
			fix = s.Off.Fix
		}
		return fmt.Sprintf("setup wrote hook lines into %s, and in a %s session %s, %s sets %s, which keeps %s from running them: no guard runs in such a session not started with bundlectl exec; %s",
			bundle.Quote(s.Path), s.Host, s.Off.When, s.Off.Source(), s.Off.Setting, s.Host, fix)
	}
	if s.Off != nil {
		where := "not started with bundlectl exec"
		if s.Workspace != "" && within(s.Off.File, s.Workspace) {
			// The workspace's own setting: sessions elsewhere may run them.
			where = "started in " + bundle.Quote(s.Workspace) + " without bundlectl exec"
		}
		fix := "remove the setting"
		if s.Off.Lines != "" {
			// Named by its lines, the setting has a fix of its own.
			fix = setupFix(s.Off)
		}
		return fmt.Sprintf("setup wrote hook lines into %s, and %s sets %s, which keeps %s from running them: no guard runs in a %s session %s; %s",
			bundle.Quote(s.Path), s.Off.Source(), s.Off.Setting, s.Host, s.Host, where, fix)
	}
	if s.Unreadable != nil {
		return s.unreadableMessage()
	}
	if len(s.Servers) > 0 {
		return fmt.Sprintf("the MCP entries setup wrote into %s are older than this bundlectl: %s %s no timeout, or not the one the review gives the server, so %s does not wait for the server as the review shows",
			bundle.Quote(s.Path), strings.Join(s.Servers, ", "), map[bool]string{true: "has", false: "have"}[len(s.Servers) == 1], s.Host)
	}
	if s.Gone && s.Unread != nil {
		return fmt.Sprintf("setup wrote hook lines into %s, and it cannot be read now (%v): %s reads none of them, so no guard runs in a %s session not started with bundlectl exec; put the file back, or move what is there away and run setup again",
			bundle.Quote(s.Path), unreadWhy(s.Unread), bundle.HostTitle(bundle.Host(s.Host)), s.Host)
	}
	if s.Gone && s.Syntax != nil {
		then := ""
		if s.Then != "" {
			then = ", and " + s.Then
		}
		return fmt.Sprintf("setup wrote hook lines into %s, and %s reads none of them: the file does not parse (%v)%s; no guard of setup's runs until that line is fixed (then run list again)",
			bundle.Quote(s.Path), bundle.HostTitle(bundle.Host(s.Host)), s.Syntax, then)
	}
	if s.Gone && s.OtherHome {
		return fmt.Sprintf("setup wrote hook lines into %s, and the ones there now run another home's bundlectl (another --home; its setup replaced this home's): no guard of this home's runs in a %s session not started with bundlectl exec",
			bundle.Quote(s.Path), s.Host)
	}
	if s.Gone {
		return fmt.Sprintf("setup wrote hook lines into %s, and none is there now: no guard runs in a %s session not started with bundlectl exec",
			bundle.Quote(s.Path), s.Host)
	}
	var why []string
	if len(s.Missing) > 0 {
		why = append(why, fmt.Sprintf("there is none for %s, so no guard runs on %s",
			strings.Join(s.Missing, ", "), map[bool]string{true: "that event", false: "those events"}[len(s.Missing) == 1]))
	}
	if len(s.Extra) > 0 {
		why = append(why, fmt.Sprintf("they hook %s, which this bundlectl's setup no longer wires: the host hands a hook of %s work of its own (a WorktreeCreate hook creates the worktree in the host's place, and bundlectl's creates none)",
			strings.Join(s.Extra, ", "), map[bool]string{true: "that event", false: "those events"}[len(s.Extra) == 1]))
	}
	switch {
	case s.AtOnce:
		why = append(why, fmt.Sprintf("its timeout is past %d %s, which %s's runtime (Node.js) fires after 1 ms: the host kills every guard at once, reads a failed hook and runs the tool; this bundlectl needs %d %s",
			NodeTimerMax, s.Unit, bundle.HostTitle(bundle.Host(s.Host)), s.Want, s.Unit))
	case s.Timeout > 0:
		why = append(why, fmt.Sprintf("its timeout is %d %s; this bundlectl needs %d %s so a chain of guards is not cut (the host would read a cut chain as a failed hook and run the tool)",
			s.Timeout, s.Unit, s.Want, s.Unit))
	}
	return fmt.Sprintf("the hook lines setup wrote into %s are out of date (an older setup wrote them, or they were edited since): %s",
		bundle.Quote(s.Path), strings.Join(why, "; and "))
}

// unreadableMessage says that bundlectl cannot read Path, why, and what
// that leaves unknown: not that the lines are gone (the host may well run
// them), nor that they are there.
func (s *StaleSetup) unreadableMessage() string {
	fix := "rewrite it as UTF-8 (the hint does)"
	switch s.Unreadable.Why {
	case BeyondNumber:
		fix = "write that number smaller (the hint shows the line)"
	case BeyondDepth:
		fix = "nest less (the hint shows the line)"
	case BeyondDuplicateKey:
		fix = "keep one of the key's entries (the hint shows the line)"
	}
	return fmt.Sprintf("setup wrote hook lines into %s, and bundlectl cannot read it now: %s; so whether the lines are still there and up to date cannot be told (setup refuses the file too); %s, then run list again",
		bundle.Quote(s.Path), s.Unreadable.What(), fix)
}

// Fix is the command that brings the lines up to date, or, for Off, the
// one that shows the setting, or, for Unreadable, the one that makes the
// file readable.
func (s *StaleSetup) Fix() string {
	if s.Off != nil {
		return (&SetupHooksOffError{Host: s.Host, Off: s.Off}).Hint()
	}
	if s.Unreadable != nil {
		return s.Unreadable.Hint(s.Path)
	}
	if s.Syntax != nil {
		return SyntaxHint(s.Syntax, s.Path)
	}
	if s.Unread != nil {
		return "ls -ld " + bundle.ShellArg(s.Path)
	}
	return "bundlectl setup " + s.Host
}

// unreadWhy is why a file cannot be read, without the path the message
// names already.
func unreadWhy(err error) error {
	if errors.Is(err, errNotRegular) {
		return errNotRegular
	}
	return pathErr(err)
}

// CheckSetup returns what host's hook lines, written by an earlier setup
// with this home, leave out, or nil when they are complete, when setup
// never wrote them there, or when they were all taken out by hand. It
// reads setup's record and the one configuration file, nothing more:
// `hooks run` calls it at every SessionStart.
func CheckSetup(home string, host Host, environ []string) (*StaleSetup, error) {
	sts, err := checkSetup(home, host, environ, "", false)
	if len(sts) == 0 {
		return nil, err
	}
	return sts[0], err
}

// SetupStale is CheckSetup for the host named host, in the form
// harness.HookRun.SetupCheck takes, which hooks run asks at every
// SessionStart: what the lines leave out and the command that fixes it,
// or "" when nothing (an unknown host, lines complete, setup never wrote
// them here, or they cannot be read).
func SetupStale(home string, host bundle.Host, environ []string) (problem, fix string) {
	h, ok := Lookup(string(host))
	if !ok {
		return "", ""
	}
	if st, _ := CheckSetup(home, h, environ); st != nil {
		return st.Message(), st.Fix()
	}
	return "", ""
}

// CheckSetups is CheckSetup for every host setup wrote a record for with
// this home, sorted by host, for `list` in workspace; it also says of a
// host whose hook lines are all gone (Gone), or whose file holding them
// the host reads and bundlectl cannot (Unreadable, never Gone), and of
// one whose settings keep it from running them in a session started in
// workspace, or in some of them (Off). It reads the setup directory,
// each record and configuration file named there, and, for a host with
// lines there, the settings files such a session reads, nothing more; a
// record it cannot read says nothing here (setup names it), while a file
// of the lines that cannot be read (a directory, a link in a loop or to
// nothing) is Gone, with Unread: the host reads none of them either, and
// no SessionStart line of theirs can say so.
//
// A host that reads its hook lines from another file in another
// environment (OtherHookConfig) is checked in that environment too, when
// setup's record names that file: its lines, and the host's switches as
// a session started so reads them, each said with Env. List once read
// only its own environment's file, and said nothing of the other's lines
// whatever the switches of that environment did to them.
func CheckSetups(home, workspace string, environ []string) []*StaleSetup {
	var out []*StaleSetup
	for _, h := range recordedHosts(home) {
		if sts, err := checkSetup(home, h, environ, workspace, true); err == nil {
			out = append(out, sts...)
		}
		o, ok := h.(OtherHookConfig)
		if !ok {
			continue
		}
		if assign, other, ok := o.OtherHookEnv(environ); ok {
			if sts, err := checkSetup(home, h, other, workspace, true); err == nil {
				for _, st := range sts {
					st.Env = assign
				}
				out = append(out, sts...)
			}
		}
	}
	return out
}

// OtherHookConfig is implemented by a HookBlock whose host reads its hook
// lines from another file in another environment (Claude Code's
// cowork_settings.json under CLAUDE_CODE_USE_COWORK_PLUGINS, else
// settings.json), which setup writes when run in that environment.
type OtherHookConfig interface {
	// OtherHookEnv returns the assignment ("NAME=value") that makes the
	// host read its hook lines from the other file, and environ with it;
	// false when no such assignment makes it read another file than in
	// environ (a setting of the host's own decides it).
	OtherHookEnv(environ []string) (assign string, other []string, ok bool)
}

// recordedHosts are the hosts setup wrote a record for with this home,
// sorted by name: the regular files of the setup directory named for a
// known host. A directory that cannot be read gives none.
func recordedHosts(home string) []Host {
	ents, err := os.ReadDir(setupDir(home))
	if err != nil {
		return nil
	}
	var out []Host
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if h, ok := Lookup(name); ok {
			out = append(out, h)
		}
	}
	return out
}

// recordedConfig is p, the file setup writes a host's hook lines into,
// as setup's record names it (its real path), and whether the record
// names it; linkErr is why p, a link that leads nowhere now (to a file
// since removed, in a loop), has no real path: p is then as spelled, or,
// when setup wrote through it, the file it names, so that list says the
// lines cannot be read there rather than nothing.
func recordedConfig(rec *SetupRecord, p string) (path string, linkErr error, ok bool) {
	real, err := realPath(p)
	if err == nil {
		return real, nil, rec.find(real) >= 0
	}
	if _, serr := os.Stat(p); serr != nil {
		err = serr // the system's words ("too many levels of symbolic links")
	}
	if rec.find(p) >= 0 {
		return p, err, true
	}
	target, rerr := os.Readlink(p)
	if rerr != nil {
		return "", err, false
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(p), target)
	}
	return target, err, rec.find(target) >= 0
}

// checkSetup is CheckSetup; with gone (list, in workspace), hook lines
// that are all gone (or their file) are said too, and so are the
// host's settings that keep it from running them in a session started
// in workspace (or in some of them).
func checkSetup(home string, host Host, environ []string, workspace string, gone bool) ([]*StaleSetup, error) {
	hb, ok := host.(HookBlock)
	if !ok {
		return nil, nil
	}
	rec, err := setupRecord(home, host.Name())
	if rec == nil || err != nil {
		return nil, err
	}
	p, err := hb.HookConfig(environ)
	if err != nil {
		return nil, nil // not this host's environment: nothing to compare
	}
	p, linkErr, ok := recordedConfig(rec, p)
	if !ok {
		return nil, nil
	}
	cur, _, existed, err := readConfig(p)
	if linkErr != nil {
		err = linkErr
	}
	if err != nil {
		if gone {
			// The host cannot read it either (it runs as the same
			// user): none of the lines runs, and no SessionStart line
			// can say so.
			return []*StaleSetup{{Host: host.Name(), Path: p, Missing: hb.SetupEvents(), Gone: true, Unread: err}}, nil
		}
		return nil, err
	}
	var wired []string
	if existed {
		wired = hb.WiredEvents(cur)
	}
	if len(wired) > 0 && !holdsLinesOf(cur, home) {
		// Setup's lines, every one of another home's (its setup replaced
		// this home's): they run that home's guards, none of this one's.
		// They were once counted as this home's, and list said nothing.
		if !gone {
			return nil, nil
		}
		return []*StaleSetup{{Host: host.Name(), Path: p, Missing: hb.SetupEvents(), Gone: true, OtherHome: true}}, nil
	}
	if len(wired) == 0 {
		if !gone {
			return nil, nil
		}
		if u, ok := host.(UnreadableConfig); ok && existed {
			if why := u.ConfigUnreadable(cur); why != nil {
				// Not gone: the host reads the file, lines and all.
				return []*StaleSetup{{Host: host.Name(), Path: p, Missing: []string{}, Unreadable: why}}, nil
			}
		}
		st := &StaleSetup{Host: host.Name(), Path: p, Missing: hb.SetupEvents(), Gone: true}
		if c, ok := host.(ConfigParse); ok && existed {
			// Not taken out: setup, which refuses the file, is no fix.
			st.Syntax, st.Then = c.ConfigSyntax(cur)
		}
		return []*StaleSetup{st}, nil
	}
	var out []*StaleSetup
	if g, ok := host.(HooksGate); ok && gone {
		// A switch turned on since setup, or one of the workspace's: the
		// host runs none of the lines, so no SessionStart line can say
		// it; list does.
		in := SetupInput{Reentry: Reentry{Home: home, Workspace: workspace}, Environ: environ}
		if off := plainOff(g.SetupHooksOff(in)); off != nil {
			return []*StaleSetup{{Host: host.Name(), Path: p, Missing: []string{}, Off: off, Workspace: workspace}}, nil
		}
		if w, ok := host.(HooksOffWhen); ok {
			for _, off := range w.SetupHooksOffWhen(in) {
				out = append(out, &StaleSetup{Host: host.Name(), Path: p, Missing: []string{}, Off: off, Workspace: workspace})
			}
		}
	}
	missing := []string{} // a list, also when only the timeout is short (list --json)
	for _, ev := range hb.SetupEvents() {
		if !slices.Contains(wired, ev) {
			missing = append(missing, ev)
		}
	}
	st := &StaleSetup{Host: host.Name(), Path: p, Missing: missing}
	for _, ev := range wired {
		if !slices.Contains(hb.SetupEvents(), ev) && !slices.Contains(st.Extra, ev) {
			st.Extra = append(st.Extra, ev)
		}
	}
	want, unit := hb.SetupTimeout()
	if got, ok := hb.WiredTimeout(cur); ok && got < want {
		st.Timeout, st.Want, st.Unit, st.AtOnce = max(got, 1), want, unit, got == 0
	}
	if len(missing) == 0 && len(st.Extra) == 0 && st.Timeout == 0 {
		return out, nil
	}
	return append([]*StaleSetup{st}, out...), nil
}

// CheckServerTimeouts returns, for host, the MCP entries an earlier setup
// with this home wrote without the timeout setup now gives them (that of
// in.Bundles' reviewed servers), or nil when there is none, or setup never
// wrote that file.
func CheckServerTimeouts(home string, host Host, in SetupInput) (*StaleSetup, error) {
	w, ok := host.(Wiring)
	if !ok {
		return nil, nil
	}
	rec, err := setupRecord(home, host.Name())
	if rec == nil || err != nil {
		return nil, err
	}
	edits, err := w.Setup(in)
	if err != nil {
		return nil, nil // not this host's environment: nothing to compare
	}
	for _, e := range edits {
		if e.ShortTimeouts == nil {
			continue
		}
		p, err := realPath(e.Path)
		if err != nil || rec.find(p) < 0 {
			continue
		}
		cur, _, existed, err := readConfig(p)
		if err != nil || !existed {
			continue
		}
		if short := e.ShortTimeouts(cur); len(short) > 0 {
			return &StaleSetup{Host: host.Name(), Path: p, Missing: []string{}, Servers: short}, nil
		}
	}
	return nil, nil
}

// CheckServerTimeoutsAll is CheckServerTimeouts for every host setup
// wrote a record for with this home, sorted by host, against the active
// bundles of workspace, for `list`; a host whose bundles or files cannot
// be read says nothing here (setup names it).
func CheckServerTimeoutsAll(re Reentry, environ []string) []*StaleSetup {
	var out []*StaleSetup
	for _, h := range recordedHosts(re.Home) {
		if _, ok := h.(Wiring); !ok {
			continue
		}
		bundles, _, err := ActiveBundles(re.Home, re.Workspace, h.Name())
		if err != nil {
			continue
		}
		if st, err := CheckServerTimeouts(re.Home, h, SetupInput{Reentry: re, Bundles: bundles, Environ: environ}); err == nil && st != nil {
			out = append(out, st)
		}
	}
	return out
}

// NodeTimerMax is the longest delay Node.js's setTimeout keeps, in
// milliseconds: a longer one (Infinity too) fires after 1 ms.
const NodeTimerMax = 1<<31 - 1

// WiredJSONTimeout is the shortest timeout of setup's hook lines for host
// in a JSON settings file (Claude Code, Gemini CLI) read as syntax, a
// line without a number there counting as def, the host's default; false
// when there is no such line. When timerMax is set (Gemini CLI, whose
// timer is Node.js's, NodeTimerMax), a line whose timeout is past it
// counts as 0: the host kills the hook at once, where it would seem the
// longest of all (internal/agenttest TestHostsGuardTimeouts).
func WiredJSONTimeout(data []byte, syntax JSONSyntax, host string, def, timerMax int) (int, bool) {
	root, err := ParseJSONAs(data, syntax)
	if err != nil || root.Kind != JSONObject {
		return 0, false
	}
	hooks, ok := root.Get("hooks")
	if !ok || hooks.Kind != JSONObject {
		return 0, false
	}
	least, found := 0, false
	for _, ev := range hooks.Keys {
		arr := hooks.Fields[ev]
		if arr.Kind != JSONArray {
			continue
		}
		for _, g := range arr.Items {
			if !ownGroup(g, host) {
				continue
			}
			hs, _ := g.Get("hooks")
			for _, h := range hs.Items {
				t := def
				if v, ok := h.Get("timeout"); ok && v.Kind == JSONScalar {
					f, err := strconv.ParseFloat(string(v.Scalar), 64)
					switch {
					case timerMax > 0 && f > float64(timerMax):
						t = 0 // Infinity too: a number past the double range (ErrRange) is that to JSON.parse
					case err == nil && f > 0:
						t = int(min(f, 1<<31))
					}
				}
				if !found || t < least {
					least, found = t, true
				}
			}
		}
	}
	return least, found
}

// WiredJSONEvents are the events of a JSON settings file (Claude Code,
// Gemini CLI) read as syntax that hold one of setup's groups for host.
// None, when the file does not parse so: the host then reads none.
func WiredJSONEvents(data []byte, syntax JSONSyntax, host string) []string {
	root, err := ParseJSONAs(data, syntax)
	if err != nil || root.Kind != JSONObject {
		return nil
	}
	hooks, ok := root.Get("hooks")
	if !ok || hooks.Kind != JSONObject {
		return nil
	}
	var out []string
	for _, ev := range hooks.Keys {
		arr := hooks.Fields[ev]
		if arr.Kind != JSONArray {
			continue
		}
		for _, g := range arr.Items {
			if ownGroup(g, host) {
				out = append(out, ev)
				break
			}
		}
	}
	return out
}
