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
// others at most this many bytes of waiting (32 ms at 1 MB/s).
const LiveChunk = 32 << 10

// LivePath is where the cloud accepts an agent's live connection (LiveFrame in link.proto):
// the samples of the streams cloud viewers watch, on a connection of their own so that nothing
// of the link queues behind them.
const LivePath = "/agentlink/v1/live"

// liveBuffers holds read buffers of the live connection: a sample's bytes are copied once,
// into the payload the viewers share, never read into a fresh buffer first (DESIGN section 9).
var liveBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// ReadLive reads one live frame, through the connection's Reader into a pooled buffer.
func ReadLive(conn *websocket.Conn) (*linkpb.LiveFrame, error) {
	typ, r, err := conn.Reader(context.Background())
	if err != nil {
		return nil, err
	}
	if typ != websocket.MessageBinary {
		return nil, fmt.Errorf("%w: a text frame", ErrMalformed)
	}
	buf := liveBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 4<<20 {
			buf.Reset()
			liveBuffers.Put(buf) // a huge one goes to the collector
		}
	}()
	buf.Reset()
	if _, err := io.Copy(buf, r); err != nil {
		return nil, err
	}
	var f linkpb.LiveFrame
	if err := proto.Unmarshal(buf.Bytes(), &f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if f.Body == nil {
		return nil, fmt.Errorf("%w: empty", ErrMalformed)
	}
	return &f, nil
}

// WriteLive writes one live frame within timeout.
func WriteLive(conn *websocket.Conn, f *linkpb.LiveFrame, timeout time.Duration) error {
	data, err := proto.Marshal(f)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return conn.Write(ctx, websocket.MessageBinary, data)
}
