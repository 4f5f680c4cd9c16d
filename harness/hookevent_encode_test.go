package harness

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// encodeViaEncodingJSON is how HookEvent was written before encode:
// jsonobj.MarshalNoEscape of a MarshalJSON that encoded the named fields
// with encoding/json and decoded them again. encode must write its bytes.
func encodeViaEncodingJSON(e *HookEvent) ([]byte, error) {
	return jsonobj.MarshalNoEscape(referenceEvent(*e))
}

type referenceEvent HookEvent

func (r referenceEvent) MarshalJSON() ([]byte, error) {
	e := HookEvent(r)
	type plain HookEvent
	known, err := jsonobj.MarshalNoEscape(plain(e))
	if err != nil || len(e.raw) == 0 {
		return known, err
	}
	var set map[string]json.RawMessage
	if err := json.Unmarshal(known, &set); err != nil {
		return nil, err
	}
	order := e.order
	if len(order) != len(e.raw) {
		order = slices.Sorted(maps.Keys(e.raw))
	}
	var b []byte
	member := func(k string, v json.RawMessage) {
		if len(b) > 0 {
			b = append(b, ',')
		}
		name, _ := jsonobj.MarshalNoEscape(k) // as the old eventWriter.member wrote a name that is not plain
		b = append(append(append(b, name...), ':'), v...)
	}
	const nameKey = "hook_event_name"
	_, nameDue := set[nameKey]
	if _, given := e.raw[nameKey]; given {
		nameDue = false
	}
	leading := true
	for _, k := range order {
		leading = leading && hostLeadingField(k)
		if nameDue && !leading {
			member(nameKey, set[nameKey])
			delete(set, nameKey)
			nameDue = false
		}
		v, ok := e.raw[k]
		if !ok {
			return nil, fmt.Errorf("key %q lost", k)
		}
		if s, isNamed := set[k]; isNamed {
			// The prompt as the host wrote it while bundlectl left it.
			if !sameJSONString(s, v) && !(k == "prompt" && sameAsRead(s, v)) {
				v = s
			}
			delete(set, k)
		}
		member(k, v)
	}
	for _, k := range hookEventFields {
		if v, ok := set[k]; ok {
			member(k, v)
		}
	}
	return append(append([]byte{'{'}, b...), '}'), nil
}

// FuzzHookEventEncode: what a hook is given (encode, and MarshalJSON
// through encoding/json) is what the encoding/json version wrote, for
// an event as read and with tool_input and prompt changed by bundlectl.
func FuzzHookEventEncode(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"tool_name":"Bash","tool_input":{ "command" : "ls" },"x":[1, {"y":null}]}`,
		`{"hook_event_name":"Stop","stop_hook_active":true}`, `{"tool_input":null}`, `{"prompt":"\u202e \u2028 <&>"}`,
		`{"cwd":"/w/\ud800","tool_name":"Bash\udc00","x":"\ud800","prompt":"caf\u00e9"}`, `{"prompt":"a\ud800b"}`, `{"tool_name":"Bash\ud800","prompt":"\udc00\ud800","tool_input":{"command":"\ud800"}}`, "{\"Tool_Name\":\"Bash\",\"k\u2029\":\"\\u2028\",\"CWD\":\"/\"}",
		`{"session_id":"s","cwd":"/w","permission_mode":"default","tool_name":"Bash"}`,
		// a name that is not plain and holds "<", ">" or "&": written as
		// the hosts write it, unescaped
		`{"<\"":1,"a&\n>":"<"}`} {
		f.Add([]byte(s), []byte(`{"command": "ls -a", "n": [1,2]}`), "ask\u2028 <me>")
	}
	f.Fuzz(func(t *testing.T, data, toolInput []byte, prompt string) {
		ev, err := ParseHookEvent(data, "PreToolUse")
		if err != nil {
			return
		}
		// The fuzzer's tool_input and prompt may not be UTF-8, which no
		// host writes nor ParseHookEvent reads.
		utf8Given := utf8.Valid(toolInput) && utf8.ValidString(prompt)
		check := func(what string) {
			got, err := ev.encode()
			want, werr := encodeViaEncodingJSON(ev)
			if ev.order == nil && err == nil {
				got = withoutZeroWritten(t, ev.HookEventName, got) // the encoding/json version left them out
			}
			if err == nil && werr == nil && ev.order != nil && addsField(ev) {
				// The encoding/json version wrote an added field last:
				// the same members, the input's in its order.
				if !sameMembers(t, got, want) || !keepsOrder(t, got, ev.order) {
					t.Fatalf("%s %q: encode wrote %s; encoding/json %s", what, data, got, want)
				}
				want = got
			}
			if (err == nil) != (werr == nil) || string(got) != string(want) {
				t.Fatalf("%s %q: encode wrote %s (%v); encoding/json %s (%v)", what, data, got, err, want, werr)
			}
			if err != nil {
				return
			}
			// The prompt given as the host wrote it (a lone surrogate's
			// escape) still leaves one JSON object in UTF-8: a hook reads
			// every judged field as before.
			if !json.Valid(got) || utf8Given && !utf8.Valid(got) {
				t.Fatalf("%s %q: encode wrote %q, not JSON in UTF-8", what, data, got)
			}
			viaJSON, err := jsonobj.MarshalNoEscape(ev)
			if ev.order == nil && err == nil {
				viaJSON = withoutZeroWritten(t, ev.HookEventName, viaJSON)
			}
			if err != nil || string(viaJSON) != string(got) {
				t.Fatalf("%s %q: MarshalNoEscape wrote %s (%v); encode %s", what, data, viaJSON, err, got)
			}
		}
		check("read")
		if json.Valid(toolInput) {
			ev.ToolInput = toolInput
			check("tool_input changed")
		}
		ev.Prompt = prompt
		check("prompt changed")
		ev.raw, ev.order = nil, nil
		check("built")
	})
}

// withoutZeroWritten is the event object b without the members a built
// event writes at their zero value (writtenAtZero).
func withoutZeroWritten(t *testing.T, event string, b []byte) []byte {
	t.Helper()
	out := []byte{'{'}
	for _, m := range mustMembers(t, string(b)) {
		if writtenAtZero(event, m.Key) && (string(m.Val) == `""` || string(m.Val) == "false" || m.Key == "custom_instructions" && string(m.Val) == "null") {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		k, _ := jsonobj.MarshalNoEscape(m.Key)
		out = append(append(append(out, k...), ':'), m.Val...)
	}
	return append(out, '}')
}

// addsField reports whether ev has a named field set that its input
// lacks (hook_event_name apart).
func addsField(ev *HookEvent) bool {
	named, err := ev.namedMembers(false)
	if err != nil {
		return false
	}
	for _, m := range named {
		if _, ok := ev.raw[m.Key]; !ok && m.Key != "hook_event_name" {
			return true
		}
	}
	return false
}

func sameMembers(t *testing.T, a, b []byte) bool {
	t.Helper()
	am, bm := mustMembers(t, string(a)), mustMembers(t, string(b))
	byKey := func(x, y jsonobj.Member) int { return strings.Compare(x.Key, y.Key) }
	slices.SortFunc(am, byKey)
	slices.SortFunc(bm, byKey)
	return slices.EqualFunc(am, bm, func(x, y jsonobj.Member) bool { return x.Key == y.Key && string(x.Val) == string(y.Val) })
}

// keepsOrder reports whether the keys of the object b that order holds
// come in order's order.
func keepsOrder(t *testing.T, b []byte, order []string) bool {
	t.Helper()
	var keys []string
	for _, m := range mustMembers(t, string(b)) {
		if slices.Contains(order, m.Key) {
			keys = append(keys, m.Key)
		}
	}
	return slices.Equal(keys, order)
}
