package agenttest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// CodexHookTimeout is the timeout Codex gives a command hook that sets none;
// it is part of the hook's trust hash.
const CodexHookTimeout = 600

// CodexHookHash returns the trusted_hash Codex computes for one command hook
// (codex-rs hooks/src/engine/discovery.rs command_hook_hash and
// config/src/fingerprint.rs version_for_toml): the hook's normalised identity
//
//	{"event_name": "<snake_case event>", "matcher": "<matcher>",
//	 "hooks": [{"type": "command", "command": "<command>", "timeout": <sec>, "async": false}]}
//
// (matcher left out when empty; optional fields that are unset are left out,
// as TOML has no null), serialised as JSON with object keys sorted and no
// spaces, hashed with SHA-256 and written "sha256:<hex>".
func CodexHookHash(event, matcher, command string, timeoutSec int) string {
	handler := map[string]any{"type": "command", "command": command, "timeout": timeoutSec, "async": false}
	id := map[string]any{"event_name": codexEventKey(event), "hooks": []any{handler}}
	if matcher != "" {
		id["matcher"] = matcher
	}
	// encoding/json sorts map keys and writes no spaces, like serde_json over
	// the canonical (sorted) value. It escapes <, > and & where serde_json does
	// not, so those are turned back.
	j, err := json.Marshal(id)
	if err != nil {
		panic(err)
	}
	s := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(j))
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// codexEventKey is the snake_case label Codex uses for an event in hook-state
// keys and hashes ("PreToolUse" → "pre_tool_use").
func codexEventKey(event string) string {
	var b strings.Builder
	for i, r := range event {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CodexHookKey is the key of a hook's entry under [hooks.state] in
// config.toml: "<source file>:<event key>:<group index>:<handler index>".
func CodexHookKey(source, event string, group, handler int) string {
	return fmt.Sprintf("%s:%s:%d:%d", source, codexEventKey(event), group, handler)
}

// CodexTrustedHookTOML returns config.toml text for $CODEX_HOME (codexHome)
// declaring one command hook and marking it trusted the way the interactive
// trust prompt would, so that it runs without --dangerously-bypass-hook-trust.
func CodexTrustedHookTOML(codexHome, event, matcher, command string) string {
	source := filepath.Join(codexHome, "config.toml")
	key := CodexHookKey(source, event, 0, 0)
	return fmt.Sprintf(`[[hooks.%s]]
matcher = %q

[[hooks.%s.hooks]]
type = "command"
command = %q

[hooks.state.%q]
trusted_hash = %q
`, event, matcher, event, command, key, CodexHookHash(event, matcher, command, CodexHookTimeout))
}
