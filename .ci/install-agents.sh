#!/usr/bin/env bash
# Installs the pinned agent CLIs (Claude Code, Codex, Gemini CLI) that the
# end-to-end tests in internal/agenttest drive offline, into a cache directory
# outside the repository, and prints the directory holding their executables.
#
#   BUNDLECTL_AGENTS_DIR   where to install (default ~/.cache/bundlectl-agents)
#
# Idempotent: a package already installed at its pinned version is not fetched
# again. Change a pin only together with a green run of
#   go test ./internal/agenttest/ -v
# (the tests check the wire formats and flags these versions speak).
set -euo pipefail

dir="${BUNDLECTL_AGENTS_DIR:-$HOME/.cache/bundlectl-agents}"
pins=(
	"@anthropic-ai/claude-code@2.1.332"
	"@openai/codex@0.171.0"
	"@google/gemini-cli@0.61.0"
)

command -v npm >/dev/null || { echo "install-agents: npm not found; install Node.js 20 or later" >&2; exit 1; }
mkdir -p "$dir"

# installed_version prints the version recorded in a package's package.json, or nothing.
installed_version() {
	local pj="$dir/node_modules/$1/package.json"
	[ -f "$pj" ] || return 0
	node -e 'process.stdout.write(String(require(process.argv[1]).version||""))' "$pj"
}

missing=()
for pin in "${pins[@]}"; do
	name="${pin%@*}" want="${pin##*@}"
	if [ "$(installed_version "$name")" != "$want" ]; then
		missing+=("$pin")
	fi
done

if [ "${#missing[@]}" -gt 0 ]; then
	echo "install-agents: installing ${missing[*]} into $dir" >&2
	# All pins in one call, so npm never prunes one package while adding another.
	npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error "${pins[@]}" >&2
	for pin in "${pins[@]}"; do
		name="${pin%@*}" want="${pin##*@}"
		got="$(installed_version "$name")"
		[ "$got" = "$want" ] || { echo "install-agents: $name is at ${got:-nothing}, want $want" >&2; exit 1; }
	done
fi

for b in claude codex gemini; do
	[ -x "$dir/node_modules/.bin/$b" ] || { echo "install-agents: $dir/node_modules/.bin/$b missing after install" >&2; exit 1; }
done
echo "$dir/node_modules/.bin"
