// Package link is the agent link: the WebSocket an agent (fleetgate agent --cloud) dials out
// to the cloud, over which the cloud reaches the robots the agent hosts. This package holds
// what both ends share: the protocol constants, frame I/O and the conversions between the
// robot contract (internal/fleet) and the wire (proto/linkpb). The cloud's end is link/cloud;
// the agent's end is an adapter over the agent's core, server/uplink.
package link

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/edge"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// ProtocolVersion is the version of the link protocol this build speaks. A peer of another
// version is refused with a clear reason (Refusal), never misread.
const ProtocolVersion = 2

// Path is where the cloud accepts agent links, outside the API prefix.
const Path = "/agentlink/v1/connect"

// KeyHeader carries the agent key on the upgrade request; never the query, which ends up in
// logs and proxies.
const KeyHeader = "X-Fleetgate-Agent-Key"

// HeartbeatInterval is how often each end sends a heartbeat; MissedHeartbeats missed ones
// end the link (so a silent drop is noticed within 15 s).
const (
	HeartbeatInterval = 5 * time.Second
	MissedHeartbeats  = 3
)

// MaxFrame bounds one link frame: resource chunks and the largest samples (point clouds,
// camera frames) fit with room to spare.
const MaxFrame = 32 << 20

// ChunkSize is the size of resource upload chunks: small enough that the heartbeats and
// answers waiting behind one get through within a second or two on a slow uplink.
const ChunkSize = 64 << 10

// Close codes of the link beyond the standard ones.
const (
	CloseReplaced = websocket.StatusCode(4001) // a newer link of the same agent took over
	CloseRevoked  = websocket.StatusCode(4003) // the agent key was revoked
	CloseVersion  = websocket.StatusCode(4004) // protocol versions differ
)

// ErrMalformed marks a frame that is not a link frame: text, undecodable or empty. The
// reader closes the link with StatusProtocolError.
var ErrMalformed = errors.New("link: malformed frame")

// ReadFrame reads one frame (see readMessage).
func ReadFrame(conn *websocket.Conn) (*linkpb.Frame, error) {
	var f linkpb.Frame
	if err := readMessage(conn, &f); err != nil {
		return nil, err
	}
	if f.Body == nil {
		return nil, fmt.Errorf("%w: empty", ErrMalformed)
	}
	return &f, nil
}

// WriteFrame writes one frame within timeout.
func WriteFrame(conn *websocket.Conn, f *linkpb.Frame, timeout time.Duration) error {
	return writeMessage(conn, f, timeout)
}

// Time converts a time for the wire; the zero time stays unset.
func Time(t time.Time) *catalogpb.Time {
	if t.IsZero() {
		return nil
	}
	t = t.Add(wireClockSkew)
	return &catalogpb.Time{Sec: int32(t.Unix()), Nanosec: uint32(t.Nanosecond())}
}

// wireClockSkew is added to every time this process puts on the link: zero, except in a
// binary built for the chaos tests (clockskew_chaoshooks.go), whose agent plays one whose
// clock is off. No flag or variable of a shipped build sets it.
var wireClockSkew time.Duration

// FromTime converts a wire time back; unset is the zero time.
func FromTime(t *catalogpb.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return time.Unix(int64(t.Sec), int64(t.Nanosec)).UTC()
}

// ErrorToWire turns an error into the wire's: its code as the kind (internal/edge: every
// code has one), its public message, never its text (an internal error says "internal error";
// the side that made it logs the rest), and the holder of a conflict. A deadline that ran out
// is the robot not answering in time.
func ErrorToWire(err error) *linkpb.Error {
	var ge *fleetgate.Error
	if !errors.As(err, &ge) && errors.Is(err, context.DeadlineExceeded) {
		err = &fleetgate.Error{Code: fleetgate.EUnavailable, Message: "the robot did not answer in time", Err: err}
	}
	e := &linkpb.Error{Kind: edge.Kind(err), Message: fleetgate.ErrorMessage(err)}
	if ge != nil && ge.Owner != "" {
		e.Owner, e.Since = ge.Owner, Time(ge.Since)
	}
	return e
}

// ErrorFromWire turns a wire error back into the domain error of its code. An internal error
// keeps its words out of the message all the same: an agent of an older version sent its
// error's whole text, which is for logs (the error's cause), not for the cloud's callers.
func ErrorFromWire(e *linkpb.Error) error {
	code := edge.CodeOfKind(e.GetKind())
	if code == fleetgate.EInternal {
		return fleetgate.Internal(fmt.Errorf("the peer's error: %s", e.GetMessage()))
	}
	return &fleetgate.Error{Code: code, Message: e.GetMessage(), Owner: e.GetOwner(), Since: FromTime(e.GetSince())}
}

func InfoToWire(i fleetgate.Info) *linkpb.RobotInfo {
	return &linkpb.RobotInfo{Id: i.ID, Name: i.Name, ConfigName: i.ConfigName, ConfigVersion: i.ConfigVersion, AgentVersion: i.AgentVersion}
}

func InfoFromWire(i *linkpb.RobotInfo) fleetgate.Info {
	return fleetgate.Info{ID: i.GetId(), Name: i.GetName(), ConfigName: i.GetConfigName(), ConfigVersion: i.GetConfigVersion(), AgentVersion: i.GetAgentVersion()}
}

func KeyToWire(k fleetgate.StreamKey) *linkpb.StreamKey {
	return &linkpb.StreamKey{Component: k.Component, Name: k.Name, Source: int32(k.Source)}
}

func KeyFromWire(k *linkpb.StreamKey) fleetgate.StreamKey {
	return fleetgate.StreamKey{Component: k.GetComponent(), Name: k.GetName(), Source: fleetgate.SourceType(k.GetSource())}
}

func StreamsToWire(streams []fleetgate.Stream) *linkpb.StreamList {
	out := &linkpb.StreamList{Streams: make([]*linkpb.Stream, len(streams))}
	for i, s := range streams {
		out.Streams[i] = &linkpb.Stream{Component: s.Component, Name: s.Name, Type: s.Type, Direction: s.Direction,
			Source: int32(s.Source), DisplayName: s.DisplayName, SourceUrl: s.SourceURL, SourceEndpoint: s.SourceEndpoint,
			MaxLinear: s.Limits.Linear, MaxAngular: s.Limits.Angular, Codecs: s.Codecs.Names()}
	}
	return out
}

func StreamsFromWire(l *linkpb.StreamList) []fleetgate.Stream {
	out := make([]fleetgate.Stream, len(l.GetStreams()))
	for i, s := range l.GetStreams() {
		out[i] = fleetgate.Stream{Component: s.GetComponent(), Name: s.GetName(), Type: s.GetType(), Direction: s.GetDirection(),
			Source: fleetgate.SourceType(s.GetSource()), DisplayName: s.GetDisplayName(), SourceURL: s.GetSourceUrl(), SourceEndpoint: s.GetSourceEndpoint(),
			Limits: fleetgate.SpeedLimits{Linear: s.GetMaxLinear(), Angular: s.GetMaxAngular()}, Codecs: fleetgate.CodecsNamed(s.GetCodecs())}
	}
	return out
}

func SampleToWire(s fleetgate.Sample) *linkpb.Sample {
	return &linkpb.Sample{Type: s.Type, Payload: s.Payload, Time: Time(s.Time), Seq: s.Seq, Latched: s.Latched}
}

func SampleFromWire(s *linkpb.Sample) fleetgate.Sample {
	return fleetgate.Sample{Type: s.GetType(), Payload: s.GetPayload(), Time: FromTime(s.GetTime()), Seq: s.GetSeq(), Latched: s.GetLatched()}
}

func KPIsToWire(kpis []fleetgate.KPI) []*linkpb.KPI {
	out := make([]*linkpb.KPI, len(kpis))
	for i, k := range kpis {
		out[i] = &linkpb.KPI{Name: k.Name, DataType: k.DataType, Payload: k.Payload, Time: Time(k.Time)}
	}
	return out
}

func KPIsFromWire(kpis []*linkpb.KPI) []fleetgate.KPI {
	out := make([]fleetgate.KPI, len(kpis))
	for i, k := range kpis {
		out[i] = fleetgate.KPI{Name: k.GetName(), DataType: k.GetDataType(), Payload: k.GetPayload(), Time: FromTime(k.GetTime())}
	}
	return out
}

func ResourcesToWire(list []fleetgate.Resource) []*linkpb.Resource {
	out := make([]*linkpb.Resource, len(list))
	for i, r := range list {
		out[i] = &linkpb.Resource{Id: r.ID, Name: r.Name, MimeType: r.MIMEType, FileType: r.FileType, Size: r.Size, CreatedAt: Time(r.CreatedAt), AdminOnly: r.AdminOnly}
	}
	return out
}

func ResourcesFromWire(list []*linkpb.Resource) []fleetgate.Resource {
	out := make([]fleetgate.Resource, len(list))
	for i, r := range list {
		out[i] = fleetgate.Resource{ID: r.GetId(), Name: r.GetName(), MIMEType: r.GetMimeType(), FileType: r.GetFileType(), Size: r.GetSize(), CreatedAt: FromTime(r.GetCreatedAt()), AdminOnly: r.GetAdminOnly()}
	}
	return out
}

// MetricToWire encodes a metric; its value's Go type becomes the oneof case.
func MetricToWire(m fleetgate.Metric) (*linkpb.Metric, error) {
	out := &linkpb.Metric{Type: int32(m.Type), Name: m.Name}
	switch v := m.Value.(type) {
	case nil:
		out.Value = &linkpb.Metric_None{None: &linkpb.Empty{}}
	case int:
		out.Value = &linkpb.Metric_IntValue{IntValue: int64(v)}
	case int64:
		out.Value = &linkpb.Metric_LongValue{LongValue: v}
	case float64:
		out.Value = &linkpb.Metric_DoubleValue{DoubleValue: v}
	case string:
		out.Value = &linkpb.Metric_StringValue{StringValue: v}
	case bool:
		out.Value = &linkpb.Metric_BoolValue{BoolValue: v}
	case fleetgate.Usage:
		out.Value = &linkpb.Metric_Usage{Usage: &linkpb.Usage{Used: v.Used, Limit: v.Limit}}
	case time.Time:
		out.Value = &linkpb.Metric_Expiry{Expiry: Time(v)}
	case fleetgate.AgentSw:
		out.Value = &linkpb.Metric_UpdateAvailable{UpdateAvailable: v.UpdateAvailable}
	case fleetgate.AgentOperationalState:
		out.Value = &linkpb.Metric_OperationalState{OperationalState: &linkpb.AgentOperationalState{AgentStatus: int32(v.AgentStatus), Version: v.Version}}
	case []fleetgate.Recorder:
		rs := &linkpb.Recorders{Recorders: make([]*linkpb.Recorder, len(v))}
		for i, r := range v {
			rs.Recorders[i] = &linkpb.Recorder{Id: r.ID, Type: r.Type, State: r.State, StartTime: Time(r.StartTime), EndTime: Time(r.EndTime), ErrorType: r.ErrorType, Dropped: r.Dropped}
		}
		out.Value = &linkpb.Metric_Recorders{Recorders: rs}
	case []fleetgate.ComponentInfo:
		cs := &linkpb.Components{Components: make([]*linkpb.ComponentInfo, len(v))}
		for i, c := range v {
			cs.Components[i] = &linkpb.ComponentInfo{Id: c.ID, Uuid: c.UUID, Name: c.Name, Version: c.Version, State: c.State}
		}
		out.Value = &linkpb.Metric_Components{Components: cs}
	case fleetgate.ConfigInfo:
		out.Value = &linkpb.Metric_Config{Config: &linkpb.ConfigInfo{Name: v.Name, Version: v.Version, State: v.State}}
	default:
		return nil, fmt.Errorf("link: metric %d has a value of type %T the link cannot carry", m.Type, m.Value)
	}
	return out, nil
}

// MetricFromWire decodes a metric to the Go types fleetgate.Metric documents.
func MetricFromWire(m *linkpb.Metric) fleetgate.Metric {
	out := fleetgate.Metric{Type: fleetgate.MetricType(m.GetType()), Name: m.GetName()}
	switch v := m.GetValue().(type) {
	case *linkpb.Metric_IntValue:
		out.Value = int(v.IntValue)
	case *linkpb.Metric_LongValue:
		out.Value = v.LongValue
	case *linkpb.Metric_DoubleValue:
		out.Value = v.DoubleValue
	case *linkpb.Metric_StringValue:
		out.Value = v.StringValue
	case *linkpb.Metric_BoolValue:
		out.Value = v.BoolValue
	case *linkpb.Metric_Usage:
		out.Value = fleetgate.Usage{Used: v.Usage.GetUsed(), Limit: v.Usage.GetLimit()}
	case *linkpb.Metric_Expiry:
		out.Value = FromTime(v.Expiry)
	case *linkpb.Metric_UpdateAvailable:
		out.Value = fleetgate.AgentSw{UpdateAvailable: v.UpdateAvailable}
	case *linkpb.Metric_OperationalState:
		out.Value = fleetgate.AgentOperationalState{AgentStatus: int(v.OperationalState.GetAgentStatus()), Version: v.OperationalState.GetVersion()}
	case *linkpb.Metric_Recorders:
		rs := make([]fleetgate.Recorder, len(v.Recorders.GetRecorders()))
		for i, r := range v.Recorders.GetRecorders() {
			rs[i] = fleetgate.Recorder{ID: r.GetId(), Type: r.GetType(), State: r.GetState(), StartTime: FromTime(r.GetStartTime()), EndTime: FromTime(r.GetEndTime()), ErrorType: r.GetErrorType(), Dropped: r.GetDropped()}
		}
		out.Value = rs
	case *linkpb.Metric_Components:
		cs := make([]fleetgate.ComponentInfo, len(v.Components.GetComponents()))
		for i, c := range v.Components.GetComponents() {
			cs[i] = fleetgate.ComponentInfo{ID: c.GetId(), UUID: c.GetUuid(), Name: c.GetName(), Version: c.GetVersion(), State: c.GetState()}
		}
		out.Value = cs
	case *linkpb.Metric_Config:
		out.Value = fleetgate.ConfigInfo{Name: v.Config.GetName(), Version: v.Config.GetVersion(), State: v.Config.GetState()}
	}
	return out
}
