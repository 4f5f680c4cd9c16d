package harness

import (
	"bytes"
	"encoding/json"
	"strings"
)

// msgKind is what a JSON-RPC message is to the peer that reads it.
type msgKind int

const (
	msgOther   msgKind = iota // neither: no one waits for an answer to it
	msgRequest                // has a method and no result or error: its sender waits
	msgReply                  // has a result or an error: a call of its reader waits
)

// Limits of msgScanner: the nesting depth encoding/json accepts, the
// most id bytes it keeps of one line, and the longest raw member name
// it reads (any spelling of "method", every letter a \u escape, fits).
// No line within MaxMCPMessage holds more id bytes than
// maxScanIDBytes, so an over-long line is answered under any id its
// relay within the limit would be answered under, however long, with
// no more held than for that line.
const (
	maxScanDepth   = 10000
	maxScanIDBytes = MaxMCPMessage
	maxKeyLen      = 64
)

// maxScanNesting is how deep the scan follows a line nested past
// maxScanDepth (tooDeep), to find its top-level id: as deep as a line
// within MaxMCPMessage can nest, two bytes a level. Past maxScanDepth a
// level costs the scan one bit (deep), at most 1 MiB.
const maxScanNesting = MaxMCPMessage / 2

type scanState uint8

const (
	stValue        scanState = iota // a value is next
	stValueOrClose                  // after "[": a value or "]"
	stKeyOrClose                    // after "{": a member name or "}"
	stKey                           // after "," in an object: a member name
	stColon                         // after a member name
	stAfterValue                    // "," or the container's end
	stEnd                           // after the top-level value: white space only
	stString
	stEscape
	stEscapeU  // in a \u escape; hexLeft hex digits to come
	stNeg      // after "-"
	stZero     // a number's leading "0"
	stInt      // in a number's integer digits
	stDot      // after "."
	stFrac     // in the fraction's digits
	stExp      // after "e" or "E"
	stExpSign  // after the exponent's sign
	stExpDigit // in the exponent's digits
	stLiteral  // in true, false or null; literal holds what is to come
	stError
)

// msgScanner finds the top-level id of a JSON-RPC message, and whether it
// is a request or a reply, in a line too long to hold: it is written the
// line's bytes in pieces of any size as they pass and keeps at most
// maxScanDepth+maxScanIDBytes+maxKeyLen bytes. It validates the line as
// encoding/json does (nesting at most maxScanDepth deep), so it reports an
// id exactly when json.Unmarshal of the whole line into a map would give
// an "id" member (the last one, names compared exactly after unescaping)
// that is a string or a number of at most maxScanIDBytes bytes. An "id"
// inside a nested value or a string is not the message's. Of a batch (a
// top-level array) it keeps each message's id as well (clientBatch,
// serverBatch), at most maxTrackedIDs of them, whose bytes together
// count against the same maxScanIDBytes (a message's id is cut once it
// is not kept for it).
type msgScanner struct {
	state   scanState
	stack   []byte   // '{' or '[' for each open container, to maxScanDepth
	deep    []uint64 // past maxScanDepth, a bit for each: 1 for '{'
	depth   int      // the open containers
	tooDeep bool     // the line nested past maxScanDepth: no JSON to encoding/json
	hexLeft int
	literal string

	inKey   bool   // the string being read is a member name
	keyTop  bool   // ... of the message (the top-level object, or an object in a top-level array): kept in key
	key     []byte // raw, without quotes; keyLong once over maxKeyLen
	keyLong bool
	idNext  bool // the top-level value to come is an "id" member's
	idFold  bool // ... named so in another letter case
	capture bool // reading an id's token: kept in val
	capFold bool // ... of an id named so in another letter case
	val     []byte
	valLong bool // the token is over what is left of maxScanIDBytes: not kept

	// The message's id (id, or foldID when no member is named exactly
	// "id") was a string or a number the scan did not keep, as its bytes
	// and the batch's ids kept before it pass maxScanIDBytes.
	idCut, foldIDCut bool

	id                  []byte // the last top-level id so far; nil if it was not a string or a number
	hasMethod, hasReply bool   // a member named exactly "method"; "result" or "error"

	// As settleMessage reads a server reply (msgRead): how many members
	// are named exactly "id", and whether one is "method" in any case.
	exactIDs   int
	foldMethod bool

	// As the proxy reads a client line within the limit (walkedID): the
	// last top-level member named "id" in another letter case, which
	// counts when none is named exactly "id"; nil if it was not a string
	// or a number.
	foldID []byte

	// A top-level array (a batch): each of its messages as clientMessage
	// reads one, at most maxTrackedIDs of them; batchBad once one is not
	// an object (fromClient refuses the whole batch then).
	isBatch      bool
	batch        []scannedMessage
	batchBad     bool
	batchLong    bool
	batchMore    int // the requests with an id past maxTrackedIDs, whose ids are not kept
	batchIDBytes int // the bytes of the ids in batch

	// Whether the line is UTF-8 (only a string can hold a byte over
	// 0x7f): fromClient answers a client line that is not under id
	// null, so clientMessage and clientBatch read no id of one. The
	// check runs across pieces: utf8Need continuation bytes are still
	// to come, the next in utf8Lo..utf8Hi.
	badUTF8        bool
	utf8Need       int
	utf8Lo, utf8Hi byte
}

// scannedMessage is one message of a batch: its id (nil: none usable)
// and whether it is a request, read as clientMessage reads one; and,
// read as a server's message, whether it settles a call under id (as
// reply reads one) or is a request the server awaits an answer to under
// id (as message reads one).
type scannedMessage struct {
	id      json.RawMessage
	request bool
	settles bool
	asks    bool
	cut     bool // its id (nil) was a string or a number the scan did not keep: past maxScanIDBytes
}

func (s *msgScanner) reset() {
	*s = msgScanner{stack: s.stack[:0], deep: s.deep[:0], key: s.key[:0], val: s.val[:0], batch: s.batch[:0]}
}

// release lets go of the ids of a scanned line (up to maxScanIDBytes
// of them), which reset would only reuse at the next line over the
// limit: a long-lived session holds none of them after the line.
func (s *msgScanner) release() {
	s.batch = nil // up to maxTrackedIDs entries
	s.deep = nil  // up to 1 MiB
	s.id, s.foldID, s.val = nil, nil, nil
}

// message returns the id and kind of the scanned line; ok is false unless
// the line was one whole JSON object with a usable id. The id, as every
// id the scan returns, is the scan's own: it holds until reset or
// release (an id may be most of 16 MiB, not worth a copy).
func (s *msgScanner) message() (id json.RawMessage, kind msgKind, ok bool) {
	if s.state != stEnd || s.id == nil || s.isBatch {
		return nil, msgOther, false
	}
	switch {
	case s.hasReply:
		kind = msgReply
	case s.hasMethod:
		kind = msgRequest
	}
	return json.RawMessage(s.id), kind, true
}

// clientMessage returns the id and kind of a scanned client line as the
// proxy reads the same line within the limit: the id walkedID reads (the
// last member named exactly "id", else the last named so in another
// letter case), and a request when a member is named "method" in any
// letter case (judge and track forward it as one, and refuse it under
// its id if it has a result too), else a reply (noteClientReplies reads
// it as the answer to the server's request under that id). So an
// over-long line is answered under the id its relay would be answered
// under; ok is false unless the line was one whole JSON object, UTF-8
// (fromClient answers any other line under id null: read, an id that is
// not UTF-8 could be taken by the client for another of its own), with
// a usable id.
func (s *msgScanner) clientMessage() (id json.RawMessage, kind msgKind, ok bool) {
	if s.state != stEnd || s.isBatch || s.badUTF8 {
		return nil, msgOther, false
	}
	m := s.scanned()
	if m.id == nil {
		return nil, msgOther, false
	}
	kind = msgReply
	if m.request {
		kind = msgRequest
	}
	return m.id, kind, true
}

// scanned is the message object whose members were just scanned, read
// as clientMessage reads one, with its id where the scan keeps it: a
// batch's ids are held once, not twice (endBatchMessage clears the
// scan's ids next).
func (s *msgScanner) scanned() scannedMessage {
	id := s.id
	if s.exactIDs == 0 {
		id = s.foldID
	}
	m := scannedMessage{
		cut:     s.exactIDs > 0 && s.idCut || s.exactIDs == 0 && s.foldIDCut,
		request: s.foldMethod,
		// As reply and message read a whole line: with exactIDs > 0
		// the id kept is the last exact "id".
		settles: s.hasReply && !s.foldMethod && s.exactIDs == 1 && s.id != nil,
		asks:    s.hasMethod && !s.hasReply && s.exactIDs > 0 && s.id != nil,
	}
	if id != nil {
		m.id = json.RawMessage(id)
	}
	return m
}

// clientBatch returns the messages of a scanned client batch, each read
// as clientMessage reads one alone (as fromClient and track read each
// message of a batch); unread, how many of its requests with an id (a
// string or a number: each one a relay within the limit would answer
// under its id) the scan kept no id of: those past the first
// maxTrackedIDs, and those whose ids were not kept as the ids before
// them came to maxScanIDBytes (cut) — notifications and replies, which
// no one answers, not counted; and partial, whether any message's id
// went unread so (a reply's too, which may answer an elicitation). ok
// is false unless the line was one whole array of objects, and UTF-8.
func (s *msgScanner) clientBatch() (msgs []scannedMessage, unread int, partial, ok bool) {
	if s.state != stEnd || !s.isBatch || s.batchBad || len(s.batch) == 0 || s.badUTF8 {
		return nil, 0, false, false
	}
	unread, partial = s.batchMore, s.batchLong
	for _, m := range s.batch {
		if m.cut {
			partial = true
			if m.request {
				unread++
			}
		}
	}
	return s.batch, unread, partial, true
}

// awaitsAnswer reports whether m is a request with an id, a string or a
// number, kept or not: one its sender waits to have answered under it.
func (m scannedMessage) awaitsAnswer() bool { return m.request && (m.id != nil || m.cut) }

// serverBatch returns the messages of a scanned server batch, each read
// as reply and message read one alone: settles marks a reply that ends
// the call under its id, asks a request of the server's under its id.
// ok is false unless the line was one whole array; of a batch of more
// than maxTrackedIDs messages only the first maxTrackedIDs are read.
// Unlike clientBatch it reads a batch with an element that is not an
// object, or bytes that are not UTF-8, as the relay settles each
// message of such a line (fromServer, batchMessages, settleReplies).
func (s *msgScanner) serverBatch() (msgs []scannedMessage, ok bool) {
	if s.state != stEnd || !s.isBatch {
		return nil, false
	}
	return s.batch, true
}

// reply returns the id under which the scanned line settles a request
// of the client's, read as settleMessage reads a server line it relays:
// one whole object with exactly one member named exactly "id", a string
// or a number of at most maxScanIDBytes bytes, one named exactly "result" or
// "error", and none named "method" in any letter case. A server line
// over the limit thus ends the same call, or none, as it would within
// the limit; ok is false otherwise.
func (s *msgScanner) reply() (id json.RawMessage, ok bool) {
	if s.state != stEnd || s.isBatch || !s.hasReply || s.foldMethod || s.exactIDs != 1 || s.id == nil {
		return nil, false
	}
	return json.RawMessage(s.id), true
}

// plainInString is the bytes a string holds as they are: not a quote, a
// backslash or a control character.
var plainInString = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// checkUTF8 checks b, bytes of a string's content as written, as the
// next piece of a UTF-8 text (utf8.Valid's rules: shortest form, no
// surrogate, at most U+10FFFF); a sequence may continue in the next
// piece.
func (s *msgScanner) checkUTF8(b []byte) {
	if s.badUTF8 {
		return
	}
	for _, c := range b {
		if s.utf8Need > 0 {
			if c < s.utf8Lo || c > s.utf8Hi {
				s.badUTF8 = true
				return
			}
			s.utf8Need, s.utf8Lo, s.utf8Hi = s.utf8Need-1, 0x80, 0xbf
			continue
		}
		if c < 0x80 {
			continue
		}
		s.utf8Need, s.utf8Lo, s.utf8Hi = utf8Lead(c)
		if s.utf8Need == 0 {
			s.badUTF8 = true
			return
		}
	}
}

// utf8Lead is what a UTF-8 sequence that starts with c, a byte over
// 0x7f, needs: how many continuation bytes, and the range of the first;
// need is 0 when no sequence starts with c.
func utf8Lead(c byte) (need int, lo, hi byte) {
	switch {
	case 0xc2 <= c && c <= 0xdf:
		return 1, 0x80, 0xbf
	case c == 0xe0:
		return 2, 0xa0, 0xbf
	case c == 0xed:
		return 2, 0x80, 0x9f
	case 0xe1 <= c && c <= 0xef:
		return 2, 0x80, 0xbf
	case c == 0xf0:
		return 3, 0x90, 0xbf
	case 0xf1 <= c && c <= 0xf3:
		return 3, 0x80, 0xbf
	case c == 0xf4:
		return 3, 0x80, 0x8f
	}
	return 0, 0, 0
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// write scans the next bytes of the line.
func (s *msgScanner) write(p []byte) {
	for i := 0; i < len(p); i++ {
		if s.state == stString {
			// The bulk of a long line is string content: skip it fast.
			j := i
			for j < len(p) && plainInString[p[j]] {
				j++
			}
			s.checkUTF8(p[i:j])
			s.keepString(p[i:j])
			if j == len(p) {
				return
			}
			i = j
		}
		if s.state == stError {
			return
		}
		s.step(p[i])
	}
}

// keepString keeps b when it is part of a top-level member name or an id.
func (s *msgScanner) keepString(b []byte) {
	switch {
	case s.inKey && s.keyTop:
		if len(s.key)+len(b) > maxKeyLen {
			s.keyLong = true
			return
		}
		s.key = append(s.key, b...)
	case s.capture:
		s.keepVal(b...)
	}
}

// keepVal keeps b, the next bytes of an id's token, while the ids kept
// of the line stay within maxScanIDBytes: those of the batch so far and
// this one (no other id of its message is held while it is read).
func (s *msgScanner) keepVal(b ...byte) {
	if s.valLong || s.batchIDBytes+len(s.val)+len(b) > maxScanIDBytes {
		s.valLong = true
		return
	}
	s.val = appendDoubling(s.val, b, maxScanIDBytes)
}

// step scans one byte; a byte that ends a number is scanned again in the
// state after it.
func (s *msgScanner) step(c byte) {
	switch s.state {
	case stValue:
		s.beginValue(c)
	case stValueOrClose:
		if c == ']' {
			s.close(c)
			return
		}
		s.beginValue(c)
	case stKeyOrClose, stKey:
		switch {
		case isSpace(c):
		case c == '"':
			s.state, s.inKey = stString, true
			s.keyTop = s.depth == 1 || s.isBatch && s.depth == 2
			s.key, s.keyLong = s.key[:0], false
		case c == '}' && s.state == stKeyOrClose:
			s.close(c)
		default:
			s.state = stError
		}
	case stColon:
		switch {
		case isSpace(c):
		case c == ':':
			s.state = stValue
		default:
			s.state = stError
		}
	case stAfterValue:
		switch {
		case isSpace(c):
		case c == ',':
			if s.top() == '{' {
				s.state = stKey
			} else {
				s.state = stValue
			}
		case c == '}' || c == ']':
			s.close(c)
		default:
			s.state = stError
		}
	case stEnd:
		if !isSpace(c) {
			s.state = stError
		}
	case stString:
		if s.utf8Need > 0 {
			s.badUTF8 = true // a sequence cut short by a quote, a backslash or a control character
			s.utf8Need = 0
		}
		switch {
		case c == '"':
			s.endString()
		case c == '\\':
			s.keepString([]byte{c})
			s.state = stEscape
		default: // a control character
			s.state = stError
		}
	case stEscape:
		switch c {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			s.state = stString
		case 'u':
			s.state, s.hexLeft = stEscapeU, 4
		default:
			s.state = stError
			return
		}
		s.keepString([]byte{c})
	case stEscapeU:
		if !isHex(c) {
			s.state = stError
			return
		}
		s.keepString([]byte{c})
		if s.hexLeft--; s.hexLeft == 0 {
			s.state = stString
		}
	case stNeg:
		switch {
		case c == '0':
			s.number(c, stZero)
		case '1' <= c && c <= '9':
			s.number(c, stInt)
		default:
			s.state = stError
		}
	case stZero, stInt:
		switch {
		case s.state == stInt && '0' <= c && c <= '9':
			s.number(c, stInt)
		case c == '.':
			s.number(c, stDot)
		case c == 'e' || c == 'E':
			s.number(c, stExp)
		default:
			s.endNumber(c)
		}
	case stDot, stFrac:
		switch {
		case '0' <= c && c <= '9':
			s.number(c, stFrac)
		case s.state == stFrac && (c == 'e' || c == 'E'):
			s.number(c, stExp)
		case s.state == stFrac:
			s.endNumber(c)
		default:
			s.state = stError
		}
	case stExp:
		switch {
		case c == '+' || c == '-':
			s.number(c, stExpSign)
		case '0' <= c && c <= '9':
			s.number(c, stExpDigit)
		default:
			s.state = stError
		}
	case stExpSign, stExpDigit:
		switch {
		case '0' <= c && c <= '9':
			s.number(c, stExpDigit)
		case s.state == stExpDigit:
			s.endNumber(c)
		default:
			s.state = stError
		}
	case stLiteral:
		if c != s.literal[0] {
			s.state = stError
			return
		}
		if s.literal = s.literal[1:]; s.literal == "" {
			s.endValue()
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// beginValue scans the first byte of a value.
func (s *msgScanner) beginValue(c byte) {
	if isSpace(c) {
		return
	}
	switch {
	case s.depth == 0 && c == '[':
		s.isBatch = true
	case s.depth == 0 && c != '{':
		s.state = stError // not an object or a batch: not a JSON-RPC message to answer
		return
	case s.isBatch && s.depth == 1 && c != '{':
		s.batchBad = true // fromClient refuses a batch with an element that is not an object
	}
	if s.idNext {
		s.idNext = false
		if c == '"' || c == '-' || '0' <= c && c <= '9' {
			s.capture, s.capFold, s.val, s.valLong = true, s.idFold, s.val[:0], false
			s.keepVal(c)
		}
	}
	switch {
	case c == '{' || c == '[':
		if !s.push(c) {
			s.state = stError
			return
		}
		s.state = stKeyOrClose
		if c == '[' {
			s.state = stValueOrClose
		}
	case c == '"':
		s.state, s.inKey = stString, false
	case c == '-':
		s.state = stNeg
	case c == '0':
		s.state = stZero
	case '1' <= c && c <= '9':
		s.state = stInt
	case c == 't':
		s.state, s.literal = stLiteral, "rue"
	case c == 'f':
		s.state, s.literal = stLiteral, "alse"
	case c == 'n':
		s.state, s.literal = stLiteral, "ull"
	default:
		s.state = stError
	}
}

// number moves to state on c, a byte of the number.
func (s *msgScanner) number(c byte, state scanState) {
	if s.capture {
		s.keepVal(c)
	}
	s.state = state
}

// endNumber ends a number at c, the byte after it, and scans c.
func (s *msgScanner) endNumber(c byte) {
	s.endValue()
	s.step(c)
}

func (s *msgScanner) endString() {
	if !s.inKey {
		if s.capture {
			s.keepVal('"')
		}
		s.endValue()
		return
	}
	s.inKey, s.state = false, stColon
	if !s.keyTop || s.keyLong {
		return
	}
	name := string(s.key)
	if bytes.IndexByte(s.key, '\\') >= 0 {
		if json.Unmarshal(append(append([]byte{'"'}, s.key...), '"'), &name) != nil {
			s.state = stError // cannot happen: the scan checked the escapes
			return
		}
	}
	switch {
	case name == "id":
		// The last "id" is the one a reader keeps; one in another
		// letter case counts no more, so it is not held.
		s.id, s.idCut, s.idNext, s.idFold = nil, false, true, false
		s.foldID, s.foldIDCut = nil, false
		s.exactIDs++
	case strings.EqualFold(name, "id") && s.exactIDs == 0:
		s.foldID, s.foldIDCut, s.idNext, s.idFold = nil, false, true, true
	case name == "method":
		s.hasMethod = true
	case name == "result" || name == "error":
		s.hasReply = true
	}
	s.foldMethod = s.foldMethod || strings.EqualFold(name, "method")
}

// keptVal is the id just captured, to keep: a copy of its own, the
// capture's buffer kept for the next id, unless it is long; then the id
// takes the buffer, so an id of up to 16 MiB is not copied (no other id
// of its message is held by then).
func (s *msgScanner) keptVal() []byte {
	if cap(s.val) <= keptLineBuffer {
		return bytes.Clone(s.val)
	}
	id := s.val
	s.val = nil
	return id
}

// endValue ends a value; an id's ends its capture.
func (s *msgScanner) endValue() {
	if s.capture {
		s.capture = false
		switch {
		case s.valLong && s.capFold:
			s.foldIDCut = true
		case s.valLong:
			s.idCut = true
		case s.capFold:
			s.foldID = s.keptVal()
		default:
			s.id = s.keptVal()
		}
	}
	s.state = stAfterValue
	if s.depth == 0 {
		s.state = stEnd
	}
}

// close ends the open container with c, its closing bracket.
func (s *msgScanner) close(c byte) {
	top := s.top()
	if top == '{' && c != '}' || top == '[' && c != ']' {
		s.state = stError
		return
	}
	s.pop()
	if s.isBatch && s.depth == 1 {
		s.endBatchMessage()
	}
	s.endValue()
}

// endBatchMessage keeps the message of a batch just scanned and clears
// what was read of it for the next.
func (s *msgScanner) endBatchMessage() {
	m := s.scanned()
	switch {
	case len(s.batch) == maxTrackedIDs:
		s.batchLong = true
		if m.awaitsAnswer() {
			s.batchMore++
		}
	default:
		s.batch = append(s.batch, m)
		s.batchIDBytes += len(m.id)
	}
	s.id, s.foldID, s.exactIDs = nil, nil, 0 // the message's ids are its own now
	s.idCut, s.foldIDCut = false, false
	s.hasMethod, s.hasReply, s.foldMethod = false, false, false
}

// push opens a container with c, '{' or '['; false past maxScanNesting.
func (s *msgScanner) push(c byte) bool {
	if s.depth < maxScanDepth {
		s.stack = append(s.stack, c)
		s.depth++
		return true
	}
	if s.depth == maxScanNesting {
		return false
	}
	s.tooDeep = true
	i := s.depth - maxScanDepth
	if i/64 == len(s.deep) {
		if len(s.deep) == cap(s.deep) { // grown by doubling, to no more than the deepest needs
			s.deep = append(make([]uint64, 0, min(2*cap(s.deep)+1, (maxScanNesting-maxScanDepth+63)/64)), s.deep...)
		}
		s.deep = append(s.deep, 0)
	}
	if c == '{' {
		s.deep[i/64] |= 1 << (i % 64)
	} else {
		s.deep[i/64] &^= 1 << (i % 64)
	}
	s.depth++
	return true
}

// top is the innermost open container's '{' or '['.
func (s *msgScanner) top() byte {
	if s.depth <= maxScanDepth {
		return s.stack[s.depth-1]
	}
	i := s.depth - 1 - maxScanDepth
	if s.deep[i/64]&(1<<(i%64)) != 0 {
		return '{'
	}
	return '['
}

// pop closes the innermost open container.
func (s *msgScanner) pop() {
	s.depth--
	if s.depth < maxScanDepth {
		s.stack = s.stack[:s.depth]
	}
}
