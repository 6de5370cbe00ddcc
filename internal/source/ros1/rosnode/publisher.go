package rosnode

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate/internal/source/ros1/tcpros"
)

// PublishOptions describes a topic to publish.
type PublishOptions struct {
	Topic      string
	Type       string // package/Name
	MD5        string
	Definition string // the full message definition
	// Latch sends the last message to every subscriber that connects, as ROS latching does.
	Latch bool
	// Linger sends the last message to a subscriber that connects less than Linger after it
	// was published. A node learns of a new publisher from the master and connects a moment
	// later; without this the first messages after registering reach nobody.
	Linger time.Duration
}

// maxQueue is how many messages wait for a slow subscriber; beyond it the oldest is dropped,
// so one slow subscriber neither blocks Publish nor holds memory without bound.
const maxQueue = 16

// maxSubscribers bounds the connections of one publication: a robot has a few subscribers of
// a topic, and a peer opening thousands must not cost thousands of goroutines.
const maxSubscribers = 64

// ErrClosed is returned by a closed publisher or subscription.
var ErrClosed = errors.New("closed")

// Publisher is a topic this node publishes.
type Publisher struct {
	n    *Node
	opts PublishOptions

	mu     sync.Mutex
	conns  map[*pubConn]struct{}
	last   []byte
	lastAt time.Time
	closed bool
}

// Advertise registers this node as a publisher of a topic. A topic already advertised
// returns its publisher when the type matches.
func (n *Node) Advertise(ctx context.Context, opts PublishOptions) (*Publisher, error) {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil, ErrClosed
	}
	if p, ok := n.pubs[opts.Topic]; ok {
		n.mu.Unlock()
		if p.opts.Type != opts.Type || p.opts.MD5 != opts.MD5 {
			return nil, fmt.Errorf("rosnode: %s is published as %s already", opts.Topic, p.opts.Type)
		}
		return p, nil
	}
	p := &Publisher{n: n, opts: opts, conns: map[*pubConn]struct{}{}}
	n.pubs[opts.Topic] = p // before registering: subscribers call requestTopic at once
	n.mu.Unlock()
	if err := p.register(ctx); err != nil {
		n.mu.Lock()
		delete(n.pubs, opts.Topic)
		n.mu.Unlock()
		return nil, err
	}
	return p, nil
}

func (p *Publisher) register(ctx context.Context) error {
	// The master tells the subscribers; they call requestTopic and connect.
	_, err := p.n.master.RegisterPublisher(ctx, p.opts.Topic, p.opts.Type, p.n.api)
	if err != nil {
		return fmt.Errorf("registering as publisher of %s: %w", p.opts.Topic, err)
	}
	return nil
}

// Publish queues msg (one serialized message, not modified afterwards) for every connected
// subscriber. It never waits for the network.
func (p *Publisher) Publish(msg []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	p.last, p.lastAt = msg, time.Now()
	for c := range p.conns {
		c.enqueue(msg)
	}
	return nil
}

// Subscribers is the number of connected subscribers.
func (p *Publisher) Subscribers() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}

// Close unregisters the publisher and closes its connections.
func (p *Publisher) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	conns := p.conns
	p.conns = map[*pubConn]struct{}{}
	p.mu.Unlock()
	for c := range conns {
		c.close()
	}
	p.n.mu.Lock()
	if p.n.pubs[p.opts.Topic] == p {
		delete(p.n.pubs, p.opts.Topic)
	}
	p.n.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	if err := p.n.master.UnregisterPublisher(ctx, p.opts.Topic, p.n.api); err != nil {
		p.n.log.Debug("unregistering publisher", "topic", p.opts.Topic, "err", err)
	}
}

// accept completes the handshake with a subscriber and starts writing to it.
func (p *Publisher) accept(c net.Conn, h tcpros.Header) {
	if md5 := h["md5sum"]; md5 != "*" && md5 != p.opts.MD5 {
		msg := fmt.Sprintf("client [%s] wants topic [%s] to have datatype/md5sum [%s/%s], but ours is [%s/%s]",
			h["callerid"], p.opts.Topic, h["type"], md5, p.opts.Type, p.opts.MD5)
		p.n.log.Warn("ROS subscriber refused: md5sum mismatch", "topic", p.opts.Topic, "subscriber", h["callerid"],
			"their_type", h["type"], "their_md5", md5, "our_type", p.opts.Type, "our_md5", p.opts.MD5)
		tcpros.WriteHeader(c, tcpros.Header{"error": msg})
		c.Close()
		return
	}
	if p.Subscribers() >= maxSubscribers {
		tcpros.WriteHeader(c, tcpros.Header{"error": fmt.Sprintf("%s has %d subscribers already", p.opts.Topic, maxSubscribers)})
		c.Close()
		return
	}
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetNoDelay(h["tcp_nodelay"] != "0")
	}
	latching := "0"
	if p.opts.Latch {
		latching = "1"
	}
	reply := tcpros.Header{
		"callerid":           p.n.cfg.Name,
		"topic":              p.opts.Topic,
		"type":               p.opts.Type,
		"md5sum":             p.opts.MD5,
		"message_definition": p.opts.Definition,
		"latching":           latching,
	}
	if err := tcpros.WriteHeader(c, reply); err != nil {
		c.Close()
		return
	}
	c.SetDeadline(time.Time{})
	pc := &pubConn{
		pub:    p,
		conn:   c,
		id:     p.n.connIDs.Add(1),
		peer:   h["callerid"],
		ready:  make(chan struct{}, 1),
		closed: make(chan struct{}),
	}
	p.mu.Lock()
	if p.closed || len(p.conns) >= maxSubscribers {
		p.mu.Unlock()
		c.Close()
		return
	}
	p.conns[pc] = struct{}{}
	if p.last != nil && (p.opts.Latch || time.Since(p.lastAt) < p.opts.Linger) {
		pc.enqueue(p.last)
	}
	p.mu.Unlock()
	go pc.run()
	// A subscriber sends nothing after its header; reading tells us when it goes away.
	go pc.watch()
}

func (p *Publisher) drop(pc *pubConn) {
	p.mu.Lock()
	delete(p.conns, pc)
	p.mu.Unlock()
	pc.close()
}

func (p *Publisher) busInfo() []any {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []any
	for c := range p.conns {
		out = append(out, []any{int(c.id), c.peer, "o", "TCPROS", p.opts.Topic, true, "TCPROS connection on port " + fmt.Sprint(p.n.tcprosPort()) + " to " + c.conn.RemoteAddr().String()})
	}
	return out
}

// pubConn is one subscriber's connection with its queue.
type pubConn struct {
	pub  *Publisher
	conn net.Conn
	id   int64
	peer string

	mu     sync.Mutex
	queue  [][]byte
	ready  chan struct{}
	closed chan struct{}
	once   sync.Once
}

func (c *pubConn) enqueue(msg []byte) {
	c.mu.Lock()
	if len(c.queue) >= maxQueue {
		c.queue = c.queue[1:]
	}
	c.queue = append(c.queue, msg)
	c.mu.Unlock()
	select {
	case c.ready <- struct{}{}:
	default:
	}
}

func (c *pubConn) close() {
	c.once.Do(func() {
		close(c.closed)
		c.conn.Close()
	})
}

func (c *pubConn) run() {
	var frame []byte
	for {
		select {
		case <-c.closed:
			return
		case <-c.ready:
		}
		for {
			c.mu.Lock()
			if len(c.queue) == 0 {
				c.mu.Unlock()
				break
			}
			msg := c.queue[0]
			c.queue[0] = nil
			c.queue = c.queue[1:]
			c.mu.Unlock()
			frame = tcpros.AppendFrame(frame[:0], msg)
			c.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
			if _, err := c.conn.Write(frame); err != nil {
				c.pub.n.log.Debug("ROS subscriber dropped", "topic", c.pub.opts.Topic, "subscriber", c.peer, "err", err)
				c.pub.drop(c)
				return
			}
		}
	}
}

func (c *pubConn) watch() {
	var b [256]byte
	for {
		if _, err := c.conn.Read(b[:]); err != nil {
			c.pub.drop(c)
			return
		}
	}
}
