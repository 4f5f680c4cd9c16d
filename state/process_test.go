package state

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary re-executes itself as a helper process: TestHelperProcess
// does nothing unless helperEnv names a mode.
const (
	helperEnv     = "BUNDLECTL_STATE_HELPER"
	helperHomeEnv = "BUNDLECTL_STATE_HELPER_HOME"
	helperArgEnv  = "BUNDLECTL_STATE_HELPER_ARG"
)

func helper(t *testing.T, mode, home, arg string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, helperHomeEnv+"="+home, helperArgEnv+"="+arg)
	cmd.Stderr = os.Stderr
	return cmd
}

func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper process only")
	}
	st := Open(os.Getenv(helperHomeEnv))
	arg := os.Getenv(helperArgEnv)
	var err error
	switch mode {
	case "random":
		err = helperRandom(st, arg)
	case "revoke":
		_, err = st.Update(func(s *State) error { _, err := s.Revoke(arg); return err })
	case "hold":
		unlock, lerr := st.lock()
		if lerr != nil {
			err = lerr
			break
		}
		defer unlock()
		fmt.Println("locked")
		time.Sleep(time.Minute) // until killed
	case "loop":
		err = helperLoop(st, arg)
	case "die-before-rename":
		testOnlyBeforeRename = func() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }
		_, err = st.Update(func(s *State) error { _, err := s.Trust(arg, testReceipt(arg, 99)); return err })
		err = fmt.Errorf("survived SIGKILL: %v", err)
	default:
		err = fmt.Errorf("unknown helper mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// helperRandom does random transitions on the ids in arg ("seed,n,id,id…")
// and prints, as JSON, how many persisted transitions it made per id.
func helperRandom(st *Store, arg string) error {
	f := strings.Split(arg, ",")
	seed, _ := strconv.ParseUint(f[0], 10, 64)
	n, _ := strconv.Atoi(f[1])
	ids := f[2:]
	rng := rand.New(rand.NewPCG(seed, 0))
	counts := map[string]int{}
	locked := 0
	for i := 0; i < n; i++ {
		id := ids[rng.IntN(len(ids))]
		op := rng.IntN(4)
		var changed bool
		_, err := st.Update(func(s *State) error {
			var err error
			switch op {
			case 0:
				changed, err = s.Trust(id, testReceipt(id, int(seed)*1000+i))
			case 1:
				changed, err = s.Enable(id)
			case 2:
				changed, err = s.Disable(id)
			case 3:
				changed, err = s.Revoke(id)
			}
			return err
		})
		switch {
		case errors.Is(err, ErrNotTrusted):
		case errors.Is(err, ErrLocked):
			locked++
		case err != nil:
			return err
		case changed:
			counts[id]++
		}
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"counts": counts, "locked": locked})
}

// helperLoop updates forever, appending each committed global generation
// to the side file arg after Update returns.
func helperLoop(st *Store, arg string) error {
	log, err := os.OpenFile(arg, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	fmt.Println("ready")
	for i := 0; ; i++ {
		s, err := st.Update(func(s *State) error {
			var err error
			switch i % 3 {
			case 0:
				_, err = s.Trust(idA, testReceipt(idA, i))
			case 1:
				_, err = s.Enable(idA)
			case 2:
				_, err = s.Disable(idA)
			}
			return err
		})
		if err != nil {
			return err
		}
		// One write(2) per line: a kill leaves whole lines or a torn last one.
		if _, err := log.WriteString(strconv.FormatUint(s.Generation(), 10) + "\n"); err != nil {
			return err
		}
	}
}

func TestConcurrentProcesses(t *testing.T) {
	home := newHome(t)
	const procs, perProc = 8, 40
	shared := []string{idA, "user/00000000000a/shared-two"}
	type result struct {
		Counts map[string]int `json:"counts"`
		Locked int            `json:"locked"`
	}
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*bytes.Buffer, procs)
	for i := range cmds {
		own := fmt.Sprintf("workspace/%012x/own-%d", i, i)
		ids := append([]string{own, own}, shared...)
		cmds[i] = helper(t, "random", home, fmt.Sprintf("%d,%d,%s", i+1, perProc, strings.Join(ids, ",")))
		outs[i] = new(bytes.Buffer)
		cmds[i].Stdout = outs[i]
	}
	start := time.Now()
	for _, c := range cmds {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]uint64{}
	var total uint64
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("helper %d: %v", i, err)
		}
		var r result
		if err := json.Unmarshal(outs[i].Bytes(), &r); err != nil {
			t.Fatalf("helper %d output %q: %v", i, outs[i], err)
		}
		if r.Locked > 0 {
			t.Logf("helper %d: %d updates timed out on the lock", i, r.Locked)
		}
		for id, n := range r.Counts {
			want[id] += uint64(n)
			total += uint64(n)
		}
	}
	t.Logf("%d processes, %d attempted, %d persisted transitions in %v", procs, procs*perProc, total, time.Since(start))

	s := mustLoad(t, Open(home))
	if s.Generation() != total {
		t.Errorf("global generation %d, want %d persisted transitions", s.Generation(), total)
	}
	for _, id := range s.IDs() {
		b, _ := s.Bundle(id)
		if b.Generation != want[id] {
			t.Errorf("%s: generation %d, processes reported %d transitions", id, b.Generation, want[id])
		}
		if len(b.Audit) > AuditLimit || len(b.Audit) != min(int(b.Generation), AuditLimit) {
			t.Errorf("%s: %d audit events for generation %d", id, len(b.Audit), b.Generation)
		}
		delete(want, id)
	}
	for id, n := range want {
		if n > 0 {
			t.Errorf("%s: %d transitions reported but no record", id, n)
		}
	}
	assertNoTemps(t, home)
}

func assertNoTemps(t *testing.T, home string) {
	t.Helper()
	ents, err := os.ReadDir(home)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			t.Errorf("temp file %s left in %s", e.Name(), home)
		}
	}
}

// A process that loaded state before another process revoked cannot
// resurrect the trust: Update re-reads under the lock and Enable never
// writes a receipt.
func TestStaleEnableCannotResurrectTrust(t *testing.T) {
	home := newHome(t)
	st := Open(home)
	mustUpdate(t, st, func(s *State) error { _, err := s.Trust(idA, testReceipt(idA, 1)); return err })

	stale := mustLoad(t, st) // process A's view: trusted, disabled
	if b, _ := stale.Bundle(idA); !b.Trusted() {
		t.Fatal("setup: not trusted")
	}
	if out, err := helper(t, "revoke", home, idA).Output(); err != nil { // process B
		t.Fatalf("revoke helper: %v %s", err, out)
	}
	// A acts on its stale view: in memory it may enable, but that copy can
	// never be written back.
	if ch, err := stale.Enable(idA); !ch || err != nil {
		t.Fatalf("stale in-memory enable: %v %v", ch, err)
	}
	_, err := st.Update(func(s *State) error { _, err := s.Enable(idA); return err })
	if !errors.Is(err, ErrNotTrusted) {
		t.Fatalf("enable after a concurrent revoke: %v, want ErrNotTrusted", err)
	}
	b, _ := mustLoad(t, st).Bundle(idA)
	if b.Trusted() || b.Enabled || b.Generation != 2 {
		t.Fatalf("after stale enable: trusted %v enabled %v generation %d; want revoked, disabled, 2", b.Trusted(), b.Enabled, b.Generation)
	}
}

// A lock held by a process is released by the kernel when it dies.
func TestLockHolderKilled(t *testing.T) {
	old := testOnlyLockWait
	testOnlyLockWait = 300 * time.Millisecond
	defer func() { testOnlyLockWait = old }()
	home := validHome(t)
	cmd := helper(t, "hold", home, "")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "locked\n" {
		cmd.Process.Kill()
		t.Fatalf("holder said %q", line)
	}
	_, err := Open(home).Update(func(*State) error { t.Error("fn ran while another process held the lock"); return nil })
	if !errors.Is(err, ErrLocked) {
		t.Errorf("Update while held: %v, want ErrLocked", err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	mustUpdate(t, Open(home), func(s *State) error { _, err := s.Enable(idA); return err })
}

func TestKilledWriterLeavesOldStateAndTempIsCleaned(t *testing.T) {
	home := validHome(t)
	before, _ := os.ReadFile(filepath.Join(home, FileName))
	err := helper(t, "die-before-rename", home, idB).Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("helper did not die by SIGKILL: %v", err)
	}
	after, _ := os.ReadFile(filepath.Join(home, FileName))
	if !bytes.Equal(before, after) {
		t.Fatal("state.json changed although the writer died before its rename")
	}
	temps, _ := filepath.Glob(filepath.Join(home, tempPrefix+"*"))
	if len(temps) != 1 {
		t.Fatalf("want the dead writer's temp file, found %v", temps)
	}
	// Load leaves it; the next Update removes it under the lock.
	mustLoad(t, Open(home))
	if _, err := os.Lstat(temps[0]); err != nil {
		t.Fatalf("Load removed the temp file: %v", err)
	}
	mustUpdate(t, Open(home), func(*State) error { return nil })
	assertNoTemps(t, home)
}

// Only renameio's own temp names are cleaned; nothing else in home is.
func TestStaleTempCleanupIsNarrow(t *testing.T) {
	home := validHome(t)
	keep := []string{".state.json", ".state.jsonx1", ".state.json12a", "state.json.bad", ".state.lock123"}
	for _, n := range keep {
		if err := os.WriteFile(filepath.Join(home, n), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(home, ".state.json77"), 0o700); err != nil {
		t.Fatal(err)
	}
	keep = append(keep, ".state.json77")
	stale := filepath.Join(home, ".state.json8472615")
	if err := os.WriteFile(stale, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, Open(home), func(*State) error { return nil })
	if _, err := os.Lstat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale temp %s not removed", stale)
	}
	for _, n := range keep {
		if _, err := os.Lstat(filepath.Join(home, n)); err != nil {
			t.Errorf("%s removed: %v", n, err)
		}
	}
}

// SIGKILL at random times never leaves a torn state.json or a stuck lock:
// after each kill the state parses and is the last committed generation
// or its successor (killed between rename and logging), and the next
// Update succeeds and cleans up temp files.
func TestCrashSafety(t *testing.T) {
	home := validHome(t)
	st := Open(home)
	logPath := filepath.Join(t.TempDir(), "committed")
	// A fixed number of kills, each after the helper said it is updating:
	// a busy machine makes the test slower, never weaker or failed.
	const trials = 60
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	var successor, temps, ran int
	for trial := 0; trial < trials; trial++ {
		ran++
		base := mustLoad(t, st).Generation()
		if err := os.WriteFile(logPath, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := helper(t, "loop", home, logPath)
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("trial %d: helper said %q", trial, line)
		}
		time.Sleep(time.Duration(rng.IntN(40_000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("trial %d: helper ended with %v, not SIGKILL", trial, err)
		}

		last := base
		data, _ := os.ReadFile(logPath)
		for _, line := range strings.SplitAfter(string(data), "\n") {
			if g, err := strconv.ParseUint(strings.TrimSuffix(line, "\n"), 10, 64); err == nil && strings.HasSuffix(line, "\n") {
				last = g
			}
		}
		s, err := st.Load()
		if err != nil {
			t.Fatalf("trial %d: state after SIGKILL: %v", trial, err)
		}
		switch g := s.Generation(); {
		case g == last:
		case g == last+1:
			successor++
		default:
			t.Fatalf("trial %d: generation %d after kill, last committed %d", trial, g, last)
		}
		if m, _ := filepath.Glob(filepath.Join(home, tempPrefix+"*")); len(m) > 0 {
			temps++
		}
		if b, _ := s.Bundle(idA); b.Generation != s.Generation() {
			t.Fatalf("trial %d: bundle generation %d, global %d", trial, b.Generation, s.Generation())
		}
		// No stale lock, and the temp file of a writer killed mid-write is
		// removed by the next Update.
		mustUpdate(t, st, func(s *State) error { _, err := s.Disable(idA); return err })
		assertNoTemps(t, home)
	}
	t.Logf("%d kills: %d between rename and log, %d left a temp file", ran, successor, temps)
}
