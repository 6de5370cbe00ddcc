package api

import (
	"context"
	"crypto/tls"
	"net"
)

type connKey struct{}

// WithConn stores a request's network connection in its context; the server installs it as
// http.Server.ConnContext so stream sockets can tune their TCP options.
func WithConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// tcpConn is the request's TCP connection, under TLS when the server terminates it (socket
// options apply to the TCP connection either way); nil when there is none.
func tcpConn(ctx context.Context) *net.TCPConn {
	conn, _ := ctx.Value(connKey{}).(net.Conn)
	for range 4 { // TLS over a connection read ahead (the local gateway's HTTP-or-HTTPS port)
		switch c := conn.(type) {
		case *net.TCPConn:
			return c
		case *tls.Conn:
			conn = c.NetConn()
		case interface{ NetConn() net.Conn }:
			conn = c.NetConn()
		default:
			return nil
		}
	}
	return nil
}
