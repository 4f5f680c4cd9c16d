#!/usr/bin/env bash
# examples/tour.sh — bundlectl's whole job on the shipped example workspace,
# one command at a time, each printed before its output:
#
#   discover → validate → review → trust → enable → run a tool → a guard
#   hook blocks "rm -rf /" → an edit to the source is only "update pending
#   review" (the reviewed snapshot keeps guarding) → diff shows what changed
#   → a tampered snapshot blocks the guarded event and names the fix →
#   reviewing and trusting again stages a fresh snapshot → a Claude Code
#   plugin's guard.
#
# It works on a copy of examples/workspace and a throw-away home, so it
# changes nothing in the repository or in your own bundlectl home, and
# fails (exit 1) if any step does not do what it says. Needs Go and bash
# (it uses here-strings); the first run downloads the Go modules (about 11 MB to build; README says what the tests add).
#
#   bash examples/tour.sh           # the tour
#   BUNDLECTL=/path/to/bundlectl bash examples/tour.sh   # with a given binary
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bundlectl-tour.XXXXXX")
cleanup() { chmod -R u+w "$tmp" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

bin=${BUNDLECTL:-}
if [ -z "$bin" ]; then
	bin=$tmp/bin/bundlectl
	(cd "$root" && CGO_ENABLED=0 go build -o "$bin" ./cmd/bundlectl)
fi
export BUNDLECTL_HOME=$tmp/home
ws=$tmp/workspace
cp -R "$root/examples/workspace" "$ws"
cd "$ws"
PATH=$(dirname "$bin"):$PATH

# quoted <word...>: the words as a POSIX shell reads them back, each one
# holding more than letters, digits and ./:=@%+,_- in single quotes, so a
# printed command works pasted as printed.
quoted() {
	local out='' w
	for w in "$@"; do
		case $w in
		'' | *[!A-Za-z0-9./:=@%+,_-]*) w="'${w//\'/\'\\\'\'}'" ;;
		esac
		out+="${out:+ }$w"
	done
	printf '%s' "$out"
}

# step <want-exit> <command...>: print the command, run it, require its exit
# status. stepin <want-exit> <stdin> <command...>: the same with <stdin> as
# its standard input, printed as a here-string.
step() {
	run_step "$1" '' "${@:2}"
}
stepin() {
	run_step "$1" "$2" "${@:3}"
}
run_step() {
	local want=$1 input=$2
	shift 2
	set +e
	if [ -n "$input" ]; then
		printf '\n$ %s <<<%s\n' "$(quoted "$@")" "$(quoted "$input")"
		"$@" <<<"$input"
	else
		printf '\n$ %s\n' "$(quoted "$@")"
		"$@"
	fi
	local got=$?
	set -e
	if [ "$got" != "$want" ]; then
		printf 'tour: %s exited %s, want %s\n' "$*" "$got" "$want" >&2
		exit 1
	fi
	[ "$want" = 0 ] || printf '(exit status %s, as expected)\n' "$got"
}

# say <text>: a heading for what comes next.
say() { printf '\n## %s\n' "$*"; }

say "every bundle is discovered untrusted and disabled"
step 0 bundlectl list

say "validation reports every finding at once"
step 0 bundlectl validate repo-guard

say "the review: everything repo-guard contains, runs and may do, and the one command that trusts exactly that"
step 0 bundlectl review repo-guard
token=$(bundlectl review --json repo-guard | sed -n 's/.*"token": *"\([0-9a-f]\{64\}\.[0-9a-f]\{64\}\)".*/\1/p' | head -n 1)
[ -n "$token" ] || { echo "tour: no token in review --json" >&2; exit 1; }

say "an untrusted bundle runs nothing"
step 3 bundlectl run repo-guard word-count --input '{"text":"hello there"}'

say "trust binds the review to the two hashes and stages a read-only snapshot; enable lets it run"
step 0 bundlectl trust repo-guard "$token"
step 0 bundlectl enable repo-guard
step 0 bundlectl list

say "its tool runs from the snapshot, its input checked against the reviewed schema"
step 0 bundlectl run repo-guard word-count --input '{"text":"hello there"}'
step 1 bundlectl run repo-guard word-count --input '{"txt":"wrong field"}'

say "its guard hook, fired the way Claude Code fires hooks, blocks a destructive command"
event='{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}'
stepin 2 "$event" bundlectl hooks run PreToolUse
stepin 0 '{"tool_name":"Bash","tool_input":{"command":"ls"}}' bundlectl hooks run PreToolUse

say "an edit to the source never runs unreviewed: it is an update pending review, and the reviewed snapshot keeps guarding"
printf '\n# a local edit\n' >>.bundlectl/bundles/repo-guard/hooks/guard
step 0 bundlectl list
stepin 2 "$event" bundlectl hooks run PreToolUse
step 0 bundlectl diff repo-guard

say "a tampered snapshot: the guarded event is blocked, never let through, and the fix is named"
id=$(bundlectl show --json repo-guard | sed -n 's/.*"id": *"\([^"]*\)".*/\1/p' | head -n 1)
snap=$(find "$BUNDLECTL_HOME/store" -mindepth 1 -maxdepth 1 -type d ! -name '.*' | head -n 1)
chmod u+w "$snap/hooks" "$snap/hooks/guard"
printf '#!/bin/sh\nexit 0\n' >"$snap/hooks/guard"
stepin 2 "$event" bundlectl hooks run PreToolUse
step 1 bundlectl verify

say "the repair: the review starts with what changed since trust; trusting what it shows stages a fresh snapshot"
step 0 bundlectl review repo-guard
token=$(bundlectl review --json repo-guard | sed -n 's/.*"token": *"\([0-9a-f]\{64\}\.[0-9a-f]\{64\}\)".*/\1/p' | head -n 1)
step 0 bundlectl trust repo-guard "$token"
stepin 2 "$event" bundlectl hooks run PreToolUse
step 0 bundlectl verify

say "a Claude Code plugin, as people write them: reviewed, trusted, and its shell-form guard fired as Claude Code would"
step 0 bundlectl review commit-tools
token=$(bundlectl review --json commit-tools | sed -n 's/.*"token": *"\([0-9a-f]\{64\}\.[0-9a-f]\{64\}\)".*/\1/p' | head -n 1)
step 0 bundlectl trust commit-tools "$token"
step 0 bundlectl enable commit-tools
stepin 2 '{"tool_name":"Bash","tool_input":{"command":"git commit --no-verify -m wip"}}' bundlectl hooks run PreToolUse --host claude

printf '\ntour: every step did what it says (bundle %s, home %s, removed on exit)\n' "$id" "$BUNDLECTL_HOME"
