package codex

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/bundlectl/bundlectl/harness"
	"github.com/bundlectl/bundlectl/hosts"
	"github.com/bundlectl/bundlectl/inventory"
)

// TestViewHookLineEvent: each hook line of the view names its event
// (--event), so hooks exec answers a guard that cannot run in the form
// Codex honours even when neither the input nor the roots tell the event
// (a stop on PreCompact, where Codex takes exit 2 as a failed hook), and
// the trust hash recorded for the launch covers the line as written.
func TestViewHookLineEvent(t *testing.T) {
	inv := &inventory.Inventory{Hooks: []inventory.Hook{
		{ID: "a1", Event: "PreCompact", Type: "command", Command: "./g"},
		{ID: "b1", Event: "PreToolUse", Matcher: "Bash", Type: "command", Command: "./g"},
	}}
	b := hosts.NewBundle(harness.ActiveBundle{Name: "p", Inventory: inv}, "codex")
	v, err := Host{}.View(b, hosts.Reentry{Exe: "/usr/bin/bundlectl", Home: "/h", Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	data, ok := v.File(Version + "/" + HooksFile)
	if !ok {
		t.Fatalf("no %s in the view: %v", HooksFile, v.Paths())
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher string           `json:"matcher"`
			Hooks   []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for event, id := range map[string]string{"PreCompact": "a1", "PreToolUse": "b1"} {
		gs := doc.Hooks[event]
		if len(gs) != 1 || len(gs[0].Hooks) != 1 {
			t.Fatalf("%s: %s", event, data)
		}
		h := gs[0].Hooks[0]
		want := "/usr/bin/bundlectl --home /h --workspace /w hooks exec --host codex --event " + event + " p " + id
		if h["command"] != want {
			t.Errorf("%s: command %v, want %s", event, h["command"], want)
		}
		key := fmt.Sprintf("%s:%s:0:0", HooksFile, EventKey(event))
		if got, wantHash := v.Meta[key], HookHash(event, gs[0].Matcher, want, int(h["timeout"].(float64)), false); got != wantHash {
			t.Errorf("%s: trust hash %s, want %s (over the line as written)", event, got, wantHash)
		}
	}
}
