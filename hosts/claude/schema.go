package claude

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/hosts"
)

// Claude Code 2.1.332 checks each user, project, local and --settings
// file against its settings schema (a zod object that lets unknown keys
// through) and, when any value fails it, drops the whole file: none of
// its settings are in effect, its hooks and its switches neither (found
// with the real CLI, internal/agenttest TestSetupClaudeSettingsSchema,
// TestExecClaudeSettingsSchema). A managed file it reads all the same.
//
// bundlectl models that check only where it is sure: the top-level keys
// whose schema is a plain type with no fallback (no .catch, not one of
// the keys Claude Code deletes from a non-managed file first), each tried
// with the real CLI (settingsTypes), and of those only the value's JSON
// type, null aside. A value of the right type that fails a deeper rule
// (a string permissions.allow, a negative cleanupPeriodDays, an enum's
// unknown word), a null (Claude Code takes it out of some keys before the
// check, and drops the file for it under others), a key with a fallback,
// or a key the table does not name counts as read. That errs one way on
// purpose: exec counts a dropped file's switches for nothing, and a file
// taken for dropped that Claude Code reads could hold the true that
// keeps the views' guards from running.

// jsonType is a JSON value's type.
type jsonType string

const (
	jsonBoolean jsonType = "boolean"
	jsonString  jsonType = "string"
	jsonNumber  jsonType = "number"
	jsonArray   jsonType = "array"
	jsonObject  jsonType = "object"
)

// phrase is how a message names the type: "an array".
func (t jsonType) phrase() string {
	switch t {
	case jsonBoolean:
		return "a boolean (true or false)"
	case jsonArray, jsonObject:
		return "an " + string(t)
	}
	return "a " + string(t)
}

// settingsTypes are the top-level keys of Claude Code 2.1.332's settings
// schema (the object its bundle builds in the function holding
// "disableAllHooks:()=>") whose field is a boolean, string (or enum),
// number, array, object or record, optional, with no .catch, for which a
// value of another JSON type (not null) in a project settings file beside
// "disableAllHooks": true let a plugin's hook run: Claude Code dropped the
// file. Each was tried so, one by one, with the real CLI. Left out
// because they did not drop it (Claude Code mends them before the check):
// enabledMcpjsonServers, disabledMcpjsonServers, modelPicker,
// modelPricing, remoteControl.
//
// Built on first use: a process that reads no settings file (most
// commands) pays nothing for it at start.
var settingsTypes = sync.OnceValue(func() map[string]jsonType {
	return typesByKey(map[jsonType][]string{
		jsonBoolean: {
			"agentPushNotifEnabled", "allowAllClaudeAiMcps",
			"allowClaudeInChromeWithManagedMcp", "allowManagedHooksOnly",
			"allowManagedMcpServersOnly", "allowManagedPermissionRulesOnly",
			"allowNestedModelAccessUnderForceLogin", "alwaysThinkingEnabled",
			"autoCompactEnabled", "autoContinueAtUsageLimit", "autoDreamEnabled",
			"autoMemoryEnabled", "autoScrollEnabled", "autoUploadSessions",
			"awaySummaryEnabled", "bashEditDiffEnabled", "channelsEnabled",
			"clawdFileProgressEnabled", "disableAgentView", "disableAllHooks",
			"disableArtifact", "disableBundledSkills", "disableClaudeAiConnectors",
			"disableCommandPluginSources", "disableRemoteControl", "disableReplyCheck",
			"disableSideloadFlags", "disableSkillShellExecution",
			"disableWindowsBashCommandSplit", "disableWorkflows", "doneMeansMerged",
			"emojiCompletionEnabled", "enableAllProjectMcpServers", "enableArtifact",
			"enableWorkflows", "enforceAvailableModels", "fastMode",
			"fastModePerSessionOptIn", "fileCheckpointingEnabled",
			"forceRemoteSettingsRefresh", "idleCompaction", "includeCoAuthoredBy",
			"includeGitInstructions", "inputNeededNotifEnabled", "isolatePeerMachines",
			"precomputeCompactionEnabled", "prefersReducedMotion",
			"promptSuggestionEnabled", "remoteControlAtStartup", "respectGitignore",
			"respondToBashCommands", "responseComparisonEnabled",
			"showClearContextOnPlanAccept", "showMessageTimestamps",
			"showThinkingSummaries", "showTurnDuration",
			"skipDangerousModePermissionPrompt", "skipWebFetchPreflight",
			"skipWorkflowUsageWarning", "spinnerTipsEnabled", "switchModelsOnFlag",
			"syncClaudeAiPlugins", "syncClaudeAiSkills", "syntaxHighlightingDisabled",
			"terminalProgressBarEnabled", "terminalTitleFromRename",
			"todoFeatureEnabled", "totalTokensReminderAfterUserTurn", "verbose",
			"wheelScrollAccelerationEnabled", "workflowKeywordTriggerEnabled",
			"wslInheritsWindowsSettings",
		},
		jsonString: {
			"$schema", "advisorModel", "agent", "apiKeyHelper", "attributionProject",
			"autoMemoryDirectory", "autoUpdatesChannel", "awsAuthRefresh",
			"awsCredentialExport", "claudeMd", "daemonColdStart", "defaultShell",
			"disableAutoMode", "downloadsMirrorUrl", "feedbackDrafts",
			"gcpAuthRefresh", "language", "managedSourcesBehavior", "minimumVersion",
			"model", "modelCatalogPublicKey", "modelCatalogUrl", "otelHeadersHelper",
			"outputStyle", "parentSettingsBehavior", "plansDirectory",
			"pluginTrustMessage", "prUrlTemplate", "processWrapper", "proxyAuthHelper",
			"requiredMaximumVersion", "requiredMinimumVersion", "timeZone",
			"totalTokensReminder", "tui", "workflowSizeGuideline",
		},
		jsonNumber: {
			"cleanupPeriodDays", "desktopSessionCleanupPeriodDays",
			"feedbackSurveyRate", "skillListingBudgetFraction",
			"skillListingMaxDescChars", "totalTokensReminderBudget",
		},
		jsonArray: {
			"allowedChannelPlugins", "allowedHttpHookUrls", "availableModels",
			"claudeMdExcludes", "companyAnnouncements", "fallbackModel",
			"httpHookAllowedEnvVars", "pluginSuggestionMarketplaces", "sshConfigs",
		},
		jsonObject: {
			"breakReminder", "enabledPlugins", "fileSuggestion", "modelOverrides",
			"pluginConfigs", "quietHours", "remote", "remoteTools", "skillOverrides",
			"spinnerVerbs", "statusLine", "voice", "worktree",
		},
	})
})

// SettingsSchemaTypes are the top-level settings keys whose value's JSON
// type ("boolean", "string", "number", "array", "object") bundlectl takes
// Claude Code's settings schema to require, dropping the file for another
// (settingsTypes): internal/agenttest tries each with the real CLI.
func SettingsSchemaTypes() map[string]string {
	types := settingsTypes()
	out := make(map[string]string, len(types))
	for k, t := range types {
		out[k] = string(t)
	}
	return out
}

func typesByKey(byType map[jsonType][]string) map[string]jsonType {
	out := map[string]jsonType{}
	for t, keys := range byType {
		for _, k := range keys {
			out[k] = t
		}
	}
	return out
}

// typeOf is the JSON type of a value encoding/json decoded, "" for null.
func typeOf(v any) jsonType {
	switch v.(type) {
	case bool:
		return jsonBoolean
	case string:
		return jsonString
	case float64:
		return jsonNumber
	case []any:
		return jsonArray
	case map[string]any:
		return jsonObject
	}
	return ""
}

// schemaError is a value of a settings file that fails Claude Code's
// settings schema (settingsTypes), for which it drops the whole file.
type schemaError struct {
	key   string
	value any
	want  jsonType
}

// schemaDrop returns the first key (in name order) of m whose value
// Claude Code's schema refuses, as far as settingsTypes tells, or nil.
func schemaDrop(m map[string]any) *schemaError {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if want, ok := settingsTypes()[k]; ok && m[k] != nil && typeOf(m[k]) != want {
			return &schemaError{key: k, value: m[k], want: want}
		}
	}
	return nil
}

// setting is the value as written: "statusLine": 5.
func (e *schemaError) setting() string {
	return switchOff{key: e.key, value: e.value}.setting()
}

func (e *schemaError) Error() string {
	return fmt.Sprintf("%s fails Claude Code's settings schema (it wants %s there), and Claude Code then reads nothing of the file", e.setting(), e.want.phrase())
}

// fix says how to make the file one Claude Code reads.
func (e *schemaError) fix() string {
	return fmt.Sprintf("give %s %s, or remove it", bundle.Quote(e.key), e.want.phrase())
}

// schemaDropped reports whether a layer's unread is a schema drop, and
// which.
func schemaDropped(err error) (*schemaError, bool) {
	var se *hosts.SyntaxError
	if !errors.As(err, &se) {
		return nil, false
	}
	d, ok := se.Err.(*schemaError)
	return d, ok
}

// keyLine is the line of data where the top-level key is first written,
// 1 when it cannot be found: where a hint shows it.
func keyLine(data []byte, key string) int {
	re := regexp.MustCompile(hosts.JSONString(key) + `\s*:`)
	loc := re.FindIndex(data)
	if loc == nil {
		return 1
	}
	return 1 + bytes.Count(data[:loc[0]], []byte("\n"))
}
