package staging

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/receipts"
)

const helperEnv = "BUNDLECTL_STAGING_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "stage-loop" {
		os.Exit(stageLoop())
	}
	os.Exit(m.Run())
}

// stageLoop is the crash test's victim: it stages a tree and collects it
// again, forever, until it is killed.
func stageLoop() int {
	want, err := receipts.Parse(os.Getenv("WANT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	tree, rep := bundle.Walk(os.Getenv("SRC"), bundle.Limits{})
	if rep.Err() != nil {
		fmt.Fprintln(os.Stderr, rep.Err())
		return 2
	}
	s := &Store{Dir: os.Getenv("STORE")}
	fmt.Println("ready") // the kill clock starts here, not at exec
	for {
		if _, err := s.Stage(tree, want, bundle.Limits{}); err != nil {
			fmt.Fprintln(os.Stderr, "stage:", err)
			return 1
		}
		if _, err := s.GC(nil); err != nil {
			fmt.Fprintln(os.Stderr, "gc:", err)
			return 1
		}
	}
}

// crashTree is several hundred small files and one larger one, so that a
// Stage takes long enough to be killed in every phase.
func crashTree(t *testing.T) string {
	src := t.TempDir()
	files := map[string]string{"big.bin": strings.Repeat("0123456789abcdef", 2<<20/16)}
	for i := range 300 {
		files[fmt.Sprintf("d%02d/f%03d.md", i%40, i)] = strings.Repeat(fmt.Sprint(i), 100+i)
	}
	files["tool"] = "#!/bin/sh\n"
	files["empty/"] = ""
	writeTree(t, src, files)
	return src
}

func TestCrashLeavesNoPartialSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("kills real processes for several seconds")
	}
	src := crashTree(t)
	want := referenceHash(t, src)
	s := newStore(t)

	// Time one Stage to spread the kills over a few of them.
	start := time.Now()
	if _, err := s.Stage(walk(t, src), want, bundle.Limits{}); err != nil {
		t.Fatal(err)
	}
	one := time.Since(start)
	if _, err := s.GC(nil); err != nil {
		t.Fatal(err)
	}
	window := 10*time.Millisecond + 2*one
	t.Logf("one Stage takes %v; killing within %v", one, window)

	// A fixed number of kills, not as many as fit in a time: a busy
	// machine makes the test slower, never weaker or failed. The window
	// above scales with the machine's speed at the time.
	const trials = 60
	var sawTmp, sawSnap, sawDel, done int
	for trial := 0; trial < trials; trial++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"=stage-loop", "SRC="+src, "STORE="+s.Dir, "WANT="+want.String())
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// However slowly a busy machine starts the helper, the kill lands
		// while it stages or collects, not before it began.
		if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("trial %d: helper said %q\n%s", trial, line, stderr.String())
		}
		time.Sleep(time.Duration(rand.Int64N(int64(window))))
		cmd.Process.Signal(syscall.SIGKILL)
		err = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("trial %d: helper ended before the kill: %v\n%s", trial, err, stderr.String())
		}
		done++
		for _, name := range storeNames(t, s) {
			switch {
			case isHash(name):
				sawSnap++
				h, _ := receipts.Parse(name)
				if err := s.Verify(h); err != nil {
					t.Fatalf("trial %d: a partial snapshot under its final name: %v", trial, err)
				}
			case strings.HasPrefix(name, tmpPrefix):
				sawTmp++
			case strings.HasPrefix(name, delPrefix):
				sawDel++
			case strings.HasSuffix(name, recordsSuffix):
			default:
				t.Fatalf("trial %d: unexpected %q in the store", trial, name)
			}
		}
	}
	t.Logf("%d kills; afterwards the store held %d snapshots, %d temporary and %d half-deleted directories", done, sawSnap, sawTmp, sawDel)

	// Leave a temporary directory behind for certain, then recover.
	os.MkdirAll(filepath.Join(s.Dir, tmpPrefix+"left", "sub"), 0o700)
	if _, err := s.Stage(walk(t, src), want, bundle.Limits{}); err != nil {
		t.Fatalf("Stage after the crashes: %v", err)
	}
	if _, err := s.GC(map[receipts.Digest]bool{want: true}); err != nil {
		t.Fatalf("GC after the crashes: %v", err)
	}
	names := storeNames(t, s)
	if len(names) != 2 || names[0] != want.String() || names[1] != want.String()+recordsSuffix {
		t.Fatalf("after Stage and GC the store holds %q", names)
	}
	if err := s.Verify(want); err != nil {
		t.Fatal(err)
	}
}
