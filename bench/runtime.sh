#!/usr/bin/env bash
# The runtime's fixed cost as the installed set grows: 30 active bundles of
# 300 files each (every one with a PreToolUse hook of its own matcher), and
# a workspace with N untrusted bundles beside them.
#
#   hooks run, an event no hook matches   vs  bundlectl --version   (target <= 2x)
#   hooks run, an event one hook matches  vs  --version + that hook run directly (target <= 1.5x)
#   list                                  vs  find over the same roots and store (target <= 3x)
#
#   bash bench/runtime.sh      (python3 times the processes: medians of
#                               interleaved runs, the same for every command)
#   BENCH_DIR keeps the generated trees between runs (default a temp dir);
#   BUNDLES, FILES, UNTRUSTED, RUNS change the sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${BUNDLES:-30}
files=${FILES:-300}
untrusted=${UNTRUSTED:-0}
work=${BENCH_DIR:-$(mktemp -d)}
mkdir -p "$work"
CGO_ENABLED=0 go build -o "$work/bundlectl" ./cmd/bundlectl # static: no dynamic loader at start, as README builds it
CGO_ENABLED=0 go build -o "$work/statfloor" ./bench/cmd/statfloor
export BUNDLECTL_HOME=$work/home
ws=$work/ws
root=$ws/.bundlectl/bundles
b() { "$work/bundlectl" --workspace "$ws" "$@"; }
if [ ! -e "$work/ready-$n-$files-$untrusted" ]; then
  chmod -R u+w "$work/home" "$ws" 2>/dev/null || true
  rm -rf "$work/home" "$ws"
  mkdir -p "$root"
  for i in $(seq 0 $((n-1))); do
    d=$root/kit$i
    mkdir -p "$d/hooks" "$d/data"
    cat > "$d/plugin.json" <<JSON
{"\$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "kit$i",
 "extensions": {"dev.bundlectl": {"hooks": {"PreToolUse": [{"matcher": "Tool$i", "hooks": [{"type": "command", "command": "./hooks/guard"}]}]}}}}
JSON
    printf '#!/bin/sh\ncat >/dev/null\nexit 0\n' > "$d/hooks/guard"
    chmod +x "$d/hooks/guard"
    for j in $(seq 1 $((files-2))); do echo "data $i $j" > "$d/data/f$j.txt"; done
    token=$(b review --json "kit$i" | sed -n 's/^  "token": "\(.*\)",$/\1/p')
    b trust "kit$i" "$token" >/dev/null
    b enable "kit$i" >/dev/null
  done
  for i in $(seq 1 "$untrusted"); do
    d=$root/untrusted$i
    mkdir -p "$d"
    printf '{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "untrusted%s"}\n' "$i" > "$d/plugin.json"
  done
  touch "$work/ready-$n-$files-$untrusted"
fi
echo '{"hook_event_name":"PreToolUse","tool_name":"Nothing","tool_input":{}}' > "$work/none.json"
echo '{"hook_event_name":"PreToolUse","tool_name":"Tool0","tool_input":{}}' > "$work/one.json"
snap=$(b show --json kit0 | sed -n 's/^    "snapshot": "\(.*\)",$/\1/p')
b list >/dev/null # one full check, so the runs below measure the steady state
echo "$n active bundles of $files files, $untrusted untrusted; the matching hook: $snap/hooks/guard"
# Root spawns a hook into a PID namespace (vfork); anyone else into a user
# and PID namespace, which makes Go fork the whole process: say which.
[ "$(id -u)" = 0 ] && echo "as root" || echo "as uid $(id -u)"
python3 - "$work" "$ws" "$snap" "$root" "$BUNDLECTL_HOME" "${RUNS:-40}" <<'PY'
import statistics, subprocess, sys, time
work, ws, snap, root, home, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6])
bctl = work + "/bundlectl"
cmds = {
    "version": ([bctl, "--version"], None),
    "none": ([bctl, "--workspace", ws, "hooks", "run", "PreToolUse"], work + "/none.json"),
    "one": ([bctl, "--workspace", ws, "hooks", "run", "PreToolUse"], work + "/one.json"),
    "hook": ([snap + "/hooks/guard"], work + "/one.json"),
    "list": ([bctl, "--workspace", ws, "list"], None),
    "find": (["find", root, home + "/bundles", home + "/store"], None),
    "floor": ([work + "/statfloor", root, home + "/bundles", home + "/store"], None),
}
def once(argv, stdin):
    f = open(stdin) if stdin else subprocess.DEVNULL
    t = time.perf_counter()
    subprocess.run(argv, stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t
r = {}
for k, (argv, stdin) in cmds.items():
    for _ in range(3):
        once(argv, stdin)  # warm up
# Interleave the commands so a change in machine load hits them alike.
samples = {k: [] for k in cmds}
for _ in range(runs):
    for k, (argv, stdin) in cmds.items():
        samples[k].append(once(argv, stdin))
r = {k: statistics.median(v) for k, v in samples.items()}
ms = lambda k: f"{r[k]*1e3:.2f} ms"
print(f"medians of {runs} interleaved runs: bundlectl --version {ms('version')}; the hook run directly {ms('hook')}; find {ms('find')}")
print(f"hooks run, no hook matches:  {ms('none')}  {r['none']/r['version']:.2f}x --version (target <= 2x)")
print(f"hooks run, one hook matches: {ms('one')}  {r['one']/(r['version']+r['hook']):.2f}x --version + the hook (target <= 1.5x)")
print(f"list:                        {ms('list')}  {r['list']/r['find']:.2f}x find (target <= 3x)")
# find never stats an entry (it recurses on the entry type); a fingerprint
# check must lstat each one, in the source and in the snapshot.
print(f"  the floor, lstat of every entry once and nothing else: {ms('floor')}  {r['floor']/r['find']:.2f}x find; list is {r['list']/r['floor']:.2f}x the floor")
PY
