// Command statfloor is the floor of any listing that checks fingerprints:
// it lstats every entry of the given trees once and does nothing else (one
// getdents pass per directory, the entry type to recurse), on as many
// goroutines as there are processors, one top-level directory per job —
// the way list spreads bundles over workers. bench/runtime.sh times it
// beside find (which never stats an entry) and bundlectl list.
//
//	statfloor DIR...
package main

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

func walk(dir string) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(fd), dir)
	defer f.Close()
	ents, _ := f.ReadDir(-1)
	var st unix.Stat_t
	for _, e := range ents {
		_ = unix.Fstatat(fd, e.Name(), &st, unix.AT_SYMLINK_NOFOLLOW)
		if e.IsDir() {
			walk(filepath.Join(dir, e.Name()))
		}
	}
}

func main() {
	var jobs []string
	for _, root := range os.Args[1:] {
		ents, _ := os.ReadDir(root)
		for _, e := range ents {
			jobs = append(jobs, filepath.Join(root, e.Name()))
		}
	}
	ch := make(chan string, len(jobs))
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for d := range ch {
				walk(d)
			}
		})
	}
	wg.Wait()
}
