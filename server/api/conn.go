package api

import (
	"context"
	"net"
)

type connKey struct{}

// WithConn stores a request's network connection in its context; the server installs it as
// http.Server.ConnContext so stream sockets can tune their TCP options.
func WithConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}
