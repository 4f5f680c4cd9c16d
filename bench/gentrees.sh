#!/usr/bin/env bash
# gentrees.sh — generate the benchmark trees, deterministically, once.
#
#   ${BENCH_DIR:-/tmp/bundlectl-bench}/small  10,000 files of 1–8 KiB in 4,020 directories
#   ${BENCH_DIR:-/tmp/bundlectl-bench}/big    20 files of 20 MiB (400 MiB)
#
# Content comes from a fixed-seed PCG generator (math/rand/v2), so every run
# on every machine produces byte-identical trees with the same content hash.
# Each tree is built under <name>.tmp and renamed into place, so an existing
# small/ or big/ is always complete and is reused as is; <name>.done is
# written too, the marker bench/hash.sh looks for, so both scripts reuse
# one set of trees when they are given the same BENCH_DIR.
set -euo pipefail
BENCH_DIR=${BENCH_DIR:-/tmp/bundlectl-bench}
mkdir -p "$BENCH_DIR"
gen=$(mktemp -d)
trap 'rm -rf "$gen"' EXIT
cat >"$gen/gen.go" <<'EOF'
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

func main() {
	dir, kind := os.Args[1], os.Args[2]
	r := rand.New(rand.NewPCG(0x62756e646c65, 0x63746c))
	buf := make([]byte, 20<<20+8)
	fill := func(b []byte) {
		for i := 0; i+8 <= len(b); i += 8 {
			v := r.Uint64()
			for j := range 8 {
				b[i+j] = byte(v >> (8 * j))
			}
		}
	}
	write := func(rel string, n int, mode os.FileMode) {
		p := filepath.Join(dir, rel)
		must(os.MkdirAll(filepath.Dir(p), 0o755))
		fill(buf[:n+8])
		must(os.WriteFile(p, buf[:n], mode))
	}
	switch kind {
	case "small":
		// 20 top-level directories of 200 each: 4,020 directories, and
		// 10,000 files of 1–8 KiB spread over them; every 50th executable.
		for i := range 10000 {
			rel := fmt.Sprintf("d%02d/s%03d/f%05d.txt", i%20, (i/20)%200, i)
			mode := os.FileMode(0o644)
			if i%50 == 0 {
				mode = 0o755
			}
			write(rel, 1024+r.IntN(7*1024+1), mode)
		}
	case "big":
		for i := range 20 {
			write(fmt.Sprintf("blob%02d.bin", i), 20<<20, 0o644)
		}
	}
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
EOF
for kind in small big; do
	if [ -d "$BENCH_DIR/$kind" ]; then
		touch "$BENCH_DIR/$kind.done"
		continue
	fi
	rm -rf "$BENCH_DIR/$kind.tmp"
	mkdir "$BENCH_DIR/$kind.tmp"
	(cd "$gen" && GOFLAGS= GO111MODULE=off go run gen.go "$BENCH_DIR/$kind.tmp" "$kind")
	mv "$BENCH_DIR/$kind.tmp" "$BENCH_DIR/$kind"
	touch "$BENCH_DIR/$kind.done"
	echo "gentrees: generated $BENCH_DIR/$kind" >&2
done
