package rosgraph

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/msgs"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// The ROS types metrics are read from, as the message codecs name them (msgType).
const (
	typeBattery     = "sensor_msgs/BatteryState"
	typeOdometry    = "nav_msgs/Odometry"
	typePoseStamped = "geometry_msgs/PoseStamped"
	// agentStatusRunning is the AgentOperationalState status of an agent that runs normally.
	agentStatusRunning = 10
)

// hostMetrics are the metrics of the machine the agent runs on, reported where they can be
// read.
var hostMetrics = []fleetgate.MetricType{fleetgate.MetricCpu, fleetgate.MetricRam, fleetgate.MetricDisk, fleetgate.MetricNetwork, fleetgate.MetricGpu}

// batteryTopic is the robot's first BatteryState output, by name.
func batteryTopic(g map[string]Topic) (Topic, bool) {
	var names []string
	for name, t := range g {
		if msgType(t.Type) == typeBattery && t.Direction == fleetgate.Output {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return Topic{}, false
	}
	slices.Sort(names)
	return g[names[0]], true
}

// poseTopic is the configured pose topic when it is there with a type that has a pose.
func (r *Robot) poseTopic(g map[string]Topic) (Topic, bool) {
	t, ok := g[r.cfg.PoseTopic]
	typ := msgType(t.Type)
	return t, ok && t.Direction == fleetgate.Output && (typ == typeOdometry || typ == typePoseStamped)
}

// Metrics are the host's metrics and the agent's state, the graph's nodes when the transport
// knows them, plus Battery and Position when the robot has topics for them.
func (r *Robot) Metrics(ctx context.Context) ([]fleetgate.MetricType, error) {
	g, err := r.topics(ctx)
	if err != nil {
		return nil, err
	}
	types := []fleetgate.MetricType{fleetgate.MetricAgentSw, fleetgate.MetricConfiguration, fleetgate.MetricAgentOperationalState, fleetgate.MetricCustom}
	if _, ok := r.transport.(NodeLister); ok {
		types = append(types, fleetgate.MetricComponents)
	}
	if _, ok := batteryTopic(g); ok {
		types = append(types, fleetgate.MetricBattery)
	}
	if _, ok := r.poseTopic(g); ok {
		types = append(types, fleetgate.MetricPosition)
	}
	for _, t := range hostMetrics {
		if _, ok := r.cfg.HostStats.Metric(t); ok {
			types = append(types, t)
		}
	}
	slices.Sort(types)
	return types, nil
}

func (r *Robot) Metric(ctx context.Context, typ fleetgate.MetricType, name string) (fleetgate.Metric, error) {
	g, err := r.topics(ctx)
	if err != nil {
		return fleetgate.Metric{}, err
	}
	m := fleetgate.Metric{Type: typ}
	switch typ {
	case fleetgate.MetricCpu, fleetgate.MetricRam, fleetgate.MetricDisk, fleetgate.MetricNetwork, fleetgate.MetricGpu:
		v, ok := r.cfg.HostStats.Metric(typ)
		if !ok {
			return fleetgate.Metric{}, fleetgate.Errorf(fleetgate.ENotFound, "metric %s cannot be read on this host", typ.Name())
		}
		m.Value = v
	case fleetgate.MetricBattery:
		t, ok := batteryTopic(g)
		if !ok {
			return fleetgate.Metric{}, fleetgate.Errorf(fleetgate.ENotFound, "robot %s has no %s topic", r.cfg.Info.Name, typeBattery)
		}
		s, err := r.readTopic(ctx, t)
		if err != nil {
			return fleetgate.Metric{}, err
		}
		v, ok := msgs.BatteryPercent(s.Payload)
		if !ok {
			return fleetgate.Metric{}, fleetgate.Errorf(fleetgate.EUnavailable, "%s reports no charge", t.Name)
		}
		m.Value = v
	case fleetgate.MetricPosition:
		t, ok := r.poseTopic(g)
		if !ok {
			return fleetgate.Metric{}, fleetgate.Errorf(fleetgate.ENotFound, "robot %s has no pose topic %s (Odometry or PoseStamped)", r.cfg.Info.Name, r.cfg.PoseTopic)
		}
		s, err := r.readTopic(ctx, t)
		if err != nil {
			return fleetgate.Metric{}, err
		}
		p, frame, ok := msgs.PoseOf(s.Type, s.Payload)
		if !ok {
			return fleetgate.Metric{}, fleetgate.Errorf(fleetgate.EUnavailable, "%s has no pose", t.Name)
		}
		doc, err := msgs.PositionJSON(p, frame)
		if err != nil {
			return fleetgate.Metric{}, fleetgate.Errorf(fleetgate.EUnavailable, "%s: %v", t.Name, err)
		}
		m.Value = string(doc)
	case fleetgate.MetricAgentSw:
		m.Value = fleetgate.AgentSw{UpdateAvailable: false}
	case fleetgate.MetricAgentOperationalState:
		m.Value = fleetgate.AgentOperationalState{AgentStatus: agentStatusRunning, Version: r.cfg.Info.AgentVersion}
	case fleetgate.MetricConfiguration:
		m.Value = fleetgate.ConfigInfo{Name: r.cfg.Info.ConfigName, Version: r.cfg.Info.ConfigVersion, State: "Ready"}
	case fleetgate.MetricComponents:
		nl, ok := r.transport.(NodeLister)
		if !ok {
			return fleetgate.Metric{}, fleetgate.Errorf(fleetgate.ENotFound, "robot %s does not report metric type %d", r.cfg.Info.Name, typ)
		}
		nodes := nl.Nodes()
		comps := make([]fleetgate.ComponentInfo, 0, len(nodes))
		for _, n := range nodes {
			comps = append(comps, fleetgate.ComponentInfo{ID: n, UUID: uuid.NewSHA1(r.uuid, []byte("node"+n)).String(), Name: n, State: "Active"})
		}
		m.Value = comps
	case fleetgate.MetricCustom:
		kpis, err := r.KPIs(ctx)
		if err != nil {
			return fleetgate.Metric{}, err
		}
		return fleet.CustomMetric(kpis, name, r.cfg.Info.Name)
	default:
		return fleetgate.Metric{}, fleetgate.Errorf(fleetgate.ENotFound, "robot %s does not report metric type %d", r.cfg.Info.Name, typ)
	}
	return m, nil
}

// readTopic waits for a value of an output topic (Read's path).
func (r *Robot) readTopic(ctx context.Context, t Topic) (fleetgate.Sample, error) {
	in, err := r.inboundFor(t)
	if err != nil {
		return fleetgate.Sample{}, err
	}
	return in.read(ctx)
}

// KPIs are pose (geometry_msgs Pose, from the pose topic) and battery (percent, from the
// BatteryState topic), when those topics have a value. They never wait for one: the first
// call starts the reader, and the hub's next tick finds the value.
func (r *Robot) KPIs(ctx context.Context) ([]fleetgate.KPI, error) {
	g, err := r.topics(ctx)
	if err != nil {
		return nil, err
	}
	var out []fleetgate.KPI
	if t, ok := r.poseTopic(g); ok {
		if s, ok := r.latestOrKick(ctx, t); ok {
			if p, _, ok := msgs.PoseOf(s.Type, s.Payload); ok {
				b, _ := proto.Marshal(p)
				out = append(out, fleetgate.KPI{Name: "pose", DataType: "Platform.Messages.geometry_msgs.Pose", Payload: b, Time: s.Time})
			}
		}
	}
	if t, ok := batteryTopic(g); ok {
		if s, ok := r.latestOrKick(ctx, t); ok {
			if v, ok := msgs.BatteryPercent(s.Payload); ok {
				b, _ := proto.Marshal(&catalogpb.Float64{Data: v})
				out = append(out, fleetgate.KPI{Name: "battery", DataType: "Platform.Messages.std_msgs.Float64", Payload: b, Time: s.Time})
			}
		}
	}
	return out, nil
}

func (r *Robot) latestOrKick(ctx context.Context, t Topic) (fleetgate.Sample, bool) {
	in, err := r.inboundFor(t)
	if err != nil {
		return fleetgate.Sample{}, false
	}
	if s, ok := in.latest(); ok {
		return s, true
	}
	in.kick(ctx)
	return fleetgate.Sample{}, false
}

// Resources offer the agent's log file (to organization admins only).
func (r *Robot) Resources(ctx context.Context) ([]fleetgate.Resource, error) {
	if err := r.offline(); err != nil {
		return nil, err
	}
	if r.cfg.LogFile == "" {
		return []fleetgate.Resource{}, nil
	}
	st, err := os.Stat(r.cfg.LogFile)
	if err != nil || !st.Mode().IsRegular() {
		return []fleetgate.Resource{}, nil
	}
	return []fleetgate.Resource{r.logResource(st)}, nil
}

func (r *Robot) logResource(st os.FileInfo) fleetgate.Resource {
	return fleetgate.Resource{
		ID:        uuid.NewSHA1(r.uuid, []byte(filepath.Base(r.cfg.LogFile))).String(),
		Name:      filepath.Base(r.cfg.LogFile),
		MIMEType:  "text/plain",
		FileType:  "log",
		Size:      st.Size(),
		CreatedAt: st.ModTime(),
		AdminOnly: true, // the agent's log: every user and robot of the agent is in it
	}
}

func (r *Robot) OpenResource(ctx context.Context, id string) (fleet.ResourceFile, fleetgate.Resource, error) {
	if err := r.offline(); err != nil {
		return nil, fleetgate.Resource{}, err
	}
	if r.cfg.LogFile != "" {
		if f, err := os.Open(r.cfg.LogFile); err == nil {
			st, err := f.Stat()
			if err == nil && st.Mode().IsRegular() && r.logResource(st).ID == id {
				return f, r.logResource(st), nil
			}
			f.Close()
		}
	}
	return nil, fleetgate.Resource{}, fleetgate.Errorf(fleetgate.ENotFound, "robot %s has no resource %s", r.cfg.Info.Name, id)
}
