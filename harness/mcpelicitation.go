package harness

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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
// running time.
//
// The proxy pauses only for a client whose initialize names it one known
// to pause its own wait (pausingClients): Codex. Claude Code 2.1.332 does
// not pause a server that has its own timeout (the only one the proxy
// times), and Gemini CLI 0.61.0 declares no elicitation capability and
// answers one with an error at once; a server that keeps one elicitation
// open at all times (the next sent before the last is answered) would
// hold a pause on for ever, where such a host's own timer still runs. So
// for them, and for a client the proxy does not know, nothing pauses:
// the call ends at its reviewed timeout of wall time, as without
// elicitations.
//
// A pause never outlives what the proxy can read: a client line it does
// not forward (refused, or not JSON at all) while an elicitation is open
// may be the client's answer, which the server then never gets. A reply
// in it under an open elicitation's id ends that elicitation, and the
// server gets an error for it; a line the proxy cannot read at all, or a
// reply under an id it cannot match (null, the client's error for a
// message it could not read), ends every open elicitation's pause (calls
// resume; a later answer to one is relayed and resumes nothing), since
// which one it answered is unknown.

// pausingClients are the clientInfo.name values of the hosts known to
// pause their own per-call wait while an elicitation is open, as
// TestHostsMCPElicitationHeadless saw them: Codex 0.171.0.
var pausingClients = map[string]bool{"codex-mcp-client": true}

// MCPClientPausesForElicitation reports whether the MCP proxy pauses its
// call timers for a client whose initialize gives name as its
// clientInfo.name: only for a host known to pause its own.
func MCPClientPausesForElicitation(name string) bool { return pausingClients[name] }

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
	if !p.pauseOK.Load() {
		return // the client does not pause: neither does the proxy
	}
	if !mayName(line, "elicitation") && !mayName(line, "cancelled") {
		return // cannot name either method
	}
	for _, ms := range messageObjects(line) {
		method, ok := hostMethod(ms)
		if !ok {
			continue
		}
		switch method {
		case "elicitation/create":
			if id := messageID(ms); id != nil && strictRequest(ms) {
				p.elicitationOpened(id)
			}
		case "notifications/cancelled":
			for _, id := range cancelledIDs(ms) {
				p.elicitationClosed(id)
			}
		}
	}
}

// cancelledIDs returns the request ids a notifications/cancelled
// message (its members ms) names in params.requestId.
func cancelledIDs(ms []jsonobj.Member) (ids []json.RawMessage) {
	for _, m := range ms {
		if m.Key != "params" {
			continue
		}
		ps, _ := jsonobj.Members(m.Val)
		for _, pm := range ps {
			if pm.Key == "requestId" {
				ids = append(ids, pm.Val)
			}
		}
	}
	return ids
}

// strictRequest reports whether a request's members are ones a strict
// JSON-RPC reader takes as an elicitation/create request: "jsonrpc"
// "2.0", "jsonrpc", "id", "method" and "params" each once, params an
// object (MCP requires them). Codex reads messages with serde, whose
// derived structs refuse a repeated field, so a server that repeats one
// (or leaves out the version) may send an elicitation the proxy would
// read and Codex would not: a pause only the proxy takes, which leaves
// the call with no timer. (Codex 0.171 answers an elicitation repeating
// "method" with -32600 and no id at all, where it declines a well-formed
// one: a pause waiting for an answer under the elicitation's id never
// ended, and a hand run saw the call hang past a 5-minute guard;
// agenttest TestCodexMCPProxyMalformedElicitation.) The id must be one
// Codex reads (codexReadsID), under the name "id" exactly: under "ID"
// Codex reads no request at all and answers nothing. Pausing for less is
// the side that fails closed.
func strictRequest(ms []jsonobj.Member) bool {
	seen := map[string]bool{}
	for _, m := range ms {
		switch m.Key {
		case "jsonrpc", "id", "method", "params":
			if seen[m.Key] {
				return false
			}
			seen[m.Key] = true
		}
	}
	if v, ok := jsonString(lastMember(ms, "jsonrpc")); !ok || v != "2.0" {
		return false
	}
	return codexReadsID(lastMember(ms, "id")) && firstByte(lastMember(ms, "params")) == '{'
}

// codexReadsID reports whether Codex 0.171 reads id as a request id: a
// string, or a number whose value is an integer within 64 bits, however
// written (it declines an elicitation under -0, 1.0 or 1e2 under 0, 1 or
// 100), and not a fraction, a number past 64 bits or null (it answers
// those with an error that has no id). Found by trying
// (agenttest TestCodexMCPProxyMalformedElicitation).
func codexReadsID(id json.RawMessage) bool {
	switch c := firstByte(id); {
	case c == '"':
		_, ok := jsonString(id)
		return ok
	case c == '-' || c >= '0' && c <= '9':
		t := strings.TrimSpace(string(id))
		if !strings.ContainsAny(t, ".eE") {
			_, err := strconv.ParseInt(t, 10, 64)
			return err == nil
		}
		f, err := strconv.ParseFloat(t, 64)
		return err == nil && f == math.Trunc(f) && f > math.MinInt64 && f < math.MaxInt64
	}
	return false
}

// mayName reports whether a JSON line could hold a string whose value
// contains word (letters only): only as those letters, or through a \u
// escape, the one way to write a letter otherwise. Any other escape (a
// "\n" in a tool's text, say) leaves word spelled out, so such a line
// costs no parse.
func mayName(line []byte, word string) bool {
	return bytes.Contains(line, []byte(word)) || bytes.Contains(line, []byte(`\u`))
}

// noteClientInit notes, from the initialize request in a client line
// about to be forwarded, whether the client pauses for elicitations
// (pausingClients); a later initialize decides anew.
func (p *proxy) noteClientInit(line []byte) {
	if !mayName(line, "initialize") {
		return // cannot name the method
	}
	for _, ms := range messageObjects(line) {
		if method, ok := hostMethod(ms); ok && method == "initialize" {
			p.pauseOK.Store(pausingClients[clientName(ms)])
		}
	}
}

// clientName is an initialize request's params.clientInfo.name, as a
// JSON.parse reader takes it (the last member of each name); "" when it
// has none.
func clientName(ms []jsonobj.Member) string {
	info, _ := jsonobj.Members(lastMember(ms, "params"))
	client, _ := jsonobj.Members(lastMember(info, "clientInfo"))
	name, _ := jsonString(lastMember(client, "name"))
	return name
}

// lastMember is the value of the last member named exactly key; nil when
// there is none.
func lastMember(ms []jsonobj.Member, key string) json.RawMessage {
	var v json.RawMessage
	for _, m := range ms {
		if m.Key == key {
			v = m.Val
		}
	}
	return v
}

// openElicitations reports how many elicitations pause calls now.
func (p *proxy) openElicitations() int {
	p.callsMu.Lock()
	defer p.callsMu.Unlock()
	return len(p.elicits)
}

// noteClientReplies closes the elicitation every reply in a client line
// about to be forwarded answers. A reply under no id the proxy can match
// (null, or an error with no id: the client's error for a message it
// could not read, which is how Codex 0.171 answers an elicitation it
// cannot read) may answer any open elicitation: it ends every pause.
//
// A message with a member named "method" in any letter case is no reply:
// judge and track read it as a request (forwarded under the proxy's id,
// its answer awaited; one with a result too is refused), and no server
// SDK reads it as an answer — the TypeScript SDK's strict schemas take
// no reply without "result" or "error" nor with another member, Go's
// decoder reads "Method" as "method". Read as a reply, its id (the
// proxy's, by now) would close whichever elicitation of the server's
// has that id.
func (p *proxy) noteClientReplies(line []byte) {
	if p.openElicitations() == 0 {
		return
	}
	for _, ms := range messageObjects(line) {
		if hasMethodInAnyCase(ms) {
			continue
		}
		id := messageID(ms)
		if id == nil {
			if lastMember(ms, "error") != nil {
				p.notice("the client answered an error with no id while an elicitation is open; calls are timed again")
				p.endPauses()
			}
			continue // else no reply at all
		}
		if _, ok := idKey(id); !ok {
			p.notice("the client answered under id %s while an elicitation is open; calls are timed again", shownID(id))
			p.endPauses()
			continue
		}
		p.elicitationClosed(id)
	}
}

// hasMethodInAnyCase reports whether a message has a member named
// "method" in any letter case, as judge and track read a request.
func hasMethodInAnyCase(ms []jsonobj.Member) bool {
	for _, m := range ms {
		if strings.EqualFold(m.Key, "method") {
			return true
		}
	}
	return false
}

// noteClientDrop ends the pause a client line the proxy does not forward
// might have ended (see the rule above): each reply in it (a message
// with no member named "method" in any letter case, as
// noteClientReplies reads one) under an open
// elicitation's id closes that elicitation, and the server gets an error
// for it in place of the answer it will never see; a line that is not
// UTF-8 JSON (a batch cut short too, whole messages before the cut
// though there are) or holds no message object, a reply under id null,
// or an error with no id, ends every pause.
func (p *proxy) noteClientDrop(line []byte) {
	if p.openElicitations() == 0 || len(bytes.TrimSpace(line)) == 0 {
		return
	}
	// A line that is not JSON may still start with message objects
	// (arrayElements reads a batch's elements up to where it breaks):
	// what is past them, unread, may be the answer.
	objs := messageObjects(line)
	if len(objs) == 0 || !utf8.Valid(line) || !json.Valid(line) {
		p.notice("dropped a client line it cannot read while an elicitation is open; calls are timed again")
		p.endPauses()
		return
	}
	for _, ms := range objs {
		if hasMethodInAnyCase(ms) {
			continue // a request, answered as one (noteClientReplies)
		}
		id := messageID(ms)
		if _, ok := idKey(id); id != nil && !ok || id == nil && lastMember(ms, "error") != nil {
			under := "with no id"
			if id != nil {
				under = "under id " + shownID(id)
			}
			p.notice("dropped a client reply %s while an elicitation is open; calls are timed again", under)
			p.endPauses()
		} else if id != nil && p.elicitationClosed(id) {
			p.notice("the client's answer to elicitation %s was not passed on; the server gets an error for it", shownID(id))
			_ = p.sendServer(rpcError(id, rpcInternalError, "the client's reply could not be passed on by bundlectl's MCP proxy; it was dropped"))
		}
	}
}

// endPauses forgets every open elicitation and resumes every paused call.
func (p *proxy) endPauses() {
	p.callsMu.Lock()
	defer p.callsMu.Unlock()
	clear(p.elicits)
	p.resumeAll()
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

// elicitationClosed ends the server's elicitation request id, if open,
// and reports whether it was; when none is left open, every paused call
// resumes with the time it had left.
func (p *proxy) elicitationClosed(id json.RawMessage) bool {
	key, ok := idKey(id)
	if !ok {
		return false
	}
	p.callsMu.Lock()
	defer p.callsMu.Unlock()
	if !p.elicits[key] {
		return false
	}
	delete(p.elicits, key)
	if len(p.elicits) == 0 {
		p.resumeAll()
	}
	return true
}

// resumeAll restarts the timer of every paused call; callsMu is held.
func (p *proxy) resumeAll() {
	for k, c := range p.calls {
		if c.paused {
			p.arm(k, c)
		}
	}
}
