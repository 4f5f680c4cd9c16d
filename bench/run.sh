#!/usr/bin/env bash
# One-shot cost of `bundlectl run`: a trivial tool from a 100-file bundle,
# run through bundlectl (load, verify source and snapshot, check authority,
# spawn) versus running the same command directly, both as whole processes
# in the same hyperfine run. Target: at most 2x. Beside them, the floor:
# bench/cmd/launchfloor, a minimal Go program doing only what run must
# (decode the state, lstat the snapshot, spawn the tool contained).
#
#   bash bench/run.sh            # needs hyperfine (apt-get install hyperfine)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "installing hyperfine"; apt-get install -y -qq hyperfine >/dev/null; }

work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -o "$work/bundlectl" ./cmd/bundlectl # static: no dynamic loader at start, as README builds it
CGO_ENABLED=0 go build -o "$work/launchfloor" ./bench/cmd/launchfloor
export BUNDLECTL_HOME=$work/home
ws=$work/ws
src=$ws/.bundlectl/bundles/kit
mkdir -p "$src/bin" "$src/data"
cat > "$src/plugin.json" <<'JSON'
{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "kit",
 "extensions": {"dev.bundlectl": {"tools": [{"name": "hello", "command": "./bin/hello"},
   {"name": "hello-py", "command": "python3", "args": ["${PLUGIN_ROOT}/bin/hello.py"]}]}}}
JSON
printf '#!/bin/sh\ncat >/dev/null\necho "{\\"ok\\":true}"\n' > "$src/bin/hello"
chmod +x "$src/bin/hello"
printf 'import sys, json\nsys.stdin.read()\nprint(json.dumps({"ok": True}))\n' > "$src/bin/hello.py"
for i in $(seq 1 97); do echo "data file $i" > "$src/data/f$i.txt"; done
b() { "$work/bundlectl" --workspace "$ws" "$@"; }
token=$(b review --json kit | sed -n 's/^  "token": "\(.*\)",$/\1/p')
b trust kit "$token" >/dev/null
b enable kit >/dev/null
snap=$(b show --json kit | sed -n 's/^    "snapshot": "\(.*\)",$/\1/p')
echo '{}' > "$work/in.json"
echo "bundle: $(find "$src" -type f | wc -l) files; snapshot $snap"
[ "$(id -u)" = 0 ] && echo "as root (tools spawn into a PID namespace)" || echo "as uid $(id -u) (tools spawn into a user and PID namespace)"

# The sh tool is the trivial tool of the target; the python3 one shows the
# same fixed overhead against a tool that does a little more. Both sides run
# through env with the same PATH, so a bare "python3" resolves to the same
# interpreter (not, say, a pyenv shim).
hyperfine -N --warmup 5 --runs ${RUNS:-50} --export-json "$work/h.json" \
  -n direct-sh "env -i PATH=/usr/bin:/bin $snap/bin/hello" \
  -n bundlectl-sh "env PATH=/usr/bin:/bin $work/bundlectl --workspace $ws run kit hello --input {}" \
  -n direct-py "env -i PATH=/usr/bin:/bin python3 $snap/bin/hello.py" \
  -n bundlectl-py "env PATH=/usr/bin:/bin $work/bundlectl --workspace $ws run kit hello-py --input {}" \
  -n bundlectl-help "$work/bundlectl --help" \
  -n launchfloor-sh "env PATH=/usr/bin:/bin $work/launchfloor $BUNDLECTL_HOME/state.json $snap $snap/bin/hello"
python3 - "$work/h.json" <<'PY'
import json, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
for t in ("sh", "py"):
    d, b = r["direct-" + t], r["bundlectl-" + t]
    print(f"{t}: median direct {d*1e3:.2f} ms, bundlectl run {b*1e3:.2f} ms, ratio {b/d:.2f}x (target <= 2x)")
print(f"bundlectl --help (process start floor): {r['bundlectl-help']*1e3:.2f} ms")
f = r["launchfloor-sh"]
print(f"the floor, a minimal Go launcher (decode the state, lstat the snapshot, spawn contained): "
      f"{f*1e3:.2f} ms, {f/r['direct-sh']:.2f}x direct; bundlectl run is {r['bundlectl-sh']/f:.2f}x the floor")
PY
