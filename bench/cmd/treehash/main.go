// Command treehash is the benchmark driver of bench/hash.sh: it prints the
// "bundle tree v1" content hash of a directory, or generates the trees the
// benchmark hashes.
//
//	treehash DIR            print the content hash of DIR
//	treehash gen small DIR  10,000 files of 1-8 KB in ~4,000 directories
//	treehash gen big DIR    20 files of 20 MiB (400 MiB)
//	treehash time CMD       run "bash -c CMD" (stdout discarded) and print
//	                        its wall and CPU (user+system) seconds
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/review"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "treehash:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	switch {
	case len(args) == 1:
		dir, err := filepath.Abs(args[0])
		if err != nil {
			return err
		}
		d, _, err := review.HashDir(dir, bundle.Limits{})
		if err != nil {
			return err
		}
		fmt.Println(d)
		return nil
	case len(args) == 2 && args[0] == "time":
		return timeCmd(args[1])
	case len(args) == 3 && args[0] == "gen" && args[1] == "small":
		return genSmall(args[2])
	case len(args) == 3 && args[0] == "gen" && args[1] == "big":
		return genBig(args[2])
	}
	return fmt.Errorf("usage: treehash DIR | treehash gen small|big DIR | treehash time CMD")
}

// timeCmd measures one run of a shell command: wall time, and the CPU
// time of the shell and every process it waited for.
func timeCmd(cmd string) error {
	c := exec.Command("bash", "-c", cmd)
	c.Stderr = os.Stderr
	start := time.Now()
	if err := c.Run(); err != nil {
		return err
	}
	wall := time.Since(start)
	ru := c.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	fmt.Printf("%.6f %.6f\n", wall.Seconds(), cpu.Seconds())
	return nil
}

// genSmall writes 10,000 files of 1-8 KB (deterministic sizes and bytes)
// into 40 directories of 100 subdirectories each.
func genSmall(dir string) error {
	rng := rand.New(rand.NewChaCha8([32]byte{1}))
	buf := make([]byte, 8<<10)
	for i := range 10000 {
		d := filepath.Join(dir, fmt.Sprintf("d%02d", i%40), fmt.Sprintf("s%03d", (i/40)%100))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		n := 1024 + rng.IntN(7*1024+1)
		fillRandom(rng, buf[:n])
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d.txt", i)), buf[:n], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// genBig writes 20 files of 20 MiB of pseudo-random bytes.
func genBig(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rng := rand.New(rand.NewChaCha8([32]byte{2}))
	buf := make([]byte, 20<<20)
	for i := range 20 {
		fillRandom(rng, buf)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("big%02d.bin", i)), buf, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func fillRandom(rng *rand.Rand, b []byte) {
	for i := 0; i+8 <= len(b); i += 8 {
		v := rng.Uint64()
		for j := range 8 {
			b[i+j] = byte(v >> (8 * j))
		}
	}
}
