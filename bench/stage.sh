#!/usr/bin/env bash
# stage.sh — time staging.Store.Stage against cp -a and cp -a && sync.
#
# Trees come from bench/gentrees.sh under ${BENCH_DIR:-/tmp/bundlectl-bench}
# (small: 10,000 files of 1–8 KiB in 4,020 directories; big: 20 × 20 MiB).
# Destinations are fresh directories on the same file system, under
# $BENCH_DIR/out. ext4 here is slow creating many files right after
# deleting many (runs after an rm -rf of 10,000 files took 2–17 s instead
# of 1 s), so no run follows a deletion: every run gets its own new
# destination, and all of a tree's destinations are removed together after
# its last run, followed by a sync and a pause. Before every timed run the
# file system is synced and the script sleeps $PAUSE seconds. The methods
# take turns within each round, and the round's first method rotates, so
# that drift and order effects hit all of them alike. The Stage row also
# gives the median of Stage alone (the walk, which validates every name, is
# timed apart by bench/cmd/stage -times). Each number is the median
# of $RUNS runs, wall clock of the whole process (walk included for Stage).
#
#   RUNS=5 PAUSE=2 TREES="small big" bench/stage.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/bundlectl-bench}
RUNS=${RUNS:-5}
PAUSE=${PAUSE:-2}
TREES=${TREES:-small big}
export BENCH_DIR

bench/gentrees.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/stage" ./bench/cmd/stage
out="$BENCH_DIR/out"
rm -rf "$out"
mkdir -p "$out"

now() { date +%s%N; }
clean() {
	if [ -e "$1" ]; then
		chmod -R u+w "$1"
		rm -rf "$1"
	fi
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf '%-6s %-12s %10s %10s %12s\n' tree method median_s "×cp -a" "×cp+sync"
for tree in $TREES; do
	src="$BENCH_DIR/$tree"
	want=$("$tmp/stage" -hash "$src")
	for run in $(seq "$RUNS"); do
		methods=(stage cp cpsync)
		for k in 0 1 2; do
			method=${methods[$(((run + k) % 3))]}
			dst="$out/$method-$tree-$run"
			sync
			sleep "$PAUSE"
			t0=$(now)
			case $method in
			stage) "$tmp/stage" -times -want "$want" "$src" "$dst/store" 2>>"$tmp/$tree-times" ;;
			cp) cp -a "$src" "$dst" ;;
			cpsync) cp -a "$src" "$dst" && sync ;;
			esac
			t1=$(now)
			echo $(((t1 - t0) / 1000)) >>"$tmp/$tree-$method"
			if [ "$method" = stage ]; then
				"$tmp/stage" -hash "$dst/store/$want" | grep -qx "$want" || {
					echo "stage.sh: the staged copy does not hash to $want" >&2
					exit 1
				}
			fi
		done
	done
	for d in "$out"/*; do clean "$d"; done
	sync
	sleep $((4 * PAUSE))
	s=$(median <"$tmp/$tree-stage")
	c=$(median <"$tmp/$tree-cp")
	cs=$(median <"$tmp/$tree-cpsync")
	for m in stage cp cpsync; do
		v=$(median <"$tmp/$tree-$m")
		awk -v t="$tree" -v m="$m" -v v="$v" -v c="$c" -v cs="$cs" \
			'BEGIN {printf "%-6s %-12s %10.3f %10.2f %12.2f\n", t, m, v/1e6, v/c, v/cs}'
	done
	w=$(awk '{print $2}' "$tmp/$tree-times" | median)
	so=$(awk '{print $4}' "$tmp/$tree-times" | median)
	awk -v t="$tree" -v w="$w" -v v="$so" -v c="$c" -v cs="$cs" \
		'BEGIN {printf "%-6s %-12s %10.3f %10.2f %12.2f   (walk alone: %.3f s)\n", t, "Stage alone", v/1e6, v/c, v/cs, w/1e6}'
	echo "       runs (µs): stage $(tr '\n' ' ' <"$tmp/$tree-stage")| cp $(tr '\n' ' ' <"$tmp/$tree-cp")| cp+sync $(tr '\n' ' ' <"$tmp/$tree-cpsync")"
done
rm -rf "$out"
