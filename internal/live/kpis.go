package live

import (
	"context"
	"errors"
	"sync"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/kpi"
	"github.com/fleetgate/fleetgate/internal/live/output"
)

// RunKPIs pumps a fleet's KPI frames from sub to conn until either ends. Its goroutine reads
// (and drops the data frames the contract says clients do not send) and owns the socket; the
// frames are written by a goroutine started when the hub offers one (kpi.Subscriber.OnReady)
// and ended when it is written, so an idle socket keeps one goroutine, not two. The hub's abort
// of a stalled client must close the connection under a blocked writer (Conn.Drop); abort is
// called when the pump ends.
//
// Callers run it on a goroutine of its own and let the upgrade handler return: the handler's
// goroutine has grown a deep stack through the middleware and holds the request, which an idle
// socket must not keep. The hub's shutdown waits for the socket instead.
func RunKPIs(conn Conn, sub *kpi.Subscriber, abort func()) {
	defer sub.Close()
	p := &kpiPump{conn: conn, sub: sub}
	p.drainFn = p.drain
	sub.OnReady(p.kick)
	// The reader answers the client's half of a close handshake the pump began; abort would
	// cut the connection under it, so it comes after.
	discardMessages(conn)
	p.end()
	if p.closing {
		<-conn.Closed()
	}
	abort()
}

// kpiPump writes the hub's frames; at most one goroutine runs it at a time (running).
type kpiPump struct {
	conn Conn
	sub  *kpi.Subscriber

	mu      sync.Mutex
	running bool
	again   bool // a frame was offered while running
	ended   bool // no more writers: the socket is over, or the pump has ended it
	closing bool // the pump ended the socket with a close code (End)
	busy    sync.WaitGroup
	drainFn func() // p.drain, made once: a go statement of a method value allocates
}

// kick is the subscriber's OnReady.
func (p *kpiPump) kick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.ended:
	case p.running:
		p.again = true
	default:
		p.running = true
		p.busy.Add(1)
		go p.drainFn()
	}
}

// end stops the writers and waits for the one running, if any.
func (p *kpiPump) end() {
	p.mu.Lock()
	p.ended = true
	p.mu.Unlock()
	p.busy.Wait()
}

func (p *kpiPump) drain() {
	defer p.busy.Done()
	for {
		p.mu.Lock()
		p.again = false
		p.mu.Unlock()
		more := p.step()
		p.mu.Lock()
		if !more {
			p.ended = true
		}
		if more && p.again && !p.ended {
			p.mu.Unlock()
			continue
		}
		p.running = false
		p.mu.Unlock()
		return
	}
}

// step writes the pending frame, if any; false when the pump is over (the subscription or
// the connection ended).
func (p *kpiPump) step() bool {
	select {
	case <-p.sub.Done():
		var why error
		switch err := p.sub.Err(); {
		case fleetgate.Is(err, fleetgate.EUnauthorized):
			why = errTokenRevoked
		case errors.Is(err, kpi.ErrClosed):
			why = errShutdown
		default:
			return false // stalled: the hub has cut the connection
		}
		p.mu.Lock()
		p.closing = true
		p.mu.Unlock()
		p.conn.End(why)
		return false
	default:
	}
	f := p.sub.Next()
	if f == nil || p.sub.Err() != nil {
		// Ended (revoked, say) as the frame was taken: nothing more goes out; the next step
		// takes the Done branch and says why.
		return true
	}
	p.sub.BeginWrite()
	err := p.conn.Write(output.Frame{Body: f.Data}, true)
	p.sub.EndWrite()
	return err == nil
}

// discardMessages reads a KPI connection for its control frames (pings, the close handshake)
// and drops its data frames, until the connection ends. No context: the connection's end (the
// close handshake, the hub's abort, the client) ends the read, and a cancellable one would cost
// the library a timer and a deeper stack on every read.
func discardMessages(conn Conn) {
	for {
		if _, _, err := conn.Read(context.Background(), nil); err != nil && !fleetgate.Is(err, fleetgate.ETooLarge) {
			return
		}
	}
}
