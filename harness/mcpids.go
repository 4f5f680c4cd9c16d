package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Request ids toward the server.
//
// A proxy that times calls (MCPPolicy.CallTimeout) answers some requests
// itself — a call at its timeout — while the server may still answer
// them, and the client may cancel a request the server still answers.
// Were the client's ids passed on, such a late answer would carry an id
// the client is free to use again (once the proxy has forgotten the call
// it answered, or for a request it cancelled itself), and a later request
// under that id would take it for its own answer. So the proxy forwards
// every client request under an id of its own — 1, 2, 3 …, in the order
// it forwards them, never used twice in a session — and puts the
// client's id back on the server's answer:
//
//   - a client request (a message with a method and an id): every member
//     named "id", in any letter case, gets the proxy's id, so that every
//     reader the server may use sees the same one; nothing else of it
//     changes, params included;
//   - a client's notifications/cancelled: every params.requestId (in any
//     letter case) gets the id the proxy forwarded the named request
//     under, and the proxy stops awaiting that request; one naming a
//     request the proxy does not await (answered already, never
//     forwarded, or several different ones) is not forwarded, as its id
//     may be another request's at the server;
//   - a server reply (a message with an id and a result or an error, or
//     with an id and no method): its id members get the client's id back
//     when the proxy awaits an answer under it, and the reply is dropped
//     otherwise — a late answer, or an id the proxy never sent — so the
//     client never gets two answers under one id, nor an answer to a
//     request of its own the server was never sent. A reply under id
//     null (a server's error for a message it could not read) passes.
//
// The server's own requests and the client's replies to them keep the
// server's ids, and notifications pass as written: a progress token is
// the client's, in params, and comes back as the client wrote it.

// maxTrackedIDs bounds the client's requests other than calls that the
// proxy awaits answers to at once, and its record of the requests it
// stopped awaiting, kept for its notices. Past it the oldest request is
// answered by the proxy with an error and cancelled at the server:
// nobody waits for an answer the proxy would drop. It bounds the calls
// the proxy times at once too: a call's timer does not bound them,
// since while an elicitation is open no call's timer runs (a server
// that keeps one open would have the host's calls pile up), and a long
// timeout lets many run. A call past it is not forwarded: the client
// gets an error for it at once (refuseCall), and the calls already
// running keep theirs.
const maxTrackedIDs = 4096

// maxIDLen is the longest client id the proxy forwards a request under
// an id of its own for (usableRequestID), so the ids it keeps stay
// small, and the longest server id it reads as one of its own
// (proxyKeyOf).
const maxIDLen = 4 << 10

// boundedRecord maps keys to values and forgets its oldest past limit.
type boundedRecord[V any] struct {
	m     map[string]recorded[V]
	order []idEntry // oldest first; an entry whose seq no longer matches is stale
	next  uint64
	limit int
}

type recorded[V any] struct {
	val V
	seq uint64
}

type idEntry struct {
	key string
	seq uint64
}

// add records key with val and returns the entries forgotten to make
// room.
func (r *boundedRecord[V]) add(key string, val V) (forgot []keyed[V]) {
	if r.m == nil {
		r.m = map[string]recorded[V]{}
	}
	r.next++
	r.m[key] = recorded[V]{val, r.next}
	r.order = append(r.order, idEntry{key, r.next})
	for len(r.m) > r.limit && len(r.order) > 0 {
		e := r.order[0]
		r.order = r.order[1:]
		if old, ok := r.m[e.key]; ok && old.seq == e.seq {
			delete(r.m, e.key)
			forgot = append(forgot, keyed[V]{e.key, old.val})
		}
	}
	if len(r.order) > 2*r.limit+64 { // drop stale entries, so order stays bounded too
		live := make([]idEntry, 0, len(r.m))
		for _, e := range r.order {
			if r.m[e.key].seq == e.seq {
				live = append(live, e)
			}
		}
		r.order = live
	}
	return forgot
}

type keyed[V any] struct {
	key string
	val V
}

// take removes key and returns its value, if it was there.
func (r *boundedRecord[V]) take(key string) (V, bool) {
	e, ok := r.m[key]
	if ok {
		delete(r.m, key)
	}
	return e.val, ok
}

func (r *boundedRecord[V]) len() int { return len(r.m) }

// idKey is the form under which two ids are the same to the peer that
// reads them: a string by its value, a number by its value (1.0 is 1,
// and -0 is 0: JavaScript's Map keys, Python's int and Go's int64 make
// them one, and JSON.stringify writes -0 as 0). False for null and
// anything else, which no request the proxy tracks has.
func idKey(id json.RawMessage) (string, bool) {
	switch c := firstByte(id); {
	case c == '"':
		s, ok := jsonString(id)
		return "s" + s, ok
	case c == '-' || c >= '0' && c <= '9':
		t := strings.TrimSpace(string(id))
		if t == "-0" {
			t = "0"
		}
		if strings.Trim(t, "-0123456789") == "" {
			return "n" + t, true
		}
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return "n" + t, true
		}
		if f == 0 {
			f = 0 // -0.0 is 0
		}
		return "n" + strconv.FormatFloat(f, 'f', -1, 64), true
	}
	return "", false
}

// proxyKeyOf is the key of the proxy's own id a server reply's id names
// (its decimal digits): a whole number from 1, written any way a
// serialiser may write it (7, 7.0, 7e0). False for anything else (a
// string, null, 0, a fraction, a number over maxIDLen bytes), which the
// proxy never sent.
func proxyKeyOf(raw []byte) (string, bool) {
	if len(raw) > maxIDLen {
		return "", false // no serialiser writes a proxy id so
	}
	if len(raw) > 0 && raw[0] >= '1' && raw[0] <= '9' && allDigits(raw) {
		return string(raw), true
	}
	if c := firstByte(raw); c != '-' && (c < '0' || c > '9') {
		return "", false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(string(raw)), 64)
	if err != nil || f < 1 || f >= 1<<53 || f != math.Trunc(f) {
		return "", false
	}
	return strconv.FormatUint(uint64(f), 10), true
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// usableRequestID reports whether the proxy can forward a request under
// its own id for a client that gave it id (messageID's reading): a
// string or a number (MCP's ids; no null), of at most maxIDLen bytes,
// so the ids it keeps stay small.
func usableRequestID(id json.RawMessage) bool {
	c := firstByte(id)
	return (c == '"' || c == '-' || c >= '0' && c <= '9') && len(id) <= maxIDLen
}

// initCalls makes the records of outstanding requests on first use;
// callsMu is held.
func (p *proxy) initCalls() {
	if p.calls != nil {
		return
	}
	limit := p.callLimit()
	p.calls = map[string]*pendingCall{}
	p.byClient = map[string]string{}
	p.others = boundedRecord[awaited]{limit: limit}
	p.ended = boundedRecord[string]{limit: limit}
}

// msgRead is what the proxy reads of one message object to relay it.
type msgRead struct {
	ids       []span // every member named "id" in any letter case
	id        span   // the one the peer reads (messageID): the last "id", else the last in another case
	hasID     bool
	exactID   bool
	exactIDs  int    // how many members are named exactly "id" (escapes read)
	isRequest bool   // it has a method (its sender's request or notification)
	isReply   bool   // it has a result or an error
	answers   bool   // it has a member named exactly "result" or "error" (escapes read), which a host reads
	isCall    bool   // its method is tools/call (read only with calls)
	calls     bool   // read isCall: a client message, whose calls the proxy times; no server message is a call it times, and reading a loose method costs its normalisation
	isCancel  bool   // its method is notifications/cancelled
	params    []span // every member named "params" in any letter case
}

// read fills r from obj, a message object. Names are matched in any
// letter case, as a lenient reader of the line matches them.
func (r *msgRead) read(obj []byte) {
	forMembers(obj, func(name []byte, v span) bool {
		switch {
		case nameFolds(name, "id"):
			r.ids = append(r.ids, v)
			exact := nameIs(name, "id")
			if exact {
				r.exactIDs++
			}
			if exact || !r.exactID {
				r.id, r.hasID, r.exactID = v, true, exact
			}
		case nameFolds(name, "method"):
			val := obj[v.start:v.end]
			r.isRequest = true
			r.isCall = r.isCall || r.calls && callMethodValue(val) // as judge reads it: timed as the call a loose server may run
			r.isCancel = r.isCancel || stringFolds(val, "notifications/cancelled")
		case nameFolds(name, "result") || nameFolds(name, "error"):
			r.isReply = true
			r.answers = r.answers || nameIs(name, "result") || nameIs(name, "error")
		case nameFolds(name, "params"):
			r.params = append(r.params, v)
		}
		return true
	})
}

// clientLine is the work of relaying one client line: what the proxy does
// after it lets go of callsMu.
type clientLine struct {
	forgot  []keyed[awaited] // requests forgotten past maxTrackedIDs, to answer
	refused []unsentCall     // calls not forwarded past maxTrackedIDs, to answer
	notices []string
}

// unsentCall is a call the proxy did not forward, as many calls were
// outstanding: its client id, and how many elicitations were open.
type unsentCall struct {
	id      json.RawMessage
	elicits int
}

// track gives every request in a client line about to be forwarded an
// id of the proxy's own, starts the timer of each tools/call among them,
// and gives each cancellation in it the id the request it names went
// under. It returns the line to forward: nil when nothing of it is left
// (a cancellation of a request the proxy does not await). It runs before
// the line is forwarded, so no answer can come before it is awaited.
func (p *proxy) track(line []byte) []byte {
	var work clientLine
	p.callsMu.Lock()
	p.initCalls()
	out := line
	switch firstByte(line) {
	case '{':
		out, _ = p.relayLocked(line, &work)
	case '[':
		out = eachInBatch(line, func(m []byte) ([]byte, bool) { return p.relayLocked(m, &work) })
	}
	p.callsMu.Unlock()
	for _, n := range work.notices {
		p.notice("%s", n)
	}
	for _, f := range work.forgot {
		p.stopAwaiting(f.key, f.val)
	}
	for _, r := range work.refused {
		p.refuseCall(r)
	}
	return out
}

// refuseCall answers the client for a call the proxy did not forward:
// maxTrackedIDs calls were awaiting the server's answer, paused if an
// elicitation was open.
func (p *proxy) refuseCall(r unsentCall) {
	why := fmt.Sprintf("%d tool calls of %s already await its answer", p.callLimit(), p.server())
	if r.elicits > 0 {
		why += " while it has an elicitation open, which pauses their timeouts; answer or cancel the elicitation"
	}
	p.notice("refused tool call %s: %s", shownID(r.id), why)
	_ = p.sendClient(rpcError(r.id, rpcInternalError, "bundlectl's MCP proxy did not send this tool call: "+why))
}

// callLimit is how many calls the proxy times at once (maxTrackedIDs;
// idLimit in tests).
func (p *proxy) callLimit() int {
	if p.idLimit > 0 {
		return p.idLimit
	}
	return maxTrackedIDs
}

// relayLocked relays one client message object: the object to forward
// (nil: none) and whether it changed; callsMu is held.
func (p *proxy) relayLocked(obj []byte, work *clientLine) (out []byte, changed bool) {
	var idBuf, paramBuf [2]span
	r := msgRead{ids: idBuf[:0], params: paramBuf[:0], calls: true}
	r.read(obj)
	switch {
	case r.isRequest && r.hasID:
		id := rawValue(obj, r.id)
		key, ok := idKey(id)
		if !ok {
			return obj, false // judge refuses such a request: not reached
		}
		if r.isCall && len(p.calls) >= p.callLimit() {
			work.refused = append(work.refused, unsentCall{id, len(p.elicits)})
			return nil, true
		}
		p.nextID++
		pk := strconv.FormatUint(p.nextID, 10)
		a := awaited{id: id, key: key}
		if r.isCall {
			c := &pendingCall{awaited: a, left: p.callTimeout}
			p.calls[pk] = c
			if len(p.elicits) > 0 {
				c.paused = true // a call made while an elicitation is open waits for its answer too
			} else {
				p.arm(pk, c)
			}
		} else {
			for _, f := range p.others.add(pk, a) {
				p.endLocked(f.key, f.val, "request %s, which the proxy stopped awaiting")
				work.forgot = append(work.forgot, f)
			}
		}
		p.byClient[key] = pk // the newest request under the client's id, as a server keeps it
		return splice(obj, r.ids, []byte(pk)), true
	case r.isCancel && !r.hasID:
		return p.cancelLocked(obj, r.params, work)
	}
	return obj, false
}

// cancelLocked gives a client's notifications/cancelled (its params
// spans in obj) the proxy's id of the request it names, and stops
// awaiting that request: the client expects no answer to it. One naming
// no request the proxy awaits, or several, is dropped (nil): passed on,
// the client's id could name another request at the server. callsMu is
// held.
func (p *proxy) cancelLocked(obj []byte, params []span, work *clientLine) (out []byte, changed bool) {
	var spans []span
	key, named, one := "", false, true
	for _, ps := range params {
		pv := obj[ps.start:ps.end]
		forMembers(pv, func(name []byte, v span) bool {
			if nameFolds(name, "requestId") {
				k, ok := idKey(json.RawMessage(pv[v.start:v.end]))
				one = one && ok && (!named || k == key)
				key, named = k, true
				spans = append(spans, span{ps.start + v.start, ps.start + v.end})
			}
			return true
		})
	}
	if !named {
		return obj, false // names no request: nothing to map
	}
	pk, ok := p.byClient[key]
	if !one || !ok {
		work.notices = append(work.notices, "dropped the client's notifications/cancelled: it names no request the server is answering (answered already, never forwarded, or several)")
		return nil, true
	}
	var a awaited
	if c := p.calls[pk]; c != nil {
		a = c.awaited
	} else if o, ok := p.others.m[pk]; ok {
		a = o.val
	}
	p.endLocked(pk, a, "request %s, which the client cancelled")
	return splice(obj, spans, []byte(pk)), true
}

// endLocked stops awaiting the request forwarded under the proxy's id pk,
// which the client knows as a: its answer, should it come, is dropped,
// with why (formatted with the client's id) in the notice. callsMu is
// held.
func (p *proxy) endLocked(pk string, a awaited, why string) {
	if c := p.calls[pk]; c != nil {
		c.stop()
		delete(p.calls, pk)
	}
	p.others.take(pk)
	if p.byClient[a.key] == pk {
		delete(p.byClient, a.key)
	}
	p.ended.add(pk, fmt.Sprintf(why, shownID(a.id)))
}

// stopAwaiting answers the client for request a, forwarded under the
// proxy's id pk, which the proxy no longer awaits past maxTrackedIDs,
// and cancels it at the server.
func (p *proxy) stopAwaiting(pk string, a awaited) {
	p.notice("more than %d requests await the server's answer; request %s, the oldest, is answered with an error and cancelled at the server", maxTrackedIDs, shownID(a.id))
	msg := fmt.Sprintf("bundlectl's MCP proxy awaits at most %d answers of %s at a time; this request, the oldest, is no longer awaited and was cancelled", maxTrackedIDs, p.server())
	if err := p.sendClient(rpcError(a.id, rpcInternalError, msg)); err != nil {
		return
	}
	_ = p.sendServer(cancelNotice(pk, "bundlectl's MCP proxy no longer awaits its answer"))
}

// unknownAnswer is why settle drops an answer under an id the proxy has
// no record of, to be formatted with that id.
const unknownAnswer = "answer under id %s, which bundlectl's MCP proxy never sent or no longer awaits"

// settle takes the server's answer under raw, the id it wrote: it ends
// the request the proxy forwarded under that id and returns it, with ""
// (relay the answer under the client's id); or why the answer is
// dropped: a late answer (the request's record says why it ended), or an
// id the proxy never sent or no longer remembers.
func (p *proxy) settle(raw []byte) (awaited, string) {
	pk, ok := proxyKeyOf(raw)
	if !ok {
		return awaited{}, fmt.Sprintf(unknownAnswer, shownID(raw))
	}
	p.callsMu.Lock()
	defer p.callsMu.Unlock()
	if c := p.calls[pk]; c != nil {
		c.stop()
		delete(p.calls, pk)
		p.unmapLocked(pk, c.awaited)
		return c.awaited, ""
	}
	if a, ok := p.others.take(pk); ok {
		p.unmapLocked(pk, a)
		return a, ""
	}
	if why, ok := p.ended.take(pk); ok {
		return awaited{}, "late answer to " + why
	}
	return awaited{}, fmt.Sprintf(unknownAnswer, shownID(raw))
}

// unmapLocked forgets that the client's id of a names the request pk,
// unless a newer request under it has taken its place; callsMu is held.
func (p *proxy) unmapLocked(pk string, a awaited) {
	if p.byClient[a.key] == pk {
		delete(p.byClient, a.key)
	}
}

// settleReplies puts the client's id back on a server message about to
// be relayed if it is a reply, and drops a reply no request awaits; it
// returns the message to relay, nil when it is dropped. A proxy that
// does not time calls forwards the client's ids: it changes nothing but
// drops a reply under id null (nullIDReply), as a timing proxy does.
// msg is one message, never a batch: serverLine relays a batch one
// message a line, each settled alone.
func (p *proxy) settleReplies(msg []byte) []byte {
	if firstByte(msg) != '{' {
		return msg
	}
	if p.callTimeout <= 0 {
		if p.nullIDReply(msg) {
			p.notice("%s", droppedNullIDReply)
			return nil
		}
		return msg
	}
	out, _ := p.settleMessage(msg)
	return out
}

// droppedNullIDReply is the notice for a server reply under id null.
const droppedNullIDReply = "dropped the server's reply under id null (its error for a message it could not read): it answers no request the client awaits, and Codex 0.171.0 fails to start a server that sends one before its initialize answer"

// nullIDReply reports whether obj, a server message object relayed by a
// proxy that does not time calls, is a reply (as settleMessage reads
// one) whose id, as JSON.parse reads it (the last member named exactly
// "id"), is null. Such a proxy forwards the client's lines as they are,
// and only lines it read, so a server's error under null answers no
// request of the client's there either; relayed before the initialize
// answer it kept Codex 0.171.0 from starting the server behind a proxy
// that only filters tools, as behind a timing one (agenttest
// TestHostsMCPNullIDFilterOnly). A reply that repeats "id" passes as
// before, under the last: such a proxy settles nothing.
func (p *proxy) nullIDReply(obj []byte) bool {
	if !bytes.Contains(obj, []byte("null")) { // no null anywhere: the common line costs one search
		return false
	}
	var idBuf [2]span
	r := msgRead{ids: idBuf[:0]}
	r.read(obj)
	return r.exactID && (!r.isRequest || r.isReply) && firstByte(obj[r.id.start:r.id.end]) == 'n'
}

// strictAnswer reports whether obj, a reply, is an answer every host
// reads: "jsonrpc" "2.0", "id", and either "result", an object
// (resultObject), or "error", an object with an integer "code" and a
// string "message" (errorObject); each once (names with their escapes
// read), no other member, and nested at most maxAnswerDepth deep.
func strictAnswer(obj []byte) bool {
	jsonrpc, ids, answers, other := 0, 0, 0, false
	forMembers(obj, func(raw []byte, v span) bool {
		val := obj[v.start:v.end]
		switch {
		case nameIs(raw, "jsonrpc"):
			other = other || !isVersion2(val)
			jsonrpc++
		case nameIs(raw, "id"):
			ids++
		case nameIs(raw, "result"):
			other = other || !resultObject(val)
			answers++
		case nameIs(raw, "error"):
			other = other || !errorObject(val)
			answers++
		default:
			other = true
		}
		return !other
	})
	return !other && jsonrpc == 1 && ids == 1 && answers == 1 && nestsWithin(obj, maxAnswerDepth)
}

// maxAnswerDepth is how deep the containers of an answer may nest, its
// own object included: Codex 0.171.0 reads a message with serde_json,
// whose recursion limit refuses one nested 128 deep, so it never sees
// such an answer (the TypeScript SDK's hosts read it).
const maxAnswerDepth = 127

// nestsWithin reports whether the objects and arrays of v, valid JSON,
// nest at most limit deep.
func nestsWithin(v []byte, limit int) bool {
	if len(v) < 2*(limit+1) {
		return true // each level takes two bytes at least
	}
	depth := 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '"':
			i = stringEnd(v, i) - 1
		case '{', '[':
			if depth++; depth > limit {
				return false
			}
		case '}', ']':
			depth--
		}
	}
	return true
}

// isVersion2 reports whether v is the JSON string "2.0", however
// escaped; the common spelling costs no decoding.
func isVersion2(v []byte) bool {
	if string(v) == `"2.0"` {
		return true
	}
	s, ok := jsonString(v)
	return ok && s == "2.0"
}

// resultObject reports whether v is a result object as the hosts read
// one: an object whose "_meta", if it has one, is an object. Claude Code
// 2.1.332 and Gemini CLI 0.61.0 (the MCP TypeScript SDK's schemas)
// take no answer whose result has another "_meta" for one.
func resultObject(v []byte) bool {
	if firstByte(v) != '{' {
		return false
	}
	ok := true
	forMembers(v, func(raw []byte, s span) bool {
		if nameIs(raw, "_meta") && firstByte(v[s.start:s.end]) != '{' {
			ok = false
		}
		return ok
	})
	return ok
}

// errorObject reports whether v is a JSON-RPC error object as every host
// reads one: "code" an integer that fits 32 bits (Codex 0.171.0 reads it
// into an i32, the TypeScript SDK's hosts take only a safe integer) and
// "message" a string, each once, and "data" at most once (Codex takes no
// error object that repeats one of its members), with anything else
// besides.
func errorObject(v []byte) bool {
	if firstByte(v) != '{' {
		return false
	}
	codes, messages, data := 0, 0, 0
	ok := true
	forMembers(v, func(raw []byte, s span) bool {
		val := v[s.start:s.end]
		switch {
		case nameIs(raw, "code"):
			_, err := strconv.ParseInt(string(val), 10, 32)
			ok = ok && err == nil
			codes++
		case nameIs(raw, "message"):
			ok = ok && firstByte(val) == '"'
			messages++
		case nameIs(raw, "data"):
			data++
		}
		return ok
	})
	return ok && codes == 1 && messages == 1 && data <= 1
}

// eachInBatch applies f to every message of the batch line and returns
// the batch to pass on: line itself when f changed none of them, nil
// when f kept none, else the messages f kept, as f gave them.
func eachInBatch(line []byte, f func(msg []byte) (out []byte, changed bool)) []byte {
	var elems []json.RawMessage
	changed := false
	forElements(line, func(v span) bool {
		o, ch := f(line[v.start:v.end])
		changed = changed || ch
		if o != nil {
			elems = append(elems, o)
		}
		return true
	})
	switch {
	case !changed:
		return line
	case len(elems) == 0:
		return nil
	}
	return joinArray(elems)
}

// settleMessage settles one server message object if it is a reply: an
// id and a result or an error, or an id and no method (a message a
// client may take for an answer). It returns the object to relay (nil:
// dropped) and whether it changed. The server's requests and
// notifications pass as they are. A reply under id null (the server's
// error for a message it could not read) is dropped with a notice: the
// proxy forwards only messages it read, under ids of its own, so it
// answers none the client sent; Claude Code 2.1.332 and Gemini CLI
// 0.61.0 ignore it (the MCP TypeScript SDK's schema takes no null id,
// so Number(null), 0, never meets their initialize), but Codex 0.171.0
// fails to start a server that sends one before its initialize answer
// (agenttest TestHostsMCPNullIDErrorEndsNoRequest).
//
// A reply settles a request only when it has exactly one member named
// "id" as written: JSON.parse and serde (the hosts) read that name alone,
// and serde refuses a message that repeats it. And only when it has the
// strict shape of an answer (strictAnswer): Claude Code 2.1.332 and
// Gemini CLI 0.61.0 (the MCP TypeScript SDK's strict schemas) take no
// reply with another member for an answer, Codex 0.171.0 and Gemini CLI
// none with both a result and an error, and no host one without
// "jsonrpc", or with "Result" or a method (agenttest
// TestHostsMCPProxyReplyShapes). Any other reply is dropped, the request
// it names still awaited: settled, it would stop a call's timer while
// the host never sees an answer, and the call would run to the host's
// own timeout, not the reviewed one.
func (p *proxy) settleMessage(obj []byte) (out []byte, changed bool) {
	var idBuf [2]span
	r := msgRead{ids: idBuf[:0]}
	r.read(obj)
	if !r.hasID || r.isRequest && !r.isReply {
		return obj, false
	}
	if r.exactIDs != 1 {
		p.notice("dropped the server's reply with no member named exactly id, or more than one: no host reads it as the answer to one request")
		return nil, true
	}
	if firstByte(obj[r.id.start:r.id.end]) == 'n' {
		p.notice("%s", droppedNullIDReply)
		return nil, true
	}
	if !r.answers || r.isRequest || !strictAnswer(obj) {
		p.notice(`dropped the server's reply under id %s: not {"jsonrpc":"2.0","id":…,"result":{…}} or {"jsonrpc":"2.0","id":…,"error":{"code":…,"message":…}}, with no other member, which is all every host reads as an answer`, shownID(obj[r.id.start:r.id.end]))
		return nil, true
	}
	a, why := p.settle(obj[r.id.start:r.id.end])
	if why != "" {
		p.notice("dropped the server's %s", why)
		return nil, true
	}
	return splice(obj, r.ids, a.id), true
}
