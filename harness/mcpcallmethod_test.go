package harness

import (
	"io"
	"testing"
	"time"
)

// TestProxyJudgesLooseCallMethods: a method a server that looks methods
// up loosely may take for tools/call — with white space, a NUL, a byte
// order mark, fullwidth letters, ℓ for l — is judged as a call, under
// an exclude filter and an include one alike, and a timing proxy times
// the call it forwards. Before, only tools/call in another letter case
// was: " tools/call" naming an excluded tool, or one the include list
// does not name, reached the server, and an allowed one ran untimed.
func TestProxyJudgesLooseCallMethods(t *testing.T) {
	for _, method := range []string{` tools/call`, `tools/call\u0000x`, `\ufefftools/call\n`, `\uff54\uff4f\uff4f\uff4c\uff53/CALL`, `tools/ca\u2113l`} {
		for _, filter := range []ToolFilter{excludeFilter, includeFilter} {
			p := &proxy{filter: filter, callTimeout: time.Hour, notices: io.Discard, toServer: io.Discard}
			refused := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"name":"delete_all"}}`
			if fwd, reply, _ := p.fromClient([]byte(refused)); fwd || reply == nil {
				t.Errorf("%s under %+v: forwarded %v, answered %s; want refused", refused, filter, fwd, reply)
			}
			allowed := []byte(`{"jsonrpc":"2.0","id":2,"method":"` + method + `","params":{"name":"echo"}}`)
			if fwd, reply, _ := p.fromClient(allowed); !fwd {
				t.Errorf("%s under %+v: refused (%s); want forwarded", allowed, filter, reply)
			}
			p.track(allowed)
			if len(p.calls) != 1 {
				t.Errorf("%s: %d calls timed; want it timed", allowed, len(p.calls))
			}
			p.close()
		}
	}
	if isCallMethod("tools/list") || isCallMethod("tools/callx") || callMethodValue([]byte(`"tools/list"`)) || callMethodValue([]byte(`7`)) {
		t.Error("a method that is not tools/call however it is read is taken for one")
	}
}
