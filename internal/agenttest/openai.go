package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// serveOpenAI answers the Responses API as Codex calls it through a custom
// provider: POST .../responses, streamed as SSE; anything else gets an empty
// JSON object (a model list is answered with an empty list).
func (m *Model) serveOpenAI(w http.ResponseWriter, r *http.Request, req *Request) {
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses"):
	case strings.HasSuffix(r.URL.Path, "/models"):
		writeJSON(w, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
		return
	default:
		writeJSON(w, map[string]any{})
		return
	}
	var in struct {
		Model string            `json:"model"`
		Tools []json.RawMessage `json:"tools"`
		Input []struct {
			Type string `json:"type"`
		} `json:"input"`
	}
	if err := json.Unmarshal(req.Body, &in); err != nil {
		http.Error(w, "agenttest: bad json", http.StatusBadRequest)
		return
	}
	n := 0
	for _, it := range in.Input {
		if strings.HasSuffix(it.Type, "_output") { // function_call_output, custom_tool_call_output, …
			n++
		}
	}
	req.Turn, req.Tools = n, len(in.Tools) > 0
	turn := m.turn(n, req.Tools)
	seq := len(m.Requests())
	id := fmt.Sprintf("resp_agenttest_%d", seq)
	var item map[string]any
	if turn.Tool != nil {
		item = map[string]any{
			"type": "function_call", "id": fmt.Sprintf("fc_agenttest_%d", seq),
			"call_id": fmt.Sprintf("call_agenttest_%d", n), "name": turn.Tool.Name,
			"arguments": argsJSON(turn.Tool), "status": "completed",
		}
		if turn.Tool.Namespace != "" {
			item["namespace"] = turn.Tool.Namespace
		}
	} else {
		item = map[string]any{
			"type": "message", "id": fmt.Sprintf("msg_agenttest_%d", seq), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": turn.Text, "annotations": []any{}}},
		}
	}
	total := 110
	m.mu.Lock()
	if m.FirstTokens > 0 && !m.firstTokensSent && req.Tools {
		// Once per session, not per conversation: a compaction rewrites
		// the conversation, and a usage tied to it would compact again.
		m.firstTokensSent, total = true, m.FirstTokens
	}
	m.mu.Unlock()
	startSSE(w)
	sse(w, "response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": map[string]any{
		"id": id, "status": "completed",
		"usage": map[string]any{"input_tokens": 100, "input_tokens_details": nil, "output_tokens": total - 100, "output_tokens_details": nil, "total_tokens": total},
	}})
}
