package rosnode

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate/internal/source/ros1/tcpros"
)

// SubscribeOptions describes a topic to subscribe to.
type SubscribeOptions struct {
	Topic      string
	Type       string // package/Name, or "*" for any type
	MD5        string // or "*" for any type
	Definition string
	// OnMessage receives each message, which it owns. It is called by one goroutine per
	// publisher, so calls for different publishers may run at once.
	OnMessage func(msg []byte, from Connection)
	// OnConnect, when set, learns of each publisher connected, before its first message: a
	// quiet topic's publisher has said its type and definition all the same.
	OnConnect func(from Connection)
	// MaxMessage caps a message's size (tcpros.MaxMessage when 0).
	MaxMessage int
}

// Connection is what a publisher said in its connection header.
type Connection struct {
	Publisher  string // caller id
	Type       string
	MD5        string
	Definition string
	Latching   bool
}

// Backoff between attempts to reach a publisher that failed.
const (
	minRetry = 100 * time.Millisecond
	maxRetry = 5 * time.Second
)

// maxPublishers bounds the connections of one subscription, and so the publisher URIs a
// publisherUpdate (or the master's answer) is taken at: a robot has a few publishers of a
// topic, and a peer listing thousands must not make the agent dial thousands.
const maxPublishers = 64

// refusal is a failure that retrying the same publisher cannot fix (it refused our type): the
// connection waits until the publisher is listed anew.
type refusal struct{ msg string }

func (r *refusal) Error() string { return r.msg }

// Subscription is a topic this node subscribes to, with one connection per publisher.
type Subscription struct {
	n    *Node
	opts SubscribeOptions

	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	conns   map[string]*subConn // by publisher API URI
	closed  bool
	refused error // the last publisher's refusal, for callers waiting in vain
	wg      sync.WaitGroup
	// cutLogged rate-limits the log line of a publisher list cut to maxPublishers.
	cutLogged time.Time
}

// Refused is why a publisher of the topic refused this subscription (an md5sum mismatch),
// nil when none did.
func (s *Subscription) Refused() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

// Subscribe registers this node as a subscriber of a topic and connects to its publishers.
// One subscription per topic: a second one for the same topic is an error.
func (n *Node) Subscribe(ctx context.Context, opts SubscribeOptions) (*Subscription, error) {
	if opts.OnMessage == nil {
		return nil, errors.New("rosnode: Subscribe without OnMessage")
	}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil, ErrClosed
	}
	if _, ok := n.subs[opts.Topic]; ok {
		n.mu.Unlock()
		return nil, fmt.Errorf("rosnode: %s is subscribed already", opts.Topic)
	}
	sctx, cancel := context.WithCancel(context.Background())
	s := &Subscription{n: n, opts: opts, ctx: sctx, cancel: cancel, conns: map[string]*subConn{}}
	n.subs[opts.Topic] = s // before registering: publisherUpdate may come at once
	n.mu.Unlock()
	if err := s.register(ctx); err != nil {
		s.forget()
		cancel()
		return nil, err
	}
	return s, nil
}

func (s *Subscription) register(ctx context.Context) error {
	uris, err := s.n.master.RegisterSubscriber(ctx, s.opts.Topic, s.opts.Type, s.n.api)
	if err != nil {
		return fmt.Errorf("registering as subscriber of %s: %w", s.opts.Topic, err)
	}
	s.update(uris)
	return nil
}

func (s *Subscription) forget() {
	s.n.mu.Lock()
	if s.n.subs[s.opts.Topic] == s {
		delete(s.n.subs, s.opts.Topic)
	}
	s.n.mu.Unlock()
}

// Publishers is the number of publishers connected now.
func (s *Subscription) Publishers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.conns {
		if c.isConnected() {
			n++
		}
	}
	return n
}

// update makes the connections follow the publisher list: new publishers are connected,
// vanished ones dropped.
func (s *Subscription) update(uris []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	want := s.wantLocked(uris)
	for u, c := range s.conns {
		if !want[u] {
			c.cancel()
			delete(s.conns, u)
		}
	}
	for _, u := range uris {
		if _, ok := s.conns[u]; want[u] && !ok {
			c := &subConn{sub: s, uri: u, id: s.n.connIDs.Add(1)}
			c.ctx, c.cancel = context.WithCancel(s.ctx)
			s.conns[u] = c
			s.wg.Go(c.run)
		}
	}
}

// wantLocked is the publishers to be connected to: those of uris but ours, at most
// maxPublishers, the ones connected already first so that a long list does not drop them.
// s.mu is held.
func (s *Subscription) wantLocked(uris []string) map[string]bool {
	want := map[string]bool{}
	listed := map[string]bool{}
	for _, u := range uris {
		if u == s.n.api {
			continue // our own publication of the same topic
		}
		listed[u] = true
		if _, ok := s.conns[u]; ok && len(want) < maxPublishers {
			want[u] = true
		}
	}
	for _, u := range uris {
		if len(want) >= maxPublishers {
			break
		}
		if u != s.n.api {
			want[u] = true
		}
	}
	if len(listed) > len(want) && time.Since(s.cutLogged) > time.Minute {
		s.cutLogged = time.Now()
		s.n.log.Warn("a topic lists more publishers than the agent connects to (logged once a minute)",
			"topic", s.opts.Topic, "publishers", len(listed), "connected", maxPublishers)
	}
	return want
}

// Close unregisters the subscription and closes its connections.
func (s *Subscription) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	s.forget()
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	if err := s.n.master.UnregisterSubscriber(ctx, s.opts.Topic, s.n.api); err != nil {
		s.n.log.Debug("unregistering subscriber", "topic", s.opts.Topic, "err", err)
	}
}

func (s *Subscription) busInfo() []any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []any
	for _, c := range s.conns {
		out = append(out, []any{int(c.id), c.uri, "i", "TCPROS", s.opts.Topic, c.isConnected(), "TCPROS connection to " + c.uri})
	}
	return out
}

// subConn is the connection to one publisher, kept up until the publisher leaves the list.
type subConn struct {
	sub    *Subscription
	uri    string
	id     int64
	ctx    context.Context
	cancel context.CancelFunc

	mu        sync.Mutex
	connected bool
}

func (c *subConn) isConnected() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.connected
}

func (c *subConn) setConnected(v bool) {
	c.mu.Lock()
	c.connected = v
	c.mu.Unlock()
}

func (c *subConn) run() {
	log := c.sub.n.log.With("topic", c.sub.opts.Topic, "publisher", c.uri)
	retry := minRetry
	failures := 0
	var loggedAt time.Time // a publisher that drops us again and again is logged once a minute
	for c.ctx.Err() == nil {
		got, err := c.session()
		if c.ctx.Err() != nil {
			return
		}
		var refused *refusal
		if errors.As(err, &refused) {
			log.Warn(err.Error())
			c.sub.mu.Lock()
			c.sub.refused = err
			c.sub.mu.Unlock()
			return
		}
		if got {
			retry, failures = minRetry, 0 // it worked for a while: start over
		}
		failures++
		if failures == 1 && time.Since(loggedAt) > time.Minute {
			loggedAt = time.Now()
			log.Info("ROS publisher connection lost; retrying", "err", err)
		} else {
			log.Debug("ROS publisher connection failed", "err", err)
		}
		select {
		case <-c.ctx.Done():
			return
		case <-time.After(retry):
		}
		retry = min(2*retry, maxRetry)
	}
}

// session asks the publisher for the topic, connects, shakes hands and reads messages until
// the connection fails. got says whether any message arrived.
func (c *subConn) session() (got bool, err error) {
	s := c.sub
	ctx, cancel := context.WithTimeout(c.ctx, apiTimeout)
	v, err := call(ctx, &s.n.master.client, c.uri, "requestTopic", s.n.cfg.Name, s.opts.Topic, []any{[]any{"TCPROS"}})
	cancel()
	if err != nil {
		return false, fmt.Errorf("requestTopic: %w", err)
	}
	params, ok := v.([]any)
	if !ok || len(params) < 3 || params[0] != "TCPROS" {
		return false, fmt.Errorf("requestTopic answered %v, not [TCPROS, host, port]", truncate(v))
	}
	host, _ := params[1].(string)
	port, ok := params[2].(int)
	if host == "" || !ok || port <= 0 || port > 65535 {
		return false, fmt.Errorf("requestTopic answered %v, not [TCPROS, host, port]", truncate(v))
	}
	d := net.Dialer{Timeout: handshakeTimeout}
	conn, err := d.DialContext(c.ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return false, err
	}
	stop := context.AfterFunc(c.ctx, func() { conn.Close() })
	defer stop()
	defer conn.Close()
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	conn.SetDeadline(time.Now().Add(handshakeTimeout))
	err = tcpros.WriteHeader(conn, tcpros.Header{
		"callerid":           s.n.cfg.Name,
		"topic":              s.opts.Topic,
		"md5sum":             s.opts.MD5,
		"type":               s.opts.Type,
		"message_definition": s.opts.Definition,
		"tcp_nodelay":        "1",
	})
	if err != nil {
		return false, err
	}
	h, err := tcpros.ReadHeader(conn)
	if err != nil {
		return false, err
	}
	if e, ok := h["error"]; ok {
		return false, &refusal{fmt.Sprintf("ROS publisher refused the subscription to %s as %s (md5sum %s): %s",
			s.opts.Topic, s.opts.Type, s.opts.MD5, e)}
	}
	if s.opts.MD5 != "*" && h["md5sum"] != s.opts.MD5 {
		return false, &refusal{fmt.Sprintf("md5sum mismatch on %s: the publisher sends %s (md5sum %s), we read %s (md5sum %s)",
			s.opts.Topic, h["type"], h["md5sum"], s.opts.Type, s.opts.MD5)}
	}
	from := Connection{Publisher: h["callerid"], Type: h["type"], MD5: h["md5sum"], Definition: h["message_definition"], Latching: h["latching"] == "1"}
	conn.SetDeadline(time.Time{})
	if s.opts.OnConnect != nil {
		s.opts.OnConnect(from)
	}
	c.setConnected(true)
	defer c.setConnected(false)
	for {
		msg, err := tcpros.ReadMessage(conn, s.opts.MaxMessage, nil)
		if err != nil {
			return got, err
		}
		got = true
		s.opts.OnMessage(msg, from)
	}
}
