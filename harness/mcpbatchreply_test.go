package harness

import (
	"strings"
	"testing"
	"time"
)

// TestProxyRefusedBatchAnswersNoReplyOfTheClient: a client batch the
// proxy refuses for a filtered call is answered for its requests only.
// A reply in it (the client's answer to a request of the server's, say
// roots/list under the server's id 3) is no request of the client's: its
// id is the server's, and the client's own ids are another space, where
// its request 3 (tools/list here) may be outstanding. The proxy answered
// the client under 3 with the batch's refusal, which the client took for
// the answer to its tools/list, and then relayed the server's real
// answer to it, a second answer under 3. A proxy that only filters
// passes the client's ids on, and answered so too.
func TestProxyRefusedBatchAnswersNoReplyOfTheClient(t *testing.T) {
	for _, timed := range []bool{false, true} {
		var toClient, toServer, notices lockedBuffer
		p := &proxy{filter: excludeFilter, toClient: &toClient, toServer: &toServer, notices: &notices}
		if timed {
			p.callTimeout = time.Hour
			t.Cleanup(p.close)
		}
		in := `{"jsonrpc":"2.0","id":3,"method":"tools/list"}` + "\n" +
			`[{"jsonrpc":"2.0","id":3,"result":{"roots":[]}},{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"delete_all"}}]` + "\n"
		if err := p.pumpClient(strings.NewReader(in)); err != nil {
			t.Fatal(err)
		}
		got := toClient.String()
		if strings.Contains(got, `"id":3`) || !strings.Contains(got, `"id":9,"error"`) {
			t.Errorf("timed %v: the client got %q; want the refusal under 9 alone, none under 3, the id of its tools/list", timed, got)
		}
		if !strings.Contains(toServer.String(), `"method":"tools/list"`) {
			t.Errorf("timed %v: the server got %q; want the tools/list", timed, toServer.String())
		}
	}
}
