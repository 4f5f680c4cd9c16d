package harness

import (
	"strings"
	"sync"
	"testing"
)

// TestProxyFilterKeysFirstUseFromBothPumps: the exclude keys a proxy
// makes on first use (allows) are made once and read safely when the
// first names to judge come from both directions at once — a tools/call
// from the client, a tools/list result from the server — each pump in
// its own goroutine, released together; run with -race it reports no
// race (a plain nil check in place of the sync.Once fails it), and both
// judge as ToolFilter.Allows does.
func TestProxyFilterKeysFirstUseFromBothPumps(t *testing.T) {
	filter := ToolFilter{Exclude: []string{"Delete_ALL", "ＳＴＲＡẞＥ"}}
	var client strings.Builder
	var server strings.Builder
	for i := range 50 {
		name := []string{"delete_all", "echo", "strasse"}[i%3]
		client.WriteString(`{"jsonrpc":"2.0","id":` + string(rune('1'+i%9)) + `,"method":"tools/call","params":{"name":"` + name + `"}}` + "\n")
		server.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"delete_all"},{"name":"echo"},{"name":"STRASSE"}]}}` + "\n")
	}
	for range 20 {
		var toClient, toServer lockedBuffer
		p := &proxy{filter: filter, toClient: &toClient, toServer: &toServer}
		start := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			if err := p.pumpClient(strings.NewReader(client.String())); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			<-start
			if err := p.pumpServer(strings.NewReader(server.String())); err != nil {
				t.Error(err)
			}
		}()
		close(start)
		wg.Wait()
		if n := strings.Count(toServer.String(), `"name":"echo"`); n != 17 || strings.Contains(toServer.String(), "delete_all") || strings.Contains(toServer.String(), "strasse") {
			t.Fatalf("the server got %d calls of echo and %q; want the 17 calls of echo only", n, toServer.String())
		}
		if n := strings.Count(toClient.String(), `{"tools":[{"name":"echo"}]}`); n != 50 {
			t.Fatalf("the client got %d tool lists of echo alone in %q; want 50, among the refusals", n, toClient.String())
		}
	}
}
