package harness

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// While the server has an elicitation/create request open — relayed to
// the client, not yet answered — the timers of all the server's timed
// calls are paused, and resume with the time they had left once the last
// open elicitation is answered (or the server cancels it). This is Codex
// 0.171.0's rule (codex-rs rmcp-client: one ElicitationPauseState per
// server, counting open elicitations; active_time_timeout runs a call's
// tool_timeout_sec only while none is open): every call of the server
// pauses, whatever relatedRequestId the elicitation names, and a call made
// while one is open starts paused. Time a call ran before and between
// elicitations counts, so a server whose elicitations the host answers at
// once cannot extend a call: it still ends after its reviewed timeout of
// running time. Claude Code 2.1.332 does not pause a server that has its
// own timeout (the only one the proxy times), and Gemini CLI 0.61.0
// declares no elicitation capability and answers one with an error at
// once, so for them the pause lasts as long as the host takes to answer.

// maxOpenElicitations bounds the elicitations the proxy keeps open; past
// it a new one does not pause calls (the ones held keep them paused).
const maxOpenElicitations = maxTrackedIDs

// clock is the time calls' running time is measured on.
func (p *proxy) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

// messageObjects splits a line into its message objects (one, or a
// batch's).
func messageObjects(line []byte) [][]jsonobj.Member {
	var raws []json.RawMessage
	switch firstByte(line) {
	case '{':
		raws = []json.RawMessage{line}
	case '[':
		raws, _ = arrayElements(line)
	}
	var objs [][]jsonobj.Member
	for _, r := range raws {
		if ms, ok := jsonobj.Members(r); ok {
			objs = append(objs, ms)
		}
	}
	return objs
}

// hostMethod is the method a host's JSON decoder reads: the last member
// named exactly "method" (JSON.parse keeps the last; MCP SDKs match
// names exactly); ok is false when there is none or it is not a string.
func hostMethod(ms []jsonobj.Member) (string, bool) {
	var raw json.RawMessage
	for _, m := range ms {
		if m.Key == "method" {
			raw = m.Val
		}
	}
	if raw == nil {
		return "", false
	}
	return jsonString(raw)
}

// noteServerRequests opens an elicitation for every elicitation/create
// request in a server line about to be relayed, and closes one the
// server cancels (notifications/cancelled naming its id).
func (p *proxy) noteServerRequests(line []byte) {
	if !bytes.Contains(line, []byte("elicitation")) && !bytes.Contains(line, []byte("cancelled")) && !bytes.Contains(line, []byte(`\`)) {
		return // cannot name either method
	}
	for _, ms := range messageObjects(line) {
		method, ok := hostMethod(ms)
		if !ok {
			continue
		}
		switch method {
		case "elicitation/create":
			if id := messageID(ms); id != nil {
				p.elicitationOpened(id)
			}
		case "notifications/cancelled":
			for _, id := range cancelledIDs(ms) {
				p.elicitationClosed(id)
			}
		}
	}
}

// noteClientReplies closes the elicitation every reply in a client line
// about to be forwarded answers.
func (p *proxy) noteClientReplies(line []byte) {
	p.callsMu.Lock()
	open := len(p.elicits)
	p.callsMu.Unlock()
	if open == 0 {
		return
	}
	for _, ms := range messageObjects(line) {
		if _, isMsg := hostMethod(ms); isMsg {
			continue
		}
		if id := messageID(ms); id != nil {
			p.elicitationClosed(id)
		}
	}
}

// elicitationOpened records the server's elicitation request id; the
// first one open pauses every timed call. A call whose time ran out
// before the pause is answered as expired.
func (p *proxy) elicitationOpened(id json.RawMessage) {
	key, ok := idKey(id)
	if !ok {
		return
	}
	var ran []string
	p.callsMu.Lock()
	p.initCalls() // an elicitation may come before any call
	if p.elicits[key] || len(p.elicits) >= maxOpenElicitations {
		p.callsMu.Unlock()
		return // already open, or past the bound
	}
	if p.elicits == nil {
		p.elicits = map[string]bool{}
	}
	p.elicits[key] = true
	if len(p.elicits) == 1 {
		now := p.clock()
		for k, c := range p.calls {
			if c.paused || !c.timer.Stop() {
				continue // paused already, or its timer fired: expire answers it
			}
			c.timer, c.paused = nil, true
			c.left -= now.Sub(c.since)
			if c.left <= 0 {
				ran = append(ran, k)
			}
		}
	}
	calls := make([]*pendingCall, len(ran))
	for i, k := range ran {
		calls[i] = p.calls[k]
	}
	p.callsMu.Unlock()
	for i, k := range ran {
		p.expire(k, calls[i])
	}
}

// elicitationClosed ends the server's elicitation request id, if open;
// when none is left open, every paused call resumes with the time it
// had left.
func (p *proxy) elicitationClosed(id json.RawMessage) {
	key, ok := idKey(id)
	if !ok {
		return
	}
	p.callsMu.Lock()
	defer p.callsMu.Unlock()
	if !p.elicits[key] {
		return
	}
	delete(p.elicits, key)
	if len(p.elicits) > 0 {
		return
	}
	for k, c := range p.calls {
		if c.paused {
			p.arm(k, c)
		}
	}
}
