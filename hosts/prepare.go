package hosts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/lifecycle"
)

// Options say which agent to start, for which workspace.
type Options struct {
	// Home is $BUNDLECTL_HOME and Workspace the workspace, both absolute.
	Home, Workspace string
	// Exe is the bundlectl views call back (absolute; see Executable).
	Exe string
	// Argv is the agent's command line; its program's base name picks the
	// host adapter.
	Argv []string
	// Environ is the environment the agent starts from (os.Environ()).
	Environ []string
	// Exclusive keeps the agent's own plugins (extensions), which bundlectl
	// never reviewed, out of the session: the agent loads the active
	// bundles' views and nothing else packaged as a plugin. Without it each
	// host adapter names the plugins of the user's own that load beside the
	// views.
	Exclusive bool
}

// Notice is one thing the user should know before the agent starts: a
// bundle that is not loaded and why, or one that is loaded with a caveat.
type Notice struct {
	Bundle string
	// Loaded says the bundle (or the rest of it) is loaded anyway.
	Loaded bool
	Text   string
	// Fix is the bundlectl command that moves it forward, if any.
	Fix string
}

// Plan is a prepared launch.
type Plan struct {
	Host    Host
	Views   []BuiltView
	Launch  *Launch
	Notices []Notice
	session *Session
}

// UnknownAgentError is an agent program no registered adapter serves.
type UnknownAgentError struct{ Program string }

func (e *UnknownAgentError) Error() string {
	return fmt.Sprintf("bundlectl exec does not know the agent %s (it knows %s)", bundle.Quote(e.Program), strings.Join(Names(), ", "))
}

// HostFor returns the adapter for an agent program by its base name.
func HostFor(program string) (Host, error) {
	h, ok := Lookup(filepath.Base(program))
	if !ok {
		return nil, &UnknownAgentError{Program: program}
	}
	return h, nil
}

// Prepare loads the registry of the workspace, makes (or reuses and
// checks) the host view of every loaded bundle and returns how to start
// the agent with exactly those views. It starts nothing. An unusable state
// file is an error: starting the agent without the guards the user enabled
// would fail open.
func Prepare(opts Options) (*Plan, error) {
	if len(opts.Argv) == 0 {
		return nil, errors.New("no agent to start")
	}
	host, err := HostFor(opts.Argv[0])
	if err != nil {
		return nil, err
	}
	reg, err := harness.Load(harness.Options{Home: opts.Home, Workspace: opts.Workspace, NoWatch: true, Environ: opts.Environ})
	if err != nil {
		return nil, err
	}
	defer reg.Close()
	p := &Plan{Host: host}
	for _, in := range reg.Inactive() {
		if in.BlocksAny() {
			// Starting the agent without its guards would fail open, as
			// with an unusable state file.
			why := " (disabling the bundle also lets it start), because which events its hooks guard is unknown"
			if !in.UnusableReceipt() {
				why = ", because it guards events and its hooks cannot run"
			}
			return nil, &harness.AuthorityError{Bundle: in.Name, Err: harness.ErrNotActive, Fix: in.Fix,
				Reason: in.Reasons[len(in.Reasons)-1] + "; until then the agent is not started" + why}
		}
		p.Notices = append(p.Notices, Notice{Bundle: in.Name, Text: in.Says(), Fix: in.Fix})
	}
	active, refused := reg.Active()
	p.Notices = append(p.Notices, pendingNotices(opts, active)...)

	viewsDir := filepath.Join(opts.Home, "views")
	p.session = &Session{viewsDir: viewsDir, exclusive: opts.Exclusive}
	p.session.sweep()
	launched := false
	defer func() {
		// A view built for this session may hold option values: no
		// error return leaves it for the next launch to sweep.
		if !launched {
			p.session.Remove()
		}
	}()
	re := Reentry{Exe: opts.Exe, Home: opts.Home, Workspace: opts.Workspace}
	for _, a := range reg.Bundles() {
		b := NewBundle(a, host.Name())
		var v *View
		guardOnly := false
		if err, ok := refused[a.Name]; ok {
			// The receipt still says which hooks guard which events:
			// load those alone, so that each blocks its event rather
			// than vanish with the bundle.
			guardOnly = true
			text := "its check failed at launch, so everything in it but its hooks is left out (its hooks are loaded only to block the events they guard: none of them runs): " + err.Error()
			p.Notices = append(p.Notices, Notice{Bundle: a.Name, Text: text, Fix: fixOf(err, "bundlectl verify")})
			v, err = guardView(host, b, re)
			if err != nil {
				return nil, fmt.Errorf("bundle %s: %w", bundle.Quote(a.Name), err)
			}
		} else {
			v, err = host.View(b, re)
			if err == nil {
				// Checked here rather than only when the view is written,
				// so that a name the file system would fold keeps the
				// bundle's guards, as any other view that cannot be made.
				err = v.CheckNames()
			}
			if err != nil {
				// Its guards must not vanish with the rest of it: load its
				// hooks alone, as for a failed check.
				fix := "bundlectl show " + bundle.ShellArg(a.Name)
				if errors.As(err, new(*NameCollisionError)) {
					fix = "bundlectl review " + bundle.ShellArg(a.Name)
				}
				text := "its view for " + host.Name() + " cannot be made, so everything in it but its hooks is left out (its hooks still run, and the events they guard stay guarded): " + err.Error()
				p.Notices = append(p.Notices, Notice{Bundle: a.Name, Text: text, Fix: fix})
				guardOnly = true
				b = NewBundle(a, host.Name())
				if v, err = guardView(host, b, re); err != nil {
					return nil, fmt.Errorf("bundle %s: %w", bundle.Quote(a.Name), err)
				}
			}
		}
		for _, n := range b.Notes {
			p.Notices = append(p.Notices, Notice{Bundle: a.Name, Loaded: true, Text: n})
		}
		if v == nil || v.Empty() {
			// A bundle whose every component was left out with a note
			// (one that names the fix) needs no other word.
			if !guardOnly && len(b.Notes) == 0 {
				p.Notices = append(p.Notices, Notice{Bundle: a.Name, Loaded: true, Text: "has nothing " + host.Name() + " loads (its components are for other hosts)"})
			}
			continue
		}
		var dir string
		if v.HoldsValues() {
			dir, err = p.session.MaterializeSession(len(p.Views), v)
		} else {
			dir, err = Materialize(viewsDir, a.Token.String(), host.Name(), a.Name, v)
		}
		if err != nil {
			return nil, fmt.Errorf("bundle %s: host view: %w", bundle.Quote(a.Name), err)
		}
		p.Views = append(p.Views, BuiltView{Bundle: a.Name, Dir: dir, GuardOnly: guardOnly, Meta: v.Meta, Hooks: v.hasHooks()})
	}
	l, err := host.Launch(p.session, p.Views, opts.Argv, opts.Environ)
	if err != nil {
		return nil, err
	}
	for _, n := range l.Notes {
		p.Notices = append(p.Notices, Notice{Loaded: true, Text: n})
	}
	cleanup := l.Cleanup
	if p.session.dir != "" {
		l.Cleanup = func() {
			if cleanup != nil {
				cleanup()
			}
			p.session.Remove()
		}
	}
	p.Launch = l
	launched = true
	return p, nil
}

// guardView is the view of a bundle whose snapshot failed its check: the
// host's view of its hooks alone (the host adapter builds it from a copy
// of the bundle that holds nothing else).
func guardView(host Host, b *Bundle, re Reentry) (*View, error) {
	inv := *b.Inventory
	inv.Skills, inv.Commands, inv.Agents, inv.OutputStyles, inv.Contexts = nil, nil, nil, nil, nil
	inv.MCPServers, inv.LSPServers, inv.Tools, inv.Monitors, inv.Apps, inv.Policies = nil, nil, nil, nil, nil, nil
	var hooks = inv.Hooks[:0:0]
	for _, h := range inv.Hooks {
		if h.Scope == "" && Runs(h) {
			hooks = append(hooks, h)
		}
	}
	inv.Hooks = hooks
	gb := *b
	gb.Inventory = &inv
	gb.Snapshot = "" // nothing may be copied from it
	return host.View(&gb, re)
}

func fixOf(err error, def string) string {
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		return h.Hint()
	}
	return def
}

// pendingNotices says which loaded bundles have an update pending review:
// their source changed since trust, and the reviewed snapshot is what
// loads. Only the sources' fingerprint records are read when they prove
// the source unchanged; nothing of a source is ever loaded.
func pendingNotices(opts Options, active []harness.ActiveBundle) []Notice {
	if len(active) == 0 {
		return nil
	}
	roots := bundle.Roots{Home: opts.Home, Workspace: opts.Workspace}
	m := lifecycle.New(roots, bundle.Limits{})
	var names []string
	for _, a := range active {
		names = append(names, a.Name)
	}
	d := bundle.DiscoverNamed(roots, bundle.Limits{}, names)
	var out []Notice
	for _, a := range active {
		for _, b := range d.Lookup(a.Name) {
			if b.ID != a.ID {
				continue
			}
			h, err := m.SourceHashes(b)
			switch {
			case err != nil:
				out = append(out, Notice{Bundle: a.Name, Loaded: true, Text: "update pending review: its source cannot be trusted as it is (" + err.Error() + "); the reviewed snapshot is what loads", Fix: "bundlectl review " + bundle.ShellArg(a.Name)})
			case h.Token() != a.Token:
				out = append(out, Notice{Bundle: a.Name, Loaded: true, Text: "update pending review: its source changed since it was trusted; the reviewed snapshot is what loads, not the change", Fix: "bundlectl review " + bundle.ShellArg(a.Name)})
			}
		}
	}
	return out
}

// Session holds what one launch puts in place for the agent beyond the
// views (a Gemini CLI home, a Codex marketplace link target), under
// views/sessions/<id>/, removed when the agent exits; a session whose
// bundlectl died is removed by the next launch.
type Session struct {
	viewsDir  string
	dir       string
	exclusive bool
}

// NewSession returns a session whose directory, made on first use, is
// under viewsDir/sessions.
func NewSession(viewsDir string) *Session { return &Session{viewsDir: viewsDir} }

// Exclusive reports whether the launch must keep the agent's own plugins
// out of the session (Options.Exclusive).
func (s *Session) Exclusive() bool { return s.exclusive }

// ViewsDir is the directory that holds every view, shared or of a
// session: what a host's own allow-list must admit.
func (s *Session) ViewsDir() string { return s.viewsDir }

// Dir creates the session directory on first use and returns it.
func (s *Session) Dir() (string, error) {
	if s.dir != "" {
		return s.dir, nil
	}
	sessions := filepath.Join(s.viewsDir, "sessions")
	if err := ensureContainers(s.viewsDir, sessions); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(sessions, "s-")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "pid"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	s.dir = dir
	return dir, nil
}

// Remove deletes the session directory.
func (s *Session) Remove() {
	if s.dir != "" {
		removeAll(s.dir)
		s.dir = ""
	}
}

// SweepSessions removes the session directories under viewsDir/sessions
// of launches whose bundlectl is gone (killed, so it could not remove its
// own: a view there can hold option values), as every launch does, and
// returns them. gc runs it, so that such a session does not wait for the
// next launch.
func SweepSessions(viewsDir string) []string { return (&Session{viewsDir: viewsDir}).sweep() }

// sweep removes the sessions of launches whose bundlectl is gone, and
// returns them.
func (s *Session) sweep() (removed []string) {
	sessions := filepath.Join(s.viewsDir, "sessions")
	ents, err := os.ReadDir(sessions)
	if err != nil {
		return nil
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "s-") {
			continue
		}
		dir := filepath.Join(sessions, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, "pid"))
		pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
		if err == nil && perr == nil && pid > 0 && syscall.Kill(pid, 0) != syscall.ESRCH {
			continue
		}
		if err != nil || perr != nil {
			// No pid yet: a launch may be between making the directory
			// and writing its pid, or between creating the pid file and
			// writing into it (it is empty then). Only an old one is
			// abandoned.
			fi, serr := os.Stat(dir)
			if (err != nil && !errors.Is(err, os.ErrNotExist)) || serr != nil || time.Since(fi.ModTime()) < time.Minute {
				continue
			}
		}
		removeAll(dir)
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			removed = append(removed, dir)
		}
	}
	return removed
}
