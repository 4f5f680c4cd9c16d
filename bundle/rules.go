package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"path"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bundlectl/bundlectl/params"
)

// checkModel applies every semantic rule to the model, whichever manifest
// format filled it. The parsers check only syntax, shape and closed
// variants. Severities follow one principle (docs/validation.md):
//
//   - a component that breaks a rule of its own kind (a spec rule for MCP
//     servers and skills, a bundlectl rule for tools, hooks, commands and
//     agents) is skipped: a Skip finding, and it is dropped from the model;
//   - a bundlectl policy violation (credentials, loader-steering
//     environment, control or bidirectional text, network_hosts mismatch,
//     ambiguous or unknown dev.bundlectl data) rejects the bundle: an Error.
func checkModel(b *Bundle) {
	checkMetadata(b)
	for _, d := range b.droppedURLs {
		flagURLCredential(&b.Report, d.path, d.url, d.advice)
	}
	tools := b.Components.Tools[:0:0]
	for i, t := range b.Components.Tools {
		if t.Source == "" {
			t.Source = indexPath(manifestFile(b)+": tools", i)
		}
		if checkTool(b, &t) {
			tools = append(tools, t)
		}
	}
	b.Components.Tools = tools
	// A host of an endpoint skipped below may stay declared: the skip is
	// reported once, and must not turn into a rejection as well.
	declarable := remoteHosts(b)
	hooks := b.Components.Hooks[:0:0]
	for i, h := range b.Components.Hooks {
		if h.Source == "" {
			h.Source = indexPath(manifestFile(b)+": hooks", i)
		}
		if checkHook(b, h) {
			hooks = append(hooks, h)
		}
	}
	b.Components.Hooks = hooks
	servers := b.Components.MCP[:0:0]
	for _, s := range b.Components.MCP {
		if s.Source == "" {
			s.Source = FieldPath(manifestFile(b)+": mcp_servers", s.Name)
		}
		if checkServer(b, s) {
			servers = append(servers, s)
		}
	}
	b.Components.MCP = servers
	lsps := b.Components.LSP[:0:0]
	for _, l := range b.Components.LSP {
		if checkLSP(b, l) {
			lsps = append(lsps, l)
		}
	}
	b.Components.LSP = lsps
	checkHostComponents(b)
	checkSensitiveArgv(b)
	checkDuplicates(b)
	checkGeminiContextFolds(b)
	checkNetworkHosts(b, declarable)
	checkWhen(b)
	checkInactive(b)
}

func manifestFile(b *Bundle) string {
	switch b.Format {
	case FormatTOML:
		return ManifestTOML
	case FormatClaude:
		return ManifestClaude
	case FormatCodex:
		return ManifestCodex
	case FormatGemini:
		return ManifestGemini
	}
	return ManifestJSON
}

// modelPath names a dev.bundlectl field in the manifest it came from.
func modelPath(b *Bundle, jsonField, tomlField string) string {
	if b.Format == FormatTOML {
		return ManifestTOML + ": " + tomlField
	}
	return extBase + "." + jsonField
}

// ---- text ----

// checkText rejects control and bidirectional characters (docs/validation.md)
// in manifest text. Free-text descriptions may hold newlines and tabs; no
// other field may. The value itself is never echoed.
func checkText(b *Bundle, path, s string, multiline bool) bool {
	if !utf8.ValidString(s) {
		b.Report.Errorf(path, "text.utf8", "text is not valid UTF-8")
		return false
	}
	for _, r := range s {
		if multiline && (r == '\n' || r == '\t') {
			continue
		}
		switch {
		case IsBidi(r):
			b.Report.Errorf(path, "text.bidi", "text contains a bidirectional control character (U+%04X): it can make the review show something other than what runs; %s", r, charHint(b, path, r))
			return false
		case unicode.IsControl(r) || r == 0x2028 || r == 0x2029:
			b.Report.Errorf(path, "text.control", "text contains a control character (U+%04X); %s", r, charHint(b, path, r))
			return false
		}
	}
	return true
}

func checkMetadata(b *Bundle) {
	m := manifestFile(b) + ": "
	one := func(field, s string, multi bool) {
		if s != "" {
			checkText(b, m+field, s, multi)
		}
	}
	one("version", b.Meta.Version, false)
	one("description", b.Meta.Description, true)
	one("homepage", b.Meta.Homepage, false)
	one("repository", b.Meta.Repository, false)
	one("license", b.Meta.License, false)
	if b.Meta.DisplayName != "" {
		checkText(b, modelPath(b, "display_name", "plugin.display_name"), b.Meta.DisplayName, false)
	}
	if a := b.Meta.Author; a != nil {
		one("author.name", a.Name, false)
		one("author.email", a.Email, false)
		one("author.url", a.URL, false)
	}
	for i, k := range b.Meta.Keywords {
		checkText(b, indexPath(m+"keywords", i), k, false)
	}
}

// ---- credentials ----

// tokenShape matches well-known credential formats. Prefixes must start a
// word so that "task-runner" is not "sk-…".
var tokenShape = lazyRegexp(`(?:^|[^A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,}|sk-[A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{10,}|glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{36}|hf_[A-Za-z]{34}|AIza[0-9A-Za-z_-]{35}|[sr]k_(?:live|test)_[0-9A-Za-z]{16,}|hooks\.slack\.com/services/T[0-9A-Z]{6,}/B[0-9A-Z]{6,}/[0-9A-Za-z]{16,}|(?:AKIA|ASIA)[0-9A-Z]{16}(?:[^0-9A-Za-z]|$))|-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----`)

// urlPassword matches the userinfo of a URL that has a password
// ("postgres://app:hunter2@db/…", "https://u:p@host"): group 1 is the
// scheme and user, group 2 the password. The password runs to the last
// "@" of the authority, as a URL parser reads it; the user and the
// password stop at what ends an authority, so "host:8080/path@x" has none.
var urlPassword = lazyRegexp(`([A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:\[\]]*:)([^\s/?#\[\]]+)@`)

// literalURLPassword reports whether the password of a URL match m (from
// urlPassword) is written in the manifest: one that references a host
// variable ("${DB_PASSWORD}", "$PGPASSWORD") comes from the host.
func literalURLPassword(m string) bool {
	sub := urlPassword().FindStringSubmatch(m)
	return sub != nil && !isReference(sub[2])
}

// looksLikeToken reports whether s contains a known credential shape or a
// URL with a literal password.
func looksLikeToken(s string) bool {
	if tokenShape().MatchString(s) {
		return true
	}
	if !strings.Contains(s, "://") {
		return false
	}
	for _, m := range urlPassword().FindAllString(s, -1) {
		if literalURLPassword(m) {
			return true
		}
	}
	return false
}

// tokenBody matches the same shapes as tokenShape without the word
// boundary (redacting a little too much is harmless) and, for a PEM block,
// the key material after its header.
var tokenBody = lazyRegexp(`gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,}|sk-[A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{10,}|glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{36}|hf_[A-Za-z]{34}|AIza[0-9A-Za-z_-]{35}|[sr]k_(?:live|test)_[0-9A-Za-z]{16,}|hooks\.slack\.com/services/T[0-9A-Z]{6,}/B[0-9A-Z]{6,}/[0-9A-Za-z]{16,}|(?:AKIA|ASIA)[0-9A-Z]{16}|-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[A-Za-z0-9+/=\s\\]*`)

// RedactTokens replaces every credential shape in s by "[redacted]": for
// output that carries a bundle's own text, such as show --json of a bundle
// refused for a literal credential.
func RedactTokens(s string) string { return redactTokens(s) }

// redactTokens replaces every credential shape, and the password of a
// URL, in s by "[redacted]".
func redactTokens(s string) string {
	if strings.Contains(s, "://") {
		s = urlPassword().ReplaceAllStringFunc(s, func(m string) string {
			if !literalURLPassword(m) {
				return m
			}
			return urlPassword().ReplaceAllString(m, "${1}[redacted]@")
		})
	}
	if !tokenBody().MatchString(s) {
		return s
	}
	return tokenBody().ReplaceAllLiteralString(s, "[redacted]")
}

// credentialFlag reports whether an argv entry is a flag that carries a
// credential: --token=…, --api-key …, --password, --auth-token, and so on.
// The value after "=" or in the next argument is never needed: the flag
// alone says a credential was written into the manifest.
func credentialFlag(arg string) bool {
	if !strings.HasPrefix(arg, "-") {
		return false
	}
	name := strings.TrimLeft(arg, "-")
	if i := strings.IndexByte(name, '='); i >= 0 {
		name = name[:i]
	}
	name = strings.ToLower(strings.ReplaceAll(name, "_", "-"))
	switch name {
	case "token", "api-key", "apikey", "password", "passwd", "secret", "bearer",
		"private-key", "access-key", "secret-key", "client-secret", "auth", "authorization":
		return true
	}
	for _, p := range []string{"auth-", "authtoken", "authkey", "authorization"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	for _, s := range []string{"-token", "-secret", "-password", "-passwd", "-api-key", "-apikey", "-access-key", "-secret-key", "-private-key"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// checkArgs applies the text and credential rules to every argv entry. A
// credential flag is fine when its value is a host variable reference
// ("--token=${GITHUB_TOKEN}", or "--token" followed by "${GITHUB_TOKEN}"):
// the credential then comes from the host, reviewed by name.
func checkArgs(b *Bundle, path string, args []string) {
	for i, a := range args {
		p := indexPath(path, i)
		checkText(b, p, a, false)
		switch {
		case looksLikeToken(a):
			b.Report.Errorf(p, "secret.token", "looks like a credential; credentials never belong in a manifest")
		case credentialFlag(a):
			value, inline := "", false
			if j := strings.IndexByte(a, '='); j >= 0 {
				value, inline = a[j+1:], true
			} else if i+1 < len(args) {
				value = args[i+1]
			}
			if !isReference(value) && (inline || value != "" && !strings.HasPrefix(value, "-")) {
				b.Report.Errorf(p, "secret.argv", "a credential flag with a literal value; credentials never belong in a manifest (reference a host variable, e.g. ${API_TOKEN})")
			}
		}
	}
}

// isReference reports whether s is, or embeds, a host variable or
// user-option reference rather than a literal value.
func isReference(s string) bool {
	return strings.Contains(s, "${") || dollarRef().MatchString(s)
}

var dollarRef = lazyRegexp(`\$[A-Za-z_]`)

// placeholderValue reports a literal that is visibly a stand-in the user
// is meant to replace ("Bearer YOUR_API_KEY", "<token>", "xxx"), not a
// credential: it is reported, but as a warning.
func placeholderValue(v string) bool {
	w := strings.TrimSpace(v)
	for _, p := range []string{"Bearer ", "bearer ", "Token ", "token ", "Basic "} {
		w = strings.TrimPrefix(w, p)
	}
	switch {
	case w == "":
		return true
	case strings.HasPrefix(w, "<") && strings.HasSuffix(w, ">"):
		return true
	case strings.Trim(w, "xX.*-_") == "":
		return true
	}
	u := strings.ToUpper(w)
	for _, p := range []string{"YOUR_", "YOUR-", "REPLACE", "CHANGEME", "CHANGE_ME", "INSERT_", "PLACEHOLDER", "TODO"} {
		if strings.Contains(u, p) {
			return true
		}
	}
	return false
}

// credentialName reports whether an environment variable or header name
// says it holds a credential.
func credentialName(name string) bool {
	n := strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
	for _, suffix := range []string{"_FILE", "_PATH", "_DIR"} {
		if strings.HasSuffix(n, suffix) {
			return false // names a place, not a secret
		}
	}
	for _, w := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "PRIVATE_KEY", "ACCESS_KEY", "CREDENTIAL"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// ---- environment ----

var envNameRE = lazyRegexp(`^[A-Za-z_][A-Za-z0-9_]*$`)

func validEnvName(s string) bool { return envNameRE().MatchString(s) }

var loaderEnv = map[string]bool{
	"NODE_OPTIONS": true, "PYTHONPATH": true, "PYTHONHOME": true, "PYTHONSTARTUP": true,
	"PERL5OPT": true, "PERL5LIB": true, "RUBYOPT": true, "BASH_ENV": true, "ENV": true, "PATH": true,
}

// steersLoader reports environment names that change how a loader or
// interpreter behaves (docs/harness.md), compared case-insensitively.
func steersLoader(name string) bool {
	n := strings.ToUpper(name)
	return loaderEnv[n] || strings.HasPrefix(n, "LD_") || strings.HasPrefix(n, "DYLD_") ||
		strings.HasPrefix(n, "GIT_") || strings.HasSuffix(n, "_PROXY") ||
		strings.HasPrefix(n, "BUNDLECTL_") // would redirect a nested bundlectl; the runtime drops it too
}

func reservedEnv(name string) bool {
	n := strings.ToUpper(name)
	return n == "PLUGIN_ROOT" || n == "PLUGIN_DATA"
}

// checkEnvDest applies the destination rules to an env or env_from name.
func checkEnvDest(b *Bundle, path, name string) {
	switch {
	case !validEnvName(name):
		b.Report.Errorf(path, "env.name", "%s is not a valid environment variable name", Quote(name))
	case reservedEnv(name):
		b.Report.Errorf(path, "env.reserved", "%s is set by bundlectl itself and cannot be configured", name)
	case steersLoader(name):
		b.Report.Errorf(path, "env.loader", "%s steers a loader or interpreter and cannot be set by a bundle", name)
	}
}

// checkEnvSource checks the name of a host variable that env_from,
// bearer_token_env_var or env_headers reads. A credential pasted here by
// mistake is reported without being echoed, like any other.
func checkEnvSource(b *Bundle, path, name string) {
	switch {
	case looksLikeToken(name):
		b.Report.Errorf(path, "secret.token", "looks like a credential where the name of a host environment variable belongs")
	case !validEnvName(name):
		b.Report.Errorf(path, "env.name", "the source is not a valid environment variable name")
	}
}

// ---- commands and paths ----

// commandProblem checks the single-token rule: a bare executable name, or
// a clean path inside the bundle ("./bin/my tool", or a host's
// "${CLAUDE_PLUGIN_ROOT}/bin/tool"), which may contain spaces because it
// is one token, never split. Host formats may also name an absolute
// program outside the bundle (hostAbs).
func commandProblem(cmd string, hostAbs bool) string {
	rel, inBundle := CommandInBundle(cmd)
	if inBundle && !hostAbs && !strings.HasPrefix(cmd, "./") {
		// bundlectl's own formats never expand a command (Agent Plugins
		// §7.2.1): a placeholder there is just text.
		return "must be a bare executable name or a \"./\" path inside the bundle (placeholders are not expanded in a command)"
	}
	switch {
	case cmd == "":
		return "is empty"
	case inBundle:
		_, msg := pluginRelative("./" + rel)
		return msg
	case strings.HasPrefix(cmd, "/") && hostAbs:
		if strings.Contains("/"+cmd+"/", "/../") || strings.Contains(cmd, "${") {
			return "must be a clean absolute path"
		}
		return ""
	case strings.IndexFunc(cmd, unicode.IsSpace) >= 0:
		return "must be a single executable token, not a shell command"
	case strings.ContainsAny(cmd, `/\`) || strings.Contains(cmd, "${"):
		return "must be a bare executable name or a path inside the bundle (\"./…\" or \"${CLAUDE_PLUGIN_ROOT}/…\")"
	case cmd == "." || cmd == "..":
		return "must be a bare executable name or a \"./\" path inside the bundle"
	}
	return ""
}

// rootPlaceholders are the forms a host writes "the plugin root" in.
var rootPlaceholders = []string{"${CLAUDE_PLUGIN_ROOT}/", "${PLUGIN_ROOT}/", "${extensionPath}/", "${extensionPath}${/}"}

// CommandInBundle reports whether a command names a file of the bundle
// and returns its path relative to the root: "./x" and a plugin-root
// placeholder followed by a path.
func CommandInBundle(cmd string) (string, bool) {
	if strings.HasPrefix(cmd, "./") {
		return cmd[2:], true
	}
	for _, p := range rootPlaceholders {
		if strings.HasPrefix(cmd, p) {
			return strings.ReplaceAll(cmd[len(p):], "${/}", "/"), true
		}
	}
	return "", false
}

// pluginRelative checks a plugin-relative path (§4.1): "./" followed by a
// clean relative path with no empty, "." or ".." element, so that it names
// exactly one walked entry and can never leave the root. It returns the
// path relative to the root.
func pluginRelative(p string) (string, string) {
	if !strings.HasPrefix(p, "./") {
		return "", "must start with \"./\""
	}
	rest := p[2:]
	if rest == "" {
		return "", "must name a file below the bundle root"
	}
	for _, el := range strings.Split(rest, "/") {
		if el == "" || el == "." || el == ".." {
			return "", "must be a clean path inside the bundle (no empty, \".\" or \"..\" elements)"
		}
	}
	return rest, ""
}

// checkCommand applies the token rule and, for a command inside the
// bundle, requires a regular file in the walked tree. It returns false
// when the component must be skipped.
func checkCommand(b *Bundle, path, cmd string, hostAbs bool) bool {
	if !checkText(b, path, cmd, false) {
		return false
	}
	if looksLikeToken(cmd) {
		b.Report.Errorf(path, "secret.token", "looks like a credential; credentials never belong in a manifest")
		return false
	}
	if msg := commandProblem(cmd, hostAbs); msg != "" {
		b.Report.Skipf(path, "command.token", "command %s", msg)
		return false
	}
	rel, inBundle := CommandInBundle(cmd)
	if !inBundle {
		if strings.HasPrefix(cmd, "/") {
			b.Report.Warnf(path, "command.outside", "command %s is a program outside the bundle: it is not covered by the content hash", Quote(cmd))
		}
		return true
	}
	e, ok := b.Tree.Resolve(rel) // a link to an executable runs it
	switch {
	case !ok:
		b.Report.Skipf(path, "command.missing", "command %s is not a file of the bundle", Quote(cmd))
		return false
	case e.Kind == KindDir:
		b.Report.Skipf(path, "command.missing", "command %s is a directory", Quote(cmd))
		return false
	case e.Kind != KindExec:
		b.Report.Warnf(path, "command.not-executable", "command %s is not executable", Quote(cmd))
	}
	return true
}

// checkCwdCode flags argv that loads code from the working directory,
// which is the workspace for hooks and tools: the code that runs is then
// not the bundle's but whatever the workspace holds there.
func checkCwdCode(b *Bundle, path, cmd string, args []string) {
	if what := cwdCode(cmd, args); what != "" {
		b.Report.Warnf(path, "argv.cwd-code", "%s: the code it runs comes from the working directory, not from the bundle", what)
	}
}

// interpreters that run code given inline or a script named relatively.
var interpreters = map[string]string{
	"python": "-c", "python3": "-c", "node": "-e", "deno": "eval", "bun": "-e", "ruby": "-e",
	"perl": "-e", "sh": "-c", "bash": "-c", "zsh": "-c",
}

// cwdCode names how argv loads code from the working directory, or "".
func cwdCode(cmd string, args []string) string {
	if strings.HasPrefix(cmd, "../") {
		return "the command is a relative path" // "./" resolves in the snapshot
	}
	if cmd == "env" || cmd == "/usr/bin/env" {
		// env [-i] [NAME=VALUE]... COMMAND ARGS: judge COMMAND.
		for i, a := range args {
			if strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
				continue
			}
			return cwdCode(a, args[i+1:])
		}
		return ""
	}
	flag, ok := interpreters[cmd]
	if !ok {
		return ""
	}
	for i, a := range args {
		switch {
		case a == flag || a == "-e" || a == "-c":
			if cmd == "sh" || cmd == "bash" || cmd == "zsh" {
				// The shell string is reviewed verbatim; what it loads
				// from the working directory is judged as a hook's is.
				if i+1 < len(args) {
					return shellCwdCode(args[i+1])
				}
				return ""
			}
			return Quote(cmd+" "+a) + " runs inline code that may import from the working directory"
		case strings.HasPrefix(a, "-"):
		default:
			if strings.HasPrefix(a, "/") || strings.Contains(a, "${") {
				return ""
			}
			// Only an operand that looks like a file is named: another
			// may be a flag's value (a secret) or a subcommand.
			if looksLikeScript(a) {
				return "the script " + Quote(a) + " is named relative to the working directory"
			}
			return ""
		}
	}
	return ""
}

// looksLikeScript reports whether an interpreter's first operand names a
// file: a path, or a name with a script extension.
func looksLikeScript(a string) bool {
	if strings.Contains(a, "/") {
		return !strings.Contains(a, "=")
	}
	for _, ext := range []string{".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".sh", ".php", ".lua"} {
		if strings.HasSuffix(a, ext) {
			return true
		}
	}
	return false
}

// shellCwdCode is cwdCode for a shell string: a word that starts with
// "./" or "../", that names the working directory or the project
// ($PWD, $CLAUDE_PROJECT_DIR), or an interpreter (or env) whose operands
// cwdCode flags, in any of its simple commands.
func shellCwdCode(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		w = strings.Trim(w, "\"';&|()")
		if strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../") {
			return "the shell command runs " + Quote(w) + ", relative to the working directory"
		}
		for _, v := range []string{"$PWD", "${PWD}", "$CLAUDE_PROJECT_DIR", "${CLAUDE_PROJECT_DIR}"} {
			if strings.Contains(w, v) {
				return "the shell command names " + Quote(w) + ", in the working directory"
			}
		}
		if _, ok := interpreters[w]; ok || w == "env" {
			var rest []string
			for _, r := range words[i+1:] {
				if strings.ContainsAny(r, ";&|") {
					break // the end of this simple command
				}
				rest = append(rest, strings.Trim(r, "\"'()"))
			}
			if what := cwdCode(w, rest); what != "" {
				return "the shell command " + what
			}
		}
	}
	return ""
}

// ---- tools ----

func checkTool(b *Bundle, t *Tool) bool {
	keep := true
	if msg := componentNameProblem(t.Name); msg != "" {
		if t.Name == "" {
			b.Report.Skipf(t.Source+".name", "tool.name", "tool has no name")
		} else {
			checkText(b, t.Source+".name", t.Name, false)
			b.Report.Skipf(t.Source+".name", "tool.name", "tool name %s %s", Quote(t.Name), msg)
		}
		keep = false
	}
	checkText(b, t.Source+".description", t.Description, true)
	if !checkCommand(b, t.Source+".command", t.Command, false) {
		keep = false
	}
	checkArgs(b, t.Source+".args", t.Args)
	checkCwdCode(b, t.Source, t.Command, t.Args)
	if t.TimeoutSec < 0 || t.TimeoutSec > MaxTimeoutSec {
		b.Report.Skipf(t.Source+".timeout_sec", "tool.timeout", "timeout must be between 1 and %d seconds", MaxTimeoutSec)
		keep = false
	}
	if len(t.Params) > 0 {
		canon, err := compileParams(t.Params)
		if err != nil {
			b.Report.Skipf(t.Source+".params", "tool.params", "params is not a usable JSON Schema: %s", schemaErrorText(err))
			keep = false
		} else {
			t.Params = canon
		}
	}
	return keep
}

// compileParams checks a tool's params as a JSON Schema (draft 2020-12,
// or draft-07 when it says so) and returns its compact canonical JSON. It
// compiles nothing: patterns are parsed, and the harness compiles the
// schema of a tool only when the tool is called (package params).
func compileParams(raw json.RawMessage) (json.RawMessage, error) {
	return params.Check(raw)
}

func schemaErrorText(err error) string { return Sanitize(err.Error()) }

// ---- hooks ----

// matcherErr says why a hook matcher is not a regular expression
// bundlectl can apply, or "". It parses without compiling: parsing
// accepts exactly what regexp.Compile accepts, and costs about a
// hundredth of it — a manifest of 20,000 hooks with matchers such as
// "x{1,1000}x{1,1000}" took minutes to validate when each was compiled,
// and validation runs on every discovery of untrusted bundles. The
// harness compiles the matchers of active bundles.
func matcherErr(m string) string {
	_, err := syntax.Parse("^(?:"+m+")$", syntax.Perl)
	if err == nil {
		return ""
	}
	msg := "matcher is not a regular expression bundlectl can apply"
	var se *syntax.Error
	if errors.As(err, &se) {
		msg += " (" + Sanitize(se.Code.String()) + ")"
	}
	// The hosts' own regular expressions (JavaScript's, Rust's) accept
	// forms RE2 does not; a hook bundlectl cannot match must not run
	// as if it matched nothing.
	return msg + "; bundlectl reads matchers as RE2, without look-around or backreferences"
}

// matcherIgnored reports whether every host that reads h and fires its
// event runs it whatever its matcher says (IgnoresMatcher): Claude Code
// and Codex ran a UserPromptSubmit hook whose matcher was "[", and Claude
// Code a MessageDisplay hook (internal/agenttest
// TestClaudeHookMatcherEvents, TestClaudeMessageDisplayMatcher), so such
// a matcher is no reason to skip the hook. A host that never fires the
// event (Codex reads a Claude Code plugin too) never runs the hook, so
// how it would read the matcher does not count.
func matcherIgnored(h Hook) bool {
	if len(h.Hosts) == 0 {
		return IgnoresMatcher("", h.Event)
	}
	ignored := false
	for _, host := range h.Hosts {
		if !KnownHookEvent(host, h.Event) {
			continue
		}
		if !IgnoresMatcher(host, h.Event) {
			return false
		}
		ignored = true
	}
	return ignored
}

func checkHook(b *Bundle, h Hook) bool {
	keep := true
	checkText(b, h.Source, h.Event, false)
	// Whatever the hook's type and whatever else is wrong with its url:
	// a skipped or refused hook stays in the bundle's files, and a
	// skipped one in a trusted bundle (a non-blocking event's
	// "https://u:pw@h/") kept the secret with no finding.
	flagURLCredential(&b.Report, h.Source+".url", h.URL, HookURLCredentialAdvice)
	if checkText(b, h.Source+".matcher", h.Matcher, false) && h.Matcher != "" && h.Matcher != "*" && !matcherIgnored(h) {
		if msg := matcherErr(h.Matcher); msg != "" {
			b.Report.Skipf(h.Source+".matcher", "hook.matcher", "%s", msg)
			keep = false
		}
	}
	switch h.Type {
	case HookCommand:
		if h.Shell {
			// The string is what the host's shell runs, exactly as written;
			// the review shows it verbatim.
			if !checkText(b, h.Source+".command", h.Command, true) {
				return false
			}
			if looksLikeToken(h.Command) {
				b.Report.Errorf(h.Source+".command", "secret.token", "looks like a credential; credentials never belong in a manifest")
				return false
			}
			if what := shellCwdCode(h.Command); what != "" {
				b.Report.Warnf(h.Source+".command", "argv.cwd-code", "%s: the code it runs comes from the working directory, not from the bundle", what)
			}
		} else {
			if !checkCommand(b, h.Source+".command", h.Command, len(h.Hosts) > 0) {
				keep = false
			}
			checkArgs(b, h.Source+".args", h.Args)
			checkCwdCode(b, h.Source, h.Command, h.Args)
		}
		checkEnvMap(b, h.Source+".env", h.Env)
	case HookHTTP:
		if checkText(b, h.Source+".url", h.URL, false) {
			if slices.Contains(h.Hosts, HostClaude) && ClaudeHTTPCannotPost(h.URL) {
				// Claude Code (2.1.332) loads the hook and fails it on
				// every call, and so does bundlectl (its client posts
				// only http and https): shown, not refused, as the hook
				// guards nothing, or blocks everything it matches
				// (internal/agenttest TestClaudeHTTPHookAnswers).
				b.Report.Warnf(h.Source+".url", "hook.url", "%s", claudeCannotPostMsg(h))
			} else if a, why := ClaudeHTTPURLRefused(h.URL); why != "" && slices.Contains(h.Hosts, HostClaude) {
				// Claude Code (2.1.332) refuses a link-local or cloud
				// metadata literal before connecting ("HTTP hook
				// blocked"), a failure on every call, and so does
				// bundlectl (internal/agenttest
				// TestClaudeHTTPHookPrivateAddress): shown, not refused,
				// as for a url it cannot post to.
				b.Report.Warnf(h.Source+".url", "hook.url", "%s", claudeRefusedAddrMsg(h, a, why))
			} else if _, msg := hookURLHost(h.URL); msg == msgPlainHTTP && BlockingEvent(h.Event) {
				// Claude Code (2.1.332) has no https rule for http hooks:
				// it POSTs this guard's event and honours its deny.
				// Skipping it would let the event through unguarded.
				b.Report.Errorf(h.Source+".url", "hook.url", "url %s; this hook guards %s, and Claude Code sends such a hook the event and honours its deny, so skipping it would let %s through unguarded: bundlectl refuses the bundle; use an https url", msg, h.Event, h.Event)
				keep = false
			} else if msg != "" && BlockingEvent(h.Event) {
				// Claude Code reads the url as JavaScript's URL does (a
				// fragment, user information, a leading space, "http:host"
				// and "http:\\host" all parse), POSTs it the event and
				// honours its deny: skipping this guard would let the
				// event through unguarded, whatever else is wrong with it.
				b.Report.Errorf(h.Source+".url", "hook.url", "url %s; this hook guards %s, and skipping it would let %s through unguarded: bundlectl refuses the bundle; write the url as an absolute https url with no user information or fragment", msg, h.Event, h.Event)
				keep = false
			} else if msg != "" {
				b.Report.Skipf(h.Source+".url", "hook.url", "url %s", msg)
				keep = false
			}
		}
		for _, name := range sortedKeys(h.Headers) {
			p := FieldPath(h.Source+".headers", name)
			v := h.Headers[name]
			if !checkText(b, p, name, false) || !checkText(b, p, v, false) {
				keep = false
				continue
			}
			if !validHeaderName(name) {
				b.Report.Skipf(p, "hook.header", "%s is not a valid HTTP header name", Quote(name))
				keep = false
			}
			checkHeaderSecret(b, p, name, v)
		}
		for i, n := range h.AllowedEnvVars {
			checkEnvSource(b, indexPath(h.Source+".allowedEnvVars", i), n)
		}
	case HookPrompt, HookAgent:
		checkText(b, h.Source+".prompt", h.Prompt, true)
		if looksLikeToken(h.Prompt) {
			b.Report.Errorf(h.Source+".prompt", "secret.token", "looks like a credential; credentials never belong in a manifest")
		}
	}
	if h.TimeoutSec < 0 || h.TimeoutSec > MaxTimeoutSec {
		b.Report.Skipf(h.Source+".timeout", "hook.timeout", "timeout must be between 1 and %d seconds", MaxTimeoutSec)
		keep = false
	}
	return keep
}

// ---- MCP servers ----

// serverOption is the path of one of a server's options (named as
// dev.bundlectl names them) where the bundle sets it: for a server of a
// host format, the field of the server's own definition as that host
// spells it; else the server's entry in the dev.bundlectl extension.
func serverOption(b *Bundle, s MCPServer, field string) string {
	if len(s.Hosts) == 0 {
		return FieldPath(modelPath(b, "mcp", "mcp_servers"), s.Name) + "." + field
	}
	include, exclude := "includeTools", "excludeTools"
	if s.Hosts[0] == HostCodex {
		include, exclude = "enabled_tools", "disabled_tools"
	}
	host := map[string]string{
		"env_headers": "env_http_headers", "env_from": "env_vars", "timeout_sec": "timeout",
		"tools.include": include, "tools.exclude": exclude,
	}
	if f, ok := host[field]; ok {
		field = f
	}
	return s.Source + "." + field
}

func checkServer(b *Bundle, s MCPServer) bool {
	src := s.Source
	opt := func(field string) string { return serverOption(b, s, field) }
	keep := true
	skip := func(path, rule, format string, args ...any) {
		b.Report.Skipf(path, rule, format, args...)
		keep = false
	}
	checkText(b, src, s.Name, false)
	// Whatever the server's transport and whatever else is wrong with
	// it: a skipped server stays in the bundle's files, and
	// "https://u:pw@h/mcp" (or a stdio server's stray url) was trusted
	// with no finding.
	flagURLCredential(&b.Report, src+".url", s.URL, MCPURLCredentialAdvice)
	switch s.Transport {
	case TransportStdio:
		if s.URL != "" || len(s.Headers) > 0 {
			skip(src, "mcp.server-field", "a stdio server cannot have url or headers")
		}
		if s.BearerTokenEnvVar != "" {
			b.Report.Errorf(opt("bearer_token_env_var"), "mcp.option-transport", "bearer_token_env_var applies only to remote servers")
		}
		if len(s.EnvHeaders) > 0 {
			b.Report.Errorf(opt("env_headers"), "mcp.option-transport", "env_headers applies only to remote servers")
		}
		if !checkCommand(b, src+".command", s.Command, len(s.Hosts) > 0) {
			keep = false
		}
		checkArgs(b, src+".args", s.Args)
		if s.Cwd == "" || cwdProblem(s.Cwd) != "" {
			// A relative script resolves against a cwd in the bundle or
			// its data directory when one is set, not the workspace.
			checkCwdCode(b, src, s.Command, s.Args)
		}
		for _, k := range sortedKeys(s.Env) {
			p := FieldPath(src+".env", k)
			if (k == "PLUGIN_ROOT" || k == "PLUGIN_DATA") && len(s.Hosts) == 0 {
				skip(p, "mcp.env-reserved", "env must not set %s; the client sets it", k)
			} else if len(s.Hosts) == 0 || steersLoader(k) || !validEnvName(k) {
				// Host formats may set any ordinary variable; bundlectl's
				// own reserve its placeholders' names.
				checkEnvDest(b, p, k)
			}
			v := s.Env[k]
			checkText(b, p, v, false)
			switch {
			case looksLikeToken(v):
				b.Report.Errorf(p, "secret.token", "looks like a credential; copy it from the host with env_from instead")
			case credentialName(k) && v != "" && !isReference(v) && placeholderValue(v):
				b.Report.Warnf(p, "secret.placeholder", "%s holds a placeholder; give it a host variable (%s) or the server gets this text", k, hostVariableAdvice(s.Hosts, k))
			case credentialName(k) && v != "" && !isReference(v):
				b.Report.Errorf(p, "secret.env", "a literal value for a credential variable; reference a host variable (%s) or copy it with env_from instead", hostVariableAdvice(s.Hosts, k))
			}
		}
		if s.Cwd != "" && checkText(b, src+".cwd", s.Cwd, false) {
			if msg := cwdProblem(s.Cwd); msg != "" {
				skip(src+".cwd", "mcp.cwd", "cwd %s", msg)
			} else if rel, inRoot := cwdInRoot(s.Cwd); inRoot && rel != "" {
				if l, through := b.Tree.RefusedLink(rel); through {
					skip(src+".cwd", "mcp.cwd", "cwd %s goes through the link %s, which is not part of the bundle", Quote(s.Cwd), Quote(l))
				} else if e, ok := b.Tree.Lookup(rel); ok && e.Kind != KindDir {
					skip(src+".cwd", "mcp.cwd", "cwd %s is not a directory", Quote(s.Cwd))
				}
			}
		}
		for _, dest := range sortedKeys(s.EnvFrom) {
			p := FieldPath(opt("env_from"), dest)
			checkEnvDest(b, p, dest)
			checkEnvSource(b, p, s.EnvFrom[dest])
			if _, dup := s.Env[dest]; dup {
				b.Report.Errorf(p, "env.conflict", "%s is set both in env and in env_from", Quote(dest))
			}
		}
	case TransportStreamableHTTP, TransportSSE, TransportWebSocket:
		if s.Command != "" || len(s.Args) > 0 || s.Cwd != "" {
			skip(src, "mcp.server-field", "a remote server cannot have command, args, env or cwd")
		} else if len(s.Env) > 0 {
			// Hosts connect to a remote server and start nothing, so its
			// env reaches no process: Gemini CLI loads such a server.
			// Review it; a credential written there is still refused.
			b.Report.Warnf(src+".env", "mcp.server-field", "a remote server starts no process, so its env is not used")
			for _, k := range sortedKeys(s.Env) {
				p := FieldPath(src+".env", k)
				if checkText(b, p, s.Env[k], false) && looksLikeToken(s.Env[k]) {
					b.Report.Errorf(p, "secret.token", "looks like a credential; remove it: a remote server's env is not used")
				}
			}
		}
		if len(s.EnvFrom) > 0 {
			b.Report.Errorf(opt("env_from"), "mcp.option-transport", "env_from applies only to stdio servers")
		}
		if checkText(b, src+".url", s.URL, false) {
			if _, msg := endpointHost(s.URL); msg != "" {
				skip(src+".url", "mcp.url", "url %s", msg)
			} else {
				warnClaudeMCPURLUnparsed(b, src, s)
			}
		}
		if !checkHeaders(b, s) {
			keep = false
		}
	default:
		skip(src, "mcp.server-type", "unknown transport %s", Quote(s.Transport))
	}
	if s.TimeoutSec < 0 || s.TimeoutSec > MaxTimeoutSec {
		skip(opt("timeout_sec"), "mcp.timeout", "timeout must be between 1 and %d seconds", MaxTimeoutSec)
	}
	for i, t := range s.ToolsInclude {
		if t == "" {
			skip(indexPath(opt("tools.include"), i), "mcp.tools-filter", "a tool filter entry is empty")
		}
		checkText(b, indexPath(opt("tools.include"), i), t, false)
	}
	for i, t := range s.ToolsExclude {
		if t == "" {
			skip(indexPath(opt("tools.exclude"), i), "mcp.tools-filter", "a tool filter entry is empty")
		}
		checkText(b, indexPath(opt("tools.exclude"), i), t, false)
	}
	return keep
}

// cwdProblem applies the three cwd forms of §7.2.1 and containment after
// expansion. A placeholder anywhere but at the start is refused: after a
// one-pass expansion it would splice an absolute path into the middle,
// whose containment cannot be decided before the real paths are known.
func cwdProblem(cwd string) string {
	const pr, pd = "${PLUGIN_ROOT}", "${PLUGIN_DATA}"
	for _, alias := range [][2]string{{"${CLAUDE_PLUGIN_ROOT}", pr}, {"${CLAUDE_PLUGIN_DATA}", pd}, {"${extensionPath}", pr}} {
		if strings.HasPrefix(cwd, alias[0]) {
			cwd = alias[1] + cwd[len(alias[0]):]
		}
	}
	var rest string
	switch {
	case strings.HasPrefix(cwd, "./"):
		rest = cwd[2:]
	case cwd == pr || cwd == pd:
	case strings.HasPrefix(cwd, pr+"/"):
		rest = cwd[len(pr)+1:]
	case strings.HasPrefix(cwd, pd+"/"):
		rest = cwd[len(pd)+1:]
	default:
		return "must be \"./…\", \"${PLUGIN_ROOT}\", \"${PLUGIN_ROOT}/…\", \"${PLUGIN_DATA}\" or \"${PLUGIN_DATA}/…\""
	}
	if strings.Contains(rest, pr) || strings.Contains(rest, pd) {
		return "may use a placeholder only at its start"
	}
	depth := 0
	for _, el := range strings.Split(rest, "/") {
		switch el {
		case "", ".":
		case "..":
			depth--
			if depth < 0 {
				return "resolves outside its root"
			}
		default:
			depth++
		}
	}
	return ""
}

// cwdInRoot returns the directory below the plugin root that a cwd
// accepted by cwdProblem names ("" for the root itself), and false for a
// cwd below the data directory.
func cwdInRoot(cwd string) (string, bool) {
	const pr = "${PLUGIN_ROOT}"
	for _, alias := range []string{"${CLAUDE_PLUGIN_ROOT}", "${extensionPath}"} {
		if strings.HasPrefix(cwd, alias) {
			cwd = pr + cwd[len(alias):]
		}
	}
	var rest string
	switch {
	case strings.HasPrefix(cwd, "./"):
		rest = cwd[2:]
	case cwd == pr:
	case strings.HasPrefix(cwd, pr+"/"):
		rest = cwd[len(pr)+1:]
	default:
		return "", false
	}
	return path.Clean("/" + rest)[1:], true
}

// endpointHost checks a remote url (§7.2.1) and returns its normalized
// host: lowercase, without port or brackets, IP literals in canonical form.
func endpointHost(raw string) (string, string) {
	if raw == "" {
		return "", "is empty"
	}
	// A "${" the host's escapes spell ("%24%7B") is no variable: Claude
	// Code expands none in a url, and Go refuses the decoded host.
	hasVar := strings.Contains(raw, "${")
	raw = JSURLDecodedHost(raw)
	if hasVar {
		// The endpoint is chosen by the host's environment: its host is
		// unknown until then, and the review says which variable picks it.
		if u, err := url.Parse(raw); err == nil && !strings.Contains(u.Host, "${") && u.Host != "" {
			raw = strings.SplitN(raw, "${", 2)[0]
			if !strings.Contains(raw[len(u.Scheme)+3:], "/") {
				raw += "/"
			}
		} else if lit, ok := literalHostURL(raw); ok {
			// Only the user information or the port holds one: the
			// host is the one written ("https://${U}@h.example/").
			raw = lit
		} else {
			return "", ""
		}
	}
	return endpointURLHost(raw)
}

// hookURLHost is endpointHost for an http hook's url, which Claude Code
// (2.1.332) posts as written, expanding no "${…}" in it. A "${" outside
// the host JavaScript's URL reads is text: in the user information
// ("https://${X}@10.0.0.5/", which Claude Code posts to 10.0.0.5), or in
// a path Go's parser reads no host before ("https:/0\\${X}", posted to
// 0.0.0.0), the url is judged as written, where endpointHost, reading a
// variable that may pick the host (as in an MCP server's url, which
// Claude Code expands), named no host and found nothing wrong. Only a
// "${" in that host leaves it unknown: no server is asked (claudeURLRef).
//
// Only the scheme and authority are read with Go's parser: the path and
// query, which JavaScript's URL takes whatever they hold, are not, as
// Go's refuses "%zz" or a lone '%' in a path, which Claude Code posts as
// written (internal/agenttest TestClaudeHTTPGuardPathGoRefuses), and a
// guard so written was refused ("is not a valid URL").
func hookURLHost(raw string) (string, string) {
	raw = ClaudeURLTrim(raw)
	in, start, end, ok := jsSpecialHostSpan(raw)
	if !ok || strings.Contains(in[start:end], "${") {
		return endpointHost(raw)
	}
	// User information as JavaScript's URL reads it, which Go's parser
	// may not: "\u00a0https:\\\\u:pw@h/", which JavaScript's URL reads,
	// trimmed, as https://u:pw@h/, was refused as "not an absolute URL
	// with a host".
	if strings.Contains(in[:start], "@") {
		return "", "must not contain user information"
	}
	if strings.Contains(raw, "#") {
		return "", "must not contain a fragment"
	}
	return endpointURLHost(JSURLDecodedHost(urlAuthority(in, end)))
}

// urlAuthority is in, a special url as JavaScript's URL starts on it
// (jsSpecialHostSpan: trimmed, its tabs and line breaks removed) whose
// host ends at hostEnd, cut after its authority, with "/" for a path:
// what the host checks read. A url the parser reads only once trimmed is
// read so, as Claude Code posts it (" https://h/" and "https://h\t2/"
// to h and h2), where Go's parser, judging it whole, refused it.
func urlAuthority(in string, hostEnd int) string {
	end := len(in)
	if i := strings.IndexAny(in[hostEnd:], `/\?#`); i >= 0 {
		end = hostEnd + i
	}
	return in[:end] + "/"
}

// endpointURLHost is endpointHost of raw, its host decoded
// (JSURLDecodedHost), read with no variable in it.
func endpointURLHost(raw string) (string, string) {
	if strings.Contains(raw, "#") {
		return "", "must not contain a fragment"
	}
	u, err := url.Parse(raw)
	if err != nil {
		if msg := jsOnlyHostChars(raw); msg != "" {
			return "", msg
		}
		return "", "is not a valid URL"
	}
	scheme := strings.ToLower(u.Scheme)
	switch scheme {
	case "wss":
		scheme = "https"
	case "ws":
		scheme = "http"
	}
	if scheme != "https" && scheme != "http" {
		return "", "must be an absolute http or https URL"
	}
	if u.Opaque != "" || u.Host == "" {
		return "", "must be an absolute URL with a host"
	}
	if u.User != nil {
		return "", "must not contain user information"
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return "", "must be an absolute URL with a host"
	}
	if !isASCII(host) {
		return "", msgNonASCIIHost
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		host = ip.WithZone("").String()
		if scheme == "http" && !ip.Unmap().IsLoopback() {
			return "", msgPlainHTTP
		}
		return host, ""
	}
	if scheme == "http" && host != "localhost" {
		return "", msgPlainHTTP
	}
	return host, ""
}

// warnClaudeMCPURLUnparsed warns of a remote MCP server a host loads but
// never connects to: its url passes the url rules (Go's parser takes it)
// but not the WHATWG URL parser, which Claude Code 2.1.332 and Gemini CLI
// 0.61 (JavaScript's URL) and Codex 0.171 (Rust's url crate) connect
// with — a host whose
// last label is a number but which is no IPv4 address
// ("https://bc3e.9/"), an escaped '%' ("c%2541"), an IPv6 zone. Claude
// Code's config schema checks only the url's length, so the server is
// listed and fails, its tools never offered; Codex starts, logs "invalid
// IPv4 address", "invalid international domain name" or "invalid IPv6
// address" for it and goes on without it; Gemini CLI says "MCP issues
// detected" and goes on (internal/agenttest TestClaudeMCPURLUnparsed,
// TestCodexMCPURLUnparsed, TestGeminiMCPURLUnparsed: each asks a
// recording proxy for none of them). The warning names
// the hosts among those that read the server (a server split into one
// view a host, an "sse" one Codex reads as streamable HTTP, is warned of
// once for each). A url with a "${" in its scheme or authority, or, in a
// server Gemini CLI reads, a bare $NAME there (mcpNeverConnects), is left
// alone: Claude Code and Gemini CLI expand it before connecting, and the expansion may
// make a url the parser reads; one after them is not, as no expansion
// changes a url's authority once the path has begun.
func warnClaudeMCPURLUnparsed(b *Bundle, src string, s MCPServer) {
	if !mcpNeverConnects(s) {
		return
	}
	var who []string
	for _, h := range []Host{HostClaude, HostCodex, HostGemini} {
		if len(s.Hosts) == 0 || slices.Contains(s.Hosts, h) {
			who = append(who, unparsedURLParser[h])
		}
	}
	if len(who) == 0 {
		return
	}
	connect, loads := "connects", "it loads"
	if len(who) > 1 {
		connect, loads = "connect", "each loads"
	}
	b.Report.Warnf(src+".url", "mcp.url", "url %s does not parse as the WHATWG URL parser reads a url, which %s %s with: %s this server but never connects to it, so it offers none of its tools; write an https url whose host is a name or an IP address such a parser reads", quoteURL(s.URL), strings.Join(who, " and "), connect, loads)
}

// urlVarBeforePath reports whether s holds a "${" before its path, query
// or fragment begin: in its scheme or its authority ("https://${H}/",
// "https://h:${PORT}/"), where what a variable expands to decides whether
// the WHATWG parser reads the url. A "${" after them
// ("https://bc3e.9/${P}") leaves the authority as written.
func urlVarBeforePath(s string) bool {
	i := strings.Index(s, "${")
	return i >= 0 && beforeURLPath(s[:i])
}

// beforeURLPath reports whether head, the start of a url, ends in its
// scheme or authority, before its path, query or fragment begin.
func beforeURLPath(head string) bool {
	colon := strings.IndexByte(head, ':')
	if colon < 0 {
		return true
	}
	return !strings.ContainsAny(strings.TrimLeft(head[colon+1:], `/\`), `/\?#`)
}

// geminiVarBeforePath reports whether s, a remote MCP server Gemini CLI
// reads, holds a variable Gemini CLI expands (geminiRef: a bare $NAME
// too, "https://$NET.9/mcp") in its scheme or authority, where what it
// expands to picks the host Gemini CLI connects to (internal/agenttest
// TestGeminiMCPURLBareVar): like a "${" there (urlVarBeforePath), whose
// host no review knows.
func geminiVarBeforePath(s MCPServer) bool {
	if len(s.Hosts) > 0 && !slices.Contains(s.Hosts, HostGemini) {
		return false
	}
	loc := geminiRef().FindStringIndex(s.URL)
	return loc != nil && beforeURLPath(s.URL[:loc[0]])
}

// unparsedURLParser names a host with the WHATWG URL parser it connects
// to a remote MCP server with, for the mcp.url warning.
var unparsedURLParser = map[Host]string{
	HostClaude: "Claude Code (JavaScript's URL)",
	HostCodex:  "Codex (Rust's url crate)",
	HostGemini: "Gemini CLI (JavaScript's URL)",
}

// claudeCannotPostMsg says what an http hook of Claude Code whose url it
// cannot post to (ClaudeHTTPCannotPost) does: fail on every call, so a
// guard never blocks its event, unless its onFailure is "block", when it
// blocks every event it matches.
func claudeCannotPostMsg(h Hook) string {
	return fmt.Sprintf("url %s is not an http or https url: Claude Code loads this hook but cannot post the event to it, so the hook fails on every call%s; bundlectl runs it the same way; use an https url", quoteURL(h.URL), claudeFailingDoes(h))
}

// claudeRefusedAddrMsg says what an http hook of Claude Code whose url's
// host is an address it refuses (ClaudeHTTPURLRefused) does.
func claudeRefusedAddrMsg(h Hook, a netip.Addr, why string) string {
	return fmt.Sprintf("url %s: Claude Code refuses to post an http hook's event to %s, a %s address (\"HTTP hook blocked\", before connecting), so the hook fails on every call%s; bundlectl refuses it the same way; use the server's public address, or 127.0.0.1 or ::1 for a local server", quoteURL(h.URL), a, why, claudeFailingDoes(h))
}

// claudeFailingDoes is what a Claude Code hook that fails on every call
// does to its event: nothing, or, under onFailure "block", block it.
func claudeFailingDoes(h Hook) string {
	switch {
	case !BlockingEvent(h.Event):
		return ""
	case ClaudeOnFailureBlocks(h.Other) && !ClaudeHookBackground(h.Async, h.Other) && !ClaudeOnFailureIgnoredOn(h.Event):
		return fmt.Sprintf(" and, as its onFailure is \"block\", blocks every %s it matches", h.Event)
	default:
		return fmt.Sprintf(" and never blocks %s", h.Event)
	}
}

// msgPlainHTTP is endpointHost's problem with a plain-http url to a host
// that is not this machine.
const msgPlainHTTP = "must use https unless the host is localhost or a loopback address"

// msgNonASCIIHost is endpointHost's problem with a host that holds a
// character other than ASCII once percent-decoded. JavaScript's URL maps
// such a host with IDNA before Claude Code (2.1.332) posts to it, or
// connects: "ｅvil.example" is evil.example, a soft hyphen or a zero width
// space is dropped, and "%E2%80%8B10.0.0.5" is the IP literal 10.0.0.5,
// posted to as a private literal (internal/agenttest
// TestClaudeHTTPHookNonASCIIHost). The review would name a host and an
// address check the host does not make, and bundlectl computes no IDNA
// (jsurl.go), so the url names its host in ASCII.
const msgNonASCIIHost = "must name its host in ASCII: JavaScript's URL, which Claude Code posts with, maps a host holding another character (IDNA) to another name, or to an IP address (\"%E2%80%8B10.0.0.5\" is 10.0.0.5), which this review does not compute; write the host's xn-- form"

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// urlHasCredential reports a token shape, user information
// (jsURLUserinfo: a user name, a password, or both), or a query
// parameter named like a credential, in a url.
// The url is read as JavaScript's URL reads it, not through Go's parser,
// which refuses some urls Claude Code posts to ("https://u:p@c%7b.x/"),
// and whose query parser drops a pair with a bad escape or a ';'
// ("?token=abc%zz", "?token=abc;v=1"), where the server gets the token.
// It is read trimmed as Claude Code trims a hook's url (ClaudeURLTrim),
// as hookURLHost reads it: "\u00a0https:\\\\u:pw@h/" posts pw to h, and
// JavaScript's URL alone, which keeps U+00A0, reads no url there.
func urlHasCredential(raw string) bool {
	raw = ClaudeURLTrim(raw)
	if looksLikeToken(raw) || jsURLUserinfo(raw) {
		return true
	}
	for _, kv := range jsQueryPairs(raw) {
		switch strings.ToLower(strings.ReplaceAll(kv[0], "-", "_")) {
		case "token", "access_token", "api_key", "apikey", "key", "password", "secret", "auth", "sig", "signature":
			if !isReference(kv[1]) {
				return true
			}
		}
	}
	return false
}

// HookURLCredentialAdvice and MCPURLCredentialAdvice end the secret.url
// finding of an http hook's and an MCP server's url.
const (
	HookURLCredentialAdvice = "remove it from the url and send it in a header that references a host variable (allowedEnvVars)"
	MCPURLCredentialAdvice  = "remove it from the url and send it with bearer_token_env_var or env_headers"
)

// flagURLCredential records a secret.url error at path when url raw
// carries a credential (urlHasCredential), once per path: a component
// two readers read, one dropping it and one keeping it, is flagged once.
// It is called for a component kept (checkHook, checkServer) and for one
// a reader drops before those rules see it (dropURL, checked in
// checkModel): a dropped component stays in the trusted bundle's
// files with the secret in it. The url is never quoted.
func flagURLCredential(r *Report, path, raw, advice string) {
	if raw == "" || !urlHasCredential(raw) {
		return
	}
	for _, f := range r.Findings {
		if f.Path == path && f.Rule == "secret.url" {
			return
		}
	}
	r.Errorf(path, "secret.url", "url carries a credential (%s); %s", urlCredentialWhat(raw), advice)
}

// urlCredentialWhat names the part of url raw that carries its
// credential, without quoting it.
func urlCredentialWhat(raw string) string {
	raw = ClaudeURLTrim(raw)
	switch {
	case jsURLUserinfo(raw):
		return "user information, which a token or password may be written as"
	case looksLikeToken(raw):
		return "a token"
	}
	return "a query parameter named like one"
}

// droppedURL is the url of a hook or MCP server a reader dropped, at
// path, and the secret.url advice for it.
type droppedURL struct{ path, url, advice string }

// dropURL records url raw of a hook or MCP server a reader drops, for
// checkModel to check (flagURLCredential): checked there, not by the
// reader, as a reader's error would stop Load before the rules that
// report the rest.
func (b *Bundle) dropURL(path, raw, advice string) {
	if raw != "" {
		b.droppedURLs = append(b.droppedURLs, droppedURL{path, raw, advice})
	}
}

// dropURLs is dropURL for the "url" and "httpUrl" of a hook or MCP
// server object v at path.
func (b *Bundle) dropURLs(v *jsonValue, path, advice string) {
	if v == nil || v.kind != jsonObject {
		return
	}
	for _, k := range []string{"url", "httpUrl"} {
		if f, ok := v.obj[k]; ok && f.kind == jsonString {
			b.dropURL(FieldPath(path, k), f.str, advice)
		}
	}
}

// dropURLsIn is dropURLs for every hook or MCP server object anywhere
// in v, a value a reader drops whole at path for its shape (an event's
// hooks not an array, a matcher group not an object or with a bad
// matcher, mcpServers an array, an mcp.json refused whole): every
// string "url" or "httpUrl" in it. Each of those was trusted with a
// password in its url and no finding.
func (b *Bundle) dropURLsIn(v *jsonValue, path, advice string) {
	if v == nil {
		return
	}
	switch v.kind {
	case jsonObject:
		b.dropURLs(v, path, advice)
		for _, k := range v.keys {
			if f := v.obj[k]; f.kind == jsonObject || f.kind == jsonArray {
				b.dropURLsIn(f, FieldPath(path, k), advice)
			}
		}
	case jsonArray:
		for i, e := range v.arr {
			b.dropURLsIn(e, indexPath(path, i), advice)
		}
	}
}

// jsQueryPairs are the names and values of the query of url s as
// JavaScript's URL finds it (after the first '?', up to the first '#'),
// percent-decoded as URLSearchParams decodes them ('+' a space, a '%'
// that encodes nothing kept). Pairs are split at ';' as well as '&':
// the server, not JavaScript, reads the query, and many split there.
func jsQueryPairs(s string) [][2]string {
	s = jsURLInput(s)
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	_, q, ok := strings.Cut(s, "?")
	if !ok {
		return nil
	}
	var pairs [][2]string
	for _, p := range strings.FieldsFunc(q, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(p, "=")
		pairs = append(pairs, [2]string{formDecode(k), formDecode(v)})
	}
	return pairs
}

func formDecode(s string) string { return percentDecode(strings.ReplaceAll(s, "+", " ")) }

// jsURLUserinfo reports whether the user information of url s
// (urlUserinfoSpan: as JavaScript's URL reads it in a special url it
// parses; up to the last '@' in one it refuses) holds anything but host
// variable references
// ("${NAME}", "$NAME") and the ':' between a user name and a password. Any such
// user information counts as a credential, not only a password: a token
// is often sent as the user name ("https://ghp_…@github.com/"), an
// escaped colon hides a password in one ("u%3Apw", which decodes to
// u:pw), and a url's user information serves no purpose here: bundlectl
// skips a hook or server whose url has one (hook.url, mcp.url), and
// Gemini CLI 0.61's fetch refuses such a url (internal/agenttest
// TestGeminiMCPURLUserinfo), so a plain user name costs only its removal.
// "https:\\u:pw@host" has user information too, which the "://"
// pattern missed.
func jsURLUserinfo(s string) bool {
	in, start, end, ok := urlUserinfoSpan(s)
	if !ok {
		return false
	}
	lit := strings.ReplaceAll(userinfoRef().ReplaceAllString(in[start:end], ""), ":", "")
	return lit != ""
}

// urlUserinfoSpan is s as the WHATWG parser starts on it (jsURLInput)
// and where in it the user information written ends and starts: in a
// special url JavaScript's URL parses, as it reads it (up to the last
// '@' of the authority); in one of another scheme with an authority
// ("sftp://u@h/"), up to the last '@' before the first '/', '?' or '#';
// in a url JavaScript's URL refuses, up to the last '@' of the whole
// url. A refused url reaches no host, so its user information is what
// its writer meant, and a password holding '#', '/' or '?'
// ("https://u:pw#1@h/") or beside a bad port ("https://tok@h:99999/")
// made the url refused and its user information nobody's: it got no
// secret.url finding, the bundle was trusted with it, and the hook
// schema finding quoted the url whole. The span excludes the '@'; ok
// is false when s has none there, or is no url.
func urlUserinfoSpan(s string) (in string, start, end int, ok bool) {
	if !hasURLScheme(s) {
		return "", 0, 0, false
	}
	in = jsURLInput(s)
	colon := strings.IndexByte(in, ':')
	rest := in[colon+1:]
	special := false
	switch strings.ToLower(in[:colon]) {
	case "http", "https", "ws", "wss", "ftp":
		special = true
		start = len(in) - len(strings.TrimLeft(rest, `/\`))
	case "file":
		return "", 0, 0, false
	default:
		if !strings.HasPrefix(rest, "//") {
			return "", 0, 0, false
		}
		start = colon + 3
	}
	auth := in[start:]
	if !jsURLRefuses(in) {
		ends := "/?#"
		if special {
			ends += `\`
		}
		if i := strings.IndexAny(auth, ends); i >= 0 {
			auth = auth[:i]
		}
	}
	at := strings.LastIndexByte(auth, '@')
	if at < 0 {
		return "", 0, 0, false
	}
	return in, start, start + at, true
}

// userinfoRef is a host variable reference with no default, "${NAME}"
// or Gemini CLI's bare "$NAME": a default ("${U:-u:pw}") is literal text
// in the bundle.
var userinfoRef = lazyRegexp(`\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*`)

// validHeaderName is the RFC 9110 token rule.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// validHeaderValue is RFC 9110 field-value: visible characters, spaces and
// tabs, no leading or trailing whitespace, no CR, LF or NUL.
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return strings.TrimLeft(s, " \t") == s && strings.TrimRight(s, " \t") == s
}

var literalCredentialHeaders = map[string]bool{"authorization": true, "cookie": true, "proxy-authorization": true}

// checkHeaders applies the header rules of §7.2.1 and the credential
// rules to a remote server's literal headers and env_headers.
// firstControl returns the first C0 or C1 control character or DEL of s.
func firstControl(s string) (rune, bool) {
	for _, r := range s {
		if unicode.IsControl(r) {
			return r, true
		}
	}
	return 0, false
}

func checkHeaders(b *Bundle, s MCPServer) bool {
	keep := true
	seen := map[string]string{}
	for _, name := range sortedKeys(s.Headers) {
		p := FieldPath(s.Source+".headers", name)
		v := s.Headers[name]
		// A control character (a CR LF splitting the header, say) makes
		// an invalid HTTP field: the server is skipped, the rest of the
		// bundle loads. Bidirectional text stays an error of the bundle.
		if r, ok := firstControl(name + v); ok {
			b.Report.Skipf(p, "mcp.header", "header %s contains a control character (U+%04X), which no HTTP field may hold", Quote(name), r)
			keep = false
			continue
		}
		if !checkText(b, p, name, false) || !checkText(b, p, v, false) {
			keep = false
			continue
		}
		if !validHeaderName(name) {
			b.Report.Skipf(p, "mcp.header", "%s is not a valid HTTP header name", Quote(name))
			keep = false
			continue
		}
		if !validHeaderValue(v) {
			b.Report.Skipf(p, "mcp.header", "the value of header %s is not a valid HTTP field value", name)
			keep = false
		}
		lower := strings.ToLower(name)
		if other, dup := seen[lower]; dup {
			b.Report.Skipf(p, "mcp.header", "header %s is also given as %s; header names are case-insensitive", name, other)
			keep = false
		}
		seen[lower] = name
		checkHeaderSecret(b, p, name, v)
	}
	opt := func(field string) string { return serverOption(b, s, field) }
	if s.BearerTokenEnvVar != "" {
		checkEnvSource(b, opt("bearer_token_env_var"), s.BearerTokenEnvVar)
	}
	for _, name := range sortedKeys(s.EnvHeaders) {
		p := FieldPath(opt("env_headers"), name)
		if !checkText(b, p, name, false) {
			continue
		}
		lower := strings.ToLower(name)
		switch {
		case !validHeaderName(name):
			b.Report.Skipf(p, "mcp.header", "%s is not a valid HTTP header name", Quote(name))
			keep = false
		case seen[lower] != "":
			b.Report.Skipf(p, "mcp.header", "header %s is both literal and taken from the environment", name)
			keep = false
		case lower == "authorization" && s.BearerTokenEnvVar != "":
			b.Report.Skipf(p, "mcp.header", "Authorization is set both by bearer_token_env_var and by env_headers")
			keep = false
		}
		seen[lower] = name
		checkEnvSource(b, p, s.EnvHeaders[name])
	}
	return keep
}

// hostVariableAdvice says how a server's env entry k takes its value from
// a host variable. Codex (0.171) expands no ${…} in a plugin server's env:
// it passes the variables env_vars names, so for a server Codex reads the
// advice says both ways.
func hostVariableAdvice(hosts []Host, k string) string {
	if slices.Contains(hosts, HostCodex) {
		return fmt.Sprintf("e.g. ${%s} for Claude Code; Codex expands no ${…}: name %s in env_vars and leave it out of env", k, Quote(k))
	}
	return fmt.Sprintf("e.g. ${%s}", k)
}

// checkHeaderSecret refuses a literal credential in a header: a credential
// header (Authorization, Cookie, a name that says token or key) must take
// its value from a host variable ("Bearer ${GITHUB_TOKEN}").
func checkHeaderSecret(b *Bundle, p, name, v string) {
	lower := strings.ToLower(name)
	switch {
	case isReference(v) && !looksLikeToken(v):
	case placeholderValue(v) && !looksLikeToken(v) && (literalCredentialHeaders[lower] || credentialName(name)):
		b.Report.Warnf(p, "secret.placeholder", "header %s holds a placeholder; give it a host variable (e.g. ${API_TOKEN}) or the server gets this text", name)
	case literalCredentialHeaders[lower]:
		b.Report.Errorf(p, "secret.header", "a literal %s header; credentials never belong in a manifest (reference a host variable, or use bearer_token_env_var or env_headers)", name)
	case credentialName(name):
		b.Report.Errorf(p, "secret.header", "header %s looks like it carries a literal credential; reference a host variable instead", name)
	case looksLikeToken(v):
		b.Report.Errorf(p, "secret.token", "looks like a credential; reference a host variable instead (e.g. ${API_TOKEN})")
	}
}

// ---- bundle-wide rules ----

func checkDuplicates(b *Bundle) {
	tools := map[string]bool{}
	for _, t := range b.Components.Tools {
		if tools[t.Name] {
			b.Report.Errorf(t.Source+".name", "tool.duplicate", "another tool is also named %s", Quote(t.Name))
		}
		tools[t.Name] = true
	}
	// Two servers of one name collide only where one host would load both
	// (a plugin may describe "github" once for Claude Code and once, in
	// its own dialect, for Gemini CLI).
	collide := func(kind, name, source string, hosts []Host, seen map[string][][]Host) {
		for _, other := range seen[name] {
			if len(hosts) == 0 || len(other) == 0 || slices.ContainsFunc(hosts, func(h Host) bool { return slices.Contains(other, h) }) {
				b.Report.Errorf(source, kind+".duplicate-server", "another %s server is also named %s", kind, Quote(name))
				break
			}
		}
		seen[name] = append(seen[name], hosts)
	}
	mcp := map[string][][]Host{}
	for _, s := range b.Components.MCP {
		collide("mcp", s.Name, s.Source, s.Hosts, mcp)
	}
	lsp := map[string][][]Host{}
	for _, l := range b.Components.LSP {
		collide("lsp", l.Name, l.Source, l.Hosts, lsp)
	}
	// Two skills (or commands, agents, output styles) of one name that one
	// host loads: a host keys them by name (Codex and Gemini CLI name a
	// skill by its front matter), and a host view holds one per name, so
	// the files, grants and hooks of the two would run as one component.
	//
	// Two that bundlectl exec's host view would write to paths of one
	// directory that differ only in letter case or Unicode normalization
	// (skills/Report/ and skills/report/, commands/a/x.md and
	// commands/A/y.md) are refused too: a case-insensitive file system
	// (macOS, Windows) takes those for one. Paths are compared as the tree
	// rule name.collision compares file names, and as hosts.View.CheckNames
	// does, so a file command commands/Deploy.md and a skill-mode command
	// commands/deploy/SKILL.md, which the view writes as Deploy.md and
	// deploy/ and Claude Code 2.1.332 loads as two commands, pass.
	type namedAt struct {
		name, path, last string // last: its own view path
		hosts            []Host
	}
	type entryAt struct {
		entry string // the view path, relative to the kind's directory
		at    int    // index in the kind's list
	}
	type kindSeen struct {
		list    []namedAt
		byName  map[string][]int
		byEntry map[string][]entryAt // parent path and folded base name
	}
	named := func(rule, kind, dir, name, p string, hosts []Host, entries []string, seen *kindSeen) {
		if seen.byName == nil {
			seen.byName, seen.byEntry = map[string][]int{}, map[string][]entryAt{}
		}
		overlap := func(other []Host) bool {
			return len(hosts) == 0 || len(other) == 0 || slices.ContainsFunc(hosts, func(h Host) bool { return slices.Contains(other, h) })
		}
		keys := make([]string, len(entries))
		for i, e := range entries {
			keys[i] = path.Dir(e) + "\x00" + collisionKey(path.Base(e))
		}
		reported := false
		for _, i := range seen.byName[name] {
			if other := seen.list[i]; overlap(other.hosts) {
				b.Report.Errorf(p, rule, "another %s of the plugin, %s, is also named %s, and a host holds one %s per name; rename one", kind, Quote(other.path), Quote(name), kind)
				reported = true
				break
			}
		}
	entries:
		for j, e := range entries {
			if reported {
				break
			}
			for _, o := range seen.byEntry[keys[j]] {
				other := seen.list[o.at]
				if o.entry == e || other.name == name || !overlap(other.hosts) {
					continue
				}
				if collisionKey(name) == collisionKey(other.name) {
					how := foldHow(name, other.name)
					b.Report.Errorf(p, rule, "%s %s differs from %s %s (%s) %s: bundlectl exec builds a host view with one entry per %s name, which a case-insensitive file system (macOS, Windows) takes for one; rename one", kind, Quote(name), kind, Quote(other.name), Quote(other.path), how, kind)
				} else {
					b.Report.Errorf(p, rule, "bundlectl exec's host view would write %s %s as %s and %s %s (%s) as %s, and %s and %s differ only in letter case or Unicode normalization, which a case-insensitive file system (macOS, Windows) takes for one name; rename one", kind, Quote(name), Quote(dir+"/"+entries[len(entries)-1]), kind, Quote(other.name), Quote(other.path), Quote(dir+"/"+other.last), Quote(dir+"/"+e), Quote(dir+"/"+o.entry))
				}
				break entries
			}
		}
		at := len(seen.list)
		seen.list = append(seen.list, namedAt{name, p, entries[len(entries)-1], hosts})
		seen.byName[name] = append(seen.byName[name], at)
		for j, e := range entries {
			seen.byEntry[keys[j]] = append(seen.byEntry[keys[j]], entryAt{e, at})
		}
	}
	var skills kindSeen
	for _, s := range b.Components.Skills {
		named("skill.duplicate", "skill", "skills", s.Name, s.Path, s.Hosts, []string{s.Name}, &skills)
	}
	for _, k := range []struct {
		kind, dir string
		docs      []Document
	}{{"command", "commands", b.Components.Commands}, {"agent", "agents", b.Components.Agents}, {"output style", "output-styles", b.Components.OutputStyles}} {
		var seen kindSeen
		for _, d := range k.docs {
			named("document.duplicate", k.kind, k.dir, d.Name, d.Path, d.Hosts, docViewEntries(k.kind, d), &seen)
		}
	}
}

// docViewEntries are the paths a host view writes for the document d,
// relative to its kind's directory, each directory on the way included:
// its name with each ":" a directory (hosts.DocFile), then ".md" for a
// file, ".toml" for a Gemini CLI command, nothing for a skill-mode
// command (Claude Code's directory of a commands location holding a
// SKILL.md, which the view keeps as a directory).
func docViewEntries(kind string, d Document) []string {
	last := d.Name
	switch {
	case kind == "command" && IsSkillFileName(path.Base(d.Path)) && path.Dir(d.Path) != ".":
	case strings.HasSuffix(d.Path, ".toml"):
		last += ".toml"
	default:
		last += ".md"
	}
	segs := strings.Split(last, ":")
	entries := make([]string, len(segs))
	for i := range segs {
		entries[i] = strings.Join(segs[:i+1], "/")
	}
	return entries
}

// normalizeHost normalizes a declared network host: lowercase, brackets
// removed, IP literals canonical. A scheme, port, path or wildcard makes it
// invalid.
func normalizeHost(h string) (string, bool) {
	h = strings.ToLower(h)
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	if ip, err := netip.ParseAddr(h); err == nil && ip.Zone() == "" {
		return ip.String(), true
	}
	if h == "" || strings.ContainsAny(h, ":/@#?*[] \t%") {
		return "", false
	}
	return h, true
}

// remoteHosts maps the normalized host of every remote endpoint (MCP
// servers, http hooks) to the first component using it. An endpoint whose
// host comes from a host variable has no host to map: a "${NAME}" in its
// authority, or a bare "$NAME" there in a server only Gemini CLI reads
// (geminiOnlyVarHost).
func remoteHosts(b *Bundle) map[string]string {
	hosts := map[string]string{}
	for _, s := range b.Components.MCP {
		if !s.Remote() || geminiOnlyVarHost(s) {
			continue
		}
		if h, msg := endpointHost(s.URL); msg == "" && h != "" {
			if _, ok := hosts[h]; !ok {
				hosts[h] = "mcp server " + Quote(s.Name)
			}
		}
	}
	for _, hk := range b.Components.Hooks {
		if hk.Type != HookHTTP {
			continue
		}
		if h, msg := hookURLHost(hk.URL); msg == "" && h != "" {
			if _, ok := hosts[h]; !ok {
				hosts[h] = "an http hook of " + hk.Event
			}
		}
	}
	return hosts
}

// NeverContactedWhy maps each host of b's remote endpoints that no
// endpoint b declares (http hook or MCP url) reaches to why
// (Permissions.NetworkNeverContacted lists the hosts; the review shows
// the reasons). It knows nothing of command hooks, stdio servers and
// skills, which NetworkHosts does not cover: they may reach the host
// (curl, WebFetch). Only MCP servers no host connects to and http hooks
// no host posts to name such a host. Such a server's url is one the
// WHATWG URL parser refuses (mcpNeverConnects: "https://bc3e.9/mcp",
// an IPv6 zone), the mcp.url warning's, which Claude Code, Codex and
// Gemini CLI load and never connect to. Such a hook's url is one that
// Claude Code (2.1.332), the one host
// that posts an http hook's event itself, and bundlectl's hooks exec and
// hooks run (harness postHook, for every host) both refuse to post to:
//
//   - a url whose scheme is not http or https (ws:// and wss://, which
//     endpointHost reads as http and https; ClaudeHTTPCannotPost): Claude
//     Code sends it nothing and opens no WebSocket (internal/agenttest
//     TestClaudeHTTPHookURLVarsAndWebSocket), and bundlectl posts over
//     http and https only;
//   - an https url whose host is an IP literal Claude Code refuses before
//     connecting, with or without a proxy (link-local, cloud metadata or
//     reserved: 169.254.169.254, also written 0xa9fea9fe;
//     ClaudeHTTPURLRefused), which bundlectl refuses the same way
//     (harness refuseHookAddress; internal/agenttest
//     TestClaudeHTTPHookPrivateAddress);
//   - a url whose host is an IPv6 literal with a zone ([fe80::1%25eth0];
//     zonedIPv6URL): JavaScript's URL refuses it, so Claude Code loads no
//     such hook (jsURLRefuses; internal/agenttest TestClaudeHTTPURLSchema),
//     and refuseHookAddress refuses a zone.
//
// Codex skips http hooks and Gemini CLI runs command hooks only
// (docs/hooks.md), so no other host posts to them. A host that an MCP
// server a host connects to, or any other http hook, names is
// contacted, and left out; so is
// one whose address such an endpoint names in another form (0xa9fea9fe,
// ::ffff:169.254.169.254 or 64:ff9b::a9fe:a9fe for 169.254.169.254, as
// hostAddrs reads them), since the address is reached all the same. When
// an MCP server's host is chosen by a variable
// ("https://${HOST:-169.254.169.254}/mcp", whose default Claude Code
// fills in; or, in a server Gemini CLI reads, "https://$NET.9/mcp",
// as Gemini CLI expands a bare $NAME too: geminiVarBeforePath), it may be
// any host, so none is marked.
func NeverContactedWhy(b *Bundle) map[string]string {
	out := map[string]string{}
	for h, rs := range NeverContactedReasons(b) {
		ws := make([]string, len(rs))
		for i, r := range rs {
			ws[i] = r.String()
		}
		out[h] = strings.Join(ws, "; ")
	}
	return out
}

// Kinds of NeverReached: the kind of http hook url that names a host no
// endpoint reaches.
const (
	// NeverWebSocket: a ws:// or wss:// url (ClaudeHTTPCannotPost).
	NeverWebSocket = "websocket_url"
	// NeverRefusedAddress: an IP literal Claude Code and bundlectl refuse
	// to post hook events to (ClaudeHTTPURLRefused).
	NeverRefusedAddress = "refused_address"
	// NeverZonedIPv6: an IPv6 literal with a zone (zonedIPv6URL).
	NeverZonedIPv6 = "zoned_ipv6"
	// NeverUnparsedMCPURL: a remote MCP server's url the WHATWG URL
	// parser refuses (mcpNeverConnects), which no host connects to.
	NeverUnparsedMCPURL = "unparsed_mcp_url"
)

// NeverReached is one reason NeverContactedReasons gives: the kind of
// http hook url that names the host, and for NeverRefusedAddress the
// address and why Claude Code refuses it (ClaudeHTTPRefusedAddr).
type NeverReached struct {
	Kind  string
	Addr  netip.Addr
	Class string
}

// String is the reason as the review prints it.
func (r NeverReached) String() string {
	switch r.Kind {
	case NeverWebSocket:
		return "only http hooks with a ws:// or wss:// url name it: Claude Code and bundlectl post hook events over http and https only"
	case NeverRefusedAddress:
		return fmt.Sprintf("only http hooks to %s name it, a %s address that Claude Code and bundlectl refuse to post hook events to", r.Addr, r.Class)
	case NeverUnparsedMCPURL:
		return "only MCP servers whose url the WHATWG URL parser refuses name it: Claude Code, Codex and Gemini CLI load such a server but never connect to it"
	}
	return "only http hooks to an IPv6 literal with a zone name it: JavaScript's URL refuses it, so Claude Code loads no such hook, and bundlectl refuses to post hook events to it"
}

// NeverContactedReasons is NeverContactedWhy with each reason apart, in
// the order the bundle's MCP servers, then its hooks, first give them.
func NeverContactedReasons(b *Bundle) map[string][]NeverReached {
	contacted, why := map[string]bool{}, map[string][]NeverReached{}
	reached := map[netip.Addr]bool{}
	contact := func(h string) {
		contacted[nameKey(h)] = true
		for _, a := range hostAddrs(h) {
			reached[a] = true
		}
	}
	for _, s := range b.Components.MCP {
		if s.Remote() {
			h, msg := endpointHost(s.URL)
			if msg == "" && (h == "" && strings.Contains(s.URL, "${") || geminiVarBeforePath(s)) {
				return map[string][]NeverReached{}
			}
			switch {
			case msg != "" || h == "":
			case mcpNeverConnects(s):
				addReason(why, h, NeverReached{Kind: NeverUnparsedMCPURL})
			default:
				contact(h)
			}
		}
	}
	for _, hk := range b.Components.Hooks {
		if hk.Type != HookHTTP {
			continue
		}
		h, msg := hookURLHost(hk.URL)
		if msg != "" || h == "" {
			continue
		}
		if w, ok := hookNeverPosts(hk.URL); ok {
			addReason(why, h, w)
		} else {
			contact(h)
		}
	}
	out := map[string][]NeverReached{}
	for h, ws := range why {
		if !contacted[nameKey(h)] && !slices.ContainsFunc(hostAddrs(h), func(a netip.Addr) bool { return reached[a] }) {
			out[h] = ws
		}
	}
	return out
}

// addReason adds w to host h's reasons, once.
func addReason(why map[string][]NeverReached, h string, w NeverReached) {
	if !slices.Contains(why[h], w) {
		why[h] = append(why[h], w)
	}
}

// mcpNeverConnects reports whether no host connects to a remote MCP
// server s: the WHATWG URL parser, which Claude Code, Gemini CLI
// (JavaScript's URL) and Codex (Rust's url crate) connect with, refuses
// its url, and no variable in its scheme or authority may make it parse
// once expanded — a "${", or, in a server Gemini CLI reads, a bare $NAME
// (geminiVarBeforePath) — (warnClaudeMCPURLUnparsed, the mcp.url warning,
// and internal/agenttest TestClaudeMCPURLUnparsed,
// TestCodexMCPURLUnparsed, TestGeminiMCPURLUnparsed, whose recording
// proxy none of them asks). bundlectl runs stdio MCP servers only.
func mcpNeverConnects(s MCPServer) bool {
	return !urlVarBeforePath(s.URL) && !geminiVarBeforePath(s) && jsURLRefuses(s.URL)
}

// hostAddrs are the IPv4 or IPv6 addresses an endpoint's host h (as
// endpointHost gives it) reaches when it is an IP literal, read as
// JavaScript's URL reads it ("0xa9fea9fe" is 169.254.169.254): the
// address, its IPv4 address when IPv4-mapped, and every IPv4 address
// embedded in it that a translator (NAT64, 6to4, ISATAP) may reach. It
// errs towards more, as two hosts sharing one are taken for one. A name
// has none: it is not resolved.
func hostAddrs(h string) []netip.Addr {
	lit := h
	if strings.Contains(h, ":") {
		lit = "[" + h + "]"
	}
	a, ok := JSURLIPHost(lit)
	if !ok {
		return nil
	}
	out := []netip.Addr{a.Unmap()}
	if a.Is6() {
		for _, v := range claudeEmbedded(a.As16()) {
			out = append(out, netip.AddrFrom4(v))
		}
	}
	return out
}

// nameKey is the name h (as endpointHost gives it) resolves as: a
// trailing dot dropped, as "evil.example." is evil.example to a resolver,
// and Claude Code 2.1.332 posts to it (internal/agenttest
// TestClaudeHTTPHookNonASCIIHost).
func nameKey(h string) string {
	if k := strings.TrimSuffix(h, "."); k != "" {
		return k
	}
	return h
}

// hookNeverPosts says why neither Claude Code nor bundlectl ever posts an
// http hook's event to url, or false when one may.
func hookNeverPosts(url string) (NeverReached, bool) {
	if ClaudeHTTPCannotPost(url) {
		return NeverReached{Kind: NeverWebSocket}, true
	}
	if a, why := ClaudeHTTPURLRefused(url); why != "" {
		return NeverReached{Kind: NeverRefusedAddress, Addr: a, Class: why}, true
	}
	if zonedIPv6URL(url) {
		return NeverReached{Kind: NeverZonedIPv6}, true
	}
	return NeverReached{}, false
}

// zonedIPv6URL reports whether s, as Go reads it, is a url whose host is
// an IPv6 literal with a zone ("https://[fe80::1%25eth0]/"): one
// JavaScript's URL refuses (jsURLRefuses) and harness refuseHookAddress
// refuses to post to.
func zonedIPv6URL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && strings.HasPrefix(u.Host, "[") && strings.Contains(u.Hostname(), "%")
}

// checkNetworkHosts checks capabilities.network_hosts only when a bundle
// declares it: then it must equal exactly the host set of the bundle's
// remote endpoints. Undeclared, the set is derived from the endpoints and
// shown by the review. Either way it is stored normalized and sorted.
func checkNetworkHosts(b *Bundle, declarable map[string]string) {
	need := remoteHosts(b)
	if !b.Permissions.NetworkDeclared {
		b.Permissions.NetworkHosts = sortedKeys(need)
	} else {
		path := modelPath(b, "capabilities.network_hosts", "capabilities.network_hosts")
		have := map[string]bool{}
		for i, raw := range b.Permissions.NetworkHosts {
			p := indexPath(path, i)
			if !checkText(b, p, raw, false) {
				continue
			}
			h, ok := normalizeHost(raw)
			if !ok {
				// Not quoted: an entry such as "https://user:pass@host" carries
				// a credential that no token shape recognises.
				b.Report.Errorf(p, "capabilities.host", "not a host name or IP address (no scheme, userinfo, port, path or wildcard)")
				continue
			}
			if _, used := declarable[h]; !used {
				b.Report.Errorf(p, "capabilities.network-hosts", "declared host %s is not the host of any remote endpoint", Quote(h))
			}
			have[h] = true
		}
		for _, h := range sortedKeys(need) {
			if !have[h] {
				b.Report.Errorf(path, "capabilities.network-hosts", "host %s of %s is not declared in network_hosts", Quote(h), need[h])
			}
		}
		b.Permissions.NetworkHosts = sortedKeys(have)
	}
	never := NeverContactedWhy(b)
	b.Permissions.NetworkNeverContacted = nil
	for _, h := range b.Permissions.NetworkHosts {
		if never[h] != "" {
			b.Permissions.NetworkNeverContacted = append(b.Permissions.NetworkNeverContacted, h)
		}
	}
	for i, r := range b.Permissions.FilesystemRoots {
		checkText(b, indexPath(modelPath(b, "capabilities.filesystem_roots", "capabilities.filesystem_roots"), i), r, false)
	}
}

var whenOS = map[string]bool{"linux": true, "macos": true, "windows": true}

func checkWhen(b *Bundle) {
	for i, o := range b.When.OS {
		p := indexPath(modelPath(b, "when.os", "when.os"), i)
		if checkText(b, p, o, false) && !whenOS[o] {
			b.Report.Errorf(p, "when.os", "unknown operating system %s (want linux, macos or windows)", Quote(o))
		}
	}
	for i, bin := range b.When.Binaries {
		p := indexPath(modelPath(b, "when.binaries", "when.binaries"), i)
		if checkText(b, p, bin, false) && (bin == "" || bin == "." || bin == ".." || strings.ContainsAny(bin, "/\\") || strings.IndexFunc(bin, unicode.IsSpace) >= 0) {
			b.Report.Errorf(p, "when.binary", "binary %s must be a bare executable name", Quote(bin))
		}
	}
}

// checkInactive records filesystem_roots and lifecycle_mutation as
// inactive declarations (once, whichever parser saw them) and reports every
// inactive surface loudly: the bundle stays valid but is blocked.
func checkInactive(b *Bundle) {
	has := func(surface string) bool {
		for _, in := range b.Inactive {
			if in.Surface == surface {
				return true
			}
		}
		return false
	}
	if len(b.Permissions.FilesystemRoots) > 0 && !has(SurfaceFilesystemRoots) {
		b.Inactive = append(b.Inactive, Inactive{
			Surface: SurfaceFilesystemRoots,
			Detail:  strings.Join(b.Permissions.FilesystemRoots, ", "),
			Spec:    canonicalJSON(b.Permissions.FilesystemRoots),
		})
	}
	if b.Permissions.LifecycleMutation && !has(SurfaceLifecycleMutation) {
		b.Inactive = append(b.Inactive, Inactive{
			Surface: SurfaceLifecycleMutation, Detail: "lifecycle_mutation = true", Spec: json.RawMessage("true"),
		})
	}
	for _, in := range b.Inactive {
		what, field := in.Surface, in.Surface
		switch {
		case in.Name != "":
			what = fmt.Sprintf("%s %s", in.Surface, Quote(in.Name))
			field = FieldPath(in.Surface, in.Name)
		case in.Surface == SurfaceFilesystemRoots || in.Surface == SurfaceLifecycleMutation:
			field = "capabilities." + in.Surface
		}
		b.Report.Warnf(modelPath(b, field, field), "inactive.surface", "declares %s, which bundlectl does not run; the bundle is blocked and cannot be enabled", what)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// DisplayComponents is b's components for output: as they are, or, when a
// secret rule flagged something of b (a refused bundle still holds the
// literal credential), as JSON with what those rules flag redacted.
func DisplayComponents(b *Bundle) (any, error) {
	for _, f := range b.Report.Findings {
		if strings.HasPrefix(f.Rule, "secret.") {
			raw, err := json.Marshal(b.Components)
			if err != nil {
				return nil, err
			}
			return json.RawMessage(RedactCredentialsJSON(raw)), nil
		}
	}
	return b.Components, nil
}

// RedactCredentialsJSON returns the JSON document doc with what the
// secret rules flag replaced by "[redacted]": a string value under a key
// named like a credential (an environment variable or header such as
// API_TOKEN) unless it references a variable ("${…}"), the value of a
// credential flag in an argument list (--token=… or --token …), and every
// credential shape. For output of a refused bundle's components; a doc
// that does not parse is returned with only the shapes redacted.
func RedactCredentialsJSON(doc []byte) []byte {
	var v any
	if json.Unmarshal(doc, &v) != nil {
		return []byte(redactTokens(string(doc)))
	}
	out, err := json.Marshal(redactCredentialValues(v))
	if err != nil {
		return []byte(redactTokens(string(doc)))
	}
	return []byte(redactTokens(string(out)))
}

// redactURL returns s without the userinfo and query of a URL that
// carries a credential in them, and s itself otherwise. A url with a
// credential is read, and returned, trimmed as urlHasCredential reads it
// (ClaudeURLTrim): "\u00a0ftp://h/?key=pw", which neither Go's parser
// nor a scheme test reads as a url untrimmed, was returned as it was.
func redactURL(s string) string {
	t := ClaudeURLTrim(s)
	if hasURLScheme(t) && jsURLRefuses(t) && urlHasCredential(t) {
		// Read as urlHasCredential reads it, not as Go's parser does:
		// "https://h:99999/a:pw@b" is a url Go parses with no user
		// information.
		return redactURLText(t)
	}
	// Decoded as urlHasCredential reads it: Go refuses "c%41.example.com".
	u, err := url.Parse(JSURLDecodedHost(t))
	if err != nil || u.Scheme == "" || u.Host == "" {
		// A url Go does not parse may carry one as well
		// ("https://u:pw@c%7b.example/", which JavaScript's URL reads).
		if hasURLScheme(t) && urlHasCredential(t) {
			return redactURLText(t)
		}
		return s
	}
	if _, pw := u.User.Password(); !pw && !urlHasCredential(t) {
		return s
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String() + " [credentials redacted]"
}

// hasURLScheme reports whether s, as JavaScript's URL starts on it,
// begins with a special scheme ("https:", "ws:", "file:", …) or another
// followed by "//": a url, not an argument such as "--key=…".
func hasURLScheme(s string) bool {
	in := jsURLInput(s)
	scheme, rest, ok := strings.Cut(in, ":")
	if !ok || scheme == "" || !isASCIIAlpha(scheme[0]) || strings.ContainsFunc(scheme, func(r rune) bool {
		return !(r < utf8.RuneSelf && (isASCIIAlpha(byte(r)) || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'))
	}) {
		return false
	}
	switch strings.ToLower(scheme) {
	case "http", "https", "ws", "wss", "ftp", "file":
		return true
	}
	return strings.HasPrefix(rest, "//")
}

// redactURLText is s without its user information (urlUserinfoSpan:
// as JavaScript's URL reads it, or, in a url it refuses, up to the
// url's last '@'), cut before its query or fragment: for a url Go's
// parser refuses, or JavaScript's does. The user information is taken
// out first: "https://u:pw#1@h/", cut first at its '#', kept
// "https://u:pw".
func redactURLText(s string) string {
	in := jsURLInput(s)
	if u, start, end, ok := urlUserinfoSpan(s); ok {
		in = u[:start] + u[end+1:]
	}
	if i := strings.IndexAny(in, "?#"); i >= 0 {
		in = in[:i]
	}
	return in + " [credentials redacted]"
}

// quoteURL is url quoted for a finding's message, without the user
// information and query that carry a credential (redactURL): a finding
// that names the url, as many do, must not echo the credential another
// rule (secret.url) refuses it for.
func quoteURL(url string) string { return Quote(redactURL(url)) }

func redactCredentialValues(v any) any {
	switch x := v.(type) {
	case string:
		return redactURL(x)
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && (credentialName(k) || literalCredentialHeaders[strings.ToLower(k)]) && !strings.HasPrefix(s, "${") && s != "" {
				x[k] = "[redacted]"
				continue
			}
			x[k] = redactCredentialValues(e)
		}
	case []any:
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				x[i] = redactCredentialValues(e)
				continue
			}
			if !credentialFlag(s) {
				x[i] = redactURL(s)
				continue
			}
			if j := strings.IndexByte(s, '='); j >= 0 {
				x[i] = s[:j+1] + "[redacted]"
			} else if i+1 < len(x) {
				if next, ok := x[i+1].(string); ok && !strings.HasPrefix(next, "-") {
					x[i+1] = "[redacted]"
				}
			}
		}
	}
	return v
}
