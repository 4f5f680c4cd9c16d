package harness

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/bundlectl/bundlectl/bundle"
	"github.com/bundlectl/bundlectl/internal/jsonobj"
	"github.com/bundlectl/bundlectl/inventory"
)

// MCPCallTimeoutOf is the reviewed wait for each tool call of the MCP
// server s, which ServeMCP's proxy enforces itself: a Codex server's
// tool_timeout_sec (a value Codex gives up on at once or panics on is
// left out, as bundle.CodexMCPTimeouts reads), else the server's timeout
// (Claude Code's "timeout", its wait for each call; Gemini CLI's, its
// wait for the start and for each call; the one timeout of bundlectl's
// own formats, for both). 0 when the review gives none: the host's own
// default then applies, as when it loads the plugin itself.
func MCPCallTimeoutOf(s inventory.MCPServer) time.Duration {
	if _, tool, _, ok := bundle.CodexMCPTimeouts(s.Other); ok {
		if tool*float64(time.Second) >= math.MaxInt64 {
			return 0 // about 292 years: never in practice
		}
		return max(time.Duration(tool*float64(time.Second)), 1)
	}
	if s.TimeoutSec > 0 {
		return time.Duration(s.TimeoutSec) * time.Second
	}
	return 0
}

// MCPPolicyOf is the policy the review of the stdio MCP server s gives:
// its tool filter (ToolFilterOf) and its per-call timeout
// (MCPCallTimeoutOf).
func MCPPolicyOf(s inventory.MCPServer) MCPPolicy {
	return MCPPolicy{Filter: ToolFilterOf(s), CallTimeout: MCPCallTimeoutOf(s)}
}

// pendingCall is a tools/call the proxy forwarded and times. Its timer
// runs only while no elicitation is open (see elicitationOpened): left is
// the time it has to run, counted from since.
type pendingCall struct {
	id     json.RawMessage // as the client wrote it
	timer  *time.Timer     // nil while paused
	left   time.Duration
	since  time.Time
	paused bool
}

// stop stops the call's timer, if it runs.
func (c *pendingCall) stop() {
	if c.timer != nil {
		c.timer.Stop()
	}
}

// arm starts the call's timer for the time it has left; callsMu is held.
func (p *proxy) arm(key string, c *pendingCall) {
	c.paused, c.since = false, p.clock()
	c.timer = time.AfterFunc(c.left, func() { p.expire(key, c) })
}

// idKey is the form under which a reply's id matches a request's: a
// string by its value, a number by its value (a server may write 1.0 as
// 1), so that a server re-encoding an id still settles the call. False
// for null and anything else, which no call the proxy times has.
func idKey(id json.RawMessage) (string, bool) {
	switch c := firstByte(id); {
	case c == '"':
		s, ok := jsonString(id)
		return "s" + s, ok
	case c == '-' || c >= '0' && c <= '9':
		t := strings.TrimSpace(string(id))
		if strings.Trim(t, "-0123456789") == "" {
			return "n" + t, true
		}
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return "n" + t, true
		}
		return "n" + strconv.FormatFloat(f, 'f', -1, 64), true
	}
	return "", false
}

// clientCalls returns the ids of the tools/call requests in a client
// line (an object or a batch) the proxy forwards, the ids of its other
// requests, and the request ids its notifications/cancelled name; a
// notification has no id.
func clientCalls(line []byte) (calls, others, cancels []json.RawMessage) {
	for _, ms := range messageObjects(line) {
		isCall, isCancel, isRequest := false, false, false
		for _, m := range ms {
			if strings.EqualFold(m.Key, "method") {
				method, _ := jsonString(m.Val)
				isRequest = true
				isCall = isCall || strings.EqualFold(method, "tools/call")
				isCancel = isCancel || method == "notifications/cancelled"
			}
		}
		if id := messageID(ms); isCall && id != nil {
			calls = append(calls, id)
		} else if isRequest && id != nil {
			others = append(others, id)
		}
		if isCancel {
			cancels = append(cancels, cancelledIDs(ms)...)
		}
	}
	return calls, others, cancels
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

// maxTrackedIDs bounds each record of ids the proxy keeps without a
// timer: the calls it answered whose late answer has not come, and the
// client's other requests (and cancelled calls) the server has not
// answered. Past it the oldest is forgotten, and from then on a server
// reply under an id the proxy holds no request for is dropped rather
// than relayed: it may be a forgotten call's late answer, and the client
// must never get a second answer for an id.
const maxTrackedIDs = 4096

// idRecord is a set of id keys that forgets its oldest past a limit.
type idRecord struct {
	seq   map[string]uint64 // key: when it was added
	order []idEntry         // oldest first; an entry whose seq no longer matches is stale
	next  uint64
	limit int
}

type idEntry struct {
	key string
	seq uint64
}

// add records key and reports whether an older key was forgotten to
// make room.
func (r *idRecord) add(key string) (forgot bool) {
	if r.seq == nil {
		r.seq = map[string]uint64{}
	}
	r.next++
	r.seq[key] = r.next
	r.order = append(r.order, idEntry{key, r.next})
	for len(r.seq) > r.limit && len(r.order) > 0 {
		e := r.order[0]
		r.order = r.order[1:]
		if r.seq[e.key] == e.seq {
			delete(r.seq, e.key)
			forgot = true
		}
	}
	if len(r.order) > 2*r.limit+64 { // drop stale entries, so order stays bounded too
		live := make([]idEntry, 0, len(r.seq))
		for _, e := range r.order {
			if r.seq[e.key] == e.seq {
				live = append(live, e)
			}
		}
		r.order = live
	}
	return forgot
}

// take removes key and reports whether it was there.
func (r *idRecord) take(key string) bool {
	if _, ok := r.seq[key]; !ok {
		return false
	}
	delete(r.seq, key)
	return true
}

func (r *idRecord) len() int { return len(r.seq) }

// initCalls makes the call records on first use; callsMu is held.
func (p *proxy) initCalls() {
	if p.calls != nil {
		return
	}
	limit := p.idLimit
	if limit <= 0 {
		limit = maxTrackedIDs
	}
	p.calls = map[string]*pendingCall{}
	p.expired = idRecord{limit: limit}
	p.requests = idRecord{limit: limit}
}

// track starts the timer of every tools/call request in a client line
// about to be forwarded, and records the ids of its other requests. A
// call under the id of one still outstanding replaces it (ids of
// outstanding requests are unique in JSON-RPC); a request under the id of
// a call the proxy answered whose late answer is still due does not get
// here (judge refuses it: lateAnswerDue), but one under a forgotten id
// does, and takes that id's next answer for its own.
// A call the client cancels is no longer timed: the client expects no
// answer to it, and ignores one that comes (MCP's cancellation); its
// answer, should it come, is relayed as another request's.
func (p *proxy) track(line []byte) {
	calls, others, cancels := clientCalls(line)
	p.callsMu.Lock()
	defer p.callsMu.Unlock()
	p.initCalls()
	for _, id := range cancels {
		if key, ok := idKey(id); ok {
			if c := p.calls[key]; c != nil {
				c.stop()
				delete(p.calls, key)
				p.forgot = p.requests.add(key) || p.forgot
			}
		}
	}
	for _, id := range others {
		if key, ok := idKey(id); ok {
			p.expired.take(key)
			p.forgot = p.requests.add(key) || p.forgot
		}
	}
	for _, id := range calls {
		key, ok := idKey(id)
		if !ok {
			continue
		}
		c := &pendingCall{id: id, left: p.callTimeout}
		if old := p.calls[key]; old != nil {
			old.stop()
		}
		p.expired.take(key)
		p.requests.take(key)
		p.calls[key] = c
		if len(p.elicits) > 0 {
			c.paused = true // a call made while an elicitation is open waits for its answer too
		} else {
			p.arm(key, c)
		}
	}
}

// expire answers the client for call c, which passed the timeout, and
// cancels it at the server.
func (p *proxy) expire(key string, c *pendingCall) {
	p.callsMu.Lock()
	if p.calls[key] != c {
		p.callsMu.Unlock()
		return // answered meanwhile, replaced, or the session is over
	}
	delete(p.calls, key)
	p.forgot = p.expired.add(key) || p.forgot
	p.callsMu.Unlock()
	sec := strconv.FormatFloat(p.callTimeout.Seconds(), 'g', -1, 64)
	shown := bytes2str(c.id)
	p.notice("tool call %s passed its reviewed timeout of %s s; answered it with an error and cancelled it at the server", shown, sec)
	msg := fmt.Sprintf("the tool call passed its reviewed timeout of %s s: %s did not answer it in time; bundlectl's MCP proxy cancelled it", sec, p.server())
	if err := p.sendClient(rpcError(c.id, rpcRequestTimeout, msg)); err != nil {
		return
	}
	cancel, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled",
		"params": map[string]any{"requestId": c.id, "reason": "the tool call passed its reviewed timeout of " + sec + " s"}})
	_ = p.sendServer(cancel)
}

func bytes2str(b []byte) string { return strings.ToValidUTF8(string(b), "\uFFFD") }

// Why settleWhy drops an answer, to be formatted with its id.
const (
	lateAnswer    = "late answer to tool call %s, which the proxy answered when it passed its timeout"
	unknownAnswer = "answer under id %s, for which the client has no request outstanding (the proxy has forgotten some calls it answered, and this may be a late answer to one)"
)

// settleWhy records the server's answer under id: it stops the call's
// timer or closes the request, and reports "" (relay it), or why it is
// dropped: lateAnswer for a call the proxy answered; once the proxy has
// forgotten an id (maxTrackedIDs), unknownAnswer for an id it holds no
// request for, which may be the late answer to a forgotten call.
func (p *proxy) settleWhy(id json.RawMessage) string {
	key, ok := idKey(id)
	if !ok {
		return ""
	}
	p.callsMu.Lock()
	defer p.callsMu.Unlock()
	if c := p.calls[key]; c != nil {
		c.stop()
		delete(p.calls, key)
		return ""
	}
	if p.requests.take(key) {
		return ""
	}
	if p.expired.take(key) {
		return lateAnswer
	}
	if p.forgot {
		return unknownAnswer
	}
	return ""
}

// lateAnswerDue reports whether id is that of a call the proxy answered
// whose late answer the server still owes. A request reusing it is
// refused: the server's late answer, which the proxy drops, could not be
// told from the new request's.
func (p *proxy) lateAnswerDue(id json.RawMessage) bool {
	key, ok := idKey(id)
	if !ok {
		return false
	}
	p.callsMu.Lock()
	defer p.callsMu.Unlock()
	_, due := p.expired.seq[key]
	return due
}

// outstanding reports whether any call is timed, any request awaits its
// answer, or any id was answered or forgotten by the proxy: only then are
// the server's replies read for their ids.
func (p *proxy) outstanding() bool {
	p.callsMu.Lock()
	defer p.callsMu.Unlock()
	return len(p.calls) > 0 || p.expired.len() > 0 || p.requests.len() > 0 || p.forgot
}

// settleReplies settles every reply (an object without a method, with
// an id) in a server line about to be relayed, and returns the line
// without the late answers the proxy drops; nil when nothing is left.
func (p *proxy) settleReplies(line []byte) []byte {
	if p.callTimeout <= 0 || !p.outstanding() {
		return line
	}
	isReply := func(o []byte) (json.RawMessage, bool) {
		ms, ok := jsonobj.Members(o)
		if !ok {
			return nil, false
		}
		for _, m := range ms {
			if strings.EqualFold(m.Key, "method") {
				return nil, false // the server's own request or notification
			}
		}
		id := messageID(ms)
		return id, id != nil
	}
	switch firstByte(line) {
	case '{':
		if id, ok := isReply(line); ok {
			if why := p.settleWhy(id); why != "" {
				p.notice("dropped the server's "+why, bytes2str(id))
				return nil
			}
		}
	case '[':
		elems, _ := arrayElements(line)
		kept := elems[:0]
		for _, e := range elems {
			if id, ok := isReply(e); ok {
				if why := p.settleWhy(id); why != "" {
					p.notice("dropped the server's "+why, bytes2str(id))
					continue
				}
			}
			kept = append(kept, e)
		}
		if len(kept) == 0 && len(elems) > 0 {
			return nil
		}
		if len(kept) != len(elems) {
			return joinArray(kept)
		}
	}
	return line
}
