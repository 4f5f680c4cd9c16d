package bundle

import (
	"fmt"
	"sort"
	"strings"
)

// Severity of a finding.
type Severity int

const (
	// Warning is reported and changes nothing (an ignored field, a
	// migration note).
	Warning Severity = iota
	// Skip drops one component (a skill, an MCP server, a tool, a hook) or
	// one component type (an invalid mcp.json) and keeps the rest, as the
	// Agent Plugins failure boundaries require.
	Skip
	// Error rejects the whole bundle: nothing in it is loaded or trusted.
	Error
)

func (s Severity) String() string {
	switch s {
	case Warning:
		return "warning"
	case Skip:
		return "skipped"
	default:
		return "error"
	}
}

// Finding is one broken rule. Path is relative to the bundle root
// ("plugin.json", "skills/x/SKILL.md"), optionally followed by a field
// ("mcp.json: mcpServers.local.args[1]"). Rule is a stable identifier
// such as "tree.symlink"; docs/validation.md lists them all. Message never
// contains a value that might be a secret.
type Finding struct {
	Path     string   `json:"path"`
	Rule     string   `json:"rule"`
	Message  string   `json:"message"`
	Severity Severity `json:"-"`
}

func (f Finding) String() string {
	p := f.Path
	if p == "" {
		p = "."
	}
	return fmt.Sprintf("%s: %s [%s]", p, f.Message, f.Rule)
}

// Report collects every finding of a validation, so that one run shows all
// the problems at once.
type Report struct {
	Findings []Finding
}

// Add records a finding. A known credential shape in the path or the
// message is replaced by "[redacted]", whichever rule quoted the value: a
// token pasted into a name, an OS list or a schema URL must not reach a
// terminal or a log through the finding that rejects it.
func (r *Report) Add(sev Severity, path, rule, format string, args ...any) {
	r.Findings = append(r.Findings, Finding{Path: redactTokens(path), Rule: rule, Message: redactTokens(fmt.Sprintf(format, args...)), Severity: sev})
}

func (r *Report) Errorf(path, rule, format string, args ...any) {
	r.Add(Error, path, rule, format, args...)
}
func (r *Report) Skipf(path, rule, format string, args ...any) {
	r.Add(Skip, path, rule, format, args...)
}
func (r *Report) Warnf(path, rule, format string, args ...any) {
	r.Add(Warning, path, rule, format, args...)
}

// Merge appends another report's findings.
func (r *Report) Merge(o Report) { r.Findings = append(r.Findings, o.Findings...) }

// Rejected reports whether any finding is fatal to the bundle.
func (r Report) Rejected() bool { return r.count(Error) > 0 }

// Valid reports whether no rule is broken: warnings only.
func (r Report) Valid() bool { return r.count(Error)+r.count(Skip) == 0 }

func (r Report) count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// Errors returns the fatal and skip findings, Warnings the rest, each
// sorted by path then rule for stable output, and each finding once: a
// file two hosts' readers read alike (a Claude Code plugin's
// hooks/hooks.json, read for Claude Code and again for Codex, which falls
// back to its manifest) breaks its rule once, though each reader
// recorded it.
func (r Report) Errors() []Finding   { return r.filter(func(s Severity) bool { return s != Warning }) }
func (r Report) Warnings() []Finding { return r.filter(func(s Severity) bool { return s == Warning }) }

func (r Report) filter(keep func(Severity) bool) []Finding {
	out := []Finding{}
	seen := map[Finding]bool{}
	for _, f := range r.Findings {
		if keep(f.Severity) && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Rule < out[j].Rule
	})
	return out
}

// Err returns nil for a valid report, or an error summarising it.
func (r Report) Err() error {
	errs := r.Errors()
	if len(errs) == 0 {
		return nil
	}
	return &InvalidError{Findings: errs}
}

// InvalidError is returned when a bundle breaks a rule.
type InvalidError struct{ Findings []Finding }

func (e *InvalidError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "bundle is invalid (%d finding(s))", len(e.Findings))
	for i, f := range e.Findings {
		if i == 3 {
			fmt.Fprintf(&b, "; …")
			break
		}
		fmt.Fprintf(&b, "; %s", f)
	}
	return b.String()
}
