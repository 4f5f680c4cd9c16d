package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// bigHookEvent is a Claude Code PostToolUse event of about size bytes,
// as a Write of a large file gives it: half of it tool_input.content, a
// source text with quotes, backslashes, tabs, newlines and non-ASCII to
// escape, and half a tool_response nested as an MCP server's structured
// result is (objects of a few keys in arrays in objects), where every
// object's keys are checked.
func bigHookEvent(size int) []byte {
	b := buildHookEvent(size)
	return buildHookEvent(size * size / len(b)) // the escapes make it longer than its parts
}

func buildHookEvent(size int) []byte {
	var content strings.Builder
	for i := 0; content.Len() < size/2; i++ {
		fmt.Fprintf(&content, "\tfmt.Printf(\"line %%d: caf\u00e9 \\\\ %q\\n\", %d) // \u2713 <&>\n", "x", i)
	}
	type entry struct {
		ID   int               `json:"id"`
		Name string            `json:"name"`
		Path string            `json:"path"`
		Tags []string          `json:"tags"`
		Meta map[string]any    `json:"meta"`
		Kids []map[string]bool `json:"kids"`
	}
	var items []entry
	n := 0
	for n < size/2 {
		e := entry{ID: len(items), Name: fmt.Sprintf("item-%d \u00fc", len(items)), Path: fmt.Sprintf("/tmp/work/src/pkg%d/file%d.go", len(items)%17, len(items)),
			Tags: []string{"a", "b\"c"}, Meta: map[string]any{"size": 1234.5, "ok": true, "owner": "x", "group": nil}, Kids: []map[string]bool{{"x": true}, {"y": false}}}
		b, _ := json.Marshal(e)
		n += len(b) + 1
		items = append(items, e)
	}
	ev := map[string]any{
		"session_id":      "70a07430-476a-4b48-b2ea-6240c8104662",
		"transcript_path": "/tmp/home/.claude/projects/-tmp-work/70a07430-476a-4b48-b2ea-6240c8104662.jsonl",
		"cwd":             "/tmp/work",
		"permission_mode": "default",
		"hook_event_name": "PostToolUse",
		"tool_name":       "Write",
		"tool_input":      map[string]any{"file_path": "/tmp/work/big.go", "content": content.String()},
		"tool_response":   map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok"}}, "structuredContent": map[string]any{"items": items}},
		"tool_use_id":     "toolu_01",
	}
	b, err := jsonobj.MarshalNoEscape(ev)
	if err != nil {
		panic(err)
	}
	return b
}

// hookStdin is what FireChain writes to a hook's stdin.
func hookStdin(ev *HookEvent) ([]byte, error) { return ev.encode() }

// BenchmarkHookEventRead is what hooks run does with a large event before
// its first hook runs: take the cwd that chooses the workspace and read
// the event, its duplicate and letter-case key checks included (read);
// what it does before each hook, write the event for it (write); and a
// chain of three hooks run in process (chain).
func BenchmarkHookEventRead(b *testing.B) {
	for _, size := range []int{1 << 20, MaxHookEventBytes - 64<<10} {
		in := bigHookEvent(size)
		if len(in) > MaxHookEventBytes {
			b.Fatalf("event of %d bytes", len(in))
		}
		b.Run(fmt.Sprintf("bytes=%d/read", len(in)), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if eventCwd(in) == "" {
					b.Fatal("no cwd")
				}
				if _, err := ParseHookEvent(in, "PostToolUse"); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("bytes=%d/chain", len(in)), func(b *testing.B) {
			ev, err := ParseHookEvent(in, "PostToolUse")
			if err != nil {
				b.Fatal(err)
			}
			// Three hooks that each read the event and let it pass, run
			// in this process: bundlectl's own cost of a chain.
			pass := func(_ context.Context, spec Spec) (*Result, error) {
				if len(spec.Stdin) < len(in)/2 {
					return nil, errors.New("short stdin")
				}
				return &Result{}, nil
			}
			hooks := []RunnableHook{{Bundle: "b", Index: 0, Run: pass}, {Bundle: "b", Index: 1, Run: pass}, {Bundle: "b", Index: 2, Run: pass}}
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if o, err := FireChain(context.Background(), hooks, ev); err != nil || o.Blocked || len(o.Errors) > 0 {
					b.Fatal(o, err)
				}
			}
		})
		b.Run(fmt.Sprintf("bytes=%d/write", len(in)), func(b *testing.B) {
			ev, err := ParseHookEvent(in, "PostToolUse")
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if _, err := hookStdin(ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
