package sources

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A swap of the parent made while git holds a lock file redirects none
// of git's writes. git names each lock file it takes by an absolute path
// (config.lock, a ref's lock, shallow.lock), which it took from getcwd(3)
// — the parent's path by name — when it was not given PWD naming its
// working directory by descriptor; shallow.lock is taken before the pack
// is received and renamed to shallow after, a window the remote
// controls. Here the swap is made when git starts index-pack (the pack
// arriving), with the lock taken: the parent renamed away and a link to a
// directory mirroring the lock's path put in its place. Before git got
// PWD=/proc/self/fd/3, git renamed the mirrored lock to shallow there.
func TestGitLocksNotRedirectedBySwap(t *testing.T) {
	r := pluginRepo(t)
	r.commit("one")
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	out, err := exec.Command(realGit, "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	core := strings.TrimSpace(string(out))
	dir := t.TempDir()
	parent := filepath.Join(dir, "tmp")
	victim := filepath.Join(dir, "victim")
	lockMust(t, os.Mkdir(parent, 0o700))
	lockMust(t, os.Mkdir(victim, 0o700))
	// An exec path whose git makes the swap once, when asked for
	// index-pack, and then runs the real one.
	farm := filepath.Join(dir, "core")
	lockMust(t, os.Mkdir(farm, 0o755))
	ents, err := os.ReadDir(core)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "git" {
			lockMust(t, os.Symlink(filepath.Join(core, e.Name()), filepath.Join(farm, e.Name())))
		}
	}
	mark := filepath.Join(dir, "swapped")
	script := `#!/bin/sh
case " $* " in *" index-pack "*)
	if [ ! -e '` + mark + `' ]; then
		: > '` + mark + `'
		mv '` + parent + `' '` + parent + `.real'
		for l in '` + parent + `'.real/.scratch-*/*/shallow.lock; do
			rel=${l#'` + parent + `'.real/}
			mkdir -p "` + victim + `/$(dirname "$rel")"
			cp "$l" "` + victim + `/$rel"
		done
		ln -s '` + victim + `' '` + parent + `'
	fi
esac
exec '` + filepath.Join(core, "git") + `' "$@"
`
	lockMust(t, os.WriteFile(filepath.Join(farm, "git"), []byte(script), 0o755))
	testOnlyGitEnv = []string{"GIT_EXEC_PATH=" + farm}
	defer func() { testOnlyGitEnv = nil }()

	held, err := os.OpenRoot(parent)
	lockMust(t, err)
	defer held.Close()
	mirrored := map[string]bool{}
	_, ferr := Fetch(context.Background(), parent, Request{Source: r.url()}, Options{Parent: held})
	if _, err := os.Stat(mark); err != nil {
		t.Fatal("the swap never ran")
	}
	filepath.WalkDir(victim, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			mirrored[p] = true
		}
		return nil
	})
	for p := range mirrored {
		if !strings.HasSuffix(p, "/shallow.lock") {
			t.Errorf("git wrote %s through the link put in place of its parent", p)
		}
	}
	if len(mirrored) != 1 {
		t.Errorf("the directory the link leads to holds %d files, want only the mirrored lock", len(mirrored))
	}
	if ferr != nil {
		t.Fatalf("the fetch failed: %v", ferr)
	}
}

func lockMust(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
