package agenttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// API names the wire protocol a model stand-in speaks.
type API string

const (
	// Anthropic is the Messages API (POST /v1/messages, SSE), for Claude Code.
	Anthropic API = "anthropic"
	// OpenAI is the Responses API (POST /v1/responses, SSE), for Codex.
	OpenAI API = "openai"
	// Gemini is the Gemini API (POST /v1beta/models/M:streamGenerateContent?alt=sse),
	// for Gemini CLI.
	Gemini API = "gemini"
)

// Turn is one scripted model answer: a tool call when Tool is set, else Text.
type Turn struct {
	Tool *ToolCall
	Text string
}

// ToolCall is a tool call the stand-in answers with.
type ToolCall struct {
	// Name is the tool's name as the host offers it to the model
	// (Claude "Bash", Codex "exec_command", Gemini "run_shell_command").
	Name string
	// Namespace is set for Codex MCP tools, which the Responses API offers in a
	// namespace ("mcp__<server>") and which the model calls with the bare name.
	Namespace string
	// Args are the call's arguments, marshalled to a JSON object.
	Args map[string]any
}

// Call is a turn that answers with a call of tool name with args.
func Call(name string, args map[string]any) Turn {
	return Turn{Tool: &ToolCall{Name: name, Args: args}}
}

// Say is a turn that answers with text and ends the agent's turn.
func Say(text string) Turn { return Turn{Text: text} }

// FinalText is the answer to any request after the script is exhausted, and to
// every request that offers the model no tools (titles, summaries, checks).
const FinalText = "agenttest: done"

// Request is one HTTP request the stand-in received.
type Request struct {
	Method string
	Path   string // with the query string
	Header http.Header
	Body   []byte
	// Turn is the number of tool results the request's conversation carries:
	// the script's answer to it is Script[Turn]. -1 for requests that are not
	// a model call (count_tokens, GETs, …).
	Turn int
	// Tools reports whether the request offered the model any tool; the
	// stand-in answers a request without tools with FinalText.
	Tools bool
}

// Strings returns every string value in the request's JSON body, decoded,
// so that a test can look for text without caring how it was escaped.
func (r Request) Strings() []string {
	var v any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		return []string{string(r.Body)}
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
			// Arguments and tool outputs are often JSON inside a string.
			if strings.HasPrefix(strings.TrimSpace(v), "{") || strings.HasPrefix(strings.TrimSpace(v), "[") {
				var inner any
				if json.Unmarshal([]byte(v), &inner) == nil {
					walk(inner)
				}
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// Contains reports whether any decoded string in the body contains s.
func (r Request) Contains(s string) bool {
	for _, v := range r.Strings() {
		if strings.Contains(v, s) {
			return true
		}
	}
	return false
}

// Model is a scripted stand-in for a model API on 127.0.0.1. It answers the
// model calls of one agent session from its script and records every request.
//
// A request's answer depends only on the conversation it carries (how many
// tool results it holds), never on how many requests came before, so retries
// and side requests cannot shift the script.
type Model struct {
	API    API
	URL    string // http://127.0.0.1:PORT, no trailing slash
	Script []Turn
	// FirstTokens, when set, is the total_tokens the first Responses API
	// answer offering tools reports (every other reports 110): over
	// Codex's model_auto_compact_token_limit it makes Codex compact once.
	FirstTokens int

	t   testing.TB
	srv *http.Server
	ln  net.Listener

	mu              sync.Mutex
	requests        []Request
	firstTokensSent bool
}

// NewModel starts a stand-in for api on 127.0.0.1:0 answering with script;
// it stops when the test ends.
func NewModel(t testing.TB, api API, script ...Turn) *Model {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("agenttest: listen: %v", err)
	}
	m := &Model{API: api, URL: "http://" + ln.Addr().String(), Script: script, t: t, ln: ln}
	m.srv = &http.Server{Handler: http.HandlerFunc(m.serve)}
	go m.srv.Serve(ln)
	t.Cleanup(func() { m.srv.Close() })
	return m
}

// Requests returns a copy of every request received so far, in order.
func (m *Model) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Request(nil), m.requests...)
}

// ModelCalls returns the requests that were model calls offering tools (the
// agent's main loop), in order.
func (m *Model) ModelCalls() []Request {
	var out []Request
	for _, r := range m.Requests() {
		if r.Turn >= 0 && r.Tools {
			out = append(out, r)
		}
	}
	return out
}

// CallsAt returns the main-loop model calls whose conversation held exactly
// n tool results: CallsAt(1) are the requests that carry the first tool's
// result to the model.
func (m *Model) CallsAt(n int) []Request {
	var out []Request
	for _, r := range m.ModelCalls() {
		if r.Turn == n {
			out = append(out, r)
		}
	}
	return out
}

// Dump describes the recorded requests for a failure message.
func (m *Model) Dump() string {
	var b strings.Builder
	for i, r := range m.Requests() {
		body := string(r.Body)
		if len(body) > 4000 {
			body = body[:2000] + " … " + body[len(body)-2000:]
		}
		fmt.Fprintf(&b, "#%d %s %s turn=%d tools=%v\n%s\n", i, r.Method, r.Path, r.Turn, r.Tools, body)
	}
	return b.String()
}

func (m *Model) record(r Request) {
	m.mu.Lock()
	m.requests = append(m.requests, r)
	m.mu.Unlock()
}

// turn returns the scripted answer for a conversation holding n tool results.
func (m *Model) turn(n int, tools bool) Turn {
	if !tools || n >= len(m.Script) {
		return Say(FinalText)
	}
	return m.Script[n]
}

func (m *Model) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	req := Request{Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body, Turn: -1}
	switch m.API {
	case Anthropic:
		m.serveAnthropic(w, r, &req)
	case OpenAI:
		m.serveOpenAI(w, r, &req)
	case Gemini:
		m.serveGemini(w, r, &req)
	default:
		http.Error(w, "unknown api", http.StatusInternalServerError)
	}
	m.record(req)
}

// sse writes one server-sent event; name may be empty.
func sse(w io.Writer, name string, data any) {
	var b bytes.Buffer
	if name != "" {
		fmt.Fprintf(&b, "event: %s\n", name)
	}
	j, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	fmt.Fprintf(&b, "data: %s\n\n", j)
	w.Write(b.Bytes())
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func startSSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func argsJSON(tc *ToolCall) string {
	if tc.Args == nil {
		return "{}"
	}
	j, err := json.Marshal(tc.Args)
	if err != nil {
		panic(err)
	}
	return string(j)
}
