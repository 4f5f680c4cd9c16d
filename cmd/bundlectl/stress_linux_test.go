package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/internal/testtree"
	"github.com/bundlectl/bundlectl/state"
)

// The stress harness: many real bundlectl processes on one home and one
// workspace at once (and, from one worker, a second home sharing the
// workspace), some SIGKILLed at seeded random moments, then every
// invariant docs/state.md, docs/snapshots.md and docs/sources.md state is
// checked. By default one small round runs; run it long by hand with, e.g.,
//
//	go test ./cmd/bundlectl -run TestStressCollisions -count=1 -timeout 60m \
//	    -args -stress.rounds=20 -stress.workers=10 -stress.ops=20 -stress.seed=7
var (
	stressRounds  = flag.Int("stress.rounds", 1, "rounds of TestStressCollisions (each a fresh home)")
	stressWorkers = flag.Int("stress.workers", 6, "concurrent bundlectl processes per round")
	stressOps     = flag.Int("stress.ops", 8, "commands each worker runs, one after another")
	stressSeed    = flag.Uint64("stress.seed", 1, "seed of the first round (round r uses seed+r)")
	stressKill    = flag.Int("stress.kill", 30, "percent of commands SIGKILLed at a random moment")
	stressVerbose = flag.Bool("stress.v", false, "log every failed command")
	stressKillMax = flag.Int("stress.killms", 250, "latest moment of a SIGKILL, in ms after the start")
)

type stressOp struct {
	worker     int
	homeB      bool // run by the second home
	args       []string
	bundle     string // the bundle it changes, "" for none
	token      string // for trust: the token trusted
	start, end time.Time
	killed     bool // a SIGKILL was sent (it may have finished first)
	code       int
	out, err   string
}

type stressRig struct {
	t             *testing.T
	bin, ws, home string
	homeB         string // a second home sharing the workspace
	src           string // the local source of the installed bundle "kit"
	gsrc          string // the source of "guard", installed in the workspace
	agent         string // a stand-in for claude that exec starts
	env           []string
	event         []byte
}

func (r *stressRig) cmd(args ...string) *exec.Cmd {
	c := exec.Command(r.bin, append([]string{"--workspace", r.ws}, args...)...)
	c.Env = r.env
	c.Dir = r.ws
	return c
}

// cmdB is cmd run by the second home.
func (r *stressRig) cmdB(args ...string) *exec.Cmd {
	c := r.cmd(args...)
	c.Env = append(append([]string{}, r.env...), "BUNDLECTL_HOME="+r.homeB)
	return c
}

// must runs a command that nothing kills and that must succeed.
func (r *stressRig) must(args ...string) string {
	r.t.Helper()
	var out, errOut bytes.Buffer
	c := r.cmd(args...)
	c.Stdout, c.Stderr = &out, &errOut
	if err := c.Run(); err != nil {
		r.t.Fatalf("bundlectl %v: %v\nstdout: %s\nstderr: %s", args, err, out.String(), errOut.String())
	}
	return out.String()
}

func (r *stressRig) token(name string) (string, bool) {
	c := r.cmd("review", "--json", name)
	out, err := c.Output()
	if err != nil {
		return "", false
	}
	var rv struct{ Token string }
	if json.Unmarshal(out, &rv) != nil || rv.Token == "" {
		return "", false
	}
	return rv.Token, true
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func newStressRig(t *testing.T) *stressRig {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := &stressRig{t: t, bin: filepath.Join(dir, "bundlectl"), ws: filepath.Join(dir, "ws"),
		home: filepath.Join(dir, "home"), homeB: filepath.Join(dir, "home-b"), src: filepath.Join(dir, "src", "kit"), gsrc: filepath.Join(dir, "src", "guard")}
	if err := os.Symlink(self, r.bin); err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(dir, "user")
	if err := os.MkdirAll(user, 0o700); err != nil {
		t.Fatal(err)
	}
	// exec recognises the agent by its name; this one prints the
	// manifest of each plugin directory it is given, and exits.
	r.agent = filepath.Join(dir, "bin", "claude")
	writeFiles(t, filepath.Dir(r.agent), map[string]string{"claude": `#!/bin/sh
for a in "$@"; do
	case "$a" in --plugin-dir=*) echo "plugin: $(tr -d '\n' <"${a#--plugin-dir=}/.claude-plugin/plugin.json")" ;; esac
done
`})
	if err := os.Chmod(r.agent, 0o755); err != nil {
		t.Fatal(err)
	}
	r.env = []string{"HOME=" + user, "BUNDLECTL_HOME=" + r.home, "PATH=" + os.Getenv("PATH"),
		"GORACE=" + goraceQuickExit, "NO_COLOR=1"}
	bundles := filepath.Join(r.ws, ".bundlectl", "bundles")
	// guard is trusted and enabled and never disabled: every hooks run
	// must block, or say why the guard did not run.
	for _, n := range []string{"a", "b"} {
		writeFiles(t, filepath.Join(bundles, n), map[string]string{
			".claude-plugin/plugin.json": fmt.Sprintf(`{"name": %q, "userConfig": {"greeting": {"type": "string", "title": "Greeting", "description": "what to say"}}}`, n),
			"skills/s/SKILL.md":          "---\nname: s\ndescription: a skill\n---\nbody\n",
		})
	}
	writeFiles(t, r.src, map[string]string{
		".claude-plugin/plugin.json": `{"name": "kit"}`,
		"skills/k/SKILL.md":          "---\nname: k\ndescription: a skill\n---\nv0\n",
		"hooks/hooks.json":           `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "cat >/dev/null; echo blocked by kit >&2; exit 2"}]}]}}`,
	})
	writeFiles(t, r.gsrc, map[string]string{
		".claude-plugin/plugin.json": `{"name": "guard"}`,
		"README.md":                  "v0\n",
		"hooks/hooks.json":           `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "cat >/dev/null; echo blocked by guard >&2; exit 2"}]}]}}`,
	})
	// rg (the example repo-guard, placed by hand) is trusted and enabled
	// and nothing changes it: every run and mcp session of it that is not
	// killed must succeed, whatever else runs.
	examples, err := filepath.Abs("../../examples/workspace/.bundlectl/bundles/repo-guard")
	if err != nil {
		t.Fatal(err)
	}
	if err := testtree.Copy(examples, filepath.Join(bundles, "repo-guard")); err != nil {
		t.Fatal(err)
	}
	r.event, _ = json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]string{"command": "rm -rf /"}, "cwd": r.ws, "session_id": "s"})
	r.must("install", "--scope", "user", r.src)
	r.must("install", "--scope", "workspace", r.gsrc)
	tok, ok := r.token("guard")
	if !ok {
		t.Fatal("review guard failed")
	}
	r.must("trust", "guard", tok)
	r.must("enable", "guard")
	tok, ok = r.token("repo-guard")
	if !ok {
		t.Fatal("review repo-guard failed")
	}
	r.must("trust", "repo-guard", tok)
	r.must("enable", "repo-guard")
	// The second home uses guard too (its install finds the tree in
	// place): updates of guard need --force from now on.
	if out, err := r.cmdB("install", "--scope", "workspace", r.gsrc).CombinedOutput(); err != nil {
		t.Fatalf("home B's install of guard: %v\n%s", err, out)
	}
	return r
}

// nextB picks the next command of the second home: the lifecycle commands
// on the shared workspace bundle guard, and gc. None may delete guard's
// tree (the first home's marker keeps it), so the first home's hooks run
// keeps blocking (checkGuard), and none may fail for a collision
// (checkOutcomes).
func (r *stressRig) nextB(rng *rand.Rand, worker int) *stressOp {
	op := &stressOp{worker: worker, homeB: true}
	switch rng.IntN(5) {
	case 0:
		op.args = []string{"install", "--scope", "workspace", r.gsrc}
	case 1:
		op.args = []string{"uninstall", "--scope", "workspace", "guard"}
	case 2:
		op.args = []string{"update", "--force", "guard"}
	case 3:
		op.args = []string{"update", "guard"}
	default:
		op.args = []string{"gc"}
	}
	return op
}

// mcpSession is a short MCP session: initialize, then tools/list; the
// server exits at the end of its input.
const mcpSession = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"stress","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}
`

var stressNames = []string{"guard", "a", "b", "kit"}

// next picks a worker's next command. Trust reviews first (a process that
// is never killed), so the token is the one of the tree at that moment.
func (r *stressRig) next(rng *rand.Rand, worker int) *stressOp {
	op := &stressOp{worker: worker}
	name := stressNames[rng.IntN(len(stressNames))]
	switch k := rng.IntN(23); k {
	case 22:
		// A short agent session: exec builds or checks the views of the
		// active bundles and starts the stand-in with them.
		op.args = []string{"exec", "--", r.agent, "-p", "hi"}
	case 17:
		op.args = []string{"run", "repo-guard", "word-count", "--input", `{"text":"one two three"}`}
	case 18:
		op.args = []string{"mcp", "repo-guard", "local-index"}
	case 19:
		op.args = []string{"lock", "--allow-unpinned", "--drop", "kit"}
		if rng.IntN(2) == 0 {
			op.args = []string{"lock", "--allow-unpinned"}
		}
	case 20, 21:
		// sync may trust, enable and install every locked bundle.
		op.args, op.bundle = []string{"sync", "--locked"}, "*"
	case 15, 16:
		op.args, op.bundle = []string{"update", "guard"}, "guard"
	case 14:
		if name == "guard" || name == "kit" {
			name = "b"
		}
		op.args, op.bundle = []string{"configure", name, fmt.Sprintf("greeting=v%d", rng.IntN(1000))}, name
	case 0, 1:
		if tok, ok := r.token(name); ok {
			op.args, op.bundle, op.token = []string{"trust", name, tok}, name, tok
		} else {
			op.args = []string{"list", "--json"}
		}
	case 2:
		if name == "guard" { // guard stays enabled
			name = "a"
		}
		op.args, op.bundle = []string{"disable", name}, name
	case 3:
		op.args, op.bundle = []string{"enable", name}, name
	case 4:
		op.args, op.bundle = []string{"revoke", name}, name
	case 5:
		op.args, op.bundle = []string{"install", "--scope", "user", r.src}, "kit"
	case 6:
		op.args, op.bundle = []string{"uninstall", "kit"}, "kit"
	case 7:
		op.args, op.bundle = []string{"update", "kit"}, "kit"
	case 8:
		op.args = []string{"gc"}
	case 9:
		op.args = []string{"verify"}
	case 10:
		op.args = []string{"list", "--json"}
	default:
		op.args = []string{"hooks", "run", "PreToolUse"}
	}
	return op
}

// mutateFile replaces a file by one of three contents.
func (r *stressRig) mutateFile(rng *rand.Rand, p string) {
	tmp := filepath.Join(filepath.Dir(filepath.Dir(p)), fmt.Sprintf(".mut.%d", rng.Uint32()))
	if err := os.WriteFile(tmp, []byte(fmt.Sprintf("v%d\n", rng.IntN(3))), 0o644); err != nil {
		r.t.Error(err)
		return
	}
	if err := os.Rename(tmp, p); err != nil {
		r.t.Error(err)
	}
}

// mutateSource changes the installed bundle's source as an upstream would,
// by writing a new file and renaming it over the old one.
func (r *stressRig) mutateSource(rng *rand.Rand) {
	p := filepath.Join(r.src, "skills", "k", "SKILL.md")
	tmp := p + fmt.Sprintf(".%d", rng.Uint32())
	if err := os.WriteFile(tmp, []byte(fmt.Sprintf("---\nname: k\ndescription: a skill\n---\nv%d\n", rng.IntN(3))), 0o644); err != nil {
		r.t.Error(err)
		return
	}
	if err := os.Rename(tmp, p); err != nil {
		r.t.Error(err)
	}
}

func (r *stressRig) exec(op *stressOp, rng *rand.Rand) {
	var out, errOut bytes.Buffer
	c := r.cmd(op.args...)
	if op.homeB {
		c = r.cmdB(op.args...)
	}
	c.Stdout, c.Stderr = &out, &errOut
	switch op.args[0] {
	case "hooks":
		c.Stdin = bytes.NewReader(r.event)
	case "mcp":
		c.Stdin = strings.NewReader(mcpSession)
	}
	kill := rng.IntN(100) < *stressKill
	delay := time.Duration(rng.IntN(*stressKillMax*1000)) * time.Microsecond
	op.start = time.Now()
	if err := c.Start(); err != nil {
		r.t.Errorf("start %v: %v", op.args, err)
		op.code = -1
		return
	}
	if kill {
		op.killed = true
		timer := time.AfterFunc(delay, func() { c.Process.Signal(syscall.SIGKILL) })
		defer timer.Stop()
	}
	err := c.Wait()
	op.end = time.Now()
	op.out, op.err = out.String(), errOut.String()
	if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		op.code = -int(ws.Signal())
		return
	}
	op.code = c.ProcessState.ExitCode()
	_ = err
}

func TestStressCollisions(t *testing.T) {
	for round := 0; round < *stressRounds; round++ {
		seed := *stressSeed + uint64(round)
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) { stressRound(t, seed) })
	}
}

func stressRound(t *testing.T, seed uint64) {
	r := newStressRig(t)
	var (
		mu  sync.Mutex
		ops []*stressOp
		wg  sync.WaitGroup
	)
	for w := 0; w < *stressWorkers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			for i := 0; i < *stressOps; i++ {
				if rng.IntN(8) == 0 {
					r.mutateSource(rng)
				}
				if rng.IntN(5) == 0 {
					r.mutateFile(rng, filepath.Join(r.gsrc, "README.md"))
				}
				var op *stressOp
				if w == *stressWorkers-1 && w > 0 {
					op = r.nextB(rng, w) // the round's size stays the same
				} else {
					op = r.next(rng, w)
				}
				r.exec(op, rng)
				mu.Lock()
				ops = append(ops, op)
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	killed, signaled := 0, 0
	for _, op := range ops {
		if op.killed {
			killed++
		}
		if op.code < 0 {
			signaled++
		}
	}
	codes := map[string]int{}
	for _, op := range ops {
		who := ""
		if op.homeB {
			who = "B:"
		}
		codes[fmt.Sprintf("%s%s=%d", who, op.args[0], op.code)]++
	}
	t.Logf("exits: %v", codes)
	if *stressVerbose {
		for _, op := range ops {
			if op.code > 0 || op.args[0] == "hooks" && op.code == 0 {
				t.Logf("%s", describe(op))
			}
		}
	}
	t.Logf("seed %d: %d commands by %d workers, %d SIGKILLs sent, %d died of one", seed, len(ops), *stressWorkers, killed, signaled)
	r.checkGuard(ops)
	r.checkRuntime(ops)
	r.checkOutcomes(ops)
	r.checkFinal(ops)
}

func describe(op *stressOp) string {
	who := ""
	if op.homeB {
		who = " (home B)"
	}
	return fmt.Sprintf("worker %d%s: bundlectl %s: exit %d (killed %v)\nstdout: %s\nstderr: %s",
		op.worker, who, strings.Join(op.args, " "), op.code, op.killed, op.out, op.err)
}

// checkGuard: guard is trusted and enabled throughout (only re-trusted or
// revoked, never disabled), so a hooks run that finished either blocked,
// or said why guard's hook did not run; it never let the call through
// silently.
func (r *stressRig) checkGuard(ops []*stressOp) {
	blocked, told := 0, 0
	for _, op := range ops {
		if op.args[0] != "hooks" || op.code < 0 {
			continue
		}
		switch {
		case op.code == 2:
			blocked++
		case op.code == 0 && strings.Contains(op.out, `\"guard\"`):
			told++
		default:
			r.t.Errorf("hooks run neither blocked nor said why guard did not run:\n%s", describe(op))
		}
	}
	r.t.Logf("hooks run: %d blocked, %d said guard did not run", blocked, told)
}

// checkRuntime: repo-guard is trusted and enabled throughout and nothing
// changes it, so every run and mcp session that was not killed succeeded
// with the tool's or the server's answer, and every exec started the
// agent with repo-guard's view.
func (r *stressRig) checkRuntime(ops []*stressOp) {
	n := 0
	for _, op := range ops {
		if op.code < 0 {
			continue
		}
		switch op.args[0] {
		case "run":
			n++
			if op.code != 0 || !strings.Contains(op.out, `"words":3`) {
				r.t.Errorf("run of an active bundle failed under a collision:\n%s", describe(op))
			}
		case "mcp":
			n++
			if op.code != 0 || !strings.Contains(op.out, `"id":2`) || !strings.Contains(op.out, `"tools"`) {
				r.t.Errorf("mcp session of an active bundle failed under a collision:\n%s", describe(op))
			}
		case "exec":
			n++
			if op.code != 0 || !execLoaded.MatchString(op.out) {
				r.t.Errorf("exec did not start the agent with an active bundle under a collision:\n%s", describe(op))
			}
		}
	}
	r.t.Logf("run, mcp and exec: %d finished, all answered", n)
}

// checkOutcomes: no command that was not killed fails for a reason a
// collision must not cause: a lock it could not take (the waits are 10 s,
// far more than any holder here), malformed or unsafe state, a tampered or
// missing snapshot, a panic.
func (r *stressRig) checkOutcomes(ops []*stressOp) {
	bad := regexp.MustCompile(`(?i)panic|malformed|unsafe|tamper|integrity check|does not verify|goroutine |lock .*not acquired|held by another`)
	for _, op := range ops {
		if op.code < 0 {
			continue
		}
		if bad.MatchString(op.err) || bad.MatchString(op.out) || op.code == 4 {
			r.t.Errorf("a collision made a command fail:\n%s", describe(op))
		}
	}
}

// execLoaded matches the stand-in agent's line for repo-guard's view.
var execLoaded = regexp.MustCompile(`(?m)^plugin: .*"name": *"repo-guard"`)

var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

func (r *stressRig) checkFinal(ops []*stressOp) {
	t := r.t
	// No lock is left held: the kernel drops a dead process's flock.
	for _, l := range []string{"state.lock", "fetch.lock"} {
		f, err := os.Open(filepath.Join(r.home, l))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			t.Errorf("%s is still locked after every process ended: %v", l, err)
		}
		f.Close()
	}
	// state.json parses and keeps its invariants.
	s, err := state.Open(r.home).Load()
	if err != nil {
		t.Fatalf("state after the run: %v", err)
	}
	// No transition a process reported done is lost: for each bundle, the
	// last changing command to finish, if it overlapped no other changing
	// command of that bundle (killed or not), decided the final state.
	byBundle := map[string][]*stressOp{}
	for _, op := range ops {
		switch op.bundle {
		case "":
		case "*":
			for _, n := range stressNames {
				byBundle[n] = append(byBundle[n], op)
			}
		default:
			byBundle[op.bundle] = append(byBundle[op.bundle], op)
		}
	}
	ids := map[string]string{}
	var lj struct {
		Bundles []struct{ Name, ID, Status string }
	}
	if err := json.Unmarshal([]byte(r.must("list", "--json")), &lj); err != nil {
		t.Fatal(err)
	}
	for _, b := range lj.Bundles {
		ids[b.Name] = b.ID
	}
	lastChecked := 0
	defer func() { t.Logf("final state checked against the last command of %d bundle(s)", lastChecked) }()
	for name, list := range byBundle {
		sort.Slice(list, func(i, j int) bool { return list[i].end.Before(list[j].end) })
		last := list[len(list)-1]
		if last.code != 0 || last.killed {
			continue
		}
		alone := true
		for _, o := range list[:len(list)-1] {
			if o.end.After(last.start) {
				alone = false
			}
		}
		if !alone {
			continue
		}
		lastChecked++
		var rec *state.Record
		if id, ok := ids[name]; ok {
			if b, ok := s.Bundle(id); ok {
				rec = &b
			}
		}
		switch last.args[0] {
		case "trust":
			if rec == nil || rec.Receipt == nil || rec.Receipt.Token().String() != last.token {
				t.Errorf("lost transition: %s\nfinal record: %+v", describe(last), rec)
			}
		case "enable":
			if rec == nil || !rec.Enabled {
				t.Errorf("lost transition: %s\nfinal record: %+v", describe(last), rec)
			}
		case "disable":
			if rec != nil && rec.Enabled {
				t.Errorf("lost transition: %s\nfinal record: %+v", describe(last), rec)
			}
		case "revoke":
			if rec != nil && rec.Receipt != nil {
				t.Errorf("lost transition: %s\nfinal record: %+v", describe(last), rec)
			}
		case "uninstall":
			if _, ok := ids[name]; ok {
				t.Errorf("lost transition: %s\nstill listed", describe(last))
			}
		case "configure":
			m := regexp.MustCompile(`\(in "([^"]+)"`).FindStringSubmatch(last.out)
			if m == nil {
				t.Errorf("configure printed no path: %s", describe(last))
				continue
			}
			b, err := os.ReadFile(m[1])
			if err != nil || !strings.Contains(string(b), strings.TrimPrefix(last.args[2], "greeting=")) {
				t.Errorf("lost configure: %s\noptions file: %s %v", describe(last), b, err)
			}
		case "install", "update":
			if _, ok := ids[name]; !ok {
				t.Errorf("lost transition: %s\nnot listed", describe(last))
			}
		}
	}
	// Every trust reported done is in its bundle's audit trail (guard, a
	// and b are never forgotten, so their generations only grow).
	trustedAt := regexp.MustCompile(`^trusted "([a-z]+)" at generation (\d+)\n`)
	for _, op := range ops {
		m := trustedAt.FindStringSubmatch(op.out)
		if op.code != 0 || m == nil || m[1] == "kit" {
			continue
		}
		b, ok := s.Bundle(ids[m[1]])
		var gen uint64
		fmt.Sscan(m[2], &gen)
		if !ok || b.Generation < gen {
			t.Errorf("lost trust: %s\nfinal generation %d", describe(op), b.Generation)
			continue
		}
		if b.Generation-gen >= state.AuditLimit {
			continue
		}
		found := false
		for _, e := range b.Audit {
			if e.Generation == gen && e.Action == state.ActionTrust && e.Receipt != nil && e.Receipt.Token.String() == op.token {
				found = true
			}
		}
		if !found {
			t.Errorf("lost trust: %s\nnot in the audit trail %+v", describe(op), b.Audit)
		}
	}
	// Every trusted record's snapshot exists and verifies: a mismatch
	// may only be a source edited since its trust (the harness edits
	// them), never a snapshot.
	c := r.cmd("verify")
	if out, err := c.CombinedOutput(); err != nil {
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "MISMATCH") && !strings.HasSuffix(l, "update pending review: content changed since trust") {
				t.Errorf("verify after the run: %v\n%s", err, out)
			}
		}
	}
	// gc removes every leftover; then the store holds exactly the
	// snapshots receipts reference, each with at most its records file.
	r.must("gc")
	s, err = state.Open(r.home).Load()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, id := range s.IDs() {
		if b, _ := s.Bundle(id); b.Receipt != nil {
			want[b.Receipt.ContentHash.String()] = true
			if p := filepath.Join(r.home, "store", b.Receipt.ContentHash.String()); b.Receipt.Snapshot != p {
				t.Errorf("%s: receipt names snapshot %s, want %s", id, b.Receipt.Snapshot, p)
			}
		}
	}
	// Modes survive every kill: the home and store 0700, state.json 0600.
	for p, m := range map[string]os.FileMode{r.home: 0o700 | os.ModeDir, filepath.Join(r.home, "store"): 0o700 | os.ModeDir, filepath.Join(r.home, "state.json"): 0o600, filepath.Join(r.home, "state.lock"): 0o600} {
		if fi, err := os.Lstat(p); err != nil {
			t.Error(err)
		} else if fi.Mode() != m {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode(), m)
		}
	}
	entries, err := os.ReadDir(filepath.Join(r.home, "store"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		n := e.Name()
		switch {
		case hex64.MatchString(n) && want[n]:
		case strings.HasSuffix(n, ".records") && want[strings.TrimSuffix(n, ".records")]:
		default:
			t.Errorf("gc left store/%s", n)
		}
	}
	for h := range want {
		if _, err := os.Stat(filepath.Join(r.home, "store", h)); err != nil {
			t.Errorf("a receipt's snapshot is gone: %v", err)
		}
	}
	if out, err := r.cmdB("gc").CombinedOutput(); err != nil {
		t.Errorf("home B's gc after the run: %v\n%s", err, out)
	}
	for _, d := range []string{filepath.Join(r.home, "tmp"), filepath.Join(r.homeB, "tmp"), filepath.Join(r.ws, ".bundlectl", "tmp")} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			t.Errorf("gc left %s/%s", d, e.Name())
		}
	}
	// Home B never deleted the tree home A uses, nor A's marker of it.
	if _, err := os.Stat(filepath.Join(r.ws, ".bundlectl", "bundles", "guard", ".claude-plugin", "plugin.json")); err != nil {
		t.Errorf("guard's tree after home B's commands: %v", err)
	}
	sum := sha256.Sum256([]byte(r.home))
	if _, err := os.Stat(filepath.Join(r.ws, ".bundlectl", "homes", "guard", hex.EncodeToString(sum[:6]))); err != nil {
		t.Errorf("home A's marker of guard after home B's commands: %v", err)
	}
	tokens := map[string]bool{}
	for _, id := range s.IDs() {
		if b, _ := s.Bundle(id); b.Receipt != nil {
			tokens[b.Receipt.Token().String()] = true
		}
	}
	// No temporary file of a killed write is left anywhere in the home.
	filepath.WalkDir(r.home, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == r.home {
			return nil
		}
		if d.IsDir() && (filepath.Dir(p) == filepath.Join(r.home, "store") || p == filepath.Join(r.home, "bundles")) {
			return filepath.SkipDir
		}
		// Views: no exec runs now, so no session is left (gc sweeps a
		// killed exec's), and each view is of a token a receipt holds.
		if views := filepath.Join(r.home, "views"); d.IsDir() && filepath.Dir(p) == views {
			if d.Name() == "sessions" {
				left, _ := os.ReadDir(p)
				for _, e := range left {
					t.Errorf("after gc, the session of an exec: %s", filepath.Join(p, e.Name()))
				}
			} else if !tokens[d.Name()] {
				t.Errorf("after gc, a view of a token no receipt holds: %s", p)
			}
			return filepath.SkipDir
		}
		n := d.Name()
		if strings.HasPrefix(n, ".") && !strings.HasPrefix(n, ".state.json") {
			t.Errorf("after gc, a leftover: %s", p)
		}
		return nil
	})
	// The next command is not blocked, and a write removes any temp file a
	// killed writer left.
	tok, ok := r.token("guard")
	if !ok {
		t.Fatal("review guard after the run failed")
	}
	r.must("trust", "guard", tok)
	entries, _ = os.ReadDir(r.home)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".state.json") {
			t.Errorf("a write left %s", e.Name())
		}
	}
	if out, err := r.cmd("verify").CombinedOutput(); err != nil && !strings.Contains(string(out), "update pending review") {
		t.Errorf("verify after the final trust: %v\n%s", err, out)
	}
	// The recovery the docs give works after any kill: uninstall kit (with
	// --force when a killed install left it looking placed by hand), then
	// the name is free, install, trust, enable and update succeed.
	if c := r.cmd("uninstall", "kit"); true {
		out, err := c.CombinedOutput()
		if err != nil && strings.Contains(string(out), "uninstall --force") {
			r.must("uninstall", "--force", "--scope", "user", "kit")
		} else if err != nil && !strings.Contains(string(out), `no bundle named "kit"`) {
			t.Errorf("uninstall kit after the run: %v\n%s", err, out)
		}
	}
	r.must("install", "--scope", "user", r.src)
	tok, ok = r.token("kit")
	if !ok {
		t.Fatal("review kit failed")
	}
	r.must("trust", "kit", tok)
	r.must("enable", "kit")
	r.must("update", "kit")
	var ev bytes.Buffer
	c = r.cmd("hooks", "run", "PreToolUse")
	c.Stdin = bytes.NewReader(r.event)
	c.Stdout, c.Stderr = &ev, &ev
	if err := c.Run(); err == nil || !strings.Contains(ev.String(), "blocked by") {
		t.Errorf("guard after the run: %v\n%s", err, ev.String())
	}
}

// TestStressFreshHome starts first installs into one fresh home and
// workspace at once, half of them of a tree that is refused: a failed
// first install removes the home and roots it created (docs/sources.md),
// and must never remove one that a concurrent install is using. Every
// good install must succeed and leave its bundle in place. Seeded like
// TestStressCollisions (-stress.rounds, -stress.workers, -stress.seed).
func TestStressFreshHome(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 4**stressRounds; round++ {
		seed := *stressSeed + uint64(round)
		rng := rand.New(rand.NewPCG(seed, 0))
		dir := t.TempDir()
		bin, home, ws := filepath.Join(dir, "bundlectl"), filepath.Join(dir, "home"), filepath.Join(dir, "ws")
		if err := os.Symlink(self, bin); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, filepath.Join(dir, "src", "bad"), map[string]string{".claude-plugin/plugin.json": "{"})
		type job struct {
			name, scope string
			c           *exec.Cmd
			out         bytes.Buffer
		}
		var jobs []*job
		for w := 0; w < max(*stressWorkers, 2); w++ {
			j := &job{name: "bad", scope: "user"}
			if rng.IntN(2) == 0 {
				j.scope = "workspace"
			}
			if w%2 == 1 {
				j.name = fmt.Sprintf("g%d", w)
				writeFiles(t, filepath.Join(dir, "src", j.name), map[string]string{".claude-plugin/plugin.json": fmt.Sprintf(`{"name": %q}`, j.name)})
			}
			j.c = exec.Command(bin, "--workspace", ws, "install", "--scope", j.scope, filepath.Join(dir, "src", j.name))
			j.c.Env = []string{"HOME=" + dir, "BUNDLECTL_HOME=" + home, "PATH=" + os.Getenv("PATH"), "GORACE=" + goraceQuickExit, "NO_COLOR=1"}
			j.c.Stdout, j.c.Stderr = &j.out, &j.out
			jobs = append(jobs, j)
		}
		for _, j := range jobs {
			if err := j.c.Start(); err != nil {
				t.Fatal(err)
			}
		}
		for _, j := range jobs {
			err := j.c.Wait()
			switch {
			case j.name == "bad" && err == nil:
				t.Errorf("seed %d: the install of an invalid tree succeeded", seed)
			case j.name != "bad" && err != nil:
				t.Errorf("seed %d: install %s (%s) lost its work to a concurrent failed install: %v\n%s", seed, j.name, j.scope, err, j.out.String())
			case j.name != "bad":
				root := filepath.Join(home, "bundles")
				if j.scope == "workspace" {
					root = filepath.Join(ws, ".bundlectl", "bundles")
				}
				if _, err := os.Stat(filepath.Join(root, j.name, ".claude-plugin", "plugin.json")); err != nil {
					t.Errorf("seed %d: %s was installed but is not in its root: %v", seed, j.name, err)
				}
			}
		}
		// What the failed ones made and could not remove (a good one
		// held the locks) gc removes: no record is left, and no
		// workspace .bundlectl when no good install went there.
		gc := exec.Command(bin, "--workspace", ws, "gc")
		gc.Env = jobs[0].c.Env
		if out, err := gc.CombinedOutput(); err != nil {
			t.Fatalf("seed %d: gc: %v\n%s", seed, err, out)
		}
		wsUsed := false
		for _, j := range jobs {
			wsUsed = wsUsed || (j.name != "bad" && j.scope == "workspace")
		}
		dot := filepath.Join(ws, ".bundlectl")
		if _, err := os.Lstat(dot); !wsUsed && !os.IsNotExist(err) {
			t.Errorf("seed %d: no install went into the workspace, and gc left its .bundlectl (%v)", seed, err)
		}
		for _, d := range []string{home, dot} {
			ents, _ := os.ReadDir(d)
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), ".reclaim") {
					t.Errorf("seed %d: gc left %s", seed, filepath.Join(d, e.Name()))
				}
			}
		}
	}
}
