package harness

import (
	"testing"

	"github.com/bundlectl/bundlectl/bundle"
)

// TestExit2BlocksWhereClaudeCodeBlocks pins exit2FailsIn to Claude Code
// 2.1.332's own hooks help ("Exit code 2 - block ...", "show stderr to
// model ...", "prevent ...", "deny ..."): on every event listed there a
// hook's exit 2 must still block under --host claude and bundlectl's own
// contract, or making exit 2 a failure elsewhere would turn a guard's
// block into a pass. PermissionRequest and WorktreeCreate, whose help
// names no exit 2, block too (fail closed).
func TestExit2BlocksWhereClaudeCodeBlocks(t *testing.T) {
	blocks := []string{
		"PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch",
		"UserPromptSubmit", "UserPromptExpansion", "Stop", "SubagentStop",
		"PreCompact", "PreModelSwitch", "TeammateIdle", "TaskCreated",
		"TaskCompleted", "Elicitation", "ElicitationResult", "ConfigChange",
		"PreSkillShellCommand", "PermissionRequest", "WorktreeCreate",
	}
	for _, host := range []bundle.Host{"", bundle.HostClaude} {
		for _, ev := range blocks {
			if got := exit2FailsIn(host, ev); got != "" {
				t.Errorf("host %q event %s: exit 2 is a failure (%s), want a block", host, ev, got)
			}
		}
		for _, ev := range bundle.HookEvents {
			if exit2FailsIn(host, ev) == "" && !bundle.BlockingEvent(ev) {
				t.Errorf("host %q event %s: exit 2 blocks though no hook can block it", host, ev)
			}
		}
	}
}
