package harness

import (
	"strconv"
	"strings"
	"testing"

	"github.com/bundlectl/bundlectl/internal/jsonobj"
)

// TestHookEventRefusalScansOnce: an event Scan refuses is worded by the
// encoding/json walk alone, not scanned a second time first: a hostile
// 16 MiB event with its case-variant name last cost a whole Scan more
// (a set of every name) before its refusal.
func TestHookEventRefusalScansOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"tool_name":"Bash","tool_input":{`)
	for i := range 2000 {
		b.WriteString(`"k` + strconv.Itoa(i) + `":1,`)
	}
	b.WriteString(`"K0":2}}`)
	data := []byte(b.String())
	scan := testing.AllocsPerRun(3, func() { jsonobj.Scan(data, jsonobj.UniqueFoldedInside) })
	walk := testing.AllocsPerRun(3, func() { _ = walkCheck(data, true) })
	parse := testing.AllocsPerRun(3, func() {
		if _, err := ParseHookEvent(data, "PreToolUse"); err == nil || !strings.Contains(err.Error(), `duplicate object key "K0"`) {
			t.Fatalf("ParseHookEvent: %v, want the walk's duplicate K0", err)
		}
	})
	if parse > scan+walk+scan/2 {
		t.Errorf("refusing took %v allocations: one Scan is %v, the walk %v", parse, scan, walk)
	}
}
