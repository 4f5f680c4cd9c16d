package hosts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
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
// /* */ comments allowed as Gemini CLI allows them. A missing file is
// (nil, nil).
func ReadSettings(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(StripJSONComments(data), &m); err != nil {
		return nil, err
	}
	return m, nil
}

// StripJSONComments blanks the // and /* */ comments outside strings, so
// that the offsets of what is left do not move.
func StripJSONComments(b []byte) []byte {
	out := []byte(string(b))
	inString, escaped := false, false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			out[i], out[i+1] = ' ', ' '
			for i += 2; i < len(out) && !(out[i] == '*' && i+1 < len(out) && out[i+1] == '/'); i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			if i+1 < len(out) {
				out[i], out[i+1] = ' ', ' '
				i++
			}
		}
	}
	return out
}

// HooksOffError refuses to start a host whose own settings would keep the
// session's hooks, and so its guards, from running.
type HooksOffError struct {
	Host    string // "claude", "gemini"
	File    string // the settings file, or the argument
	Setting string // what it sets, as written there
	Fix     string
}

func (e *HooksOffError) Error() string {
	return fmt.Sprintf("bundlectl exec -- %s loads the active bundles' guards as hooks, and %s sets %s, which would keep them from running, so the agent is not started: %s", e.Host, bundle.Quote(e.File), e.Setting, e.Fix)
}

// unreadableSettings refuses a settings file that cannot be read to check
// it: the host might read it.
func unreadableSettings(host, file string, err error) error {
	return &HooksOffError{Host: host, File: file, Setting: "something bundlectl cannot read (" + bundle.Sanitize(err.Error()) + ")", Fix: "fix the file, or move it away, and start the agent again (with your own arguments: bundlectl exec -- " + host + ")"}
}

// CheckSettings returns the first HooksOffError the files give: each
// file read as ReadSettings reads it and handed to off, which names the
// setting and its fix, or "" when the file turns nothing off. A file
// that cannot be read is refused too: the host might read it.
func CheckSettings(host string, files []string, off func(m map[string]any) (setting, fix string)) error {
	for _, f := range files {
		m, err := ReadSettings(f)
		if err != nil {
			return unreadableSettings(host, f, err)
		}
		if m == nil {
			continue
		}
		if setting, fix := off(m); setting != "" {
			return &HooksOffError{Host: host, File: f, Setting: setting, Fix: fix}
		}
	}
	return nil
}
