package uplink

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
)

// tcpPair is a connected pair on loopback, the client's side dialed by the agent's client
// (its options set as on a link connection), and the server's.
func tcpPair(t *testing.T, live bool) (client, server *net.TCPConn, a *Agent) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan *net.TCPConn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c.(*net.TCPConn)
		}
		close(accepted)
	}()
	a = &Agent{cfg: Config{Congestion: "bbr"}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	var got *net.TCPConn
	dial := a.client(live).Transport.(*http.Transport).DialContext
	conn, err := dial(withDialed(context.Background(), func(c *net.TCPConn) { got = c }), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil || got == nil {
		t.Fatal("no connection")
	}
	t.Cleanup(func() { conn.Close(); server.Close() })
	return got, server, a
}

// The link's sockets use BBR where the kernel offers it (this one does: the test command
// runs on Linux), and the live one keeps its unsent backlog small.
func TestLinkSocketsUseBBR(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("NOT POSSIBLE HERE: choosing the congestion control needs Linux")
	}
	client, _, a := tcpPair(t, true)
	if got := congestionOf(client); got != "bbr" {
		t.Fatalf("congestion control %q, want bbr", got)
	}
	if a.Congestion() != "bbr" {
		t.Fatalf("Congestion() = %q", a.Congestion())
	}
}

// A chunk of bulk waits while the link connection holds a queue, and goes once the cloud
// has read it; it waits for a busy live sender too, but no longer than bulkFloor.
func TestBulkWaitsForTheOtherLanes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("NOT POSSIBLE HERE: a socket's unsent bytes are read with Linux's TCP_INFO")
	}
	client, server, a := tcpPair(t, false)
	s := &session{a: a, done: make(chan struct{})}
	s.conns.control.Store(client)
	if err := s.bulkTurn(context.Background()); err != nil {
		t.Fatalf("an idle link: %v", err)
	}
	// The cloud stops reading: the backlog grows past what a chunk may join.
	client.SetWriteBuffer(4 << 20)
	go client.Write(make([]byte, 8<<20))
	deadline := time.Now().Add(5 * time.Second)
	for queue(client).bytes() < bulkChunk {
		if time.Now().After(deadline) {
			t.Fatal("the backlog never grew")
		}
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	err := s.bulkTurn(ctx)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("bulkTurn with a backlog = %v, want it still waiting at its deadline", err)
	}
	turn := make(chan error, 1)
	go func() { turn <- s.bulkTurn(context.Background()) }()
	go io.Copy(io.Discard, server) // the cloud reads again
	select {
	case err := <-turn:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("bulkTurn still waiting once the backlog was read")
	}

	// A live sample going out holds bulk back, for bulkFloor at most.
	l := &liveSender{}
	l.busy.Store(true)
	s.conns.sender.Store(l)
	start := time.Now()
	if err := s.bulkTurn(context.Background()); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < bulkFloor {
		t.Fatalf("bulk went after %v while a live sample was going out, want bulkFloor (%v)", waited, bulkFloor)
	}
	l.busy.Store(false)
	start = time.Now()
	s.bulkTurn(context.Background())
	if waited := time.Since(start); waited >= bulkFloor {
		t.Fatalf("bulk waited %v with the live lanes idle", waited)
	}
}

// The feedback lane: a pose that arrives while pictures go out part by part goes before the
// pictures' next parts, though the round robin would serve the other camera first.
func TestSmallSamplesGoBeforeAPicturesParts(t *testing.T) {
	l := &liveSender{s: &session{a: &Agent{}}, subs: map[uint64]*agentSub{}}
	front, rear, pose := &agentSub{id: 1}, &agentSub{id: 2}, &agentSub{id: 3}
	l.subs[1], l.subs[2], l.subs[3] = front, rear, pose
	now := time.Now()
	front.pending, front.has = fleetgate.Sample{Type: "jpeg", Payload: make([]byte, 100<<10)}, true
	rear.pending, rear.has = fleetgate.Sample{Type: "jpeg", Payload: make([]byte, 100<<10)}, true
	if sub, _ := l.pick(now, true); sub != front {
		t.Fatalf("picked %+v, want the front camera: only pictures wait", sub)
	}
	pose.pending, pose.has = fleetgate.Sample{Type: "pose", Payload: make([]byte, 200)}, true
	if sub, _ := l.pick(now, true); sub != pose {
		t.Fatalf("picked %+v, want the pose before the rear camera's turn", sub)
	}
	pose.sending = nil // it went in one part
	if sub, _ := l.pick(now, true); sub != front {
		t.Fatalf("picked %+v, want the front camera's next part, in turn after the pose", sub)
	}
	if sub, _ := l.pick(now, true); sub != rear {
		t.Fatalf("picked %+v, want the rear camera, in turn", sub)
	}
}
