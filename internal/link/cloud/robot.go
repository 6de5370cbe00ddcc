package cloud

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// kpiFresh is how long pushed KPI values answer KPIs without asking the agent: the agent
// pushes every second, so older values mean the pushes stopped.
const kpiFresh = 5 * time.Second

// RemoteRobot is a robot hosted by an agent, reached over its link: every call is a request
// with the caller's deadline, except custom KPIs, which the agent pushes, and resources,
// which the cloud serves from its own copies. It implements fleet.Robot.
type RemoteRobot struct {
	s       *session
	info    fleetgate.Info
	kpis    atomic.Pointer[pushedKPIs]
	streams atomic.Pointer[cachedStreams]
	defs    definitions
}

// streamsFresh is how long a robot's stream list is reused: every REST stream read resolves
// its stream against the list first, and asking the agent each time doubles the round trips.
const streamsFresh = 2 * time.Second

type cachedStreams struct {
	list []fleetgate.Stream
	at   time.Time
}

type pushedKPIs struct {
	list []fleetgate.KPI
	at   time.Time
}

var _ fleet.Robot = (*RemoteRobot)(nil)

func (r *RemoteRobot) Info() fleetgate.Info { return r.info }

// AgentID is the agent hosting the robot.
func (r *RemoteRobot) AgentID() string { return r.s.agent.ID }

func (r *RemoteRobot) call(ctx context.Context, req *linkpb.Request) (*linkpb.Response, error) {
	return r.s.request(ctx, r, req, nil)
}

// client makes the robot's requests over the agent link.
func (r *RemoteRobot) client() link.Client {
	return link.Client{Peer: "the agent", Do: r.call}
}

// Streams asks the agent, reusing an answer younger than streamsFresh. The list is shared:
// callers do not modify it.
func (r *RemoteRobot) Streams(ctx context.Context) ([]fleetgate.Stream, error) {
	if c := r.streams.Load(); c != nil && r.s.acc.now().Sub(c.at) < streamsFresh {
		return c.list, nil
	}
	list, err := r.client().Streams(ctx)
	if err != nil {
		return nil, err
	}
	r.streams.Store(&cachedStreams{list: list, at: r.s.acc.now()})
	return list, nil
}

func (r *RemoteRobot) Read(ctx context.Context, key fleetgate.StreamKey) (fleetgate.Sample, error) {
	return r.client().Read(ctx, key)
}

// Subscribe follows an output stream through the agent's live connection: one subscription at
// the agent per stream (and downsampling) however many cloud viewers watch it (see live.go).
func (r *RemoteRobot) Subscribe(ctx context.Context, key fleetgate.StreamKey, opts fleetgate.SubscribeOptions) (*fleet.Subscription, error) {
	streams, err := r.Streams(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range streams {
		if s.Key() == key {
			if s.Direction == fleetgate.Input {
				return nil, fleetgate.Errorf(fleetgate.ENotFound, "stream %s/%s is an input stream", key.Component, key.Name)
			}
			return r.s.subscribe(ctx, r, key, s.Type, opts)
		}
	}
	return nil, fleetgate.Errorf(fleetgate.ENotFound, "robot %q has no stream %s/%s", r.info.Name, key.Component, key.Name)
}

// Send hands an upload to the agent, whose door checks it (fleet.RemoteDriven).
func (r *RemoteRobot) Send(ctx context.Context, key fleetgate.StreamKey, typ string, payload []byte, user string) error {
	return r.client().Send(ctx, key, typ, payload, user)
}

func (r *RemoteRobot) Metrics(ctx context.Context) ([]fleetgate.MetricType, error) {
	return r.client().Metrics(ctx)
}

func (r *RemoteRobot) Metric(ctx context.Context, typ fleetgate.MetricType, name string) (fleetgate.Metric, error) {
	return r.client().Metric(ctx, typ, name)
}

// KPIs answers from the values the agent pushed within kpiFresh, else asks the agent.
func (r *RemoteRobot) KPIs(ctx context.Context) ([]fleetgate.KPI, error) {
	if p := r.kpis.Load(); p != nil && r.s.acc.now().Sub(p.at) < kpiFresh {
		return p.list, nil
	}
	list, err := r.client().KPIs(ctx)
	if err != nil {
		return nil, err
	}
	list = r.setKPIs(list, r.s.acc.now())
	return list, nil
}

// PushedKPIs is the custom KPI values the agent pushed last and when (zero: none yet).
func (r *RemoteRobot) PushedKPIs() ([]fleetgate.KPI, time.Time) {
	if p := r.kpis.Load(); p != nil {
		return p.list, p.at
	}
	return nil, time.Time{}
}

// setKPIs keeps the agent's values, their times on the cloud's clock (clock.go), and returns them.
func (r *RemoteRobot) setKPIs(list []fleetgate.KPI, at time.Time) []fleetgate.KPI {
	for i := range list {
		list[i].Time = r.s.clock.toCloud(list[i].Time)
	}
	r.kpis.Store(&pushedKPIs{list: list, at: at})
	return list
}

// Resources lists the files the cloud holds whole copies of: never one still uploading.
func (r *RemoteRobot) Resources(ctx context.Context) ([]fleetgate.Resource, error) {
	return r.s.acc.cfg.Core.ArchivedResources(ctx, r.info.ID)
}

func (r *RemoteRobot) OpenResource(ctx context.Context, id string) (fleet.ResourceFile, fleetgate.Resource, error) {
	list, err := r.Resources(ctx)
	if err != nil {
		return nil, fleetgate.Resource{}, err
	}
	for _, res := range list {
		if res.ID == id {
			f, err := r.s.acc.cfg.Archive.Open(id)
			if err != nil {
				return nil, fleetgate.Resource{}, fleetgate.Errorf(fleetgate.ENotFound, "the copy of resource %s is gone", id)
			}
			return f, res, nil
		}
	}
	return nil, fleetgate.Resource{}, fleetgate.Errorf(fleetgate.ENotFound, "robot %q has no resource %s", r.info.Name, id)
}

// unexpected is an answer of the wrong kind: the agent is broken, the robot unavailable.
func unexpected(resp *linkpb.Response) error {
	return fleetgate.Errorf(fleetgate.EUnavailable, "the agent answered with %T", resp.GetResult())
}

// isUUID reports whether s is a UUID in its canonical 36-character form.
func isUUID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil && len(s) == 36
}
