package bundle

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// ClaudeOptionTypes are the types Claude Code accepts for a userConfig
// option.
var ClaudeOptionTypes = []string{"string", "number", "boolean", "directory", "file"}

// claudeOptionKey is what Claude Code accepts as a userConfig key: it
// becomes part of CLAUDE_PLUGIN_OPTION_<KEY>.
var claudeOptionKey = lazyRegexp(`^[A-Za-z_][A-Za-z0-9_]*$`)

// userConfig reads {"KEY": {type, title, description, required, default,
// multiple, sensitive, min, max, options}}. Claude Code checks the
// declaration against a strict schema and refuses to load the whole
// plugin when it does not fit (an unknown field, a missing title, a type
// it does not know): each such problem is an error, option.declaration,
// so the review never shows a plugin the host would not load. A default
// outside min and max, or of another type than the option, is not a
// problem to Claude Code's schema, nor to this reader.
func (r hostReader) userConfig(v *jsonValue, path string) {
	refuse := func(p, format string, args ...any) {
		// Codex, which also loads a Claude Code plugin, reads no
		// userConfig (internal/agenttest TestCodexIgnoresUserConfig);
		// the bundle is refused for every host all the same.
		r.b.Report.Errorf(p, "option.declaration", format+"; Claude Code refuses to load the plugin (Codex ignores userConfig, but bundlectl refuses the bundle for every host)", args...)
	}
	if v.kind != jsonObject {
		refuse(path, "must be an object keyed by option name, not %s", v.kind)
		return
	}
	for _, key := range v.keys {
		d, dp := v.obj[key], FieldPath(path, key)
		if !claudeOptionKey().MatchString(key) {
			refuse(dp, "option key %s is not an identifier (letters, digits and _, not starting with a digit), as CLAUDE_PLUGIN_OPTION_<KEY> needs", Quote(key))
			continue
		}
		if d.kind != jsonObject {
			refuse(dp, "must be an object, not %s", d.kind)
			continue
		}
		o := UserOption{Key: key, Source: dp, Hosts: addHost(nil, r.host)}
		var hasDefault, hasTitle, hasDescription, hasType bool
		var defaultStr *string
		for _, k := range d.keys {
			f, fp := d.obj[k], FieldPath(dp, k)
			wantBool := func() bool {
				if f.kind != jsonBool {
					refuse(fp, "must be a boolean, not %s", f.kind)
					return false
				}
				return f.b
			}
			switch k {
			case "type":
				hasType = true
				if f.kind != jsonString || !slices.Contains(ClaudeOptionTypes, f.str) {
					refuse(fp, "must be one of %s", strings.Join(ClaudeOptionTypes, ", "))
					continue
				}
				o.Type = f.str
			case "title", "description":
				hasTitle, hasDescription = hasTitle || k == "title", hasDescription || k == "description"
				if f.kind != jsonString {
					refuse(fp, "must be a string, not %s", f.kind)
					continue
				}
				if k == "title" {
					o.Title = f.str
				} else {
					o.Description = f.str
				}
			case "sensitive":
				// Anything but a boolean reads as sensitive: a value meant
				// to be secret is never shown because its flag was mistyped.
				o.Sensitive = f.kind != jsonBool || f.b
				if f.kind != jsonBool {
					refuse(fp, "must be a boolean, not %s (bundlectl treats the option as sensitive)", f.kind)
				}
			case "required":
				o.Required = wantBool()
			case "multiple":
				o.Multiple = wantBool()
			case "default":
				hasDefault = true
				switch f.kind {
				case jsonString:
					defaultStr = &f.str
				case jsonNumber, jsonBool:
				case jsonArray:
					if _, ok := stringArray(f); !ok {
						refuse(fp, "must be a string, a number, a boolean or an array of strings")
					}
				default:
					refuse(fp, "must be a string, a number, a boolean or an array of strings, not %s", f.kind)
				}
				o.Default = canonicalJSON(f.any())
			case "min", "max":
				n, ok := jsonFloat(f)
				if !ok {
					refuse(fp, "must be a number, not %s", f.kind)
					continue
				}
				if k == "min" {
					o.Min = &n
				} else {
					o.Max = &n
				}
			case "options":
				l, ok := stringArray(f)
				if !ok {
					refuse(fp, "must be an array of strings")
					continue
				}
				if msg := choicesProblem(l); msg != "" {
					refuse(fp, "%s", msg)
					continue
				}
				o.Choices = l
			default:
				refuse(fp, "field %s is not one Claude Code knows for an option (type, title, description, required, default, multiple, sensitive, min, max, options)", Quote(k))
			}
		}
		for _, m := range []struct {
			field string
			has   bool
		}{{"type", hasType}, {"title", hasTitle}, {"description", hasDescription}} {
			if !m.has {
				refuse(dp, "option %s has no %s", Quote(key), m.field)
			}
		}
		if o.Choices != nil {
			switch {
			case o.Type != "string" || o.Multiple || o.Sensitive:
				refuse(FieldPath(dp, "options"), "options is only for an option of type string that is neither multiple nor sensitive")
			case !hasDefault && !o.Required:
				refuse(dp, "an option with options needs a default among them, or required: true")
			case hasDefault && (defaultStr == nil || !slices.Contains(o.Choices, *defaultStr)):
				refuse(FieldPath(dp, "default"), "default must be one of the options (%s)", strings.Join(quoteAll(o.Choices), ", "))
			}
		}
		r.b.UserConfig = append(r.b.UserConfig, o)
	}
}

// jsonFloat reads a JSON number as Claude Code (JavaScript) does: a
// float64; one beyond its range is refused.
func jsonFloat(v *jsonValue) (float64, bool) {
	if v.kind != jsonNumber {
		return 0, false
	}
	n, err := strconv.ParseFloat(v.str, 64)
	if err != nil || math.IsInf(n, 0) {
		return 0, false
	}
	return n, true
}

// choicesProblem says why Claude Code refuses an option's "options" list,
// or "" when it accepts it: at least one value, each 1 to 64 UTF-16 units,
// no control, invisible or bidirectional-formatting character, no space
// at either end, none repeated in any letter case.
func choicesProblem(l []string) string {
	if len(l) == 0 {
		return "options needs at least one value"
	}
	seen := map[string]bool{}
	for _, c := range l {
		switch n := len(utf16.Encode([]rune(c))); {
		case n == 0:
			return "an option cannot be empty"
		case n > 64:
			return "an option can be at most 64 characters"
		}
		for _, r := range c {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || IsBidi(r) {
				return "an option cannot contain control, invisible or bidirectional-formatting characters"
			}
		}
		if strings.TrimSpace(c) != c {
			return "an option cannot start or end with a space"
		}
		if seen[strings.ToLower(c)] {
			return "options cannot repeat a value (in any letter case)"
		}
		seen[strings.ToLower(c)] = true
	}
	return ""
}

func quoteAll(l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = Quote(s)
	}
	return out
}
