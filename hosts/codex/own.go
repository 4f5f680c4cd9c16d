package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/pelletier/go-toml/v2"
)

// testOnlySystemDir stands in for /etc/codex, where Codex reads the
// system config.toml and the managed_config.toml.
var testOnlySystemDir = "/etc/codex"

// OwnPlugin is a plugin of the user's own, installed with Codex itself,
// that Codex would load in the session beside the views.
type OwnPlugin struct {
	ID string // "<plugin>@<marketplace>", as config.toml names it
	// Managed is the managed_config.toml that enables it: that file
	// outranks the -c flags of the session, so it cannot be kept out.
	Managed string
	// File is the configuration file whose entry for it the merge took
	// last; "" when a -c flag set it after.
	File string
}

// OwnPlugins is what the user's own Codex configuration does with plugins
// in one session.
type OwnPlugins struct {
	// Load are the plugins Codex would load: installed in its plugin
	// cache and enabled, the configuration layers merged as Codex merges
	// them.
	Load []OwnPlugin
	// OnTrust are the plugins an interactive session would load beside
	// Load once the user answers Codex's "Trust this folder?" with "Trust
	// and continue": where no entry decides the project's trust, Codex
	// asks, saves the entry `codex exec --trust` saves, and reads the
	// project's files in that same session (internal/agenttest
	// TestExecCodexTrustDialog). Whether the user will say yes cannot be
	// known at launch.
	OnTrust []OwnPlugin
	// FeatureOnTrust is FeatureOn once the user trusts the folder: a
	// project file Codex then reads may turn the plugins feature on (or
	// off), and the OnTrust plugins load only with it on (Codex 0.171,
	// tried in a terminal: a project file's features.plugins = true over
	// the user's false loaded its plugin once the folder was trusted).
	FeatureOnTrust bool
	// Forced are the plugins a managed_config.toml enables, installed or
	// not (Codex may install a curated one itself at startup): no -c flag
	// keeps them out.
	Forced []OwnPlugin
	// Known are every plugin id any layer names, trusted (or read) or
	// not, and every plugin installed in the cache: what an exclusive
	// session disables.
	Known []string
	// Unread are the files Codex may read that bundlectl could not, each
	// with why; UnreadManaged is the managed_config.toml when it is one.
	Unread        []string
	UnreadManaged string
	// AtHead says the session runs in a new git worktree made from HEAD
	// (--worktree), whose project .codex/config.toml files, as
	// committed, Codex reads instead of the working copy's: bundlectl
	// does not read them, so the plugins they enable are in neither Load
	// nor OnTrust.
	AtHead bool
	// FeatureOn says whether the plugins feature is on for the session
	// as the user's configuration and arguments leave it (it is on by
	// default); exec turns it on when it loads views.
	FeatureOn bool
}

// FindOwnPlugins reads, as Codex 0.171 does, which plugins of the user's
// own a session started with args (the user's own arguments, after the
// program name) in the working directory cwd would load. Codex merges
// the [plugins."<id>"] tables of the files configLayers names for the
// profile --profile (-p) selects and the working directory (the one -C
// names, if any) — the system's, the user's, the profile's, and each
// trusted project file from the project root down — each over the one
// before, an entry without "enabled" counting as enabled; then the
// session's -c flags; then /etc/codex/managed_config.toml, which
// outranks them. A project file is read under the trust setup reads it
// under too: the first entry of its own directory's, the project
// root's and the git trust root's (projectTrust.trusts; Codex 0.171 read
// a trusted working directory's file in a git work tree whose top was
// not trusted, which bundlectl once left out, so exec did not name the
// plugin that file enabled); a `codex exec --trust` (or `codex review
// --trust`) session's, under the entry --trust saves before the session
// reads them (projectTrust.savedByTrustFlag: exec once read them as the
// saved configuration stood, and did not name a plugin such a file
// enabled, which loaded). Where an entry marks the project untrusted
// (trustFlagStops), or beside --ignore-user-config, --trust stops Codex,
// and Load is empty. `codex exec --ignore-user-config` reads neither the
// user's config.toml nor the profile's file, nor takes their projects
// entries' trust (exec once named the plugins config.toml enabled as
// loading there; internal/agenttest TestExecCodexIgnoreUserConfig): their
// plugins count in Known alone. Where Codex would not start at all
// because -C names no path the system can look up (cdDir), no project
// file is read, Load is empty and Unread names the -C directory: exec
// then says so instead of naming plugins of a session that never runs
// (it once named those config.toml enables).
//
// A subcommand that starts no session (noSessionCommands, debug models,
// or -h, --help, -V, --version) loads nothing: Load and OnTrust are empty, Known, Forced
// and Unread as for a session.
//
// A plugin loads when the merge leaves it enabled and a version of it is
// installed in $CODEX_HOME/plugins/cache/<marketplace>/<plugin>/.
func FindOwnPlugins(codexHome, cwd string, args []string) OwnPlugins {
	o := sessionArgs(args)
	out := ownPlugins(codexHome, cwd, args, o)
	out.FeatureOnTrust = out.FeatureOn
	out.AtHead = o.worktree && !o.noSession
	if o.noSession {
		// Nothing loads; Known, Forced and Unread stay, so that an
		// exclusive start is refused or disables as any other.
		out.Load = nil
		return out
	}
	if !o.asksTrust || o.trustFlag {
		return out
	}
	// "Trust and continue" saves what --trust saves, where no entry
	// decides (where one does, Codex does not ask, and the files are read
	// as they are now).
	answered := o
	answered.trustFlag = true
	trusted := ownPlugins(codexHome, cwd, args, answered)
	out.FeatureOnTrust = trusted.FeatureOn
	for _, p := range trusted.Load {
		if !slices.ContainsFunc(out.Load, func(q OwnPlugin) bool { return q.ID == p.ID }) {
			out.OnTrust = append(out.OnTrust, p)
		}
	}
	return out
}

// ownPlugins is FindOwnPlugins for the session o reads args as, without
// OnTrust.
func ownPlugins(codexHome, cwd string, args []string, o sessionOpts) OwnPlugins {
	var out OwnPlugins
	cwd = startedIn(cwd)
	stops := false // Codex does not start: nothing loads
	if o.dir != "" {
		var err error
		if cwd, err = cdDir(cwd, o.dir); err != nil {
			// No session starts, so no project file is read: say so
			// rather than name what one would enable.
			stops = true
			out.Unread = append(out.Unread, bundle.Quote(o.dir)+" (the -C directory: "+err.Error()+"; Codex does not start there)")
		}
	}
	managed := filepath.Join(testOnlySystemDir, "managed_config.toml")
	docs := map[string]map[string]any{}
	read := func(file string) map[string]any {
		if d, ok := docs[file]; ok {
			return d
		}
		d, err := readTOML(file)
		if err != nil {
			// A parse error may quote the file, which can hold secrets.
			why := "not valid TOML"
			var pe *fs.PathError
			if errors.As(err, &pe) {
				why = pe.Err.Error()
			}
			out.Unread = append(out.Unread, bundle.Quote(file)+" ("+why+")")
			if file == managed {
				out.UnreadManaged = file
			}
		}
		docs[file] = d
		return d
	}
	layers := append(configLayers(codexHome, cwd, flagsDoc(args), o), configLayer{file: managed, managed: true})

	type state struct {
		enabled bool
		managed string
		file    string // the layer that set it last; "" for a -c flag
	}
	merged := map[string]*state{}
	known := map[string]bool{}
	out.FeatureOn = true
	for _, l := range layers {
		if l.managed {
			// The session's -c flags: the user's own, exec's refused
			// ones (PluginArgError) left out.
			if on, ok := pluginsFeatureArg(args); ok {
				out.FeatureOn = on
			}
			for _, a := range expandTables(PluginArgs(args)) {
				if a.ID == "" || a.session() {
					continue
				}
				known[a.ID] = true
				s := merged[a.ID]
				if s == nil {
					s = &state{enabled: true}
					merged[a.ID] = s
				}
				s.enabled, s.file = a.enables(s.enabled), ""
			}
		}
		skipped := l.untrusted || l.ignored || l.atHead // read for Known alone
		doc := map[string]any(nil)
		if l.ignored {
			doc, _ = readTOML(l.file) // Codex does not read it: none unread
		} else {
			doc = read(l.file)
		}
		if features, ok := doc["features"].(map[string]any); ok && !skipped {
			if on, ok := features["plugins"].(bool); ok {
				out.FeatureOn = on
			}
		}
		plugins, _ := doc["plugins"].(map[string]any)
		for id, v := range plugins {
			known[id] = true
			if skipped {
				continue
			}
			s := merged[id]
			if s == nil {
				s = &state{enabled: true}
				merged[id] = s
			}
			if t, ok := v.(map[string]any); ok {
				if e, ok := t["enabled"].(bool); ok {
					s.enabled = e
				}
			}
			s.file = l.file
			if l.managed {
				s.managed = l.file
			}
		}
	}
	// requirements.toml pins a feature above every layer and flag.
	req, _ := readTOML(filepath.Join(testOnlySystemDir, "requirements.toml"))
	for _, table := range []string{"feature_requirements", "features"} {
		if features, ok := req[table].(map[string]any); ok {
			if on, ok := features["plugins"].(bool); ok {
				out.FeatureOn = on
			}
		}
	}
	installed := installedPlugins(filepath.Join(codexHome, "plugins", "cache"))
	for _, id := range installed {
		known[id] = true
	}
	for id, s := range merged {
		if !s.enabled {
			continue
		}
		p := OwnPlugin{ID: id, Managed: s.managed, File: s.file}
		if p.Managed != "" {
			out.Forced = append(out.Forced, p)
		}
		if slices.Contains(installed, id) {
			out.Load = append(out.Load, p)
		}
	}
	// Codex also stops where --trust meets an untrusted entry, or
	// --ignore-user-config ("--trust cannot be combined with
	// --ignore-user-config"). With no session nothing loads, the user's
	// own files' plugins neither.
	if stops || o.trustFlag && (o.ignoreUserConfig || trustFlagStops(codexHome, cwd, flagsDoc(args), o)) {
		out.Load = nil
	}
	byID := func(a, b OwnPlugin) int { return strings.Compare(a.ID, b.ID) }
	slices.SortFunc(out.Load, byID)
	slices.SortFunc(out.Forced, byID)
	for id := range known {
		out.Known = append(out.Known, id)
	}
	sort.Strings(out.Known)
	return out
}

// utf8BOM is the UTF-8 byte order mark Codex's TOML parser skips: a
// leading one is skipped by readTOML, as Codex 0.171's TOML parser skips
// it (a trusted project's features.hooks = false behind one ran no hook:
// internal/agenttest TestSetupCodexConfigSpellings), and go-toml refuses
// the file.
var utf8BOM = []byte("\xef\xbb\xbf")

// errNotRegular is why readTOML reads no file that is not a regular one
// (or a link to one).
var errNotRegular = errors.New("not a regular file")

// readTOML reads a TOML file as Codex reads it; a file that does not
// exist is empty. One that is not a regular file (a named pipe, a link to
// a device) is not opened: a project's tree can hold one, and reading it
// would wait forever on the pipe or read the device until memory ran out.
func readTOML(file string) (map[string]any, error) {
	fi, err := os.Stat(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "read", Path: file, Err: errNotRegular}
	}
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parseTOML(data)
}

// parseTOML parses a configuration file's text as readTOML does.
func parseTOML(data []byte) (map[string]any, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// installedPlugins lists "<plugin>@<marketplace>" for each plugin with a
// version directory in Codex's plugin cache. Codex 0.171 follows a
// symbolic link for a marketplace or a plugin directory, and loads the
// plugin there, but not for a version directory (internal/agenttest
// TestExecCodexOwnPluginLinked: exec once left out every link, and did not
// name such a plugin, which loaded); so does this. A session's marketplace
// (sessionMarketplace) is left out; a directory or link whose name merely
// begins as a session's ("bundlectl-mine") is the user's own, whose
// plugins Codex loads (TestExecCodexOwnMarketplaceNamedLikeASession: exec
// once left every such name out, and did not name a plugin that loaded).
func installedPlugins(cache string) []string {
	var out []string
	markets, _ := os.ReadDir(cache)
	for _, m := range markets {
		if !pluginSegment(m.Name()) || !isDir(filepath.Join(cache, m.Name())) || sessionMarketplace(cache, m.Name()) {
			continue
		}
		plugins, _ := os.ReadDir(filepath.Join(cache, m.Name()))
		for _, p := range plugins {
			if !pluginSegment(p.Name()) || !isDir(filepath.Join(cache, m.Name(), p.Name())) {
				continue
			}
			versions, _ := os.ReadDir(filepath.Join(cache, m.Name(), p.Name()))
			for _, v := range versions {
				if v.IsDir() { // a link is not: Codex does not load one
					out = append(out, p.Name()+"@"+m.Name())
					break
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// isDir reports whether path is a directory, or a link to one.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// sessionMarketplace reports whether the entry name of Codex's plugin
// cache is a session's marketplace: the link Launch makes, named for its
// session directory ("bundlectl-<id>" for "s-<id>"), to that directory's
// codex-marketplace. A directory, or a link elsewhere, is the user's own,
// whatever its name.
func sessionMarketplace(cache, name string) bool {
	if !strings.HasPrefix(name, Marketplace) {
		return false
	}
	target, err := os.Readlink(filepath.Join(cache, name))
	if err != nil {
		return false
	}
	session := filepath.Base(filepath.Dir(target))
	return filepath.Base(target) == sessionMarket && strings.HasPrefix(session, "s-") && Marketplace+strings.TrimPrefix(session, "s-") == name
}

// pluginSegment reports whether s can be the plugin or marketplace part of
// a Codex plugin id: ASCII letters, digits, '-' and '_'.
func pluginSegment(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// cdDir is the working directory of a Codex 0.171 session started in
// cwd with -C dir: dir, relative to cwd, cleaned as a path (a symbolic
// link in it kept, and "<link>/.." dropped as a whole). Codex first
// looks dir up as the system resolves it, though, and does not start
// when that fails: a link loop or a missing directory on the way, even
// one a ".." then leaves ("Error: Symbolic link loop (os error 40)";
// internal/agenttest TestCodexProjectCases). Then cdDir returns "" and
// why.
func cdDir(cwd, dir string) (string, error) {
	given := dir
	if !filepath.IsAbs(dir) {
		// Not filepath.Join: the system resolves each step as written.
		given = cwd + string(filepath.Separator) + dir
	}
	if _, err := os.Stat(given); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", err
	}
	// A file will do: Codex starts there, and finds no project file in
	// it.
	return filepath.Clean(given), nil
}

// sessionOpts is what of the user's own arguments decides which
// configuration files a session reads (sessionArgs).
type sessionOpts struct {
	profile string // --profile (-p)
	dir     string // --cd (-C)
	// trustFlag: the --trust of `codex exec` (or `e`) or `codex review`,
	// which saves the project's trust before the session reads its files.
	trustFlag bool
	// ignoreUserConfig: the --ignore-user-config of `codex exec` (or
	// `e`, `exec review`, `exec resume`), beside which the session reads
	// neither the user's config.toml nor the profile's file.
	ignoreUserConfig bool
	// asksTrust: the session is an interactive one (no exec, e or review
	// first), which asks whether to trust a project no entry decides
	// for, and once trusted reads its files.
	asksTrust bool
	// worktree: the --worktree of a session, which Codex 0.171 runs in a
	// new git worktree made from HEAD (under $CODEX_HOME/worktrees),
	// reading the project files committed there, not the working copy's.
	worktree bool
	// noSession: the arguments start no session that loads plugins (a
	// subcommand of noSessionCommands first, or -h, --help, -V,
	// --version): Codex does its errand and exits.
	noSession bool
}

// noSessionCommands are the subcommands of Codex 0.171 (codex --help)
// that start no agent session of their own, so load no plugin: each was
// run with a throw-away CODEX_HOME and did its errand without a model
// (apply and a fetch a Codex Cloud task's diff; queue hands a message to
// a session already running elsewhere, and counts as a session when
// given --resume, which its help says resumes that thread on the local
// daemon, untried). Any other first word (exec, e, review, resume,
// fork, a prompt, and agents, cloud, app-server, remote-control and
// exec-server, which serve or switch between sessions) is taken to start one, so that a mistaken reading names more
// plugins, never fewer. debug is not one of them: `codex debug app-server
// send-message-v2 MESSAGE` starts a thread and runs a turn that calls the
// model (tried with Codex 0.171), and `debug prompt-input` renders the
// session's prompt, so debug counts as a session — but for `debug
// models` (sessionArgs), which renders the model catalog and starts no
// session: Codex 0.171 started no MCP server of config.toml for it,
// where `codex exec` did, given --bundled or refreshing the catalog
// from a model API that did not answer.
var noSessionCommands = map[string]bool{
	"login": true, "logout": true, "mcp": true, "plugin": true, "completion": true,
	"update": true, "doctor": true, "sandbox": true, "apply": true, "a": true,
	"queue": true, "archive": true, "delete": true, "unarchive": true, "migrate-rollouts": true,
	"migrate-nfs-db": true, "features": true, "help": true,
}

// sessionArgs returns what of the user's own arguments decides which
// configuration files a session reads: the profile (--profile, -p) and
// the working directory (--cd, -C) they name, the last of each winning,
// and whether they hold the --trust of `codex exec` (or `e`) or `codex
// review` (internal/agenttest TestCodexReviewTrustFlag: `codex review
// --trust`, once read as no --trust, loaded a project file's plugin
// unnamed) and the --ignore-user-config of `codex exec` (or `e`). After
// another first word, such as an interactive session's prompt, or
// before any, Codex 0.171 refuses either ("unexpected argument") and
// does not start; it is then not taken, so that a mistaken reading of
// the arguments names more plugins, never fewer. A session whose first
// word is none of exec, e and review is an interactive one, which may
// ask whether to trust the project (asksTrust; a subcommand Codex may
// run a session under, such as resume, fork or app-server, counts too,
// for the same reason). A subcommand of noSessionCommands, or -h,
// --help, -V or --version, starts no session (noSession; codex login
// once counted as interactive, and exec named plugins as loading beside
// it), and so does debug models. -i (--image) takes a list where
// imageList says so, else one value. --worktree runs the session in a new worktree made from HEAD
// (worktree). Arguments after "--" are the prompt's.
func sessionArgs(args []string) (o sessionOpts) {
	first := ""     // the first argument that is no option: the subcommand, or the prompt
	second := ""    // the next: a subcommand's own (exec resume, debug models), or a word of the prompt
	resume := false // queue's --resume
	defer func() {
		o.asksTrust = first != "exec" && first != "e" && first != "review"
		// queue --resume resumes the thread it queued for on the local
		// daemon, or one it starts (codex queue --help: "Local server
		// options": -C "Tell the agent to use the specified directory as
		// its working root"): taken as a session (untried).
		o.noSession = o.noSession || noSessionCommands[first] && !(first == "queue" && resume) ||
			first == "debug" && second == "models"
	}()
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case a == "--":
			return
		case a == "-p" || a == "--profile":
			o.profile = next()
		case strings.HasPrefix(a, "--profile="):
			o.profile = a[len("--profile="):]
		case strings.HasPrefix(a, "-p") && len(a) > 2:
			o.profile = strings.TrimPrefix(a[2:], "=")
		case a == "-C" || a == "--cd":
			o.dir = next()
		case strings.HasPrefix(a, "--cd="):
			o.dir = a[len("--cd="):]
		case strings.HasPrefix(a, "-C") && len(a) > 2:
			o.dir = strings.TrimPrefix(a[2:], "=")
		case a == "--trust":
			o.trustFlag = first == "exec" || first == "e" || first == "review"
		case a == "--ignore-user-config":
			o.ignoreUserConfig = first == "exec" || first == "e"
		case a == "-h" || a == "--help" || a == "-V" || a == "--version":
			o.noSession = true
		case a == "--worktree":
			o.worktree = true
		case a == "--resume":
			resume = true
		case (a == "-i" || a == "--image") && imageList(first, second):
			// Codex 0.171 takes each word up to the next option as one
			// more image: `codex -i a.png exec` is an interactive session
			// (which asks whether to trust the folder) with two images
			// (internal/agenttest TestExecCodexTrustDialogImageArgs).
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
			}
		case takesValue(a):
			next() // a value that could read as a flag
		case first == "" && !strings.HasPrefix(a, "-"):
			first = a
		case second == "" && !strings.HasPrefix(a, "-"):
			second = a
		}
	}
	return
}

// imageList reports whether -i (--image) of the command first second
// (the first two words of the arguments that are no option) takes every
// word up to the next option, as the help of Codex 0.171 shows it
// (<FILE>...) for codex, exec, resume and fork, and not one word
// (<FILE>) as for exec resume and exec fork (testdata/codex_options.txt,
// which internal/agenttest TestCodexHelpOptions checks against the real
// help). exec resume's was once read as a list.
func imageList(first, second string) bool {
	return !((first == "exec" || first == "e") && (second == "resume" || second == "fork"))
}

// takesValue reports whether a is a Codex option whose value is the
// next argument: every one the help of Codex 0.171 and of its
// subcommands that start a session shows with a <VALUE>
// (testdata/codex_options.txt, which internal/agenttest
// TestCodexHelpOptions checks against the real help). --remote was once
// missing, so `codex --remote ADDR exec` read ADDR as the prompt of an
// interactive session.
func takesValue(a string) bool {
	switch a {
	case "-c", "--config", "-m", "--model", "-s", "--sandbox", "-a", "--ask-for-approval", "-i", "--image",
		"--enable", "--disable", "--output-schema", "-o", "--output-last-message", "--color", "--add-dir",
		"--local-provider", "-p", "--profile", "-C", "--cd", "--remote", "--remote-auth-token-env",
		"--thread-source", "--cyber-access-program", "--base", "--commit", "--title":
		return true
	}
	return false
}

// pluginsFeatureArg returns what the user's own arguments set the plugins
// feature to, the last setting winning, and whether they set it.
func pluginsFeatureArg(args []string) (on, set bool) {
	for i := 0; i < len(args) && args[i] != "--"; i++ {
		var kv, flag string
		kv, flag, i = configArg(args, i)
		switch strings.TrimSpace(flag) {
		case "--enable=plugins":
			on, set = true, true
		case "--disable=plugins":
			on, set = false, true
		}
		if k, v, ok := strings.Cut(kv, "="); ok && configKey(k) == "features.plugins" {
			on, set = strings.TrimSpace(v) == "true", true
		}
	}
	return
}

// ManagedFeatureOff returns the setting of /etc/codex/managed_config.toml
// that would keep the session's views (features.plugins = false) or their
// hooks (features.hooks = false, when hooks is set) from loading, and ""
// when it sets neither: that file outranks the -c flags exec turns both
// on with. A file that cannot be read sets nothing (Codex does not start
// on a managed file it cannot parse).
func ManagedFeatureOff(hooks bool) (file, setting string) {
	file = filepath.Join(testOnlySystemDir, "managed_config.toml")
	doc, _ := readTOML(file)
	features, _ := doc["features"].(map[string]any)
	return file, featureOff(features, "features", hooks)
}

// RequirementsOff returns the setting of /etc/codex/requirements.toml that
// would keep the session's views or their hooks (when hooks is set) from
// running, and "" when it sets none. Codex 0.171 reads that file as
// constraints no configuration layer or -c flag can lift, and starts
// without a word on what they turn off:
//
//   - [features] (or its alias [feature_requirements]) plugins = false
//     pins the plugins feature off: no view loads;
//   - the same with hooks = false pins the hooks feature off;
//   - allow_managed_hooks_only = true runs only the hooks managed files
//     declare, a plugin's never.
//
// A file that cannot be read or parsed sets nothing: Codex does not start
// on it. (Cloud requirements, which come with a ChatGPT sign-in, and the
// macOS MDM profile are out of bundlectl's sight.)
func RequirementsOff(hooks bool) (file, setting string) {
	file = filepath.Join(testOnlySystemDir, "requirements.toml")
	doc, _ := readTOML(file)
	for _, table := range []string{"features", "feature_requirements"} {
		features, _ := doc[table].(map[string]any)
		if setting := featureOff(features, table, hooks); setting != "" {
			return file, setting
		}
	}
	if only, ok := doc["allow_managed_hooks_only"].(bool); ok && only && hooks {
		return file, "allow_managed_hooks_only = true"
	}
	return file, ""
}

// RequirementsMCPOff returns /etc/codex/requirements.toml and the first
// plugin (sorted) whose [plugins."<id>".mcp_servers] list is not empty,
// plugin "" when there is none. Codex 0.171 then starts only the MCP
// servers of plugins that list them, each with its identity, and no
// server of a plugin without a list, silently: a view's plugin id names a
// session marketplace made at launch, which no such file lists. (The
// top-level [mcp_servers] list applies to the configuration files'
// servers, not to a plugin's.) A file that cannot be read or parsed sets
// nothing: Codex does not start on it.
func RequirementsMCPOff() (file, plugin string) {
	file = filepath.Join(testOnlySystemDir, "requirements.toml")
	doc, _ := readTOML(file)
	plugins, _ := doc["plugins"].(map[string]any)
	ids := make([]string, 0, len(plugins))
	for id := range plugins {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		p, _ := plugins[id].(map[string]any)
		if servers, _ := p["mcp_servers"].(map[string]any); len(servers) > 0 {
			return file, id
		}
	}
	return file, ""
}

// viewServers returns the names of the MCP servers of a view, sorted.
func viewServers(dir string) []string {
	data, err := os.ReadFile(filepath.Join(dir, Version, ".mcp.json"))
	if err != nil {
		return nil
	}
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	names := make([]string, 0, len(doc.MCPServers))
	for n := range doc.MCPServers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// featureOff names the entry of a features table that turns the plugins
// feature off, or the hooks feature when hooks is set, and "" for none.
func featureOff(features map[string]any, table string, hooks bool) string {
	if on, ok := features["plugins"].(bool); ok && !on {
		return table + ".plugins = false"
	}
	if on, ok := features["hooks"].(bool); ok && !on && hooks {
		return table + ".hooks = false"
	}
	return ""
}

// ownNote names a plugin of the user's own that loads beside the views.
func ownNote(p OwnPlugin) string {
	if p.Managed != "" {
		return fmt.Sprintf("codex: your own plugin %s loads beside the views, never reviewed by bundlectl (%s enables it, above anything a session can set)", bundle.Quote(p.ID), bundle.Quote(p.Managed))
	}
	return fmt.Sprintf("codex: your own plugin %s loads beside the views, never reviewed by bundlectl (bundlectl exec --exclusive -- codex keeps it out)", bundle.Quote(p.ID))
}

// remoteNote says that a session given --remote (arg, as written) runs
// in an app server under that server's own configuration, which
// bundlectl does not read: `codex exec --remote ADDR` with Codex 0.171
// started the MCP server of the app server's config.toml, not that of
// the CODEX_HOME it was itself given, nor loaded the plugin that one
// enabled (internal/agenttest TestExecCodexRemoteOwnPlugins, a local
// `codex app-server --listen ws://127.0.0.1:0`). The plugins this
// configuration would load (own, Load and OnTrust) load there only if
// the server reads it, as one started with the same CODEX_HOME does; they
// are named with that condition, and any other goes unnamed, which the
// note says. The argument is named with the password of its URL
// redacted (Codex 0.171 takes ws://user:password@host:port).
func remoteNote(arg string, own OwnPlugins) string {
	note := fmt.Sprintf("codex: the argument %s runs the session in that app server, under the server's own configuration, which bundlectl does not read: a plugin of your own it enables may load unnamed, never reviewed by bundlectl", bundle.Quote(bundle.RedactTokens(arg)))
	var ids []string
	for _, p := range slices.Concat(own.Load, own.OnTrust) {
		if !slices.Contains(ids, bundle.Quote(p.ID)) {
			ids = append(ids, bundle.Quote(p.ID))
		}
	}
	if len(ids) > 0 {
		note += fmt.Sprintf(" (this configuration enables %s, which load%s there if the server reads it)", strings.Join(ids, ", "), map[bool]string{true: "s", false: ""}[len(ids) == 1])
	}
	return note
}

// atHeadNote says that the plugins of the user's own a project file
// committed at HEAD enables go unnamed: a --worktree session reads those
// files, which bundlectl does not.
func atHeadNote() string {
	return "codex: --worktree runs the session in a new git worktree made from HEAD, whose committed .codex/config.toml files bundlectl does not read (it reads this working copy's): a plugin of your own they enable may load beside the views unnamed, never reviewed by bundlectl (bundlectl exec --exclusive -- codex keeps every one out)"
}

// onTrustNote names a plugin of the user's own that a project file
// enables, which loads beside the views once the user trusts the folder
// when Codex asks.
func onTrustNote(p OwnPlugin) string {
	file := "a project's .codex/config.toml"
	if p.File != "" {
		file = bundle.Quote(p.File)
	}
	return fmt.Sprintf("codex: your own plugin %s loads beside the views if you answer \"Trust and continue\" when Codex asks whether to trust this folder (%s enables it), never reviewed by bundlectl (bundlectl exec --exclusive -- codex keeps it out)", bundle.Quote(p.ID), file)
}

// exclusiveError refuses an exclusive session a managed_config.toml would
// load a plugin into.
func exclusiveError(p OwnPlugin) error {
	return &hosts.NotExclusiveError{
		Host:   "codex",
		Plugin: p.ID,
		Source: p.Managed,
		Why:    "a managed configuration outranks the -c flags that keep the others out",
		Fix:    "have it disabled there, or start without --exclusive, which names it",
	}
}

// PluginArg is a -c override of the user's own whose key is under
// plugins. Codex 0.171 trims the key, splits it on dots and takes each
// part as written, quotes and spaces included (tried: -c
// 'plugins."a@m".enabled=true' names a plugin "\"a@m\"", and -c
// 'plugins. a@m .enabled=true' one " a@m ", neither of which ever loads,
// nor does -c 'plugins."a@m".enabled=false' disable a@m; -c
// plugins.a@m.enabled=true enables a@m: agenttest TestCodexPluginArgs),
// and applies the overrides in order, each replacing the
// value at its key: a later -c plugins={…} replaces an earlier one
// whole, while -c plugins.<id>…=… changes that entry alone.
type PluginArg struct {
	Arg   string // as given: "-c KEY=VALUE"
	ID    string // the plugin the key names; "" for the whole table
	Sub   string // the key below the plugin's entry ("enabled"); "" for the entry
	Value string
	At    []int // its indexes in the arguments, its value's too
}

// pluginID reports whether id is a plugin id Codex 0.171 can load:
// <plugin>@<marketplace>, each of ASCII letters, digits, "_" and "-" (its
// PluginId). An entry under any other key, such as "\"a@m\"" from -c
// 'plugins."a@m".enabled=true', enables or disables nothing.
func pluginID(id string) bool {
	name, market, ok := strings.Cut(id, "@")
	segment := func(s string) bool {
		return s != "" && strings.IndexFunc(s, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
		}) < 0
	}
	return ok && segment(name) && segment(market)
}

// session reports whether the argument names a plugin of a bundlectl
// session marketplace: a view.
func (a PluginArg) session() bool {
	_, market, _ := strings.Cut(a.ID, "@")
	return strings.HasPrefix(market, Marketplace)
}

// enables returns whether the plugin's entry is enabled after the
// argument, was its state before. A value Codex could not read as a
// plugin's entry counts as enabling: Codex either does not start on it
// or reads it in a way bundlectl does not follow.
func (a PluginArg) enables(was bool) bool {
	var doc map[string]any
	if toml.Unmarshal([]byte("v = "+a.Value), &doc) != nil {
		return true
	}
	switch a.Sub {
	case "":
		t, ok := doc["v"].(map[string]any)
		if !ok {
			return true
		}
		e, ok := t["enabled"]
		return !ok || e != false
	case "enabled":
		return doc["v"] != false
	}
	return was
}

// PluginArgs returns the user's own -c overrides under plugins, in order;
// arguments after "--" are the prompt's.
func PluginArgs(args []string) []PluginArg {
	var out []PluginArg
	for i := 0; i < len(args) && args[i] != "--"; i++ {
		var kv string
		from := i
		kv, _, i = configArg(args, i)
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		parts := strings.Split(configKey(k), ".")
		if parts[0] != "plugins" { // "plugins" is a table Codex does not read
			continue
		}
		a := PluginArg{Arg: "-c " + kv, Value: strings.TrimSpace(v)}
		for j := from; j <= i; j++ {
			a.At = append(a.At, j)
		}
		if len(parts) > 1 {
			// As written, as Codex keys its table: "a@m" with its quotes,
			// or " a@m ", names no plugin that can load.
			a.ID = parts[1]
			a.Sub = strings.Join(parts[2:], ".")
		}
		out = append(out, a)
	}
	return out
}

// expandTables turns each whole-table argument (-c plugins={…}) into one
// entry argument per plugin it names, as the -c layer merges over the
// configuration files.
func expandTables(args []PluginArg) []PluginArg {
	var out []PluginArg
	for _, a := range args {
		if a.ID != "" {
			out = append(out, a)
			continue
		}
		var doc map[string]any
		if toml.Unmarshal([]byte("v = "+a.Value), &doc) != nil {
			continue
		}
		t, _ := doc["v"].(map[string]any)
		ids := make([]string, 0, len(t))
		for id := range t {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			out = append(out, PluginArg{Arg: a.Arg, ID: id, Value: InlineTOML(tomlValue(t[id])), At: a.At})
		}
	}
	return out
}

// tomlValue keeps the parts of a parsed TOML value InlineTOML writes (a
// plugin entry's enabled switch and tables); anything else is an empty
// table, which Codex reads as an enabled entry.
func tomlValue(v any) any {
	t, ok := v.(map[string]any)
	if !ok {
		return map[string]any{}
	}
	out := map[string]any{}
	if e, ok := t["enabled"].(bool); ok {
		out["enabled"] = e
	} else if _, ok := t["enabled"]; ok {
		out["enabled"] = "?"
	}
	return out
}

// PluginArgError refuses the user's own -c plugins… arguments that exec
// cannot start Codex with (a usage error, exit 2), and returns nil when
// there is none:
//
//   - the whole table (-c plugins=…) when exec passes one (it loads
//     views, or exclusive is set): it would replace exec's own -c plugins
//     table and with it every view (and, under --exclusive, the entries
//     that keep the user's own plugins out);
//   - an entry of a bundlectl session marketplace: a view's;
//   - under --exclusive, one that leaves a plugin of the user's own
//     enabled, over the entry that keeps it out.
func PluginArgError(args []string, exclusive, views bool) error {
	fix := "bundlectl exec -- codex"
	if exclusive {
		fix = "bundlectl exec --exclusive -- codex"
	}
	enabled := map[string]bool{} // under --exclusive every plugin starts out disabled
	last := map[string]PluginArg{}
	at := map[string][]int{} // every argument that sets the plugin: the hint leaves them all out
	var order []string
	for _, a := range PluginArgs(args) {
		switch {
		case a.ID != "" && !pluginID(a.ID):
			continue // names no plugin Codex can load, nor a view
		case a.ID == "" && !exclusive && !views:
			continue
		case a.ID == "":
			return &hosts.ArgumentError{
				Err:  fmt.Errorf("codex: the argument %s replaces the whole plugins table, and with it the -c plugins table exec loads the bundle views with, so no view would load: set one plugin's entry instead (-c plugins.<plugin>@<marketplace>.enabled=true)", bundle.Quote(a.Arg)),
				Fix:  fix,
				Args: a.At,
			}
		case a.session():
			return &hosts.ArgumentError{
				Err:  fmt.Errorf("codex: the argument %s sets a plugin of a bundlectl session marketplace, a bundle view exec loads as reviewed: leave it out", bundle.Quote(a.Arg)),
				Fix:  fix,
				Args: a.At,
			}
		}
		if _, seen := last[a.ID]; !seen {
			order = append(order, a.ID)
		}
		enabled[a.ID], last[a.ID] = a.enables(enabled[a.ID]), a
		at[a.ID] = append(at[a.ID], a.At...)
	}
	for _, id := range order {
		if exclusive && enabled[id] {
			return &hosts.ArgumentError{
				Err:  fmt.Errorf("codex: the argument %s enables your own plugin %s, which --exclusive keeps out of the session (bundlectl never reviewed it): leave it out, or start without --exclusive to load it beside the views", bundle.Quote(last[id].Arg), bundle.Quote(id)),
				Fix:  fix,
				Args: at[id],
			}
		}
	}
	return nil
}
