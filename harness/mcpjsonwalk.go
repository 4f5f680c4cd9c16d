package harness

import (
	"bytes"
	"encoding/json"
	"strings"
)

// A walk over a JSON message as written, for the proxy's hot path: it
// finds the top-level members of an object (or the elements of an array)
// and where each value lies in the line, so that the proxy can read an id
// or a method and put its own id in place of one without decoding the
// line or copying any part of it. The line must be valid JSON (the proxy
// has checked it with json.Valid); on anything else the walk stops early
// and never reads out of bounds.

// span is where a value lies in a line: line[start:end].
type span struct{ start, end int }

// forMembers calls fn with the raw name (between its quotes, escapes as
// written) and the value's span of each member of obj, a JSON object, in
// order; it stops when fn returns false.
func forMembers(obj []byte, fn func(name []byte, v span) bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	for i++; ; i++ {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return // "}" or not an object
		}
		nameEnd := stringEnd(obj, i)
		name := obj[i+1 : max(i+1, nameEnd-1)]
		i = skipSpace(obj, nameEnd)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		i = skipSpace(obj, i+1)
		end := valueEnd(obj, i)
		if !fn(name, span{i, end}) {
			return
		}
		if i = skipSpace(obj, end); i >= len(obj) || obj[i] != ',' {
			return
		}
	}
}

// forElements calls fn with the span of each element of arr, a JSON
// array, in order; it stops when fn returns false.
func forElements(arr []byte, fn func(v span) bool) {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return
	}
	for i++; ; i++ {
		if i = skipSpace(arr, i); i >= len(arr) || arr[i] == ']' {
			return
		}
		end := valueEnd(arr, i)
		if end <= i || !fn(span{i, end}) {
			return
		}
		if i = skipSpace(arr, end); i >= len(arr) || arr[i] != ',' {
			return
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// stringEnd is the index just past the string that starts at b[i] (a
// quote).
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// valueEnd is the index just past the value that starts at b[i].
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i // a number, true, false or null
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && !isSpace(b[j]) {
		j++
	}
	return j
}

// nameFolds reports whether a member's raw name is name in any letter
// case (strings.EqualFold), as a lenient reader matches it.
func nameFolds(raw []byte, name string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return bytes.EqualFold(raw, []byte(name))
	}
	s, ok := jsonString(append(append([]byte{'"'}, raw...), '"'))
	return ok && strings.EqualFold(s, name)
}

// nameIs reports whether a member's raw name is exactly name once its
// escapes are read.
func nameIs(raw []byte, name string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == name
	}
	s, ok := jsonString(append(append([]byte{'"'}, raw...), '"'))
	return ok && s == name
}

// stringFolds reports whether the JSON value v is a string equal to s in
// any letter case.
func stringFolds(v []byte, s string) bool {
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	if inner := v[1 : len(v)-1]; bytes.IndexByte(inner, '\\') < 0 {
		return bytes.EqualFold(inner, []byte(s))
	}
	got, ok := jsonString(v)
	return ok && strings.EqualFold(got, s)
}

// splice returns line with each span in spans (in order, not
// overlapping) replaced by repl.
func splice(line []byte, spans []span, repl []byte) []byte {
	n := len(line)
	for _, s := range spans {
		n += len(repl) - (s.end - s.start)
	}
	out := make([]byte, 0, n)
	last := 0
	for _, s := range spans {
		out = append(append(out, line[last:s.start]...), repl...)
		last = s.end
	}
	return append(out, line[last:]...)
}

// rawValue is v as a json.RawMessage of its own (a copy: the line it came
// from is reused).
func rawValue(line []byte, v span) json.RawMessage {
	return json.RawMessage(bytes.Clone(line[v.start:v.end]))
}
