package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/hosts"
)

// Claude Code 2.1.332 checks each user, project, local and --settings
// file against its settings schema (a zod object that lets unknown keys
// through) and, when any value fails it, drops the whole file: none of
// its settings are in effect, its hooks and its switches neither (found
// with the real CLI, internal/agenttest TestSetupClaudeSettingsSchema,
// TestExecClaudeSettingsSchema, TestClaudeSettingsSchemaVectors). A
// managed file it reads all the same.
//
// bundlectl models that check only where it is sure, each rule tried
// with the real CLI: the top-level keys whose schema is a plain type with
// no fallback (no .catch, not one of the keys Claude Code deletes from a
// non-managed file first) and the value's JSON type there
// (settingsTypes), a null under them but where Claude Code takes it out
// first (nullReads), and below permissions, env, enabledPlugins,
// statusLine, extraKnownMarketplaces and three hook events what
// settingsShapes says. A value deeper in that the shapes leave alone (an
// http hook's url past what urlShape can tell, a plugin of a kind Claude
// Code does not know listed by a marketplace source of another known
// kind than "settings"), a key with a fallback, or a key the tables do not name
// counts as read. That errs one way on purpose: exec counts a dropped
// file's switches for nothing, and a file taken for dropped that Claude
// Code reads could hold the true that keeps the views' guards from
// running; setup and list then say lines run that do not.

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
			"breakReminder", "enabledPlugins", "env", "fileSuggestion",
			"modelOverrides", "permissions", "pluginConfigs", "quietHours", "remote",
			"remoteTools", "skillOverrides", "spinnerVerbs", "statusLine", "voice",
			"worktree",
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
// settings schema (settingsTypes, settingsShapes, nullDrops), for which
// it drops the whole file.
type schemaError struct {
	// key is the top-level key, value its whole value.
	key   string
	value any
	// path leads from value down to got, the value that fails (object
	// keys as strings, array indexes as ints); empty when got is value.
	path []any
	got  any
	// want is what the schema wants there.
	want want
}

// want is what the schema wants of a value, as a message says it: "an
// object", `one of "plan", "auto"`.
type want string

func (w want) phrase() string { return string(w) }

// schemaDrop returns the first key (in name order) of m whose value
// Claude Code's schema refuses, as far as bundlectl models it, or nil:
// a value of another JSON type than settingsTypes says, a null where
// nullDrops says the schema refuses one, or a value deeper in that
// settingsShapes refuses.
func schemaDrop(m map[string]any) *schemaError {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k == "additionalMarketplaces" && marketplaceAliasIgnored(m) {
			continue
		}
		if e := keyDrop(k, m[k]); e != nil {
			return e
		}
	}
	return nil
}

// keyDrop is where the value v of the top-level key k fails the schema,
// or nil.
func keyDrop(k string, v any) *schemaError {
	t, typed := settingsTypes()[k]
	switch {
	case v == nil && nullDrops()[k]:
		return &schemaError{key: k, want: nullWant(t)}
	case v == nil:
		return nil
	case typed && typeOf(v) != t:
		return &schemaError{key: k, value: v, got: v, want: want(t.phrase())}
	}
	if s, ok := settingsShapes()[k]; ok {
		if f := s.check(v); f != nil {
			return &schemaError{key: k, value: v, path: f.path, got: f.got, want: f.want}
		}
	}
	return nil
}

// nullWant is what a message says the schema wants instead of a null.
func nullWant(t jsonType) want {
	if t == "" {
		return "a value other than null"
	}
	return want(t.phrase())
}

// setting is the value as written, down to the one that fails:
// "statusLine": 5, "permissions": {"defaultMode": "bogus"}, with an
// element of a list after others as […, x].
func (e *schemaError) setting() string {
	text := valueText(e.got)
	for i := len(e.path) - 1; i >= 0; i-- {
		switch step := e.path[i].(type) {
		case string:
			text = "{" + strconv.Quote(step) + ": " + text + "}"
		case int:
			if step > 0 {
				text = "[…, " + text + "]"
			} else {
				text = "[" + text + "]"
			}
		}
	}
	return strconv.Quote(e.key) + ": " + text
}

// valueText is v as JSON, cleaned for a terminal.
func valueText(v any) string {
	text, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return bundle.Sanitize(string(text))
}

// where names the place of the failing value: "statusLine",
// "permissions.defaultMode", "hooks.PreToolUse[0].hooks[0].type".
func (e *schemaError) where() string {
	var b strings.Builder
	b.WriteString(e.key)
	for _, step := range e.path {
		switch step := step.(type) {
		case string:
			b.WriteString("." + step)
		case int:
			fmt.Fprintf(&b, "[%d]", step)
		}
	}
	return bundle.Sanitize(b.String())
}

func (e *schemaError) Error() string {
	return fmt.Sprintf("%s fails Claude Code's settings schema (it wants %s there), and Claude Code then reads nothing of the file", e.setting(), e.want)
}

// fix says how to make the file one Claude Code reads.
func (e *schemaError) fix() string {
	return fmt.Sprintf("give %s %s, or remove it", bundle.Quote(e.where()), e.want)
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

// failure is where a value below a top-level key fails its shape: the
// path down to it from that key's value, the value, and what the schema
// wants there.
type failure struct {
	path []any
	got  any
	want want
}

// at puts step in front of f's path, nil staying nil.
func (f *failure) at(step any) *failure {
	if f != nil {
		f.path = append([]any{step}, f.path...)
	}
	return f
}

// shape is what Claude Code's settings schema wants of a value below a
// top-level key, as far as bundlectl models it: check returns where v
// fails it, or nil (also where the model cannot tell: it errs toward
// "read").
type shape interface {
	check(v any) *failure
}

// typed wants a value of one JSON type; a null fails it too (each such
// null was tried: Claude Code drops the file for it).
type typed jsonType

func (t typed) check(v any) *failure {
	if typeOf(v) != jsonType(t) {
		return &failure{got: v, want: want(jsonType(t).phrase())}
	}
	return nil
}

// positive wants a number above zero.
type positive struct{}

func (positive) check(v any) *failure {
	if n, ok := v.(float64); !ok || n <= 0 {
		return &failure{got: v, want: "a number above 0"}
	}
	return nil
}

// oneOf wants one of a few strings, exactly as written.
type oneOf []string

func (o oneOf) check(v any) *failure {
	if s, ok := v.(string); ok && slices.Contains(o, s) {
		return nil
	}
	quoted := make([]string, len(o))
	for i, w := range o {
		quoted[i] = strconv.Quote(w)
	}
	if len(o) == 1 {
		return &failure{got: v, want: want(quoted[0])}
	}
	return &failure{got: v, want: want("one of " + strings.Join(quoted, ", "))}
}

// listOf wants an array, each element of which elem wants (nil: any).
type listOf struct{ elem shape }

func (l listOf) check(v any) *failure {
	a, ok := v.([]any)
	if !ok {
		return &failure{got: v, want: want(jsonArray.phrase())}
	}
	if l.elem == nil {
		return nil
	}
	for i, e := range a {
		if f := l.elem.check(e); f != nil {
			return f.at(i)
		}
	}
	return nil
}

// field is one field of an object's shape.
type field struct {
	shape    shape
	required bool
}

// fields wants an object whose fields named here each have their shape;
// the others it lets through, as Claude Code's schema does.
type fields map[string]field

func (fs fields) check(v any) *failure {
	m, ok := v.(map[string]any)
	if !ok {
		return &failure{got: v, want: want(jsonObject.phrase())}
	}
	for _, k := range slices.Sorted(maps.Keys(fs)) {
		fv, present := m[k]
		switch {
		case !present && fs[k].required: // named on the object that lacks it
			return &failure{got: v, want: want("a " + strconv.Quote(k) + " field")}
		case present:
			if f := fs[k].shape.check(fv); f != nil {
				return f.at(k)
			}
		}
	}
	return nil
}

// entries wants an object each value of which (or only those of the keys
// named in only, when it is set) value wants. A "__proto__" key it lets
// through: Claude Code 2.1.332's record check skips it ("enabledPlugins":
// {"__proto__": 5} leaves the file read, testdata/schema_vectors.txt),
// and a drop claimed for it would hide the file's env and plugins.
type entries struct {
	value shape
	only  []string
}

func (e entries) check(v any) *failure {
	m, ok := v.(map[string]any)
	if !ok {
		return &failure{got: v, want: want(jsonObject.phrase())}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k == "__proto__" || e.only != nil && !slices.Contains(e.only, k) {
			continue
		}
		if f := e.value.check(m[k]); f != nil {
			return f.at(k)
		}
	}
	return nil
}

// either wants a value one of its shapes takes; a failure says the
// first's want… unless want is set.
type either struct {
	shapes []shape
	want   want
}

func (e either) check(v any) *failure {
	for _, s := range e.shapes {
		if s.check(v) == nil {
			return nil
		}
	}
	return &failure{got: v, want: e.want}
}

// orNull lets a null through where Claude Code does (it takes it out
// first), and checks anything else with shape.
type orNull struct{ shape shape }

func (o orNull) check(v any) *failure {
	if v == nil {
		return nil
	}
	return o.shape.check(v)
}

// ifObject checks an object with shape and lets anything else through,
// where Claude Code takes out a value that is no object first.
type ifObject struct{ shape shape }

func (o ifObject) check(v any) *failure {
	if _, ok := v.(map[string]any); !ok {
		return nil
	}
	return o.shape.check(v)
}

// marketplaceKinds are the source kinds of a marketplace Claude Code
// 2.1.332 knows (its extraKnownMarketplaces check keeps an entry of any
// other kind, for which the file's schema check then fails).
var marketplaceKinds = oneOf{"directory", "file", "git", "github", "hostPattern", "npm", "pathPattern", "settings", "skills-dir", "url"}

// pluginKinds are the kinds of a plugin's source, listed in a
// marketplace source's "plugins", that Claude Code 2.1.332's
// extraKnownMarketplaces check knows ("unsupported" too, which its
// schema refuses in a settings file): it keeps an entry that fails its
// schema and lists a plugin whose source names another kind, for which
// the file's schema check then fails.
var pluginKinds = []string{"archive", "command", "git-subdir", "github", "npm", "unsupported", "url"}

// pluginKindWant is what a plugin's source kind may be in a settings
// file: pluginKinds but "unsupported".
var pluginKindWant = oneOf{"archive", "command", "git-subdir", "github", "npm", "url"}

// marketplaceEntry is what Claude Code 2.1.332 drops a settings file for
// in an entry of extraKnownMarketplaces (the function of its bundle that
// warns "Invalid marketplace entry was ignored"): it takes out an entry
// that fails the entry's schema, with a warning, but keeps, and then
// drops the file for, one whose source names a kind it does not know,
// and one whose source lists a plugin of a kind it does not know
// (unknownPlugin), whatever the source's own kind. The model says drops
// for the second only where the entry surely fails: the source names no
// kind, or one that is no string, or "settings", whose plugins the
// schema checks (each tried, testdata/schema_vectors.txt). Of any other
// kind, the source's other fields decide, which the model does not
// check: it reads, and unvouched names it.
type marketplaceEntry struct{}

func (marketplaceEntry) check(v any) *failure {
	entry, _ := v.(map[string]any)
	source, ok := entry["source"].(map[string]any)
	if !ok {
		return nil // taken out, or read
	}
	kind, named := source["source"].(string)
	if named {
		if f := marketplaceKinds.check(kind); f != nil {
			return f.at("source").at("source")
		}
	}
	i, pluginKind := unknownPlugin(source)
	if i < 0 || named && kind != "settings" {
		return nil
	}
	return pluginKindWant.check(pluginKind).at("source").at("source").at(i).at("plugins").at("source")
}

// unknownPlugin is the index of the first plugin a marketplace source
// lists whose source is an object naming a kind (a string) that is not
// one of pluginKinds, and that kind; -1 when there is none. Claude Code
// looks no further: a plugin that is no object, a source that is a
// string ("./x") or names no string kind do not count.
func unknownPlugin(source map[string]any) (int, string) {
	plugins, _ := source["plugins"].([]any)
	for i, p := range plugins {
		plugin, _ := p.(map[string]any)
		ps, _ := plugin["source"].(map[string]any)
		if kind, ok := ps["source"].(string); ok && !slices.Contains(pluginKinds, kind) {
			return i, kind
		}
	}
	return -1, ""
}

// hookEntry is one hook of a settings file's hooks: an object whose
// type names one of the five kinds, and whose fields hookKinds names
// each have their shape (each tried with the real CLI,
// testdata/schema_vectors.txt). Fields it does not name Claude Code lets
// through; an http hook's url it checks only so far as urlShape can tell
// (unvouched names it).
type hookEntry struct{}

func (hookEntry) check(v any) *failure {
	if f := (fields{"type": {shape: oneOf{"command", "prompt", "agent", "http", "mcp_tool"}, required: true}}).check(v); f != nil {
		return f
	}
	return hookKinds()[v.(map[string]any)["type"].(string)].check(v)
}

// hookKinds are the fields of each kind of hook in Claude Code 2.1.332's
// hooks schema (the function returning BashCommandHookSchema and the
// others): each optional but those required, none with a fallback but
// "cloud" (it reads a value it does not know as "skip") and an mcp_tool
// hook's "onFailure" (it reads one as "block"), which take anything.
var hookKinds = sync.OnceValue(func() map[string]fields {
	str := field{shape: typed(jsonString)}
	boolean := field{shape: typed(jsonBoolean)}
	timeout := field{shape: positive{}}
	onFailure := field{shape: oneOf{"continue", "block"}}
	strs := field{shape: listOf{elem: typed(jsonString)}}
	anything := field{shape: anyValue{}}
	withCommon := func(fs fields) fields {
		fs["if"], fs["statusMessage"], fs["once"], fs["timeout"] = str, str, boolean, timeout
		return fs
	}
	return map[string]fields{
		"command": withCommon(fields{
			"command":       {shape: typed(jsonString), required: true},
			"args":          strs,
			"shell":         {shape: oneOf{"bash", "powershell"}},
			"onFailure":     onFailure,
			"async":         boolean,
			"asyncRewake":   boolean,
			"holdsTools":    boolean,
			"rewakeMessage": {shape: nonEmpty{}},
			"rewakeSummary": {shape: nonEmpty{}},
			"cloud":         anything,
		}),
		"prompt": withCommon(fields{
			"prompt":          {shape: typed(jsonString), required: true},
			"model":           str,
			"continueOnBlock": boolean,
		}),
		"agent": withCommon(fields{
			"prompt": {shape: typed(jsonString), required: true},
			"model":  str,
		}),
		"mcp_tool": withCommon(fields{
			"server":    {shape: typed(jsonString), required: true},
			"tool":      {shape: typed(jsonString), required: true},
			"input":     {shape: typed(jsonObject)},
			"onFailure": anything,
		}),
		"http": withCommon(fields{
			"url":            {shape: urlShape{}, required: true},
			"onFailure":      onFailure,
			"headers":        {shape: entries{value: typed(jsonString)}},
			"allowedEnvVars": strs,
			"cloud":          anything,
		}),
	}
})

// anyValue takes any value, a null too: a field whose schema falls back
// on a value it does not know.
type anyValue struct{}

func (anyValue) check(any) *failure { return nil }

// nonEmpty wants a string of at least one character.
type nonEmpty struct{}

func (nonEmpty) check(v any) *failure {
	if s, ok := v.(string); !ok || s == "" {
		return &failure{got: v, want: "a string that is not empty"}
	}
	return nil
}

// urlShape wants a string that Claude Code 2.1.332's url check takes: it
// trims the string (JavaScript's trim) and hands it to the WHATWG URL
// parser (new URL), any scheme allowed. The model refuses what
// bundle.JSURLRefuses says that parser surely refuses: no scheme ("x",
// "/hook", "127.0.0.1:1/x", "//host/x", ""), a special scheme with no
// host ("http://", "ftp:"), a bad port, a host it cannot parse ("http://a
// b/"). What it cannot judge (IDNA) it takes for read: it errs toward
// "read", and unvouched names such a url.
type urlShape struct{}

// urlWant is what a message says urlShape wants.
const urlWant = "a URL JavaScript's URL parses, with a scheme and, for http, https, ws, wss and ftp, a host (such as http://127.0.0.1:8080/hook)"

func (urlShape) check(v any) *failure {
	s, ok := v.(string)
	// Only what JavaScript's trim takes off both ends goes, and no more:
	// the URL parser then takes C0 controls and spaces off
	// (bundle.JSURLRefuses does), but not a trim's white space behind
	// one. Taking both off in any order vouched for
	// "\u0001\u00a0http://host/x", which Claude Code 2.1.332 refuses (no
	// scheme once the parser is left with "\u00a0http:"), and exec
	// --exclusive carried a --settings Claude Code drops, the user's
	// plugins loading with it.
	if !ok || bundle.JSURLRefuses(bundle.ClaudeURLTrim(s)) {
		return &failure{got: v, want: urlWant}
	}
	return nil
}

// urlVouched reports whether the model can vouch the WHATWG URL parser
// takes s: it does not refuse it, and nothing in its host is left to
// IDNA (a character beyond ASCII, a percent-escape, which the parser
// decodes there and may make one, or a Punycode "xn--" label, some of
// which Bun refuses where node takes them). The host of a scheme that
// is not special ("a://é/x") is opaque: the parser percent-encodes it
// and never hands it to IDNA, so only what JSURLRefuses says of it
// counts (Claude Code 2.1.332 reads "a://é/x", "a://xn--a-/x" and
// "a://%zz.é/x": agenttest TestExecClaudeExclusiveCarriedUnmodelledDrop). Beyond ASCII and
// percent-escapes elsewhere (userinfo, path, query, fragment, the path
// of a url with no host) the parser encodes, or keeps as written, and
// never refuses (each form tried with the real CLI,
// testdata/schema_vectors.txt); the host urlHost finds as the parser
// does, and a url whose host it cannot find so is not vouched for.
func urlVouched(s string) bool {
	s = bundle.ClaudeURLTrim(s)
	if bundle.JSURLRefuses(s) {
		return false
	}
	host, ok := urlHost(s)
	if !ok {
		return false
	}
	if name, _ := urlSchemeSplit(s); !slices.Contains(specialSchemes, name) {
		return true // an opaque host, which the parser percent-encodes, never IDNA
	}
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 || host[i] == '%' {
			return false
		}
	}
	return !strings.Contains(strings.ToLower(host), "xn--")
}

// specialSchemes are the WHATWG URL parser's special schemes whose host
// is a domain or an address (file's, which may be empty and holds
// drive letters, urlHost does not find).
var specialSchemes = []string{"ftp", "http", "https", "ws", "wss"}

// urlScheme is the scheme s starts with and the colon after it (an ASCII
// letter, then letters, digits, '+', '-' or '.'), or "".
func urlScheme(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':' && i > 0:
			return s[:i+1]
		case 'a' <= c|0x20 && c|0x20 <= 'z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return ""
		}
	}
	return ""
}

// urlSchemeSplit is the scheme s starts with, in lower case and without
// its colon, and what follows the colon ("", s when there is none), as
// the WHATWG URL parser reads s: C0 controls and spaces first taken off
// both ends, tabs and line breaks out.
func urlSchemeSplit(s string) (name, rest string) {
	s = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	s = strings.TrimFunc(s, func(r rune) bool { return r <= 0x20 })
	scheme := urlScheme(s)
	if scheme == "" {
		return "", s
	}
	return strings.ToLower(strings.TrimSuffix(scheme, ":")), s[len(scheme):]
}

// urlHost is the host of s, a url the parser takes, as the WHATWG URL
// parser splits it ("" when there is none: "a:x"), port and userinfo
// left off; ok false for a url it does not split (no scheme, or file:).
// The parser first takes C0 controls and spaces off both ends and tabs
// and line breaks out; a special scheme's authority starts past any
// slashes and backslashes after the colon ("http:h/x", "http:\\h") and
// ends at a slash, backslash, '?' or '#'; another scheme's has one only
// behind "//", and a backslash does not end it. The host follows the
// last '@' and ends at the first ':' outside brackets.
func urlHost(s string) (host string, ok bool) {
	name, rest := urlSchemeSplit(s)
	if name == "" {
		return "", false
	}
	ends := "/?#"
	switch {
	case slices.Contains(specialSchemes, name):
		rest, ends = strings.TrimLeft(rest, `/\`), `/?#\`
	case name == "file":
		return "", false
	case strings.HasPrefix(rest, "//"):
		rest = rest[2:]
	default:
		return "", true // no authority: the rest is a path
	}
	if end := strings.IndexAny(rest, ends); end >= 0 {
		rest = rest[:end]
	}
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		rest = rest[at+1:]
	}
	inBrackets := false
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '[':
			inBrackets = true
		case ']':
			inBrackets = false
		case ':':
			if !inBrackets {
				return rest[:i], true
			}
		}
	}
	return rest, true
}

// unvouched is where a settings file that schemaDrop reads holds a value
// the model cannot vouch Claude Code reads too, or "": a field of a hook
// under a strictHookEvents event the model does not check (or an http
// hook's url the model cannot vouch the WHATWG URL parser takes:
// urlVouched), or a marketplace source of a known kind other than
// "settings" that lists a plugin of a kind Claude Code does not know
// (pluginListingSource). exec --exclusive refuses to carry such a
// --settings into its own, since a drop would take the entries that turn
// the user's plugins off down with it.
func unvouched(m map[string]any) string {
	if where := pluginListingSource(m); where != "" {
		return where
	}
	hooks, _ := m["hooks"].(map[string]any)
	for _, event := range strictHookEvents {
		matchers, _ := hooks[event].([]any)
		for i, mv := range matchers {
			matcher, _ := mv.(map[string]any)
			list, _ := matcher["hooks"].([]any)
			for j, hv := range list {
				if k := unvouchedField(hv); k != "" {
					return fmt.Sprintf("hooks.%s[%d].hooks[%d].%s", event, i, j, k)
				}
			}
		}
	}
	return ""
}

// marketplaceAliasIgnored reports whether Claude Code ignores m's
// additionalMarketplaces, the alias of extraKnownMarketplaces: it does
// beside that key when it is not null (a null there it takes out first;
// testdata/schema_vectors.txt), and nothing under the alias then drops
// the file or needs vouching for.
func marketplaceAliasIgnored(m map[string]any) bool {
	return m["extraKnownMarketplaces"] != nil
}

// pluginListingSource is the first marketplace of m whose source lists
// a plugin of a kind Claude Code does not know (unknownPlugin), as
// "extraKnownMarketplaces.<name>.source.plugins[<i>].source.source", or
// "": in a file schemaDrop reads, its source is of a known kind other
// than "settings", and whether Claude Code keeps the entry, and drops
// the file, turns on the source's other fields, which the model does
// not check ({"source": "github", "repo": 5} drops it). A source listing
// none such Claude Code takes out or reads, as schemaDrop says.
func pluginListingSource(m map[string]any) string {
	for _, key := range []string{"additionalMarketplaces", "extraKnownMarketplaces"} {
		if key == "additionalMarketplaces" && marketplaceAliasIgnored(m) {
			continue
		}
		entries, _ := m[key].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(entries)) {
			entry, _ := entries[name].(map[string]any)
			source, _ := entry["source"].(map[string]any)
			if i, _ := unknownPlugin(source); i >= 0 {
				return fmt.Sprintf("%s.%s.source.plugins[%d].source.source", key, name, i)
			}
		}
	}
	return ""
}

// unvouchedField is the first field (in name order) of a hook the model
// does not check for its kind, or "url" of an http hook whose url it
// cannot vouch for (urlVouched).
func unvouchedField(v any) string {
	h, _ := v.(map[string]any)
	kind, _ := h["type"].(string)
	if url, _ := h["url"].(string); kind == "http" && !urlVouched(url) {
		return "url"
	}
	for _, k := range slices.Sorted(maps.Keys(h)) {
		if _, ok := hookKinds()[kind][k]; !ok && k != "type" {
			return k
		}
	}
	return ""
}

// strictHookEvents are the events of a settings file's hooks under
// which a value that fails Claude Code 2.1.332's hooks schema drops the
// whole file (each event tried with the real CLI,
// testdata/schema_vectors.txt): under the others it takes out what fails
// first, as it does for a plugin's hooks (docs/claude-code.md).
var strictHookEvents = []string{"PermissionRequest", "PreSkillShellCommand", "PreToolUse"}

// permissionModes are the words permissions.defaultMode takes ("manual"
// standing for "default").
var permissionModes = oneOf{"acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "manual", "plan"}

// settingsShapes are what Claude Code 2.1.332's settings schema wants
// below a few top-level keys, as far as each was tried with the real CLI
// (testdata/schema_vectors.txt, which internal/agenttest
// TestClaudeSettingsSchemaVectors holds it to): a value that fails it
// drops the file. What is not here counts as read: the elements of
// permissions.allow, deny and ask (Claude Code takes out a rule it cannot
// read, a 5 or "Bash(", first), the values of env (it turns a number or a
// boolean into a string), the fields of a hook hookKinds does not name
// and an http hook's url past what urlShape tells, a marketplace whose
// source, of a known kind but "settings", lists a plugin of a kind
// Claude Code does not know (it drops the file for it when the source
// fails otherwise: marketplaceEntry), and a hooks that is no object or an event not named
// (Claude Code takes them out first).
var settingsShapes = sync.OnceValue(func() map[string]shape {
	strings := listOf{elem: typed(jsonString)}
	command := hookEntry{}
	// Claude Code takes out a marketplace entry that fails its schema,
	// with a warning, but those marketplaceEntry says, which it keeps,
	// and then drops the file for.
	marketplaces := ifObject{entries{value: marketplaceEntry{}}}
	matcher := fields{
		"matcher": {shape: typed(jsonString)},
		"hooks":   {shape: listOf{elem: command}, required: true},
	}
	return map[string]shape{
		"permissions": fields{
			"allow":                        {shape: listOf{}},
			"deny":                         {shape: listOf{}},
			"ask":                          {shape: listOf{}},
			"defaultMode":                  {shape: permissionModes},
			"additionalDirectories":        {shape: strings},
			"disableBypassPermissionsMode": {shape: oneOf{"disable"}},
		},
		"hooks":                  ifObject{entries{value: orNull{listOf{elem: matcher}}, only: strictHookEvents}},
		"extraKnownMarketplaces": marketplaces,
		"additionalMarketplaces": marketplaces,
		"env":                    typed(jsonObject),
		"enabledPlugins":         entries{value: either{shapes: []shape{typed(jsonBoolean), strings}, want: "true, false or an array of strings"}},
		"statusLine": fields{
			"type":    {shape: oneOf{"command"}, required: true},
			"command": {shape: typed(jsonString), required: true},
			"padding": {shape: typed(jsonNumber)},
		},
	}
})

// nullReads are the keys of settingsTypes under which a null leaves the
// file read (Claude Code takes it out before the check), each tried with
// the real CLI (internal/agenttest TestClaudeSettingsSchemaTable; a
// disableAllHooks null, which drops the file, TestClaudeSettingsEnvDropped);
// under the others it drops the file.
var nullReads = []string{
	"allowManagedHooksOnly", "allowManagedMcpServersOnly",
	"allowManagedPermissionRulesOnly", "autoContinueAtUsageLimit",
	"autoUploadSessions", "channelsEnabled", "disableAgentView",
	"disableArtifact", "disableAutoMode", "disableBundledSkills",
	"disableClaudeAiConnectors", "disableCommandPluginSources",
	"disableRemoteControl", "disableSideloadFlags", "disableSkillShellExecution",
	"disableWindowsBashCommandSplit", "disableWorkflows",
	"enableAllProjectMcpServers", "enableArtifact", "enableWorkflows",
	"enforceAvailableModels", "fastModePerSessionOptIn", "feedbackDrafts",
	"fileCheckpointingEnabled", "isolatePeerMachines", "remoteControlAtStartup",
	"responseComparisonEnabled", "skipDangerousModePermissionPrompt",
	"skipWebFetchPreflight", "skipWorkflowUsageWarning", "syncClaudeAiPlugins",
	"syncClaudeAiSkills",
}

// nullDrops are the top-level keys under which a null drops the file:
// those of settingsTypes but nullReads.
var nullDrops = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for k := range settingsTypes() {
		out[k] = !slices.Contains(nullReads, k)
	}
	return out
})

// SettingsSchemaNullDrops reports, for each key of SettingsSchemaTypes,
// whether bundlectl takes a null there to make Claude Code drop the file
// (nullDrops): internal/agenttest tries each with the real CLI.
func SettingsSchemaNullDrops() map[string]bool {
	return maps.Clone(nullDrops())
}
