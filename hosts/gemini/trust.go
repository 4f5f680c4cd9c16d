package gemini

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/internal/jsjson"
)

// trustsFolder reports whether Gemini CLI (0.61) is sure to trust its
// working directory cwd, and so to read the workspace's settings
// (cwd/.gemini/settings.json): in a folder it does not trust it reads
// them as empty, and the user's or the system defaults' hooksConfig
// decides alone (internal/agenttest TestGeminiUntrustedFolderSettings).
// False means it may not: Gemini CLI asks in an interactive session when
// no rule decides, and an IDE it is connected to may decide.
//
// Sure is: GEMINI_CLI_TRUST_WORKSPACE=true (unless GEMINI_RESTRICTED_MODE
// is true); security.folderTrust.enabled off in the settings Gemini CLI
// reads for it (the system's, the user's, the system defaults'); or, with
// no IDE mode, the longest rule of trustedFolders.json that covers cwd
// trusting it (TRUST_FOLDER, or TRUST_PARENT on a folder inside). Not
// --skip-trust: Gemini CLI reads its settings before its arguments, and
// the switch lets an untrusted folder's session start with the
// workspace's settings still read as empty.
func trustsFolder(user string, env []string, cwd string) bool {
	return trusts(user, env, cwd, true)
}

// trustsFolderAtLoad is trustsFolder as Gemini CLI decides it when it
// loads its settings and its .env file, before any IDE is connected: the
// IDE setting does not count.
func trustsFolderAtLoad(user string, env []string, cwd string) bool {
	return trusts(user, env, cwd, false)
}

// distrusts reports whether Gemini CLI (0.61) surely does not trust cwd
// whenever it loads its settings and .env file, args its arguments: the
// environment says so (GEMINI_RESTRICTED_MODE=true,
// GEMINI_CLI_TRUST_WORKSPACE=false without --skip-trust, which sets it
// true; its relaunches keep either), or the
// session is headless (-p/--prompt, which shows no trust dialog and so
// never starts itself again trusted), without --skip-trust, and no rule
// or setting trusts the folder when it loads them. --skip-trust sets
// GEMINI_CLI_TRUST_WORKSPACE=true once the settings are read, but Gemini
// CLI reads the .env file again when it checks the auth method, before it
// decides on a sandbox, and then loads all of it (internal/agenttest
// TestGeminiSkipTrustDotEnvSandbox): not sure. An interactive session may
// ask, or be told with /permissions, and start itself again in a trusted
// folder: not sure either.
func distrusts(user string, env, args []string, cwd string) bool {
	get := func(k string) string { v, _ := envLookup(env, k); return v }
	if get("GEMINI_RESTRICTED_MODE") == "true" {
		return true
	}
	if skipsTrust(args) {
		// It overwrites GEMINI_CLI_TRUST_WORKSPACE=false too.
		return false
	}
	if get("GEMINI_CLI_TRUST_WORKSPACE") == "false" {
		return true
	}
	return headless(args, env) && trustReadable(user, env) && !mayTrustAtLoad(user, env, cwd)
}

// mayTrustAtLoad reports whether Gemini CLI (0.61) may trust cwd when it
// loads its settings and .env file: it surely does (trustsFolderAtLoad),
// or, with nothing in env deciding, folder trust may be off (a string
// "false" in a file that may pass its schema: trustSettings).
func mayTrustAtLoad(user string, env []string, cwd string) bool {
	if trustsFolderAtLoad(user, env, cwd) {
		return true
	}
	get := func(k string) string { v, _ := envLookup(env, k); return v }
	if get("GEMINI_RESTRICTED_MODE") == "true" || get("GEMINI_CLI_TRUST_WORKSPACE") == "false" {
		return false
	}
	folderTrust, _, ok := trustSettings(user, env)
	return ok && folderTrust.off
}

// folderTrustEither says, for a warning's When, that folder trust may be
// on or off, and why: a string "false" (trustSettings); "" when it is
// not so.
func folderTrustEither(user string, env []string) string {
	folderTrust, _, ok := trustSettings(user, env)
	if !ok || !folderTrust.either() {
		return ""
	}
	return " (folder trust may be on: " + bundle.Quote(folderTrust.file) + ` sets "security": {"folderTrust": {"enabled"}} to a string, which Gemini CLI reads as off only where nothing in that file fails its schema, and as on where something does; write it false, without quotes, to turn folder trust off)`
}

// skipsTrust reports whether args may hold Gemini CLI's --skip-trust in
// any spelling its argument parser reads (--skip-trust, --skipTrust, with
// "=value" or not, its --no- form too): anywhere, as being wrong here
// only keeps a refusal.
func skipsTrust(args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(a, "=")
		switch strings.TrimPrefix(name, "--no-") {
		case "--skip-trust", "--skipTrust", "skip-trust", "skipTrust":
			return true
		}
	}
	return false
}

// trustReadable reports whether every file trusts reads can be read and
// parsed (or is absent), so that its false is Gemini CLI's untrusted and
// not a file bundlectl could not read.
func trustReadable(user string, env []string) bool {
	for _, f := range withoutWorkspace(settingsLayers(user, env)) {
		if _, err := hosts.ReadSettings(f); err != nil {
			return false
		}
	}
	_, err := hosts.ReadSettings(trustedFoldersPath(user, env))
	return err == nil
}

// headless reports whether Gemini CLI (0.61) surely runs args, env its
// environment, without its interactive interface, which alone shows a
// trust dialog and starts itself again trusted. Its loadCliConfig makes
// a session interactive for a -i/--prompt-interactive value, for --acp or
// --experimental-acp, and else when isHeadlessMode is false; that is
// true for CI=true or GITHUB_ACTIONS=true (unless
// GEMINI_CLI_INTEGRATION_TEST=true), for stdin or stdout not a terminal
// (the agent's are bundlectl's own: exec passes them on), for a
// -p/--prompt value that is not empty, and for an argument "-p" or
// "--prompt" anywhere (internal/agenttest TestGeminiHeadlessSpellings).
// A positional prompt alone does not count: in a terminal Gemini CLI
// takes it as -i's. Not sure, and so false: any argument that may be -i
// (a short group holding an i), --prompt-interactive, --promptInteractive,
// --acp, --experimental-acp or --experimentalAcp, in any spelling,
// anywhere; being wrong here only keeps a refusal.
func headless(args, env []string) bool {
	p := false
	for _, a := range args {
		name, val, eq := strings.Cut(a, "=")
		switch {
		case name == "--prompt-interactive" || name == "--promptInteractive" || name == "--acp" || name == "--experimental-acp" || name == "--experimentalAcp":
			return false
		case len(name) > 1 && name[0] == '-' && name[1] != '-' && strings.ContainsRune(name, 'i'):
			return false // -i, -i=X, -iX, -yi
		case a == "-p" || a == "--prompt":
			p = true
		case (name == "-p" || name == "--prompt") && eq && val != "":
			p = true
		}
	}
	if p {
		return true
	}
	get := func(k string) string { v, _ := envLookup(env, k); return v }
	if get("GEMINI_CLI_INTEGRATION_TEST") != "true" && (get("CI") == "true" || get("GITHUB_ACTIONS") == "true") {
		return true
	}
	if testOnlyTerminals != nil {
		return !*testOnlyTerminals
	}
	return !isTerminal(os.Stdin) || !isTerminal(os.Stdout)
}

// testSwitch is the environment switch in env that makes Gemini CLI
// (0.61) take itself for its own test run, "GEMINI_CLI_INTEGRATION_TEST=true"
// or "VITEST=true", or "" for none. Its loadCliConfig then turns its
// config's folder trust off, which takes away the /permissions command
// (offered only with it on) and nothing else bundlectl decides by: the
// folder's trust, and so which settings hooks run, the trust dialog and a
// -p session's stop in a folder it does not trust are still decided from
// the settings and trustedFolders.json (internal/agenttest
// TestGeminiTestSwitches).
func testSwitch(env []string) string {
	for _, k := range []string{"GEMINI_CLI_INTEGRATION_TEST", "VITEST"} {
		if v, _ := envLookup(env, k); v == "true" {
			return k + "=true"
		}
	}
	return ""
}

// testSwitchAt is testSwitch for a session started in cwd: the
// environment's switch, else one a .env file Gemini CLI (0.61) loads
// there sets, and that file. It loads the whole file only in a folder it
// trusts when it loads it (trustsFolderAtLoad), before it reads the
// switches (internal/agenttest TestGeminiTestSwitchDotEnv: VITEST=true
// in the .env of a folder a TRUST_FOLDER rule trusts takes /permissions
// away, in one a DO_NOT_TRUST rule holds it does not). Where bundlectl
// names /permissions the folder may not be trusted, so that is with IDE
// mode on alone, where an IDE may distrust a folder the rules trust. A
// variable the environment sets, even empty, keeps the file's out.
func testSwitchAt(user string, env []string, cwd string) (sw, file string) {
	if sw := testSwitch(env); sw != "" || cwd == "" || !mayTrustAtLoad(user, env, cwd) {
		return sw, ""
	}
	for _, k := range []string{"GEMINI_CLI_INTEGRATION_TEST", "VITEST"} {
		if _, set := envLookup(env, k); set {
			continue
		}
		for _, ignoreLocal := range dotEnvPicks(user, env, nil, cwd) {
			if f := findEnvFile(cwd, user, geminiHomedir(env), ignoreLocal); f != "" && dotEnvParse(f)[k] == "true" && !surelyExcluded(user, env, nil, cwd, f, k) {
				return k + "=true", f
			}
		}
	}
	return "", ""
}

// testOnlyTerminals, when set, stands for whether stdin and stdout are
// both terminals.
var testOnlyTerminals *bool

func trusts(user string, env []string, cwd string, withIDE bool) bool {
	get := func(k string) string { v, _ := envLookup(env, k); return v }
	if get("GEMINI_RESTRICTED_MODE") == "true" || get("GEMINI_CLI_TRUST_WORKSPACE") == "false" {
		return false
	}
	if get("GEMINI_CLI_TRUST_WORKSPACE") == "true" {
		return true
	}
	folderTrust, ide, ok := trustSettings(user, env)
	if !ok {
		return false
	}
	if !folderTrust.on {
		return true
	}
	if ide.on && withIDE || cwd == "" {
		return false
	}
	_, level, _ := folderRule(user, env, cwd)
	return level == "TRUST_FOLDER" || level == "TRUST_PARENT"
}

// distrustedByRule reports whether a trustedFolders.json rule, the
// longest that covers cwd, says DO_NOT_TRUST, and Gemini CLI (0.61)
// surely heeds it outside an IDE that decides instead (ideMode): folder
// trust on and no GEMINI_CLI_TRUST_WORKSPACE=true in env. In such a
// folder an interactive session runs no hook of any settings file, the
// user's included (internal/agenttest TestGeminiUntrustedFolderUserHooks),
// and asks nothing; rule is the rule's folder as written.
func distrustedByRule(user string, env []string, cwd string) (rule string, ok bool) {
	if v, _ := envLookup(env, "GEMINI_CLI_TRUST_WORKSPACE"); v == "true" || cwd == "" {
		return "", false
	}
	folderTrust, _, ok := trustSettings(user, env)
	if !ok || !folderTrust.on {
		return "", false
	}
	rule, level, ok := folderRule(user, env, cwd)
	return rule, ok && level == "DO_NOT_TRUST"
}

// ideMode reports whether ide.enabled is on in the settings Gemini CLI
// (0.61) reads it from: an IDE it connects to then decides the folder's
// trust before any rule does, and outside one the rules decide
// (internal/agenttest TestGeminiTrustRuleSpellings ide-mode-no-ide).
func ideMode(user string, env []string) bool {
	_, ide, ok := trustSettings(user, env)
	return ok && ide.on
}

// trustSettings reads security.folderTrust.enabled and ide.enabled as
// Gemini CLI (0.61) may decide them, from the settings it reads for them
// (the system's, the user's, the system defaults'; folder trust on by
// default, the IDE off); ok is false when one of those files cannot be
// read. Gemini CLI merges the files as written (customDeepMerge) and tests
// the JavaScript truth of settings.security?.folderTrust?.enabled ?? true
// and settings.ide?.enabled ?? false, so a null, or a security,
// folderTrust or ide that is not an object (which replaces the lower
// files' whole), decides the default; and a string "false" is false only
// in a file that passes its schema, where it is made a boolean, and a true
// string in one that fails it anywhere (boolSettingMay).
func trustSettings(user string, env []string) (folderTrust, ide boolSetting, ok bool) {
	folderTrust, ide = boolSetting{on: true}, boolSetting{off: true}
	decidedTrust, decidedIDE := false, false
	for _, f := range withoutWorkspace(settingsLayers(user, env)) {
		m, err := hosts.ReadSettings(f)
		if err != nil {
			return boolSetting{}, boolSetting{}, false
		}
		if v, set, leaf := settingAt(m, "security", "folderTrust", "enabled"); set && !decidedTrust {
			folderTrust, decidedTrust = boolSetting{on: true}, true
			if leaf {
				folderTrust = boolSettingMay(v, env, true, f)
			}
		}
		if v, set, leaf := settingAt(m, "ide", "enabled"); set && !decidedIDE {
			ide, decidedIDE = boolSetting{off: true}, true
			if leaf {
				ide = boolSettingMay(v, env, false, f)
			}
		}
	}
	return folderTrust, ide, true
}

// boolSetting is what Gemini CLI (0.61) may make of a boolean setting:
// on, off, or either (both set); file is the settings file whose value
// leaves it either way.
type boolSetting struct {
	on, off bool
	file    string
}

// either reports whether the setting may be on and may be off.
func (b boolSetting) either() bool { return b.on && b.off }

// settingAt finds the setting at path in the settings m of one file as
// Gemini CLI's merge takes it: set when the file decides it for the
// lower files, either with the value itself (leaf) or with a key on the
// way that is not an object (JSON null included), which replaces the
// lower files' whole and leaves the setting unset.
func settingAt(m map[string]any, path ...string) (v any, set, leaf bool) {
	cur := m
	for i, k := range path {
		x, ok := cur[k]
		if !ok {
			return nil, false, false
		}
		if i == len(path)-1 {
			return x, true, true
		}
		obj, isObj := x.(map[string]any)
		if !isObj {
			return nil, true, false
		}
		cur = obj
	}
	return nil, false, false
}

// boolSettingMay is what Gemini CLI (0.61) may make of v, a boolean
// setting's value in the settings file f, read as value ?? def. Every
// value but a boolean and the strings "true" and "false" (in any ASCII
// case) fails its schema, and then the whole file is used as written,
// with a warning: null is def, and another value its JavaScript truth. A
// string "true" or "false" is made a boolean only where nothing else in
// the file fails the schema, which bundlectl does not check: "true" is
// true either way, "false" may be either (internal/agenttest
// TestGeminiFolderTrustSettingForms). A string's environment variables
// are filled in first.
func boolSettingMay(v any, env []string, def bool, f string) boolSetting {
	switch x := v.(type) {
	case nil:
		return boolSetting{on: def, off: !def}
	case string:
		switch s := expandEnv(x, env); asciiLower(s) {
		case "true":
			return boolSetting{on: true}
		case "false":
			return boolSetting{on: true, off: true, file: f}
		case "":
			return boolSetting{off: true}
		}
		return boolSetting{on: true}
	}
	t := truthy(v)
	return boolSetting{on: t, off: !t}
}

// asciiLower is s with A-Z made a-z alone: JavaScript's toLowerCase
// leaves no other letter an ASCII one that "true" or "false" holds (the
// long s, U+017F, which Go's case folding takes for an s, stays itself).
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// folderRule is the longest rule of trustedFolders.json that covers cwd
// (TRUST_PARENT covering its rule's parent), as Gemini CLI picks it: the
// rule as written and its level; ok is false when the file cannot be
// read or no rule covers cwd. Length and cover are read from the rule
// as Gemini CLI holds it (trustRules), not as written: "/p/./" is the
// rule "/p", shorter than "/p/ws", and "/p/ws/" with TRUST_PARENT
// covers "/p".
func folderRule(user string, env []string, cwd string) (rule, level string, ok bool) {
	rules, err := trustRules(user, env, cwd)
	if err != nil {
		return "", "", false
	}
	loc := realPath(cwd)
	best := -1
	for _, r := range rules {
		dir := r.path
		if r.level == "TRUST_PARENT" {
			dir = filepath.Dir(r.path)
		}
		// The longest rule by JavaScript's length, in UTF-16 code units;
		// the first of equal ones.
		if n := len(utf16.Encode([]rune(r.path))); within(realPath(dir), loc) && n > best {
			best, rule, level = n, r.written, r.level
		}
	}
	return rule, level, best >= 0
}

// trustRule is one rule of trustedFolders.json: its folder as Gemini CLI
// holds it (normalizedRule), as written, and its level.
type trustRule struct {
	path, written, level string
}

// trustRules are the rules of trustedFolders.json in the order Gemini
// CLI (0.61) holds them, none when it does not exist. Gemini CLI makes
// each key absolute against its working directory cwd and normalizes it
// (normalizedRule) when it loads the file, and keys that become one
// folder are one rule: the level written last, in the place of the
// first. An error when the file cannot be read or parsed, is not an
// object, or holds a level other than TRUST_FOLDER, TRUST_PARENT and
// DO_NOT_TRUST: each makes Gemini CLI stop at its start ("Error in
// …trustedFolders.json") where folder trust is on.
func trustRules(user string, env []string, cwd string) ([]trustRule, error) {
	data, err := os.ReadFile(trustedFoldersPath(user, env))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// Read as Gemini CLI reads it (fs.readFileSync with "utf-8"): bytes
	// that are not UTF-8 decoded as Node.js decodes them, which
	// encoding/json would turn into one U+FFFD a byte.
	members, err := objectMembers(hosts.StripJSONComments(jsjson.DecodeUTF8(data)))
	if err != nil {
		return nil, err
	}
	base := processCwd(cwd)
	var rules []trustRule
	at := map[string]int{}
	for _, m := range members {
		var lv string
		if json.Unmarshal(m.value, &lv) != nil || (lv != "TRUST_FOLDER" && lv != "TRUST_PARENT" && lv != "DO_NOT_TRUST") {
			return nil, fmt.Errorf("invalid trust level %s for path %q", m.value, m.key)
		}
		r := trustRule{path: normalizedRule(m.key, base), written: m.key, level: lv}
		if i, ok := at[r.path]; ok {
			rules[i] = r
			continue
		}
		at[r.path] = len(rules)
		rules = append(rules, r)
	}
	return rules, nil
}

// member is one key of a JSON object, with its value as written.
type member struct {
	key   string
	value json.RawMessage
}

// objectMembers reads data, a JSON object, into its members in the
// order JavaScript's Object.entries gives them after JSON.parse: a key
// written twice once, with its last value, in the place of its first;
// keys that are array indices ("0", "12") first, in ascending order.
func objectMembers(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var members []member
	at := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if i, ok := at[key]; ok {
			members[i].value = v
			continue
		}
		at[key] = len(members)
		members = append(members, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the JSON object")
	}
	slices.SortStableFunc(members, func(a, b member) int {
		ia, aok := arrayIndex(a.key)
		ib, bok := arrayIndex(b.key)
		switch {
		case aok && bok:
			return cmp.Compare(ia, ib)
		case aok:
			return -1
		case bok:
			return 1
		}
		return 0
	})
	return members, nil
}

// arrayIndex reports whether JavaScript reads key as an array index (a
// canonical whole number below 2^32-1), which an object lists first.
func arrayIndex(key string) (uint64, bool) {
	n, err := strconv.ParseUint(key, 10, 32)
	if err != nil || n == 1<<32-1 || strconv.FormatUint(n, 10) != key {
		return 0, false
	}
	return n, true
}

// normalizedRule is a key of trustedFolders.json as Gemini CLI's
// normalizePath makes it: resolved against base, its working directory
// (path.resolve: "." and ".." segments, repeated and trailing slashes
// go), each backslash made a slash, and lower case where the file
// system ignores case.
func normalizedRule(key, base string) string {
	if !filepath.IsAbs(key) {
		key = filepath.Join(base, key)
	}
	key = strings.ReplaceAll(filepath.Clean(key), `\`, "/")
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		key = strings.ToLower(key)
	}
	return key
}

// processCwd is cwd as Gemini CLI's process.cwd() gives it there:
// absolute, its symbolic links resolved (the kernel's own path), decoded
// as Node.js decodes a path that is not UTF-8.
func processCwd(cwd string) string {
	p := string(jsjson.DecodeUTF8([]byte(cwd)))
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return p
}

// undecided reports whether Gemini CLI (0.61) surely leaves cwd's trust
// undecided when a session starts there, but for an IDE: folder trust
// on, no GEMINI_CLI_TRUST_WORKSPACE or GEMINI_RESTRICTED_MODE in env
// that decides it, and a trustedFolders.json (or none) that reads and
// holds no rule covering cwd. Such a folder is not trusted: an
// interactive session asks, and runs no settings hook, setup's lines
// included, until a session starts trusted (the one that asked may send
// its prompt without them before it restarts: internal/agenttest
// TestGeminiUndecidedFolder); a -p
// session stops at once. With ideMode an IDE Gemini CLI connects to may
// decide instead, but in a terminal no IDE is connected to the folder is
// still undecided (internal/agenttest TestGeminiTrustRuleSpellings
// ide-mode-no-ide).
func undecided(user string, env []string, cwd string) bool {
	get := func(k string) string { v, _ := envLookup(env, k); return v }
	if cwd == "" || get("GEMINI_RESTRICTED_MODE") == "true" {
		return false
	}
	if v := get("GEMINI_CLI_TRUST_WORKSPACE"); v == "true" || v == "false" {
		return false
	}
	folderTrust, _, ok := trustSettings(user, env)
	if !ok || !folderTrust.on {
		return false
	}
	if _, err := trustRules(user, env, cwd); err != nil {
		return false
	}
	_, _, covered := folderRule(user, env, cwd)
	return !covered
}

// realPath is p absolute, its symbolic links resolved when it exists, and
// lower case where the file system ignores case, as Gemini CLI compares
// the paths of trustedFolders.json. A path that is not UTF-8 is first
// decoded as Node.js decodes it (process.cwd(), a key of the file): each
// maximal invalid subpart is one U+FFFD, so "ws\xff" and "ws\xfe" are one
// folder to Gemini CLI, and the decoded path, which names no file, is
// not resolved further.
func realPath(p string) string {
	p = string(jsjson.DecodeUTF8([]byte(p)))
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		p = strings.ToLower(p)
	}
	return p
}

// within reports whether child is dir or below it.
func within(dir, child string) bool {
	rel, err := filepath.Rel(dir, child)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// trustedFoldersPath is the file of Gemini CLI's folder trust rules:
// $GEMINI_CLI_TRUSTED_FOLDERS_PATH, else trustedFolders.json in the user's
// .gemini directory.
func trustedFoldersPath(user string, env []string) string {
	p := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GEMINI_CLI_TRUSTED_FOLDERS_PATH="); ok {
			p = v
		}
	}
	if p == "" {
		p = filepath.Join(user, "trustedFolders.json")
	}
	return p
}
