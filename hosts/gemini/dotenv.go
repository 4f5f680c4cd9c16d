package gemini

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/hosts"

	"github.com/bundlectl/bundlectl/internal/jsspace"
)

// dotEnv is the .env file Gemini CLI 0.61 loads into its environment
// (loadEnvironment) once it has read its settings, and what that makes of
// the environment exec decides by. Of the variables exec reads, only
// GEMINI_SANDBOX and SANDBOX are read by Gemini CLI after the file is
// loaded (loadSandboxConfig, main), and so can come from it; the settings
// paths (GEMINI_CLI_SYSTEM_SETTINGS_PATH, GEMINI_CLI_SYSTEM_DEFAULTS_PATH),
// the $VAR references in settings values and
// GEMINI_CLI_TRUSTED_FOLDERS_PATH are read while the settings load,
// before it (the rules file, once read, is kept). The folder trust
// variables GEMINI_CLI_TRUST_WORKSPACE and GEMINI_RESTRICTED_MODE are
// read then too, which file loads and how much of it; but read again
// afterwards, the file's count there (dotEnvUntrusts). exec always sets
// GEMINI_CLI_HOME (which Gemini CLI takes
// over HOME), and a .env never overrides a variable that is set, as PATH
// is where exec runs (without one the file's PATH is not read: a gap).
//
// Which file Gemini CLI loads, and how much of it, depends on the folder's
// trust when it loads (untrusted: no .gemini/.env, and only the API key
// variables of a .env), on --ignore-env and advanced.ignoreLocalEnv, and
// on advanced.excludedEnvVars; an interactive session may trust the
// folder and start itself again, loading the whole file. So a refusal
// reads what the file may set (may), and letting a launch through what it
// surely sets (sure).
type dotEnv struct {
	env  map[string]bool // the variables the environment sets, even empty
	sets []dotEnvPick    // the file each pick Gemini CLI may make loads
	// trusted: the folder is trusted when Gemini CLI loads the file, so
	// the whole file loads.
	trusted bool
	// distrusted: the folder is surely not trusted whenever Gemini CLI
	// loads the file, so only the API key variables load (distrusts).
	distrusted bool
	user, cwd  string
	environ    []string // the environment itself
	args       []string
	// sessions is the directory exec makes the session's Gemini CLI
	// home in, "" for none: there Gemini CLI reads the user's home .env
	// through the session home's link, at a path of that directory.
	sessions string
}

// readAsProject reports whether Gemini CLI may read the .env file f at a
// path that holds no ".gemini", so that advanced.excludedEnvVars may
// apply: not the user's home .env read through a session home whose path
// holds one (Gemini CLI tests the path as it is written: homedir() joined
// with .env).
func (d *dotEnv) readAsProject(f string) bool {
	return d.sessions == "" || f != filepath.Join(filepath.Dir(d.user), ".env") || !strings.Contains(d.sessions, ".gemini")
}

// dotEnvPick is one .env file Gemini CLI could pick, and its variables.
type dotEnvPick struct {
	file string
	vars map[string]string
}

// loadDotEnv reads the .env files Gemini CLI could load in cwd, with env
// its environment, args its arguments and user the user's Gemini CLI
// directory.
func loadDotEnv(user string, env, args []string, cwd string) *dotEnv {
	d := &dotEnv{env: map[string]bool{}, trusted: trustsFolderAtLoad(user, env, cwd), distrusted: distrusts(user, env, args, cwd), user: user, cwd: cwd, environ: env, args: args}
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok {
			d.env[k] = true
		}
	}
	for _, ignore := range dotEnvPicks(user, env, args, cwd) {
		p := dotEnvPick{file: findEnvFile(cwd, user, "", ignore)}
		if p.file != "" {
			p.vars = dotEnvParse(p.file)
		}
		d.sets = append(d.sets, p)
	}
	return d
}

// dotEnvPicks are the ways Gemini CLI may pick its .env file, as
// findEnvFile's ignoreLocal: false, and true too when --ignore-env (before
// "--") or advanced.ignoreLocalEnv in any settings layer may make it skip
// a folder's .env (ignoreLocalMayBeOn): the settings of a session started
// in cwd, whose workspace's are read, not those of the directory
// bundlectl runs in (setup --workspace elsewhere: TestGeminiIgnoreEnvHome).
func dotEnvPicks(user string, env, args []string, cwd string) []bool {
	ignoreLocal := slices.Contains(args[:dashDash(args)], "--ignore-env")
	for _, f := range settingsLayersAt(user, cwd, env) {
		m, err := hosts.ReadSettings(f)
		if err != nil || m == nil {
			continue
		}
		adv, _ := m["advanced"].(map[string]any)
		if v, ok := adv["ignoreLocalEnv"]; ok && ignoreLocalMayBeOn(v, env) {
			ignoreLocal = true
		}
	}
	if ignoreLocal {
		return []bool{false, true}
	}
	return []bool{false}
}

// ignoreLocalMayBeOn reports whether Gemini CLI 0.61 may read v, an
// advanced.ignoreLocalEnv value, as on: it tests the merged value's
// JavaScript truth (!!settings.advanced?.ignoreLocalEnv), and a string
// becomes a boolean only when the whole settings file it is in passes
// Gemini CLI's schema ("false" in any case then false), which bundlectl
// does not check: a file that fails it anywhere (an excludedEnvVars of 5,
// a key of another type) is used as written, with only a warning, and
// the string "false" is then on (internal/agenttest
// TestGeminiEnvSettingsForms). So any string but an empty one without
// a $VAR, which the session may fill in otherwise, may be on.
func ignoreLocalMayBeOn(v any, env []string) bool {
	if s, ok := v.(string); ok {
		return expandEnv(s, env) != "" || hasEnvRef(s)
	}
	return truthy(v)
}

// dashDash is the index of the first "--" in args, len(args) for none.
func dashDash(args []string) int {
	if i := slices.Index(args, "--"); i >= 0 {
		return i
	}
	return len(args)
}

// may is the non-blank value a .env file Gemini CLI may load gives key
// when the environment does not set it, and that file; "" for none. Both
// picks count, the folder taken as trusted unless it surely is not
// (distrusts): then Gemini CLI loads no variable but the API keys. A
// file advanced.excludedEnvVars surely keeps key out of does not count
// (surelyExcluded).
func (d *dotEnv) may(key string) (value, file string) {
	if d.env[key] || d.distrusted && !slices.Contains(authEnvVars, key) {
		return "", ""
	}
	for _, ignore := range []bool{false, true} {
		p := dotEnvPick{file: findEnvFile(d.cwd, d.user, "", ignore)}
		if p.file == "" {
			continue
		}
		p.vars = dotEnvParse(p.file)
		if v, ok := p.vars[key]; ok && jsTrim(v) != "" && !(d.readAsProject(p.file) && surelyExcluded(d.user, d.environ, d.args, d.cwd, p.file, key)) {
			return v, p.file
		}
	}
	return "", ""
}

// sure is the value the .env file Gemini CLI loads surely gives key, and
// that file: the folder trusted when it loads, every pick setting the same
// value (both, when --ignore-env or advanced.ignoreLocalEnv may be on),
// and key not kept out by advanced.excludedEnvVars however Gemini CLI
// merges it (mayBeExcluded); "" otherwise, or when the environment sets
// key.
func (d *dotEnv) sure(key string) (value, file string) {
	if d.env[key] || !d.trusted {
		return "", ""
	}
	for i, p := range d.sets {
		v, ok := p.vars[key]
		if !ok || i > 0 && v != value {
			return "", ""
		}
		if mayBeExcluded(d.user, d.environ, d.cwd, p.file, key) {
			return "", ""
		}
		value, file = v, p.file
	}
	return value, file
}

// authEnvVars is Gemini CLI's AUTH_ENV_VAR_WHITELIST: the only variables
// it loads from a .env file in a folder it does not trust.
var authEnvVars = []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"}

// findEnvFile is Gemini CLI's findEnvFile in a trusted folder: in each
// directory from dir up, .gemini/.env, then .env (with ignoreLocal, only
// in home, the directory Gemini CLI's homedir() names, where its walk
// takes the .env all the same); then user's .env; then the .env beside
// user. A plain session's home is $GEMINI_CLI_HOME, else $HOME, as
// written (geminiHomedir); exec's is the session home, which links the
// user's Gemini CLI directory user as .gemini and the user's home .env
// and is no folder the walk passes: "".
func findEnvFile(dir, user, home string, ignoreLocal bool) string {
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	for d := dir; d != ""; d = filepath.Dir(d) {
		if p := filepath.Join(d, ".gemini", ".env"); exists(p) {
			return p
		}
		if p := filepath.Join(d, ".env"); exists(p) && (!ignoreLocal || d == home) {
			return p
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	for _, p := range []string{filepath.Join(user, ".env"), filepath.Join(filepath.Dir(user), ".env")} {
		if exists(p) {
			return p
		}
	}
	return ""
}

// dotEnvLine is the line the dotenv package (which Gemini CLI uses)
// parses, from where a line begins: an optional export, a name, = or ":",
// and a value, quoted or to a comment. Its \s is JavaScript's, which takes
// a byte order mark and Unicode spaces as well: a name after a BOM counts.
// JavaScript's multiline ^ and $, and its ., take U+2028 and U+2029 for
// line ends as well as LF, which RE2's do not, so dotEnvParse tries the
// expression at each such line start itself (\A), the line's end is
// consumed ([\n\x{2028}\x{2029}] or \z, where dotenv's $ stands before
// it), and . is the class of what is not a line end. A quoted or
// unquoted value still runs over U+2028, as dotenv's does.
var dotEnvLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(strings.ReplaceAll("\\A\\s*(?:export\\s+)?([\\w.-]+)(?:\\s*=\\s*?|:\\s+?)(\\s*'(?:\\\\'|[^'])*'|\\s*\"(?:\\\\\"|[^\"])*\"|\\s*`(?:\\\\`|[^`])*`|[^#\\r\\n]+)?\\s*(?:#"+jsNotLineEnd+"*)?(?:"+jsLineEnd+"|\\z)", `\s`, jsSpace))
})

// jsLineEnd is what ends a line for JavaScript's multiline ^ and $ once
// dotenv has made each CRLF and lone CR an LF; jsNotLineEnd is its
// JavaScript ., which does not take them (nor CR).
const (
	jsLineEnd    = `[\n\x{2028}\x{2029}]`
	jsNotLineEnd = `[^\n\r\x{2028}\x{2029}]`
)

// jsTrim is JavaScript's String.prototype.trim: its white space and line
// ends (jsSpace). Go's TrimSpace leaves a byte order mark, which
// JavaScript takes for white space, and takes U+0085, which it does not.
func jsTrim(s string) string {
	return jsspace.Trim(s)
}

// jsSpace is JavaScript's \s as an RE2 class.
const jsSpace = `[` + jsspace.Class + `]`

// dotEnvParse is the variables .env file f sets, as dotenv parses it (the
// last line that sets one wins), quotes taken off; none when it cannot be
// read.
func dotEnvParse(f string) map[string]string {
	vars := map[string]string{}
	for k, v := range dotEnvRead(f) {
		vars[k] = v.value
	}
	return vars
}

// dotEnvVar is one variable a .env file sets: its value, and the lines
// of the file, as sed counts them (by LF), from its name to its value's
// end, of the line that sets it last, which dotenv keeps; all is every
// line that sets it, in the file's order, the last one too.
type dotEnvVar struct {
	value       string
	first, last int
	all         []dotEnvVar
}

// readRegular reads f, links followed, only when it is a regular file:
// a .env that is, or links to, a FIFO or a terminal (/dev/stdin) would
// block setup, list or exec until something is written to it. Such a
// file is read as one that cannot be read: it sets nothing. It is opened
// without blocking, so one swapped for a FIFO after the check does not
// block either.
func readRegular(f string) ([]byte, error) {
	if fi, err := os.Stat(f); err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	file, err := os.OpenFile(f, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if fi, err := file.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return io.ReadAll(file)
}

// dotEnvRead is dotEnvParse with the lines that set each variable.
func dotEnvRead(f string) map[string]dotEnvVar {
	vars := map[string]dotEnvVar{}
	data, err := readRegular(f)
	if err != nil {
		return vars
	}
	text, line := dotEnvText(data)
	for at := 0; at < len(text); {
		m := dotEnvLine().FindStringSubmatchIndex(text[at:])
		if m == nil {
			at = nextLineStart(text, at)
			continue
		}
		end := m[3] // the value's end, else the name's
		if m[4] >= 0 {
			end = m[5]
		}
		v := text[at:][max(m[4], 0):max(m[5], 0)]
		name := text[at+m[2] : at+m[3]]
		set := dotEnvVar{value: dotEnvValue(v), first: line[at+m[2]], last: line[at+end-1]}
		set.all = append(vars[name].all, set)
		vars[name] = set
		at += m[1]
	}
	return vars
}

// dotEnvText is data with each CRLF and lone CR made LF, as dotenv ends
// its lines, and for each byte of it (and its end) the line of data it
// comes from as sed counts lines: a lone CR ends none.
func dotEnvText(data []byte) (string, []int) {
	var b strings.Builder
	line := make([]int, 0, len(data)+1)
	n := 1
	for i, c := range data {
		switch {
		case c == '\r' && i+1 < len(data) && data[i+1] == '\n':
			continue // the LF follows
		case c == '\r':
			c = '\n'
		case c == '\n':
			n++
			b.WriteByte(c)
			line = append(line, n-1)
			continue
		}
		b.WriteByte(c)
		line = append(line, n)
	}
	return b.String(), append(line, n)
}

// dotEnvValue is the value dotenv's parse makes of what its expression
// took for one (trimmed): the quotes taken off each of its lines that
// begins and ends with the same one, as its replace of
// /^(['"`])([\s\S]*)\1$/mg does — a quoted value is one such line, but
// an unquoted one runs over U+2028 and U+2029, its JavaScript line ends,
// and a quote-wrapped part after one loses its quotes too — then, for a
// value that began with a double quote, each \n and \r written out made
// the character. A line end inside stays, so a value that spans lines is
// never "true" (TestDotEnvParseQuotes, from dotenv run under node).
func dotEnvValue(raw string) string {
	s := jsTrim(raw)
	if s == "" {
		return s
	}
	first := s[0]
	s = unquoteLines(s)
	if first == '"' {
		s = strings.NewReplacer(`\n`, "\n", `\r`, "\r").Replace(s)
	}
	return s
}

// unquoteLines is JavaScript's s.replace(/^(['"`])([\s\S]*)\1$/mg, "$2"):
// from each line start (multiline ^: after LF, CR, U+2028 or U+2029) at
// a quote, the longest run to the same quote at a line end ($) loses
// those two quotes, and the search goes on after it.
func unquoteLines(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		q := s[i]
		if q != '\'' && q != '"' && q != '`' || !atLineStart(s, i) {
			continue
		}
		j := len(s) - 1
		for ; j > i; j-- {
			if s[j] == q && atLineEnd(s, j+1) {
				break
			}
		}
		if j == i {
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(s[i+1 : j])
		last, i = j+1, j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// atLineStart reports whether JavaScript's multiline ^ matches at byte i
// of s; atLineEnd, whether its $ does.
func atLineStart(s string, i int) bool {
	return i == 0 || s[i-1] == '\n' || s[i-1] == '\r' || strings.HasSuffix(s[:i], "\u2028") || strings.HasSuffix(s[:i], "\u2029")
}

func atLineEnd(s string, i int) bool {
	return i == len(s) || s[i] == '\n' || s[i] == '\r' || strings.HasPrefix(s[i:], "\u2028") || strings.HasPrefix(s[i:], "\u2029")
}

// nextLineStart is where the next line after the one at begins
// (len(text) for none), for a line where dotEnvLine matched nothing.
// The white space that begins the line is passed first: its \s* takes
// whatever lines that space holds, so a match at any of their starts
// would be the same match (none), and a file of blank lines stays
// linear.
func nextLineStart(text string, at int) int {
	rest := strings.TrimLeftFunc(text[at:], jsspace.Is)
	at = len(text) - len(rest)
	i := strings.IndexFunc(rest, func(r rune) bool { return r == '\n' || r == 0x2028 || r == 0x2029 })
	if i < 0 {
		return len(text)
	}
	_, size := utf8.DecodeRuneInString(rest[i:])
	return at + i + size
}

// untrustingVars are the folder trust variables whose value makes
// Gemini CLI (0.61) trust no folder (its checkPathTrust reads them before
// any rule or setting). From a .env file they are not read too late, as
// the settings paths are: the file loads after the settings, in a folder
// trusted then, but Gemini CLI asks checkPathTrust again when it builds
// its config (loadCliConfig) and whenever its config is asked
// (isTrustedFolder: the hook registry, the startup checks), reading the
// environment as it is then. So GEMINI_RESTRICTED_MODE=true in any .env
// it loads — the folder's, its .gemini/.env, ~/.gemini/.env, ~/.env —
// makes the session untrusted: an interactive one runs the extensions'
// hooks and no settings hook, setup's lines included, and says "This
// folder is untrusted"; a -p session stops (exit 55), or, with folder
// trust off in the settings, runs without them (internal/agenttest
// TestGeminiDotEnvUntrusts).
var untrustingVars = []struct{ key, value string }{
	{"GEMINI_RESTRICTED_MODE", "true"},
	{"GEMINI_CLI_TRUST_WORKSPACE", "false"},
}

// geminiHomedir is the directory Gemini CLI's homedir() names in a
// session started with env: $GEMINI_CLI_HOME when not empty, else $HOME,
// each as written (its walk for a .env compares them as strings).
func geminiHomedir(env []string) string {
	if v, _ := envLookup(env, "GEMINI_CLI_HOME"); v != "" {
		return v
	}
	v, _ := envLookup(env, "HOME")
	return v
}

// dotEnvUntrusts is the untrusting variable (untrustingVars) that a .env
// file Gemini CLI may load in cwd sets, its value and that file; "" for
// none, home the directory findEnvFile takes for home. The environment's
// own value wins, even an empty one (a .env never
// overrides a variable that is set), and --skip-trust in args sets
// GEMINI_CLI_TRUST_WORKSPACE=true after the file is loaded. The file is
// read as loaded in a trusted folder, each pick args and the settings
// may make counted (dotEnvPicks): in a folder Gemini CLI does not trust
// when it loads the file it takes no such variable from it, but an
// interactive session there may be told to trust the folder, start
// itself again and load it all. A line advanced.excludedEnvVars surely
// keeps out (surelyExcluded) is not named: Gemini CLI loads no such
// line then (internal/agenttest TestGeminiDotEnvExcluded). The walk
// goes up from cwd with its links resolved, as Gemini CLI's working
// directory is (the kernel gives it so), and from cwd as given too: a
// workspace named through a link has other parents than the folder
// Gemini CLI walks up from (internal/agenttest
// TestGeminiDotEnvLinkedWorkspace).
func dotEnvUntrusts(user string, env, args []string, cwd, home string) (key, value, file string) {
	starts := []string{cwd}
	if r, err := filepath.EvalSymlinks(cwd); err == nil && r != cwd {
		starts = []string{r, cwd}
	}
	for _, u := range untrustingVars {
		if _, set := envLookup(env, u.key); set {
			continue
		}
		if u.key == "GEMINI_CLI_TRUST_WORKSPACE" && skipsTrust(args) {
			continue
		}
		for _, ignoreLocal := range dotEnvPicks(user, env, args, cwd) {
			for _, start := range starts {
				f := findEnvFile(start, user, home, ignoreLocal)
				if f != "" && dotEnvParse(f)[u.key] == u.value && !surelyExcluded(user, env, args, cwd, f, u.key) {
					return u.key, u.value, f
				}
			}
		}
	}
	return "", "", ""
}

// dotEnvUntrustOff is the *hosts.HooksOffError for an untrusting .env
// line (dotEnvUntrusts) in a session started in cwd, for setup and list:
// Gemini CLI then runs no settings hook, setup's lines included. The
// message names the lines that set it (two when dotenv reads a name and
// "=true" on the next line as one setting), the fix takes them out and
// the hint shows them (dotEnvShow); nil for none. With cwd "" (no
// workspace) nothing is named: which file Gemini CLI picks then depends
// on the folder, and a folder's own .env hides the home's.
func dotEnvUntrustOff(user string, env []string, cwd string) *hosts.HooksOffError {
	if cwd == "" {
		return nil
	}
	key, value, file := dotEnvUntrusts(user, env, nil, cwd, geminiHomedir(env))
	if file == "" {
		return nil
	}
	// Every line that sets key to value is named, not the last alone:
	// dotenv keeps the last one, so with that one taken out an earlier
	// one would set it again.
	var spans []dotEnvVar
	for _, s := range dotEnvRead(file)[key].all {
		if s.value == value {
			spans = append(spans, s)
		}
	}
	var named []string
	for _, s := range spans {
		named = append(named, strconv.Itoa(s.first))
		if s.last > s.first {
			named[len(named)-1] += "-" + strconv.Itoa(s.last)
		}
	}
	lines, those := "line "+strings.Join(named, ", "), "that line"
	if len(spans) > 1 || len(spans) == 1 && spans[0].last > spans[0].first {
		lines, those = "lines "+strings.Join(named, ", "), "those lines"
	}
	return &hosts.HooksOffError{
		Host:    "gemini",
		File:    file,
		Lines:   lines,
		Setting: key + "=" + value,
		Fix:     "take " + those + " out of " + bundle.Quote(file) + " (Gemini CLI loads the file into its environment once it has read its settings, and then trusts the folder no more: it runs no settings hook there, setup's lines included)",
		Show:    dotEnvShowSpans(file, spans),
	}
}

// dotEnvShow is the command that prints lines first to last of file:
// through cat -v when they hold a control character or a byte past
// ASCII, where a CR, which ends a line for dotenv, or a U+2028 would
// otherwise hide what sets the variable.
func dotEnvShow(file string, first, last int) string {
	return dotEnvShowSpans(file, []dotEnvVar{{first: first, last: last}})
}

// dotEnvShowSpans is dotEnvShow for several spans of lines, in the
// file's order: one sed script that prints each ("sed -n '2p;5,6p'").
func dotEnvShowSpans(file string, spans []dotEnvVar) string {
	var script []string
	data, _ := readRegular(file)
	lines := strings.Split(string(data), "\n")
	cat := false
	for _, s := range spans {
		span := strconv.Itoa(s.first)
		if s.last > s.first {
			span += "," + strconv.Itoa(s.last)
		}
		script = append(script, span+"p")
		if s.first >= 1 && s.last <= len(lines) && strings.ContainsFunc(strings.Join(lines[s.first-1:s.last], ""), func(r rune) bool { return r < 0x20 && r != '\t' || r >= 0x7f }) {
			cat = true
		}
	}
	show := "sed -n " + bundle.ShellArg(strings.Join(script, ";")) + " " + bundle.ShellArg(file)
	if cat {
		show += " | cat -v"
	}
	return show
}
