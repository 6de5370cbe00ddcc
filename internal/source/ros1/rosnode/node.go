// Package rosnode is a ROS 1 node: it registers with the master, serves the node (slave) API
// the master and other nodes call (requestTopic, publisherUpdate, getBusInfo, shutdown, ...),
// subscribes to topics over TCPROS (one connection per publisher) and publishes topics to
// the nodes that subscribe.
package rosnode

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fleetgate/fleetgate/internal/source/ros1/tcpros"
	"github.com/fleetgate/fleetgate/internal/source/ros1/xmlrpc"
)

// Config configures a node.
type Config struct {
	Name      string // the node's name (caller id), e.g. /fleetgate_1a2b3c4d
	MasterURI string // http://host:11311/
	// Host is the address other nodes reach this node at: ROS_HOSTNAME, else ROS_IP, else the
	// machine's host name (see AdvertisedHost). The node's servers listen on that address
	// only (a name: on the address it resolves to here), except for the host name taken when
	// neither variable is set, where they listen on every interface as a ROS node does.
	Host   string
	Logger *slog.Logger
}

// AdvertisedHost is the host a ROS node advertises, as ROS reads it from the environment:
// ROS_HOSTNAME, then ROS_IP, then the machine's host name.
func AdvertisedHost() string {
	h, _ := advertisedHost()
	return h
}

// advertisedHost is AdvertisedHost, and whether the environment named it (rather than the
// machine's host name standing in).
func advertisedHost() (host string, named bool) {
	if h := os.Getenv("ROS_HOSTNAME"); h != "" {
		return h, true
	}
	if ip := os.Getenv("ROS_IP"); ip != "" {
		return ip, true
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		return h, false
	}
	return "127.0.0.1", true
}

// Timeouts of the node's own servers and of the calls it makes.
const (
	// handshakeTimeout bounds reading or writing a connection header.
	handshakeTimeout = 5 * time.Second
	// apiTimeout bounds a call to a node's API (requestTopic) and the master calls Close makes.
	apiTimeout = 5 * time.Second
	// writeTimeout bounds writing one message to a subscriber; a subscriber that cannot take
	// one in this time is dropped (it may connect again).
	writeTimeout = 5 * time.Second
)

// Node is a running ROS node. Safe for concurrent use.
type Node struct {
	cfg    Config
	log    *slog.Logger
	master *Master
	api    string // this node's XML-RPC URI
	tcpros net.Listener
	http   *http.Server
	apiLn  net.Listener

	mu     sync.Mutex
	subs   map[string]*Subscription
	pubs   map[string]*Publisher
	closed bool

	connIDs atomic.Int64
	wg      sync.WaitGroup
}

// Start listens for the node API and TCPROS connections. Nothing is registered with the master
// until a topic is subscribed to or advertised.
func Start(cfg Config) (*Node, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	// The servers listen where the node is advertised, and nowhere else: a node API and a
	// TCPROS port on every interface would be open to networks the robot never uses.
	bind := cfg.Host
	if cfg.Host == "" {
		var named bool
		cfg.Host, named = advertisedHost()
		if named {
			bind = cfg.Host
		}
	}
	if cfg.Name == "" || cfg.Name[0] != '/' {
		return nil, fmt.Errorf("rosnode: node name %q must start with /", cfg.Name)
	}
	apiLn, err := net.Listen("tcp", net.JoinHostPort(bind, "0"))
	if err != nil {
		return nil, fmt.Errorf("rosnode: node API listener on the advertised address %s (ROS_IP or ROS_HOSTNAME must be an address of this machine): %w", cfg.Host, err)
	}
	// A name resolves to several addresses; TCPROS takes the one the node API got.
	tcpLn, err := net.Listen("tcp", net.JoinHostPort(boundHost(apiLn, bind), "0"))
	if err != nil {
		apiLn.Close()
		return nil, fmt.Errorf("rosnode: TCPROS listener: %w", err)
	}
	n := &Node{
		cfg:    cfg,
		log:    cfg.Logger,
		master: NewMaster(cfg.MasterURI, cfg.Name),
		api:    "http://" + net.JoinHostPort(cfg.Host, strconv.Itoa(apiLn.Addr().(*net.TCPAddr).Port)) + "/",
		tcpros: tcpLn,
		apiLn:  apiLn,
		subs:   map[string]*Subscription{},
		pubs:   map[string]*Publisher{},
	}
	n.http = &http.Server{
		Handler:           &xmlrpc.Handler{Methods: n.slaveAPI(), Log: n.log},
		ReadHeaderTimeout: handshakeTimeout,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       time.Minute,
		ErrorLog:          slog.NewLogLogger(n.log.Handler(), slog.LevelDebug),
	}
	n.wg.Add(2)
	go func() {
		defer n.wg.Done()
		n.http.Serve(apiLn)
	}()
	go func() {
		defer n.wg.Done()
		n.acceptTCPROS()
	}()
	return n, nil
}

// boundHost is the address ln listens on, or "" (every interface) when bind was.
func boundHost(ln net.Listener, bind string) string {
	if bind == "" {
		return ""
	}
	return ln.Addr().(*net.TCPAddr).IP.String()
}

// Name is the node's caller id.
func (n *Node) Name() string { return n.cfg.Name }

// URI is the node's API URI, as registered with the master.
func (n *Node) URI() string { return n.api }

// Master is the node's master client.
func (n *Node) Master() *Master { return n.master }

// tcprosPort is the port of the TCPROS listener.
func (n *Node) tcprosPort() int { return n.tcpros.Addr().(*net.TCPAddr).Port }

// Close unregisters every subscription and publication (best effort: the master may be gone)
// and stops the node.
func (n *Node) Close() {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return
	}
	n.closed = true
	subs := make([]*Subscription, 0, len(n.subs))
	for _, s := range n.subs {
		subs = append(subs, s)
	}
	pubs := make([]*Publisher, 0, len(n.pubs))
	for _, p := range n.pubs {
		pubs = append(pubs, p)
	}
	n.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range subs {
		wg.Go(s.Close)
	}
	for _, p := range pubs {
		wg.Go(p.Close)
	}
	wg.Wait()
	n.tcpros.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	n.http.Shutdown(ctx)
	n.http.Close()
	n.wg.Wait()
}

// Reregister registers every subscription and publication with the master again: after a
// master restart, the new master knows nothing of this node.
func (n *Node) Reregister(ctx context.Context) error {
	n.mu.Lock()
	subs := slices.Collect(mapValues(n.subs))
	pubs := slices.Collect(mapValues(n.pubs))
	n.mu.Unlock()
	var errs []error
	for _, p := range pubs {
		if err := p.register(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	for _, s := range subs {
		if err := s.register(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func mapValues[K comparable, V any](m map[K]V) func(func(V) bool) {
	return func(yield func(V) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

// slaveAPI is the node API: what the master and other nodes call.
func (n *Node) slaveAPI() map[string]xmlrpc.Method {
	ok := func(v any) (any, error) { return []any{1, "", v}, nil }
	return map[string]xmlrpc.Method{
		"getPid":       func(context.Context, []any) (any, error) { return ok(os.Getpid()) },
		"getMasterUri": func(context.Context, []any) (any, error) { return ok(n.cfg.MasterURI) },
		"getBusStats": func(context.Context, []any) (any, error) {
			return ok([]any{[]any{}, []any{}, []any{}})
		},
		"getBusInfo": func(context.Context, []any) (any, error) { return ok(n.busInfo()) },
		"getSubscriptions": func(context.Context, []any) (any, error) {
			return ok(n.topicList(true))
		},
		"getPublications": func(context.Context, []any) (any, error) {
			return ok(n.topicList(false))
		},
		"paramUpdate": func(context.Context, []any) (any, error) { return ok(0) },
		"shutdown": func(_ context.Context, params []any) (any, error) {
			// The master asks this when another node registers under our name. We keep
			// serving the robot; the operator must know that the ROS graph now has two
			// claims on the name.
			caller, reason := param(params, 0), param(params, 1)
			n.log.Error("the ROS master asked this node to shut down (another node took its name?); carrying on",
				"node", n.cfg.Name, "caller", caller, "reason", reason)
			return ok(0)
		},
		"publisherUpdate": func(_ context.Context, params []any) (any, error) {
			if len(params) != 3 {
				return []any{-1, "publisherUpdate takes caller_id, topic, publishers", 0}, nil
			}
			topic, _ := params[1].(string)
			uris, err := stringList(params[2])
			if err != nil {
				return []any{-1, "publishers: " + err.Error(), 0}, nil
			}
			n.mu.Lock()
			s := n.subs[topic]
			n.mu.Unlock()
			if s != nil {
				s.update(uris)
			}
			return ok(0)
		},
		"requestTopic": func(_ context.Context, params []any) (any, error) {
			if len(params) != 3 {
				return []any{-1, "requestTopic takes caller_id, topic, protocols", []any{}}, nil
			}
			topic, _ := params[1].(string)
			n.mu.Lock()
			p := n.pubs[topic]
			n.mu.Unlock()
			if p == nil {
				return []any{-1, "not a publisher of " + topic, []any{}}, nil
			}
			protocols, _ := params[2].([]any)
			for _, proto := range protocols {
				if list, ok := proto.([]any); ok && len(list) > 0 && list[0] == "TCPROS" {
					return []any{1, "ready on " + n.cfg.Host, []any{"TCPROS", n.cfg.Host, n.tcprosPort()}}, nil
				}
			}
			return []any{0, "only TCPROS is supported", []any{}}, nil
		},
	}
}

func param(params []any, i int) string {
	if i < len(params) {
		s, _ := params[i].(string)
		return s
	}
	return ""
}

// topicList is [[topic, type], ...] of the subscriptions or the publications.
func (n *Node) topicList(subs bool) []any {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := []any{}
	if subs {
		for t, s := range n.subs {
			out = append(out, []any{t, s.opts.Type})
		}
	} else {
		for t, p := range n.pubs {
			out = append(out, []any{t, p.opts.Type})
		}
	}
	return out
}

// busInfo lists this node's connections as getBusInfo reports them:
// [connectionId, destinationId, direction, transport, topic, connected, info].
func (n *Node) busInfo() []any {
	n.mu.Lock()
	subs := slices.Collect(mapValues(n.subs))
	pubs := slices.Collect(mapValues(n.pubs))
	n.mu.Unlock()
	out := []any{}
	for _, s := range subs {
		out = append(out, s.busInfo()...)
	}
	for _, p := range pubs {
		out = append(out, p.busInfo()...)
	}
	return out
}

// acceptTCPROS takes subscribers' connections until the listener closes.
func (n *Node) acceptTCPROS() {
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := n.tcpros.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			n.log.Warn("TCPROS accept", "err", err)
			time.Sleep(50 * time.Millisecond) // e.g. out of file descriptors: do not spin
			continue
		}
		wg.Go(func() { n.serveSubscriber(c) })
	}
}

// serveSubscriber reads a subscriber's connection header and hands the connection to the
// topic's publisher, or answers with an error header.
func (n *Node) serveSubscriber(c net.Conn) {
	c.SetDeadline(time.Now().Add(handshakeTimeout))
	h, err := tcpros.ReadHeader(c)
	if err != nil {
		n.log.Debug("TCPROS connection header", "remote", c.RemoteAddr().String(), "err", err)
		c.Close()
		return
	}
	refuse := func(msg string) {
		tcpros.WriteHeader(c, tcpros.Header{"error": msg})
		c.Close()
	}
	topic := h["topic"]
	if topic == "" || h["callerid"] == "" || h["md5sum"] == "" {
		refuse("connection header lacks topic, callerid or md5sum")
		return
	}
	n.mu.Lock()
	p := n.pubs[topic]
	n.mu.Unlock()
	if p == nil {
		refuse(fmt.Sprintf("%s is not a publisher of %s", n.cfg.Name, topic))
		return
	}
	p.accept(c, h)
}
