#!/bin/sh
# no-verify-guard: a Claude Code PreToolUse hook for the Bash tool. It blocks
# (exit 2, the reason on stderr) a git commit or push that skips the
# repository's own hooks with --no-verify (or commit's -n). Anything else:
# exit 0, nothing printed. POSIX sh, tr and grep only.
set -u
input=$(tr '\n\r\t' '   ')
if printf '%s\n' "$input" | grep -Eq '"command"[[:space:]]*:[[:space:]]*"[^"]*git (commit|push)[^"]*(--no-verify|[[:space:]]-n([[:space:]]|"))'; then
    echo "commit-tools: blocked: --no-verify skips the repository's own hooks; fix what they report instead" >&2
    exit 2
fi
exit 0
