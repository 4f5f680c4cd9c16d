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

// The commands that list a directory of a fetched commit, and validate
// its tree, name the remote only where git ls-remote may, only a full
// commit id, and a directory name that is one.
func TestGitTreeHintsNeverPrintCredentials(t *testing.T) {
	const c = "0123456789abcdef0123456789abcdef01234567"
	const fetch = `d=$(mktemp -d) && git -C "$d" init -q && git -C "$d" fetch -q --depth 1 -- `
	for _, tc := range []struct{ got, want string }{
		{ListGitDir("file:///srv/r", c, ""), fetch + `file:///srv/r ` + c + ` && git -C "$d" ls-tree FETCH_HEAD; rm -rf "$d"`},
		{ListGitDir("file:///srv/r", c, "my dir"), fetch + `file:///srv/r ` + c + ` && git -C "$d" ls-tree FETCH_HEAD -- 'my dir/'; rm -rf "$d"`},
		{ListGitDir("https://ghp_secret@example.com/r", c, "a"), ""},
		{ListGitDir("file:///srv/r", "main", "a"), ""},
		{ListGitDir("file:///srv/r", c, "a\nb"), ""},
		{ValidateGitTree("file:///srv/r", c, "", "p1"), fetch + `file:///srv/r ` + c + ` && mkdir "$d"/p1 && mkdir -p "$d"/.git/info && echo '* -export-ignore -export-subst -text -filter -ident -working-tree-encoding' > "$d"/.git/info/attributes && git -C "$d" archive FETCH_HEAD | tar -x -C "$d"/p1 && bundlectl validate "$d"/p1; rm -rf "$d"`},
		{ValidateGitTree("file:///srv/r", c, "plugins/p 1", "p 1"), fetch + `file:///srv/r ` + c + ` && mkdir "$d"/'p 1' && mkdir -p "$d"/.git/info && echo '* -export-ignore -export-subst -text -filter -ident -working-tree-encoding' > "$d"/.git/info/attributes && git -C "$d" archive 'FETCH_HEAD:plugins/p 1' | tar -x -C "$d"/'p 1' && bundlectl validate "$d"/'p 1'; rm -rf "$d"`},
		{ValidateGitTree("https://example.com/r.git?token=secret", c, "", "p1"), ""},
		{ValidateGitTree("file:///srv/r", c, "", "../p1"), ""},
		{ValidateGitTree("file:///srv/r", c, "", ".."), ""},
		{ValidateGitTree("file:///srv/r", c, "", ""), ""},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %q\nwant %q", tc.got, tc.want)
		}
	}
}
