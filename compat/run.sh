#!/usr/bin/env bash
# compat/run.sh — run real public plugins through bundlectl: review, trust, enable, list.
#
# usage: compat/run.sh [--claude-validate CLAUDE_BIN] [TSV...]
#
# TSV defaults to compat/corpus.tsv (columns: host, repo, commit, path, note). For each row
# the plugin tree at <commit>:<path> is materialised into a fresh workspace as
# <workspace>/.bundlectl/bundles/<name>/ and taken through
#   bundlectl --home H --workspace W review --json <name>
#   bundlectl --home H --workspace W trust <name> <token>
#   bundlectl --home H --workspace W enable <name>
#   bundlectl --home H --workspace W list --json
# One line per plugin, then a summary. Exit status 0 whatever the figure (it is a measurement).
#
# With --claude-validate, each row that carries .claude-plugin/plugin.json, or is a
# claude-code row, is instead checked with `CLAUDE_BIN plugin validate <dir>` (HOME is a
# throw-away directory; no network) and the verdict is printed.
#
# Where trees come from: the bare mirror $COMPAT_MIRRORS/<owner>+<repo>/repo (default
# /work/.mirror, where the search tool's fetch puts them), read offline with git archive.
# When that mirror is absent the repository is cloned from github.com into
# $COMPAT_CACHE (default ~/.cache/bundlectl-compat) — which works only on a machine with
# network access; without it the row is reported as "unavailable".
#
# Environment: BUNDLECTL (use this binary instead of building one), COMPAT_MIRRORS,
# COMPAT_CACHE, COMPAT_TIMEOUT (seconds per command, default 120).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo_root=$(cd "$here/.." && pwd)
mirrors=${COMPAT_MIRRORS:-/work/.mirror}
cache=${COMPAT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bundlectl-compat}
tmo=${COMPAT_TIMEOUT:-120}

claude_bin=
if [ "${1:-}" = "--claude-validate" ]; then
	claude_bin=${2:?--claude-validate needs the path of the claude binary}
	shift 2
fi
[ "$#" -gt 0 ] || set -- "$here/corpus.tsv"

work=$(mktemp -d "${TMPDIR:-/tmp}/bundlectl-compat.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

if [ -z "$claude_bin" ]; then
	if [ -n "${BUNDLECTL:-}" ]; then
		bin=$BUNDLECTL
	else
		bin=$work/bundlectl
		(cd "$repo_root" && go build -o "$bin" ./cmd/bundlectl)
	fi
fi

# gitdir <owner/repo> prints a git directory holding the repository, or fails.
gitdir() {
	local m="$mirrors/${1/\//+}/repo"
	if [ -d "$m" ]; then
		printf '%s\n' "$m"
		return 0
	fi
	local c="$cache/${1/\//+}.git"
	if [ ! -d "$c" ]; then
		mkdir -p "$cache"
		GIT_TERMINAL_PROMPT=0 timeout "$tmo" git clone --quiet --bare --filter=blob:none \
			"https://github.com/$1.git" "$c.tmp" >/dev/null 2>&1 || { rm -rf "$c.tmp"; return 1; }
		mv "$c.tmp" "$c"
	fi
	printf '%s\n' "$c"
}

# materialise <gitdir> <commit> <path> <dest>: the tree at commit:path, links and modes kept.
# Mirrors made by the search tool's fetch lack blobs of 4 MiB and more; when git archive
# fails for that reason the tree is written entry by entry and each missing blob is
# listed in $dest.missing (the plugin is still run, and the line says "partial").
materialise() {
	local spec=$2
	[ "$3" = "." ] || spec="$2:$3"
	mkdir -p "$4"
	if git --git-dir "$1" archive --format=tar "$spec" 2>/dev/null | tar -x -C "$4" 2>/dev/null; then
		return 0
	fi
	rm -rf "$4" && mkdir -p "$4"
	local mode type obj p
	git --git-dir "$1" ls-tree -r -z "$spec" 2>/dev/null | while IFS= read -r -d '' line; do
		mode=${line%% *} rest=${line#* } type=${rest%% *} rest=${rest#* } obj=${rest%%$'\t'*} p=${rest#*$'\t'}
		[ "$type" = blob ] || continue
		mkdir -p "$4/$(dirname "$p")"
		if ! git --git-dir "$1" cat-file -e "$obj" 2>/dev/null; then
			printf '%s\n' "$p" >>"$4.missing"
			continue
		fi
		if [ "$mode" = 120000 ]; then
			ln -s "$(git --git-dir "$1" cat-file blob "$obj")" "$4/$p"
		else
			git --git-dir "$1" cat-file blob "$obj" >"$4/$p"
			[ "$mode" != 100755 ] || chmod 755 "$4/$p"
		fi
	done
	[ -n "$(ls -A "$4")" ]
}

# manifest_name <dir>: the "name" of the first manifest found, else empty.
manifest_name() {
	local f
	for f in .claude-plugin/plugin.json .codex-plugin/plugin.json gemini-extension.json plugin.json; do
		if [ -f "$1/$f" ]; then
			{ grep -o '"name"[[:space:]]*:[[:space:]]*"[^"]*"' "$1/$f" || true; } | head -n 1 | sed 's/.*"\([^"]*\)"$/\1/'
			return 0
		fi
	done
}

# bundle_name <raw>: a valid bundle directory name (lowercase a-z0-9 . -).
bundle_name() {
	printf '%s' "$1" | tr 'A-Z_ ' 'a-z--' | tr -c 'a-z0-9.-' '-' |
		sed -e 's/--*/-/g' -e 's/\.\.*/./g' -e 's/^[-.]*//' -e 's/[-.]*$//' | cut -c1-64
}

# first_rules <json-file>: the first three distinct rule ids of errors/refusals.
first_rules() {
	{ grep -o '"rule": *"[^"]*"' "$1" 2>/dev/null || true; } | sed 's/.*"\([^"]*\)"$/\1/' | awk '!s[$0]++' | head -n 3 | paste -sd, -
}

declare -A used=()
total=0 active=0 unavailable=0 incomplete=0
declare -A h_total=() h_active=() h_unavail=()
verdicts=""

while IFS=$'\t' read -r host repo commit path note; do
	[ "$host" = "host" ] && continue
	[ -n "$host" ] || continue
	total=$((total + 1))
	h_total[$host]=$(( ${h_total[$host]:-0} + 1 ))
	where="$repo:$path@${commit:0:12}"
	src=$work/src/$total
	gd=$(gitdir "$repo") || gd=
	if [ -z "$gd" ] || ! git --git-dir "$gd" cat-file -e "$commit^{commit}" 2>/dev/null || ! materialise "$gd" "$commit" "$path" "$src"; then
		unavailable=$((unavailable + 1))
		h_unavail[$host]=$(( ${h_unavail[$host]:-0} + 1 ))
		echo "UNAVAILABLE $host $where (no mirror and no clone; needs network)"
		continue
	fi
	partial=
	[ ! -f "$src.missing" ] || partial=" partial($(wc -l <"$src.missing") blobs >=4MiB absent from the mirror)"
	raw=$(manifest_name "$src")
	[ -n "$raw" ] || raw=$(basename "$path")
	[ "$raw" != "." ] || raw=${repo#*/}
	name=$(bundle_name "$raw")
	[ -n "$name" ] || name=plugin
	base=$name n=1
	while [ -n "${used[$name]:-}" ]; do n=$((n + 1)); name="$base-$n"; done
	used[$name]=1

	if [ -n "$claude_bin" ]; then
		if [ "$host" != "claude-code" ] && [ ! -f "$src/.claude-plugin/plugin.json" ]; then
			continue
		fi
		vh=$work/vhome/$total
		mkdir -p "$vh"
		out=$work/validate.$total
		set +e
		HOME=$vh timeout "$tmo" "$claude_bin" plugin validate "$src" >"$out" 2>&1
		rc=$?
		set -e
		case $rc in
		0) if grep -q 'passed with warnings' "$out"; then v=PASS-WARN; else v=PASS; fi ;;
		1) v=FAIL ;;
		*) v="ERROR($rc)" ;;
		esac
		kind=$(sed -n 's/^Validating \([a-z]*\) manifest.*/\1/p' "$out" | head -n 1 || true)
		nerr=$(sed -n 's/^✘ Found \([0-9]*\) error.*/\1/p' "$out" | head -n 1 || true)
		nwarn=$(sed -n 's/^⚠ Found \([0-9]*\) warning.*/\1/p' "$out" | head -n 1 || true)
		echo "$v $host $where name=$name$partial checked=${kind:-?} errors=${nerr:-0} warnings=${nwarn:-0}"
		# every error line (not the warnings), indented
		awk -v root="$src/" '/^Validating /{f=$NF; sub(root,"",f); e=0; next} /^✘ Found/{e=1;next} /^⚠ Found/{e=0} e && /❯/{sub(/^[[:space:]]*❯[[:space:]]*/,""); print "    error: " f ": " substr($0,1,200)}' "$out"
		verdicts="$verdicts$v"$'\n'
		continue
	fi

	h=$work/home/$total w=$work/ws/$total
	mkdir -p "$h" "$w/.bundlectl/bundles"
	rj=$work/review.$total.json
	bc() { timeout "$tmo" "$bin" --home "$h" --workspace "$w" "$@"; }
	stage=review
	set +e
	if [[ "$note" == *strict:false* ]]; then
		# The marketplace entry defines the plugin: install it from the
		# marketplace (the repository at the same commit), as a user would.
		market=$work/market/${repo/\//+}@$commit
		[ -d "$market" ] || materialise "$gd" "$commit" . "$market" >/dev/null 2>&1
		entry=$(basename "$path")
		stage=install
		if bc install --scope workspace --name "$name" "$entry@$market" >"$rj.install" 2>&1; then
			stage=review
		fi
		rm -rf "$src"
	else
		mv "$src" "$w/.bundlectl/bundles/$name"
	fi
	bc review --json "$name" >"$rj" 2>"$rj.err"
	token=$(sed -n 's/.*"token": *"\([0-9a-f]\{64\}\.[0-9a-f]\{64\}\)".*/\1/p' "$rj" | head -n 1)
	ok=0
	if [ -n "$token" ]; then
		stage=trust
		if bc trust "$name" "$token" >/dev/null 2>"$rj.trust"; then
			stage=enable
			if bc enable "$name" >/dev/null 2>"$rj.enable"; then
				stage=list
				bc list --json >"$rj.list" 2>/dev/null
				if tr -d ' \n' <"$rj.list" | grep -q "\"name\":\"$name\"[^}]*\"active\":true"; then
					ok=1
				fi
			fi
		fi
	fi
	set -e
	# Does the review list every hook command and MCP/LSP server the plugin
	# declares natively? compat/declared.py reads the manifests on its own.
	decl=
	if [ -s "$rj" ] && [ -d "$w/.bundlectl/bundles/$name" ]; then
		if ! python3 "$here/declared.py" "$w/.bundlectl/bundles/$name" "$rj" >"$rj.declared" 2>&1; then
			incomplete=$((incomplete + 1))
			sed 's/^/    /' "$rj.declared" | grep '^    missing' || true
		fi
		decl=" $(tail -n 1 "$rj.declared")"
	fi
	if [ "$ok" = 1 ]; then
		active=$((active + 1))
		h_active[$host]=$(( ${h_active[$host]:-0} + 1 ))
		echo "ACTIVE $host $where name=$name$partial$decl"
	else
		rules=$(first_rules "$rj")
		if [ -z "$rules" ]; then
			case $stage in
			install) rules=$(head -c 200 "$rj.install" | tr '\n' ' ') ;;
			review) rules=$(head -c 160 "$rj.err" | tr '\n' ' ') ;;
			trust) rules=$(head -c 160 "$rj.trust" | tr '\n' ' ') ;;
			enable) rules=$(head -c 160 "$rj.enable" | tr '\n' ' ') ;;
			list) rules="not active in list --json" ;;
			esac
		fi
		echo "REFUSED $host $where name=$name$partial stage=$stage rules=$rules$decl"
	fi
done < <(cat "$@")

echo "--"
if [ -n "$claude_bin" ]; then
	printf '%s' "$verdicts" | sort | uniq -c | sed 's/^/summary: /'
	exit 0
fi
reached=$((total - unavailable))
pct() { if [ "$2" -gt 0 ]; then awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f%%", 100*a/b}'; else printf 'n/a'; fi; }
for host in "${!h_total[@]}"; do
	t=${h_total[$host]} a=${h_active[$host]:-0} u=${h_unavail[$host]:-0}
	echo "host $host: $a/$((t - u)) active ($(pct "$a" $((t - u)))), $u unavailable"
done | sort
echo "summary: $active/$reached materialised plugins reached active ($(pct "$active" "$reached")); $unavailable of $total rows unavailable"
echo "declared: $incomplete plugin(s) whose review misses a hook command or MCP/LSP server they declare (compat/declared.py)"
