package bundle

import "slices"

// HookEvents are the events of Claude Code's hook system, which is also
// the contract of bundlectl's own hooks (dev.bundlectl, plugin.toml) and
// of `bundlectl hooks run`. An event not listed for a host is a warning,
// never an error: hosts add events faster than any list can follow, and a
// hook for an event nobody fires never runs.
var HookEvents = []string{
	"SessionStart", "Setup", "InstructionsLoaded", "UserPromptSubmit", "UserPromptExpansion",
	"PreToolUse", "PermissionRequest", "PermissionDenied", "PostToolUse", "PostToolUseFailure",
	"PostToolBatch", "Notification", "SubagentStart", "SubagentStop", "TaskCreated", "TaskCompleted",
	"Stop", "StopFailure", "TeammateIdle", "ConfigChange", "CwdChanged", "FileChanged",
	"WorktreeCreate", "WorktreeRemove", "PreCompact", "PostCompact", "Elicitation",
	"ElicitationResult", "SessionEnd", "PreModelSwitch", "PostModelSwitch", "DirectoryAdded",
	"MessageDisplay", "PreSkillShellCommand",
}

// codexHookEvents are the events Codex fires: those its hooks files take
// (0.171; it skips any other event there unread, Notification included:
// internal/agenttest TestCodexHookShapes). Three are Codex's own:
// PreModelRequest and PostModelRequest, before and after each request to
// the model, and Interrupt, when a turn is interrupted. None of the three
// matches a matcher or can block: Codex runs every such hook, and a hook
// that exits 2 or answers a decision is a failed hook, the request going
// ahead (internal/agenttest TestCodexModelRequestEvents,
// TestCodexInterruptEvent).
var codexHookEvents = []string{
	"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
	"Stop", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "SessionEnd",
	"PreModelRequest", "PostModelRequest", "Interrupt",
}

// geminiHookEvents are the events Gemini CLI fires.
var geminiHookEvents = []string{
	"SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
	"BeforeToolSelection", "BeforeTool", "AfterTool", "PreCompress", "Notification",
}

// geminiMatchedEvents are the events whose hooks Gemini CLI (0.61)
// selects by their matcher: by the tool's name for BeforeTool and
// AfterTool, by the trigger for SessionStart, SessionEnd and PreCompress.
// On every other event it runs each hook whatever its matcher says
// (internal/agenttest TestGeminiHookShapes).
var geminiMatchedEvents = []string{"BeforeTool", "AfterTool", "SessionStart", "SessionEnd", "PreCompress"}

// geminiIgnoresMatcher reports whether Gemini CLI runs a hook for event
// whatever its matcher says, so that a review must not show the matcher
// as narrowing when the hook runs.
func geminiIgnoresMatcher(event string) bool {
	return slices.Contains(geminiHookEvents, event) && !slices.Contains(geminiMatchedEvents, event)
}

// MatchField names the field of an event's input that a hook's matcher
// is matched against, or "" for an event with none, whose hooks run
// whatever their matcher says. The fields are Claude Code's (read from
// its installed CLI, 2.1.332): the tool's name for the tool events, the
// source of SessionStart and ConfigChange, the trigger of Setup and the
// compaction events, the reason of SessionEnd, the command of
// UserPromptExpansion, the shell tool (Bash) of PreSkillShellCommand, the
// model switched to of PreModelSwitch and PostModelSwitch, and so on.
// MessageDisplay has none. Codex (0.171) matches the same fields
// on the events it fires that carry one, and ignores the matcher on
// UserPromptSubmit and Stop as Claude Code does (internal/agenttest
// TestClaudeHookMatcherEvents, TestCodexHookMatcherEvents). Gemini CLI's
// BeforeTool, AfterTool and PreCompress are here too; which of its events
// it matches at all is geminiIgnoresMatcher's.
func MatchField(event string) string {
	switch event {
	case "PreToolUse", "PermissionRequest", "PermissionDenied", "PostToolUse", "PostToolUseFailure", "BeforeTool", "AfterTool",
		"PreSkillShellCommand":
		return "tool_name"
	case "PreModelSwitch", "PostModelSwitch":
		return "to_model"
	case "SessionStart", "ConfigChange", "DirectoryAdded":
		return "source"
	case "Setup", "PreCompact", "PostCompact", "PreCompress":
		return "trigger"
	case "SessionEnd":
		return "reason"
	case "Notification":
		return "notification_type"
	case "SubagentStart", "SubagentStop":
		return "agent_type"
	case "UserPromptExpansion":
		return "command_name"
	case "StopFailure":
		return "error"
	case "Elicitation", "ElicitationResult":
		return "mcp_server_name"
	case "InstructionsLoaded":
		return "load_reason"
	}
	return ""
}

// claudeCommaListEvents are the events on which Claude Code (2.1.332)
// reads a matcher of letters, digits, "_", "-", spaces, "," and "|" as a
// list of names ("Edit, Write"). On its other events that use a matcher
// (StopFailure) only letters, digits, "_" and "|" make a list, and
// "unknown, server_error" is a regular expression, which selects nothing
// (internal/agenttest TestClaudeStopFailureMatcher).
var claudeCommaListEvents = []string{
	"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied",
	"UserPromptExpansion", "SessionStart", "SessionEnd", "Setup", "PreCompact", "PostCompact",
	"Notification", "SubagentStart", "SubagentStop", "Elicitation", "ElicitationResult",
	"ConfigChange", "InstructionsLoaded", "PreModelSwitch", "PostModelSwitch", "DirectoryAdded",
	"PreSkillShellCommand",
}

// ClaudeCommaList reports whether Claude Code reads a matcher on event
// that lists names with "," or spaces between them, or with "-" in them,
// as a list of names rather than as a regular expression.
func ClaudeCommaList(event string) bool { return slices.Contains(claudeCommaListEvents, event) }

// IgnoresMatcher reports whether host runs a hook for event whatever its
// matcher says (UserPromptSubmit and Stop for Claude Code and Codex, for
// instance), so that a review must not show the matcher as narrowing.
// Host "" is bundlectl's own contract, which is Claude Code's. An event
// the host does not fire is not one: its hooks never run. Nor is
// FileChanged, whose matcher Claude Code reads as the names of the files
// to watch.
func IgnoresMatcher(host Host, event string) bool {
	switch host {
	case HostGemini:
		return geminiIgnoresMatcher(event)
	case HostCodex:
		return slices.Contains(codexHookEvents, event) && MatchField(event) == ""
	}
	return slices.Contains(HookEvents, event) && event != "FileChanged" && MatchField(event) == ""
}

// blockingEvents are the events whose hooks can stop what the agent is
// about to do. A guard for one of them must never fail open: when such a
// hook cannot run, the event is blocked.
var blockingEvents = []string{
	// Claude Code and Codex
	"PreToolUse", "PermissionRequest", "UserPromptSubmit", "UserPromptExpansion", "Stop",
	"SubagentStop", "TaskCreated", "TaskCompleted", "TeammateIdle", "ConfigChange",
	"Elicitation", "ElicitationResult", "WorktreeCreate", "PostToolUse", "PostToolBatch",
	// Claude Code: exit 2 after a failed tool puts the hook's reason in
	// front of the model, as PostToolUse's does after one that succeeded
	// (internal/agenttest TestClaudePostToolUseFailureExit2)
	"PostToolUseFailure",
	// Claude Code: a skill's inline shell command ("!" lines), a
	// requested switch of model, and a compaction (exit 2 blocks it:
	// internal/agenttest TestClaudePreCompactBlocks)
	"PreSkillShellCommand", "PreModelSwitch", "PreCompact",
	// Gemini CLI. Not BeforeToolSelection: Gemini CLI (0.61) reads only a
	// replacement tool configuration from its hooks, and exit 2 or a deny
	// decision stops nothing (internal/agenttest
	// TestGeminiBeforeToolSelectionCannotBlock).
	"BeforeAgent", "BeforeModel", "BeforeTool", "AfterTool", "AfterAgent",
}

// KnownHookEvent reports whether host fires event. Host "" is bundlectl's
// own contract, which is Claude Code's.
func KnownHookEvent(host Host, event string) bool {
	switch host {
	case HostCodex:
		return slices.Contains(codexHookEvents, event)
	case HostGemini:
		return slices.Contains(geminiHookEvents, event)
	}
	return slices.Contains(HookEvents, event)
}

// AllHookEvents is every event a supported host fires, each once:
// Claude Code's (bundlectl's own contract), then the names only Codex or
// only Gemini CLI use, in the order those hosts' lists give them.
func AllHookEvents() []string {
	out := slices.Clone(HookEvents)
	for _, e := range slices.Concat(codexHookEvents, geminiHookEvents) {
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// BlockingEvent reports whether hooks for event can block what the agent
// is about to do.
func BlockingEvent(event string) bool { return slices.Contains(blockingEvents, event) }

// codexBlockingEvents are the events whose hooks Codex (0.171) lets
// block with exit status 2. On every other event it fires (SessionStart,
// SubagentStart, PreCompact, PostCompact, SessionEnd, PreModelRequest,
// PostModelRequest, Interrupt) a hook's exit 2 is a failed hook like any
// other status but 0: the event's other hooks still run and what they
// answer still counts (codex-rs hooks/src/events session_start.rs,
// compact.rs, model.rs; internal/agenttest TestCodexNonBlockingExit2).
var codexBlockingEvents = []string{
	"PreToolUse", "PermissionRequest", "UserPromptSubmit", "PostToolUse", "Stop", "SubagentStop",
}

// Exit2Blocks reports whether host takes a hook of event that exits with
// status 2 as a block. For Codex that is its own list; for bundlectl's
// own contract and the other hosts, BlockingEvent. On Claude Code's
// other events (SessionStart, SessionEnd, Notification, ...: "show
// stderr to user only") such a hook is a failed one whose siblings still
// run and count (internal/agenttest TestClaudeNonBlockingExit2).
func Exit2Blocks(host Host, event string) bool {
	if host == HostCodex {
		return slices.Contains(codexBlockingEvents, event)
	}
	return BlockingEvent(event)
}

// ToolEvent reports whether event is about one tool call, so that a hook
// matcher selects tool names.
func ToolEvent(event string) bool {
	switch event {
	case "PreToolUse", "PermissionRequest", "PermissionDenied", "PostToolUse", "PostToolUseFailure",
		"BeforeTool", "AfterTool":
		return true
	}
	return false
}

// GeminiEvents maps the events of bundlectl's own hooks (Claude Code's
// names, bundlectl's contract) to Gemini CLI's. Gemini CLI fires its own
// names: `bundlectl exec`'s Gemini view and `hooks run --host gemini`
// fire bundlectl's own hooks under them.
var GeminiEvents = map[string]string{
	"PreToolUse": "BeforeTool", "PostToolUse": "AfterTool", "UserPromptSubmit": "BeforeAgent",
	"Stop": "AfterAgent", "SessionStart": "SessionStart", "SessionEnd": "SessionEnd",
	"Notification": "Notification", "PreCompact": "PreCompress",
}

// GeminiTools maps Claude Code's tool names, which bundlectl's own hooks'
// matchers name, to Gemini CLI's.
var GeminiTools = map[string]string{
	"Bash": "run_shell_command", "Read": "read_file", "Write": "write_file", "Edit": "replace",
	"Glob": "glob", "Grep": "search_file_content", "LS": "list_directory",
	"WebFetch": "web_fetch", "WebSearch": "google_web_search",
}

// OwnEvent is the event of bundlectl's own hooks (Claude Code's name)
// that host's event is, or "" when it is none. For every host but Gemini
// CLI the names are the same.
func OwnEvent(host Host, event string) string {
	if host != HostGemini {
		return event
	}
	for own, g := range GeminiEvents {
		if g == event {
			return own
		}
	}
	return ""
}

// CodexToolAliases are the other names Codex matches a hook's matcher
// against for a tool (codex-rs HookToolName): a matcher for Write or Edit
// also selects apply_patch, Codex's one file-editing tool. Each alias is
// the Claude Code name of what the tool does.
var CodexToolAliases = map[string][]string{
	"apply_patch": {"Write", "Edit"},
}

// CodexMatchNames is tool with the aliases Codex matches it by, the tool's
// own name first.
func CodexMatchNames(tool string) []string {
	return append([]string{tool}, CodexToolAliases[tool]...)
}

// OwnTool is the Claude Code name, which bundlectl's own hooks' matchers
// use, of host's tool; a tool Claude Code has no name for keeps its own.
func OwnTool(host Host, tool string) string {
	if host == HostGemini {
		for own, g := range GeminiTools {
			if g == tool {
				return own
			}
		}
	}
	return tool
}
