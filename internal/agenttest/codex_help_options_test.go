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
// (aliases too), classified as starting a session or not. A Codex that
// adds an option or a subcommand fails here until the list (and the
// reader) say what it is: --remote was once missing, so the reader took
// its address for the prompt.
func TestCodexHelpOptions(t *testing.T) {
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
	for _, sub := range [][]string{nil, {"exec"}, {"review"}, {"resume"}, {"fork"}, {"agents"}, {"exec", "resume"}, {"exec", "review"}, {"exec", "fork"}} {
		for _, line := range strings.Split(help(sub...), "\n") {
			m := helpOption.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			kind := "flag"
			if m[3] != "" {
				kind = "value"
			}
			for _, name := range []string{m[1], m[2]} {
				if name == "" {
					continue
				}
				if k, ok := got[name]; ok && k != kind {
					t.Errorf("%s is a %s in one help and a %s in another", name, k, kind)
				}
				got[name] = kind
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
		word, kind, _ := strings.Cut(line, " ")
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
