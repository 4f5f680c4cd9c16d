package lifecycle_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/lifecycle"
	"github.com/bundlectl/bundlectl/receipts"
	"github.com/bundlectl/bundlectl/sources"
	"github.com/bundlectl/bundlectl/staging"
	"github.com/bundlectl/bundlectl/state"
	"github.com/gofrs/flock"
)

// TestHelperProcess is not a test: the tests below run it as a separate
// process (HELPER selects what it does) to get real concurrency and real
// crashes.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv("HELPER")
	if mode == "" {
		t.Skip("helper process")
	}
	home, ws := os.Getenv("H_HOME"), os.Getenv("H_WS")
	m := manager(home, ws)
	switch mode {
	case "trust-loop":
		log, err := os.OpenFile(os.Getenv("H_LOG"), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
		must(t, err)
		src := filepath.Join(ws, ".bundlectl", "bundles", "kit")
		fmt.Println("ready") // the kill clock starts here, not at exec
		for i := 0; ; i++ {
			writeBundle(t, src, "kit", fmt.Sprintf("v%d-%d", os.Getpid(), i))
			rc, err := m.Trust("kit", tokenOf(t, m, "kit"))
			must(t, err)
			fmt.Fprintf(log, "%d\n", rc.Generation)
			must(t, log.Sync())
		}
	case "transitions":
		seed, _ := strconv.ParseUint(os.Getenv("H_SEED"), 10, 64)
		rng := rand.New(rand.NewPCG(seed, 7))
		names := strings.Split(os.Getenv("H_BUNDLES"), ",")
		n, _ := strconv.Atoi(os.Getenv("H_OPS"))
		counts := map[string]int{}
		locked := 0
		for i := 0; i < n; i++ {
			name := names[rng.IntN(len(names))]
			var changed bool
			var err error
			switch rng.IntN(4) {
			case 0:
				var tok receipts.Token
				b, ferr := m.Find(m.Discover(), name)
				must(t, ferr)
				h, herr := lifecycle.Compute(b)
				must(t, herr)
				tok = h.Token()
				_, err = m.Trust(name, tok)
				changed = err == nil
			case 1:
				changed, err = m.Enable(name)
			case 2:
				changed, err = m.Disable(name)
			case 3:
				changed, err = m.Revoke(name)
			}
			switch {
			case errors.Is(err, state.ErrLocked):
				// The lock wait ran out on a busy machine: nothing was
				// persisted, which is all the parent needs to know.
				locked++
				changed = false
			case err != nil && !errors.Is(err, lifecycle.ErrRefused):
				t.Fatalf("op on %s: %v", name, err)
			}
			if changed {
				counts[name]++
			}
		}
		for k, v := range counts {
			fmt.Printf("COUNT %s %d\n", k, v)
		}
		fmt.Printf("LOCKED %d\n", locked)
	case "fetch-lock":
		// Open the fetch lock, say so, and lock it only when the parent
		// writes a line; then say "locked" and hold it until stdin closes.
		in := bufio.NewReader(os.Stdin)
		first := true
		lifecycle.OnFetchLockOpened(t, func() {
			if first {
				first = false
				fmt.Println("opened")
				in.ReadString('\n')
			}
		})
		unlock := lifecycle.HoldFetchLock(t, m)
		fmt.Println("locked")
		io.Copy(io.Discard, in)
		unlock()
	case "failed-install":
		// A first install whose tree is invalid; it stops between opening
		// the fetch lock and locking it until the parent writes a line.
		in := bufio.NewReader(os.Stdin)
		lifecycle.OnFetchLockOpened(t, func() {
			fmt.Println("opened")
			in.ReadString('\n')
		})
		_, err := m.Install(context.Background(), sources.Request{Source: os.Getenv("H_SRC")}, lifecycle.InstallOptions{})
		if err == nil {
			t.Fatal("the install of an invalid tree succeeded")
		}
		fmt.Println("failed")
	case "install":
		// Install H_SRC; stop where H_PAUSE says ("opened": between
		// opening the fetch lock and locking it; "locked": holding it,
		// with the root made; "fetched": with the fetched tree in its
		// tmp directory) until the parent writes a line. H_WSTMP: fetch
		// into the workspace's tmp, as a home on another file system. Says
		// "installed", or "failed: " and the error.
		in := bufio.NewReader(os.Stdin)
		pause := func() {
			fmt.Println(os.Getenv("H_PAUSE"))
			in.ReadString('\n')
		}
		once := func(f func()) func() {
			done := false
			return func() {
				if !done {
					done = true
					f()
				}
			}
		}
		switch os.Getenv("H_PAUSE") {
		case "opened":
			lifecycle.OnFetchLockOpened(t, once(pause))
		case "locked":
			lifecycle.OnInstallLocked(t, once(pause))
		case "fetched":
			lifecycle.OnInstallFetched(t, once(pause))
		}
		if os.Getenv("H_WSTMP") != "" {
			lifecycle.UseWorkspaceTmp(t)
		}
		if d, err := time.ParseDuration(os.Getenv("H_LOCKWAIT")); err == nil {
			lifecycle.ShortenFetchLockWait(t, d)
		}
		if _, err := m.Install(context.Background(), sources.Request{Source: os.Getenv("H_SRC")}, lifecycle.InstallOptions{Scope: bundle.Scope(os.Getenv("H_SCOPE"))}); err != nil {
			fmt.Println("failed:", strings.ReplaceAll(err.Error(), "\n", " "))
		} else {
			fmt.Println("installed")
		}
	case "uninstall":
		// Uninstall H_NAME from the workspace root, stopping between the
		// check of the other homes' markers and the move of the tree
		// until the parent writes a line. Says "uninstalled", with the
		// homes it shared the tree with, or "failed: " and the error.
		in := bufio.NewReader(os.Stdin)
		lifecycle.OnUninstallChecked(t, func() {
			fmt.Println("checked")
			in.ReadString('\n')
		})
		u, err := m.Uninstall(os.Getenv("H_NAME"), lifecycle.UninstallOptions{Scope: bundle.ScopeWorkspace})
		if err != nil {
			fmt.Println("failed:", strings.ReplaceAll(err.Error(), "\n", " "))
		} else {
			fmt.Println("uninstalled", strings.Join(u.SharedWith, ","))
		}
	case "update":
		// Update H_NAME with --force (and --discard-local when H_DISCARD
		// is set), stopping (when H_PAUSE=locked) once
		// it holds the workspace lock, before the swap, or (fetched) once
		// it has fetched, before it takes that lock, until the parent
		// writes a line. Says "updated", whether it changed the tree and
		// whether another put it in place meanwhile, or "failed: " and
		// the error.
		in := bufio.NewReader(os.Stdin)
		switch os.Getenv("H_PAUSE") {
		case "locked":
			lifecycle.OnUpdateLocked(t, func() {
				fmt.Println("locked")
				in.ReadString('\n')
			})
		case "fetched":
			lifecycle.OnUpdateFetched(t, func() {
				fmt.Println("fetched")
				in.ReadString('\n')
			})
		}
		if d, err := time.ParseDuration(os.Getenv("H_LOCKWAIT")); err == nil {
			lifecycle.ShortenFetchLockWait(t, d)
		}
		opts := lifecycle.UpdateOptions{Force: true, DiscardLocal: os.Getenv("H_DISCARD") != ""}
		if up, err := m.Update(context.Background(), os.Getenv("H_NAME"), opts); err != nil {
			fmt.Println("failed:", strings.ReplaceAll(err.Error(), "\n", " "))
		} else {
			fmt.Println("updated", up.Changed, up.Replaced)
		}
	case "configure":
		// Set one key H_OPS times; a lock wait that ran out is retried,
		// so every value is stored in turn.
		key := os.Getenv("H_KEY")
		n, _ := strconv.Atoi(os.Getenv("H_OPS"))
		for i := 1; i <= n; i++ {
			for {
				_, err := m.Configure("opts", map[string]string{key: fmt.Sprintf("v%d", i)}, nil)
				if errors.Is(err, state.ErrLocked) {
					continue
				}
				must(t, err)
				break
			}
		}
	}
}

func helper(mode, home, ws string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), append([]string{"HELPER=" + mode, "H_HOME=" + home, "H_WS=" + ws}, env...)...)
	return cmd
}

// Eight processes make a few hundred random transitions on the same and on
// different bundles: no update is lost (every bundle's generation is the
// number of transitions the processes persisted), the state always parses,
// and a revoked trust is never resurrected.
func TestConcurrentTransitionsLoseNothing(t *testing.T) {
	names := []string{"alpha", "beta", "gamma"}
	home, ws := newWorkspace(t, names...)
	const procs, ops = 8, 60
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := map[string]int{}
	errs := make(chan error, procs)
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			cmd := helper("transitions", home, ws, fmt.Sprintf("H_SEED=%d", p+1), "H_BUNDLES="+strings.Join(names, ","), fmt.Sprintf("H_OPS=%d", ops))
			out, err := cmd.Output()
			if err != nil {
				errs <- fmt.Errorf("helper %d: %v\n%s", p, err, out)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, line := range strings.Split(string(out), "\n") {
				var name string
				var n int
				if _, err := fmt.Sscanf(line, "COUNT %s %d", &name, &n); err == nil {
					total[name] += n
				}
				if _, err := fmt.Sscanf(line, "LOCKED %d", &n); err == nil && n > 0 {
					t.Logf("helper %d: %d operations timed out on the state lock", p, n)
				}
			}
		}(p)
	}
	// Meanwhile the state must always parse.
	stop := make(chan struct{})
	parsed := make(chan error, 1)
	go func() {
		st := state.Open(home)
		for {
			select {
			case <-stop:
				parsed <- nil
				return
			default:
			}
			if _, err := st.Load(); err != nil {
				parsed <- err
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	wg.Wait()
	close(stop)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := <-parsed; err != nil {
		t.Fatalf("state did not parse during the run: %v", err)
	}
	m := manager(home, ws)
	s, err := m.LoadState()
	must(t, err)
	d := m.Discover()
	sum := 0
	for _, name := range names {
		b, err := m.Find(d, name)
		must(t, err)
		rec, _ := s.Bundle(b.ID)
		if int(rec.Generation) != total[name] {
			t.Errorf("%s: generation %d, but the processes persisted %d transitions", name, rec.Generation, total[name])
		}
		sum += total[name]
		// The receipt agrees with the last trust or revoke in the audit.
		for i := len(rec.Audit) - 1; i >= 0; i-- {
			ev := rec.Audit[i]
			if ev.Action == state.ActionRevoke {
				if rec.Receipt != nil {
					t.Errorf("%s: trust resurrected after its last revoke", name)
				}
				break
			}
			if ev.Action == state.ActionTrust {
				if rec.Receipt == nil || rec.Receipt.Token() != ev.Receipt.Token {
					t.Errorf("%s: receipt does not match its last trust", name)
				}
				break
			}
		}
	}
	if int(s.Generation()) != sum {
		t.Errorf("global generation %d, want %d", s.Generation(), sum)
	}
	t.Logf("%d processes, %d transitions persisted (%v)", procs, sum, total)
	if sum < 100 {
		t.Errorf("only %d transitions persisted; the test is too weak", sum)
	}
}

// Eight processes configure eight different keys of one bundle at once,
// each many times: the options file is a read-modify-write under the state
// lock, so every key ends with the last value its process stored, and
// none is lost to another process's write of its own key.
func TestConcurrentConfigureLosesNothing(t *testing.T) {
	home, ws := newWorkspace(t)
	var keys []string
	for i := 1; i <= 8; i++ {
		keys = append(keys, fmt.Sprintf("k%d", i))
	}
	writeConfigurable(t, filepath.Join(home, "bundles", "opts"), "opts", keys)
	const ops = 25
	var wg sync.WaitGroup
	errs := make(chan error, len(keys))
	for _, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := helper("configure", home, ws, "H_KEY="+k, fmt.Sprintf("H_OPS=%d", ops)).CombinedOutput(); err != nil {
				errs <- fmt.Errorf("helper for %s: %v\n%s", k, err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	m := manager(home, ws)
	c, err := m.Configure("opts", nil, nil)
	must(t, err)
	data, err := os.ReadFile(c.File)
	must(t, err)
	for _, k := range keys {
		if want := fmt.Sprintf("%q: \"v%d\"", k, ops); !strings.Contains(string(data), want) {
			t.Errorf("options file lacks %s:\n%s", want, data)
		}
	}
	if ents, _ := os.ReadDir(filepath.Dir(c.File)); len(ents) != 1 {
		t.Errorf("the config directory holds %d entries, want only the options file", len(ents))
	}
}

var hexName = regexp.MustCompile(`^[0-9a-f]{64}$`)

// A trust killed with SIGKILL at a random point leaves state.json parseable
// and equal to the old or the new state, no partial snapshot under a final
// name, and the next trust succeeds.
func TestTrustSurvivesSIGKILL(t *testing.T) {
	home, ws := newWorkspace(t, "kit")
	logPath := filepath.Join(t.TempDir(), "committed.log")
	m := manager(home, ws)
	store := &staging.Store{Dir: filepath.Join(home, "store")}
	trials := 50
	var seen uint64 // the generation observed after the previous kill
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	for trial := 0; trial < trials; trial++ {
		cmd := helper("trust-loop", home, ws, "H_LOG="+logPath)
		out, err := cmd.StdoutPipe()
		must(t, err)
		must(t, cmd.Start())
		// However slowly a busy machine starts the helper, the kill lands
		// while it trusts, not before it began.
		if !awaitReady(out) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("trial %d: the helper never said ready", trial)
		}
		time.Sleep(time.Duration(5+rng.IntN(60)) * time.Millisecond)
		must(t, cmd.Process.Signal(syscall.SIGKILL))
		cmd.Wait()

		s, err := m.LoadState()
		if err != nil {
			t.Fatalf("trial %d: state unusable after SIGKILL: %v", trial, err)
		}
		// Committed before this kill: what the helper logged, or what we saw
		// last time (a kill between commit and log leaves one unlogged).
		last := max(lastLogged(t, logPath), seen)
		b, err := m.Find(m.Discover(), "kit")
		must(t, err)
		rec, _ := s.Bundle(b.ID)
		if rec.Generation < last || rec.Generation > last+1 {
			t.Fatalf("trial %d: generation %d, last committed %d: neither the old nor the new state", trial, rec.Generation, last)
		}
		seen = rec.Generation
		if rec.Receipt != nil {
			if err := store.Verify(rec.Receipt.ContentHash); err != nil {
				t.Fatalf("trial %d: the recorded snapshot does not verify: %v", trial, err)
			}
		}
		entries, _ := os.ReadDir(store.Dir)
		for _, e := range entries {
			if !hexName.MatchString(e.Name()) {
				continue
			}
			d, _ := receipts.Parse(e.Name())
			if err := store.Verify(d); err != nil {
				t.Fatalf("trial %d: partial snapshot under its final name %s: %v", trial, e.Name(), err)
			}
		}
	}
	// The next trust succeeds, and gc clears what the kills left.
	writeBundle(t, filepath.Join(ws, ".bundlectl", "bundles", "kit"), "kit", "final")
	if _, err := m.Trust("kit", tokenOf(t, m, "kit")); err != nil {
		t.Fatalf("trust after the kills: %v", err)
	}
	if _, err := m.GC(); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(store.Dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("gc left %s", e.Name())
		}
	}
	t.Logf("%d kills, last committed generation %d", trials, lastLogged(t, logPath))
}

// awaitReady reads the helper's stdout up to its "ready" line; false if
// the helper ended first.
func awaitReady(out io.Reader) bool {
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if sc.Text() == "ready" {
			return true
		}
	}
	return false
}

func lastLogged(t *testing.T, path string) uint64 {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return 0
	}
	must(t, err)
	defer f.Close()
	var last uint64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if n, err := strconv.ParseUint(sc.Text(), 10, 64); err == nil {
			last = n
		}
	}
	return last
}

// TestFreshHomeFetchLockNotLost: a first install that fails in a fresh
// home removes the home again, fetch.lock with it, while a second command
// has the file open but not yet locked. The second command must then hold
// a lock on the file at the path — one a gc's exclusive try fails on —
// never on the unlinked one, which would let a gc remove its fetches.
// Real processes; each step waits for the other's line on a pipe.
func TestFreshHomeFetchLockNotLost(t *testing.T) {
	dir := t.TempDir()
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	src := filepath.Join(dir, "bad")
	must(t, os.MkdirAll(filepath.Join(src, ".claude-plugin"), 0o755))
	must(t, os.WriteFile(filepath.Join(src, ".claude-plugin", "plugin.json"), []byte("{"), 0o644))
	must(t, os.MkdirAll(ws, 0o755))

	start := func(mode string, env ...string) (*exec.Cmd, io.WriteCloser, *bufio.Reader) {
		return startPiped(t, helper(mode, home, ws, env...))
	}
	expect := func(r *bufio.Reader, want string) {
		t.Helper()
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("waiting for %q: %v", want, err)
			}
			if strings.TrimSpace(line) == want {
				return
			}
		}
	}
	a, aIn, aOut := start("failed-install", "H_SRC="+src)
	expect(aOut, "opened") // a took home as fresh and opened fetch.lock
	_, bIn, bOut := start("fetch-lock")
	expect(bOut, "opened") // b opened the same file
	io.WriteString(aIn, "go\n")
	expect(aOut, "failed")
	must(t, a.Wait()) // a removed what it created: fetch.lock and the home
	io.WriteString(bIn, "go\n")
	expect(bOut, "locked")

	must(t, os.MkdirAll(home, 0o700))
	gc := flock.New(filepath.Join(home, lifecycle.FetchLockName), flock.SetFlag(os.O_CREATE|os.O_RDONLY))
	ok, err := gc.TryLock()
	must(t, err)
	if ok {
		gc.Unlock()
		t.Fatal("a gc took the fetch lock exclusively while another command held it: that command holds a lock on an unlinked fetch.lock")
	}
}

// TestFailedInstallKeepsConcurrentInstall: a first install that fails in a
// fresh home removes the home and the user root it created — but never
// while another install is using them. Real processes; each step waits for
// the other's line on a pipe. In "locked", the second install holds the
// fetch lock (with the root made) when the first one cleans up; in
// "opened", it has opened the fetch lock but not locked it, so the
// cleanup runs and the second install must make its root again.
func TestFailedInstallKeepsConcurrentInstall(t *testing.T) {
	for _, pause := range []string{"locked", "opened"} {
		t.Run(pause, func(t *testing.T) {
			dir := t.TempDir()
			home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
			bad := filepath.Join(dir, "bad")
			must(t, os.MkdirAll(filepath.Join(bad, ".claude-plugin"), 0o755))
			must(t, os.WriteFile(filepath.Join(bad, ".claude-plugin", "plugin.json"), []byte("{"), 0o644))
			good := filepath.Join(dir, "good")
			must(t, os.MkdirAll(filepath.Join(good, ".claude-plugin"), 0o755))
			must(t, os.WriteFile(filepath.Join(good, ".claude-plugin", "plugin.json"), []byte(`{"name":"good"}`), 0o644))
			must(t, os.MkdirAll(ws, 0o755))

			start := func(src, pause string) (*exec.Cmd, io.WriteCloser, *bufio.Reader) {
				return startPiped(t, helper("install", home, ws, "H_SRC="+src, "H_PAUSE="+pause))
			}
			a, aIn, aOut := start(bad, "locked")
			if l := helperLine(t, aOut); l != "locked" { // a made the home and the root
				t.Fatalf("first install: %q", l)
			}
			b, bIn, bOut := start(good, pause)
			if l := helperLine(t, bOut); l != pause {
				t.Fatalf("second install: %q", l)
			}
			io.WriteString(aIn, "go\n")
			if l := helperLine(t, aOut); !strings.HasPrefix(l, "failed:") {
				t.Fatalf("the install of an invalid tree: %q", l)
			}
			must(t, a.Wait())
			io.WriteString(bIn, "go\n")
			if l := helperLine(t, bOut); l != "installed" {
				t.Fatalf("the second install lost its work to the first one's cleanup: %s", l)
			}
			must(t, b.Wait())
			if _, err := os.Stat(filepath.Join(home, "bundles", "good", ".claude-plugin", "plugin.json")); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Two homes share a workspace: a failed first workspace install of one
// home removes the .bundlectl it made only while no command of any home
// uses it. Home A's install (of an invalid tree) made the workspace root
// and pauses; home B's install finds it and pauses with it; A fails, and
// its cleanup must leave the root B is about to rename into (the fetch
// lock is per home and excluded nothing B did).
func TestFailedInstallKeepsOtherHomesWorkspaceInstall(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	bad := filepath.Join(dir, "bad")
	must(t, os.MkdirAll(filepath.Join(bad, ".claude-plugin"), 0o755))
	must(t, os.WriteFile(filepath.Join(bad, ".claude-plugin", "plugin.json"), []byte("{"), 0o644))
	good := filepath.Join(dir, "good")
	must(t, os.MkdirAll(filepath.Join(good, ".claude-plugin"), 0o755))
	must(t, os.WriteFile(filepath.Join(good, ".claude-plugin", "plugin.json"), []byte(`{"name":"good"}`), 0o644))
	must(t, os.MkdirAll(ws, 0o755))
	a, aIn, aOut := startPiped(t, helper("install", filepath.Join(dir, "home-a"), ws, "H_SRC="+bad, "H_PAUSE=locked", "H_SCOPE=workspace"))
	if l := helperLine(t, aOut); l != "locked" {
		t.Fatalf("home A's install: %q", l)
	}
	b, bIn, bOut := startPiped(t, helper("install", filepath.Join(dir, "home-b"), ws, "H_SRC="+good, "H_PAUSE=locked", "H_SCOPE=workspace"))
	if l := helperLine(t, bOut); l != "locked" {
		t.Fatalf("home B's install: %q", l)
	}
	io.WriteString(aIn, "go\n")
	if l := helperLine(t, aOut); !strings.HasPrefix(l, "failed:") {
		t.Fatalf("the install of an invalid tree: %q", l)
	}
	must(t, a.Wait())
	io.WriteString(bIn, "go\n")
	if l := helperLine(t, bOut); l != "installed" {
		t.Fatalf("home B's install lost its work to home A's cleanup: %s", l)
	}
	must(t, b.Wait())
	if _, err := os.Stat(filepath.Join(ws, ".bundlectl", "bundles", "good", ".claude-plugin", "plugin.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "home-a")); !os.IsNotExist(err) {
		t.Errorf("home A's failed first install left its home: %v", err)
	}
}

// Two failing first installs into a fresh home and workspace overlap:
// the first made the home, the workspace's .bundlectl and its root, and
// fails while the second holds the locks, so its cleanup is skipped; the
// second found them all made, so none is its own to remove. The first
// leaves a record of what it made, and the second's cleanup, holding the
// locks exclusively, removes it: nothing is left. Real processes paced by
// their lines; a third install, paused holding the locks, shows that the
// cleanup still never removes what a running install uses.
func TestOverlappingFailedInstallsLeaveNothing(t *testing.T) {
	dir := t.TempDir()
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	bad := filepath.Join(dir, "bad")
	must(t, os.MkdirAll(filepath.Join(bad, ".claude-plugin"), 0o755))
	must(t, os.WriteFile(filepath.Join(bad, ".claude-plugin", "plugin.json"), []byte("{"), 0o644))
	must(t, os.MkdirAll(ws, 0o755))
	start := func() (*exec.Cmd, io.WriteCloser, *bufio.Reader) {
		c, in, out := startPiped(t, helper("install", home, ws, "H_SRC="+bad, "H_PAUSE=locked", "H_SCOPE=workspace"))
		if l := helperLine(t, out); l != "locked" {
			t.Fatalf("install: %q", l)
		}
		return c, in, out
	}
	fail := func(c *exec.Cmd, in io.WriteCloser, out *bufio.Reader) {
		t.Helper()
		io.WriteString(in, "go\n")
		if l := helperLine(t, out); !strings.HasPrefix(l, "failed:") {
			t.Fatalf("the install of an invalid tree: %q", l)
		}
		must(t, c.Wait())
	}
	left := func() []string {
		var out []string
		for _, p := range []string{home, filepath.Join(ws, ".bundlectl")} {
			filepath.WalkDir(p, func(p string, d os.DirEntry, err error) error {
				if err == nil {
					out = append(out, p)
				}
				return nil
			})
		}
		return out
	}

	a, aIn, aOut := start() // makes the home, .bundlectl and the root
	b, bIn, bOut := start() // finds them made
	fail(a, aIn, aOut)      // b holds the locks: a's cleanup is skipped
	c, cIn, cOut := start()
	fail(b, bIn, bOut) // c holds the locks: nothing may go yet
	if _, err := os.Stat(filepath.Join(ws, ".bundlectl", "bundles")); err != nil {
		t.Fatalf("a failed install's cleanup removed the root a running install uses: %v", err)
	}
	fail(c, cIn, cOut)
	if l := left(); len(l) > 0 {
		t.Fatalf("overlapping failed first installs left %q", l)
	}
}

// A failed install opened the fetch lock of a home another failed
// install had made, and locks it only after that one's cleanup removed
// the home: it makes the home and the root again, and they are its own
// to remove when it fails too, though they were there when it looked.
func TestFailedInstallAfterCleanupLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	bad := filepath.Join(dir, "bad")
	must(t, os.MkdirAll(filepath.Join(bad, ".claude-plugin"), 0o755))
	must(t, os.WriteFile(filepath.Join(bad, ".claude-plugin", "plugin.json"), []byte("{"), 0o644))
	must(t, os.MkdirAll(ws, 0o755))
	a, aIn, aOut := startPiped(t, helper("install", home, ws, "H_SRC="+bad, "H_PAUSE=locked"))
	if l := helperLine(t, aOut); l != "locked" {
		t.Fatalf("first install: %q", l)
	}
	b, bIn, bOut := startPiped(t, helper("install", home, ws, "H_SRC="+bad, "H_PAUSE=opened"))
	if l := helperLine(t, bOut); l != "opened" {
		t.Fatalf("second install: %q", l)
	}
	io.WriteString(aIn, "go\n")
	if l := helperLine(t, aOut); !strings.HasPrefix(l, "failed:") {
		t.Fatalf("the install of an invalid tree: %q", l)
	}
	must(t, a.Wait())
	if _, err := os.Lstat(home); !os.IsNotExist(err) {
		t.Fatalf("the first install's cleanup (nobody held the lock) left its home: %v", err)
	}
	io.WriteString(bIn, "go\n")
	if l := helperLine(t, bOut); !strings.HasPrefix(l, "failed:") {
		t.Fatalf("the install of an invalid tree: %q", l)
	}
	must(t, b.Wait())
	if _, err := os.Lstat(home); !os.IsNotExist(err) {
		ents, _ := os.ReadDir(home)
		t.Fatalf("the second failed install left the home it made again: %v %v", err, ents)
	}
}

// A failed first workspace install's cleanup is skipped while a good
// user-scope install of the same home holds the fetch lock; that one
// succeeds, and no failed command comes after. The workspace's
// .bundlectl the failed one made stays, with its record, until gc
// removes it; the home, in use, stays, and only its record goes.
func TestGCReclaimsWhatAFailedInstallMade(t *testing.T) {
	dir := t.TempDir()
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	bad := filepath.Join(dir, "bad")
	must(t, os.MkdirAll(filepath.Join(bad, ".claude-plugin"), 0o755))
	must(t, os.WriteFile(filepath.Join(bad, ".claude-plugin", "plugin.json"), []byte("{"), 0o644))
	good := filepath.Join(dir, "good")
	must(t, os.MkdirAll(filepath.Join(good, ".claude-plugin"), 0o755))
	must(t, os.WriteFile(filepath.Join(good, ".claude-plugin", "plugin.json"), []byte(`{"name":"good"}`), 0o644))
	must(t, os.MkdirAll(ws, 0o755))
	a, aIn, aOut := startPiped(t, helper("install", home, ws, "H_SRC="+bad, "H_PAUSE=locked", "H_SCOPE=workspace"))
	if l := helperLine(t, aOut); l != "locked" {
		t.Fatalf("the failing install: %q", l)
	}
	b, bIn, bOut := startPiped(t, helper("install", home, ws, "H_SRC="+good, "H_PAUSE=locked", "H_SCOPE=user"))
	if l := helperLine(t, bOut); l != "locked" {
		t.Fatalf("the good install: %q", l)
	}
	io.WriteString(aIn, "go\n")
	if l := helperLine(t, aOut); !strings.HasPrefix(l, "failed:") {
		t.Fatalf("the install of an invalid tree: %q", l)
	}
	must(t, a.Wait())
	io.WriteString(bIn, "go\n")
	if l := helperLine(t, bOut); l != "installed" {
		t.Fatalf("the good install: %q", l)
	}
	must(t, b.Wait())
	dot := filepath.Join(ws, ".bundlectl")
	if _, err := os.Stat(dot); err != nil {
		t.Fatalf("the skipped cleanup is not what this test is about: %v", err)
	}
	removed, err := manager(home, ws).GC()
	if err != nil {
		t.Fatal(err)
	}
	// gc says what it removed: the workspace .bundlectl, with its empty
	// root.
	if !slices.Contains(removed, dot) || !slices.Contains(removed, filepath.Join(dot, "bundles")) {
		t.Errorf("gc does not list the directories it reclaimed: %q", removed)
	}
	if _, err := os.Lstat(dot); !os.IsNotExist(err) {
		ents, _ := os.ReadDir(dot)
		t.Fatalf("gc kept the workspace .bundlectl a failed install made and nothing uses: %v %v", err, ents)
	}
	if _, err := os.Stat(filepath.Join(home, "bundles", "good")); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(home)
	must(t, err)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".reclaim") {
			t.Errorf("gc kept the record %s of a home in use", e.Name())
		}
	}
}

// Two homes share a workspace bundle: home A installed it, home B never
// recorded it. A's uninstall has checked the markers (no other home's)
// and pauses before it deletes the tree; B's install of the same source
// then runs. Were it to recover the tree in place (exactly what its
// source brings) and mark it, A would delete a tree B had just recorded,
// and B's record would name a tree that is gone. A holds the workspace
// lock exclusively from the check to the delete, so B's install cannot
// look at the root meanwhile: its wait for the lock runs out (shortened
// here; how long it is changes nothing) and it installs nothing. Real
// processes paced by their lines.
func TestUninstallExcludesOtherHomesRecover(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	good := filepath.Join(dir, "good")
	must(t, os.MkdirAll(filepath.Join(good, ".claude-plugin"), 0o755))
	must(t, os.WriteFile(filepath.Join(good, ".claude-plugin", "plugin.json"), []byte(`{"name":"good"}`), 0o644))
	must(t, os.MkdirAll(ws, 0o755))
	homeA, homeB := filepath.Join(dir, "home-a"), filepath.Join(dir, "home-b")
	if _, err := manager(homeA, ws).Install(context.Background(), sources.Request{Source: good}, lifecycle.InstallOptions{Scope: bundle.ScopeWorkspace}); err != nil {
		t.Fatal(err)
	}
	a, aIn, aOut := startPiped(t, helper("uninstall", homeA, ws, "H_NAME=good"))
	if l := helperLine(t, aOut); l != "checked" {
		t.Fatalf("home A's uninstall: %q", l)
	}
	b, _, bOut := startPiped(t, helper("install", homeB, ws, "H_SRC="+good, "H_SCOPE=workspace", "H_LOCKWAIT=200ms"))
	lb := helperLine(t, bOut)
	must(t, b.Wait())
	io.WriteString(aIn, "go\n")
	if l := helperLine(t, aOut); l != "uninstalled" {
		t.Fatalf("home A's uninstall: %q", l)
	}
	must(t, a.Wait())
	if lb == "installed" {
		t.Fatal("home B's install recorded the tree between home A's check of the markers and its delete: B's record now names a deleted tree")
	}
	if !strings.Contains(lb, "workspace lock") || !strings.Contains(lb, "run this command again") {
		t.Fatalf("home B's install while A's uninstall held the workspace lock: %s", lb)
	}
	if _, err := os.Stat(filepath.Join(ws, ".bundlectl", "bundles", "good")); !os.IsNotExist(err) {
		t.Fatalf("home A's uninstall kept the tree no other home had marked: %v", err)
	}
	// B's install now runs as a first install of the name.
	if _, err := manager(homeB, ws).Install(context.Background(), sources.Request{Source: good}, lifecycle.InstallOptions{Scope: bundle.ScopeWorkspace}); err != nil {
		t.Fatal(err)
	}
}

// Two homes share a workspace bundle and both update it with --force at
// once. Home A's update holds the workspace lock exclusively from its
// check of the other homes' markers to its swap (paused there); home B's
// update, and home B's install of the same name, cannot look at the tree
// meanwhile: each waits for the lock (shortened here), then fails and
// changes nothing. A's update then swaps in the new tree. Without the
// lock, B's update would replace the tree under A (and A's would then
// take B's tree for a local edit). Real processes paced by their lines.
func TestUpdateExcludesOtherHomes(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	good := filepath.Join(dir, "good")
	must(t, os.MkdirAll(filepath.Join(good, ".claude-plugin"), 0o755))
	must(t, os.WriteFile(filepath.Join(good, ".claude-plugin", "plugin.json"), []byte(`{"name":"good"}`), 0o644))
	must(t, os.MkdirAll(ws, 0o755))
	homeA, homeB := filepath.Join(dir, "home-a"), filepath.Join(dir, "home-b")
	for _, h := range []string{homeA, homeB} {
		if _, err := manager(h, ws).Install(context.Background(), sources.Request{Source: good}, lifecycle.InstallOptions{Scope: bundle.ScopeWorkspace}); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.WriteFile(filepath.Join(good, "README.md"), []byte("v2\n"), 0o644))
	a, aIn, aOut := startPiped(t, helper("update", homeA, ws, "H_NAME=good", "H_PAUSE=locked"))
	if l := helperLine(t, aOut); l != "locked" {
		t.Fatalf("home A's update: %q", l)
	}
	b, _, bOut := startPiped(t, helper("update", homeB, ws, "H_NAME=good", "H_LOCKWAIT=200ms"))
	lb := helperLine(t, bOut)
	must(t, b.Wait())
	c, _, cOut := startPiped(t, helper("install", homeB, ws, "H_SRC="+good, "H_SCOPE=workspace", "H_LOCKWAIT=200ms"))
	lc := helperLine(t, cOut)
	must(t, c.Wait())
	if _, err := os.Stat(filepath.Join(ws, ".bundlectl", "bundles", "good", "README.md")); !os.IsNotExist(err) {
		t.Fatalf("the tree changed while home A's update held the workspace lock: %v (home B's update: %s)", err, lb)
	}
	io.WriteString(aIn, "go\n")
	if l := helperLine(t, aOut); l != "updated true false" {
		t.Fatalf("home A's update: %q", l)
	}
	must(t, a.Wait())
	for who, l := range map[string]string{"update": lb, "install": lc} {
		if !strings.Contains(l, "workspace lock") || !strings.Contains(l, "run this command again") {
			t.Errorf("home B's %s while A's update held the workspace lock: %s", who, l)
		}
	}
	if b, err := os.ReadFile(filepath.Join(ws, ".bundlectl", "bundles", "good", "README.md")); err != nil || string(b) != "v2\n" {
		t.Fatalf("home A's update did not swap in the new tree: %q %v", b, err)
	}
}

// A first install into a workspace is SIGKILLed once it has made the
// workspace's .bundlectl and root and before it puts anything in them:
// it runs no cleanup and leaves no record on its way out, so the records
// must have been written before. The next gc removes the empty
// directories it left and says so, and leaves no record behind.
func TestGCReclaimsWhatAKilledInstallMade(t *testing.T) {
	dir := t.TempDir()
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	good := filepath.Join(dir, "good")
	must(t, os.MkdirAll(filepath.Join(good, ".claude-plugin"), 0o755))
	must(t, os.WriteFile(filepath.Join(good, ".claude-plugin", "plugin.json"), []byte(`{"name":"good"}`), 0o644))
	must(t, os.MkdirAll(ws, 0o755))
	a, _, aOut := startPiped(t, helper("install", home, ws, "H_SRC="+good, "H_PAUSE=locked", "H_SCOPE=workspace"))
	if l, err := aOut.ReadString('\n'); strings.TrimSpace(l) != "locked" {
		t.Fatalf("the install: %q %v", l, err)
	}
	dot := filepath.Join(ws, ".bundlectl")
	if _, err := os.Stat(filepath.Join(dot, "bundles")); err != nil {
		t.Fatalf("the install has not made its root: %v", err)
	}
	must(t, a.Process.Signal(syscall.SIGKILL))
	a.Wait()
	removed, err := manager(home, ws).GC()
	must(t, err)
	if _, err := os.Lstat(dot); !os.IsNotExist(err) {
		ents, _ := os.ReadDir(dot)
		t.Fatalf("gc kept the workspace .bundlectl a killed install made and nothing uses: %v %v", err, ents)
	}
	if !slices.Contains(removed, dot) || !slices.Contains(removed, filepath.Join(dot, "bundles")) {
		t.Errorf("gc does not list the directories it reclaimed: %q", removed)
	}
	ents, err := os.ReadDir(home)
	must(t, err)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".reclaim") {
			t.Errorf("gc kept the record %s of a home in use", e.Name())
		}
	}
	// A good install leaves no record.
	if _, err := manager(home, ws).Install(context.Background(), sources.Request{Source: good}, lifecycle.InstallOptions{Scope: bundle.ScopeWorkspace}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{home, dot} {
		ents, err := os.ReadDir(d)
		must(t, err)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".reclaim") {
				t.Errorf("a good install left the record %s in %s", e.Name(), d)
			}
		}
	}
}

// startPiped starts a helper process with its stdin and stdout piped to
// the test, which paces it by lines; the process is killed at cleanup.
func startPiped(t *testing.T, cmd *exec.Cmd) (*exec.Cmd, io.WriteCloser, *bufio.Reader) {
	t.Helper()
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	must(t, err)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	return cmd, stdin, bufio.NewReader(stdout)
}

// Home B, on another file system than the workspace, fetches into the
// workspace's tmp; it is paused there, its fetched tree staged. Home A's
// gc (A on the workspace's file system, then A on another one too) holds
// only A's fetch lock: it must not take B's fetch for a leftover. B's
// install then finishes. Without a tmp directory per home, A's gc deleted
// B's staged tree and B's install failed. Real processes paced by lines.
func TestGCKeepsOtherHomesFetchInWorkspaceTmp(t *testing.T) {
	for _, aelsewhere := range []bool{false, true} {
		t.Run(fmt.Sprintf("a-on-other-fs=%v", aelsewhere), func(t *testing.T) {
			dir := t.TempDir()
			ws := filepath.Join(dir, "ws")
			good := filepath.Join(dir, "good")
			must(t, os.MkdirAll(filepath.Join(good, ".claude-plugin"), 0o755))
			must(t, os.WriteFile(filepath.Join(good, ".claude-plugin", "plugin.json"), []byte(`{"name":"good"}`), 0o644))
			must(t, os.MkdirAll(ws, 0o755))
			homeA, homeB := filepath.Join(dir, "home-a"), filepath.Join(dir, "home-b")
			// Home A exists and has used the workspace.
			must(t, os.MkdirAll(filepath.Join(good+"2", ".claude-plugin"), 0o755))
			must(t, os.WriteFile(filepath.Join(good+"2", ".claude-plugin", "plugin.json"), []byte(`{"name":"good2"}`), 0o644))
			if _, err := manager(homeA, ws).Install(context.Background(), sources.Request{Source: good + "2"}, lifecycle.InstallOptions{Scope: bundle.ScopeWorkspace}); err != nil {
				t.Fatal(err)
			}
			b, bIn, bOut := startPiped(t, helper("install", homeB, ws, "H_SRC="+good, "H_SCOPE=workspace", "H_PAUSE=fetched", "H_WSTMP=1"))
			if l, err := bOut.ReadString('\n'); strings.TrimSpace(l) != "fetched" {
				t.Fatalf("home B's install: %q %v", l, err)
			}
			tmp := filepath.Join(ws, ".bundlectl", "tmp")
			var staged []string
			filepath.WalkDir(tmp, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.IsDir() && strings.HasPrefix(d.Name(), ".install-") {
					staged = append(staged, p)
				}
				return nil
			})
			if len(staged) != 1 {
				t.Fatalf("home B's fetch is not staged in the workspace's tmp: %q", staged)
			}
			if aelsewhere {
				lifecycle.UseWorkspaceTmp(t)
			}
			removed, err := manager(homeA, ws).GC()
			must(t, err)
			if _, err := os.Stat(staged[0]); err != nil {
				t.Fatalf("home A's gc removed home B's fetch in progress (%v): removed %q", err, removed)
			}
			io.WriteString(bIn, "go\n")
			if l, err := bOut.ReadString('\n'); strings.TrimSpace(l) != "installed" {
				t.Fatalf("home B's install after home A's gc: %q %v", l, err)
			}
			must(t, b.Wait())
		})
	}
}

// Two homes share a workspace bundle and both run update --force at once,
// from the same source. Home B has fetched (the new tree) and loaded the
// tree in place (the old one) when home A's update swaps the new tree in;
// B then takes the workspace lock. B must find exactly the tree it
// fetched in place: it replaces nothing and says so, and records the tree
// as placed from its source — not refuse it as a local edit to discard
// with --discard-local. Real processes paced by their lines.
func TestConcurrentForcedUpdatesOfTwoHomes(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	good := filepath.Join(dir, "good")
	must(t, os.MkdirAll(filepath.Join(good, ".claude-plugin"), 0o755))
	must(t, os.WriteFile(filepath.Join(good, ".claude-plugin", "plugin.json"), []byte(`{"name":"good"}`), 0o644))
	must(t, os.MkdirAll(ws, 0o755))
	homeA, homeB := filepath.Join(dir, "home-a"), filepath.Join(dir, "home-b")
	for _, h := range []string{homeA, homeB} {
		if _, err := manager(h, ws).Install(context.Background(), sources.Request{Source: good}, lifecycle.InstallOptions{Scope: bundle.ScopeWorkspace}); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.WriteFile(filepath.Join(good, "README.md"), []byte("v2\n"), 0o644))
	b, bIn, bOut := startPiped(t, helper("update", homeB, ws, "H_NAME=good", "H_PAUSE=fetched"))
	if l := helperLine(t, bOut); l != "fetched" {
		t.Fatalf("home B's update: %q", l)
	}
	a, _, aOut := startPiped(t, helper("update", homeA, ws, "H_NAME=good"))
	if l := helperLine(t, aOut); l != "updated true false" {
		t.Fatalf("home A's update: %q", l)
	}
	must(t, a.Wait())
	io.WriteString(bIn, "go\n")
	if l := helperLine(t, bOut); l != "updated false true" {
		t.Fatalf("home B's update after home A's placed the same tree: %q", l)
	}
	must(t, b.Wait())
	// B recorded the tree as placed: its next update is up to date, with
	// no edit to refuse.
	up, err := manager(homeB, ws).Update(context.Background(), "good", lifecycle.UpdateOptions{})
	if err != nil || up.Changed {
		t.Fatalf("home B's next update: %+v %v", up, err)
	}
}

// Homes A and B installed one workspace bundle from sources of their own
// and update it at once, each with --force, from sources that now differ:
// B has fetched when A swaps in its tree, and a hand edit is made to that
// tree before B takes the workspace lock. B must not swap its tree in over
// one it never saw (the edit would be lost): it refuses, and the tree in
// place keeps the edit. With --discard-local too, B discards only the
// edits it saw when it started, never a tree placed meanwhile.
func TestForcedUpdatesFromTwoSourcesKeepEditMeanwhile(t *testing.T) {
	for _, discard := range []bool{false, true} {
		t.Run(fmt.Sprintf("discard-local=%v", discard), func(t *testing.T) {
			dir := t.TempDir()
			ws := filepath.Join(dir, "ws")
			must(t, os.MkdirAll(ws, 0o755))
			homeA, homeB := filepath.Join(dir, "home-a"), filepath.Join(dir, "home-b")
			srcs := map[string]string{homeA: filepath.Join(dir, "src-a", "good"), homeB: filepath.Join(dir, "src-b", "good")}
			for _, h := range []string{homeA, homeB} {
				src := srcs[h]
				must(t, os.MkdirAll(filepath.Join(src, ".claude-plugin"), 0o755))
				must(t, os.WriteFile(filepath.Join(src, ".claude-plugin", "plugin.json"), []byte(`{"name":"good"}`), 0o644))
				if _, err := manager(h, ws).Install(context.Background(), sources.Request{Source: src}, lifecycle.InstallOptions{Scope: bundle.ScopeWorkspace}); err != nil {
					t.Fatal(err)
				}
			}
			must(t, os.WriteFile(filepath.Join(srcs[homeA], "README.md"), []byte("from A\n"), 0o644))
			must(t, os.WriteFile(filepath.Join(srcs[homeB], "README.md"), []byte("from B\n"), 0o644))
			env := []string{"H_NAME=good", "H_PAUSE=fetched"}
			if discard {
				env = append(env, "H_DISCARD=1")
			}
			b, bIn, bOut := startPiped(t, helper("update", homeB, ws, env...))
			if l := helperLine(t, bOut); l != "fetched" {
				t.Fatalf("home B's update: %q", l)
			}
			a, _, aOut := startPiped(t, helper("update", homeA, ws, "H_NAME=good"))
			if l := helperLine(t, aOut); l != "updated true false" {
				t.Fatalf("home A's update: %q", l)
			}
			must(t, a.Wait())
			tree := filepath.Join(ws, ".bundlectl", "bundles", "good")
			must(t, os.WriteFile(filepath.Join(tree, "NOTES.md"), []byte("edited by hand\n"), 0o644))
			io.WriteString(bIn, "go\n")
			l := helperLine(t, bOut)
			must(t, b.Wait())
			if got, err := os.ReadFile(filepath.Join(tree, "NOTES.md")); err != nil || string(got) != "edited by hand\n" {
				t.Fatalf("home B's update replaced the tree A placed and edited meanwhile: %q %v (B: %s)", got, err, l)
			}
			if got, _ := os.ReadFile(filepath.Join(tree, "README.md")); string(got) != "from A\n" {
				t.Fatalf("the tree in place is not A's: %q (B: %s)", got, l)
			}
			if !strings.HasPrefix(l, "failed:") || !strings.Contains(l, "bundlectl update") {
				t.Fatalf("home B's update: %q", l)
			}
		})
	}
}

// helperLine reads the next line a helper process writes on r, trimmed.
func helperLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	l, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("reading a helper's line: %v", err)
	}
	return strings.TrimSpace(l)
}
