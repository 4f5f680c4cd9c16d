package hosts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/internal/jsjson"
)

// ViewsHaveHooks reports whether any of the views gives the host hooks:
// only then can a host setting that turns hooks off leave a guard silent.
func ViewsHaveHooks(views []BuiltView) bool {
	return slices.ContainsFunc(views, func(v BuiltView) bool { return v.Hooks })
}

// hasHooks reports whether the view gives the host hooks: a
// hooks/hooks.json file, or a document (a skill, command or agent) whose
// front matter has a hooks key.
func (v *View) hasHooks() bool {
	if v.Has("hooks/hooks.json") {
		return true
	}
	for _, rel := range v.Paths() {
		if doc, _ := v.File(rel); strings.HasSuffix(rel, ".md") && frontMatterHas(doc, "hooks") {
			return true
		}
	}
	return false
}

// ReadSettings reads a host's settings file: a JSON object, with // and
// /* */ comments allowed as Gemini CLI allows them, and bytes that are
// not UTF-8 decoded as the hosts (Node.js) decode them, so that a key
// (a plugin's id in enabledPlugins) is the one the host reads. A missing
// file is (nil, nil).
func ReadSettings(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(StripJSONComments(jsjson.DecodeUTF8(data)), &m); err != nil {
		return nil, err
	}
	return m, nil
}

// StripJSONComments blanks the // and /* */ comments outside strings, so
// that the offsets of what is left do not move.
func StripJSONComments(b []byte) []byte { return blankComments(b, jsonComments(b)) }

// HooksOffError refuses to start a host whose own settings would keep the
// session's hooks, and so its guards, from running.
//
// Besides the message it says what names the setting, for the hint that
// leads to the fix (Hint, and exec's own for an argument or a variable,
// which it builds from its command line): at most one of Pattern, Args,
// Env, SetEnv and Unreadable is set.
type HooksOffError struct {
	Host    string // "claude", "gemini"
	File    string // the settings file, or the argument
	Setting string // what it sets, as written there
	Fix     string

	// Pattern is an extended regular expression (grep -E) that matches
	// the line of File that sets it; set only when it does match the
	// file's text (SettingIn).
	Pattern string
	// Args are the indexes, in the agent's own arguments (argv[1:]),
	// of the argument that sets it (with its value).
	Args []int
	// Env is the environment variable that sets it; SetEnv is instead
	// the assignment, VAR=value, that lifts it for one session.
	Env, SetEnv string
	// Unreadable: File cannot be read (a file that reads but does not
	// parse can).
	Unreadable bool

	// Text, when set, is the whole message: a refusal worded for its
	// own case.
	Text string
	// Show, when set, is the hint itself: for a state no line of File
	// shows (a folder no Gemini CLI trust rule decides yet), the command
	// that leads to the fix; for a file bundlectl cannot decode
	// (UnreadableSettings), the one that rewrites it or shows its line.
	Show string

	// Lines, when set, are the lines of File that set it ("line 2",
	// "lines 4-5"), which the messages name: a file read by lines (a
	// .env), where a key alone would not say which line holds.
	Lines string

	// When, when set, says which sessions the setting holds in, as a
	// phrase that follows "in a <host> session", when not in every
	// session started in the workspace as things are now: "started with
	// --profile work" (setup writes its lines, and says so: SetupCaveat),
	// or a project's setting the host reads once it trusts the project
	// (setup refuses all the same). list says it.
	When string
}

func (e *HooksOffError) Error() string {
	if e.Text != "" {
		return e.Text
	}
	return fmt.Sprintf("bundlectl exec -- %s loads the active bundles' guards as hooks, and %s sets %s, which would keep them from running, so the agent is not started: %s", e.Host, e.Source(), e.Setting, e.Fix)
}

// Source is where the setting is, for a message: the file, quoted, and
// its Lines when known ("line 2 of \"/ws/.env\"").
func (e *HooksOffError) Source() string {
	if e.Lines != "" {
		return e.Lines + " of " + bundle.Quote(e.File)
	}
	return bundle.Quote(e.File)
}

// Hint is a command that shows the setting in its file: the lines
// Pattern matches, else the file itself, or, for one that cannot be read,
// its mode and owner. It is "" for an argument or an environment
// variable: the command to run without it is exec's, with its own
// command line.
func (e *HooksOffError) Hint() string {
	switch {
	case e.Show != "":
		return e.Show
	case e.Args != nil || e.Env != "" || e.SetEnv != "" || e.File == "" || strings.HasPrefix(e.File, "-"):
		return ""
	case e.Unreadable:
		return "ls -ld -- " + bundle.ShellArg(e.File)
	case e.Pattern != "":
		return "grep -n -E -- " + bundle.ShellArg(e.Pattern) + " " + bundle.ShellArg(e.File)
	}
	return "cat -v -- " + bundle.ShellArg(e.File)
}

// SettingIn returns pattern when it matches a line of file, and ""
// otherwise (a key spelled with escapes, a file changed since): a hint
// that greps for it must find it. pattern is written for grep -E and
// for Go's regexp alike (literal text, [[:space:]], ?, |, groups).
func SettingIn(file, pattern string) string {
	re, err := regexp.Compile("(?m)" + pattern)
	if err != nil {
		return ""
	}
	data, err := os.ReadFile(file)
	if err != nil || !re.Match(data) {
		return ""
	}
	return pattern
}

// JSONString is the pattern of a JSON string (an object key, a list
// entry), as SettingIn takes it.
func JSONString(key string) string { return regexp.QuoteMeta(strconv.Quote(key)) }

// cannotRead begins the Setting of a file that cannot be read.
const cannotRead = "something bundlectl cannot read"

// UnreadableSettings refuses a settings file that cannot be read to check
// it: the host might read it. One the host reads and bundlectl cannot
// decode (*UnreadableError) gets the hint list and setup give it (a
// UTF-16 file rewritten as UTF-8, a line shown); one that reads but does
// not parse otherwise is shown whole (Hint).
func UnreadableSettings(host, file string, err error) error {
	var pe *fs.PathError
	e := &HooksOffError{Host: host, File: file, Setting: cannotRead + " (" + bundle.Sanitize(err.Error()) + ")", Fix: "fix the file, or move it away, and start the agent again (with your own arguments: bundlectl exec -- " + host + ")", Unreadable: errors.As(err, &pe)}
	var ue *UnreadableError
	if errors.As(err, &ue) {
		e.Show = ue.Hint(file)
	}
	return e
}

// CheckSettings returns the first HooksOffError the files give: each
// file read as ReadSettings reads it and handed to off, which names the
// setting, the JSON key whose line sets it, and its fix, or "" when the
// file turns nothing off. A file that cannot be read is refused too: the
// host might read it.
func CheckSettings(host string, files []string, off func(m map[string]any) (setting, key, fix string)) error {
	for _, f := range files {
		m, err := ReadSettings(f)
		if err != nil {
			return UnreadableSettings(host, f, err)
		}
		if m == nil {
			continue
		}
		if setting, key, fix := off(m); setting != "" {
			e := &HooksOffError{Host: host, File: f, Setting: setting, Fix: fix}
			if key != "" {
				e.Pattern = SettingIn(f, JSONString(key))
			}
			return e
		}
	}
	return nil
}
