package api

import (
	"context"
	"errors"
	"io"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/edge"
	"github.com/fleetgate/fleetgate/internal/live"
	"github.com/fleetgate/fleetgate/internal/live/output"
)

// wsConn adapts a coder/websocket connection to live.Conn.
type wsConn struct {
	c      *websocket.Conn
	frames *frameWriter // writes the data frames (see frameWriter)
	closed chan struct{}
}

var _ live.Conn = (*wsConn)(nil)

func newWSConn(c *websocket.Conn, frames *frameWriter) *wsConn {
	return &wsConn{c: c, frames: frames, closed: make(chan struct{})}
}

// Write sends one frame as one WebSocket message in one frame, written by frameWriter in one
// system call; the payload is sent from the sample itself, never copied. No deadline: the
// session's watch cuts a stalled client.
func (w *wsConn) Write(f output.Frame, text bool) error {
	return w.frames.writeMessage(f, text)
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

// errMessageTooBig is a message over the read limit; the library has closed with 1009.
var errMessageTooBig = fleetgate.Errorf(fleetgate.ETooLarge, "message too big")

func (w *wsConn) readError(err error) error {
	if errors.Is(err, websocket.ErrMessageTooBig) {
		return errMessageTooBig
	}
	return err
}

func (w *wsConn) Ping(ctx context.Context) error { return w.c.Ping(ctx) }

// End closes with why's close code and reason (the edge table). The close waits for the
// peer's answer (up to seconds): never hold the caller on it.
func (w *wsConn) End(why error) {
	code, reason := edge.Close(why)
	go func() {
		w.frames.closing.Store(true) // no data frame after the close frame

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
