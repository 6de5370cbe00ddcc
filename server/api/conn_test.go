package api

import (
	"context"
	"crypto/tls"
	"net"
	"testing"
)

// TestTCPConnUnderTLS: stream sockets tune the TCP connection (TCP_NOTSENT_LOWAT)
// whether or not the server terminates TLS on it.
func TestTCPConnUnderTLS(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	for name, conn := range map[string]net.Conn{"plain": server, "tls": tls.Server(server, &tls.Config{})} {
		if got := tcpConn(WithConn(context.Background(), conn)); got != server {
			t.Errorf("%s: tcpConn = %v, want the TCP connection", name, got)
		}
	}
	if got := tcpConn(context.Background()); got != nil {
		t.Errorf("without a connection: %v, want nil", got)
	}
}
