package agenttest

import (
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// helpOption is an option line of Codex's --help: "  -i, --image
// <FILE>..." or "      --trust"; a line of prose that begins with an
// option's name (resume's "--last to pick ...") is not one.
var helpOption = regexp.MustCompile(`^\s+(?:(-[A-Za-z]), )?(--[a-z][a-z-]*)( <[^>]+>(?:\.\.\.)?)?$`)

// helpCommand is a line of the Commands section: "  exec   Run ...".
var helpCommand = regexp.MustCompile(`^  ([a-z][a-z-]*)\s`)

var helpAliases = regexp.MustCompile(`\[aliases: ([^\]]+)\]`)

// TestCodexHelpOptions holds hosts/codex/testdata/codex_options.txt — the
// list hosts/codex TestTakesValueOptions holds the argument reader to —
// to the help of the real Codex: every option of every subcommand that
// starts a session, and whether it takes a value, and every subcommand
// (aliases too), classified as starting a session or not; an option
// whose value is a list (<FILE>...) apart from one taking one value, and
// a command whose help gives an option another kind than most (exec
// resume's -i). A Codex that
// adds an option or a subcommand fails here until the list (and the
// reader) say what it is: --remote was once missing, so the reader took
// its address for the prompt.
func TestCodexHelpOptions(t *testing.T) {
	t.Parallel()
	bin := FindCLI(t, "codex")
	help := func(args ...string) string {
		cmd := exec.Command(bin, append(args, "--help")...)
		cmd.Env = append(os.Environ(), "CODEX_HOME="+t.TempDir(), "HOME="+t.TempDir())
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("codex %s --help: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	got := map[string]string{}
	kinds := map[string]map[string]string{} // option → command → kind
	for _, sub := range [][]string{nil, {"exec"}, {"review"}, {"resume"}, {"fork"}, {"agents"}, {"exec", "resume"}, {"exec", "review"}, {"exec", "fork"}} {
		for _, line := range strings.Split(help(sub...), "\n") {
			m := helpOption.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			kind := "flag"
			switch {
			case strings.HasSuffix(m[3], "..."):
				kind = "values"
			case m[3] != "":
				kind = "value"
			}
			for _, name := range []string{m[1], m[2]} {
				if name == "" {
					continue
				}
				if kinds[name] == nil {
					kinds[name] = map[string]string{}
				}
				kinds[name][strings.Join(sub, " ")] = kind
			}
		}
	}
	// An option is listed with the kind most helps give it, and
	// "<command> <option>" with another where a command's help differs
	// (exec resume's -i takes one file, codex's a list).
	for name, byCmd := range kinds {
		count := map[string]int{}
		for _, k := range byCmd {
			count[k]++
		}
		common := ""
		for _, k := range slices.Sorted(maps.Keys(count)) {
			if common == "" || count[k] > count[common] {
				common = k
			}
		}
		got[name] = common
		for cmd, k := range byCmd {
			if k != common {
				got[cmd+" "+name] = k
			}
		}
	}
	top := help()
	start, end := strings.Index(top, "\nCommands:\n"), strings.Index(top, "\nArguments:\n")
	if start < 0 || end < start {
		t.Fatalf("no Commands section in codex --help:\n%s", top)
	}
	section := top[start:end]
	for _, line := range strings.Split(section, "\n") {
		if m := helpCommand.FindStringSubmatch(line); m != nil {
			got[m[1]] = "command"
		}
	}
	for _, m := range helpAliases.FindAllStringSubmatch(section, -1) {
		for _, alias := range strings.Split(m[1], ",") {
			got[strings.TrimSpace(alias)] = "command"
		}
	}

	data, err := os.ReadFile("../../hosts/codex/testdata/codex_options.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndex(line, " ")
		word, kind := line[:i], line[i+1:]
		if kind == "session" || kind == "nosession" {
			kind = "command" // which is which the help does not say
		}
		want[word] = kind
	}
	for _, w := range slices.Sorted(maps.Keys(got)) {
		if want[w] != got[w] {
			t.Errorf("%s: the real help makes it a %q, codex_options.txt a %q", w, got[w], want[w])
		}
	}
	for _, w := range slices.Sorted(maps.Keys(want)) {
		if _, ok := got[w]; !ok {
			t.Errorf("%s: in codex_options.txt, in no help of the real Codex", w)
		}
	}
}
