package live

import (
	"context"
	"errors"

	"github.com/fleetgate/fleetgate/internal/kpi"
	"github.com/fleetgate/fleetgate/internal/live/output"
)

// RunKPIs pumps a fleet's KPI frames from sub to conn until either ends: this goroutine
// writes, another reads (and drops the data frames the contract says clients do not send).
// Cancelling readCtx (the hub's abort of a stalled client) makes the connection close under a
// blocked writer; abort is called when the pump ends.
//
// Callers run it on a goroutine of its own and let the upgrade handler return: the handler's
// goroutine has grown a deep stack through the middleware and holds the request, which an idle
// socket must not keep. The hub's shutdown waits for the socket instead.
func RunKPIs(conn Conn, sub *kpi.Subscriber, readCtx context.Context, abort context.CancelFunc) {
	defer sub.Close()
	readDone := make(chan struct{})
	go discardMessages(readCtx, conn, readDone)
	if why := pumpKPIs(conn, sub, readDone); why != nil {
		// The reader answers the client's half of the close handshake meanwhile; abort would
		// cut the connection under it.
		conn.End(why)
		<-conn.Closed()
	}
	abort()
	<-readDone
}

// pumpKPIs writes the hub's frames until the subscription or the connection ends. It is the
// connection's only writer; it returns why to close, nil when the connection is gone or was
// cut already.
func pumpKPIs(conn Conn, sub *kpi.Subscriber, readDone <-chan struct{}) error {
	for {
		select {
		case <-sub.Ready():
			f := sub.Next()
			if f == nil || sub.Err() != nil {
				continue // ended (revoked, say): the Done case says how
			}
			sub.BeginWrite()
			err := conn.Write(output.Frame{Body: f.Data}, true)
			sub.EndWrite()
			if err != nil {
				return nil
			}
		case <-sub.Done():
			switch err := sub.Err(); {
			case errors.Is(err, kpi.ErrRevoked):
				return ErrTokenRevoked
			case errors.Is(err, kpi.ErrClosed):
				return ErrShutdown
			default:
				return nil // stalled: the hub has cut the connection
			}
		case <-readDone:
			return nil // the client closed, or the connection broke
		}
	}
}

// discardMessages reads a KPI connection for its control frames (pings, the close handshake)
// and drops its data frames.
func discardMessages(ctx context.Context, conn Conn, done chan<- struct{}) {
	defer close(done)
	for {
		if _, _, err := conn.Read(ctx, nil); err != nil && !errors.Is(err, ErrMessageTooBig) {
			return
		}
	}
}
