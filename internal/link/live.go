package link

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// LiveChunk is the largest part of a sample on the live connection: a stream's turn costs the
// others at most this many bytes of waiting (16 ms at 1 MB/s, 65 ms on a 2 Mbit/s uplink).
const LiveChunk = 16 << 10

// LivePath is where the cloud accepts an agent's live connection (LiveFrame in link.proto):
// the samples of the streams cloud viewers watch, on a connection of their own so that nothing
// of the link queues behind them.
const LivePath = "/agentlink/v1/live"

// ReadLive reads one live frame (see readMessage).
func ReadLive(conn *websocket.Conn) (*linkpb.LiveFrame, error) {
	var f linkpb.LiveFrame
	if err := readMessage(conn, &f); err != nil {
		return nil, err
	}
	if f.Body == nil {
		return nil, fmt.Errorf("%w: empty", ErrMalformed)
	}
	return &f, nil
}

// WriteLive writes one live frame within timeout.
func WriteLive(conn *websocket.Conn, f *linkpb.LiveFrame, timeout time.Duration) error {
	return writeMessage(conn, f, timeout)
}

// readBuffers hold what readMessage reads: a message's bytes are copied once, into what
// proto.Unmarshal makes (payloads the viewers then share), never into a fresh buffer first.
var readBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// readMessage reads one binary message into m through the connection's Reader and a pooled
// buffer (DESIGN section 9: never conn.Read per frame). It uses context.Background: liveness is
// the heartbeat's job. A text message or undecodable bytes are ErrMalformed.
func readMessage(conn *websocket.Conn, m proto.Message) error {
	typ, r, err := conn.Reader(context.Background())
	if err != nil {
		return err
	}
	if typ != websocket.MessageBinary {
		return fmt.Errorf("%w: a text frame", ErrMalformed)
	}
	buf := readBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 4<<20 { // a huge one goes to the collector
			buf.Reset()
			readBuffers.Put(buf)
		}
	}()
	buf.Reset()
	if _, err := io.Copy(buf, r); err != nil {
		return err
	}
	if err := proto.Unmarshal(buf.Bytes(), m); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return nil
}

// writeMessage writes one binary message within timeout.
func writeMessage(conn *websocket.Conn, m proto.Message, timeout time.Duration) error {
	data, err := proto.Marshal(m)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return conn.Write(ctx, websocket.MessageBinary, data)
}
