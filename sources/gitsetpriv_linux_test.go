package sources

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// A setpriv on PATH that does not know --pdeathsig (util-linux before
// 2.33, busybox's applet) does not break every ssh fetch: git runs ssh
// without it, as where no setpriv is installed. The stand-in setpriv
// refuses the option as those do; the stand-in ssh serves the fetch.
func TestSSHFetchWithSetprivWithoutPdeathsig(t *testing.T) {
	r := pluginRepo(t)
	r.commit("one")
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	lockMust(t, os.Mkdir(bin, 0o755))
	ssh := "#!/bin/sh\nfor a; do last=$a; done\nexec sh -c \"$last\"\n"
	lockMust(t, os.WriteFile(filepath.Join(bin, "ssh"), []byte(ssh), 0o755))
	setpriv := "#!/bin/sh\necho \"setpriv: unrecognized option '$1'\" >&2\nexit 1\n"
	lockMust(t, os.WriteFile(filepath.Join(bin, "setpriv"), []byte(setpriv), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	old := setprivPath
	setprivPath = sync.OnceValue(findSetpriv)
	t.Cleanup(func() { setprivPath = old })

	parent := filepath.Join(dir, "tmp")
	lockMust(t, os.Mkdir(parent, 0o700))
	held, err := os.OpenRoot(parent)
	lockMust(t, err)
	defer held.Close()
	if _, err := Fetch(context.Background(), parent, Request{Source: "ssh://localhost" + r.dir}, Options{Parent: held}); err != nil {
		t.Fatalf("the fetch over ssh failed where setpriv has no --pdeathsig: %v", err)
	}
}
