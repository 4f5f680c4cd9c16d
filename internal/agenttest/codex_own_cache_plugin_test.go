package agenttest

import (
	"fmt"
	"strings"
	"testing"
)

// checkOwnCachePlugin runs one guarded bundlectl exec session of Codex
// (with --exclusive when exclusive is set) beside a plugin of the user's
// own installed in Codex's plugin cache under market and enabled in
// config.toml, arrange having changed the installed tree first (nil
// leaves it). The plugin must load without --exclusive (else the
// premise, which premise words, no longer holds) and be named on stderr;
// under --exclusive it must neither load nor be named.
func checkOwnCachePlugin(t *testing.T, market string, exclusive bool, premise string, arrange func(a *Agent)) {
	t.Helper()
	s := newExecSession(t, Codex)
	a, f := s.a, s.f
	if exclusive {
		a.Launcher = append(a.Launcher[:len(a.Launcher)-1], "--exclusive", "--")
	}
	installOwnPlugin(t, a, market, ownPlugin, "")
	if arrange != nil {
		arrange(a)
	}
	id := ownPlugin + "@" + market
	a.CodexConfig = fmt.Sprintf("[plugins.%q]\nenabled = true\n\n", id) + a.CodexConfig
	res := a.Run(t, execPrompt(Codex))
	f.checkGuard(t, a, res, s.shellTurn)
	loaded := ownLoaded(a, ownPlugin)
	if !exclusive && !loaded {
		t.Fatalf("the own plugin did not load: this test's premise (%s) no longer holds\n%s", premise, res)
	}
	if exclusive && loaded {
		t.Errorf("bundlectl exec --exclusive: the own plugin %s loaded\n%s", id, res)
	}
	named := strings.Contains(res.Stderr, fmt.Sprintf("bundlectl: codex: your own plugin %q loads beside the views", id))
	if named == exclusive {
		t.Errorf("exclusive=%v: stderr names the own plugin: %v\n%s", exclusive, named, res)
	}
}
