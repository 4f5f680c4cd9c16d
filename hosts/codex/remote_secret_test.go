package codex

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/hosts"
)

// TestLaunchRemoteSecret: the --remote argument exec names, in its note
// (no views) and in its refusal (views to load), never echoes the
// password of its URL: Codex 0.171 takes `--remote
// ws://user:secret@host:port` (it connects to it, where it refuses a
// query), and exec once printed the argument whole.
func TestLaunchRemoteSecret(t *testing.T) {
	root := ownFixture(t, nil)
	t.Chdir(root)
	env := []string{"CODEX_HOME=" + filepath.Join(root, "home")}
	const secret = "s3cretpassw0rd"
	for _, args := range [][]string{
		{"--remote", "ws://me:" + secret + "@127.0.0.1:9", "exec", "hi"},
		{"exec", "--remote=wss://me:" + secret + "@example.invalid:443", "hi"},
	} {
		l, err := launch(hosts.NewSession(filepath.Join(root, "views")), false, nil, append([]string{"codex"}, args...), env)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if len(l.Notes) == 0 || !strings.Contains(l.Notes[0], "me:[redacted]@") {
			t.Errorf("%q: notes %q do not name the argument, its password redacted", args, l.Notes)
		}
		if strings.Contains(strings.Join(l.Notes, "\n"), secret) {
			t.Errorf("%q: a note echoes the password: %q", args, l.Notes)
		}
		views := []hosts.BuiltView{{Bundle: "guard", Dir: filepath.Join(root, "view")}}
		_, err = launch(hosts.NewSession(filepath.Join(root, "views")), false, views, append([]string{"codex"}, args...), env)
		if err == nil || !strings.Contains(err.Error(), "me:[redacted]@") || strings.Contains(err.Error(), secret) {
			t.Errorf("%q: refusal %v: want the argument named, its password redacted", args, err)
		}
	}
}
