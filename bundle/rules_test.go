package bundle

import (
	"strings"
	"testing"
)

const pluginSchema = `"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"`

// ruleCase is one bundle that must produce one finding.
type ruleCase struct {
	name   string
	fs     files
	sev    Severity
	rule   string
	path   string // a part of the finding's path
	secret string // if set, must appear in no finding
}

func runRuleCases(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := loadFiles(t, withPlugin(tc.fs))
			requireFinding(t, b, tc.sev, tc.rule, tc.path)
			if tc.secret != "" {
				requireNoSecret(t, b, tc.secret)
			}
			if tc.sev == Error && !b.Rejected() {
				t.Fatalf("an error finding must reject the bundle")
			}
			if tc.sev == Skip && b.Rejected() {
				t.Fatalf("a skip finding must not reject the bundle:%s", dumpFindings(b))
			}
		})
	}
}

func TestPluginJSONRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{"invalid json", files{"plugin.json": `{"name": `}, Error, "manifest.json", "plugin.json", ""},
		{"trailing data", files{"plugin.json": minimalPlugin + ` {}`}, Error, "manifest.json", "plugin.json", ""},
		{"invalid utf-8", files{"plugin.json": "{\"name\": \"\xff\"}"}, Error, "manifest.json", "plugin.json", ""},
		{"duplicate key", files{"plugin.json": `{` + pluginSchema + `, "name": "demo", "name": "demo"}`}, Error, "json.duplicate-key", "plugin.json: name", ""},
		{"not an object", files{"plugin.json": `["demo"]`}, Error, "manifest.not-object", "plugin.json", ""},
		{"schema missing", files{"plugin.json": `{"name": "demo"}`}, Error, "manifest.schema", "plugin.json: $schema", ""},
		{"schema not a string", files{"plugin.json": `{"$schema": 1, "name": "demo"}`}, Error, "manifest.schema", "$schema", ""},
		{"schema empty", files{"plugin.json": `{"$schema": "", "name": "demo"}`}, Error, "manifest.schema", "$schema", ""},
		{"schema other version", files{"plugin.json": `{"$schema": "https://agent-plugins.org/schemas/1.1.0/plugin.schema.json", "name": "demo"}`}, Error, "manifest.unsupported-version", "$schema", ""},
		{"name missing", files{"plugin.json": `{` + pluginSchema + `}`}, Error, "manifest.name", "plugin.json: name", ""},
		{"name not a string", files{"plugin.json": `{` + pluginSchema + `, "name": 7}`}, Error, "manifest.name", "name", ""},
		{"name empty", files{"plugin.json": `{` + pluginSchema + `, "name": ""}`}, Error, "manifest.name", "name", ""},
		{"name mismatch", files{"plugin.json": `{` + pluginSchema + `, "name": "other"}`}, Error, "manifest.name-mismatch", "name", ""},
		{"version not a string", files{"plugin.json": `{` + pluginSchema + `, "name": "demo", "version": 1}`}, Error, "manifest.field-type", "version", ""},
		{"keywords not strings", files{"plugin.json": `{` + pluginSchema + `, "name": "demo", "keywords": ["a", 1]}`}, Error, "manifest.field-type", "keywords", ""},
		{"author not object", files{"plugin.json": `{` + pluginSchema + `, "name": "demo", "author": "me"}`}, Error, "manifest.author", "author", ""},
		{"author unknown field", files{"plugin.json": `{` + pluginSchema + `, "name": "demo", "author": {"name": "a", "twitter": "b"}}`}, Error, "manifest.author", "author.twitter", ""},
		{"author field not a string", files{"plugin.json": `{` + pluginSchema + `, "name": "demo", "author": {"email": 5}}`}, Error, "manifest.author", "author.email", ""},
		{"namespace value not an object", files{"plugin.json": `{` + pluginSchema + `, "name": "demo", "extensions": {"com.example": 1}}`}, Error, "manifest.extension-type", "extensions.com.example", ""},
		{"unknown field", files{"plugin.json": `{` + pluginSchema + `, "name": "demo", "hooks": {}}`}, Warning, "manifest.unknown-field", "plugin.json: hooks", ""},
		{"extensions not an object", files{"plugin.json": `{` + pluginSchema + `, "name": "demo", "extensions": "dev.bundlectl"}`}, Warning, "manifest.extensions-type", "extensions", ""},
		{"control character in description", files{"plugin.json": `{` + pluginSchema + `, "name": "demo", "description": "ok\u001b[2J"}`}, Error, "text.control", "plugin.json: description", ""},
		{"bidi character in display name", files{"plugin.json": pluginWithExt(`{"display_name": "abc\u202edef"}`)}, Error, "text.bidi", "display_name", ""},
	})
}

func TestPluginNameRule(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"my-plugin", true}, {"acme.tools", true}, {"lint3r", true}, {"a", true}, {strings.Repeat("a", 64), true},
		{"My-Plugin", false}, {"-start", false}, {"end-", false}, {".start", false}, {"has--double", false},
		{"too.many..dots", false}, {"", false}, {strings.Repeat("a", 65), false}, {"under_score", false}, {"sp ace", false},
	} {
		if got := pluginNameProblem(tc.name) == ""; got != tc.ok {
			t.Errorf("pluginNameProblem(%q) ok = %v, want %v", tc.name, got, tc.ok)
		}
	}
	// The manifest name rule is applied to the manifest, not just the directory.
	b := Load(writeBundle(t, "My-Plugin", files{"plugin.json": `{` + pluginSchema + `, "name": "My-Plugin"}`}), ScopeDir, Limits{})
	requireFinding(t, b, Error, "manifest.name", "plugin.json: name")
}

func TestIgnoredFieldNamesAreEscaped(t *testing.T) {
	b := loadFiles(t, files{"plugin.json": `{` + pluginSchema + `, "name": "demo", "x\u001b[2Jy": 1}`})
	requireClean(t, b)
	if len(b.Ignored) != 1 || strings.ContainsRune(b.Ignored[0], 0x1b) {
		t.Fatalf("Ignored = %q", b.Ignored)
	}
	requireFinding(t, b, Warning, "manifest.unknown-field", `plugin.json:["x\x1b[2Jy"]`)
}

func TestUnknownTopLevelFieldIsIgnored(t *testing.T) {
	b := loadFiles(t, files{"plugin.json": `{` + pluginSchema + `, "name": "demo", "tools": [{"name": "x"}], "mcpServers": {}}`})
	requireClean(t, b)
	if len(b.Ignored) != 2 || b.Ignored[0] != "tools" || b.Ignored[1] != "mcpServers" {
		t.Fatalf("Ignored = %q", b.Ignored)
	}
	if len(b.Components.Tools) != 0 {
		t.Fatalf("an unknown field was given meaning: %+v", b.Components.Tools)
	}
}

func TestMCPJSONRules(t *testing.T) {
	stdio := func(extra string) string {
		return mcpJSON(`{"s": {"type": "stdio", "command": "node"` + extra + `}}`)
	}
	remote := func(url, extra string) string {
		return mcpJSON(`{"r": {"type": "streamable-http", "url": "` + url + `"` + extra + `}}`)
	}
	runRuleCases(t, []ruleCase{
		{"not json", files{"mcp.json": `{"mcpServers": `}, Skip, "mcp.invalid-json", "mcp.json", ""},
		{"not a file", files{"mcp.json/": ""}, Skip, "mcp.not-a-file", "mcp.json", ""},
		{"not an object", files{"mcp.json": `[]`}, Skip, "mcp.top-level", "mcp.json", ""},
		{"schema missing", files{"mcp.json": `{"mcpServers": {}}`}, Skip, "mcp.schema", "mcp.json: $schema", ""},
		{"schema unsupported", files{"mcp.json": `{"$schema": "https://example.com/mcp.json", "mcpServers": {}}`}, Skip, "mcp.schema", "$schema", ""},
		{"schema other version", files{"mcp.json": `{"$schema": "https://agent-plugins.org/schemas/1.1.0/mcp.schema.json", "mcpServers": {}}`}, Skip, "mcp.version-mismatch", "$schema", ""},
		{"extra top-level field", files{"mcp.json": `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {}, "servers": {}}`}, Skip, "mcp.top-level", "mcp.json: servers", ""},
		{"servers missing", files{"mcp.json": `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json"}`}, Skip, "mcp.top-level", "mcpServers", ""},
		{"servers not an object", files{"mcp.json": mcpJSON(`[]`)}, Skip, "mcp.top-level", "mcpServers", ""},
		{"duplicate server", files{"mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "a"}, "s": {"type": "stdio", "command": "b"}}`)}, Error, "mcp.duplicate-server", "mcpServers.s", ""},
		{"server not an object", files{"mcp.json": mcpJSON(`{"s": "node"}`)}, Skip, "mcp.server-type", "mcpServers.s", ""},
		{"type missing", files{"mcp.json": mcpJSON(`{"s": {"command": "node"}}`)}, Skip, "mcp.server-type", "mcpServers.s", ""},
		{"type unknown", files{"mcp.json": mcpJSON(`{"s": {"type": "websocket", "url": "wss://x"}}`)}, Skip, "mcp.server-type", "mcpServers.s.type", ""},
		{"unknown field", files{"mcp.json": stdio(`, "timeout": 5`)}, Skip, "mcp.server-field", "mcpServers.s.timeout", ""},
		{"field of another variant", files{"mcp.json": stdio(`, "url": "https://x"`)}, Skip, "mcp.server-field", "mcpServers.s.url", ""},
		{"args not strings", files{"mcp.json": stdio(`, "args": [1]`)}, Skip, "mcp.server-field", "mcpServers.s.args", ""},
		{"env not strings", files{"mcp.json": stdio(`, "env": {"A": 1}`)}, Skip, "mcp.server-field", "mcpServers.s.env", ""},
		{"command missing", files{"mcp.json": mcpJSON(`{"s": {"type": "stdio"}}`)}, Skip, "mcp.server-field", "mcpServers.s.command", ""},
		{"url missing", files{"mcp.json": mcpJSON(`{"s": {"type": "sse"}}`)}, Skip, "mcp.server-field", "mcpServers.s.url", ""},
		{"command is a shell string", files{"mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "node server.js"}}`)}, Skip, "command.token", "mcpServers.s.command", ""},
		{"command escapes", files{"mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "../bin/server"}}`)}, Skip, "command.token", "command", ""},
		{"command dot-dot inside", files{"mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "./bin/../../x"}}`)}, Skip, "command.token", "command", ""},
		{"command placeholder", files{"mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "${PLUGIN_ROOT}/bin/server"}}`)}, Skip, "command.token", "command", ""},
		{"command relative without dot", files{"mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "bin/server"}}`)}, Skip, "command.token", "command", ""},
		{"command empty", files{"mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": ""}}`)}, Skip, "command.token", "command", ""},
		{"command not in bundle", files{"mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "./bin/none"}}`)}, Skip, "command.missing", "command", ""},
		{"command is a directory", files{"bin/": "", "mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "./bin"}}`)}, Skip, "command.missing", "command", ""},
		{"command not executable", files{"bin/server": "x", "mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "./bin/server"}}`)}, Warning, "command.not-executable", "command", ""},
		{"cwd bare relative", files{"mcp.json": stdio(`, "cwd": "data"`)}, Skip, "mcp.cwd", "mcpServers.s.cwd", ""},
		{"cwd empty", files{"mcp.json": stdio(`, "cwd": ""`)}, Skip, "mcp.cwd", "cwd", ""},
		{"cwd escapes root", files{"mcp.json": stdio(`, "cwd": "./a/../../x"`)}, Skip, "mcp.cwd", "cwd", ""},
		{"cwd escapes data", files{"mcp.json": stdio(`, "cwd": "${PLUGIN_DATA}/../other"`)}, Skip, "mcp.cwd", "cwd", ""},
		{"cwd placeholder prefix only", files{"mcp.json": stdio(`, "cwd": "${PLUGIN_ROOTX}"`)}, Skip, "mcp.cwd", "cwd", ""},
		{"cwd inner placeholder", files{"mcp.json": stdio(`, "cwd": "./x/${PLUGIN_DATA}"`)}, Skip, "mcp.cwd", "cwd", ""},
		{"env sets PLUGIN_ROOT", files{"mcp.json": stdio(`, "env": {"PLUGIN_ROOT": "/tmp"}`)}, Skip, "mcp.env-reserved", "env.PLUGIN_ROOT", ""},
		{"url not http", files{"mcp.json": remote("ftp://example.com/mcp", "")}, Skip, "mcp.url", "mcpServers.r.url", ""},
		{"url relative", files{"mcp.json": remote("/mcp", "")}, Skip, "mcp.url", "url", ""},
		{"url plain http", files{"mcp.json": remote("http://example.com/mcp", "")}, Skip, "mcp.url", "url", ""},
		{"url http localhost lookalike", files{"mcp.json": remote("http://localhost.example.com/mcp", "")}, Skip, "mcp.url", "url", ""},
		{"url userinfo", files{"mcp.json": remote("https://hunter2user@example.com/mcp", "")}, Error, "secret.url", "url", "hunter2user"},
		{"url fragment", files{"mcp.json": remote("https://example.com/mcp#frag", "")}, Skip, "mcp.url", "url", ""},
		{"header invalid name", files{"mcp.json": remote("https://example.com/mcp", `, "headers": {"X Bad": "v"}`)}, Skip, "mcp.header", "headers", ""},
		{"header invalid value", files{"mcp.json": remote("https://example.com/mcp", `, "headers": {"X-A": " padded"}`)}, Skip, "mcp.header", "headers.X-A", ""},
		{"header duplicate by case", files{"mcp.json": remote("https://example.com/mcp", `, "headers": {"X-A": "1", "x-a": "2"}`)}, Skip, "mcp.header", "headers", ""},
		{"headers not strings", files{"mcp.json": remote("https://example.com/mcp", `, "headers": {"X-A": 1}`)}, Skip, "mcp.server-field", "headers", ""},
	})
}

func TestCredentialRules(t *testing.T) {
	const gh = "ghp_0123456789abcdefABCDEF0123456789wxyz"
	const sk = "sk-proj-abcdefghijklmnopqrstuvwx"
	const aws = "AKIAABCDEFGHIJKLMNOP"
	const slack = "xoxb-123456789012-abcdefghij"
	const pat = "github_pat_11ABCDEFG0123456789_abcdefghijk"
	const pem = "-----BEGIN OPENSSH PRIVATE KEY-----"
	args := func(a string) string {
		return mcpJSON(`{"s": {"type": "stdio", "command": "node", "args": ["x", ` + a + `]}}`)
	}
	remote := func(headers string) string {
		return mcpJSON(`{"r": {"type": "streamable-http", "url": "https://api.example.com/mcp", "headers": ` + headers + `}}`)
	}
	hosts := pluginWithExt(`{"capabilities": {"network_hosts": ["api.example.com"]}}`)
	runRuleCases(t, []ruleCase{
		{"token flag with value", files{"mcp.json": args(`"--token=s3cr3tvalue"`)}, Error, "secret.argv", "mcpServers.s.args[1]", "s3cr3tvalue"},
		{"api key flag", files{"mcp.json": args(`"--api-key", "s3cr3tvalue"`)}, Error, "secret.argv", "args[1]", "s3cr3tvalue"},
		{"apikey flag", files{"mcp.json": args(`"--apikey=s3cr3tvalue"`)}, Error, "secret.argv", "args[1]", "s3cr3tvalue"},
		{"password flag", files{"mcp.json": args(`"--password", "hunter2hunter2"`)}, Error, "secret.argv", "args[1]", "hunter2hunter2"},
		{"secret flag", files{"mcp.json": args(`"--client-secret=s3cr3tvalue"`)}, Error, "secret.argv", "args[1]", "s3cr3tvalue"},
		{"auth flag", files{"mcp.json": args(`"--auth-token", "s3cr3tvalue"`)}, Error, "secret.argv", "args[1]", "s3cr3tvalue"},
		{"github token in args", files{"mcp.json": args(`"` + gh + `"`)}, Error, "secret.token", "args[1]", gh},
		{"openai key in args", files{"mcp.json": args(`"key=` + sk + `"`)}, Error, "secret.token", "args[1]", sk},
		{"aws key in env", files{"mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "node", "env": {"AWS_ID": "` + aws + `"}}}`)}, Error, "secret.token", "env.AWS_ID", aws},
		{"slack token in env", files{"mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "node", "env": {"SLACK": "` + slack + `"}}}`)}, Error, "secret.token", "env.SLACK", slack},
		{"fine-grained pat in args", files{"mcp.json": args(`"` + pat + `"`)}, Error, "secret.token", "args[1]", pat},
		{"pem block in env", files{"mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "node", "env": {"KEYDATA": "` + pem + `\\nMIIE"}}}`)}, Error, "secret.token", "env.KEYDATA", "MIIE"},
		{"credential env name", files{"mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "node", "env": {"GITHUB_TOKEN": "plainvalue42"}}}`)}, Error, "secret.env", "env.GITHUB_TOKEN", "plainvalue42"},
		{"authorization header", files{"plugin.json": hosts, "mcp.json": remote(`{"Authorization": "Bearer abcdef123456"}`)}, Error, "secret.header", "headers.Authorization", "abcdef123456"},
		{"cookie header any case", files{"plugin.json": hosts, "mcp.json": remote(`{"cookie": "session=abcdef123456"}`)}, Error, "secret.header", "headers.cookie", "abcdef123456"},
		{"proxy authorization header", files{"plugin.json": hosts, "mcp.json": remote(`{"Proxy-Authorization": "Basic abcdef123456"}`)}, Error, "secret.header", "headers.Proxy-Authorization", "abcdef123456"},
		{"api key header", files{"plugin.json": hosts, "mcp.json": remote(`{"X-Api-Key": "abcdef123456"}`)}, Error, "secret.header", "headers.X-Api-Key", "abcdef123456"},
		{"token in header value", files{"plugin.json": hosts, "mcp.json": remote(`{"X-Tenant": "` + gh + `"}`)}, Error, "secret.token", "headers.X-Tenant", gh},
		{"credential in url query", files{"plugin.json": hosts, "mcp.json": mcpJSON(`{"r": {"type": "sse", "url": "https://api.example.com/sse?api_key=abcdef123456"}}`)}, Error, "secret.url", "mcpServers.r.url", "abcdef123456"},
		{"token pasted as env_from source", files{"mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "node"}}`), "plugin.json": pluginWithExt(`{"mcp": {"s": {"env_from": {"GH": "` + gh + `"}}}}`)}, Error, "secret.token", "env_from.GH", gh},
		{"token pasted as bearer variable", files{"mcp.json": mcpJSON(`{"r": {"type": "sse", "url": "https://api.example.com/sse"}}`), "plugin.json": pluginWithExt(`{"capabilities": {"network_hosts": ["api.example.com"]}, "mcp": {"r": {"bearer_token_env_var": "` + sk + `"}}}`)}, Error, "secret.token", "bearer_token_env_var", sk},
		{"token pasted as env header variable", files{"mcp.json": mcpJSON(`{"r": {"type": "sse", "url": "https://api.example.com/sse"}}`), "plugin.json": pluginWithExt(`{"capabilities": {"network_hosts": ["api.example.com"]}, "mcp": {"r": {"env_headers": {"X-Key": "` + gh + `"}}}}`)}, Error, "secret.token", "env_headers.X-Key", gh},
		{"token in tool args", files{"greet.py": "", "plugin.json": pluginWithExt(`{"tools": [{"name": "t", "command": "python3", "args": ["--token", "abcdef123456"]}]}`)}, Error, "secret.argv", "tools[0].args[0]", "abcdef123456"},
		{"token in hook args", files{"plugin.json": pluginWithExt(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "args": ["` + gh + `"]}]}]}}`)}, Error, "secret.token", "hooks.Stop[0].hooks[0].args[0]", gh},
		{"gitlab token in args", files{"mcp.json": args(`"glpat-AbCdEfGhIjKlMnOpQrStUv"`)}, Error, "secret.token", "args[1]", "glpat-AbCdEfGhIjKlMnOpQrStUv"},
		{"npm token in env", files{"mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "node", "env": {"NPMRC": "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789"}}}`)}, Error, "secret.token", "env.NPMRC", "npm_abcdefghijklmnopqrstuvwxyz0123456789"},
		{"hugging face token in args", files{"mcp.json": args(`"hf_abcdefghijklmnopqrstuvwxyzABCDEFGH"`)}, Error, "secret.token", "args[1]", "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH"},
		{"google api key in args", files{"mcp.json": args(`"key=AIzaSyA-abcdefghijklmnopqrstuvwxyz01234"`)}, Error, "secret.token", "args[1]", "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234"},
		{"stripe key in env", files{"mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "node", "env": {"STRIPE": "sk_live_abcdefghijklmnop1234"}}}`)}, Error, "secret.token", "env.STRIPE", "sk_live_abcdefghijklmnop1234"},
		{"slack webhook in env", files{"mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "node", "env": {"WEBHOOK": "https://hooks.slack.com/services/T0123ABCD/B0123ABCD/abcdefghijklmnopqrstuvwx"}}}`)}, Error, "secret.token", "env.WEBHOOK", "abcdefghijklmnopqrstuvwx"},
		{"url password in args", files{"mcp.json": args(`"postgresql://app:pgpass9876@db.internal:5432/app"`)}, Error, "secret.token", "args[1]", "pgpass9876"},
		{"url password holding an at sign", files{"mcp.json": args(`"https://bot:p@ss-word-77@api.example.com/"`)}, Error, "secret.token", "args[1]", "ss-word-77"},
		{"url password in env", files{"mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "node", "env": {"DATABASE_URL": "mysql://root:rootpw4321@127.0.0.1/db"}}}`)}, Error, "secret.token", "env.DATABASE_URL", "rootpw4321"},
		{"url password in a hook's shell command", files{"plugin.json": pluginWithExt(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "curl -s https://bot:hookpass55@hooks.example.com/x"}]}]}}`)}, Error, "secret.token", "hooks.Stop[0].hooks[0].command", "hookpass55"},
	})
}

func TestCredentialLookalikesAreAllowed(t *testing.T) {
	b := loadFiles(t, withPlugin(files{"mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "node",
		"args": ["--task-runner", "desk-top", "--author", "me", "--tokenizer=bpe", "--format=json", "sk-short",
			"ssh://git@github.com/acme/x.git", "https://api.example.com:8443/a@b", "https://user:@host/",
			"postgresql://app:${DB_PASSWORD}@db/app", "postgres://app:$PGPASSWORD@db/app", "user:pass@host", "npm_config_cache", "hf_hub", "https://hooks.slack.com/services/${SLACK_PATH}"],
		"env": {"TOKEN_FILE": "${PLUGIN_DATA}/token", "MODE": "fast", "GITHUB_TOKEN": ""}}}`)}))
	requireClean(t, b)
}

func TestEnvironmentRules(t *testing.T) {
	env := func(k string) string {
		return mcpJSON(`{"s": {"type": "stdio", "command": "node", "env": {"` + k + `": "v"}}}`)
	}
	envFrom := func(dest, src string) files {
		return files{
			"mcp.json":    mcpJSON(`{"s": {"type": "stdio", "command": "node"}}`),
			"plugin.json": pluginWithExt(`{"mcp": {"s": {"env_from": {"` + dest + `": "` + src + `"}}}}`),
		}
	}
	var cases []ruleCase
	for _, k := range []string{"LD_PRELOAD", "ld_library_path", "DYLD_INSERT_LIBRARIES", "NODE_OPTIONS", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PERL5OPT", "PERL5LIB", "RUBYOPT", "BASH_ENV", "ENV", "GIT_SSH_COMMAND", "HTTPS_PROXY", "http_proxy", "PATH", "BUNDLECTL_HOME", "bundlectl_hook_depth"} {
		cases = append(cases, ruleCase{"env " + k, files{"mcp.json": env(k)}, Error, "env.loader", "env." + k, ""})
		cases = append(cases, ruleCase{"env_from " + k, envFrom(k, "HOST_VAR"), Error, "env.loader", "env_from." + k, ""})
	}
	cases = append(cases,
		ruleCase{"env lowercase plugin root", files{"mcp.json": env("plugin_root")}, Error, "env.reserved", "env.plugin_root", ""},
		ruleCase{"env_from PLUGIN_DATA", envFrom("PLUGIN_DATA", "HOME"), Error, "env.reserved", "env_from.PLUGIN_DATA", ""},
		ruleCase{"env_from bad source", envFrom("API_KEY", "1BAD"), Error, "env.name", "env_from.API_KEY", ""},
		ruleCase{"env_from bad dest", envFrom("A-B", "HOME"), Error, "env.name", "env_from", ""},
		ruleCase{"env bad name", files{"mcp.json": env("A=B")}, Error, "env.name", "env", ""},
		ruleCase{"env and env_from conflict", files{
			"mcp.json":    mcpJSON(`{"s": {"type": "stdio", "command": "node", "env": {"X": "1"}}}`),
			"plugin.json": pluginWithExt(`{"mcp": {"s": {"env_from": {"X": "HOST_X"}}}}`),
		}, Error, "env.conflict", "env_from.X", ""},
	)
	runRuleCases(t, cases)
}

func TestMCPOptionRules(t *testing.T) {
	stdio := mcpJSON(`{"s": {"type": "stdio", "command": "node"}}`)
	remote := mcpJSON(`{"r": {"type": "streamable-http", "url": "https://api.example.com/mcp", "headers": {"X-Team": "a"}}}`)
	opts := func(o string) string {
		if strings.Contains(o, `"r"`) {
			return pluginWithExt(`{"capabilities": {"network_hosts": ["api.example.com"]}, "mcp": ` + o + `}`)
		}
		return pluginWithExt(`{"mcp": ` + o + `}`)
	}
	runRuleCases(t, []ruleCase{
		{"unknown server", files{"mcp.json": stdio, "plugin.json": opts(`{"t": {"timeout_sec": 5}}`)}, Error, "mcp.option-unknown-server", "mcp.t", ""},
		{"options without mcp.json", files{"plugin.json": opts(`{"s": {"timeout_sec": 5}}`)}, Error, "mcp.option-unknown-server", "mcp.s", ""},
		{"env_from on remote", files{"mcp.json": remote, "plugin.json": opts(`{"r": {"env_from": {"A": "B"}}}`)}, Error, "mcp.option-transport", "dev.bundlectl.mcp.r.env_from", ""},
		{"bearer on stdio", files{"mcp.json": stdio, "plugin.json": opts(`{"s": {"bearer_token_env_var": "TOKEN"}}`)}, Error, "mcp.option-transport", "dev.bundlectl.mcp.s.bearer_token_env_var", ""},
		{"bearer bad name", files{"mcp.json": remote, "plugin.json": opts(`{"r": {"bearer_token_env_var": "NOT VALID"}}`)}, Error, "env.name", "bearer_token_env_var", ""},
		{"env header bad variable", files{"mcp.json": remote, "plugin.json": opts(`{"r": {"env_headers": {"X-Key": "1X"}}}`)}, Error, "env.name", "env_headers.X-Key", ""},
		{"env header bad name", files{"mcp.json": remote, "plugin.json": opts(`{"r": {"env_headers": {"X Key": "KEY"}}}`)}, Skip, "mcp.header", "env_headers", ""},
		{"env header collides with literal", files{"mcp.json": remote, "plugin.json": opts(`{"r": {"env_headers": {"x-team": "TEAM"}}}`)}, Skip, "mcp.header", "env_headers.x-team", ""},
		{"bearer and authorization header", files{"mcp.json": remote, "plugin.json": opts(`{"r": {"bearer_token_env_var": "T", "env_headers": {"Authorization": "A"}}}`)}, Skip, "mcp.header", "env_headers.Authorization", ""},
		{"timeout zero", files{"mcp.json": stdio, "plugin.json": opts(`{"s": {"timeout_sec": 0}}`)}, Skip, "mcp.timeout", "mcp.s.timeout_sec", ""},
		{"timeout too long", files{"mcp.json": stdio, "plugin.json": opts(`{"s": {"timeout_sec": 601}}`)}, Skip, "mcp.timeout", "timeout_sec", ""},
		{"empty tool filter", files{"mcp.json": stdio, "plugin.json": opts(`{"s": {"tools": {"include": [""]}}}`)}, Skip, "mcp.tools-filter", "plugin.json: extensions.dev.bundlectl.mcp.s.tools.include[0]", ""},
		{"unknown option", files{"mcp.json": stdio, "plugin.json": opts(`{"s": {"timeout": 5}}`)}, Error, "extension.unknown-field", "mcp.s.timeout", ""},
		{"unknown filter key", files{"mcp.json": stdio, "plugin.json": opts(`{"s": {"tools": {"allow": []}}}`)}, Error, "extension.unknown-field", "tools.allow", ""},
	})
	// An option for a server that mcp.json declares but skipped is not an error.
	b := loadFiles(t, files{"mcp.json": mcpJSON(`{"s": {"type": "stdio", "command": "a b"}}`), "plugin.json": opts(`{"s": {"timeout_sec": 5}}`)})
	requireFinding(t, b, Skip, "command.token", "mcpServers.s.command")
	requireNoFinding(t, b, "mcp.option-unknown-server")
	if b.Rejected() {
		t.Fatalf("rejected:%s", dumpFindings(b))
	}
}

func TestNetworkHostRules(t *testing.T) {
	servers := mcpJSON(`{
		"a": {"type": "streamable-http", "url": "https://API.Example.com:8443/mcp"},
		"b": {"type": "sse", "url": "http://[::1]:3000/sse"},
		"c": {"type": "streamable-http", "url": "http://localhost:9000/mcp"},
		"d": {"type": "stdio", "command": "node"}}`)
	hosts := func(h string) string {
		return pluginWithExt(`{"capabilities": {"network_hosts": [` + h + `]}}`)
	}
	b := loadFiles(t, files{"mcp.json": servers, "plugin.json": hosts(`"localhost", "api.example.com", "[::1]"`)})
	requireClean(t, b)
	if got := strings.Join(b.Permissions.NetworkHosts, ","); got != "::1,api.example.com,localhost" {
		t.Fatalf("NetworkHosts = %q", got)
	}
	runRuleCases(t, []ruleCase{
		{"host missing", files{"mcp.json": servers, "plugin.json": hosts(`"localhost", "::1"`)}, Error, "capabilities.network-hosts", "capabilities.network_hosts", ""},
		{"extra host", files{"mcp.json": servers, "plugin.json": hosts(`"localhost", "::1", "api.example.com", "evil.example.net"`)}, Error, "capabilities.network-hosts", "network_hosts[3]", ""},
		{"host with scheme", files{"mcp.json": servers, "plugin.json": hosts(`"https://api.example.com"`)}, Error, "capabilities.host", "network_hosts[0]", ""},
		{"host with port", files{"mcp.json": servers, "plugin.json": hosts(`"api.example.com:8443"`)}, Error, "capabilities.host", "network_hosts[0]", ""},
		{"wildcard host", files{"mcp.json": servers, "plugin.json": hosts(`"*.example.com"`)}, Error, "capabilities.host", "network_hosts[0]", ""},
	})
	// Undeclared, the host set is derived from the endpoints, not required.
	b = loadFiles(t, withPlugin(files{"mcp.json": servers}))
	requireClean(t, b)
	if got := strings.Join(b.Permissions.NetworkHosts, ","); got != "::1,api.example.com,localhost" || b.Permissions.NetworkDeclared {
		t.Fatalf("derived NetworkHosts = %q (declared %v)", got, b.Permissions.NetworkDeclared)
	}
}

func TestExtensionRules(t *testing.T) {
	tool := func(fields string) files {
		return files{"run.sh*": "#!/bin/sh\n", "plugin.json": pluginWithExt(`{"tools": [{"name": "t", "command": "./run.sh"` + fields + `}]}`)}
	}
	hook := func(event, group string) files {
		return files{"plugin.json": pluginWithExt(`{"hooks": {"` + event + `": [` + group + `]}}`)}
	}
	cmdHook := `{"type": "command", "command": "true"}`
	runRuleCases(t, []ruleCase{
		{"unknown key", files{"plugin.json": pluginWithExt(`{"toolz": []}`)}, Error, "extension.unknown-field", "dev.bundlectl.toolz", ""},
		{"unknown tool key", tool(`, "nme": "x"`), Error, "extension.unknown-field", "tools[0].nme", ""},
		{"unknown capability", files{"plugin.json": pluginWithExt(`{"capabilities": {"network": true}}`)}, Error, "extension.unknown-field", "capabilities.network", ""},
		{"tools not an array", files{"plugin.json": pluginWithExt(`{"tools": {}}`)}, Error, "extension.type", "dev.bundlectl.tools", ""},
		{"timeout as string", tool(`, "timeout_sec": "10"`), Error, "extension.type", "tools[0].timeout_sec", ""},
		{"timeout fractional", tool(`, "timeout_sec": 1.5`), Error, "extension.type", "tools[0].timeout_sec", ""},
		{"lifecycle not bool", files{"plugin.json": pluginWithExt(`{"capabilities": {"lifecycle_mutation": "yes"}}`)}, Error, "extension.type", "lifecycle_mutation", ""},
		{"tool name uppercase", files{"plugin.json": pluginWithExt(`{"tools": [{"name": "Greet", "command": "true"}]}`)}, Skip, "tool.name", "tools[0].name", ""},
		{"tool name missing", files{"plugin.json": pluginWithExt(`{"tools": [{"command": "true"}]}`)}, Skip, "tool.name", "tools[0].name", ""},
		{"tool duplicate", files{"plugin.json": pluginWithExt(`{"tools": [{"name": "t", "command": "true"}, {"name": "t", "command": "false"}]}`)}, Error, "tool.duplicate", "tools[1].name", ""},
		{"tool command shell", files{"plugin.json": pluginWithExt(`{"tools": [{"name": "t", "command": "sh -c x"}]}`)}, Skip, "command.token", "tools[0].command", ""},
		{"tool command missing file", files{"plugin.json": pluginWithExt(`{"tools": [{"name": "t", "command": "./nope.sh"}]}`)}, Skip, "command.missing", "tools[0].command", ""},
		{"tool command not executable", files{"run.sh": "", "plugin.json": pluginWithExt(`{"tools": [{"name": "t", "command": "./run.sh"}]}`)}, Warning, "command.not-executable", "tools[0].command", ""},
		{"tool timeout zero", tool(`, "timeout_sec": 0`), Skip, "tool.timeout", "tools[0].timeout_sec", ""},
		{"tool timeout too long", tool(`, "timeout_sec": 601`), Skip, "tool.timeout", "tools[0].timeout_sec", ""},
		{"params not a schema", tool(`, "params": {"type": 5}`), Skip, "tool.params", "tools[0].params", ""},
		{"params not an object", tool(`, "params": "object"`), Skip, "tool.params", "tools[0].params", ""},
		{"params remote ref", tool(`, "params": {"$ref": "https://schemas.example.com/input.json"}`), Skip, "tool.params", "tools[0].params", ""},
		{"params file ref", tool(`, "params": {"$ref": "file:///etc/passwd"}`), Skip, "tool.params", "tools[0].params", ""},
		{"params unknown metaschema", tool(`, "params": {"$schema": "https://schemas.example.com/meta", "type": "object"}`), Skip, "tool.params", "tools[0].params", ""},
		{"hook unknown event", hook("OnSave", `{"hooks": [`+cmdHook+`]}`), Warning, "hook.event-unknown", "hooks.OnSave", ""},
		{"hook unknown event, no groups", hook("OnSave", ""), Warning, "hook.event-unknown", "hooks.OnSave", ""},
		{"hook bad matcher", hook("PreToolUse", `{"matcher": "(", "hooks": [`+cmdHook+`]}`), Skip, "hook.matcher", "hooks.PreToolUse[0].hooks[0].matcher", ""},
		{"hook prompt type", hook("Stop", `{"hooks": [{"type": "prompt", "command": "true"}]}`), Skip, "hook.type", "hooks.Stop[0].hooks[0].type", ""},
		{"hook type missing", hook("Stop", `{"hooks": [{"command": "true"}]}`), Skip, "hook.type", "hooks.Stop[0].hooks[0]", ""},
		{"hook timeout zero", hook("Stop", `{"hooks": [{"type": "command", "command": "true", "timeout": 0}]}`), Skip, "hook.timeout", "hooks.Stop[0].hooks[0].timeout", ""},
		{"hook group without hooks", hook("Stop", `{"matcher": "x"}`), Skip, "hook.shape", "hooks.Stop[0]", ""},
		{"hook command shell", hook("Stop", `{"hooks": [{"type": "command", "command": "rm -rf /"}]}`), Skip, "command.token", "hooks.Stop[0].hooks[0].command", ""},
		{"hook unknown key", hook("Stop", `{"hooks": [{"type": "command", "command": "true", "async": true}]}`), Error, "extension.unknown-field", "hooks.Stop[0].hooks[0].async", ""},
		{"when unknown os", files{"plugin.json": pluginWithExt(`{"when": {"os": ["linux", "freebsd"]}}`)}, Error, "when.os", "when.os[1]", ""},
		{"when binary path", files{"plugin.json": pluginWithExt(`{"when": {"binaries": ["/usr/bin/git"]}}`)}, Error, "when.binary", "when.binaries[0]", ""},
		{"lsp bad command", files{"plugin.json": pluginWithExt(`{"lsp": {"gopls": {"command": "go run x"}}}`)}, Skip, "command.token", "lsp.gopls.command", ""},
		{"lsp bad name", files{"plugin.json": pluginWithExt(`{"lsp": {"Go_LS": {"command": "gopls"}}}`)}, Skip, "lsp.name", "lsp.Go_LS", ""},
		{"native escapes", files{"plugin.json": pluginWithExt(`{"native": {"x": {"path": "../x.so"}}}`)}, Error, "inactive.native", "native.x.path", ""},
		{"native missing", files{"plugin.json": pluginWithExt(`{"native": {"x": {"path": "./lib/x.so"}}}`)}, Error, "inactive.native", "native.x.path", ""},
		{"control character in tool description", files{"plugin.json": pluginWithExt(`{"tools": [{"name": "t", "command": "true", "description": "a\u0007b"}]}`)}, Error, "text.control", "tools[0].description", ""},
		{"bidi in args", files{"plugin.json": pluginWithExt(`{"tools": [{"name": "t", "command": "true", "args": ["\u2066x"]}]}`)}, Error, "text.bidi", "tools[0].args[0]", ""},
	})
}

func TestOtherNamespacesAreNotValidated(t *testing.T) {
	b := loadFiles(t, files{"plugin.json": `{` + pluginSchema + `, "name": "demo", "extensions": {
		"com.example.client": {"tools": 5, "hooks": "x", "secret": "--token=abc"},
		"dev.bundlectl.other": {"anything": [null]}}}`})
	requireClean(t, b)
	if len(b.Report.Findings) != 0 {
		t.Fatalf("findings:%s", dumpFindings(b))
	}
}

func TestInactiveDeclarationsBlock(t *testing.T) {
	b := loadFiles(t, files{"lib/x.so": "", "plugin.json": pluginWithExt(`{
		"lsp": {"gopls": {"command": "gopls", "args": ["serve"], "languages": ["go"]}},
		"native": {"fast": {"path": "./lib/x.so"}},
		"capabilities": {"filesystem_roots": ["~/src"], "lifecycle_mutation": true}}`)})
	requireClean(t, b)
	if !b.Blocked() || len(b.Inactive) != 3 {
		t.Fatalf("Inactive = %+v", b.Inactive)
	}
	// A language server is a process bundlectl runs, not an inactive surface.
	if len(b.Components.LSP) != 1 || b.Components.LSP[0].Command != "gopls" {
		t.Fatalf("LSP = %+v", b.Components.LSP)
	}
	want := map[string]string{
		SurfaceNative:            `{"path":"./lib/x.so"}`,
		SurfaceFilesystemRoots:   `["~/src"]`,
		SurfaceLifecycleMutation: `true`,
	}
	for _, in := range b.Inactive {
		if string(in.Spec) != want[in.Surface] {
			t.Errorf("%s spec = %s, want %s", in.Surface, in.Spec, want[in.Surface])
		}
	}
	n := 0
	for _, f := range b.Report.Findings {
		if f.Rule == "inactive.surface" && f.Severity == Warning {
			n++
		}
	}
	if n != 3 {
		t.Fatalf("want a warning per inactive surface:%s", dumpFindings(b))
	}
	for _, p := range []string{"dev.bundlectl.native.fast", "dev.bundlectl.capabilities.filesystem_roots", "dev.bundlectl.capabilities.lifecycle_mutation"} {
		requireFinding(t, b, Warning, "inactive.surface", p)
	}
}

func TestHookFlattening(t *testing.T) {
	b := loadFiles(t, files{"g*": "", "plugin.json": pluginWithExt(`{"hooks": {
		"Stop": [{"hooks": [{"type": "command", "command": "./g", "args": ["1"]}]}],
		"PreToolUse": [
			{"matcher": "Bash|Edit", "hooks": [{"type": "command", "command": "./g", "args": ["2"]}, {"type": "command", "command": "./g", "args": ["3"], "timeout": 600}]},
			{"matcher": "*", "hooks": [{"type": "command", "command": "./g", "args": ["4"]}]}]}}`)})
	requireClean(t, b)
	var order []string
	for _, h := range b.Components.Hooks {
		order = append(order, h.Event+":"+h.Matcher+":"+h.Args[0])
	}
	if got := strings.Join(order, " "); got != "Stop::1 PreToolUse:Bash|Edit:2 PreToolUse:Bash|Edit:3 PreToolUse:*:4" {
		t.Fatalf("order = %s", got)
	}
	if b.Components.Hooks[2].TimeoutSec != 600 || !strings.HasSuffix(b.Components.Hooks[2].Source, "hooks.PreToolUse[0].hooks[1]") {
		t.Fatalf("hook = %+v", b.Components.Hooks[2])
	}
}

func TestValidVariantsAreClean(t *testing.T) {
	for name, fs := range map[string]files{
		"cwd forms": {"mcp.json": mcpJSON(`{
			"a": {"type": "stdio", "command": "node", "cwd": "./"},
			"b": {"type": "stdio", "command": "node", "cwd": "./x/../y"},
			"c": {"type": "stdio", "command": "node", "cwd": "${PLUGIN_ROOT}"},
			"d": {"type": "stdio", "command": "node", "cwd": "${PLUGIN_DATA}/cache"}}`)},
		"loopback http": {"plugin.json": pluginWithExt(`{"capabilities": {"network_hosts": ["127.0.0.2", "localhost", "::1"]}}`), "mcp.json": mcpJSON(`{
			"a": {"type": "streamable-http", "url": "http://127.0.0.2:1/mcp"},
			"b": {"type": "sse", "url": "http://localhost/sse"},
			"c": {"type": "sse", "url": "http://[::1]/sse"}}`)},
		"placeholder in url is literal": {"plugin.json": pluginWithExt(`{"capabilities": {"network_hosts": ["example.com"]}}`), "mcp.json": mcpJSON(`{
			"a": {"type": "streamable-http", "url": "https://example.com/${PLUGIN_ROOT}/mcp"}}`)},
		"empty servers":       {"mcp.json": mcpJSON(`{}`)},
		"empty extension":     {"plugin.json": pluginWithExt(`{}`)},
		"params boolean ok":   {"plugin.json": pluginWithExt(`{"tools": [{"name": "t", "command": "true", "params": {"type": "object", "additionalProperties": false}}]}`)},
		"params draft-07":     {"plugin.json": pluginWithExt(`{"tools": [{"name": "t", "command": "true", "params": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "definitions": {"x": {"type": "string"}}, "properties": {"a": {"$ref": "#/definitions/x"}}}}]}`)},
		"description newline": {"plugin.json": `{` + pluginSchema + `, "name": "demo", "description": "line one\nline two\ttabbed"}`},
	} {
		t.Run(name, func(t *testing.T) {
			requireClean(t, loadFiles(t, withPlugin(fs)))
		})
	}
}

func TestExpandPlaceholders(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"${PLUGIN_ROOT}/bin", "/r/bin"},
		{"${PLUGIN_DATA}", "/d"},
		{"a${PLUGIN_ROOT}b${PLUGIN_DATA}c${PLUGIN_ROOT}", "a/rb/dc/r"},
		{"${PLUGIN_ROOTX}", "${PLUGIN_ROOTX}"},
		{"${PLUGIN_ROOT}X", "/rX"},
		{"${HOME} $PLUGIN_ROOT ${plugin_root} ${PLUGIN_ROOT", "${HOME} $PLUGIN_ROOT ${plugin_root} ${PLUGIN_ROOT"},
		{"", ""},
	} {
		if got := ExpandPlaceholders(tc.in, "/r", "/d"); got != tc.want {
			t.Errorf("ExpandPlaceholders(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// One pass: text introduced by a replacement is not expanded again.
	if got := ExpandPlaceholders("${PLUGIN_ROOT}", "${PLUGIN_DATA}", "/d"); got != "${PLUGIN_DATA}" {
		t.Errorf("expansion is recursive: %q", got)
	}
}

// TestNoFindingEchoesASecret puts one credential into every field where a
// careless author might paste one and checks that no finding repeats it.
func TestNoFindingEchoesASecret(t *testing.T) {
	const secret = "ghp_ZZZZsecretZZZZ0123456789abcdefABCDEF"
	b := loadFiles(t, files{
		"plugin.json": pluginWithExt(`{
			"capabilities": {"network_hosts": ["api.example.com"]},
			"tools": [{"name": "t", "command": "` + secret + `", "args": ["--token=` + secret + `", "` + secret + `"]}],
			"hooks": {"Stop": [{"matcher": "` + secret + `", "hooks": [{"type": "command", "command": "./` + secret + `", "args": ["--password", "` + secret + `"]}]}]},
			"mcp": {
				"s": {"env_from": {"X": "` + secret + `"}},
				"r": {"bearer_token_env_var": "` + secret + `", "env_headers": {"X-A": "` + secret + `"}}}}`),
		"mcp.json": mcpJSON(`{
			"s": {"type": "stdio", "command": "node", "args": ["--api-key", "` + secret + `", "--secret=` + secret + `"],
			      "env": {"GITHUB_TOKEN": "` + secret + `", "OTHER": "x` + secret + `"}, "cwd": "./` + secret + `"},
			"r": {"type": "streamable-http", "url": "https://user:` + secret + `@api.example.com/mcp?token=` + secret + `",
			      "headers": {"Authorization": "Bearer ` + secret + `", "X-B": "` + secret + `"}},
			"q": {"type": "sse", "url": "https://api.example.com/mcp?token=` + secret + `"}}`),
		"skills/s/SKILL.md": "---\nname: s\ndescription: \"" + secret + "\\u0007\"\nmetadata:\n  token: " + secret + "\n---\n",
	})
	if !b.Rejected() {
		t.Fatalf("not rejected:%s", dumpFindings(b))
	}
	requireNoSecret(t, b, secret)
	requireNoSecret(t, b, "ZZZZsecretZZZZ")
	for _, rule := range []string{"secret.argv", "secret.token", "secret.header", "secret.url"} {
		requireFinding(t, b, Error, rule, "")
	}
}

// TestCheckModelAppliesToTOMLModels builds the model a plugin.toml reader
// produces and checks that the same rules fire, with plugin.toml paths.
func TestCheckModelAppliesToTOMLModels(t *testing.T) {
	dir := writeBundle(t, "demo", files{"hooks/guard*": "", "mcp/server.js": ""})
	tree, rep := Walk(dir, Limits{})
	if len(rep.Findings) != 0 {
		t.Fatalf("walk: %v", rep.Findings)
	}
	b := &Bundle{Name: "demo", Format: FormatTOML, Tree: tree}
	b.Components.Tools = []Tool{
		{Name: "greet", Command: "python3", Params: []byte(`{ "type" : "object", "properties": {"b": {}, "a": {}} }`)},
		{Name: "bad", Command: "./missing"},
	}
	b.Components.Hooks = []Hook{{Event: "PreToolUse", Matcher: "Bash", Command: "./hooks/guard", TimeoutSec: 10}}
	b.Components.MCP = []MCPServer{
		{Name: "local", Transport: TransportStdio, Command: "node", Args: []string{"${PLUGIN_ROOT}/mcp/server.js", "--token=abc"}, Cwd: "./mcp",
			Env: map[string]string{"NODE_OPTIONS": "--require x"}},
		{Name: "api", Transport: TransportStreamableHTTP, URL: "https://api.example.com/mcp", EnvFrom: map[string]string{"A": "B"}},
	}
	b.Permissions.FilesystemRoots = []string{"/srv"}
	checkModel(b)
	requireFinding(t, b, Skip, "command.missing", "plugin.toml: tools[1].command")
	requireFinding(t, b, Error, "secret.argv", "plugin.toml: mcp_servers.local.args[1]")
	requireFinding(t, b, Error, "env.loader", "plugin.toml: mcp_servers.local.env.NODE_OPTIONS")
	requireFinding(t, b, Error, "mcp.option-transport", "plugin.toml: mcp_servers.api.env_from")
	if got := strings.Join(b.Permissions.NetworkHosts, ","); got != "api.example.com" {
		t.Errorf("derived network hosts = %q", got)
	}
	requireFinding(t, b, Warning, "inactive.surface", "plugin.toml: capabilities.filesystem_roots")
	if len(b.Components.Tools) != 1 || string(b.Components.Tools[0].Params) != `{"properties":{"a":{},"b":{}},"type":"object"}` {
		t.Fatalf("tools: %+v", b.Components.Tools)
	}
	if len(b.Components.Hooks) != 1 || len(b.Inactive) != 1 || b.Inactive[0].Surface != SurfaceFilesystemRoots {
		t.Fatalf("hooks %+v inactive %+v", b.Components.Hooks, b.Inactive)
	}
	// A reader that records the inactive declaration itself is not doubled.
	checkInactive(b)
	if len(b.Inactive) != 1 {
		t.Fatalf("inactive doubled: %+v", b.Inactive)
	}
}

// TestRedactCredentialsJSON: what the secret rules flag is redacted from a
// refused bundle's components: values under credential names (not
// references), credential flags' values, URL credentials, token shapes.
func TestRedactCredentialsJSON(t *testing.T) {
	in := `{"env":{"API_TOKEN":"hunter2","HOME_DIR":"/x","GITHUB_TOKEN":"${GITHUB_TOKEN}"},"headers":{"Authorization":"Bearer hunter7","Cookie":"s=hunter8"},` +
		`"args":["--token","hunter3","--password=hunter4","-v","ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"],` +
		`"url":"https://me:hunter5@x.example.com/mcp?x=1","other":"https://x.example.com/?token=hunter6"}`
	out := string(RedactCredentialsJSON([]byte(in)))
	for _, secret := range []string{"hunter2", "hunter3", "hunter4", "hunter5", "hunter6", "hunter7", "hunter8", "ghp_"} {
		if strings.Contains(out, secret) {
			t.Errorf("%s is in %s", secret, out)
		}
	}
	for _, kept := range []string{`"HOME_DIR":"/x"`, `"GITHUB_TOKEN":"${GITHUB_TOKEN}"`, `"-v"`, `https://x.example.com/mcp [credentials redacted]`} {
		if !strings.Contains(out, kept) {
			t.Errorf("%s is not in %s", kept, out)
		}
	}
	// A URL that a parser reads or not, in a value or in prose or a shell
	// line, loses its password.
	for _, in := range []string{
		`["https://me:hunter9@x.example.com/x y"]`,
		`{"command":"curl https://bot:p@hunter10@h.example.com/ -d x"}`,
		`not json: postgres://app:hunter11@db/app`,
		// A host that percent-escapes an ASCII character, which Go's
		// url.Parse refuses, as JavaScript's URL reads it.
		`{"url":"https://c%41.example.com/mcp?token=hunter12"}`,
	} {
		out := string(RedactCredentialsJSON([]byte(in)))
		if strings.Contains(out, "hunter") || !strings.Contains(out, "redacted]") {
			t.Errorf("RedactCredentialsJSON(%s) = %s", in, out)
		}
	}
	if out := RedactTokens("postgres://app:${DB_PASSWORD}@db/app and https://h:8080/a@b"); out != "postgres://app:${DB_PASSWORD}@db/app and https://h:8080/a@b" {
		t.Errorf("a referenced password or a path's @ was redacted: %s", out)
	}
}
