// Package cloud is the cloud's end of the agent link: it accepts agents at link.Path,
// registers the robots they announce as RemoteRobots, forwards requests to them with
// deadlines, keeps the links alive with heartbeats, and copies the agents' resource files
// into the cloud's archive.
package cloud

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/blob"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// Agent is an authenticated agent: who holds a link, and the fleet its robots join.
type Agent struct {
	ID, Name, FleetID string
	// Remote is the agent's address as the server tells it (the peer, or the client a
	// trusted proxy names); empty: the request's peer.
	Remote string
}

// Core is what the link needs from the gateway core (an adapter in server; the link knows
// nothing of the core's types).
type Core interface {
	// RevokedAgents returns those of agentIDs that may no longer stay connected (key revoked,
	// agent removed); an error when that could not be checked. One call covers every linked
	// agent of a round of checks.
	RevokedAgents(ctx context.Context, agentIDs []string) ([]string, error)
	// ArchivedResources lists the resources of robotID whose whole copy the archive holds.
	ArchivedResources(ctx context.Context, robotID string) ([]fleetgate.Resource, error)
	SaveArchivedResource(ctx context.Context, robotID string, res fleetgate.Resource, sha256hex string) error
	// MayArchive is nil unless resourceID is another robot's: checked before an upload,
	// which would replace the archived file of that id.
	MayArchive(ctx context.Context, robotID, resourceID string) error
	// AgentSeen records when an agent was last heard from, as its link ends (while it is
	// linked, LastHeard answers from memory: no write per heartbeat).
	AgentSeen(ctx context.Context, agentID string, at time.Time) error
	// SaveAgentEvents stores event-log entries posted on agent agentID's local gateway about
	// the robots it hosts or hosted, and returns the others, refused; when its error is nil
	// the stored ones are on disk (the agent then forgets them all).
	SaveAgentEvents(ctx context.Context, agentID string, events []fleetgate.Event) (refused []fleetgate.Event, err error)
}

// Robots is where the agents' robots are registered while their agent is linked: this
// process's fleet.Registry, or a registry shared by the cloud's replicas.
type Robots interface {
	// AddHostedWhile registers robot at home unless live() turns false first (its link
	// ended); it reports whether the robot was added.
	AddHostedWhile(ctx context.Context, robot fleet.Robot, home fleet.Home, live func() bool) (bool, error)
	Remove(robot fleet.Robot)
}

var _ Robots = (*fleet.Registry)(nil)

// Owners fences agent links across the cloud's replicas (cluster.Node): a link is served only
// once its replica's claim is recorded, and a newer claim elsewhere closes it (Fence).
type Owners interface {
	// Claim records that this replica holds link of agentID; an error refuses the link.
	Claim(ctx context.Context, agentID string, link uint64) error
	// Release drops the claim as the link ends, unless a newer one replaced it.
	Release(agentID string, link uint64)
}

// LinkedAgent is an agent linked to this process now.
type LinkedAgent struct {
	ID string
	// Link tells this link of the agent from its earlier and later ones.
	Link      uint64
	LastHeard time.Time
}

// Config wires an Acceptor.
type Config struct {
	Core     Core
	Registry Robots
	// Archive receives the agents' resource files; nil: resources are not copied.
	Archive *Archive
	Logger  *slog.Logger
	// Owners, when set, fences each link across the cloud's replicas.
	Owners Owners
	// Heartbeat is the heartbeat interval (default link.HeartbeatInterval); tests shorten it.
	Heartbeat time.Duration
	// RecheckEvery is how often each connected agent's key is checked for revocation
	// (default 1 s).
	RecheckEvery time.Duration
	// KeepPartial is how long an interrupted upload waits for its agent to resume it before
	// Run removes it (default 7 days: a robot network may be down over a long weekend).
	KeepPartial time.Duration
	// PruneEvery is how often Run looks for such uploads (default 1 h, and once at start).
	PruneEvery time.Duration
	// MaxRobots is how many robots one announcement of an agent may register (default
	// DefaultMaxRobots); the rest are refused. The core bounds the records an agent holds.
	MaxRobots int
	// ResyncEvery is the least time between two uploads of a resource the archive holds in
	// an earlier version (default DefaultResyncEvery): a log that grows with every request
	// is copied at most this often.
	ResyncEvery time.Duration
	Now         func() time.Time
}

// helloTimeout bounds the wait for an agent's first frame.
const helloTimeout = 10 * time.Second

// Acceptor serves agent links. The HTTP layer authenticates an agent's upgrade at link.Path
// and hands it to Serve; Run runs for the acceptor's lifetime.
type Acceptor struct {
	cfg       Config
	log       *slog.Logger
	now       func() time.Time
	heartbeat time.Duration
	maxRobots int

	links     atomic.Uint64 // numbers the links
	checkSoon chan struct{} // asks Run for a round of key checks now
	mu        sync.Mutex
	sessions  map[string]*session // by agent id: the newest link of each agent
	shutdown  bool
	wg        sync.WaitGroup
}

// New returns an Acceptor.
func New(cfg Config) *Acceptor {
	a := &Acceptor{cfg: cfg, log: cfg.Logger, now: cfg.Now, heartbeat: cfg.Heartbeat, sessions: map[string]*session{}, checkSoon: make(chan struct{}, 1)}
	if a.log == nil {
		a.log = slog.Default()
	}
	a.log = a.log.With("component", "agentlink")
	if a.now == nil {
		a.now = time.Now
	}
	if a.heartbeat <= 0 {
		a.heartbeat = link.HeartbeatInterval
	}
	if a.cfg.RecheckEvery <= 0 {
		a.cfg.RecheckEvery = time.Second
	}
	if a.cfg.KeepPartial <= 0 {
		a.cfg.KeepPartial = 7 * 24 * time.Hour
	}
	if a.cfg.PruneEvery <= 0 {
		a.cfg.PruneEvery = time.Hour
	}
	a.maxRobots = a.cfg.MaxRobots
	if a.maxRobots <= 0 {
		a.maxRobots = DefaultMaxRobots
	}
	return a
}

// Serve upgrades r, the request of an authenticated agent, to its link and serves it until
// it ends.
func (a *Acceptor) Serve(w http.ResponseWriter, r *http.Request, agent Agent) {
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		a.log.Warn("agent link upgrade failed", "agent", agent.Name, "err", err)
		return
	}
	conn.SetReadLimit(link.MaxFrame)
	hello, err := readHello(conn)
	if err != nil {
		a.log.Warn("agent link: no hello", "agent", agent.Name, "err", err)
		conn.Close(websocket.StatusProtocolError, "the first frame must be hello")
		return
	}
	s := newSession(a, agent, conn)
	if v := hello.GetProtocolVersion(); v != link.ProtocolVersion {
		s.refuse(link.CloseVersion, fmt.Sprintf("agent link protocol %d is not spoken here: the cloud speaks %d; upgrade the agent or the cloud", v, link.ProtocolVersion))
		<-s.done
		return
	}
	if !a.adopt(s) {
		s.refuse(websocket.StatusGoingAway, "the cloud is shutting down")
		return
	}
	defer a.wg.Done()
	defer a.forget(s)
	if a.cfg.Owners != nil {
		if err := a.cfg.Owners.Claim(r.Context(), agent.ID, s.link); err != nil {
			s.log.Warn("agent link refused: its ownership could not be recorded", "err", err)
			s.refuse(websocket.StatusTryAgainLater, "the cloud cannot take this link now; try again")
			<-s.done
			return
		}
		defer a.cfg.Owners.Release(agent.ID, s.link)
	}
	refused := s.setRobots(hello.GetRobots())
	err = s.write(r.Context(), &linkpb.Frame{Body: &linkpb.Frame_Welcome{Welcome: &linkpb.Welcome{
		ProtocolVersion:     link.ProtocolVersion,
		AgentId:             agent.ID,
		FleetId:             agent.FleetID,
		HeartbeatIntervalMs: uint32(a.heartbeat.Milliseconds()),
		Refused:             refused,
	}}}, 5*time.Second)
	if err != nil {
		s.log.Warn("agent link: sending the welcome failed", "err", err)
		s.close(websocket.StatusInternalError, "")
	} else {
		close(s.welcomed)
		s.log.Info("agent connected", "remote", agent.remote(r), "agent_version", hello.GetAgentVersion(), "robots", len(hello.GetRobots())-len(refused))
	}
	s.run() // also takes the robots registered before the welcome offline
	s.refusals.flush()
	s.log.Info("agent disconnected")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.cfg.Core.AgentSeen(ctx, agent.ID, time.Unix(0, s.lastHeard.Load())); err != nil {
		s.log.Warn("recording when the agent was last heard from", "err", err)
	}
}

// adopt makes s the agent's link, closing an older link of the same agent: the newer wins,
// since an agent that reconnects after a silent drop is the live one.
func (a *Acceptor) adopt(s *session) bool {
	a.mu.Lock()
	if a.shutdown {
		a.mu.Unlock()
		return false
	}
	old := a.sessions[s.agent.ID]
	a.sessions[s.agent.ID] = s
	a.wg.Add(1)
	a.mu.Unlock()
	if old != nil {
		old.refuse(link.CloseReplaced, "replaced by a newer connection of this agent")
	}
	return true
}

func (a *Acceptor) forget(s *session) {
	a.mu.Lock()
	if a.sessions[s.agent.ID] == s {
		delete(a.sessions, s.agent.ID)
	}
	a.mu.Unlock()
}

func (a *Acceptor) snapshot() []*session {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]*session, 0, len(a.sessions))
	for _, s := range a.sessions {
		out = append(out, s)
	}
	return out
}

// Connected reports whether agent agentID has a link now.
func (a *Acceptor) Connected(agentID string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.sessions[agentID]
	return ok
}

// LastHeard is when agent agentID's link last carried a frame (a heartbeat at least every
// heartbeat interval), and whether it has a link now.
func (a *Acceptor) LastHeard(agentID string) (time.Time, bool) {
	a.mu.Lock()
	s := a.sessions[agentID]
	a.mu.Unlock()
	if s == nil {
		return time.Time{}, false
	}
	return time.Unix(0, s.lastHeard.Load()), true
}

// Linked lists the agents linked now.
func (a *Acceptor) Linked() []LinkedAgent {
	list := a.snapshot()
	out := make([]LinkedAgent, len(list))
	for i, s := range list {
		out[i] = LinkedAgent{ID: s.agent.ID, Link: s.link, LastHeard: time.Unix(0, s.lastHeard.Load())}
	}
	return out
}

// Fence closes agent agentID's link if it is still link: a newer link of the agent is held by
// another replica. The agent is told it was replaced, as by a newer link here.
func (a *Acceptor) Fence(agentID string, linkID uint64, reason string) {
	a.mu.Lock()
	s := a.sessions[agentID]
	a.mu.Unlock()
	if s != nil && s.link == linkID {
		s.log.Info("agent link closing: held elsewhere now", "reason", reason)
		s.refuse(link.CloseReplaced, "replaced by a newer connection of this agent: "+reason)
	}
}

// Revoke closes agent agentID's link at once (its robots go offline). The caller revoked
// the key first, so the agent cannot come back.
func (a *Acceptor) Revoke(agentID string) {
	a.mu.Lock()
	s := a.sessions[agentID]
	a.mu.Unlock()
	if s != nil {
		s.refuse(link.CloseRevoked, "agent key revoked")
	}
}

// Run checks every RecheckEvery that each connected agent may stay (a key revoked by the
// CLI, from another process, closes its link within that period), and at once after
// CheckNow; every PruneEvery it removes the archive's abandoned uploads. When ctx ends it
// closes every link and waits for their sessions to end.
func (a *Acceptor) Run(ctx context.Context) {
	tick := time.NewTicker(a.cfg.RecheckEvery)
	defer tick.Stop()
	prune := time.NewTicker(a.cfg.PruneEvery)
	defer prune.Stop()
	a.pruneArchive()
	for {
		select {
		case <-ctx.Done():
			a.Shutdown()
			return
		case <-prune.C:
			a.pruneArchive()
			continue
		case <-tick.C:
		case <-a.checkSoon:
		}
		a.checkKeys(ctx)
	}
}

// CheckNow has Run re-check every linked agent's key now: a key was just revoked (here or on
// another replica).
func (a *Acceptor) CheckNow() {
	select {
	case a.checkSoon <- struct{}{}:
	default:
	}
}

// checkKeys closes the links of the agents whose keys were revoked, in one store call for
// them all: a replica with thousands of agents must not make thousands of queries a second.
func (a *Acceptor) checkKeys(ctx context.Context) {
	byID := map[string]*session{}
	var ids []string
	for _, s := range a.snapshot() {
		select {
		case <-s.done:
			continue // closing already: refused once is enough
		default:
		}
		byID[s.agent.ID] = s
		ids = append(ids, s.agent.ID)
	}
	if len(ids) == 0 {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	revoked, err := a.cfg.Core.RevokedAgents(cctx, ids)
	cancel()
	if err != nil {
		if ctx.Err() == nil {
			a.log.Warn("checking agent keys", "agents", len(ids), "err", err) // keep the links: the store hiccuped
		}
		return
	}
	for _, id := range revoked {
		if s := byID[id]; s != nil {
			s.log.Warn("agent key revoked: closing its link")
			s.refuse(link.CloseRevoked, "agent key revoked")
		}
	}
}

// pruneArchive removes the uploads no agent resumed within KeepPartial.
func (a *Acceptor) pruneArchive() {
	if a.cfg.Archive == nil {
		return
	}
	n, err := a.cfg.Archive.dir.PruneLeftovers(a.now().Add(-a.cfg.KeepPartial))
	if err != nil {
		a.log.Warn("removing abandoned uploads", "err", err)
	}
	if n > 0 {
		a.log.Info("removed abandoned uploads", "files", n, "untouched_for", a.cfg.KeepPartial)
	}
}

// Shutdown lets go of the cloud operators' controls at each agent (whose robots are zeroed
// before it answers the close), closes every link (1001) and waits for their sessions to end,
// so that their robots' last-seen times are recorded before the store closes.
func (a *Acceptor) Shutdown() {
	a.mu.Lock()
	a.shutdown = true
	a.mu.Unlock()
	sessions := a.snapshot()
	for _, s := range sessions {
		s.releaseAll()
		s.refuse(websocket.StatusGoingAway, "the cloud is shutting down")
	}
	// An agent answers the close after the frames before it, the releases: its robots are
	// zeroed once it has (or after Close's 5 s, an agent that does not answer).
	for _, s := range sessions {
		<-s.closed
	}
	a.wg.Wait()
}

// LetGo closes every link not closing already (1001, going away: the agents link again,
// to another replica if they can) and returns how many; the acceptor goes on taking links.
func (a *Acceptor) LetGo(reason string) int {
	n := 0
	for _, s := range a.snapshot() {
		select {
		case <-s.done:
			continue
		default:
		}
		s.refuse(websocket.StatusGoingAway, reason)
		n++
	}
	return n
}

// readHello reads the agent's first frame within helloTimeout.
func readHello(conn *websocket.Conn) (*linkpb.Hello, error) {
	timer := time.AfterFunc(helloTimeout, func() { conn.CloseNow() })
	defer timer.Stop()
	f, err := link.ReadFrame(conn)
	if err != nil {
		return nil, err
	}
	h := f.GetHello()
	if h == nil {
		return nil, fmt.Errorf("first frame is %T", f.Body)
	}
	return h, nil
}

// remote is where the agent's link came from, for the log.
func (ag Agent) remote(r *http.Request) string {
	if ag.Remote != "" {
		return ag.Remote
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// Archive is the cloud's store of resource files (a blob.Dir) as the gateway core and the
// link use it. With several replicas (Share), each whole copy is also kept where every replica
// reads it, and the local directory caches what this replica served.
type Archive struct {
	dir    *blob.Dir
	shared SharedFiles
}

// SharedFiles keeps whole copies of resource files where every replica of the cloud reads
// them (the cluster's JetStream object store).
type SharedFiles interface {
	// Put stores the size bytes of r as resource id, checking them against sha256hex.
	Put(ctx context.Context, id string, r io.Reader, size int64, sha256hex string) error
	// Get opens resource id; an absent one is an os.ErrNotExist error. The reader fails at
	// its end if the bytes do not match what was put.
	Get(ctx context.Context, id string) (io.ReadCloser, error)
	// Delete removes resource id; an absent one is no error.
	Delete(ctx context.Context, id string) error
}

// NewArchive wraps dir.
func NewArchive(dir *blob.Dir) *Archive { return &Archive{dir: dir} }

// Share keeps every whole copy in shared too, and finds there what the directory lacks.
func (a *Archive) Share(shared SharedFiles) { a.shared = shared }

// Remove deletes the copy of resource id (retention): this replica's and the shared one.
// Another replica's fetched copy stays on its disk, never served again: the record says
// the resource is gone.
func (a *Archive) Remove(id string) error {
	if err := a.dir.Remove(id); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if a.shared == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return a.shared.Delete(ctx, id)
}

// fetchTimeout bounds the copy of a shared file into this replica's directory.
const fetchTimeout = 10 * time.Minute

// Open opens the whole copy of resource id. (It implements gateway.ResourceArchive.) A copy
// another replica received is fetched from the shared files first.
func (a *Archive) Open(id string) (fleet.ResourceFile, error) {
	f, err := a.dir.Open(id)
	if err == nil || a.shared == nil || !errors.Is(err, os.ErrNotExist) {
		if err != nil {
			return nil, err
		}
		return f, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
	defer cancel()
	r, err := a.shared.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if _, _, err := a.dir.Put(id, r); err != nil {
		return nil, fmt.Errorf("fetching resource %s from the replicas' shared files: %w", id, err)
	}
	return a.dir.Open(id)
}

// publish puts the whole copy of resource id in the shared files, if any, before the store
// lists it as archived: a replica killed after that loses nothing.
func (a *Archive) publish(ctx context.Context, id string, size int64, sha256hex string) error {
	if a.shared == nil {
		return nil
	}
	f, err := a.dir.Open(id)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := a.shared.Put(ctx, id, f, size, sha256hex); err != nil {
		return fmt.Errorf("sharing resource %s with the other replicas: %w", id, err)
	}
	return nil
}

// StartUpload begins or resumes receiving a version of resource id.
func (a *Archive) StartUpload(id, version string) (*blob.Upload, error) {
	return a.dir.StartUpload(id, version)
}

// StartGrowth begins receiving a version of resource id that grew from the one archived
// (blob.Dir.StartGrowth), fetched from the replicas' shared files first where this replica
// lacks it.
func (a *Archive) StartGrowth(id, version string) (*blob.Upload, error) {
	if a.shared != nil && !a.dir.Has(id) {
		if f, err := a.Open(id); err == nil {
			f.Close()
		}
	}
	return a.dir.StartGrowth(id, version)
}
