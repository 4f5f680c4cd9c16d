package gemini

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/hosts"
)

// SetupHookTimeout is the timeout of setup's hook lines, in milliseconds:
// a day, as for Claude Code (claude.SetupHookTimeout says why), well under
// the 2^31-1 ms past which Node.js fires a timer at once.
const SetupHookTimeout = 86_400_000

// settingsSyntax is how Gemini CLI 0.61.0 reads a settings file:
// strip-json-comments 3.1.1, then JSON.parse (no trailing comma, no byte
// order mark; agenttest TestSetup's gemini case wires a file with
// comments and CRLF line breaks).
const settingsSyntax = hosts.CommentedJSON

// SetupHooks are the hook lines setup writes: one group with matcher "*"
// per event Gemini CLI fires.
func SetupHooks(re hosts.Reentry) []hosts.SetupHook {
	var hs []hosts.SetupHook
	for _, ev := range Events {
		hs = append(hs, hosts.SetupHook{Event: ev, Matcher: "*", Command: hosts.ShellJoin(re.HooksRun(ev, "gemini")), Timeout: SetupHookTimeout})
	}
	return hs
}

// Setup wires bundlectl into Gemini CLI: the hook lines in the user's
// settings.json, and the active bundles' stdio MCP servers in the
// workspace's .gemini/settings.json (Gemini CLI reads it in trusted
// folders). Both are read as Gemini CLI reads them, comments allowed
// (hosts.CommentedJSON), and keep them.
func (Host) Setup(in hosts.SetupInput) ([]hosts.FileEdit, error) {
	dir, err := userGeminiDir(in.Environ)
	if err != nil {
		return nil, err
	}
	hs := SetupHooks(in.Reentry)
	names, servers := hosts.StdioServers(in.Bundles, in.Reentry, hosts.GeminiMCPTimeoutMs, nil)
	return []hosts.FileEdit{{
		Path:  filepath.Join(dir, "settings.json"),
		What:  fmt.Sprintf("hooks for %d events calling bundlectl hooks run", len(hs)),
		Mode:  0o600,
		Apply: hosts.EditJSONAs(settingsSyntax, func(r *hosts.JSON) { hosts.ApplyJSONHooks(r, "gemini", hs) }),
		Strip: hosts.EditJSONAs(settingsSyntax, func(r *hosts.JSON) { hosts.StripJSONHooks(r, "gemini") }),
	}, {
		Path:  filepath.Join(in.Reentry.Workspace, ".gemini", "settings.json"),
		What:  fmt.Sprintf("%d MCP servers calling bundlectl mcp", len(names)),
		Mode:  0o644,
		Apply: hosts.EditJSONAs(settingsSyntax, func(r *hosts.JSON) { hosts.ApplyJSONServers(r, "mcpServers", names, servers) }),
		Strip: hosts.EditJSONAs(settingsSyntax, func(r *hosts.JSON) { hosts.StripJSONServers(r, "mcpServers") }),
		ShortTimeouts: func(cur []byte) []string {
			return hosts.ShortJSONServerTimeouts(cur, settingsSyntax, "mcpServers", names, servers)
		},
	}}, nil
}

// HookConfig is the user's settings.json, where setup writes its hook lines.
func (Host) HookConfig(environ []string) (string, error) {
	dir, err := userGeminiDir(environ)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "settings.json"), nil
}

// SetupEvents are the events setup wires: every event Gemini CLI fires.
func (Host) SetupEvents() []string { return Events }

// WiredEvents are the events settings.json holds setup's hook lines for.
func (Host) WiredEvents(data []byte) []string {
	return hosts.WiredJSONEvents(data, settingsSyntax, "gemini")
}

// ConfigUnreadable refuses a settings.json Gemini CLI reads and
// WiredEvents cannot: a key written twice (JSON.parse takes the last).
// Values nested past 10000 it does not read either ("Maximum call stack
// size exceeded", checked with Gemini CLI 0.61.0): ConfigSyntax.
func (Host) ConfigUnreadable(data []byte) *hosts.UnreadableError {
	_, err := hosts.ParseJSONAs(data, settingsSyntax)
	return duplicateKey(err)
}

// duplicateKey is JSONBeyond of err when it is a key written twice.
func duplicateKey(err error) *hosts.UnreadableError {
	if why := hosts.JSONBeyond(err, title); why != nil && why.Why == hosts.BeyondDuplicateKey {
		return why
	}
	return nil
}

// title is Gemini CLI as bundlectl's messages name it.
const title = "Gemini CLI"

// ConfigSyntax says where settings.json does not parse as Gemini CLI
// reads it (settingsSyntax, an object), which then refuses to start
// ("Error in <file>", exit 52: checked with Gemini CLI 0.61.0 on a file
// behind a byte order mark); nil for one it reads.
func (Host) ConfigSyntax(data []byte) (*hosts.SyntaxError, string) {
	root, err := hosts.ParseJSONAs(data, settingsSyntax)
	var se *hosts.SyntaxError
	switch {
	case duplicateKey(err) != nil:
		return nil, "" // it reads it (ConfigUnreadable)
	case errors.As(err, &se):
	case err == nil && root.Kind != hosts.JSONObject:
		se = &hosts.SyntaxError{Line: 1, Err: errors.New("not a JSON object")}
	default:
		return nil, ""
	}
	return se, "Gemini CLI refuses to start with it"
}

// SetupTimeout is the timeout setup gives each hook line, in milliseconds.
func (Host) SetupTimeout() (int, string) { return SetupHookTimeout, "ms" }

// WiredTimeout is the shortest timeout of setup's hook lines in
// settings.json; a line without one gets Gemini CLI's default, 60000 ms
// (its DEFAULT_HOOK_TIMEOUT), and one past 2^31-1 ms counts as 0, as
// Node.js fires such a timer at once.
func (Host) WiredTimeout(data []byte) (int, bool) {
	return hosts.WiredJSONTimeout(data, settingsSyntax, "gemini", 60000, hosts.NodeTimerMax)
}

// SetupHooksOff checks the settings a Gemini CLI session started in the
// workspace (in.Reentry.Workspace, not setup's working directory) reads
// for hooks turned off: exec's check (hooksOff: hooksConfig.enabled off
// in the layer that decides it — system settings over the workspace's
// over the user's over the system defaults —, or a hooksConfig.disabled
// entry naming bundlectl, the workspace's settings counted either way
// when Gemini CLI may not trust the folder); or a .env file Gemini CLI
// may load there that sets GEMINI_RESTRICTED_MODE=true or
// GEMINI_CLI_TRUST_WORKSPACE=false, after which it trusts the folder no
// more and runs no settings hook (dotEnvUntrustOff). With no workspace,
// the workspace's settings are left out (SetupCaveats). It does not check
// that bash, which runs every hook, is in the PATH: the PATH Gemini CLI
// later gets is not setup's.
func (Host) SetupHooksOff(in hosts.SetupInput) error {
	user, err := userGeminiDir(in.Environ)
	if err != nil {
		return nil // Setup says why
	}
	err = hooksOffAt(user, in.Reentry.Workspace, in.Environ)
	if err == nil {
		if off := dotEnvUntrustOff(user, in.Environ, in.Reentry.Workspace); off != nil {
			return off
		}
	}
	var off *hosts.HooksOffError
	if ws := in.Reentry.Workspace; errors.As(err, &off) && off.File == filepath.Join(ws, ".gemini", "settings.json") && !trustsFolder(user, in.Environ, realPath(ws)) {
		// Read once Gemini CLI trusts the folder (it asks when it starts
		// there), not before; before, it runs no settings hook at all
		// there, setup's lines included (distrustedByRule), but in a
		// session started with --skip-trust, which reads the
		// workspace's settings as empty: list says so.
		off.When = "started in " + bundle.Quote(ws) + " once Gemini CLI trusts the folder (before, it runs no settings hook there, setup's lines included, unless started with --skip-trust)"
	}
	return err
}

// SetupHooksOffWhen names a trustedFolders.json rule that keeps Gemini
// CLI from trusting the workspace (distrustedByRule): in a folder it does
// not trust it runs no hook of any settings file, setup's lines included,
// in an interactive session (a -p one does not start there), while one
// started with --skip-trust runs them. It names a workspace no rule
// decides yet (undecided) too: there the lines run only once Gemini CLI
// is told to trust it. Setup writes its lines and warns
// (hosts.SetupCaveats); list names the rule, or its absence. Nothing
// when SetupHooksOff finds a setting: that is refused, or named with its
// own When.
func (Host) SetupHooksOffWhen(in hosts.SetupInput) []*hosts.HooksOffError {
	user, err := userGeminiDir(in.Environ)
	ws := in.Reentry.Workspace
	if err != nil || ws == "" || hooksOffAt(user, ws, in.Environ) != nil {
		return nil
	}
	file := trustedFoldersPath(user, in.Environ)
	if undecided(user, in.Environ, ws) {
		off := undecidedOff(file, ws, ideMode(user, in.Environ))
		off.When += folderTrustEither(user, in.Environ)
		return []*hosts.HooksOffError{off}
	}
	rule, ok := distrustedByRule(user, in.Environ, ws)
	if !ok {
		return nil
	}
	where := "started in " + bundle.Quote(ws)
	if ideMode(user, in.Environ) {
		where += " outside an IDE that decides its trust"
	}
	return []*hosts.HooksOffError{{
		Host:    "gemini",
		File:    file,
		Setting: strconv.Quote(rule) + `: "DO_NOT_TRUST"`,
		Fix:     distrustedFix(in.Environ),
		Pattern: hosts.SettingIn(file, hosts.JSONString(rule)),
		When:    where + " without --skip-trust (in a folder it does not trust, Gemini CLI runs no settings hook, setup's lines included)" + folderTrustEither(user, in.Environ),
	}}
}

// distrustedFix says how to trust a folder a DO_NOT_TRUST rule holds:
// Gemini CLI's /permissions command or the rule itself, the rule alone
// where a test switch takes the command away (testSwitch); there is no
// dialog to answer, as the rule decides.
func distrustedFix(env []string) string {
	if sw := testSwitch(env); sw != "" {
		return "trust the folder (TRUST_FOLDER in that rule: with " + sw + " Gemini CLI offers no /permissions command)"
	}
	return "trust the folder (Gemini CLI's /permissions command, or TRUST_FOLDER in that rule)"
}

// undecidedOff says that no rule of file decides whether Gemini CLI
// trusts ws, and so setup's lines do not run there yet: an interactive
// session asks when it starts, and runs no settings hook until a
// session starts trusted (after "Trust folder" the one that asked may
// send the prompt of -i without them and go on untrusted, or restart
// trusted first; the next session runs them: agenttest
// TestGeminiUndecidedFolder); a -p session does not start.
// Its hint starts Gemini CLI there with no prompt, where the question is
// the first thing it does. With ide (ide.enabled on) the warning holds
// outside an IDE that decides the folder's trust, which When says.
func undecidedOff(file, ws string, ide bool) *hosts.HooksOffError {
	where := "started in " + bundle.Quote(ws)
	if ide {
		where += " outside an IDE that decides its trust"
	}
	return &hosts.HooksOffError{
		Host:    "gemini",
		File:    file,
		Setting: "no rule for " + bundle.Quote(ws),
		Fix:     `trust the folder before you give Gemini CLI a prompt there (start gemini in it with no prompt, answer "Trust folder", and end that session)`,
		When:    where + " before Gemini CLI is told to trust the folder (it asks when it starts there, and the session that asked may go on without them)",
		Show:    "cd -- " + bundle.ShellArg(ws) + " && gemini",
	}
}
