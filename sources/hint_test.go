package sources

import "testing"

// The command a failed fetch hints never repeats a credential: a remote
// with userinfo (other than an ssh:// login name alone, which is not a
// secret), a query or a fragment gets no hint rather than a redacted one
// that would not work as printed.
func TestLsRemoteNeverPrintsCredentials(t *testing.T) {
	for remote, want := range map[string]string{
		"https://example.com/org/repo.git":        "git ls-remote https://example.com/org/repo.git",
		"file:///srv/repo":                        "git ls-remote file:///srv/repo",
		"/srv/my repo":                            "git ls-remote '/srv/my repo'",
		"git@example.com:org/repo.git":            "git ls-remote git@example.com:org/repo.git",
		"https://user:ghp_secret@example.com/r":   "",
		"https://ghp_secret@example.com/r":        "",
		"ssh://git@example.com/org/repo.git":      "git ls-remote ssh://git@example.com/org/repo.git",
		"SSH://git@example.com:2222/org/repo.git": "git ls-remote SSH://git@example.com:2222/org/repo.git",
		"ssh://git:pw@example.com/org/repo.git":   "",
		"ssh://git%3Apw@example.com/org/repo.git": "",
		"https://git@example.com/org/repo.git":    "",
		"user:ghp_secret@example.com:org/repo":    "",
		"https://example.com/r.git?token=secret":  "",
		"https://example.com/r.git#access=secret": "",
		"-uhack": "",
		"":       "",
	} {
		if got := LsRemote(remote); got != want {
			t.Errorf("LsRemote(%q) = %q, want %q", remote, got, want)
		}
	}
}

// The command that shows a git marketplace's catalogue names the remote
// only where git ls-remote may (never a credential) and only a full
// commit id, so what it prints is what was read.
func TestShowGitFileNeverPrintsCredentials(t *testing.T) {
	const c = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct{ remote, commit, want string }{
		{"file:///srv/m", c, `d=$(mktemp -d) && git -C "$d" init -q && git -C "$d" fetch -q --depth 1 -- file:///srv/m ` + c + ` && git -C "$d" show FETCH_HEAD:.claude-plugin/marketplace.json; rm -rf "$d"`},
		{"/srv/my market", c, `d=$(mktemp -d) && git -C "$d" init -q && git -C "$d" fetch -q --depth 1 -- '/srv/my market' ` + c + ` && git -C "$d" show FETCH_HEAD:.claude-plugin/marketplace.json; rm -rf "$d"`},
		{"https://ghp_secret@example.com/r", c, ""},
		{"https://example.com/r.git?token=secret", c, ""},
		{"https://example.com/r.git", "main", ""},
		{"https://example.com/r.git", "", ""},
	} {
		if got := ShowGitFile(tc.remote, tc.commit, ".claude-plugin/marketplace.json"); got != tc.want {
			t.Errorf("ShowGitFile(%q, %q) = %q, want %q", tc.remote, tc.commit, got, tc.want)
		}
	}
}
