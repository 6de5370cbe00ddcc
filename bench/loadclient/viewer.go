package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/sys/unix"
	"google.golang.org/protobuf/encoding/protowire"
)

// receipt is one frame a viewer read whole.
type receipt struct {
	published, received time.Time
	bytes               int
}

// viewer reads one server's camera stream as a careful client does: each message into one
// reused buffer through conn.Reader, so that the client allocates nothing per frame. A W3
// frame's publish time is its envelope's publish_time; a Foxglove frame's is its message
// timestamp (the publisher's wall clock).
type viewer struct {
	kind string
	conn *websocket.Conn
	buf  []byte
	// rate, when set, throttles reading to this many bytes per second (a slow link).
	rate float64
	due  time.Time

	frames, bytes atomic.Int64 // read whole, whatever record says

	mu       sync.Mutex
	receipts []receipt
	done     chan struct{}
	err      error
}

const (
	throttleChunk = 16 << 10
	throttleBurst = 20 * time.Millisecond
	foxgloveProto = "foxglove.websocket.v1"
)

// dialViewer connects to s's camera stream (subscribed, on Foxglove's server).
func dialViewer(ctx context.Context, s *serverProc, frame int) (*viewer, error) {
	return dialStream(ctx, s, frame, "componentName=camera&streamName=image")
}

// dialStream connects to one of fleetgate's W3 output streams (query), or Foxglove's camera.
func dialStream(ctx context.Context, s *serverProc, frame int, query string) (*viewer, error) {
	v := &viewer{kind: s.kind, buf: make([]byte, 0, frame+64<<10), done: make(chan struct{})}
	var err error
	switch s.kind {
	case fleetgate:
		v.conn, _, err = websocket.Dial(ctx, s.wsURL()+"/apigateway/v2/robots/"+s.hello.Robot+
			"/streams/connect?"+query,
			&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + s.hello.Token}}})
	case foxglove:
		v.conn, _, err = websocket.Dial(ctx, s.hello.URL, &websocket.DialOptions{Subprotocols: []string{foxgloveProto}})
		if err == nil {
			err = foxgloveSubscribe(ctx, v.conn, "camera")
		}
	case fleetgateFoxglove:
		v.conn, _, err = websocket.Dial(ctx, s.wsURL()+"/apigateway/v2/robots/"+s.hello.Robot+"/foxglove",
			&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + s.hello.Token}}, Subprotocols: []string{foxgloveProto}})
		if err == nil {
			err = foxgloveSubscribe(ctx, v.conn, "/camera/image")
		}
	}
	if err != nil {
		if v.conn != nil {
			v.conn.CloseNow()
		}
		return nil, err
	}
	v.conn.SetReadLimit(64 << 20)
	return v, nil
}

// dialKPI connects to the fleet's KPI socket (fleetgate only).
func dialKPI(ctx context.Context, s *serverProc) (*viewer, error) {
	conn, _, err := websocket.Dial(ctx, s.wsURL()+"/apigateway/v2/fleets/"+s.hello.Fleet+"/custom-kpis",
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + s.hello.Token}}})
	if err != nil {
		return nil, err
	}
	return &viewer{kind: "kpi", conn: conn, buf: make([]byte, 0, 4<<10), done: make(chan struct{})}, nil
}

// foxgloveSubscribe reads the server's advertisements until it names topic, and subscribes
// to it as subscription 1.
func foxgloveSubscribe(ctx context.Context, conn *websocket.Conn, topic string) error {
	for {
		typ, data, err := conn.Read(ctx)
		if err != nil {
			return err
		}
		if typ != websocket.MessageText {
			continue
		}
		var msg struct {
			Op       string `json:"op"`
			Channels []struct {
				ID    int    `json:"id"`
				Topic string `json:"topic"`
			} `json:"channels"`
		}
		if json.Unmarshal(data, &msg) != nil || msg.Op != "advertise" {
			continue
		}
		for _, ch := range msg.Channels {
			if ch.Topic == topic {
				sub := fmt.Sprintf(`{"op":"subscribe","subscriptions":[{"id":1,"channelId":%d}]}`, ch.ID)
				return conn.Write(ctx, websocket.MessageText, []byte(sub))
			}
		}
	}
}

// run reads until the socket ends; with record set it keeps a receipt per frame.
func (v *viewer) run(record bool) {
	defer close(v.done)
	for {
		frame, err := v.next()
		if err != nil {
			v.err = err
			return
		}
		v.frames.Add(1)
		v.bytes.Add(int64(len(frame)))
		if !record {
			continue
		}
		received := time.Now()
		published, ok := v.stamp(frame, received)
		if !ok {
			continue // Foxglove's text messages (status, advertisements)
		}
		v.mu.Lock()
		v.receipts = append(v.receipts, receipt{published: published, received: received, bytes: len(frame)})
		v.mu.Unlock()
	}
}

// stamp is when frame was published, on received's clock.
func (v *viewer) stamp(frame []byte, received time.Time) (time.Time, bool) {
	if v.kind == fleetgateFoxglove {
		// The same header; fleetgate's timestamp is the sample's time, the wall clock.
		if len(frame) < 13 || frame[0] != 1 {
			return time.Time{}, false
		}
		return time.Unix(0, int64(binary.LittleEndian.Uint64(frame[5:13]))), true
	}
	if v.kind == foxglove {
		// messageData: opcode 1, subscription id (u32), timestamp (u64 ns), payload. The
		// timestamp is CLOCK_MONOTONIC (bench/foxglove-server.mjs).
		if len(frame) < 13 || frame[0] != 1 {
			return time.Time{}, false
		}
		age := monotonicNanos() - int64(binary.LittleEndian.Uint64(frame[5:13]))
		return received.Add(-time.Duration(age)), true
	}
	return envelopeTime(frame)
}

func (v *viewer) next() ([]byte, error) {
	_, r, err := v.conn.Reader(context.Background())
	if err != nil {
		return nil, err
	}
	v.buf = v.buf[:0]
	for {
		if len(v.buf) == cap(v.buf) {
			v.buf = slices.Grow(v.buf, cap(v.buf))
		}
		room := v.buf[len(v.buf):cap(v.buf)]
		if v.rate > 0 {
			room = room[:min(len(room), throttleChunk)]
			now := time.Now()
			if floor := now.Add(-throttleBurst); v.due.Before(floor) {
				v.due = floor
			}
			if wait := v.due.Sub(now); wait > 0 {
				time.Sleep(wait)
			}
		}
		n, err := r.Read(room)
		v.buf = v.buf[:len(v.buf)+n]
		if v.rate > 0 {
			v.due = v.due.Add(time.Duration(float64(n) / v.rate * float64(time.Second)))
		}
		if errors.Is(err, io.EOF) {
			return v.buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (v *viewer) close() {
	v.conn.CloseNow()
}

// takeReceipts returns the receipts so far.
func (v *viewer) takeReceipts() []receipt {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.receipts)
}

// monotonicNanos reads CLOCK_MONOTONIC, the clock of Foxglove's timestamps here.
func monotonicNanos() int64 {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}

// The MessageStream fields the client reads (proto/streampb): publish_time 7 (sec 1,
// nanosec 2).
const (
	fieldPublishTime protowire.Number = 7
	fieldSec         protowire.Number = 1
	fieldNanosec     protowire.Number = 2
)

// envelopeTime reads a MessageStream's publish time without copying its data.
func envelopeTime(frame []byte) (time.Time, bool) {
	for len(frame) > 0 {
		num, typ, n := protowire.ConsumeTag(frame)
		if n < 0 {
			return time.Time{}, false
		}
		frame = frame[n:]
		if num == fieldPublishTime && typ == protowire.BytesType {
			b, n := protowire.ConsumeBytes(frame)
			if n < 0 {
				return time.Time{}, false
			}
			var sec, nsec int64
			for len(b) > 0 {
				num, _, n := protowire.ConsumeTag(b)
				if n < 0 {
					return time.Time{}, false
				}
				b = b[n:]
				x, n := protowire.ConsumeVarint(b)
				if n < 0 {
					return time.Time{}, false
				}
				b = b[n:]
				switch num {
				case fieldSec:
					sec = int64(int32(x))
				case fieldNanosec:
					nsec = int64(uint32(x))
				}
			}
			return time.Unix(sec, nsec), true
		}
		n = protowire.ConsumeFieldValue(num, typ, frame)
		if n < 0 {
			return time.Time{}, false
		}
		frame = frame[n:]
	}
	return time.Time{}, false
}
