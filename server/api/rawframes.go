package api

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"net"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate/internal/live/output"
)

// Buffers of an upgraded connection. coder/websocket reads the client's frames through the
// bufio.Reader that the hijack hands it and writes its own frames through the bufio.Writer;
// net/http's are 4 KiB each, kept for the life of the socket. An output or KPI socket's client
// sends only control frames (pings, pongs, the close), an input socket's small commands, and
// the library writes only control frames (data frames go through frameWriter), so small ones do:
// a control frame is at most 2+4+125 bytes, whole in either.
const (
	socketReadBuffer  = 512
	socketWriteBuffer = 256
)

// acceptSocket upgrades the request as websocket.Accept does, but with the small buffers above,
// and returns the writer of the connection's data frames (see frameWriter).
func acceptSocket(w http.ResponseWriter, r *http.Request) (*websocket.Conn, *frameWriter, error) {
	h := &smallBuffers{ResponseWriter: w}
	conn, err := websocket.Accept(h, r, acceptOptions())
	if err != nil {
		return nil, nil, err
	}
	return conn, h.frames, nil
}

// smallBuffers is the upgrade's ResponseWriter as coder/websocket sees it: its Hijack hands the
// library small buffers, and a bufio.Writer over a frameWriter, which every byte the library
// writes goes through.
type smallBuffers struct {
	http.ResponseWriter
	frames *frameWriter
}

func (h *smallBuffers) Unwrap() http.ResponseWriter { return h.ResponseWriter }

func (h *smallBuffers) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	if n := brw.Reader.Buffered(); n > 0 { // the client did not wait for the 101
		rest, _ := brw.Reader.Peek(n)
		conn = &readAheadConn{Conn: conn, rest: bytes.Clone(rest)}
	}
	h.frames = &frameWriter{conn: conn}
	if tcp, ok := unwrapTCP(conn); ok {
		h.frames.tcp = tcp
	}
	return conn, bufio.NewReadWriter(bufio.NewReaderSize(conn, socketReadBuffer), bufio.NewWriterSize(h.frames, socketWriteBuffer)), nil
}

// unwrapTCP is the TCP connection under conn when nothing (TLS) stands between them but
// wrappers that pass writes through.
func unwrapTCP(conn net.Conn) (*net.TCPConn, bool) {
	for range 4 {
		switch c := conn.(type) {
		case *net.TCPConn:
			return c, true
		case *tls.Conn:
			return nil, false // it has a NetConn too: never write past TLS
		case interface{ NetConn() net.Conn }: // the local gateway's read-ahead connection
			conn = c.NetConn()
		default:
			return nil, false
		}
	}
	return nil, false
}

// readAheadConn is a hijacked connection whose first bytes net/http had read already.
type readAheadConn struct {
	net.Conn
	rest []byte
}

func (c *readAheadConn) Read(b []byte) (int, error) {
	if len(c.rest) > 0 {
		n := copy(b, c.rest)
		c.rest = c.rest[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}

func (c *readAheadConn) NetConn() net.Conn { return c.Conn }

// frameWriter writes a socket's data frames itself, each message as one unfragmented frame in
// one writev: its header (made here: a server's frames are not masked), then the frame's head,
// payload and tail (output.Frame) straight from the shared sample, never copied. Through
// coder/websocket's Writer a split frame cost three fragments and a flush each, five or more
// system calls per frame and client; corked (TCP_CORK) to keep them from leaving as small
// segments (docs/performance.md).
//
// The library still writes the control frames (pongs, pings, the close) through its
// bufio.Writer over this writer, each whole in one Write, since its buffer holds any control
// frame and it flushes after each. A mutex keeps a data frame and a control frame from
// interleaving; once a close frame has gone (or End is on its way to send one), data frames are
// refused, as RFC 6455 wants and the library's own Write would.
type frameWriter struct {
	conn net.Conn
	tcp  *net.TCPConn // the same connection, for writev; nil under TLS (sequential writes)

	mu      sync.Mutex
	closing atomic.Bool
	header  [10]byte
	parts   [4][]byte
	vec     net.Buffers

	// backlog is the socket's TCP_NOTSENT_LOWAT while this writer manages it (a stream's
	// socket: keepBacklog), raised to hold a whole frame (fitBacklog); 0: not managed.
	backlog int
	sock    *net.TCPConn // the TCP connection under TLS too, for setsockopt
}

// notSentLowat keeps the kernel's unsent backlog of a stream socket small (~128 KiB), so
// latest-wins happens in our one-frame slot instead of behind seconds of buffered frames. A
// stream of larger frames raises it to hold one (fitBacklog).
const notSentLowat = 128 << 10

// maxBacklog caps the unsent backlog a large frame raises: a frame beyond it leaves in pieces.
const maxBacklog = 32 << 20

// keepBacklog sets the socket's unsent backlog (TCP_NOTSENT_LOWAT) to n: the kernel then
// takes a frame only while less than n bytes wait unsent, so newest-wins happens in the
// session's one-frame slot instead of behind frames queued in the kernel. sock is the
// connection's TCP socket (nil: none to set).
func (w *frameWriter) keepBacklog(sock *net.TCPConn, n int) {
	if sock == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sock, w.backlog = sock, n
	setNotSentLowatOn(sock, n)
}

// fitBacklog raises the backlog to hold a frame of n bytes with a quarter to spare (in 64 KiB
// steps, never lowered). A frame larger than the backlog leaves in pieces, each waiting for
// the socket to drain below it: 2 MiB frames went at 0.64-0.74x of a plain relay with a
// 128 KiB backlog, 1.06-1.10x with 4 MiB (docs/performance.md). w.mu is held.
func (w *frameWriter) fitBacklog(n int) {
	if w.backlog == 0 || n <= w.backlog || w.backlog >= maxBacklog {
		return
	}
	const step = 64 << 10
	w.backlog = min(maxBacklog, (n+n/4+step-1)/step*step)
	setNotSentLowatOn(w.sock, w.backlog)
}

// Write is the library's: one control frame per call.
func (w *frameWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(p) > 0 && p[0]&0x0f == opClose {
		w.closing.Store(true)
	}
	return w.conn.Write(p)
}

const (
	opText   = 0x1
	opBinary = 0x2
	opClose  = 0x8
	finBit   = 0x80
)

// writeMessage writes f as one data message.
func (w *frameWriter) writeMessage(f output.Frame, text bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closing.Load() {
		return net.ErrClosed
	}
	op := byte(opBinary)
	if text {
		op = opText
	}
	w.fitBacklog(f.Len())
	w.parts = [4][]byte{w.frameHeader(op, f.Len()), f.Head, f.Body, f.Tail}
	w.vec = w.parts[:]
	var err error
	if w.tcp != nil {
		_, err = w.vec.WriteTo(w.tcp)
	} else {
		_, err = w.vec.WriteTo(w.conn)
	}
	w.parts = [4][]byte{} // the sample's bytes are not ours to keep
	w.vec = nil
	return err
}

// frameHeader is RFC 6455's header of an unmasked final frame of n bytes.
func (w *frameWriter) frameHeader(op byte, n int) []byte {
	h := w.header[:]
	h[0] = finBit | op
	switch {
	case n <= 125:
		h[1] = byte(n)
		return h[:2]
	case n <= 0xffff:
		h[1] = 126
		binary.BigEndian.PutUint16(h[2:], uint16(n))
		return h[:4]
	default:
		h[1] = 127
		binary.BigEndian.PutUint64(h[2:], uint64(n))
		return h[:10]
	}
}
