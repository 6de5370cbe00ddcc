package api

import (
	"bytes"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/fleetgate/fleetgate/internal/live/output"
)

// TestBacklogFitsAFrame: a stream socket's unsent backlog (TCP_NOTSENT_LOWAT) starts small
// and grows to hold a frame larger than it, with a quarter to spare in 64 KiB steps; it never
// shrinks, and a socket whose backlog the writer does not manage (KPI's) is left alone.
func TestBacklogFitsAFrame(t *testing.T) {
	server, client := tcpPair(t)
	go io.Copy(io.Discard, client)
	w := &frameWriter{conn: server, tcp: server}
	w.keepBacklog(server, notSentLowat)
	if got := notSentLowatOf(t, server); got != notSentLowat {
		t.Fatalf("backlog %d after keepBacklog, want %d", got, notSentLowat)
	}
	for _, tt := range []struct {
		frame, want int
	}{
		{100 << 10, notSentLowat},    // fits: unchanged
		{150 << 10, 192 << 10},       // 187.5 KiB, to the next 64 KiB
		{2 << 20, 2<<20 + 512<<10},   // 2.5 MiB
		{150 << 10, 2<<20 + 512<<10}, // never lowered
		{40 << 20, maxBacklog},       // capped
	} {
		body := bytes.Repeat([]byte{'x'}, tt.frame)
		if err := w.writeMessage(output.Frame{Body: body}, false); err != nil {
			t.Fatal(err)
		}
		if got := notSentLowatOf(t, server); got != tt.want {
			t.Errorf("after a %d-byte frame the backlog is %d, want %d", tt.frame, got, tt.want)
		}
	}

	kpiServer, kpiClient := tcpPair(t)
	go io.Copy(io.Discard, kpiClient)
	setNotSentLowatOn(kpiServer, 16<<10)
	kw := &frameWriter{conn: kpiServer, tcp: kpiServer}
	if err := kw.writeMessage(output.Frame{Body: bytes.Repeat([]byte{'y'}, 64<<10)}, true); err != nil {
		t.Fatal(err)
	}
	if got := notSentLowatOf(t, kpiServer); got != 16<<10 {
		t.Errorf("an unmanaged socket's backlog became %d, want 16384 kept", got)
	}
}

func tcpPair(t *testing.T) (server, client *net.TCPConn) {
	t.Helper()
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan *net.TCPConn, 1)
	go func() {
		c, _ := ln.AcceptTCP()
		accepted <- c
	}()
	client, err = net.DialTCP("tcp", nil, ln.Addr().(*net.TCPAddr))
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { server.Close(); client.Close() })
	return server, client
}

func notSentLowatOf(t *testing.T, c *net.TCPConn) int {
	t.Helper()
	raw, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var v int
	var serr error
	raw.Control(func(fd uintptr) { v, serr = syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, tcpNotSentLowat) })
	if serr != nil {
		t.Fatal(serr)
	}
	return v
}
