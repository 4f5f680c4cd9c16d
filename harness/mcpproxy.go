package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bundlectl/bundlectl/internal/jsonobj"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// MaxMCPMessage is the longest MCP stdio message (one line) the proxy
// reads, 16 MiB. A longer one is not forwarded and not held: the proxy
// scans it as it passes for its top-level id (wherever in the line) and
// answers whoever waits for an answer to it, so that no call waits for
// ever: a request from the client with a parse error to the client, a
// reply from the server with an internal error to the client, a request
// from the server with an invalid request error to the server, a reply
// from the client with an internal error to the server; of a batch,
// each message so (a client batch's requests' errors in one array, a
// server batch's replies' errors one line each; of a client batch whose
// ids the scan did not all keep, the messages it kept, and a notice
// that counts the requests with an id among the rest). A longer client
// line with no request under a usable id gets no answer, only a notice
// (unanswered), as no error under id null answers a request.
const MaxMCPMessage = 16 << 20

// JSON-RPC 2.0 error codes the proxy answers with.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcInvalidParams  = -32602 // MCP answers an unknown tool with it
	rpcInternalError  = -32603
	// rpcRequestTimeout is the code the MCP SDKs (TypeScript's
	// ErrorCode.RequestTimeout) give a request that timed out.
	rpcRequestTimeout = -32001
)

// ToolFilter is a stdio MCP server's reviewed tool filter (the model's
// MCPServer.ToolsInclude and ToolsExclude). A non-empty Include allows
// only the tools it names, exactly. Exclude refuses the tools it names and
// the variants of them a server might look up as the same tool: names are
// compared after trimming white space, control characters and invisible
// marks (what Go's, JavaScript's and Python's trims take) and cutting at a
// NUL, under NFKC, full case folding, and upper- then lower-casing,
// repeated until the name stops changing ("Delete_ALL", " delete_all",
// the fullwidth "ｄｅｌｅｔｅ_all", "STRAẞE" for "strasse", "delete_fıle"
// with a dotless i and "DELETE_FİLE" with a dotted capital I for
// "delete_file"). An exclude list is a denylist: a
// server that maps names some other way can still be reached through a
// name it maps; an include list fails closed. Empty lists filter nothing.
type ToolFilter struct {
	Include, Exclude []string
}

// Empty reports whether the filter lets every tool through.
func (f ToolFilter) Empty() bool { return len(f.Include) == 0 && len(f.Exclude) == 0 }

// Allows reports whether the tool named name passes the filter.
func (f ToolFilter) Allows(name string) bool {
	return f.allows(name, excludeKeys(f.Exclude))
}

// allows is Allows with keys, the toolKey of each entry of f.Exclude,
// computed already: a proxy computes them once, not for every name it
// judges (toolKey normalises each entry anew, the bulk of the cost).
func (f ToolFilter) allows(name string, keys []string) bool {
	if len(f.Include) > 0 && !slices.Contains(f.Include, name) {
		return false
	}
	if len(f.Exclude) == 0 {
		return true
	}
	key := toolKey(name)
	for i, x := range f.Exclude {
		if keys[i] == key || strings.EqualFold(x, name) {
			return false
		}
	}
	return true
}

// excludeKeys is the toolKey of each name in exclude, in its order.
func excludeKeys(exclude []string) []string {
	keys := make([]string, len(exclude))
	for i, x := range exclude {
		keys[i] = toolKey(x)
	}
	return keys
}

// toolKey is the form under which two tool names are the same tool to an
// exclude filter (see ToolFilter).
func toolKey(name string) string {
	if i := strings.IndexByte(name, 0); i >= 0 {
		name = name[:i] // a server reading C strings stops there
	}
	for range 8 {
		prev := name
		name = strings.TrimFunc(name, trimmedByAServer)
		name = norm.NFKC.String(name)
		name = cases.Fold().String(name)
		name = strings.ToLower(strings.ToUpper(name))
		// Full case folding makes a capital I with dot above "i" and a
		// combining dot, but Go's strings.ToLower and Java's per-char
		// casing (equalsIgnoreCase) make it a plain "i": "DELETE_FİLE"
		// is "delete_file" to a Go server that lower-cases names.
		name = strings.ReplaceAll(name, "i\u0307", "i")
		if name == prev {
			break
		}
	}
	return name
}

// trimmedByAServer reports whether a trim of some language a server may
// be written in takes r from the ends of a name: Unicode white space and
// controls, the byte-order mark and the zero-width marks.
func trimmedByAServer(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || r == '\ufeff' || r == '\u200b' || r == '\u200c' || r == '\u200d' || r == '\u2060' || r == '\u00ad'
}

// MCPConn is one end of an MCP stdio connection as the proxy sees it:
// the messages that end sends (R) and the way to send it messages (W).
type MCPConn struct {
	R io.Reader
	W io.Writer
}

// ProxyMCP relays the MCP stdio transport (one JSON-RPC message per
// line) between client and server and enforces pol: its per-call timeout
// (see MCPPolicy) and its tool filter:
//
//   - A client message is forwarded unchanged (but for a request's id
//     under a call timeout, see MCPPolicy), or not at all. A tools/call
//     request (or notification) whose tool the filter refuses is answered
//     by the proxy with a JSON-RPC error (-32602) and never forwarded. A
//     message the proxy cannot read — not UTF-8, not JSON, over
//     MaxMCPMessage, not an object or a batch (array) of objects, a
//     method that is not a string, a tools/call without a string
//     params.name — could be a call it did not see: it is not forwarded,
//     and answered with an error (-32700 or -32600) under its id; one
//     with no id the proxy can read gets none (an error under id null
//     answers no request, and Codex stops starting a server that sends
//     one before its initialize answer), only a notice. A batch with one
//     refused call is refused whole. A line nested deeper than
//     encoding/json reads (10000 levels), client's or server's, is read
//     for its ids and answered as a line over MaxMCPMessage is.
//   - A server message reaches the client unchanged (but for a reply's
//     id under a call timeout, see MCPPolicy) unless it is a
//     response whose result lists tools: then the tools the filter
//     refuses, and any entry without a string name, are removed, and a
//     tools member that is not an array becomes an empty one (a page
//     keeps its nextCursor, so pagination still works). Bytes that are
//     not UTF-8 become U+FFFD. A line over MaxMCPMessage is dropped (a
//     reply's call ends with an error, a request is answered to the
//     server with one; see MaxMCPMessage), and so is a line that is not
//     one whole JSON value (a client decoding a stream of values, not
//     lines, could join several into a tool list); each drop but a blank
//     line's is reported to notices. A batch (an array) reaches the client
//     one message object a line, as no host reads a batch; an element
//     that is not an object is dropped.
//   - Member names are matched as a lenient decoder would: "tools",
//     "name", "method", "params" and "result" in any letter case, every
//     occurrence of a duplicated one, so that no reading of a message
//     the client or server may make sees a tool the filter refuses. A
//     method is a call when a loose server may read it as tools/call
//     (isCallMethod: as an exclude filter reads a name).
//   - notifications/tools/list_changed and everything else pass through;
//     the client re-lists and the list is filtered again.
//   - Every line is written so that every line reader a peer may use
//     reads it as the one message the proxy judged: a "\r" (JSON
//     whitespace, a line end to Python's text streams and Node's
//     readline) becomes a space, a raw U+0085, U+2028 or U+2029 (only
//     inside a string in JSON, a line end to Java's Scanner) its \u
//     escape. "Unchanged" above means unchanged in meaning.
//
// ProxyMCP returns when the server's stream ends (nil at EOF), when
// reading the client or writing to it fails, or when ctx is done; a
// server that stops reading ends the session through its output's end.
// When the client's stream ends, server.W is closed if it is an
// io.Closer — the stdio transport's shutdown — and the server's output
// is still relayed. The goroutine reading client.R is not waited for: it
// ends at its next read, forwarding and answering nothing more. A policy
// with an empty filter and no CallTimeout is a plain copy in each
// direction; one with a CallTimeout but no filter is relayed line by
// line under the rules above, with no tool list to filter. notices may
// be nil.
func ProxyMCP(ctx context.Context, client, server MCPConn, pol MCPPolicy, notices io.Writer) error {
	_, err := proxyMCP(ctx, client, server, pol, notices, "")
	return err
}

// MCPPolicy is what the MCP proxy enforces for one stdio server: its
// reviewed tool filter, and its reviewed wait for each tool call
// (CallTimeout; 0 times nothing and leaves the host's own wait). Take both
// from the server's review with MCPPolicyOf, as ServeMCP does.
//
// With a CallTimeout, a tools/call request (with an id) the proxy
// forwards that the server has not answered within it is answered by the
// proxy with a JSON-RPC error (-32001, the MCP SDKs' request timeout)
// under its id, the server is sent notifications/cancelled for it, and
// its answer, should it come later, is dropped. One timer per call,
// counting its running time from its forwarding: notifications/progress
// do not extend it, as none of Claude Code, Codex and Gemini CLI extends
// its own per-call wait for them; for a Codex client (by its initialize's
// clientInfo.name) an elicitation/create request of the server open at
// the client pauses every call's timer until it is answered, as Codex
// pauses its own (see noteServerRequests; other hosts do not pause, nor
// does the proxy for them). Every client request reaches the server
// under an id of the proxy's own, and its answer reaches the client
// under the client's id; an answer no request awaits (a late answer to a
// call the proxy answered or the client cancelled, an id the proxy never
// sent) is dropped, so the client never gets two answers for one id,
// whatever ids it reuses (see mcpids.go).
type MCPPolicy struct {
	Filter      ToolFilter
	CallTimeout time.Duration
}

// passThrough reports whether the policy enforces nothing: the proxy is
// then a plain copy in each direction.
func (pol MCPPolicy) passThrough() bool { return pol.Filter.Empty() && pol.CallTimeout <= 0 }

// proxyMCP is ProxyMCP; clientDone is closed once the goroutine reading
// the client has ended. who names the server in notices and refusals
// ("bundle "x" MCP server "y""); "" for "this server".
//
// With a call timeout, a tools/call request (with an id) the proxy
// forwards that the server has not answered within it is answered by the
// proxy with a JSON-RPC error (-32001) under its id, the server is sent
// notifications/cancelled for it, and the server's answer, should it come
// later, is dropped. One timer per outstanding call; nothing else is
// timed. Requests then go to the server under the proxy's own ids
// (mcpids.go).
func proxyMCP(ctx context.Context, client, server MCPConn, pol MCPPolicy, notices io.Writer, who string) (clientDone <-chan struct{}, err error) {
	if notices == nil {
		notices = io.Discard
	}
	p := &proxy{filter: pol.Filter, callTimeout: pol.CallTimeout, toClient: client.W, toServer: server.W, notices: notices, who: who}
	fail := make(chan error, 1)
	cdone := make(chan struct{})
	go func() {
		defer close(cdone)
		var err error
		if pol.passThrough() {
			err = copyToServer(server.W, client.R)
		} else {
			err = p.pumpClient(client.R)
		}
		if c, ok := server.W.(io.Closer); ok {
			_ = c.Close()
		}
		if err != nil {
			fail <- err
		}
	}()
	done := make(chan error, 1)
	go func() {
		if pol.passThrough() {
			_, err := io.Copy(client.W, server.R)
			done <- err
			return
		}
		done <- p.pumpServer(server.R)
	}()
	defer p.close()
	select {
	case err = <-done:
	case err = <-fail:
	case <-ctx.Done():
		err = ctx.Err()
	}
	return cdone, err
}

// proxy holds what both directions share: the filter and the writers to
// each end, which both directions write to (the relayed messages and the
// proxy's own answers).
type proxy struct {
	filter      ToolFilter
	keysOnce    sync.Once
	keys        []string      // excludeKeys(filter.Exclude), made once (allows)
	callTimeout time.Duration // 0: calls are not timed
	notices     io.Writer
	who         string // the server, as notices and refusals name it

	callsMu  sync.Mutex
	nextID   uint64                  // the last id the proxy gave a request toward the server (mcpids.go)
	calls    map[string]*pendingCall // timed calls outstanding, by the proxy's id (decimal)
	others   boundedRecord[awaited]  // the client's other requests outstanding, by the proxy's id
	byClient map[string]string       // the proxy's id of each outstanding request, by idKey of the client's
	ended    boundedRecord[string]   // why the proxy stopped awaiting a request, by its id: for the notice of its late answer
	idLimit  int                     // the bound of others and ended (maxTrackedIDs when 0)
	elicits  map[string]bool         // the server's elicitation/create requests the client has not answered, by idKey
	pauseOK  atomic.Bool             // the client's initialize names a host that pauses for elicitations
	now      func() time.Time        // the clock of the calls' active time; nil: time.Now

	mu       sync.Mutex
	toClient io.Writer
	clientW  *bufio.Writer // over toClient, made on the first line (lineWriter)
	closed   bool

	serverMu sync.Mutex // one line at a time
	toServer io.Writer
	serverW  *bufio.Writer // over toServer, made on the first line
}

func (p *proxy) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

func (p *proxy) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.callsMu.Lock()
	for _, c := range p.calls {
		c.stop()
	}
	p.calls, p.byClient, p.others, p.ended, p.elicits = nil, nil, boundedRecord[awaited]{}, boundedRecord[string]{}, nil
	p.callsMu.Unlock()
}

// sendClient writes one message line to the client: parts, one after
// another (a message, or the pieces of one, as rpcErrorParts gives them).
func (p *proxy) sendClient(parts ...[]byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errProxyClosed
	}
	p.clientW = lineWriter(p.clientW, p.toClient)
	return writeLine(p.clientW, parts...)
}

var errProxyClosed = errors.New("mcp proxy: closed")

// sendServer writes one message line to the server, as sendClient. An
// error means the server closed its input; its output's end ends the
// session.
func (p *proxy) sendServer(parts ...[]byte) error {
	p.serverMu.Lock()
	defer p.serverMu.Unlock()
	if p.toServer == nil {
		return errProxyClosed
	}
	p.serverW = lineWriter(p.serverW, p.toServer)
	return writeLine(p.serverW, parts...)
}

// lineBuffer is the buffer of the writer of each direction: a common
// line goes out in one write, and a long one is not copied (a run of
// it longer than the buffer is written from where it lies).
const lineBuffer = 64 << 10

// lineWriter is bw, or a writer of lineBuffer over w when there is
// none yet.
func lineWriter(bw *bufio.Writer, w io.Writer) *bufio.Writer {
	if bw == nil {
		bw = bufio.NewWriterSize(w, lineBuffer)
	}
	return bw
}

// writeLine writes parts, one message, as one line that every
// line-splitting reader an MCP peer may use reads as one line: the proxy
// judged it whole, so no reader may see a second message inside it. A
// "\r" — JSON whitespace, which Python's and Node's readline and Java's
// BufferedReader end a line at — is written as a space (so would a
// "\n", which the line readers' lines never hold); a raw U+0085, U+2028
// or U+2029 — in valid JSON only inside a string, and a line end to
// Java's Scanner and Python's splitlines — as its \u escape. Neither
// changes what a JSON message means. A part is whole JSON tokens, so no
// such character spans two. The line is written through w and flushed,
// never copied whole: a run of up to 16 MiB between two such characters
// is written from where it lies (a copy was 16 MiB more for each long
// line the proxy answered).
func writeLine(w io.Writer, parts ...[]byte) error {
	bw, ok := w.(*bufio.Writer)
	if !ok {
		bw = bufio.NewWriter(w)
	}
	for _, msg := range parts {
		writeEscaped(bw, msg)
	}
	_ = bw.WriteByte('\n')
	return bw.Flush() // the writer keeps its first error: Flush reports it
}

// writeEscaped writes msg to bw with its line ends escaped (writeLine).
func writeEscaped(bw *bufio.Writer, msg []byte) {
	last := 0
	for i := 0; i < len(msg); i++ {
		var esc string
		n := 1 // bytes replaced
		switch c := msg[i]; {
		case c == '\r' || c == '\n': // no "\n" reaches here; kept local
			esc = " "
		case c == 0xc2 && i+1 < len(msg) && msg[i+1] == 0x85:
			esc, n = `\u0085`, 2
		case c == 0xe2 && i+2 < len(msg) && msg[i+1] == 0x80 && msg[i+2] == 0xa8:
			esc, n = `\u2028`, 3
		case c == 0xe2 && i+2 < len(msg) && msg[i+1] == 0x80 && msg[i+2] == 0xa9:
			esc, n = `\u2029`, 3
		default:
			continue
		}
		_, _ = bw.Write(msg[last:i])
		_, _ = bw.WriteString(esc)
		last = i + n
		i = last - 1
	}
	_, _ = bw.Write(msg[last:])
}

// allows reports whether the filter lets the tool named name through
// (ToolFilter.Allows), with the exclude list's keys made on first use:
// both directions judge names, so they are made once for both.
func (p *proxy) allows(name string) bool {
	p.keysOnce.Do(func() { p.keys = excludeKeys(p.filter.Exclude) })
	return p.filter.allows(name, p.keys)
}

func (p *proxy) notice(format string, args ...any) {
	prefix := "bundlectl: mcp proxy: "
	if p.who != "" {
		prefix = "bundlectl: mcp proxy of " + p.who + ": "
	}
	fmt.Fprintf(p.notices, prefix+format+"\n", args...)
}

// server is how refusals sent to the client name the server.
func (p *proxy) server() string {
	if p.who == "" {
		return "this server"
	}
	return p.who
}

func (p *proxy) pumpClient(r io.Reader) error {
	lr := newLineReader(r)
	for {
		line, tooLong, err := lr.next()
		if p.isClosed() {
			return nil // the session is over: forward nothing more
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		var fwd bool
		var reply [][]byte
		unread := tooLong // a line the proxy scanned for its ids, and answered so
		if tooLong {
			reply = p.unreadClientLine(&lr.scan, lineTooLong)
		} else {
			r, bad := []byte(nil), false
			if fwd, r, bad = p.fromClient(line); r != nil {
				reply = [][]byte{r}
			}
			if bad {
				// Not UTF-8 JSON: nested past maxScanDepth, it is
				// read by the scan; else no id of it can be read.
				if deep := scanTooDeep(line); deep != nil && utf8.Valid(line) {
					reply, unread = p.unreadClientLine(deep, lineTooDeep), true
				} else {
					p.unanswered("line that is not a UTF-8 JSON message")
				}
			}
		}
		if reply != nil {
			if err := p.sendClient(reply...); err != nil {
				return err
			}
		}
		if tooLong {
			lr.scan.release() // after the answer, which holds its ids
		}
		if !fwd && !unread && p.callTimeout > 0 {
			p.noteClientDrop(line)
		}
		if fwd && p.callTimeout > 0 {
			p.noteClientInit(line)
			line = p.track(line) // before the server can answer; under the proxy's ids
			fwd = line != nil
			p.noteClientReplies(line)
		}
		if fwd {
			if err := p.sendServer(line); err != nil {
				return nil // the server closed its input: its output's end ends the session
			}
		}
	}
}

// unreadClientLine answers for a client line the proxy cannot relay,
// why: over MaxMCPMessage, or nested past maxScanDepth (lineTooDeep).
// scan has read the line; it is answered as fromClient reads the same
// line within the limit (lineTooLong), or as it would read it were
// encoding/json to read it (lineTooDeep):
// each request in it is answered with a parse error under its id (a
// batch's in one array), so that the client's call ends instead of
// waiting for a reply, and each reply in it ends the server's request
// under its id with an error. A line with no usable id, or a reply in it
// without one, may have answered any open elicitation: it ends every
// pause. It returns the answer to the client, in parts for sendClient
// (the ids are the scan's, not copied: they may come to 16 MiB); nil
// when the line has no request with an id the scan kept: a request it
// holds with no such id gets no answer, only a notice (unanswered).
func (p *proxy) unreadClientLine(scan *msgScanner, why unreadLine) [][]byte {
	msgs, unread, partial, ok := scan.clientBatch()
	if !ok {
		id, kind, one := scan.clientMessage()
		if one {
			msgs = []scannedMessage{{id: id, request: kind == msgRequest}}
		}
	}
	msg := limitError("message " + why.exceeds)
	tail := rpcErrorTail(rpcParseError, msg) // the same for every answer
	answers := [][]byte{nil}                 // "[" of a batch, in its place
	readable, unmatched := false, false
	for _, m := range msgs {
		if m.id == nil {
			// A reply with no id the scan keeps (null, none, another
			// type, past maxScanIDBytes) may answer any elicitation,
			// as noteClientReplies reads one within the limit.
			unmatched = unmatched || !m.request
			continue
		}
		readable = true
		if m.request {
			head := rpcErrorHead[1:]
			if len(answers) > 1 {
				head = rpcErrorHead // with the "," that parts a batch's answers
			}
			answers = append(answers, head, bytes.TrimSpace(m.id), tail)
			continue
		}
		p.notice("dropped a client reply %s; the server's request %s ends with an error", why.over, shownID(m.id))
		p.elicitationClosed(m.id) // answered, with the proxy's error
		_ = p.sendServer(rpcErrorParts(m.id, rpcInternalError, limitError("the client's reply "+why.exceeds+", "+why.most+"; it was dropped"))...)
	}
	if (!readable || unmatched || partial) && p.openElicitations() > 0 {
		p.notice("dropped a client line %s with no id it can read for a reply while an elicitation is open; calls are timed again", why.over)
		p.endPauses()
	}
	if unread > 0 {
		// No id of them is held: stderr says how many got no answer,
		// as an error under null would answer none of them.
		p.notice("%s", unreadMessages(why, unread))
	}
	switch {
	case len(answers) == 1:
		if !readable && unread == 0 {
			p.unanswered("line " + why.over + " with no id it can read")
		}
		return nil
	case ok:
		answers[0] = []byte{'['}
		return append(answers, []byte{']'})
	}
	return answers[1:]
}

// unreadMessages is the notice for the unread requests of a client
// batch over MaxMCPMessage, whose ids the scan did not keep: they get no
// answer (see unanswered).
func unreadMessages(why unreadLine, unread int) string {
	return limitError(fmt.Sprintf("dropped a client batch that %s; %d of its requests get no error, as bundlectl's MCP proxy reads the ids of the first %d messages of a batch, %d bytes of them together (an error under id null answers no request); send fewer messages a batch, or one a line", why.exceeds, unread, maxTrackedIDs, maxScanIDBytes))
}

// unanswered reports on stderr a client line, or message, the proxy
// drops (what) with no id it can answer under. No error goes to the
// client: under id null, the only id JSON-RPC leaves it, an error
// answers no request of any MCP client (MCP's request ids are strings
// or numbers), and real Codex 0.171.0 did not start a server that sent
// one before its initialize answer (agenttest
// TestHostsMCPNullIDErrorEndsNoRequest, the same line from the server).
func (p *proxy) unanswered(what string) {
	p.notice("%s", limitError("dropped a client "+what+"; it gets no error, having no id an error could go under (one under id null answers no request, and stops Codex starting the server)"))
}

// limitsHelp is the hint every error for a line past the proxy's limits
// ends with: the help that names them all (a line's bytes, its nesting,
// the ids of a batch), which runs as printed wherever bundlectl is, with
// no home or workspace — the error reaches a host's model or user, who
// may not know which the host started bundlectl mcp with.
const limitsHelp = "bundlectl mcp --help"

// limitError is msg, an error for a line past the proxy's limits, with
// the hint that names them (limitsHelp), as every refusal's hint line.
func limitError(msg string) string { return WithHint(msg, limitsHelp) }

// unreadLine is why the proxy relays no part of a line it scanned for
// its ids (msgScanner) to answer whoever waits on it.
type unreadLine struct {
	over    string // the line, as a notice says it: "over 16777216 bytes"
	exceeds string // what it does, as an error says it
	most    string // the proxy's limit, as an error says it
}

var (
	// lineTooLong is a line over MaxMCPMessage.
	lineTooLong = unreadLine{
		over:    fmt.Sprintf("over %d bytes", MaxMCPMessage),
		exceeds: fmt.Sprintf("exceeds %d bytes", MaxMCPMessage),
		most:    "the most bundlectl's MCP proxy passes on",
	}
	// lineTooDeep is a line within MaxMCPMessage nested past
	// maxScanDepth: encoding/json reads no such JSON, so the proxy
	// cannot judge it.
	lineTooDeep = unreadLine{
		over:    fmt.Sprintf("nested deeper than %d levels", maxScanDepth),
		exceeds: fmt.Sprintf("nests deeper than %d levels", maxScanDepth),
		most:    "the most bundlectl's MCP proxy reads",
	}
)

// scanTooDeep returns the scan of line, a line the proxy refused, if it
// is JSON nested past maxScanDepth, which encoding/json does not read;
// nil otherwise. A line of fewer bytes than two a level cannot nest so
// deep: it is not scanned. Bytes that are not UTF-8 in a string leave
// it JSON, as the server's relay reads a line (fromServer writes them
// as U+FFFD) and its scan over MaxMCPMessage does; the client's caller
// reads no id of such a line (it answers none), as fromClient reads none.
func scanTooDeep(line []byte) *msgScanner {
	if len(line) <= 2*maxScanDepth || !nestsPast(line, maxScanDepth) {
		return nil
	}
	var scan msgScanner
	scan.write(line)
	if scan.state != stEnd || !scan.tooDeep {
		return nil
	}
	return &scan
}

// nestsPast reports whether line opens more than depth containers at
// once outside its strings, as the scan counts them on any JSON it
// reads: a line that does not cannot be one the scan finds too deep.
// It is a tight loop where the scan steps through each byte, and
// pumpClient asks it of every line it refuses, a tools/call the filter
// refuses included: scanning such a line of 14 MiB of numbers whole
// took 166 ms, three times what refusing it took before; this, 22 ms.
func nestsPast(line []byte, depth int) bool {
	open := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '"':
			i = stringEnd(line, i) - 1
		case '{', '[':
			if open++; open > depth {
				return true
			}
		case '}', ']':
			open--
		}
	}
	return false
}

// joinAnswers is a batch of the answers, one line.
func joinAnswers(answers [][]byte) []byte {
	return append(append([]byte{'['}, bytes.Join(answers, []byte{','})...), ']')
}

// copyToServer is the unfiltered client-to-server copy; like pumpClient it
// reports read errors only, a server that closed its input being the
// session's end, seen on the server's output.
func copyToServer(w io.Writer, r io.Reader) error {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return nil
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (p *proxy) pumpServer(r io.Reader) error {
	lr := newLineReader(r)
	for {
		line, tooLong, err := lr.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if tooLong {
			err := p.unreadServerLine(&lr.scan, lineTooLong)
			lr.scan.release()
			if err != nil {
				return err
			}
			continue
		}
		if err := p.serverLine(line); err != nil {
			return err
		}
	}
}

// serverLine relays one server line within MaxMCPMessage to the client:
// filtered (fromServer), and a batch one message a line (batchMessages),
// each reply in it settled as one alone.
func (p *proxy) serverLine(line []byte) error {
	out, ok := p.fromServer(line)
	if !ok {
		if deep := scanTooDeep(line); deep != nil {
			return p.unreadServerLine(deep, lineTooDeep)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			p.notice("dropped a server line that is not one JSON message (a value, or a batch of objects)")
		}
		return nil
	}
	if firstByte(out) != '[' {
		return p.serverMessage(out)
	}
	for _, msg := range p.batchMessages(out) {
		if err := p.serverMessage(msg); err != nil {
			return err
		}
	}
	return nil
}

// serverMessage relays one server message, filtered, to the client as
// a line of its own: a reply settled (nil: dropped, a late answer to a
// call the proxy answered, say), an elicitation noted.
func (p *proxy) serverMessage(msg []byte) error {
	if msg = p.settleReplies(msg); msg == nil {
		return nil
	}
	if p.callTimeout > 0 {
		p.noteServerRequests(msg) // before the client can answer
	}
	return p.sendClient(msg)
}

// batchMessages is the messages of a server batch (a JSON array line)
// to relay, each its own line: its elements that are objects. None of Claude Code 2.1.332, Codex 0.171.0 and Gemini CLI 0.61.0
// reads a batch (agenttest TestHostsMCPProxyReplyShapes; MCP 2025-06-18
// has none): relayed whole, the answer to a call in it would stop the
// call's timer while the host never sees it, and the call would run to
// the host's own timeout, not the reviewed one. An element that is not
// an object is no message a host reads: it is dropped.
func (p *proxy) batchMessages(line []byte) [][]byte {
	var msgs [][]byte
	dropped := 0
	forElements(line, func(v span) bool {
		if e := line[v.start:v.end]; firstByte(e) == '{' {
			msgs = append(msgs, e)
		} else {
			dropped++
		}
		return true
	})
	switch {
	case dropped > 0:
		p.notice("dropped from a server batch %d of its elements, which are not message objects; the other %d are relayed one line each", dropped, len(msgs))
	case len(msgs) == 0:
		p.notice("dropped an empty server batch")
	}
	return msgs
}

// unreadServerLine answers, for a server line the proxy cannot relay,
// why (over MaxMCPMessage, or nested past maxScanDepth), scanned by
// scan, whoever waits for an answer to it, rather than
// nothing: the client's call a reply ends, the server for its own
// request. A reply is read as settleMessage reads one within the limit
// (msgScanner.reply), so its length never changes which call it ends;
// a batch is read message by message so (msgScanner.serverBatch), as
// serverLine settles each message of a batch (batchMessages, then
// settleReplies on each).
func (p *proxy) unreadServerLine(scan *msgScanner, why unreadLine) error {
	if msgs, ok := scan.serverBatch(); ok {
		if scan.batchLong { // the messages past maxTrackedIDs were not read
			p.notice("dropped a server batch %s of more than %d messages; the first %d are each answered as one alone, any later in it is not", why.over, len(msgs), len(msgs))
		} else {
			p.notice("dropped a server batch %s of %d messages; each reply and request in it is answered as one alone", why.over, len(msgs))
		}
		cut := 0
		for _, m := range msgs {
			switch {
			case m.settles:
				if err := p.unreadReply(m.id, asRelayed(m.id), why); err != nil {
					return err
				}
			case m.asks:
				p.unreadServerRequest(m.id, why)
			case m.cut:
				cut++
			}
		}
		if cut > 0 {
			// Their ids came after maxScanIDBytes of ids kept before
			// them: a reply among them ends no call (it runs to its
			// timeout), a request of the server's gets no error.
			p.notice("%s", limitError(fmt.Sprintf("skipped %d %s of a server batch %s: %s after the %d bytes of ids the proxy reads of a batch, so a reply there ends no call (the call runs to its timeout) and a request there gets no error", cut, plural(cut, "message", "messages"), why.over, plural(cut, "its id comes", "their ids come"), maxScanIDBytes)))
		}
		return nil
	}
	if id, ok := scan.reply(); ok {
		return p.unreadReply(id, asRelayed(id), why)
	}
	if id, kind, ok := scan.message(); ok && kind == msgRequest {
		p.unreadServerRequest(id, why)
		return nil
	}
	p.notice("dropped a server message %s", why.over)
	return nil
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// asRelayed is id as fromServer relays it: its bytes that are not UTF-8
// replaced. An id of up to 16 MiB that is UTF-8 is not copied.
func asRelayed(id json.RawMessage) json.RawMessage {
	if utf8.Valid(id) {
		return id
	}
	return bytes.ToValidUTF8(id, []byte("\uFFFD"))
}

// unreadServerRequest answers the server's request under id, in a line
// the proxy cannot relay (why), with an error: the server need not wait
// for the client's answer, which will not come.
func (p *proxy) unreadServerRequest(id json.RawMessage, why unreadLine) {
	p.notice("dropped a server message %s; its request %s was answered with an error", why.over, shownID(id))
	msg := limitError("request " + why.exceeds + ", " + why.most + "; it was dropped")
	_ = p.sendServer(rpcErrorParts(id, rpcInvalidRequest, msg)...)
}

// unreadReply answers the client's request a server reply the proxy
// cannot relay (why), under id (shown: as a relayed line would show it),
// answered: it gets an error in its place. A proxy that times calls
// forwarded the request under its own id: the error goes under the
// client's, and a reply no request awaits is dropped alone.
func (p *proxy) unreadReply(id, shown json.RawMessage, why unreadLine) error {
	clientID := shown
	if p.callTimeout > 0 {
		a, late := p.settle(id)
		if late != "" {
			p.notice("dropped a server message %s, the server's %s", why.over, late)
			return nil
		}
		clientID = a.id
	}
	p.notice("dropped a server message %s; the client's request %s ends with an error", why.over, shownID(clientID))
	msg := limitError("the reply of " + p.server() + " " + why.exceeds + ", " + why.most + "; it was dropped")
	return p.sendClient(rpcErrorParts(clientID, rpcInternalError, msg)...)
}

// fromClient decides what becomes of one client line: forwarded as is,
// and/or answered by the proxy. unreadable reports a line that is not
// UTF-8 JSON, which it neither forwards nor answers (the caller reads
// one nested too deep for encoding/json by its scan, and reports any
// other: unanswered). A refusal with no id to go under — a line that is
// no object or batch of objects, a message whose id is null or no string
// or number — is reported on stderr and gets no error (unanswered).
func (p *proxy) fromClient(line []byte) (forward bool, reply []byte, unreadable bool) {
	if len(bytes.TrimSpace(line)) == 0 {
		return false, nil, false
	}
	if !utf8.Valid(line) || !json.Valid(line) {
		return false, nil, true
	}
	switch firstByte(line) {
	case '{':
		v := p.judge(line)
		switch {
		case v.code == 0:
			return true, nil, false
		case v.id == nil:
			p.notice("dropped a notification: %s", v.msg)
			return false, nil, false
		case isNull(v.id):
			p.unanswered("message whose id is null or no string or number (" + v.msg + ")")
			return false, nil, false
		}
		return false, rpcError(v.id, v.code, v.msg), false
	case '[':
		elems, _ := arrayElements(line)
		if len(elems) == 0 {
			p.unanswered("batch that is empty")
			return false, nil, false
		}
		verdicts := make([]verdict, len(elems))
		refused := false
		for i, e := range elems {
			if firstByte(e) != '{' {
				p.unanswered("batch with an element that is not an object")
				return false, nil, false
			}
			verdicts[i] = p.judge(e)
			refused = refused || verdicts[i].code != 0
		}
		if !refused {
			return true, nil, false
		}
		var replies [][]byte
		for _, v := range verdicts {
			if v.id == nil || isNull(v.id) || !v.request {
				// No id to answer under; or a reply of the client's,
				// whose id is the server's request's: the client's own
				// request under the same id would take an error under
				// it for its answer, and then get the server's too.
				continue
			}
			if v.code == 0 {
				v.code, v.msg = rpcInvalidRequest, "batch refused: another request in it calls a tool the reviewed tool filter of "+p.server()+" does not allow"
			}
			replies = append(replies, rpcError(v.id, v.code, v.msg))
		}
		p.notice("refused a batch that calls a filtered tool")
		if len(replies) == 0 {
			return false, nil, false
		}
		return false, joinAnswers(replies), false
	}
	p.unanswered("line that is not an object or a batch")
	return false, nil, false
}

// isNull reports whether id is the JSON null.
func isNull(id json.RawMessage) bool { return string(bytes.TrimSpace(id)) == "null" }

// verdict is the proxy's judgement of one client message object: code 0
// lets it through; otherwise it is refused with code and msg, answered
// under id unless it has none (a notification).
type verdict struct {
	code    int
	msg     string
	id      json.RawMessage
	request bool // it has a method in any letter case: its sender awaits an answer under id
}

// judge refuses a tools/call the filter does not allow, and anything that
// could be a call it cannot read. obj is valid JSON (fromClient checked
// the line): judge walks it where it lies (forMembers) rather than
// decoding it, reading names as a decoder would (escapes read; any
// letter case, as a lenient reader matches them), so the common line
// costs no allocation of its members.
func (p *proxy) judge(obj []byte) verdict {
	if firstByte(obj) != '{' {
		return verdict{code: rpcInvalidRequest, msg: "invalid request"}
	}
	var buf [8]member
	ms := walkMembers(obj, buf[:0])
	id := walkedID(ms)
	isCall, isCancel, isRequest, isReply := false, false, false, false
	for _, m := range ms {
		isReply = isReply || nameFolds(m.name, "result") || nameFolds(m.name, "error")
		if !nameFolds(m.name, "method") {
			continue
		}
		method, ok := jsonString(m.val)
		if !ok {
			return verdict{code: rpcInvalidRequest, msg: "invalid request: method is not a string", id: id, request: true}
		}
		isCall = isCall || isCallMethod(method)
		isCancel = isCancel || strings.EqualFold(method, "notifications/cancelled")
		isRequest = true
	}
	v := p.judgeMessage(ms, id, isCall, isCancel, isRequest, isReply)
	v.request = isRequest
	return v
}

// judgeMessage is judge's verdict on the walked members ms of a message
// object, read as judge read them.
func (p *proxy) judgeMessage(ms []member, id json.RawMessage, isCall, isCancel, isRequest, isReply bool) verdict {
	if v := p.judgeRequestID(id, isRequest, isReply); v.code != 0 {
		return v
	}
	if isCancel && id != nil && p.callTimeout > 0 {
		// Forwarded as a request under the proxy's id, its requestId
		// would keep the client's id, which a server reading the
		// notification (ignoring the id) takes for the proxy's id of
		// another request.
		return verdict{code: rpcInvalidRequest, msg: "invalid request: notifications/cancelled is a notification and has no id", id: id}
	}
	if !isCall {
		return verdict{id: id}
	}
	seen := false
	for _, m := range ms {
		if !nameFolds(m.name, "params") {
			continue
		}
		if v := p.judgeCallParams(m.val, id); v.code != 0 {
			return v
		}
		seen = true
	}
	if !seen {
		return verdict{code: rpcInvalidParams, msg: "invalid params: tools/call without params", id: id}
	}
	return verdict{id: id}
}

// isCallMethod reports whether a server that looks a method up loosely
// may take method for tools/call: in any letter case, or read as an
// exclude filter reads a tool's name (toolKey: trimmed of white space,
// controls and invisible marks, cut at a NUL, NFKC and case folded), so
// that " tools/call", "tools/call\u0000" or a fullwidth "ｔｏｏｌｓ/call"
// is judged as a call, under either filter. A method of ASCII letters,
// "/" and "_" alone (every method a host sends) has no spelling but its
// letter case, and costs no normalisation.
//
// A method whose core (cut at a NUL and trimmed, as toolKey begins) is
// longer than maxLooseMethod is a call without being normalised (fail
// closed): no host writes one, and normalising a long one cost up to 64
// times its length, every message (a 16 MiB method of U+FDFA, which
// NFKC writes as 18 letters and spaces: 1 GB and 48 s of CPU).
func isCallMethod(method string) bool {
	if strings.EqualFold(method, "tools/call") {
		return true
	}
	if plainMethod(method) {
		return false
	}
	core := method
	if i := strings.IndexByte(core, 0); i >= 0 {
		core = core[:i]
	}
	if len(strings.TrimFunc(core, trimmedByAServer)) > maxLooseMethod {
		return true
	}
	return toolKey(method) == "tools/call"
}

// maxLooseMethod is the longest core of a method isCallMethod
// normalises: "tools/call" in fullwidth letters and a few marks is under
// a tenth of it.
const maxLooseMethod = 256

// plainMethod reports whether method is ASCII letters, "/" and "_"
// alone, which toolKey reads as its lower case.
func plainMethod[S string | []byte](method S) bool {
	for i := 0; i < len(method); i++ {
		if c := method[i] | 0x20; !('a' <= c && c <= 'z' || method[i] == '/' || method[i] == '_') {
			return false
		}
	}
	return true
}

// callMethodValue is isCallMethod of v, a method member's JSON value:
// false when it is no string; a plain one is read without a copy.
func callMethodValue(v []byte) bool {
	if stringFolds(v, "tools/call") {
		return true
	}
	if len(v) < 2 || v[0] != '"' || plainMethod(v[1:len(v)-1]) {
		return false
	}
	m, ok := jsonString(v)
	return ok && isCallMethod(m)
}

// judgeCallParams refuses a tools/call (answered under id) whose params
// are not an object, name no tool, or name one the filter does not
// allow; every member named "name" in any letter case counts.
func (p *proxy) judgeCallParams(params []byte, id json.RawMessage) verdict {
	if firstByte(params) != '{' {
		return verdict{code: rpcInvalidParams, msg: "invalid params: tools/call params is not an object", id: id}
	}
	var v verdict
	named := false
	forMembers(params, func(name []byte, s span) bool {
		if !nameFolds(name, "name") {
			return true
		}
		tool, ok := jsonString(params[s.start:s.end])
		switch {
		case !ok:
			v = verdict{code: rpcInvalidParams, msg: "invalid params: tools/call name is not a string", id: id}
		case !p.allows(tool):
			v = verdict{code: rpcInvalidParams, msg: fmt.Sprintf("tool %q is not available: the reviewed tool filter of %s does not allow it", tool, p.server()), id: id}
		}
		named = true
		return v.code == 0
	})
	if v.code == 0 && !named {
		v = verdict{code: rpcInvalidParams, msg: "invalid params: tools/call without a tool name", id: id}
	}
	return v
}

// member is one member of an object as written: its raw name (escapes
// as written) and its value's bytes.
type member struct{ name, val []byte }

// walkMembers appends the members of obj, a valid JSON object, to ms.
func walkMembers(obj []byte, ms []member) []member {
	forMembers(obj, func(name []byte, v span) bool {
		ms = append(ms, member{name, obj[v.start:v.end]})
		return true
	})
	return ms
}

// walkedID is messageID of walked members: the last member named
// exactly "id" (escapes read), else the last in another letter case; nil
// when there is none, null when it is not a string or a number.
func walkedID(ms []member) json.RawMessage {
	var id []byte
	exact := false
	for _, m := range ms {
		if is := nameIs(m.name, "id"); is || !exact && nameFolds(m.name, "id") {
			id, exact = m.val, is
		}
	}
	if id == nil {
		return nil
	}
	switch firstByte(id) {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'n':
		return bytes.Clone(id)
	}
	return json.RawMessage("null")
}

// judgeRequestID refuses, when the proxy times calls and so forwards
// each request under an id of its own (mcpids.go), a request it cannot
// map back: one whose id is not a string or a number (MCP allows no
// other, null included) or is longer than maxIDLen, and a message with
// both a method and a result or an error, which a server may read as a
// reply to a request of its own under the id the proxy gives it.
func (p *proxy) judgeRequestID(id json.RawMessage, isRequest, isReply bool) verdict {
	if p.callTimeout <= 0 || !isRequest || id == nil {
		return verdict{}
	}
	if isReply {
		return verdict{code: rpcInvalidRequest, msg: "invalid request: a message with both a method and a result or an error", id: id}
	}
	if !usableRequestID(id) {
		if firstByte(id) == '"' || firstByte(id) == '-' || firstByte(id) >= '0' && firstByte(id) <= '9' {
			return verdict{code: rpcInvalidRequest, msg: fmt.Sprintf("invalid request: its id is longer than %d bytes", maxIDLen), id: id}
		}
		return verdict{code: rpcInvalidRequest, msg: "invalid request: its id is not a string or a number", id: json.RawMessage("null")}
	}
	return verdict{}
}

// messageID is the id a reply goes under: the last "id" member, or the
// last one in another letter case; nil when there is none. An id that is
// not a string or a number is answered as null.
func messageID(ms []jsonobj.Member) json.RawMessage {
	var id json.RawMessage
	exact := false
	for _, m := range ms {
		if m.Key == "id" || !exact && strings.EqualFold(m.Key, "id") {
			id, exact = m.Val, m.Key == "id"
		}
	}
	if id == nil {
		return nil
	}
	switch firstByte(id) {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'n':
		return id
	}
	return json.RawMessage("null")
}

// fromServer returns the line to relay to the client, with refused tools
// removed from any tool list; ok is false when the line must be dropped:
// it is not one JSON value, or it is an array that may name a tool and
// holds an element that is not an object (a nested batch, which no
// client reads as JSON-RPC, but a lenient one might search for tools).
func (p *proxy) fromServer(line []byte) (out []byte, ok bool) {
	if !utf8.Valid(line) {
		line = bytes.ToValidUTF8(line, []byte("\uFFFD"))
	}
	// Every relayed line is one whole JSON value: a client that decodes
	// a stream of values rather than lines (the Go SDK's) cannot join
	// lines the proxy relayed into a message it did not judge.
	if !json.Valid(line) {
		return nil, false
	}
	if p.filter.Empty() || !mayNameTool(line) {
		return line, true
	}
	switch firstByte(line) {
	case '{':
		out, _ := p.filterMessage(line)
		return out, true
	case '[':
		elems, _ := arrayElements(line)
		changed := false
		for i, e := range elems {
			if firstByte(e) != '{' {
				// Not a batch a client reads (a nested array, say),
				// and it may name a tool: a list inside it would
				// reach the client unfiltered.
				return nil, false
			}
			var ch bool
			elems[i], ch = p.filterMessage(e)
			changed = changed || ch
		}
		if !changed {
			return line, true
		}
		return joinArray(elems), true
	}
	return line, true
}

// filterMessage filters the tool lists in every result member of a
// message object.
func (p *proxy) filterMessage(obj []byte) ([]byte, bool) {
	ms, ok := jsonobj.Members(obj)
	if !ok {
		return obj, false
	}
	changed := false
	for i, m := range ms {
		if !strings.EqualFold(m.Key, "result") || firstByte(m.Val) != '{' {
			continue
		}
		if v, ch := p.filterResult(m.Val); ch {
			ms[i].Val, changed = v, true
		}
	}
	if !changed {
		return obj, false
	}
	return joinObject(ms), true
}

// filterResult filters every tools member of a result object; a tools
// member that is not an array cannot be a list the filter has checked and
// becomes an empty one.
func (p *proxy) filterResult(obj []byte) ([]byte, bool) {
	ms, ok := jsonobj.Members(obj)
	if !ok {
		return obj, false
	}
	changed := false
	for i, m := range ms {
		if !strings.EqualFold(m.Key, "tools") {
			continue
		}
		if firstByte(m.Val) != '[' {
			ms[i].Val, changed = json.RawMessage("[]"), true
			continue
		}
		tools, _ := arrayElements(m.Val)
		kept := tools[:0]
		for _, t := range tools {
			if p.toolAllowed(t) {
				kept = append(kept, t)
			}
		}
		if len(kept) != len(tools) {
			ms[i].Val, changed = joinArray(kept), true
		}
	}
	if !changed {
		return obj, false
	}
	return joinObject(ms), true
}

// toolAllowed keeps a tool entry only if it is an object with at least
// one name, and every name it has is a string the filter allows.
func (p *proxy) toolAllowed(t []byte) bool {
	ms, ok := jsonobj.Members(t)
	if !ok {
		return false
	}
	named := false
	for _, m := range ms {
		if !strings.EqualFold(m.Key, "name") {
			continue
		}
		name, ok := jsonString(m.Val)
		if !ok || !p.allows(name) {
			return false
		}
		named = true
	}
	return named
}

// mayNameTool reports whether line could hold a member named "tools" (in
// any case, ſ folding to s): only an escape or the letters "tool" can
// spell one.
func mayNameTool(line []byte) bool {
	if bytes.Contains(line, []byte(`\u`)) {
		return true
	}
	for i := 0; i+4 <= len(line); i++ {
		if line[i]|0x20 == 't' && line[i+1]|0x20 == 'o' && line[i+2]|0x20 == 'o' && line[i+3]|0x20 == 'l' {
			return true
		}
	}
	return false
}

// arrayElements splits a valid JSON array into its elements.
func arrayElements(raw []byte) ([]json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, false
	}
	var es []json.RawMessage
	for dec.More() {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		es = append(es, v)
	}
	return es, true
}

func joinObject(ms []jsonobj.Member) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.Val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func joinArray(es []json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range es {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e)
	}
	b.WriteByte(']')
	return b.Bytes()
}

func jsonString(raw []byte) (string, bool) {
	if firstByte(raw) != '"' {
		return "", false
	}
	if s, ok := plainString(raw); ok {
		return s, true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// plainString is the value of raw, a JSON string written with no
// escape (as a method or a tool's name is), without decoding it; ok is
// false for any other, which jsonString decodes.
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	for _, c := range inner {
		if c < 0x20 || c == '"' || c == '\\' {
			return "", false
		}
	}
	if !utf8.Valid(inner) {
		return "", false // decoded, its bad bytes become U+FFFD
	}
	return string(inner), true
}

func firstByte(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

// rpcErrorHead is how the proxy's error begins, up to its id, after the
// "," that parts the answers of a batch.
var rpcErrorHead = []byte(`,{"jsonrpc":"2.0","id":`)

// rpcErrorTail is how the proxy's error with code and msg ends, after
// its id.
func rpcErrorTail(code int, msg string) []byte {
	quoted, _ := json.Marshal(msg)
	tail := strconv.AppendInt(append([]byte(nil), `,"error":{"code":`...), int64(code), 10)
	return append(append(append(tail, `,"message":`...), quoted...), "}}"...)
}

// rpcErrorParts is a JSON-RPC error response under id (null when nil or
// not one JSON value) in three parts, for sendClient or sendServer: its
// head, id and tail. id is not copied, and is written as it is, not as
// json.Marshal writes a RawMessage: it would write each <, > and & as a
// six-byte escape, in a buffer grown by copies, and an id may be most of
// 16 MiB (the scan keeps one that long): a line of 96 MiB, and 808 MB
// of RSS, for 16 MiB of "<". Both read as the same id; writeLine
// escapes the line ends some readers split at.
func rpcErrorParts(id json.RawMessage, code int, msg string) [][]byte {
	if id == nil || !json.Valid(id) {
		id = json.RawMessage("null")
	}
	return [][]byte{rpcErrorHead[1:], bytes.TrimSpace(id), rpcErrorTail(code, msg)}
}

// rpcError is rpcErrorParts as one message, made in one buffer of its
// size.
func rpcError(id json.RawMessage, code int, msg string) []byte {
	parts := rpcErrorParts(id, code, msg)
	return bytes.Join(parts, nil)
}

// keptLineBuffer is the most a lineReader keeps of its line buffer from
// one line to the next: the common line fits, and one of up to
// MaxMCPMessage costs its own buffer, let go once the next line is read.
const keptLineBuffer = 64 << 10

// lineReader reads newline-terminated lines of at most MaxMCPMessage
// bytes; the rest of a longer line is read and discarded, scanned as it
// passes for the message's id (scan).
type lineReader struct {
	br   *bufio.Reader
	max  int
	buf  []byte
	scan msgScanner
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), max: MaxMCPMessage}
}

// next returns the next line without its "\n" or "\r\n". tooLong reports
// a line over the limit, whose bytes are not returned; lr.scan.message
// then tells its id. A last line without a newline is returned before
// io.EOF.
func (lr *lineReader) next() (line []byte, tooLong bool, err error) {
	lr.buf = lr.buf[:0]
	if cap(lr.buf) > keptLineBuffer {
		// The last line was long (up to MaxMCPMessage, or over it):
		// a long-lived session would hold its buffer for good.
		lr.buf = nil
	}
	for {
		chunk, err := lr.br.ReadSlice('\n')
		switch {
		case tooLong:
			lr.scan.write(chunk)
		case len(lr.buf)+len(chunk) > lr.max+2: // room for "\r\n"
			lr.scan.reset()
			lr.scan.write(lr.buf)
			lr.scan.write(chunk)
			tooLong, lr.buf = true, lr.buf[:0]
		default:
			lr.buf = appendDoubling(lr.buf, chunk, lr.max+2)
		}
		switch {
		case err == nil:
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case len(lr.buf) == 0 && !tooLong:
			return nil, false, err
		}
		line := bytes.TrimSuffix(bytes.TrimSuffix(lr.buf, []byte("\n")), []byte("\r"))
		if len(line) > lr.max {
			lr.scan.reset()
			lr.scan.write(line)
			return nil, true, nil
		}
		return line, tooLong, nil
	}
}

// appendDoubling appends b to buf, growing it to twice its capacity, or
// to limit (which len(buf)+len(b) does not pass) once that is over half
// of it, when it must grow: append grows a large slice by a quarter, and
// the copies it left on the way to a 16 MiB line came to 100 MB.
func appendDoubling(buf, b []byte, limit int) []byte {
	if n := len(buf) + len(b); n > cap(buf) {
		c := max(2*cap(buf), n)
		if c > limit/2 {
			c = limit
		}
		buf = append(make([]byte, 0, c), buf...)
	}
	return append(buf, b...)
}

// ProxyError reports an MCP session that ExecFiltered ended because
// relaying failed (a write to the client failed, or reading it); the
// server was killed.
type ProxyError struct{ Err error }

func (e *ProxyError) Error() string { return "mcp proxy: " + e.Err.Error() }
func (e *ProxyError) Unwrap() error { return e.Err }

// ExecFiltered runs a stdio MCP server as Exec does, with ProxyMCP enforcing
// pol between stdio (the client) and the server: its tool filter and its
// per-call timeout (MCPPolicyOf gives both from the server's review, as
// ServeMCP uses them). With an empty filter and no CallTimeout it is
// Exec: stdio is passed straight through. spec.Timeout is not applied:
// it would end the whole session, not a call. The server's stderr is
// stdio.Err, which also receives the proxy's notices.
//
// It returns when the server has exited and its output has been relayed:
// at most DrainGrace later when a descendant that escaped containment
// holds the server's stdout, at most DrainGrace+SignalGrace later when the
// client does not read. If relaying fails the server is killed and the
// Result comes with a *ProxyError. Reading stdio.In is stopped with a
// read deadline where the file supports one (a pipe made by os.Pipe);
// otherwise (an inherited blocking stdin) the goroutine reading it ends
// at its next read and discards what it reads, so such an In must not be
// used for another session.
func ExecFiltered(ctx context.Context, spec Spec, stdio Stdio, pol MCPPolicy) (*Result, error) {
	return execFiltered(ctx, spec, stdio, pol, "")
}

// execFiltered is ExecFiltered with the whole policy; who names the
// server in the proxy's notices and refusals.
func execFiltered(ctx context.Context, spec Spec, stdio Stdio, pol MCPPolicy, who string) (*Result, error) {
	if pol.passThrough() {
		return Exec(ctx, spec, stdio)
	}
	spec.Timeout = 0
	if err := spec.check(); err != nil {
		return nil, err
	}
	if stdio.In == nil {
		stdio.In = os.Stdin
	}
	if stdio.Out == nil {
		stdio.Out = os.Stdout
	}
	if stdio.Err == nil {
		stdio.Err = os.Stderr
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, &StartError{Path: spec.Argv[0], Err: err}
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, &StartError{Path: spec.Argv[0], Err: err}
	}
	execCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	x, err := startExec(execCtx, spec, Stdio{In: inR, Out: outW, Err: stdio.Err})
	closeAll(inR, outW) // the server holds its own copies
	if err != nil {
		closeAll(inW, outR)
		return nil, err
	}
	type outcome struct {
		clientDone <-chan struct{}
		err        error
	}
	proxied := make(chan outcome, 1)
	go func() {
		cd, err := proxyMCP(context.Background(), MCPConn{R: stdio.In, W: stdio.Out}, MCPConn{R: outR, W: inW}, pol, stdio.Err, who)
		proxied <- outcome{cd, err}
	}()
	exited := make(chan *Result, 1)
	go func() { exited <- x.wait(execCtx) }()

	var res *Result
	var o outcome
	select {
	case res = <-exited:
		// The server is gone; its output reaches EOF unless an escaped
		// descendant holds it, which is not waited for, nor is a client
		// that does not read what is left.
		drain := time.AfterFunc(DrainGrace, func() { _ = outR.SetReadDeadline(time.Now()) })
		giveUp := time.NewTimer(DrainGrace + SignalGrace)
		select {
		case o = <-proxied:
		case <-giveUp.C:
		}
		drain.Stop()
		giveUp.Stop()
		if errors.Is(o.err, os.ErrDeadlineExceeded) {
			o.err = nil
		}
	case o = <-proxied:
		if o.err != nil {
			cancel() // relaying failed: the session is over
		}
		res = <-exited
	}
	if o.clientDone != nil && stdio.In.SetReadDeadline(time.Now()) == nil {
		select {
		case <-o.clientDone:
		case <-time.After(DrainGrace): // stuck writing to a client that does not read
		}
		_ = stdio.In.SetReadDeadline(time.Time{})
	}
	closeAll(inW, outR)
	if o.err != nil {
		return res, &ProxyError{Err: o.err}
	}
	return res, nil
}
