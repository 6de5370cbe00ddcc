package api

import (
	"context"
	"errors"
	"io"
	"runtime"
	"syscall"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate/internal/live"
	"github.com/fleetgate/fleetgate/internal/live/output"
)

// maxCorkedFrame is the largest split frame written under TCP_CORK (see wsConn.Write).
const maxCorkedFrame = 512 << 10

// wsConn adapts a coder/websocket connection to live.Conn.
type wsConn struct {
	c      *websocket.Conn
	tcp    syscall.RawConn // for TCP_CORK; nil: none (TLS, another system, a KPI socket)
	closed chan struct{}
}

var _ live.Conn = (*wsConn)(nil)

func newWSConn(c *websocket.Conn, tcp syscall.RawConn) *wsConn {
	return &wsConn{c: c, tcp: tcp, closed: make(chan struct{})}
}

// Write sends one frame as one WebSocket message. A frame in one part goes in one WebSocket
// frame. A split one (head, the sample's payload, tail: see output.Frame) goes as one message
// in three fragments, which RFC 6455 has every client reassemble before its application sees
// the message, so the payload is sent from the sample itself, never copied.
//
// A fragmented message costs the library one more flush than a whole one: its 4 KiB buffer
// goes out before the payload and the tail with the closing frame after it, each a small
// segment that wakes the client. For frames up to maxCorkedFrame, TCP_CORK on the socket
// while the message is written lets the kernel send them inside full segments (the classic
// use: a header, a body from elsewhere, a trailer); uncorking pushes the rest at once. It
// measured 8-27% more throughput at 150-300 KiB frames, and nothing or a little less from
// 600 KiB, where the payload's own segments dominate and a corked partial segment can wait
// for the receive window (docs/benchmarks.md).
//
// context.Background: a deadline would cost a timer per frame; the session's watch cuts a
// stalled client.
func (w *wsConn) Write(f output.Frame, text bool) error {
	typ := websocket.MessageBinary
	if text {
		typ = websocket.MessageText
	}
	if len(f.Head) == 0 && len(f.Tail) == 0 {
		return w.c.Write(context.Background(), typ, f.Body)
	}
	if w.tcp != nil && f.Len() <= maxCorkedFrame {
		w.tcp.Control(cork)
		defer w.tcp.Control(uncork)
	}
	wr, err := w.c.Writer(context.Background(), typ)
	if err != nil {
		return err
	}
	for _, part := range [...][]byte{f.Head, f.Body, f.Tail} {
		if len(part) == 0 {
			continue // an empty write would still send a frame
		}
		if _, err := wr.Write(part); err != nil {
			return err
		}
	}
	return wr.Close()
}

// Read reads one data message through the library's Reader, into buf's storage (DESIGN
// section 9: never conn.Read, which allocates per message); a nil buf discards the message.
func (w *wsConn) Read(ctx context.Context, buf []byte) ([]byte, bool, error) {
	typ, r, err := w.c.Reader(ctx)
	if err != nil {
		return nil, false, w.readError(err)
	}
	binary := typ == websocket.MessageBinary
	if buf == nil {
		_, err := io.Copy(io.Discard, r)
		return nil, binary, w.readError(err)
	}
	buf, err = readAll(buf, r)
	return buf, binary, w.readError(err)
}

func (w *wsConn) readError(err error) error {
	if errors.Is(err, websocket.ErrMessageTooBig) {
		return live.ErrMessageTooBig // the library has closed with 1009
	}
	return err
}

func (w *wsConn) Ping(ctx context.Context) error { return w.c.Ping(ctx) }

// End closes with why's close code and reason (closeCode). The close waits for the peer's
// answer (up to seconds): never hold the caller on it.
func (w *wsConn) End(why error) {
	code, reason := closeCode(why)
	go func() {
		w.c.Close(code, reason)
		close(w.closed)
	}()
}

func (w *wsConn) Drop() { w.c.CloseNow() }

func (w *wsConn) Closed() <-chan struct{} { return w.closed }

// readAll reads a message into buf, reusing its storage.
func readAll(buf []byte, r io.Reader) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// tcpCork is TCP_CORK (linux/tcp.h), used on Linux only: other systems number their options
// differently.
const tcpCork = 3

// corkableConn is the TCP connection of an upgrade request, for cork and uncork; nil when
// there is none (another system).
func corkableConn(ctx context.Context) syscall.RawConn {
	if runtime.GOOS != "linux" {
		return nil
	}
	tcp := tcpConn(ctx)
	if tcp == nil {
		return nil
	}
	raw, err := tcp.SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}

// cork and uncork set TCP_CORK; errors are ignored (a closing socket fails the write anyway).
func cork(fd uintptr)   { setsockoptInt(syscall.SetsockoptInt, fd, syscall.IPPROTO_TCP, tcpCork, 1) }
func uncork(fd uintptr) { setsockoptInt(syscall.SetsockoptInt, fd, syscall.IPPROTO_TCP, tcpCork, 0) }

// setsockoptInt calls syscall.SetsockoptInt, whose descriptor is an int on Unix and a Handle
// on Windows, so that this file builds everywhere without build tags.
func setsockoptInt[FD ~int | ~uintptr](set func(FD, int, int, int) error, fd uintptr, level, opt, value int) error {
	return set(FD(fd), level, opt, value)
}
