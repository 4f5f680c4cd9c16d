#!/usr/bin/env bash
# bench/hash.sh — compare bundlectl's content hash with b3sum.
#
# Generates (once, into $BENCH_DIR, default ${XDG_CACHE_HOME:-~/.cache}/bundlectl-bench)
#   small/  10,000 files of 1-8 KB in 4,040 directories
#   big/    20 files of 20 MiB (400 MiB)
# and measures, warm (every command runs once before it is timed), the median
# of $RUNS interleaved runs (default 7, at least 5) of:
#   small: treehash (walk + "bundle tree v1"), find | xargs b3sum,
#          find | xargs -P2 b3sum
#   big:   treehash, b3sum --num-threads 1 over the 20 files
# and prints the ratios against the targets:
#   small ≤ 1.0× xargs b3sum, ≤ 1.3× xargs -P2 b3sum; big ≤ 1.0× b3sum -t1.
# Needs go and b3sum; installs b3sum with apt-get if missing. Times are taken
# by "treehash time" (wall clock, and rusage of the command and its children).
# The machine should be otherwise idle: the load average is printed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
BENCH_DIR=${BENCH_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/bundlectl-bench}
RUNS=${RUNS:-7}
if (( RUNS < 5 )); then RUNS=5; fi

need() {
	command -v "$1" >/dev/null 2>&1 && return
	echo "hash.sh: installing $2" >&2
	apt-get install -y "$2" >/dev/null 2>&1 || { apt-get update >/dev/null 2>&1 && apt-get install -y "$2" >/dev/null; }
}
need b3sum b3sum

mkdir -p "$BENCH_DIR"
bin="$BENCH_DIR/treehash"
(cd "$root" && go build -trimpath -o "$bin" ./bench/cmd/treehash)

for kind in small big; do
	if [[ ! -e "$BENCH_DIR/$kind.done" ]]; then
		rm -rf "${BENCH_DIR:?}/$kind"
		echo "hash.sh: generating $BENCH_DIR/$kind" >&2
		"$bin" gen "$kind" "$BENCH_DIR/$kind"
		touch "$BENCH_DIR/$kind.done"
	fi
done

small="$BENCH_DIR/small"
big="$BENCH_DIR/big"
bigfiles=$(cd "$big" && printf '%s ' "$big"/*.bin)
echo "small: $(find "$small" -type f | wc -l) files, $(find "$small" -type d | wc -l) directories, $(du -sh --apparent-size "$small" | cut -f1)"
echo "big:   $(find "$big" -type f | wc -l) files, $(du -sh --apparent-size "$big" | cut -f1)"
echo "cpus:  $(nproc), $(b3sum --version), $(go version | cut -d' ' -f3)"

# Each round runs every command once, in turn, so that load from other
# processes falls on all of them alike; round 0 is the warm-up and is not
# counted. Per command we keep wall time and CPU time (user + system).
cmds=(
	"small|treehash|$bin $small"
	"small|xargs b3sum|find $small -type f -print0 | xargs -0 b3sum"
	"small|xargs -P2 b3sum|find $small -type f -print0 | xargs -0 -P2 b3sum"
	"big|treehash|$bin $big"
	"big|b3sum --num-threads 1|b3sum --num-threads 1 $bigfiles"
)
out="$BENCH_DIR/times"
rm -rf "$out" && mkdir -p "$out"
for round in $(seq 0 "$RUNS"); do
	for i in "${!cmds[@]}"; do
		IFS='|' read -r _ _ cmd <<<"${cmds[$i]}"
		read -r w c < <("$bin" time "$cmd >/dev/null")
		if (( round > 0 )); then
			echo "$w" >>"$out/wall.$i"
			echo "$c" >>"$out/cpu.$i"
		fi
	done
done

median() { sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ms() { awk -v s="$1" 'BEGIN { printf "%7.1f ms", s * 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%5.2fx", a / b }'; }
verdict() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { printf "(target <= %.1fx: %s)", t, (a / b <= t ? "ok" : "MISSED") }'; }

declare -A wall cpu
for i in "${!cmds[@]}"; do
	wall[$i]=$(median "$out/wall.$i")
	cpu[$i]=$(median "$out/cpu.$i")
done
echo
echo "medians of $RUNS interleaved warm runs; load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-26s %10s %10s   %s\n' tree command wall cpu "treehash wall / this wall"
for i in "${!cmds[@]}"; do
	IFS='|' read -r tree name _ <<<"${cmds[$i]}"
	rel=""
	case "$name" in
	"xargs b3sum") rel="$(ratio "${wall[0]}" "${wall[$i]}") $(verdict "${wall[0]}" "${wall[$i]}" 1.0)" ;;
	"xargs -P2 b3sum") rel="$(ratio "${wall[0]}" "${wall[$i]}") $(verdict "${wall[0]}" "${wall[$i]}" 1.3)" ;;
	"b3sum --num-threads 1") rel="$(ratio "${wall[3]}" "${wall[$i]}") $(verdict "${wall[3]}" "${wall[$i]}" 1.0)" ;;
	esac
	printf '%-6s %-26s %10s %10s   %s\n' "$tree" "$name" "$(ms "${wall[$i]}")" "$(ms "${cpu[$i]}")" "$rel"
done
