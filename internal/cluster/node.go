// Package cluster joins the cloud gateway's replicas over NATS (fleetgate serve --nats). Each
// replica announces the robots and agents it holds; a replica asked about a robot whose agent
// is linked elsewhere forwards the request to the holder with NATS request/reply and follows
// its live streams through one NATS subject per stream, shared by every viewer of the replica.
// Which replica owns an agent's link is fenced by a JetStream key-value bucket: a newer claim
// makes the older holder drop its link, so an agent that moves has one owner, never two.
package cluster

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/link/cloud"
	"github.com/fleetgate/fleetgate/proto/clusterpb"
)

// Local is this replica's registry of the robots it holds.
type Local interface {
	Robot(id string) (fleet.Robot, bool)
	Robots() []fleet.Robot
	Home(id string) (fleet.Home, bool)
	// Changed is closed at the next change of the set of robots.
	Changed() <-chan struct{}
}

// Agents is this replica's end of the agent links.
type Agents interface {
	Linked() []cloud.LinkedAgent
	// Fence closes the agent's link if it is still link: another replica owns the agent.
	Fence(agentID string, link uint64, reason string)
}

// Archive opens an archived resource file.
type Archive interface {
	Open(id string) (fleet.ResourceFile, error)
}

// Config wires a Node.
type Config struct {
	// URL is the NATS server, or a comma-separated list of them.
	URL string
	// Auth is how this replica logs in to the NATS server and checks it; Open refuses a
	// bus without credentials unless Auth.Insecure.
	Auth Auth
	// Replica names this replica in subjects and logs: letters, digits, - and _.
	Replica string
	Local   Local
	// Archive is where every replica finds the resource files agents uploaded (shared by
	// all replicas); nil: a robot held elsewhere offers none for download here.
	Archive Archive
	Logger  *slog.Logger
	// TokensChanged is called when another replica revoked access (a token, a user, a
	// membership): this replica's sockets re-check their tokens now.
	TokensChanged func()
	// LoginFailure is called with each change another replica made to its login limits.
	LoginFailure func(limit, key string, at time.Time, forgiven bool)
	// Period is how often the replica announces what it holds (default 1 s); a replica not
	// heard from for MissedAnnouncements periods holds nothing.
	Period time.Duration
	Now    func() time.Time
}

// MissedAnnouncements is how many periods of silence make a replica's robots offline
// everywhere else.
// Failover does not wait for it (an agent that links elsewhere is believed there at once, its
// claim being newer); it only bounds how long the robots of a replica that died with its
// agents stay listed, so it leaves room for a replica slowed down by a burst of links.
const MissedAnnouncements = 5

// PingInterval and MaxPingsOutstanding bound how long a silent NATS connection passes for a
// live one: about three seconds (a pong is a round trip; a busy replica answers well within).
const (
	PingInterval        = time.Second
	MaxPingsOutstanding = 3
)

// Subjects and the ownership bucket. Every replica of one cloud uses the same NATS account.
const (
	presenceSubject = "fleetgate.presence"
	tokensSubject   = "fleetgate.tokens_changed"
	loginsSubject   = "fleetgate.login_failures"
	ownersBucket    = "fleetgate_agent_owners"
)

func requestSubject(replica string) string { return "fleetgate.replica." + replica + ".request" }
func liveSubject(replica string) string    { return "fleetgate.replica." + replica + ".live" }

var replicaName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ErrUnreachable is what a caller gets, wrapped in fleetgate.EUnavailable, when NATS cannot be
// reached: the robots of other replicas cannot be asked.
var ErrUnreachable = errors.New("the cluster's NATS server is unreachable")

// Node is this replica's member of the cluster. It is the gateway's Presence: the robots held
// here, then the robots other replicas announce.
type Node struct {
	cfg    Config
	log    *slog.Logger
	now    func() time.Time
	nc     *nats.Conn
	owners jetstream.KeyValue
	agents atomic.Pointer[Agents]
	seq    atomic.Uint64

	// mu guards the view of the other replicas. Requests for robots held elsewhere read it
	// (RLock); announcements change it, decoded before they take it.
	mu       sync.RWMutex
	replicas map[string]*replicaView // the others, by name
	index    map[string]*Robot       // robots held elsewhere, by id: the highest epoch wins
	claims   map[string]claim        // this replica's claims, by agent id

	holder    *holder   // the live relays this replica serves to the others
	ctl       *controls // teleoperation across replicas
	lostMu    sync.Mutex
	lost      chan struct{} // closed when the NATS connection drops; replaced when it is back
	subs      []*nats.Subscription
	closeOnce sync.Once
	kick      chan struct{} // asks for an announcement now
	busy      chan struct{} // one per forwarded request being served
}

// claim is this replica's ownership of one agent link.
type claim struct {
	link     uint64
	revision uint64
}

// Open connects to NATS and prepares the ownership bucket; Run starts the work.
func Open(ctx context.Context, cfg Config) (*Node, error) {
	if !replicaName.MatchString(cfg.Replica) {
		return nil, fmt.Errorf("replica name %q: use 1 to 64 letters, digits, - and _", cfg.Replica)
	}
	if err := cfg.Auth.Check(cfg.URL); err != nil {
		return nil, err
	}
	authOptions, err := cfg.Auth.options()
	if err != nil {
		return nil, err
	}
	if cfg.Period <= 0 {
		cfg.Period = time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	n := &Node{
		cfg: cfg, log: log.With("component", "cluster", "replica", cfg.Replica), now: cfg.Now,
		replicas: map[string]*replicaView{}, index: map[string]*Robot{}, claims: map[string]claim{},
		kick: make(chan struct{}, 1), lost: make(chan struct{}), busy: make(chan struct{}, maxConcurrent), ctl: newControls(),
	}
	if cfg.Auth.Insecure {
		n.log.Warn(insecureWarning)
	}
	nc, err := nats.Connect(cfg.URL, append(authOptions,
		nats.Name("fleetgate "+cfg.Replica),
		nats.MaxReconnects(-1), nats.ReconnectWait(250*time.Millisecond),
		// A bus that went silent (this replica partitioned, its connection not reset) is
		// lost after PingInterval times MaxPingsOutstanding: the library's default, two
		// minutes of pings, would keep the replica believing in a dead bus that long.
		nats.PingInterval(PingInterval), nats.MaxPingsOutstanding(MaxPingsOutstanding),
		nats.RetryOnFailedConnect(false),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			n.lostMu.Lock()
			select {
			case <-n.lost:
			default:
				close(n.lost)
			}
			n.lostMu.Unlock()
			n.log.Warn("NATS disconnected: letting go of cross-replica teleoperation", "err", err)
			n.releaseHeld("")
			n.endViewing(&fleetgate.Error{Code: fleetgate.EUnavailable, Message: "unavailable", Err: ErrUnreachable})
		}),
		nats.ReconnectHandler(func(c *nats.Conn) {
			n.lostMu.Lock()
			n.lost = make(chan struct{})
			n.lostMu.Unlock()
			n.log.Info("NATS reconnected", "server", c.ConnectedUrlRedacted())
			n.announceNow()
		}),
	)...)
	if errors.Is(err, nats.ErrAuthorization) || errors.Is(err, nats.ErrAuthExpired) || errors.Is(err, nats.ErrAuthRevoked) {
		return nil, fmt.Errorf("connecting to NATS at %s: the server refused this replica's credentials (%s): %w", redact(cfg.URL), cfg.Auth.identity(cfg.URL), err)
	}
	if unknownCA := (x509.UnknownAuthorityError{}); errors.As(err, &unknownCA) {
		return nil, fmt.Errorf("connecting to NATS at %s: the server's certificate is not signed by a CA this replica trusts (give that CA's PEM file: --nats-ca): %w", redact(cfg.URL), err)
	}
	if err != nil {
		return nil, fmt.Errorf("connecting to NATS at %s: %w", redact(cfg.URL), err)
	}
	n.nc = nc
	_, notTLS := nc.TLSConnectionState()
	n.log.Info("NATS connected", "server", nc.ConnectedUrlRedacted(), "credentials", cfg.Auth.identity(cfg.URL), "tls", notTLS == nil)
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	// History 1: only the newest claim of an agent matters. A claim outlives its replica
	// (a kill -9 sends no goodbye); the next holder's claim replaces it.
	n.owners, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: ownersBucket, History: 1, Description: "which fleetgate replica holds each agent's link",
	})
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("NATS JetStream key-value bucket %s (is the server started with JetStream, -js?): %w", ownersBucket, err)
	}
	n.holder = newHolder(n)
	return n, nil
}

// SetAgents gives the node this replica's agent links, which it fences.
func (n *Node) SetAgents(a Agents) { n.agents.Store(&a) }

// Replica is this replica's name.
func (n *Node) Replica() string { return n.cfg.Replica }

// Replicas lists the replicas this one hears from now, itself included, by name.
func (n *Node) Replicas() []string {
	n.mu.RLock()
	names := make([]string, 0, len(n.replicas)+1)
	for name := range n.replicas {
		names = append(names, name)
	}
	n.mu.RUnlock()
	names = append(names, n.cfg.Replica)
	slices.Sort(names)
	return names
}

// Run serves the other replicas and keeps the cluster's view until ctx ends.
func (n *Node) Run(ctx context.Context) error {
	sub := func(subject string, h nats.MsgHandler) error {
		s, err := n.nc.Subscribe(subject, h)
		if err == nil {
			n.subs = append(n.subs, s)
		}
		return err
	}
	if err := sub(presenceSubject, n.heard); err != nil {
		return err
	}
	if err := sub(requestSubject(n.cfg.Replica), n.answer); err != nil {
		return err
	}
	if err := sub(liveSubject(n.cfg.Replica), n.holder.interest); err != nil {
		return err
	}
	if err := sub(tokensSubject, n.tokensChanged); err != nil {
		return err
	}
	if err := sub(loginsSubject, n.loginFailure); err != nil {
		return err
	}
	if err := sub(controlSubject(n.cfg.Replica), n.takeControl); err != nil {
		return err
	}
	if err := sub(commandSubject(n.cfg.Replica), n.controlMessage); err != nil {
		return err
	}
	if err := sub(controlEndSubject(n.cfg.Replica), n.controlEnded); err != nil {
		return err
	}
	if err := sub(controlNoticeSubject(n.cfg.Replica), n.controlNotice); err != nil {
		return err
	}
	watchDone := make(chan struct{})
	go func() { defer close(watchDone); n.watchOwners(ctx) }()
	go n.holder.run(ctx)
	n.announceLoop(ctx)
	// A watch being set up as NATS went away waits for the library's JetStream timeout (5 s)
	// whatever its context says: shutdown does not wait that long for it.
	select {
	case <-watchDone:
	case <-time.After(time.Second):
	}
	return nil
}

// Close leaves the cluster: its subscriptions end, then the connection. The others learn it
// from its silence (a replica killed without a goodbye is no different).
func (n *Node) Close() {
	n.closeOnce.Do(func() {
		for _, s := range n.subs {
			s.Unsubscribe()
		}
		if n.nc.IsConnected() {
			n.nc.FlushTimeout(time.Second)
		}
		n.nc.Close()
	})
}

// PublishTokensChanged tells the other replicas that access was revoked here, so that their
// sockets re-check their tokens now rather than within their period.
func (n *Node) PublishTokensChanged() {
	if err := n.nc.Publish(tokensSubject, []byte(n.cfg.Replica)); err != nil && n.nc.IsConnected() {
		n.log.Warn("telling the replicas of a revocation", "err", err)
	}
}

func (n *Node) tokensChanged(m *nats.Msg) {
	if string(m.Data) != n.cfg.Replica && n.cfg.TokensChanged != nil {
		n.cfg.TokensChanged()
	}
}

// PublishLoginFailure tells the other replicas of a change of this replica's login limits.
func (n *Node) PublishLoginFailure(limit, key string, at time.Time, forgiven bool) {
	data, _ := proto.Marshal(&clusterpb.LoginFailure{Replica: n.cfg.Replica, Limit: limit, Key: key, AtUnixNano: at.UnixNano(), Forgiven: forgiven})
	if err := n.nc.Publish(loginsSubject, data); err != nil && n.nc.IsConnected() {
		n.log.Warn("telling the replicas of a failed login", "err", err)
	}
}

func (n *Node) loginFailure(m *nats.Msg) {
	var f clusterpb.LoginFailure
	if proto.Unmarshal(m.Data, &f) != nil || f.GetReplica() == n.cfg.Replica || n.cfg.LoginFailure == nil {
		return
	}
	n.cfg.LoginFailure(f.GetLimit(), f.GetKey(), time.Unix(0, f.GetAtUnixNano()), f.GetForgiven())
}

// Connected reports whether NATS is reachable now.
func (n *Node) Connected() bool { return n.nc.IsConnected() }

// Online reports whether robot id is held by this replica or announced by another.
func (n *Node) Online(id string) bool {
	_, ok := n.Robot(id)
	return ok
}

// Robot returns robot id: this replica's own, else one another replica holds, reached
// through it.
func (n *Node) Robot(id string) (fleet.Robot, bool) {
	if r, ok := n.cfg.Local.Robot(id); ok {
		return r, true
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	r, ok := n.index[id]
	if !ok {
		return nil, false
	}
	return r, true
}

// AgentLastHeard is when another replica last heard agent agentID, if one holds its link.
func (n *Node) AgentLastHeard(agentID string) (time.Time, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var best time.Time
	var epoch uint64
	found := false
	for _, v := range n.replicas {
		if a, ok := v.agents[agentID]; ok && (!found || a.GetEpoch() > epoch) {
			best, epoch, found = time.UnixMilli(a.GetLastHeardMs()), a.GetEpoch(), true
		}
	}
	return best, found
}

// unavailable is the error of a call the cluster could not carry.
func unavailable(format string, args ...any) error {
	return fleetgate.Errorf(fleetgate.EUnavailable, format, args...)
}

// reachable is nil when NATS is connected now: a call made while the client reconnects would
// wait in its buffer until its deadline, where failing at once tells the caller the truth.
func (n *Node) reachable(what string) error {
	if n.nc.IsConnected() {
		return nil
	}
	return &fleetgate.Error{Code: fleetgate.EUnavailable, Message: what + ": unavailable", Err: ErrUnreachable}
}

// whileConnected is ctx, also ended (with cause ErrUnreachable) when the NATS connection
// drops: a request in flight then would wait in the client's buffer until its deadline.
func (n *Node) whileConnected(ctx context.Context) (context.Context, context.CancelFunc) {
	n.lostMu.Lock()
	lost := n.lost
	n.lostMu.Unlock()
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case <-lost:
			cancel(ErrUnreachable)
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(nil) }
}

// request is a NATS request that fails as unreachable as soon as the connection drops.
func (n *Node) request(ctx context.Context, subject string, data []byte, what string) (*nats.Msg, error) {
	if err := n.reachable(what); err != nil {
		return nil, err
	}
	rctx, cancel := n.whileConnected(ctx)
	defer cancel()
	msg, err := n.nc.RequestWithContext(rctx, subject, data)
	if err != nil {
		if errors.Is(context.Cause(rctx), ErrUnreachable) {
			return nil, &fleetgate.Error{Code: fleetgate.EUnavailable, Message: what + ": unavailable", Err: ErrUnreachable}
		}
		return nil, n.natsError(err, what)
	}
	return msg, nil
}

// natsError says in words why a NATS call failed.
func (n *Node) natsError(err error, what string) error {
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return unavailable("%s: the replica that holds it does not answer (it may have just stopped; try again)", what)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout):
		return unavailable("%s: no answer from the replica that holds it in time", what)
	case errors.Is(err, nats.ErrMaxPayload):
		return fleetgate.Errorf(fleetgate.EInvalid, "%s: the message is larger than the cluster's NATS max_payload (%d bytes)", what, n.nc.MaxPayload())
	case errors.Is(err, context.Canceled):
		return err
	case !n.nc.IsConnected():
		return &fleetgate.Error{Code: fleetgate.EUnavailable, Message: what + ": unavailable", Err: ErrUnreachable}
	}
	return unavailable("%s: %v", what, err)
}

// redact hides a password in a NATS URL.
func redact(url string) string {
	return regexp.MustCompile(`//[^@/]*@`).ReplaceAllString(url, "//***@")
}
