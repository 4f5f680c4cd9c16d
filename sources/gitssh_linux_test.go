package sources

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The ssh git starts holds nothing of the fetch's scratch directory: no
// descriptor (git has it as its descriptor 3, for PWD) and not as its
// working directory. An ssh ControlPersist master forks off the ssh git
// started and outlives bundlectl (daemon(3) keeps the descriptors it
// inherited and its working directory), so whatever that ssh holds stays
// held after the fetch. A stand-in ssh on PATH records every descriptor's
// target and its working directory, then serves the fetch by running the
// upload-pack command git asked for on the local repository.
//
// The caller's GIT_SSH_COMMAND, which git prefers to core.sshCommand,
// does not reach git: through it the caller's own ssh would run in the
// scratch directory with git's descriptor 3. It names a script that
// writes a line of its own to the log and fails the fetch. (GIT_SSH
// yields to core.sshCommand, so it needs no test.)
func TestGitSSHHoldsNoScratchDirectory(t *testing.T) {
	r := pluginRepo(t)
	r.commit("one")
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	log := filepath.Join(dir, "ssh.log")
	lockMust(t, os.Mkdir(bin, 0o755))
	script := `#!/bin/sh
{
	echo "cwd $(readlink /proc/$$/cwd)"
	for fd in /proc/$$/fd/*; do echo "fd ${fd##*/} $(readlink "$fd")"; done
} >> '` + log + `'
for a; do last=$a; done
exec sh -c "$last"
`
	lockMust(t, os.WriteFile(filepath.Join(bin, "ssh"), []byte(script), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	callers := filepath.Join(bin, "callers-ssh")
	lockMust(t, os.WriteFile(callers, []byte("#!/bin/sh\necho \"the caller's ssh ran\" >> '"+log+"'\nexit 1\n"), 0o755))
	t.Setenv("GIT_SSH_COMMAND", callers)

	parent := filepath.Join(dir, "tmp")
	lockMust(t, os.Mkdir(parent, 0o700))
	held, err := os.OpenRoot(parent)
	lockMust(t, err)
	defer held.Close()
	_, ferr := Fetch(context.Background(), parent, Request{Source: "ssh://localhost" + r.dir}, Options{Parent: held})
	out, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("the stand-in ssh never ran (fetch: %v)", ferr)
	}
	t.Logf("the stand-in ssh saw:\n%s", out)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasPrefix(line, "the caller's ssh") {
			t.Errorf("git ran the ssh of the caller's GIT_SSH_COMMAND")
		}
		if strings.Contains(line, ScratchPrefix) || strings.HasSuffix(line, " "+parent) {
			t.Errorf("ssh holds the fetch's directory: %s", line)
		}
	}
	if ferr != nil {
		t.Fatalf("the fetch over the stand-in ssh failed: %v", ferr)
	}
}
