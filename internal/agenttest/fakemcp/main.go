// Command fakemcp is a minimal stdio MCP server for the agent end-to-end
// tests: it offers one tool that answers with a fixed text, and appends what
// it saw (argv, cwd, environment, each call's arguments) as JSON lines to a
// record file so a test can tell which server answered and how it was started.
//
//	fakemcp -tool lookup -answer 'the answer' -record /tmp/rec.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

func main() {
	tool := flag.String("tool", "lookup", "name of the one tool offered")
	answer := flag.String("answer", "fakemcp answer", "text the tool answers with")
	record := flag.String("record", "", "file to append JSON lines to (none if empty)")
	callDelay := flag.Duration("call-delay", 0, "how long to wait before answering a tools/call")
	initDelay := flag.Duration("init-delay", 0, "how long to wait before answering initialize (a slow start)")
	flag.Parse()

	rec := func(kind string, v map[string]any) {
		if *record == "" {
			return
		}
		v["kind"] = kind
		j, _ := json.Marshal(v)
		f, err := os.OpenFile(*record, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakemcp:", err)
			return
		}
		f.Write(append(j, '\n'))
		f.Close()
	}
	cwd, _ := os.Getwd()
	env := os.Environ()
	sort.Strings(env)
	rec("start", map[string]any{"argv": os.Args, "cwd": cwd, "env": env, "pid": os.Getpid()})

	out := json.NewEncoder(os.Stdout)
	reply := func(id json.RawMessage, result any) {
		out.Encode(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		if line == "" {
			continue
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			fmt.Fprintln(os.Stderr, "fakemcp: bad message:", err)
			continue
		}
		if msg.ID == nil { // a notification
			continue
		}
		switch msg.Method {
		case "initialize":
			time.Sleep(*initDelay)
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			json.Unmarshal(msg.Params, &p)
			if p.ProtocolVersion == "" {
				p.ProtocolVersion = "2024-11-05"
			}
			reply(msg.ID, map[string]any{
				"protocolVersion": p.ProtocolVersion,
				"capabilities":    map[string]any{"tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": "fakemcp", "version": "1.0.0"},
			})
		case "tools/list":
			reply(msg.ID, map[string]any{"tools": []any{map[string]any{
				"name":        *tool,
				"description": "Looks a word up (agenttest fake).",
				"inputSchema": map[string]any{
					"type":       "object",
					"properties": map[string]any{"query": map[string]any{"type": "string"}},
				},
			}}})
		case "tools/call":
			var p struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			}
			json.Unmarshal(msg.Params, &p)
			rec("call", map[string]any{"name": p.Name, "arguments": p.Arguments})
			time.Sleep(*callDelay)
			if p.Name != *tool {
				out.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32602, "message": "unknown tool " + p.Name}})
				continue
			}
			reply(msg.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": *answer}}, "isError": false})
		case "ping":
			reply(msg.ID, map[string]any{})
		case "resources/list":
			reply(msg.ID, map[string]any{"resources": []any{}})
		case "resources/templates/list":
			reply(msg.ID, map[string]any{"resourceTemplates": []any{}})
		case "prompts/list":
			reply(msg.ID, map[string]any{"prompts": []any{}})
		default:
			out.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "method not found: " + msg.Method}})
		}
	}
}
