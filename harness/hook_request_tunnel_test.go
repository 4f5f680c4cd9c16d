package harness

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"testing"
)

// TestHookRequestDoubleSlashOriginFormTunnel: through an https proxy's
// CONNECT tunnel, as HTTPS_PROXY makes it, a path starting "//" that Go
// writes only in absolute form ('|', a lone '%') reaches the server in
// origin form, as it does with no proxy in the way, where Claude Code
// 2.1.332 writes it so; Go's transport wrote "POST https://h//evil.example/a|b"
// in the tunnel, whose path a server reading the target as it comes
// reads otherwise. The tunnel carries the proxy's user information as
// Proxy-Authorization, as Go's does, and a proxy that refuses the tunnel
// gets nothing posted.
func TestHookRequestDoubleSlashOriginFormTunnel(t *testing.T) {
	addr, got, clientTLS := tlsRequestLineServer(t)
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.TLSClientConfig = clientTLS
	auth := make(chan string, 1)
	proxy := connectProxy(t, auth)
	base.Proxy = http.ProxyURL(proxy) // as HTTPS_PROXY has it
	for _, rest := range []string{"//evil.example/a|b%", "//evil.example/%zz?q|%", "//evil.example/x"} {
		req, err := newHookRequest(context.Background(), "https://"+addr+rest, []byte("{}"))
		if err != nil {
			t.Fatalf("%q: %v", rest, err)
		}
		resp, err := (&http.Client{Transport: tunnelTransportFor(base, req, proxy)}).Do(req)
		if err != nil {
			t.Fatalf("%q: %v", rest, err)
		}
		resp.Body.Close()
		if asked := <-got; asked != rest {
			t.Errorf("%q: asked at %q through the tunnel, want it in origin form", rest, asked)
		}
		if a := <-auth; a != "Basic dTpwIHc=" {
			t.Errorf("%q: the proxy got Proxy-Authorization %q, want the proxy url's user information", rest, a)
		}
	}
	refusing := *proxy
	refusing.User = url.UserPassword("u", "wrong")
	req, err := newHookRequest(context.Background(), "https://"+addr+"//evil.example/a|b", []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := (&http.Client{Transport: tunnelTransportFor(base, req, &refusing)}).Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("posted through a proxy that refused the tunnel (%s)", resp.Status)
	}
	<-auth
	select {
	case asked := <-got:
		t.Errorf("the server was asked at %q through a refused tunnel", asked)
	default:
	}
}

// connectProxy is a CONNECT proxy on 127.0.0.1 until the test ends, at
// the url it returns (user u, password "p w"): it sends each tunnel's
// Proxy-Authorization to auth, answers 407 to a wrong one and relays
// the bytes of a tunnel it opens.
func connectProxy(t *testing.T, auth chan<- string) *url.URL {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go relayTunnel(c, auth)
		}
	}()
	return &url.URL{Scheme: "http", Host: ln.Addr().String(), User: url.UserPassword("u", "p w")}
}

// relayTunnel serves one CONNECT on c.
func relayTunnel(c net.Conn, auth chan<- string) {
	defer c.Close()
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil || req.Method != http.MethodConnect {
		return
	}
	a := req.Header.Get("Proxy-Authorization")
	auth <- a
	if a != "Basic dTpwIHc=" {
		io.WriteString(c, "HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n")
		return
	}
	up, err := net.Dial("tcp", req.Host)
	if err != nil {
		return
	}
	defer up.Close()
	io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
	go io.Copy(up, br)
	io.Copy(c, up)
}
