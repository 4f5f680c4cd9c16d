package agenttest

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// remoteMCP is a streamable-HTTP MCP server on 127.0.0.1 offering one tool.
// It records the headers of every request, so that a test can see which
// credential the host sent.
type remoteMCP struct {
	URL    string
	answer string
	mu     sync.Mutex
	seen   []remoteRequest
}

type remoteRequest struct {
	Method string // the JSON-RPC method ("" for a GET or DELETE)
	Header http.Header
}

func newRemoteMCP(t testing.TB, answer string) *remoteMCP {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &remoteMCP{URL: "http://" + ln.Addr().String() + "/mcp", answer: answer}
	srv := &http.Server{Handler: s}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

func (s *remoteMCP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if r.Method == http.MethodPost {
		json.NewDecoder(r.Body).Decode(&msg)
	}
	s.mu.Lock()
	s.seen = append(s.seen, remoteRequest{Method: msg.Method, Header: r.Header.Clone()})
	s.mu.Unlock()
	switch {
	case r.Method == http.MethodDelete:
		return
	case r.Method != http.MethodPost:
		// No server-initiated stream.
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	case len(msg.ID) == 0:
		w.WriteHeader(http.StatusAccepted) // a notification
		return
	}
	var result any
	switch msg.Method {
	case "initialize":
		v := msg.Params.ProtocolVersion
		if v == "" {
			v = "2025-03-26"
		}
		result = map[string]any{"protocolVersion": v, "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "agenttest-remote", "version": "1.0.0"}}
	case "tools/list":
		result = map[string]any{"tools": []any{map[string]any{"name": "lookup", "description": "Looks a word up.",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string"}}}}}}
	case "tools/call":
		result = map[string]any{"content": []any{map[string]any{"type": "text", "text": s.answer}}}
	default:
		result = map[string]any{}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
}

// requests returns what the server has seen so far.
func (s *remoteMCP) requests() []remoteRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]remoteRequest(nil), s.seen...)
}

// headerValues lists the distinct values header had on the server's
// JSON-RPC requests.
func (s *remoteMCP) headerValues(header string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range s.requests() {
		if r.Method == "" {
			continue
		}
		v := r.Header.Get(header)
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func (s *remoteMCP) called() bool {
	for _, r := range s.requests() {
		if r.Method == "tools/call" {
			return true
		}
	}
	return false
}

const (
	remoteName   = "remoteopt"
	remoteAnswer = "agenttest-remote-answer-4e21"
	// remoteSecret is the value configured for the option; it must reach
	// the server and nothing the agent or bundlectl prints.
	remoteSecret = "agenttest-secret-$$-$-c0ffee"
)

// remoteFixture is a workspace holding one bundle in the host's format
// whose remote MCP server's credential comes from a user option (Claude
// Code userConfig, Gemini CLI setting) or, for Codex, which has no user
// options, from the host variable its bearer_token_env_var names.
type remoteFixture struct {
	home, ws string
	server   *remoteMCP
}

func newRemoteFixture(t *testing.T, a *Agent) *remoteFixture {
	t.Helper()
	f := &remoteFixture{home: filepath.Join(t.TempDir(), "bundlectl-home"), ws: a.Workdir, server: newRemoteMCP(t, remoteAnswer)}
	t.Cleanup(func() { Writable(f.home) })
	if err := os.MkdirAll(f.home, 0o700); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(f.ws, ".bundlectl", "bundles", remoteName)
	switch a.Host {
	case Claude:
		writeJSONFile(t, src, ".claude-plugin/plugin.json", map[string]any{"name": remoteName, "version": "1.0.0",
			"userConfig": map[string]any{"api_key": map[string]any{"type": "string", "title": "API key", "description": "the service's key", "sensitive": true, "required": true}}})
		writeJSONFile(t, src, ".mcp.json", map[string]any{"mcpServers": map[string]any{"svc": map[string]any{
			"type": "http", "url": f.server.URL, "headers": map[string]any{"X-Api-Key": "${user_config.api_key}"}}}})
	case GeminiCLI:
		writeJSONFile(t, src, "gemini-extension.json", map[string]any{"name": remoteName, "version": "1.0.0",
			"settings":   []any{map[string]any{"name": "API key", "description": "the service's key", "envVar": "AGENTTEST_SVC_KEY", "sensitive": true}},
			"mcpServers": map[string]any{"svc": map[string]any{"httpUrl": f.server.URL, "headers": map[string]any{"X-Api-Key": "${AGENTTEST_SVC_KEY}"}}}})
	case Codex:
		writeJSONFile(t, src, ".codex-plugin/plugin.json", map[string]any{"name": remoteName, "version": "1.0.0"})
		writeJSONFile(t, src, ".mcp.json", map[string]any{"mcpServers": map[string]any{"svc": map[string]any{
			"url": f.server.URL, "bearer_token_env_var": "AGENTTEST_SVC_TOKEN", "default_tools_approval_mode": "approve"}}})
	}
	out := BundlectlRun(t, f.home, "--workspace", f.ws, "review", "--json", remoteName)
	var rv struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal([]byte(out), &rv); err != nil || rv.Token == "" {
		t.Fatalf("review --json: %v\n%s", err, out)
	}
	BundlectlRun(t, f.home, "--workspace", f.ws, "trust", remoteName, rv.Token)
	BundlectlRun(t, f.home, "--workspace", f.ws, "enable", remoteName)
	return f
}

// configure stores value for the bundle's option key through the CLI
// (--stdin: the options are sensitive).
func (f *remoteFixture) configure(t *testing.T, key, value string) {
	t.Helper()
	cmd := []string{"--workspace", f.ws, "configure", "--stdin", key, remoteName}
	if _, stderr, err := bundlectlStdin(t, f.home, value, cmd...); err != nil {
		t.Fatalf("configure: %v\n%s", err, stderr)
	}
}

func remoteTurns(h Host) []Turn {
	server := "svc"
	if h == Claude {
		server = "plugin_" + remoteName + "_svc"
	}
	return []Turn{MCPCall(h, server, "lookup", map[string]any{"query": "owl"}), Say("done")}
}

func allowRemote(a *Agent) {
	switch a.Host {
	case Claude:
		a.Args = append(a.Args, "--allowedTools", "mcp__plugin_"+remoteName+"_svc__lookup")
	case Codex:
		a.Args = append(a.Args, "-c", "features.plugins=true")
	}
}

// TestExecRemoteOption: a remote (streamable HTTP) MCP server whose header
// takes a user option the review showed gets the value configured with
// bundlectl configure when the agent runs through bundlectl exec: the
// server sees it on every request, the tool's answer reaches the model,
// and the value appears in nothing the agent or bundlectl printed. Codex
// plugins declare no options; their server's bearer token comes from the
// host variable bearer_token_env_var names, as reviewed.
func TestExecRemoteOption(t *testing.T) {
	t.Parallel()
	for _, h := range hosts {
		t.Run(string(h), func(t *testing.T) {
			t.Parallel()
			a := New(t, h, remoteTurns(h)...)
			f := newRemoteFixture(t, a)
			header, want := "X-Api-Key", remoteSecret
			switch h {
			case Claude:
				f.configure(t, "api_key", remoteSecret)
			case GeminiCLI:
				f.configure(t, "AGENTTEST_SVC_KEY", remoteSecret)
			case Codex:
				header, want = "Authorization", "Bearer "+remoteSecret
				a.Env = append(a.Env, "AGENTTEST_SVC_TOKEN="+remoteSecret)
			}
			allowRemote(a)
			a.Launcher = []string{Bundlectl(t), "--home", f.home, "--workspace", f.ws, "exec", "--"}
			res := a.Run(t, "look up owls")
			got := f.server.headerValues(header)
			t.Logf("%s header values seen by the server: %q", header, got)
			if len(got) != 1 || got[0] != want {
				t.Errorf("the server saw %s = %q, want only %q\n%s\n%s", header, got, want, res, a.Model.Dump())
			}
			if !f.server.called() {
				t.Errorf("the remote tool was never called\n%s\n%s", res, a.Model.Dump())
			}
			if r, ok := lastAt(a, 1); !ok || !r.Contains(remoteAnswer) {
				t.Errorf("the remote tool's answer did not reach the model\n%s\n%s", res, a.Model.Dump())
			}
			if strings.Contains(res.Stdout+res.Stderr, remoteSecret) {
				t.Errorf("the configured value was printed:\n%s", res)
			}
			f.checkNoValueLeft(t)
		})
	}
}

// checkNoValueLeft asserts that no file under bundlectl's views directory
// holds the configured value once the agent has exited: the view that held
// it was the session's.
func (f *remoteFixture) checkNoValueLeft(t *testing.T) {
	t.Helper()
	filepath.WalkDir(filepath.Join(f.home, "views"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(remoteSecret)) {
			t.Errorf("%s holds the configured value after the session", p)
		}
		return nil
	})
}

// TestExecRemoteOptionRefused: when the option the remote server's header
// takes holds no value, or a value holding a "$" reference the host would
// expand again from its environment, bundlectl exec does not give the
// server to the agent — the server sees no request, so no empty, literal
// or substituted credential is sent — and stderr names the option and the
// command that sets it, never the value.
func TestExecRemoteOptionRefused(t *testing.T) {
	t.Parallel()
	for _, h := range []Host{Claude, GeminiCLI} {
		key, expands := "api_key", "key-${HOME}"
		if h == GeminiCLI {
			key, expands = "AGENTTEST_SVC_KEY", "key-$HOME"
		}
		for _, value := range []string{"", expands} {
			name := "unset"
			if value != "" {
				name = "expands"
			}
			t.Run(string(h)+"/"+name, func(t *testing.T) {
				a := New(t, h, Say("done"))
				f := newRemoteFixture(t, a)
				if value != "" {
					f.configure(t, key, value)
				}
				allowRemote(a)
				a.Launcher = []string{Bundlectl(t), "--home", f.home, "--workspace", f.ws, "exec", "--"}
				res := a.Run(t, "look up owls")
				if rs := f.server.requests(); len(rs) > 0 {
					t.Errorf("the server got %d request(s), want none (first with headers %v)\n%s", len(rs), rs[0].Header, res)
				}
				// The fix carries the flags exec was started with, so it
				// acts on this home and workspace as printed.
				if want := "bundlectl --home " + f.home + " --workspace " + f.ws + " configure " + remoteName + " " + key; !strings.Contains(res.Stderr, want) {
					t.Errorf("stderr does not name %q:\n%s", want, res)
				}
				if strings.Contains(res.Stderr, "for other hosts") {
					t.Errorf("stderr says the bundle's components are for other hosts:\n%s", res.Stderr)
				}
				if value != "" && strings.Contains(res.Stdout+res.Stderr, value) {
					t.Errorf("the configured value was printed:\n%s", res)
				}
				t.Logf("stderr:\n%s", res.Stderr)
			})
		}
	}
}

// bundlectlStdin runs the built bundlectl with args and stdin as its
// standard input.
func bundlectlStdin(t testing.TB, home, stdin string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(Bundlectl(t), append([]string{"--home", home}, args...)...)
	cmd.Env = append(os.Environ(), "BUNDLECTL_HOME="+home)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}
