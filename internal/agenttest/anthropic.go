package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// serveAnthropic answers the Messages API as Claude Code calls it:
// POST /v1/messages[?beta=true] (streamed or not), POST
// /v1/messages/count_tokens, and anything else with an empty JSON object.
func (m *Model) serveAnthropic(w http.ResponseWriter, r *http.Request, req *Request) {
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/messages/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 100})
		return
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/messages"):
	default:
		writeJSON(w, map[string]any{})
		return
	}
	var in struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Tools    []json.RawMessage
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(req.Body, &in); err != nil {
		http.Error(w, "agenttest: bad json", http.StatusBadRequest)
		return
	}
	n := 0
	for _, msg := range in.Messages {
		var blocks []struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(msg.Content, &blocks) == nil {
			for _, b := range blocks {
				if b.Type == "tool_result" {
					n++
				}
			}
		}
	}
	req.Turn, req.Tools = n, len(in.Tools) > 0
	turn := m.turn(n, req.Tools)
	id := fmt.Sprintf("msg_agenttest_%d", len(m.Requests()))
	model := in.Model
	if model == "" {
		model = "claude-agenttest"
	}
	var block map[string]any
	stop := "end_turn"
	if turn.Tool != nil {
		stop = "tool_use"
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_agenttest_%d", n), "name": turn.Tool.Name, "input": map[string]any{}}
	} else {
		block = map[string]any{"type": "text", "text": ""}
	}
	usage := map[string]any{"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !in.Stream {
		if turn.Tool != nil {
			block["input"] = turn.Tool.Args
		} else {
			block["text"] = turn.Text
		}
		writeJSON(w, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model,
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return
	}
	startSSE(w)
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage,
	}})
	sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": block})
	if turn.Tool != nil {
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": argsJSON(turn.Tool)}})
	} else {
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": turn.Text}})
	}
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}
