package bundle

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
)

// geminiPolicyIgnored warns about what Gemini CLI (0.61) leaves out of an
// extension's policy file, so that the review does not show a rule as
// applying when it does not (internal/agenttest TestGeminiPolicyRules;
// Gemini CLI's policy/toml-loader): a file below a subdirectory of
// policies/ is never read; a file whose rules or safety checkers break
// Gemini CLI's schema is rejected whole (geminiPolicyFaults); an allow
// rule, a rule or safety checker for yolo mode, and one whose pattern
// Gemini CLI takes for a catastrophic regular expression are dropped. The
// policy stays in the inventory as written either way.
func (r hostReader) geminiPolicyIgnored(rel string, doc map[string]any) {
	warn := func(field, format string, args ...any) {
		r.b.Report.Warnf(field, "policy.ignored", format, args...)
	}
	if strings.Count(rel, "/") > 1 {
		warn(rel, "Gemini CLI reads only the .toml files directly in policies/: it never loads this file, so none of its rules apply; move it to policies/%s", path.Base(rel))
		return
	}
	if faults := geminiPolicyFaults(rel+":", doc); len(faults) > 0 {
		for _, f := range faults {
			warn(f.field, "Gemini CLI rejects this whole file, so none of its rules apply: %s", f.why)
		}
		return
	}
	for _, table := range []string{"rule", "safety_checker"} {
		what := map[string]string{"rule": "rule", "safety_checker": "safety checker"}[table]
		list, _ := doc[table].([]any)
		for i, x := range list {
			m, _ := x.(map[string]any)
			fp := indexPath(FieldPath(rel+":", table), i)
			if table == "rule" && m["decision"] == "allow" {
				warn(FieldPath(fp, "decision"), "Gemini CLI drops an extension's allow rules: this rule allows nothing, and its tool calls still ask for confirmation")
			}
			if modes, _ := m["modes"].([]any); slices.Contains(modes, any("yolo")) {
				warn(FieldPath(fp, "modes"), "Gemini CLI drops an extension's %ss for yolo mode: this %s never applies; remove \"yolo\" from modes", what, what)
			}
			if field, why := geminiDroppedPattern(m); why != "" {
				warn(FieldPath(fp, field), "Gemini CLI drops a %s whose pattern %s: this %s never applies; %s", what, why, what, map[bool]string{true: "write it without the inline flag or the (?P< group (for case, spell both: [Rr]m)", false: "write the pattern without the nested repetition"}[strings.Contains(why, "JavaScript")])
			}
		}
	}
}

// policyFault is one place where a policy file breaks Gemini CLI's schema.
type policyFault struct {
	field string // as a finding path: "policies/x.toml: rule[2].priority"
	why   string
}

// geminiPolicyKinds are the fields of a policy rule and a safety checker
// as Gemini CLI's schema types them (PolicyRuleSchema,
// SafetyCheckerRuleSchema in Gemini CLI 0.61). A field it does not
// know is dropped, not an error.
var geminiPolicyKinds = sync.OnceValue(func() map[string]map[string]string {
	return map[string]map[string]string{
		"rule": {
			"toolName": "names", "subagent": "string", "mcpName": "string", "argsPattern": "string",
			"commandPrefix": "names", "commandRegex": "string", "decision": "decision", "priority": "priority",
			"modes": "modes", "interactive": "boolean", "toolAnnotations": "table",
			"allowRedirection": "boolean", "allow_redirection": "boolean", "denyMessage": "string", "deny_message": "string",
		},
		"safety_checker": {
			"toolName": "names", "mcpName": "string", "argsPattern": "string", "commandPrefix": "names",
			"commandRegex": "string", "priority": "integer", "modes": "modes", "toolAnnotations": "table", "checker": "checker",
		},
	}
})

// geminiPolicyRequired are the fields Gemini CLI's schema requires.
var geminiPolicyRequired = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"rule":           {"toolName", "decision", "priority"},
		"safety_checker": {"toolName", "checker"},
	}
})

// geminiPolicyFaults returns where doc, the file whose finding paths
// start with base, breaks Gemini CLI's policy file
// schema, which makes Gemini CLI reject the whole file: rule and
// safety_checker must be arrays of tables, each with the fields
// geminiPolicyRequired names, each field of the kind geminiPolicyKinds
// gives it.
func geminiPolicyFaults(base string, doc map[string]any) []policyFault {
	var out []policyFault
	for _, table := range []string{"rule", "safety_checker"} {
		x, ok := doc[table]
		if !ok {
			continue
		}
		list, ok := x.([]any)
		if !ok {
			out = append(out, policyFault{FieldPath(base, table), fmt.Sprintf("%s must be an array of tables; write each as [[%s]]", table, table)})
			continue
		}
		for i, e := range list {
			fp := indexPath(FieldPath(base, table), i)
			m, ok := e.(map[string]any)
			if !ok {
				out = append(out, policyFault{fp, fmt.Sprintf("each %s must be a table; write it as [[%s]]", table, table)})
				continue
			}
			for _, k := range geminiPolicyRequired()[table] {
				if _, ok := m[k]; !ok {
					want, example := geminiPolicyWant(k)
					out = append(out, policyFault{FieldPath(fp, k), fmt.Sprintf("%s is required (%s); write %s", k, want, example)})
				}
			}
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				kind, known := geminiPolicyKinds()[table][k]
				if known && !geminiPolicyKindHolds(kind, m[k]) {
					want, example := geminiPolicyWant(k)
					out = append(out, policyFault{FieldPath(fp, k), fmt.Sprintf("%s must be %s; write %s", k, want, example)})
				}
			}
		}
	}
	return out
}

// geminiPolicyWant says what Gemini CLI's schema wants of field, and
// how to write it.
func geminiPolicyWant(field string) (want, example string) {
	switch field {
	case "toolName":
		return `a tool's name, "*" or a list of names`, `toolName = "run_shell_command"`
	case "commandPrefix":
		return "a string or a list of strings", `commandPrefix = "rm"`
	case "decision":
		return `"allow", "deny" or "ask_user", in lower case`, `decision = "deny"`
	case "priority":
		return "a whole number from 0 to 999", "priority = 100"
	case "modes":
		return `a list of "default", "autoEdit", "plan" or "yolo"`, `modes = ["default"]`
	case "interactive", "allowRedirection", "allow_redirection":
		return "true or false", field + " = false"
	case "toolAnnotations":
		return "a table", "toolAnnotations = { readOnlyHint = true }"
	case "checker":
		return `a table of type "external" with a name, or of type "in-process" named "allowed-path" or "conseca"`, `checker = { type = "in-process", name = "allowed-path" }`
	}
	return "a string", field + ` = "…"`
}

// geminiPolicyKindHolds reports whether v, as decoded from TOML, is of
// kind as Gemini CLI's schema checks it.
func geminiPolicyKindHolds(kind string, v any) bool {
	switch kind {
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "table":
		_, ok := v.(map[string]any)
		return ok
	case "names": // a string or a list of strings
		_, ok := v.(string)
		return ok || geminiPolicyKindHolds("strings", v)
	case "strings":
		list, ok := v.([]any)
		return ok && !slices.ContainsFunc(list, func(e any) bool { _, s := e.(string); return !s })
	case "decision":
		return slices.Contains([]any{"allow", "deny", "ask_user"}, v)
	case "modes":
		list, ok := v.([]any)
		return ok && !slices.ContainsFunc(list, func(e any) bool {
			return !slices.Contains([]any{"default", "autoEdit", "yolo", "plan"}, e)
		})
	case "integer", "priority":
		n, ok := wholeNumber(v)
		return ok && (kind == "integer" || n >= 0 && n <= 999)
	case "checker":
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if ctx, has := m["required_context"]; has && !geminiPolicyKindHolds("strings", ctx) {
			return false
		}
		if cfg, has := m["config"]; has && !geminiPolicyKindHolds("table", cfg) {
			return false
		}
		switch m["type"] {
		case "in-process":
			return slices.Contains([]any{"allowed-path", "conseca"}, m["name"])
		case "external":
			_, ok := m["name"].(string)
			return ok
		}
		return false
	}
	return true
}

// wholeNumber returns v as a whole number when it is one as JavaScript
// sees it: a TOML integer, or a float such as 10.0 that holds one.
func wholeNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, !math.IsInf(n, 0) && !math.IsNaN(n) && n == math.Trunc(n)
	}
	return 0, false
}

// geminiNestedQuantifier is Gemini CLI's test for a pattern it refuses as
// a risk of catastrophic backtracking (isSafeRegExp): a group holding a
// repetition, itself repeated.
var geminiNestedQuantifier = lazyRegexp(`\([^)]*[*+?{].*\)[*+?{]`)

// geminiDroppedPattern returns the field of a rule or safety checker m
// whose pattern, built as Gemini CLI builds it (buildArgsPatterns: from
// commandPrefix, else commandRegex, else argsPattern), makes Gemini CLI
// drop the rule, and why: JavaScript cannot compile it (a construct of
// Go's or Python's regular expressions it lacks, jsRejects), or Gemini
// CLI refuses it as unsafe (isSafeRegExp): longer than 2048 UTF-16 code
// units, or a nested repetition. Other patterns JavaScript cannot compile
// are not judged here: Go's regular expressions are not JavaScript's.
func geminiDroppedPattern(m map[string]any) (field, why string) {
	const unsafe = "is longer than 2048 characters or repeats a group that holds a repetition (as in (a+)+), for fear of catastrophic backtracking"
	judge := func(extra int, p string) string {
		switch {
		case jsRejects(p):
			return "JavaScript cannot compile (an inline flag group such as (?i), or a (?P<name>…) group)"
		case extra+utf16Len(p) > 2048 || geminiNestedQuantifier().MatchString(p):
			return unsafe
		}
		return ""
	}
	switch {
	case m["commandPrefix"] != nil:
		prefixes, _ := m["commandPrefix"].([]any)
		if s, ok := m["commandPrefix"].(string); ok {
			prefixes = []any{s}
		}
		for _, p := range prefixes {
			// The prefix is escaped, so it never holds a nested
			// repetition or a group; only its length can make it unsafe.
			if s, _ := p.(string); geminiPrefixPatternLen(s) > 2048 {
				return "commandPrefix", unsafe
			}
		}
	case m["commandRegex"] != nil:
		s, _ := m["commandRegex"].(string)
		return "commandRegex", judge(len(`"command":"`), s)
	case m["argsPattern"] != nil:
		if s, _ := m["argsPattern"].(string); s != "" {
			return "argsPattern", judge(0, s)
		}
	}
	return "", ""
}

// jsRejects reports whether JavaScript's RegExp (without the u flag, as
// Gemini CLI compiles a policy's pattern) refuses p for a construct of
// Go's or Python's regular expressions that it has in no version: an
// inline flag group that sets flags for the rest, such as (?i) or (?-s),
// or a (?P<name>…) group. (A scoped (?i:…) depends on the Node.js that
// runs Gemini CLI, and is not judged.)
func jsRejects(p string) bool {
	inClass := false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++ // the escaped character
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
		case c == '(' && strings.HasPrefix(p[i:], "(?"):
			rest := p[i+2:]
			if strings.HasPrefix(rest, "P<") {
				return true
			}
			j := 0
			for j < len(rest) && (rest[j] == '-' || 'a' <= rest[j] && rest[j] <= 'z' || 'A' <= rest[j] && rest[j] <= 'Z') {
				j++
			}
			if j > 0 && j < len(rest) && rest[j] == ')' {
				return true
			}
		}
	}
	return false
}

// geminiPrefixPatternLen is the length, in UTF-16 code units, of the
// pattern Gemini CLI builds from a commandPrefix: `"command":` and the
// prefix as JSON without its closing quote, each character a regular
// expression gives a meaning (white space included) escaped with a
// backslash, then (?:[\s"]|\\").
func geminiPrefixPatternLen(prefix string) int {
	n := len(`\"command\":\"`) + len(`(?:[\s"]|\\")`)
	for _, r := range prefix {
		switch {
		case r == '"' || r == '\\':
			n += 4 // \" in JSON, each character escaped again
		case r == '\b' || r == '\f' || r == '\n' || r == '\r' || r == '\t':
			n += 3 // \n in JSON, its backslash escaped again
		case r < 0x20:
			n += 7 // \u00XX in JSON, its backslash escaped again
		case strings.ContainsRune("-[]{}()*+?.,^$|#", r), unicode.IsSpace(r) && r != 0x85, r == 0xfeff:
			// JavaScript's \s is Unicode's white space and U+FEFF, not U+0085
			n += 2
		default:
			n += utf16.RuneLen(r)
		}
	}
	return n
}

// utf16Len is the length of s in UTF-16 code units, as JavaScript counts.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
