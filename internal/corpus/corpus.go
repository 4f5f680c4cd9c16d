package corpus

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bundlectl/bundlectl/bundle"
)

// Want is one expected finding: its severity ("error", "skipped" or
// "warning"), its rule id, and a prefix of its path.
type Want struct {
	Severity string
	Rule     string
	Path     string
}

func (w Want) String() string { return w.Severity + " " + w.Rule + " " + w.Path }

// Matches reports whether f is the finding w expects.
func (w Want) Matches(f bundle.Finding) bool {
	return f.Severity.String() == w.Severity && f.Rule == w.Rule && strings.HasPrefix(f.Path, w.Path)
}

// Case is one bundle of the corpus together with what validating it must
// report.
type Case struct {
	Name string // the case name, which is the bundle directory's name
	Dir  string // the bundle directory
	// Wants lists every finding the bundle must produce, and no other
	// finding is allowed.
	Wants []Want
	// Blocked lists the inactive surfaces the bundle must declare.
	Blocked []string
	// Secrets must appear in no finding and in no output.
	Secrets []string
	// Limits for the walk; the zero value means the defaults. The CLI
	// always uses the defaults, so only cases with zero Limits run there.
	Limits bundle.Limits
	// Runtime is set for cases built by Runtime rather than committed.
	Runtime bool
}

// Valid reports whether the bundle must pass validation: no wanted
// finding is an error or a skip.
func (c Case) Valid() bool {
	for _, w := range c.Wants {
		if w.Severity != "warning" {
			return false
		}
	}
	return true
}

// DefaultLimits reports whether the case runs with the default bounds.
// Rejected reports whether the case expects an error finding: the bundle
// is rejected and lists as invalid. A case with only skipped components
// is not: the rest of it can be trusted.
func (c Case) Rejected() bool {
	for _, w := range c.Wants {
		if w.Severity == "error" {
			return true
		}
	}
	return false
}

func (c Case) DefaultLimits() bool { return c.Limits == (bundle.Limits{}) }

// Committed reads every case of the corpus directory dir: each
// subdirectory <case>/ with its <case>.want and optional <case>.secret.
func Committed(dir string) ([]Case, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var cases []Case
	seen := map[string]bool{}
	for _, e := range ents {
		name := e.Name()
		switch {
		case e.IsDir():
			seen[name] = true
			c := Case{Name: name, Dir: filepath.Join(dir, name)}
			data, err := os.ReadFile(filepath.Join(dir, name+".want"))
			if err != nil {
				return nil, fmt.Errorf("case %q: %w", name, err)
			}
			if c.Wants, c.Blocked, err = ParseWant(data); err != nil {
				return nil, fmt.Errorf("%s.want: %w", name, err)
			}
			if err := oneRule(c.Wants); err != nil {
				return nil, fmt.Errorf("%s.want: %w", name, err)
			}
			if data, err := os.ReadFile(filepath.Join(dir, name+".secret")); err == nil {
				c.Secrets = lines(data)
			} else if !os.IsNotExist(err) {
				return nil, err
			}
			cases = append(cases, c)
		case strings.HasSuffix(name, ".want"), strings.HasSuffix(name, ".secret"):
		default:
			return nil, fmt.Errorf("%s: not a case directory, .want or .secret file", name)
		}
	}
	for _, e := range ents {
		base := strings.TrimSuffix(strings.TrimSuffix(e.Name(), ".want"), ".secret")
		if !e.IsDir() && !seen[base] {
			return nil, fmt.Errorf("%s: no case directory %q", e.Name(), base)
		}
	}
	return cases, nil
}

// ParseWant reads a .want file: one line per expected finding,
// "<severity> <rule> <path-prefix>" (the prefix is the rest of the line and
// may contain spaces), "blocked <surface>" for an inactive declaration, or
// "valid" (which says nothing more than the absence of error and skipped
// lines, for a human reader). Blank lines and lines starting with "#" are
// ignored.
func ParseWant(data []byte) (wants []Want, blocked []string, err error) {
	for i, l := range lines(data) {
		f := strings.SplitN(l, " ", 3)
		switch {
		case l == "valid":
		case f[0] == "blocked" && len(f) == 2:
			blocked = append(blocked, f[1])
		case (f[0] == "error" || f[0] == "skipped" || f[0] == "warning") && len(f) == 3 && f[2] != "":
			wants = append(wants, Want{Severity: f[0], Rule: f[1], Path: f[2]})
		default:
			return nil, nil, fmt.Errorf("line %d: want \"<error|skipped|warning> <rule> <path-prefix>\", \"blocked <surface>\" or \"valid\"", i+1)
		}
	}
	return wants, blocked, nil
}

func lines(data []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// oneRule enforces the corpus invariant: at most one distinct rule id
// among the error and skipped wants.
func oneRule(ws []Want) error {
	rules := map[string]bool{}
	for _, w := range ws {
		if w.Severity != "warning" {
			rules[w.Rule] = true
		}
	}
	if len(rules) > 1 {
		return fmt.Errorf("a committed case breaks exactly one rule, not %d (%s)", len(rules), strings.Join(sortedKeys(rules), ", "))
	}
	return nil
}

// Check compares a loaded bundle with the case and returns every
// difference, empty when the bundle is exactly what the case wants.
func Check(b *bundle.Bundle, c Case) []string {
	var probs []string
	matched := make([]bool, len(c.Wants))
	for _, f := range b.Report.Findings {
		ok := false
		for i, w := range c.Wants {
			if w.Matches(f) {
				matched[i], ok = true, true
			}
		}
		if !ok {
			probs = append(probs, fmt.Sprintf("unexpected finding: %s %s %s (%s)", f.Severity, f.Rule, f.Path, f.Message))
		}
		for _, s := range c.Secrets {
			if strings.Contains(f.Path, s) || strings.Contains(f.Message, s) {
				probs = append(probs, fmt.Sprintf("finding %s echoes a secret", f.Rule))
			}
		}
	}
	for i, w := range c.Wants {
		if !matched[i] {
			probs = append(probs, "missing finding: "+w.String())
		}
	}
	if b.Valid() != c.Valid() {
		probs = append(probs, fmt.Sprintf("Valid() = %v, want %v", b.Valid(), c.Valid()))
	}
	got := map[string]bool{}
	for _, in := range b.Inactive {
		got[in.Surface] = true
	}
	want := map[string]bool{}
	for _, s := range c.Blocked {
		want[s] = true
	}
	if g, w := strings.Join(sortedKeys(got), ","), strings.Join(sortedKeys(want), ","); g != w {
		probs = append(probs, fmt.Sprintf("inactive surfaces %q, want %q", g, w))
	}
	return probs
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
