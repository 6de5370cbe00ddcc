package cluster

import (
	"context"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/proto/clusterpb"
)

// minAnnounceGap is the least time between two announcements made for changes.
const minAnnounceGap = 100 * time.Millisecond

// replicaView is what another replica announced last.
type replicaView struct {
	seq    uint64
	heard  time.Time
	period time.Duration
	robots map[string]*Robot
	agents map[string]*clusterpb.HeldAgent
}

// kpiPusher is a robot whose agent pushes its custom KPIs (cloud.RemoteRobot): the values
// travel in the announcement, so every replica builds its KPI frames without asking.
type kpiPusher interface {
	PushedKPIs() ([]fleetgate.KPI, time.Time)
}

// announceNow asks for an announcement before the next period.
func (n *Node) announceNow() {
	select {
	case n.kick <- struct{}{}:
	default:
	}
}

// announceLoop announces what this replica holds every period and at each change, and
// forgets the replicas gone silent, until ctx ends.
func (n *Node) announceLoop(ctx context.Context) {
	tick := time.NewTicker(n.cfg.Period)
	defer tick.Stop()
	for {
		changed := n.cfg.Local.Changed()
		n.announce()
		n.expire()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-changed:
			// Changes come in bursts (a replica restarting takes thousands of agents): one
			// announcement per minAnnounceGap carries them all, instead of one per robot,
			// each listing every robot.
			select {
			case <-ctx.Done():
				return
			case <-time.After(minAnnounceGap):
			}
		case <-n.kick:
		}
	}
}

// announce publishes this replica's robots and agent links.
func (n *Node) announce() {
	a := &clusterpb.Announcement{Replica: n.cfg.Replica, Seq: n.seq.Add(1), PeriodMs: uint32(n.cfg.Period.Milliseconds())}
	for _, r := range n.cfg.Local.Robots() {
		info := r.Info()
		home, _ := n.cfg.Local.Home(info.ID)
		held := &clusterpb.HeldRobot{Info: link.InfoToWire(info), FleetId: home.FleetID, AgentId: home.AgentID}
		if p, ok := fleet.As[kpiPusher](r); ok {
			if list, at := p.PushedKPIs(); !at.IsZero() {
				held.Kpis, held.KpisAtMs = link.KPIsToWire(list), at.UnixMilli()
			}
		}
		a.Robots = append(a.Robots, held)
	}
	if ap := n.agents.Load(); ap != nil {
		n.mu.Lock()
		for _, l := range (*ap).Linked() {
			c, ok := n.claims[l.ID]
			if !ok || c.link != l.Link {
				continue // not claimed (yet): not this replica's to announce
			}
			a.Agents = append(a.Agents, &clusterpb.HeldAgent{Id: l.ID, LastHeardMs: l.LastHeard.UnixMilli(), Epoch: c.revision})
		}
		n.mu.Unlock()
	}
	data, err := proto.Marshal(a)
	if err != nil {
		n.log.Error("encoding the announcement", "err", err)
		return
	}
	if err := n.nc.Publish(presenceSubject, data); err != nil && n.nc.IsConnected() {
		n.log.Warn("announcing", "err", err)
	}
}

// heard takes another replica's announcement.
func (n *Node) heard(m *nats.Msg) {
	a := &clusterpb.Announcement{}
	if err := proto.Unmarshal(m.Data, a); err != nil {
		n.log.Warn("an announcement that does not decode", "err", err)
		return
	}
	if a.GetReplica() == n.cfg.Replica {
		return
	}
	// Decoded before the lock: an announcement lists every robot of its replica (thousands),
	// and every request for a robot held elsewhere reads the index under that lock.
	type heldRobot struct {
		info   fleetgate.Info
		home   fleet.Home
		kpis   []fleetgate.KPI
		kpisAt time.Time
	}
	held := make([]heldRobot, 0, len(a.GetRobots()))
	for _, h := range a.GetRobots() {
		info := link.InfoFromWire(h.GetInfo())
		if info.ID == "" {
			continue
		}
		r := heldRobot{info: info, home: fleet.Home{FleetID: h.GetFleetId(), AgentID: h.GetAgentId()}}
		if h.GetKpisAtMs() != 0 {
			r.kpis, r.kpisAt = link.KPIsFromWire(h.GetKpis()), time.UnixMilli(h.GetKpisAtMs())
		}
		held = append(held, r)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	v := n.replicas[a.GetReplica()]
	if v != nil && a.GetSeq() <= v.seq && a.GetSeq() != 1 {
		return // an older one, overtaken (seq 1: the replica restarted)
	}
	if v == nil {
		v = &replicaView{robots: map[string]*Robot{}}
		n.replicas[a.GetReplica()] = v
		n.log.Info("replica joined", "other", a.GetReplica())
	}
	v.seq, v.heard = a.GetSeq(), n.now()
	v.period = max(time.Duration(a.GetPeriodMs())*time.Millisecond, 100*time.Millisecond)
	// The index is rebuilt only when what it depends on changed (robots come or go, an
	// agent's claim moves): most announcements only refresh the KPI values.
	dirty := len(a.GetAgents()) != len(v.agents)
	agents := make(map[string]*clusterpb.HeldAgent, len(a.GetAgents()))
	for _, ag := range a.GetAgents() {
		agents[ag.GetId()] = ag
		if old, ok := v.agents[ag.GetId()]; !ok || old.GetEpoch() != ag.GetEpoch() {
			dirty = true
		}
	}
	v.agents = agents
	seen := make(map[string]bool, len(held))
	for _, h := range held {
		seen[h.info.ID] = true
		r := v.robots[h.info.ID]
		if r == nil || r.info != h.info || r.home != h.home {
			if r != nil {
				r.gone()
			}
			r = newRobot(n, a.GetReplica(), h.info, h.home)
			v.robots[h.info.ID] = r
			dirty = true
		}
		if !h.kpisAt.IsZero() {
			r.setKPIs(h.kpis, h.kpisAt)
		}
	}
	for id, r := range v.robots {
		if !seen[id] {
			r.gone()
			delete(v.robots, id)
			dirty = true
		}
	}
	if dirty {
		n.reindexLocked()
	}
}

// expire forgets the replicas not heard from for MissedAnnouncements periods: a replica
// killed without a goodbye holds nothing after that.
func (n *Node) expire() {
	var dropped []string
	defer func() {
		for _, name := range dropped {
			n.releaseHeld(name) // its operators cannot let go any more
		}
	}()
	n.mu.Lock()
	defer n.mu.Unlock()
	now := n.now()
	for name, v := range n.replicas {
		if now.Sub(v.heard) <= MissedAnnouncements*v.period {
			continue
		}
		n.log.Warn("replica silent: its robots are offline here until their agents link again", "other", name, "silent_for", now.Sub(v.heard).Round(time.Millisecond))
		for _, r := range v.robots {
			r.gone()
		}
		delete(n.replicas, name)
		dropped = append(dropped, name)
	}
	if len(dropped) > 0 {
		n.reindexLocked()
	}
}

// reindexLocked rebuilds the robot index: of two replicas announcing one robot (an agent that
// just moved), the one whose claim of the robot's agent is newer holds it. n.mu is held.
func (n *Node) reindexLocked() {
	index := make(map[string]*Robot, len(n.index))
	epochs := make(map[string]uint64, len(n.index))
	for _, v := range n.replicas {
		for id, r := range v.robots {
			epoch := uint64(0)
			if ag, ok := v.agents[r.home.AgentID]; ok {
				epoch = ag.GetEpoch()
			}
			if old, ok := index[id]; !ok || epoch > epochs[id] || epoch == epochs[id] && r.replica > old.replica {
				index[id], epochs[id] = r, epoch
			}
		}
	}
	n.index = index
}
