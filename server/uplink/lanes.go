package uplink

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// The link's lanes, on a site's uplink of a few Mbit/s shared by everything the agent sends:
//
//  1. control (requests and answers, teleop, heartbeats, leases) on the link connection;
//  2. small live samples (pose, odometry, scans) on the live connection, before
//  3. pictures and other large samples, part by part;
//  4. bulk (resource files, recordings, the log) on the link connection, a chunk at a time,
//     only when neither connection has a backlog and no live sample waits.
//
// A chunk of bulk goes only while the link connection has less than a window of bytes not
// yet acknowledged (unsent, or on their way in the uplink's queue), so a control frame never
// waits behind more than that; and only while the live connection is idle too, or after the
// chunk has waited bulkFloor. Before, a 2 MB log re-uploaded every 10 s filled the queues: at
// 2 Mbit/s teleop opens failed (12 of 12) and the live streams closed, "agent connected but
// too slow".
const (
	// bulkChunk is the largest chunk of a bulk transfer (64 ms at 2 Mbit/s).
	bulkChunk = 16 << 10
	// bulkQueueTime is the most queueing a window of bulk may cost the other lanes, at the
	// rate the link is measured to deliver: on a fast link the window grows past a chunk.
	bulkQueueTime = 20 * time.Millisecond
	// bulkFloor is the longest a chunk waits for the live lanes to be idle: a camera that
	// fills the uplink slows bulk to a chunk a second (128 kbit/s), never to nothing.
	bulkFloor = time.Second
	// bulkPoll is how often a waiting chunk looks again.
	bulkPoll = 10 * time.Millisecond
)

// sendQueue is a socket's bytes not yet acknowledged, and the rate it delivers (bytes a
// second, the kernel's latest measure).
type sendQueue struct {
	unsent, inFlight int
	rate             int64
	minRTT           time.Duration
}

func (q sendQueue) bytes() int { return q.unsent + q.inFlight }

// linkConns are the session's TCP connections to the cloud, where the agent dialed them
// itself (nil otherwise: a configured client that is not an *http.Transport).
type linkConns struct {
	control atomic.Pointer[net.TCPConn]
	live    atomic.Pointer[net.TCPConn]
	sender  atomic.Pointer[liveSender]
}

// queue is conn's send queue; a connection not known, or a kernel that does not say, has
// none (nothing to wait for).
func queue(conn *net.TCPConn) sendQueue {
	if conn == nil {
		return sendQueue{}
	}
	q, _ := queueOf(conn)
	return q
}

// bulkMayGo reports whether a chunk of bulk may go now, after waiting waited.
func (c *linkConns) bulkMayGo(waited time.Duration) bool {
	control, live := queue(c.control.Load()), queue(c.live.Load())
	window := max(bulkChunk, int(max(control.rate, live.rate)*int64(bulkQueueTime)/int64(time.Second)))
	if control.bytes() >= window {
		return false // the last chunks (or control frames) are still in the uplink's queue
	}
	if waited >= bulkFloor {
		return true
	}
	if l := c.sender.Load(); l != nil && l.busy.Load() {
		return false // a live sample waits or goes out
	}
	return live.bytes() < window
}

// bulkTurn waits until a chunk of bulk data may go on the link connection (bulkMayGo).
func (s *session) bulkTurn(ctx context.Context) error {
	if s.a.cfg.NoLanes {
		return nil
	}
	start := time.Now()
	for !s.conns.bulkMayGo(time.Since(start)) {
		t := time.NewTimer(bulkPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-s.done:
			t.Stop()
			return context.Canceled
		case <-t.C:
		}
	}
	return nil
}

// dialedKey carries, in a dial's context, the function that takes the connection dialed.
type dialedKey struct{}

// withDialed returns ctx whose link dials hand their TCP connection to got.
func withDialed(ctx context.Context, got func(*net.TCPConn)) context.Context {
	return context.WithValue(ctx, dialedKey{}, got)
}

// client is the HTTP client a link connection dials with: the configured one's transport
// with the link's socket options (BBR; TCP_NOTSENT_LOWAT on the live connection), handing the
// connection to the dial's context (withDialed). A configured client whose transport is not
// an *http.Transport is used as it is.
func (a *Agent) client(live bool) *http.Client {
	base := a.cfg.HTTPClient
	if base == nil {
		base = http.DefaultClient
	}
	tr, ok := base.Transport.(*http.Transport)
	if base.Transport == nil {
		tr, ok = http.DefaultTransport.(*http.Transport), true
	}
	if !ok {
		return base
	}
	tr = tr.Clone()
	dial := tr.DialContext
	if dial == nil {
		dial = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			a.tune(tc, live)
			if got, ok := ctx.Value(dialedKey{}).(func(*net.TCPConn)); ok {
				got(tc)
			}
		}
		return conn, nil
	}
	c := *base
	c.Transport = tr
	return &c
}

// tune sets the link's socket options on a connection to the cloud and logs, once, which
// congestion control the link uses.
func (a *Agent) tune(conn *net.TCPConn, live bool) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return
	}
	var cerr error
	if a.cfg.Congestion != "" {
		cerr = setCongestion(raw, a.cfg.Congestion)
	}
	if live {
		setNotSentLowat(raw)
	}
	used := congestionOf(conn)
	if used == "" {
		used = "the system's default"
	}
	a.ccMu.Lock()
	changed := a.cc != used
	a.cc = used
	a.ccMu.Unlock()
	if changed {
		if cerr != nil {
			a.log.Warn("the link's TCP congestion control", "using", used, "wanted", a.cfg.Congestion, "why_not", cerr.Error())
		} else {
			a.log.Info("the link's TCP congestion control", "using", used)
		}
	}
}

// Congestion is the TCP congestion control of the link's last connection ("" before the first).
func (a *Agent) Congestion() string {
	a.ccMu.Lock()
	defer a.ccMu.Unlock()
	return a.cc
}
