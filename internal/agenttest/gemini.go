package agenttest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// serveGemini answers the Gemini API as Gemini CLI calls it with an API key:
// POST /v1beta/models/M:streamGenerateContent?alt=sse, :generateContent,
// :countTokens; anything else gets an empty JSON object.
func (m *Model) serveGemini(w http.ResponseWriter, r *http.Request, req *Request) {
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(path, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": 100})
		return
	case r.Method == http.MethodPost && (strings.HasSuffix(path, ":streamGenerateContent") || strings.HasSuffix(path, ":generateContent")):
	default:
		writeJSON(w, map[string]any{})
		return
	}
	var in struct {
		Tools    []json.RawMessage `json:"tools"`
		Contents []struct {
			Parts []map[string]json.RawMessage `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(req.Body, &in); err != nil {
		http.Error(w, "agenttest: bad json", http.StatusBadRequest)
		return
	}
	n := 0
	for _, c := range in.Contents {
		for _, p := range c.Parts {
			if _, ok := p["functionResponse"]; ok {
				n++
			}
		}
	}
	req.Turn, req.Tools = n, len(in.Tools) > 0
	turn := m.turn(n, req.Tools)
	var part map[string]any
	if turn.Tool != nil {
		args := turn.Tool.Args
		if args == nil {
			args = map[string]any{}
		}
		part = map[string]any{"functionCall": map[string]any{"name": turn.Tool.Name, "args": args}}
	} else {
		part = map[string]any{"text": turn.Text}
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
		"modelVersion":  "gemini-agenttest",
	}
	if strings.HasSuffix(path, ":generateContent") {
		writeJSON(w, resp)
		return
	}
	startSSE(w)
	sse(w, "", resp)
}
