package sources

import (
	"path/filepath"
	"strings"
	"testing"
)

// A failed fetch names git's cause, not only the advice git prints after
// it: real git, failing against a repository that does not exist, writes
// two "fatal:" lines and two lines of advice, and the last three lines
// alone lost the first "fatal:", the one that says why.
func TestFetchGitErrorKeepsCause(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.git")
	err := mustFail(t, Request{Source: "file://" + missing, Ref: "main"}, Options{}, ErrNotFound,
		"does not appear to be a git repository", "Could not read from remote repository")
	if strings.Contains(err.Error(), "Please make sure") {
		t.Errorf("error %q repeats git's advice", err)
	}

	r := pluginRepo(t)
	r.commit("one")
	bare := filepath.Join(t.TempDir(), "bare.git")
	r.git("clone", "-q", "--bare", r.dir, bare)
	mustFail(t, Request{Source: "file://" + bare, Ref: "no-such-branch"}, Options{}, ErrNotFound, "no-such-branch")
}

// The line before git's first "fatal:" (what ssh or the remote said) is
// kept with it, the advice after it is not, and the lines kept are bounded.
func TestGitMessage(t *testing.T) {
	for stderr, want := range map[string]string{
		"ssh: connect to host 127.0.0.1 port 1: Connection refused\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists.\n": "ssh: connect to host 127.0.0.1 port 1: Connection refused; fatal: Could not read from remote repository.",
		"remote: Repository not found.\nfatal: repository 'https://example.com/r.git/' not found\n":                                                                                                     "remote: Repository not found.; fatal: repository 'https://example.com/r.git/' not found",
		"hint: advice\nwarning: one\ntwo\nthree\nfour\n": "two; three; four",
		"fatal: \x1b[31mred\n":                           `fatal: \x1b[31mred`,
		strings.Repeat("error: e\n", 20):                 strings.TrimSuffix(strings.Repeat("error: e; ", maxCauseLines), "; "),
	} {
		if got := gitMessage(stderr); got != want {
			t.Errorf("gitMessage(%q)\n = %q\nwant %q", stderr, got, want)
		}
	}
}
