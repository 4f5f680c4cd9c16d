package harness

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// expander fills in the placeholders of one bundle's reviewed strings.
// bundlectl's own formats know two, ${PLUGIN_ROOT} and ${PLUGIN_DATA}, and
// leave every other "${...}" literal (Agent Plugins §9.2). Host formats
// know theirs (Claude Code's ${CLAUDE_PLUGIN_ROOT}, Gemini CLI's
// ${extensionPath}, …), ${user_config.KEY}, and host variables ${VAR} and
// ${VAR:-default}: only variables the review listed are ever read.
// Expansion is one pass: text a replacement introduces is never scanned
// again.
type expander struct {
	root, data, workspace string
	// host: the component came from a host format.
	host bool
	// vars are the host variables the component references, with their
	// host values (absent when the host does not set them).
	vars map[string]string
	// options are the bundle's configured user options.
	options map[string]string
	// noOptions: ${user_config.KEY} is no placeholder (Claude Code
	// leaves it as written in a skill's hooks).
	noOptions bool
}

// placeholder returns the value of ${name} and whether it is one.
func (x expander) placeholder(name string) (string, bool) {
	switch name {
	case "PLUGIN_ROOT":
		return x.root, true
	case "PLUGIN_DATA":
		return x.data, true
	}
	if !x.host {
		return "", false
	}
	switch name {
	case "CLAUDE_PLUGIN_ROOT", "extensionPath":
		return x.root, true
	case "CLAUDE_PLUGIN_DATA":
		return x.data, true
	case "CLAUDE_PROJECT_DIR", "workspacePath":
		return x.workspace, true
	case "/", "pathSeparator":
		return string(filepath.Separator), true
	}
	if k, ok := strings.CutPrefix(name, "user_config."); ok && !x.noOptions {
		return x.options[k], true
	}
	return "", false
}

// variable returns the value of a host variable reference "VAR" or
// "VAR:-default": the host's value when set and not empty, else the
// default, else "". Only the variables the review listed, and the ones
// every child gets anyway (HOME, PATH, …), are in x.vars.
func (x expander) variable(ref string) (string, bool) {
	if !x.host {
		return "", false
	}
	name, def, hasDef := strings.Cut(ref, ":-")
	if !validVarName(name) {
		return "", false
	}
	if v := x.vars[name]; v != "" {
		return v, true
	}
	if hasDef {
		return def, true
	}
	return "", true
}

func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// arg expands a string that is passed to a process as one argument, an
// environment value, a working directory, a URL or a header value.
func (x expander) arg(s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var out strings.Builder
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "${")
		if j < 0 {
			out.WriteString(s[i:])
			break
		}
		out.WriteString(s[i : i+j])
		i += j
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			out.WriteString(s[i:])
			break
		}
		name := s[i+2 : i+end]
		if v, ok := x.placeholder(name); ok {
			out.WriteString(v)
		} else if v, ok := x.variable(name); ok {
			out.WriteString(v)
		} else {
			out.WriteString(s[i : i+end+1])
		}
		i += end + 1
	}
	return out.String()
}

// shellVarPrefix names the variables a shell-form command reads its
// placeholders' values from.
const shellVarPrefix = "BUNDLECTL_VALUE_"

// shell expands a shell-form command for "<shell> -c" (/bin/sh, bash or the
// user's shell: hookshell.go; the quoting is POSIX). A placeholder's value
// is never put into the command's text: it becomes a reference to a
// variable of the child's environment (returned as "NAME=value" entries),
// quoted for the place it stands in — "${V}" bare, ${V} inside double
// quotes, '"${V}"' inside single quotes — so that the shell reads it as a
// value and never parses it. That holds whatever the place really is: a
// value of "; rm -rf ~" or "$(…)" stays text even inside a "$( … )" or
// backquotes, which the quoting tracked here does not follow (at worst it
// is split into words there, as a host's own variable would be). Host
// variables are left to the shell, which reads them from the environment
// the child gets (only the ones the review listed).
func (x expander) shell(s string) (string, []string) {
	var out strings.Builder
	var env []string
	ref := map[string]string{} // placeholder -> its variable
	varFor := func(name, v string) string {
		if n, ok := ref[name]; ok {
			return n
		}
		n := shellVarPrefix + strconv.Itoa(len(ref))
		ref[name] = n
		env = append(env, n+"="+v)
		return n
	}
	const (
		bare = iota
		single
		double
	)
	// The quoting of each nested command substitution ("$( … )" or
	// backquotes) is its own: a frame per level.
	type frame struct {
		state    int
		subst    bool // opened by "$(": a ")" at depth 0 closes it
		backtick bool // opened by a backquote
		parens   int  // "(" open inside a substitution
	}
	stack := []frame{{state: bare}}
	escaped := -1 // the index of the last character a backslash escaped
	for i := 0; i < len(s); i++ {
		c := s[i]
		cur := &stack[len(stack)-1]
		if c == '$' && strings.HasPrefix(s[i:], "${") {
			if end := strings.IndexByte(s[i:], '}'); end > 0 {
				name := s[i+2 : i+end]
				if v, ok := x.placeholder(name); ok {
					// Inside single quotes the shell expands nothing; a
					// host expands its placeholders there all the same, so
					// do we.
					n := varFor(name, v)
					switch cur.state {
					case double:
						out.WriteString("${" + n + "}")
					case single:
						out.WriteString(`'"${` + n + `}"'`)
					default:
						out.WriteString(`"${` + n + `}"`)
					}
					i += end
					continue
				}
			}
		}
		if cur.state == bare && c == '#' && (i == 0 || i-1 != escaped && strings.IndexByte(" \t\n;&|()<>", s[i-1]) >= 0) {
			// A comment runs to the end of the line (inside backquotes, to
			// the closing one, which the shell finds first) and quotes
			// nothing: an apostrophe in it ("it's") must not be taken for
			// an opening quote, or every later value would be left
			// unquoted (split into words and globbed). A placeholder in it
			// still becomes a variable reference, as bare text: the shell
			// ignores it in a real comment, and a line taken for one that
			// is not (a here-document's, "${X:- #}") still gets its value
			// rather than a "${user_config.k}" the shell cannot expand.
			for i < len(s) && s[i] != '\n' && !(cur.backtick && s[i] == '`') {
				if strings.HasPrefix(s[i:], "${") {
					if end := strings.IndexByte(s[i:], '}'); end > 0 {
						name := s[i+2 : i+end]
						if v, ok := x.placeholder(name); ok {
							out.WriteString(`"${` + varFor(name, v) + `}"`)
							i += end + 1
							continue
						}
					}
				}
				out.WriteByte(s[i])
				i++
			}
			i-- // the newline or backquote is read as usual
			continue
		}
		switch {
		case cur.state == single:
			if c == '\'' {
				cur.state = bare
			}
		case c == '\\' && i+1 < len(s):
			out.WriteByte(c)
			i++
			out.WriteByte(s[i])
			escaped = i // "a\ #b" is one word: no comment starts there
			continue
		case c == '$' && i+1 < len(s) && s[i+1] == '(':
			out.WriteString("$(")
			i++
			stack = append(stack, frame{state: bare, subst: true})
			continue
		case c == '`':
			if cur.backtick {
				stack = stack[:len(stack)-1]
			} else {
				stack = append(stack, frame{state: bare, backtick: true})
			}
		case cur.state == bare && c == '(' && cur.subst:
			cur.parens++
		case cur.state == bare && c == ')' && cur.subst:
			if cur.parens > 0 {
				cur.parens--
			} else {
				stack = stack[:len(stack)-1]
			}
		case cur.state == bare && c == '\'':
			cur.state = single
		case c == '"':
			if cur.state == double {
				cur.state = bare
			} else {
				cur.state = double
			}
		}
		out.WriteByte(c)
	}
	return out.String(), env
}

// hostVars returns the values environ gives the named host variables and
// the ambient ones every child inherits (the allowlist).
func hostVars(environ []string, names []string) map[string]string {
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	out := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && (want[k] || hostAllowlist[k] || strings.HasPrefix(k, "LC_")) {
			out[k] = v
		}
	}
	return out
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
