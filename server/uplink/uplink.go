// Package uplink is the agent's end of the agent link, an adapter over the agent's core (Core)
// beside the HTTP API's: it dials the cloud, announces the robots this process hosts, answers
// the cloud's requests from them, lets cloud operators drive them through the agent's door,
// pushes their custom KPIs, resource lists and the event log, uploads resource files the
// cloud asks for, and reconnects with jittered exponential backoff. The local gateway keeps
// serving whatever the link does. The wire protocol and the cloud's end are internal/link.
package uplink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
	"github.com/fleetgate/fleetgate/internal/video"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// Config configures the agent end.
type Config struct {
	// CloudURL is the cloud gateway's base URL (http, https, ws or wss), or a comma-separated
	// list of the URLs of its replicas: after a link ends or a dial fails, the next is tried.
	CloudURL string
	Key      string
	Version  string
	// Core is the agent's core: its robots, their door and its event log. Required.
	Core   Core
	Logger *slog.Logger
	// HTTPClient dials the cloud (TLS settings, proxies); nil: http.DefaultClient.
	HTTPClient *http.Client
	// KPIEvery is how often custom KPIs are pushed (default 1 s); ResourceScanEvery how
	// often resource lists are compared with what was sent (default 10 s).
	KPIEvery          time.Duration
	ResourceScanEvery time.Duration
	// MaxBackoff caps the wait between connection attempts (default 5 s).
	MaxBackoff time.Duration
	// LiveBudget caps the bytes per second of live samples sent to the cloud, shared fairly
	// between the streams watched there; 0: no cap.
	LiveBudget int64
	// NoLive keeps the agent from opening its live connection (cloud live view off here).
	NoLive bool
	// Congestion is the TCP congestion control the link's sockets ask for ("": the
	// system's; fleetgate agent's default is bbr).
	Congestion string
	// NoLanes sends bulk chunks as fast as the link takes them, and live samples in plain
	// turn: the link before its lanes (lanes.go), kept to measure against.
	NoLanes bool
	// Video serves the cloud's H.264 viewers (LiveSubscribe.codec): the gateway's encoders,
	// so that local and cloud viewers of a camera share one; nil: H.264 only from streams
	// that are H.264 already.
	Video *video.Encoders
}

// Backoff after a refused key: long enough not to trip the cloud's failure limit, which is
// per address and would shut out the other agents behind the same NAT.
const authBackoff = 30 * time.Second

// errReplaced ends Run: the cloud closed the link for a newer one of the same agent key. A
// process never reads that close on a link it gave up itself (it dials only after its last
// session ended), so another live agent has the key; reconnecting would take the link back
// and the two would replace each other every few seconds, their robots flapping.
var errReplaced = errors.New("replaced by a newer link of this agent key")

// maxConcurrentRequests bounds the cloud's requests served at once.
const maxConcurrentRequests = 32

// Agent keeps one link to the cloud.
type Agent struct {
	cfg       Config
	log       *slog.Logger
	urls      []string // the link endpoints, tried in turn
	next      int      // the one the next session dials (Run's goroutine only)
	connected atomic.Bool

	ccMu sync.Mutex
	cc   string // the congestion control of the last connection (Congestion)
}

// New checks cfg and returns an Agent; Run starts it.
func New(cfg Config) (*Agent, error) {
	var urls []string
	for _, base := range strings.Split(cfg.CloudURL, ",") {
		u, err := linkURL(strings.TrimSpace(base))
		if err != nil {
			return nil, err
		}
		urls = append(urls, u)
	}
	if cfg.Core == nil {
		return nil, errors.New("uplink: no Core")
	}
	if cfg.Key == "" {
		return nil, errors.New("an agent key is required to link to the cloud (fleetgate agents add on the cloud prints one)")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.KPIEvery <= 0 {
		cfg.KPIEvery = time.Second
	}
	if cfg.ResourceScanEvery <= 0 {
		cfg.ResourceScanEvery = 10 * time.Second
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = 5 * time.Second
	}
	return &Agent{cfg: cfg, log: cfg.Logger.With("component", "agentlink"), urls: urls}, nil
}

// linkURL is the link endpoint under a cloud base URL.
func linkURL(base string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("cloud URL %q: want http(s)://host[:port]", base)
	}
	switch u.Scheme {
	case "http", "ws":
		u.Scheme = "ws"
	case "https", "wss":
		u.Scheme = "wss"
	default:
		return "", fmt.Errorf("cloud URL %q: scheme must be http, https, ws or wss", base)
	}
	if u.User != nil || u.RawQuery != "" {
		return "", fmt.Errorf("cloud URL %q: no credentials or query: the agent key goes in a header", base)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + link.Path
	return u.String(), nil
}

// Connected reports whether the link is up now.
func (a *Agent) Connected() bool { return a.connected.Load() }

// Run keeps the link up until ctx ends: connect, serve, and after a drop wait a jittered,
// doubling delay capped at MaxBackoff (reset after a link that lasted a minute). It stops
// early when another agent with the same key replaced the link (errReplaced).
func (a *Agent) Run(ctx context.Context) {
	backoff := 250 * time.Millisecond
	for ctx.Err() == nil {
		start := time.Now()
		wait, err := a.session(ctx)
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, errReplaced) {
			a.log.Error("another agent process linked with this agent key, and the newer link wins: this one stops linking "+
				"(give each agent its own key with fleetgate agents add, then restart it); its local gateway keeps serving", "err", err)
			return
		}
		if time.Since(start) > time.Minute {
			backoff = 250 * time.Millisecond
		}
		// The next replica, if there are several: the one that failed may be gone.
		a.next = (a.next + 1) % len(a.urls)
		if wait == 0 {
			// Full jitter over [d/2, d]: agents dropped together by a cloud restart do not
			// come back in lockstep.
			wait = backoff/2 + rand.N(backoff/2+1)
			backoff = min(2*backoff, a.cfg.MaxBackoff)
		}
		a.log.Info("cloud link down; retrying", "err", err, "in", wait.Round(time.Millisecond))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// session runs one connection. It returns when the link ends, with the wait the cloud asked
// for (0: the caller's backoff) and why it ended.
func (a *Agent) session(ctx context.Context) (time.Duration, error) {
	url := a.urls[a.next]
	dialCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	var control *net.TCPConn
	dialCtx = withDialed(dialCtx, func(c *net.TCPConn) { control = c })
	conn, resp, err := websocket.Dial(dialCtx, url, &websocket.DialOptions{
		HTTPClient:      a.client(false),
		HTTPHeader:      http.Header{link.KeyHeader: {a.cfg.Key}},
		CompressionMode: websocket.CompressionDisabled,
	})
	cancel()
	if err != nil {
		return refusedWait(resp), dialError(resp, err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(link.MaxFrame)
	s := &session{a: a, url: url, conn: conn, done: make(chan struct{}), sem: make(chan struct{}, maxConcurrentRequests),
		controls: map[string]*cloudControl{}, released: map[string]struct{}{}, asking: map[string]context.CancelFunc{}, eventsStored: make(chan []int64, 1)}
	s.conns.control.Store(control)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	defer s.end()
	s.lastHeard.Store(time.Now().UnixNano())
	welcome, err := s.handshake()
	if err != nil {
		return 0, err
	}
	a.connected.Store(true)
	defer a.connected.Store(false)
	a.log.Info("linked to the cloud", "cloud", url, "agent_id", welcome.GetAgentId(), "fleet", welcome.GetFleetId())
	s.noteRefused(welcome.GetRefused())
	if ms := welcome.GetHeartbeatIntervalMs(); ms > 0 {
		s.heartbeat = time.Duration(ms) * time.Millisecond
	}
	return 0, s.run(ctx)
}

// dialError explains a failed dial, with the cloud's reason when it answered.
func dialError(resp *http.Response, err error) error {
	if resp == nil {
		return err
	}
	var body []byte
	if resp.Body != nil {
		body, _ = io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return fmt.Errorf("the cloud refused the agent key (401): check --agent-key, or whether the agent was revoked")
	case http.StatusTooManyRequests:
		return fmt.Errorf("the cloud is rate-limiting this address after failed keys (429)")
	case http.StatusNotFound:
		return fmt.Errorf("no agent link at %s (404): is the URL that of a fleetgate cloud (fleetgate serve)?", resp.Request.URL)
	}
	return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(body)))
}

// refusedWait is how long to wait after the cloud refused the upgrade.
func refusedWait(resp *http.Response) time.Duration {
	if resp == nil {
		return 0
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return authBackoff
	case http.StatusTooManyRequests:
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			return time.Duration(s) * time.Second
		}
		return authBackoff
	}
	return 0
}

// noteRefused logs the robots the cloud refused at the last announcement (each announcement
// lists all of them) and keeps them: their KPI values and resource lists are not pushed, since
// the cloud takes pushes only for the robots it registered and logs every other one.
func (s *session) noteRefused(refused []*linkpb.RobotRefused) {
	ids := make(map[string]bool, len(refused))
	for _, r := range refused {
		s.a.log.Warn("the cloud refused a robot", "robot", r.GetId(), "reason", r.GetReason())
		ids[r.GetId()] = true
	}
	s.refusedMu.Lock()
	s.refused = ids
	s.refusedMu.Unlock()
}

func (s *session) isRefused(robotID string) bool {
	s.refusedMu.Lock()
	defer s.refusedMu.Unlock()
	return s.refused[robotID]
}

// session is one connection to the cloud.
type session struct {
	a         *Agent
	url       string // the link endpoint this session dialled: its live connection goes there too
	conn      *websocket.Conn
	heartbeat time.Duration
	lastHeard atomic.Int64
	sem       chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	// ctx ends with the session: requests in flight stop.
	ctx    context.Context
	cancel context.CancelFunc
	reqs   sync.WaitGroup
	// robotsChanged is the registry's change signal taken before the hello's robot list, so
	// that a robot coming or going during the handshake is announced after it.
	robotsChanged <-chan struct{}

	// linkDelay measures the link's round trip (measureLink): a cloud operator's delay is the
	// cloud's estimate plus this.
	linkDelay teleop.DelayMeter

	controlsMu sync.Mutex
	controls   map[string]*cloudControl      // cloud operators driving, by control id
	released   map[string]struct{}           // releases that came before their grant (see release)
	asking     map[string]context.CancelFunc // requests waiting for their holder's answer: a release withdraws them

	eventsStored chan []int64 // the cloud's confirmations of event batches (pushEvents)

	refusedMu sync.Mutex
	refused   map[string]bool // robots the cloud refused at the last announcement (noteRefused)

	conns linkConns // the lanes' view of the connections (lanes.go)
}

// over reports whether the session has ended. A write can fail without that (its timeout
// ran out waiting behind a long one): the loops then try again rather than stop.
func (s *session) over() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (s *session) end() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.cancel()
	})
}

// handshake sends hello and reads the cloud's welcome.
func (s *session) handshake() (*linkpb.Welcome, error) {
	s.heartbeat = link.HeartbeatInterval
	s.robotsChanged = s.a.cfg.Core.HostedRobotsChanged()
	hello := &linkpb.Hello{ProtocolVersion: link.ProtocolVersion, AgentVersion: s.a.cfg.Version, Robots: s.robotInfos()}
	if err := s.write(&linkpb.Frame{Body: &linkpb.Frame_Hello{Hello: hello}}, 10*time.Second); err != nil {
		return nil, err
	}
	timer := time.AfterFunc(10*time.Second, func() { s.conn.CloseNow() })
	defer timer.Stop()
	f, err := link.ReadFrame(s.conn)
	if err != nil {
		return nil, closeReason(err)
	}
	switch b := f.Body.(type) {
	case *linkpb.Frame_Welcome:
		return b.Welcome, nil
	case *linkpb.Frame_Refusal:
		s.conn.Close(websocket.StatusNormalClosure, "")
		return nil, fmt.Errorf("the cloud refused the link: %s", b.Refusal.GetReason())
	default:
		return nil, fmt.Errorf("the cloud answered hello with %T", f.Body)
	}
}

func closeReason(err error) error {
	if code := websocket.CloseStatus(err); code != -1 {
		var ce websocket.CloseError
		if errors.As(err, &ce) && ce.Reason != "" {
			return fmt.Errorf("the cloud closed the link (%d): %s", code, ce.Reason)
		}
		return fmt.Errorf("the cloud closed the link (%d)", code)
	}
	return err
}

func (s *session) robotInfos() []*linkpb.RobotInfo {
	robots := s.a.cfg.Core.HostedRobots()
	out := make([]*linkpb.RobotInfo, len(robots))
	for i, r := range robots {
		out[i] = link.InfoToWire(r.Info())
	}
	return out
}

// run serves the session until the link ends or ctx does.
func (s *session) run(ctx context.Context) error {
	var wg sync.WaitGroup
	for _, loop := range []func(){s.keepAlive, s.measureLink, s.watchRobots, s.pushKPIs, s.pushResources, s.runLive, s.pushEvents} {
		wg.Add(1)
		go func() { defer wg.Done(); loop() }()
	}
	stop := context.AfterFunc(ctx, func() {
		s.conn.Close(websocket.StatusGoingAway, "the agent is shutting down")
	})
	defer stop()
	err := s.readLoop()
	s.end()
	s.stopControls() // the cloud is gone: its operators' robots get their zero now
	s.conn.CloseNow()
	wg.Wait()
	s.reqs.Wait()
	return err
}

func (s *session) readLoop() error {
	for {
		f, err := link.ReadFrame(s.conn)
		if err != nil {
			if errors.Is(err, link.ErrMalformed) {
				s.conn.Close(websocket.StatusProtocolError, "malformed frame")
			}
			if websocket.CloseStatus(err) == link.CloseReplaced {
				return fmt.Errorf("%w: %w", errReplaced, closeReason(err))
			}
			return closeReason(err)
		}
		s.lastHeard.Store(time.Now().UnixNano())
		switch b := f.Body.(type) {
		case *linkpb.Frame_Heartbeat:
		case *linkpb.Frame_Request:
			s.serve(b.Request)
		case *linkpb.Frame_Accepted:
			s.noteRefused(b.Accepted.GetRefused())
		case *linkpb.Frame_Command:
			s.command(b.Command)
		case *linkpb.Frame_Release:
			s.release(b.Release.GetControlId())
		case *linkpb.Frame_ControlAnswer:
			s.answerRequest(b.ControlAnswer)
		case *linkpb.Frame_EventsStored:
			s.eventsDone(b.EventsStored.GetLocalIds())
		case *linkpb.Frame_Refusal:
			s.a.log.Warn("the cloud is closing the link", "reason", b.Refusal.GetReason())
		default:
			s.conn.Close(websocket.StatusProtocolError, "unexpected frame")
			return fmt.Errorf("the cloud sent an unexpected %T", f.Body)
		}
	}
}

// keepAlive sends heartbeats and ends a link that has been silent for MissedHeartbeats
// intervals.
func (s *session) keepAlive() {
	check := s.heartbeat / 20
	silence := time.Duration(link.MissedHeartbeats)*s.heartbeat - check
	tick := time.NewTicker(check)
	defer tick.Stop()
	next := time.Now()
	for {
		select {
		case <-s.done:
			return
		case now := <-tick.C:
			if time.Since(time.Unix(0, s.lastHeard.Load())) > silence {
				s.a.log.Warn("cloud link silent; reconnecting")
				s.conn.CloseNow()
				return
			}
			if !now.Before(next) {
				next = now.Add(s.heartbeat)
				s.write(&linkpb.Frame{Body: &linkpb.Frame_Heartbeat{Heartbeat: &linkpb.Heartbeat{Sent: link.Time(now)}}}, s.heartbeat)
			}
		}
	}
}

// watchRobots tells the cloud when the set of hosted robots changes.
func (s *session) watchRobots() {
	changed := s.robotsChanged
	for {
		select {
		case <-s.done:
			return
		case <-changed:
		}
		// The next signal is taken before the list is read: a change while the list is
		// being sent is announced after it.
		changed = s.a.cfg.Core.HostedRobotsChanged()
		f := &linkpb.Frame{Body: &linkpb.Frame_Robots{Robots: &linkpb.RobotsChanged{Robots: s.robotInfos()}}}
		for s.write(f, 10*time.Second) != nil {
			if s.over() {
				return
			}
			select {
			case <-s.done:
				return
			case <-time.After(s.heartbeat):
			}
		}
	}
}

// pushKPIs sends every robot's custom KPIs each KPIEvery: the cloud's KPI socket reads them
// from there without a round trip.
func (s *session) pushKPIs() {
	tick := time.NewTicker(s.a.cfg.KPIEvery)
	defer tick.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-tick.C:
		}
		for _, r := range s.a.cfg.Core.HostedRobots() {
			if s.isRefused(r.Info().ID) {
				continue
			}
			ctx, cancel := context.WithTimeout(s.ctx, s.a.cfg.KPIEvery)
			kpis, err := r.KPIs(ctx)
			cancel()
			if err != nil {
				continue // an offline robot pushes nothing; the cloud's values age
			}
			f := &linkpb.Frame{Body: &linkpb.Frame_Kpis{Kpis: &linkpb.KPIValues{RobotId: r.Info().ID, Kpis: link.KPIsToWire(kpis)}}}
			if s.write(f, s.heartbeat) != nil {
				if s.over() {
					return
				}
				break // the next tick sends fresher values
			}
		}
	}
}

// pushResources sends each robot's resource list when it differs from the last one sent
// (and all of them at the start of a session, so that the cloud resumes uploads).
func (s *session) pushResources() {
	sent := map[string]string{}
	tick := time.NewTicker(s.a.cfg.ResourceScanEvery)
	defer tick.Stop()
	for {
		for _, r := range s.a.cfg.Core.HostedRobots() {
			if s.isRefused(r.Info().ID) {
				continue
			}
			ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
			list, err := r.Resources(ctx)
			cancel()
			if err != nil {
				continue
			}
			wire := link.ResourcesToWire(list)
			sig := resourcesSignature(list)
			id := r.Info().ID
			if sent[id] == sig {
				continue
			}
			if s.write(&linkpb.Frame{Body: &linkpb.Frame_Resources{Resources: &linkpb.ResourcesChanged{RobotId: id, Resources: wire}}}, 10*time.Second) != nil {
				if s.over() {
					return
				}
				continue // not sent: the next scan tries again
			}
			sent[id] = sig
		}
		select {
		case <-s.done:
			return
		case <-tick.C:
		}
	}
}

func resourcesSignature(list []fleetgate.Resource) string {
	var b strings.Builder
	for _, r := range list {
		fmt.Fprintf(&b, "%s/%d/%d;", r.ID, r.Size, r.CreatedAt.UnixNano())
	}
	return b.String()
}

// write sends one frame within timeout; the library serialises concurrent writers.
func (s *session) write(f *linkpb.Frame, timeout time.Duration) error {
	return link.WriteFrame(s.conn, f, timeout)
}
