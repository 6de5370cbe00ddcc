package cluster

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

const (
	// defaultDeadline bounds a forwarded call whose caller set none, as the link does.
	defaultDeadline = 10 * time.Second
	// kpiFresh is how long announced KPI values answer KPIs: announcements come every
	// period, the agent pushes every second.
	kpiFresh = 5 * time.Second
	// streamsFresh is how long a stream list is reused (as cloud.RemoteRobot does).
	streamsFresh = 2 * time.Second
)

// Robot is a robot whose agent is linked to another replica: every call goes to that replica
// over NATS request/reply with the caller's deadline, and its live streams come through one
// relay per stream (live.go). It implements fleet.Robot.
type Robot struct {
	n       *Node
	replica string
	info    fleetgate.Info
	home    fleet.Home

	kpis    atomic.Pointer[timedKPIs]
	streams atomic.Pointer[timedStreams]

	mu       sync.Mutex
	topics   map[relayKey]*relay
	controls map[string]*forwardedControl // its operators' controls here, by id
	ended    bool
}

type timedKPIs struct {
	list []fleetgate.KPI
	at   time.Time
}

type timedStreams struct {
	list []fleetgate.Stream
	at   time.Time
}

var _ fleet.Robot = (*Robot)(nil)

func newRobot(n *Node, replica string, info fleetgate.Info, home fleet.Home) *Robot {
	return &Robot{n: n, replica: replica, info: info, home: home, topics: map[relayKey]*relay{}, controls: map[string]*forwardedControl{}}
}

func (r *Robot) Info() fleetgate.Info { return r.info }

// Replica is the replica that holds the robot's agent link.
func (r *Robot) Replica() string { return r.replica }

// AgentID is the agent hosting the robot.
func (r *Robot) AgentID() string { return r.home.AgentID }

func (r *Robot) setKPIs(list []fleetgate.KPI, at time.Time) {
	r.kpis.Store(&timedKPIs{list: list, at: at})
}

// gone ends the robot here: its replica stopped announcing it. Its live viewers end offline.
func (r *Robot) gone() {
	r.mu.Lock()
	r.ended = true
	topics, controls := r.topics, r.controls
	r.topics, r.controls = map[relayKey]*relay{}, map[string]*forwardedControl{}
	r.mu.Unlock()
	offline := fleetgate.Errorf(fleetgate.EOffline, "robot %q went offline", r.info.Name)
	for _, t := range topics {
		t.topic.Close(offline)
	}
	for _, c := range controls {
		r.n.ctl.forget(c.id)
		c.end(offline)
	}
}

// call forwards req to the holding replica and returns its answer.
func (r *Robot) call(ctx context.Context, req *linkpb.Request) (*linkpb.Response, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultDeadline)
		defer cancel()
		deadline, _ = ctx.Deadline()
	}
	req.RobotId = r.info.ID
	req.DeadlineMs = uint32(max(time.Until(deadline).Milliseconds(), 1))
	data, err := proto.Marshal(req)
	if err != nil {
		return nil, err
	}
	msg, err := r.n.request(ctx, requestSubject(r.replica), data, "robot "+quote(r.info.Name))
	if err != nil {
		return nil, err
	}
	resp := &linkpb.Response{}
	if err := proto.Unmarshal(msg.Data, resp); err != nil {
		return nil, unavailable("robot %q: replica %s answered with something that does not decode", r.info.Name, r.replica)
	}
	if resp.GetError() != nil {
		return nil, link.ErrorFromWire(resp.GetError())
	}
	return resp, nil
}

func quote(s string) string { return `"` + s + `"` }

// client makes the robot's requests through the holding replica.
func (r *Robot) client() link.Client {
	return link.Client{Peer: "replica " + r.replica, Do: r.call}
}

// Streams asks the holder, reusing an answer younger than streamsFresh. The list is shared.
func (r *Robot) Streams(ctx context.Context) ([]fleetgate.Stream, error) {
	if c := r.streams.Load(); c != nil && r.n.now().Sub(c.at) < streamsFresh {
		return c.list, nil
	}
	list, err := r.client().Streams(ctx)
	if err != nil {
		return nil, err
	}
	r.streams.Store(&timedStreams{list: list, at: r.n.now()})
	return list, nil
}

func (r *Robot) Read(ctx context.Context, key fleetgate.StreamKey) (fleetgate.Sample, error) {
	return r.client().Read(ctx, key)
}

// Send hands an upload to the replica that holds the robot's agent link, which hands it to the
// agent, whose door checks it (fleet.RemoteDriven).
func (r *Robot) Send(ctx context.Context, key fleetgate.StreamKey, typ string, payload []byte, user string) error {
	return r.client().Send(ctx, key, typ, payload, user)
}

func (r *Robot) Metrics(ctx context.Context) ([]fleetgate.MetricType, error) {
	return r.client().Metrics(ctx)
}

func (r *Robot) Metric(ctx context.Context, typ fleetgate.MetricType, name string) (fleetgate.Metric, error) {
	return r.client().Metric(ctx, typ, name)
}

// KPIs answers from the values announced within kpiFresh, else asks the holder.
func (r *Robot) KPIs(ctx context.Context) ([]fleetgate.KPI, error) {
	if k := r.kpis.Load(); k != nil && r.n.now().Sub(k.at) < kpiFresh {
		return k.list, nil
	}
	return r.client().KPIs(ctx)
}

// Resources lists the archived copies, as the holder does (from the shared store).
func (r *Robot) Resources(ctx context.Context) ([]fleetgate.Resource, error) {
	return r.client().Resources(ctx)
}

// OpenResource opens the copy in the archive every replica shares; a robot held elsewhere
// has no other.
func (r *Robot) OpenResource(ctx context.Context, id string) (fleet.ResourceFile, fleetgate.Resource, error) {
	list, err := r.Resources(ctx)
	if err != nil {
		return nil, fleetgate.Resource{}, err
	}
	for _, res := range list {
		if res.ID != id {
			continue
		}
		if r.n.cfg.Archive == nil {
			return nil, fleetgate.Resource{}, unavailable("resource %s of robot %q is kept by replica %s, and this cloud has no shared archive", id, r.info.Name, r.replica)
		}
		f, err := r.n.cfg.Archive.Open(id)
		if err != nil {
			return nil, fleetgate.Resource{}, fleetgate.Errorf(fleetgate.ENotFound, "the copy of resource %s is gone", id)
		}
		return f, res, nil
	}
	return nil, fleetgate.Resource{}, fleetgate.Errorf(fleetgate.ENotFound, "robot %q has no resource %s", r.info.Name, id)
}

var _ fleet.RecordingControl = (*Robot)(nil)

func (r *Robot) StartRecording(ctx context.Context, req fleetgate.RecordingRequest) (fleetgate.Recording, error) {
	return r.client().StartRecording(ctx, req)
}

func (r *Robot) StopRecording(ctx context.Context, id string) (fleetgate.Recording, error) {
	return r.client().StopRecording(ctx, id)
}

func (r *Robot) Recordings(ctx context.Context) ([]fleetgate.Recording, error) {
	return r.client().Recordings(ctx)
}

var _ fleet.FlightRecorder = (*Robot)(nil)

func (r *Robot) TriggerRecording(ctx context.Context, trigger, eventID string) (fleetgate.Recording, error) {
	return r.client().TriggerRecording(ctx, trigger, eventID)
}

var _ fleet.RemoteTeleopSettings = (*Robot)(nil)

// TeleopSettings asks the holding replica, which asks the robot's agent.
func (r *Robot) TeleopSettings(ctx context.Context, req fleet.TeleopSettingsRequest) (fleet.TeleopSettings, error) {
	return r.client().TeleopSettings(ctx, req)
}

var _ fleet.MessageTemplates = (*Robot)(nil)

// MessageTemplate asks the holding replica for the template of a type outside the catalog, when the
// robot lists it (the list is cached): robots that do not are not asked.
func (r *Robot) MessageTemplate(ctx context.Context, messageType string) ([]byte, error) {
	streams, err := r.Streams(ctx)
	if err != nil {
		return nil, err
	}
	if !link.ListsOutputType(streams, messageType) {
		return nil, fleetgate.Errorf(fleetgate.ENotFound, "robot %q has no output stream of type %s", r.info.Name, messageType)
	}
	return r.client().MessageTemplate(ctx, messageType)
}

var _ fleet.MessageDefinitions = (*Robot)(nil)

// MessageDefinition asks the holding replica for the definition of the type of output stream
// key (its agent's answer, which that replica caches): a stream the robot does not list as an
// output is not asked for. A replica older than the request refuses it (ENotImplemented).
func (r *Robot) MessageDefinition(ctx context.Context, key fleetgate.StreamKey) (string, string, error) {
	streams, err := r.Streams(ctx)
	if err != nil {
		return "", "", err
	}
	if !slices.ContainsFunc(streams, func(s fleetgate.Stream) bool { return s.Key() == key && s.Direction == fleetgate.Output }) {
		return "", "", fleetgate.Errorf(fleetgate.ENotFound, "robot %q has no output stream %s", r.info.Name, key.Name)
	}
	return r.client().MessageDefinition(ctx, key)
}
