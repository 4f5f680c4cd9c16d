package hosts

import (
	"bytes"
	"slices"
	"strings"

	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// How a parsed document was written, so that setup's edit leaves every
// byte of the user's file outside what it changes as it was: white space,
// line breaks (CRLF too) and comments.
//
// What setup adds is written in the file's own line break and
// indentation (that of the members beside it, else one level more than
// the container, a level being the file's first). A container written on
// one line that gets a new member is spread over lines, one member a
// line, its comments kept. A comment in what setup takes out
// (a member it removes, or a value it replaces) is kept where that was:
// on a line of its own if it had one (after the same blank lines, at the
// indentation of the members there), else after what comes before.

// layout is how a parsed object or array was written.
type layout struct {
	members []*member
	// end is what lies between the last member (or the opening bracket)
	// and the closing bracket.
	end []byte
}

// member is one member of a parsed object or one item of an array, as
// written.
type member struct {
	key  string // objects only
	node *JSON  // as parsed: a member whose node is still there is kept
	// lead is what lies after the opening bracket or the comma before,
	// up to the key (or the item); keyText is the key as written, colon
	// what lies between it and the value, ':' included.
	lead, keyText, colon []byte
	value                []byte
	// after is what lies between the value and the comma after it
	// (nothing for the last member); text is the whole member, lead to
	// after.
	after, text         []byte
	textStart, valueEnd int // offsets, while parsing
}

// document is what surrounds a parsed document's value in its file.
type document struct {
	lead, trail []byte
	nl          string // the file's line break: "\n" or "\r\n"
	unit        string // one level of its indentation
	indent      string // that of the value's line
}

// newlineOf is the line break data uses: CRLF when every line ends so.
func newlineOf(data []byte) string {
	if n := bytes.Count(data, []byte("\n")); n > 0 && bytes.Count(data, []byte("\r\n")) == n {
		return "\r\n"
	}
	return "\n"
}

// lineIndent is the indentation of the line gap ends on, or parent when
// gap holds no line break (what follows it is on the line before).
func lineIndent(gap []byte, parent string) string {
	i := bytes.LastIndexByte(gap, '\n')
	if i < 0 {
		return parent
	}
	line := gap[i+1:]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
}

// unitOf is one level of indentation of the document whose value v is,
// on a line indented by indent: how far its first member on a line of
// its own is indented past it; two spaces when none is.
func unitOf(v *JSON, indent string) string {
	if v.lay != nil {
		for _, m := range v.lay.members {
			if bytes.IndexByte(m.lead, '\n') < 0 {
				continue
			}
			if li := lineIndent(m.lead, indent); len(li) > len(indent) && strings.HasPrefix(li, indent) {
				return li[len(indent):]
			}
			break
		}
	}
	return "  "
}

// Marshal writes j: a document parsed from a file as it was written
// there, but for what changed since; a value built here indented by two
// spaces, with a final newline.
func (j *JSON) Marshal() []byte {
	if j.doc == nil {
		w := &writer{nl: "\n", unit: "  "}
		w.value(j, "")
		w.put([]byte("\n"), "")
		return w.b.Bytes()
	}
	w := &writer{nl: j.doc.nl, unit: j.doc.unit}
	w.put(j.doc.lead, j.doc.indent)
	w.value(j, j.doc.indent)
	w.put(j.doc.trail, j.doc.indent)
	return w.b.Bytes()
}

// writer writes a document, parts kept as written and parts new.
type writer struct {
	b        bytes.Buffer
	nl, unit string
	// inLine: the output ends inside a // comment, which what follows
	// must not join.
	inLine bool
}

// put writes text, which starts outside strings and comments, first
// starting a new line (indented by indent) when the output ends inside
// a // comment and text does not start one. When it does, the spaces or
// tabs before its line break are left out: after a comment moved there
// (one in what setup took out) they would end the comment, which would
// then not be as written (commentsKept).
func (w *writer) put(text []byte, indent string) {
	if len(text) == 0 {
		return
	}
	switch {
	case w.inLine && startsNewLine(text):
		text = bytes.TrimLeft(text, " \t")
	case w.inLine && bytes.HasSuffix(w.b.Bytes(), []byte("\r")):
		w.b.WriteString("\n" + indent) // a CR the comment ended on
	case w.inLine:
		w.b.WriteString(w.nl + indent)
	}
	w.b.Write(text)
	w.inLine = endsInLineComment(text)
}

func (w *writer) puts(s, indent string) { w.put([]byte(s), indent) }

// piece is a comment moved out of what setup took out, with the white
// space and line breaks before it.
type piece struct{ pre, text []byte }

// commentsIn are the comments of text (which starts outside strings and
// comments) as pieces.
func commentsIn(text []byte) []piece {
	var out []piece
	for _, c := range jsonComments(text) {
		before := text[:c.start]
		out = append(out, piece{pre: before[len(bytes.TrimRight(before, " \t\r\n")):], text: text[c.start:c.end]})
	}
	return out
}

// pieces writes moved comments where they now are, members indented by
// indent: one that had a line of its own on a line of its own, at that
// indentation, another after what comes before (on a new line when that
// is a // comment).
func (w *writer) pieces(ps []piece, indent string) {
	for _, p := range ps {
		pre := p.pre
		if i := bytes.LastIndexByte(pre, '\n'); i >= 0 {
			// From the first line break (white space before it would
			// join a // comment before), to the new indentation.
			pre = append(bytes.Clone(pre[bytes.IndexAny(pre, "\r\n"):i+1]), indent...)
		} else if w.inLine {
			pre = []byte(w.nl + indent)
		}
		w.put(pre, indent)
		w.put(p.text, indent)
	}
}

// value writes j, on a line indented by indent.
func (w *writer) value(j *JSON, indent string) {
	switch {
	case j.Kind == JSONScalar:
		w.put(j.Scalar, indent)
	case j.lay != nil:
		w.laidOut(j, indent)
	default:
		w.fresh(j, indent)
	}
}

// slot is one member of an object or array as it is now.
type slot struct {
	key  string
	node *JSON
}

func (j *JSON) slots() []slot {
	var ss []slot
	if j.Kind == JSONObject {
		for _, k := range j.Keys {
			ss = append(ss, slot{k, j.Fields[k]})
		}
		return ss
	}
	for _, it := range j.Items {
		ss = append(ss, slot{node: it})
	}
	return ss
}

func brackets(j *JSON) (open, close string) {
	if j.Kind == JSONObject {
		return "{", "}"
	}
	return "[", "]"
}

// member writes a new member: its key, for an object, and value.
func (w *writer) member(object bool, s slot, indent string) {
	if object {
		k, _ := jsonobj.MarshalNoEscape(s.key)
		w.put(k, indent)
		w.puts(": ", indent)
	}
	w.value(s.node, indent)
}

// fresh writes a container built here: a member a line, one level in.
func (w *writer) fresh(j *JSON, indent string) {
	open, close := brackets(j)
	ss := j.slots()
	if len(ss) == 0 {
		w.puts(open+close, indent)
		return
	}
	w.puts(open, indent)
	inner := indent + w.unit
	for i, s := range ss {
		if i > 0 {
			w.puts(",", inner)
		}
		w.puts(w.nl+inner, inner)
		w.member(j.Kind == JSONObject, s, inner)
	}
	w.puts(w.nl+indent, indent)
	w.puts(close, indent)
}

// match says, of each member now, which member as parsed it keeps (the
// same node) or replaces (an object's member of the same key), in order,
// or -1 for a new one; and the index of the last one that is not new.
func (lay *layout) match(ss []slot, object bool) (placed []int, last int) {
	byNode := map[*JSON]int{}
	byKey := map[string]int{}
	for i, m := range lay.members {
		byNode[m.node] = i
		if object {
			byKey[m.key] = i
		}
	}
	next, last := 0, -1
	for i, s := range ss {
		o, ok := byNode[s.node]
		if !ok && object {
			o, ok = byKey[s.key]
		}
		if !ok || o < next {
			placed = append(placed, -1)
			continue
		}
		placed = append(placed, o)
		next, last = o+1, i
	}
	return placed, last
}

// laidOut writes a parsed container as it was written, but for the
// members taken out (their comments kept), replaced or added.
func (w *writer) laidOut(j *JSON, indent string) {
	lay, object := j.lay, j.Kind == JSONObject
	open, close := brackets(j)
	ss := j.slots()
	placed, last := lay.match(ss, object)
	multiline := bytes.IndexByte(lay.end, '\n') >= 0
	for _, m := range lay.members {
		multiline = multiline || bytes.IndexByte(m.lead, '\n') >= 0
	}
	spread := !multiline && slices.Contains(placed, -1)
	inner := indent + w.unit
	for _, m := range lay.members {
		if bytes.IndexByte(m.lead, '\n') >= 0 {
			inner = lineIndent(m.lead, indent)
			break
		}
	}
	end := lay.end
	if spread {
		end = append(bytes.TrimRight(bytes.Clone(end), " \t"), w.nl+indent...)
	}
	endA, endB := splitEnd(end, []byte(w.nl+indent))

	w.puts(open, indent)
	var moved []piece
	next, wrote, endDone := 0, false, false
	takeOut := func(to int) {
		for _, m := range lay.members[next:to] {
			moved = append(moved, commentsIn(m.text)...)
		}
		next = max(next, to)
	}
	for i, s := range ss {
		if wrote {
			w.puts(",", inner)
		}
		wrote = true
		o := placed[i]
		if o < 0 {
			if i > last && !endDone {
				// After every member kept: those taken out after them,
				// and what ended the container, come before the new ones.
				takeOut(len(lay.members))
				w.pieces(append(moved, commentsIn(endA)...), inner)
				moved = nil
				endDone = true
			}
			w.puts(w.nl+inner, inner)
			w.member(object, s, inner)
			continue
		}
		takeOut(o)
		next = o + 1
		m := lay.members[o]
		lead := m.lead
		if spread {
			lead = spreadLead(m.lead, w.nl+inner)
		}
		w.pieces(moved, inner)
		moved = nil
		w.put(lead, inner)
		at := lineIndent(lead, indent)
		if object {
			w.put(m.keyText, at)
			w.put(m.colon, at)
		}
		w.value(s.node, at)
		if s.node != m.node {
			w.pieces(commentsIn(m.value), at)
		}
		w.put(m.after, at)
	}
	takeOut(len(lay.members))
	w.pieces(moved, inner)
	switch {
	case endDone:
		w.put(endB, indent)
	case !wrote && len(moved) == 0 && len(lay.members) > 0 && len(jsonComments(end)) == 0:
		// Every member taken out, and nothing to keep: "{}", "[]".
	default:
		w.put(end, indent)
	}
	w.puts(close, indent)
}

// spreadLead is the lead of a member of a container written on one line
// that setup spreads over lines: on a line of its own, its comments (no
// // comment: that would end the line) kept.
func spreadLead(lead []byte, line string) []byte {
	if c := bytes.TrimSpace(lead); len(c) > 0 {
		return []byte(line + string(c) + " ")
	}
	return []byte(line)
}

// splitEnd splits the end of a container where new members go: before
// the line break that starts the closing bracket's line, when that line
// holds nothing else; otherwise after all of end, the bracket then on a
// line of its own (brk).
func splitEnd(end, brk []byte) (before, after []byte) {
	if i := bytes.LastIndexByte(end, '\n'); i >= 0 && len(bytes.Trim(end[i+1:], " \t")) == 0 {
		if i > 0 && end[i-1] == '\r' {
			i--
		}
		return end[:i], end[i:]
	}
	return end, brk
}

// layoutAsBefore is next, a JSON file with setup's entries taken out of it
// after a change since setup (--undo), with each object or list below
// the top that holds again what it held in before (the file as it was
// before the first setup), and was written there on one line, written as
// there: setup spread it over lines to add its entries, and taking them
// out left it so. Anything else stays as in next: a container the change
// reached, the top (where the change most often is), and a file either
// of which does not parse as JSON (a TOML one) or holds a comment (whose
// place a rewrite could move). The result reads as next does, or next
// is returned.
func layoutAsBefore(next, before []byte) []byte {
	if len(jsonComments(next)) > 0 || len(jsonComments(before)) > 0 {
		return next
	}
	n, err := ParseJSONAs(next, CommentedJSON)
	if err != nil {
		return next
	}
	b, err := ParseJSONAs(before, CommentedJSON)
	if err != nil || !restoreOneLine(n, b) {
		return next
	}
	out := n.Marshal()
	if o, err := ParseJSONAs(out, CommentedJSON); err != nil || !sameJSON(o, n) {
		return next
	}
	return out
}

// restoreOneLine puts in n, for each member container of an object that
// is as its counterpart in b (same key) and was written on one line there
// and not here, b's, as written; and says whether it put any. An item of
// a list is looked into, not replaced: Marshal keeps a list's item by
// the node it parsed, and would write another as new.
func restoreOneLine(n, b *JSON) bool {
	if n.Kind != b.Kind || n.Kind == JSONScalar {
		return false
	}
	put := false
	if n.Kind == JSONArray {
		if len(n.Items) == len(b.Items) {
			for i := range n.Items {
				put = restoreOneLine(n.Items[i], b.Items[i]) || put
			}
		}
		return put
	}
	for _, k := range n.Keys {
		nv, bv := n.Fields[k], b.Fields[k]
		switch {
		case bv == nil || nv.Kind == JSONScalar || nv.Kind != bv.Kind:
		case onOneLine(bv) && !onOneLine(nv) && sameJSON(nv, bv):
			n.Fields[k] = bv
			put = true
		default:
			put = restoreOneLine(nv, bv) || put
		}
	}
	return put
}

// onOneLine says whether a parsed container was written on one line.
func onOneLine(j *JSON) bool {
	if j.lay == nil || bytes.IndexByte(j.lay.end, '\n') >= 0 {
		return false
	}
	for _, m := range j.lay.members {
		if bytes.IndexByte(m.text, '\n') >= 0 {
			return false
		}
	}
	return true
}

// sameJSON says whether a and b hold the same, keys in the same order,
// numbers and strings as written.
func sameJSON(a, b *JSON) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case JSONScalar:
		return bytes.Equal(a.Scalar, b.Scalar)
	case JSONObject:
		if !slices.Equal(a.Keys, b.Keys) {
			return false
		}
		for _, k := range a.Keys {
			if !sameJSON(a.Fields[k], b.Fields[k]) {
				return false
			}
		}
		return true
	}
	if len(a.Items) != len(b.Items) {
		return false
	}
	for i := range a.Items {
		if !sameJSON(a.Items[i], b.Items[i]) {
			return false
		}
	}
	return true
}
