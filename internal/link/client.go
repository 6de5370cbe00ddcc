package link

import (
	"context"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// Client makes the requests behind fleet.Robot's methods for a robot that lives elsewhere,
// over whatever carries a Request there and brings its Response back: the agent link
// (cloud.RemoteRobot) or a cloud replica's NATS request/reply (cluster.Robot). Answer is
// the other end.
type Client struct {
	// Do sends req and returns the answer, or the error it carried.
	Do func(ctx context.Context, req *linkpb.Request) (*linkpb.Response, error)
	// Peer names who answers, for the error of an answer of the wrong kind ("its agent").
	Peer string
}

// unexpected is an answer of the wrong kind: the peer is broken, the robot unavailable.
func (c Client) unexpected(resp *linkpb.Response) error {
	return fleetgate.Errorf(fleetgate.EUnavailable, "%s answered with %T", c.Peer, resp.GetResult())
}

func (c Client) Streams(ctx context.Context) ([]fleetgate.Stream, error) {
	resp, err := c.Do(ctx, &linkpb.Request{Op: &linkpb.Request_Streams{Streams: &linkpb.Empty{}}})
	if err != nil {
		return nil, err
	}
	if resp.GetStreams() == nil {
		return nil, c.unexpected(resp)
	}
	return StreamsFromWire(resp.GetStreams()), nil
}

func (c Client) Read(ctx context.Context, key fleetgate.StreamKey) (fleetgate.Sample, error) {
	resp, err := c.Do(ctx, &linkpb.Request{Op: &linkpb.Request_Read{Read: KeyToWire(key)}})
	if err != nil {
		return fleetgate.Sample{}, err
	}
	if resp.GetSample() == nil {
		return fleetgate.Sample{}, c.unexpected(resp)
	}
	return SampleFromWire(resp.GetSample()), nil
}

// Send hands one message for an input stream to the robot's host, whose door checks it
// (fleet.RemoteDriven.Send).
func (c Client) Send(ctx context.Context, key fleetgate.StreamKey, typ string, payload []byte, user string) error {
	resp, err := c.Do(ctx, &linkpb.Request{Op: &linkpb.Request_Publish{Publish: &linkpb.Publish{Key: KeyToWire(key), Type: typ, Payload: payload, User: user}}})
	if err != nil {
		return err
	}
	if resp.GetDone() == nil {
		return c.unexpected(resp)
	}
	return nil
}

func (c Client) Metrics(ctx context.Context) ([]fleetgate.MetricType, error) {
	resp, err := c.Do(ctx, &linkpb.Request{Op: &linkpb.Request_MetricTypes{MetricTypes: &linkpb.Empty{}}})
	if err != nil {
		return nil, err
	}
	if resp.GetMetricTypes() == nil {
		return nil, c.unexpected(resp)
	}
	types := resp.GetMetricTypes().GetTypes()
	out := make([]fleetgate.MetricType, len(types))
	for i, t := range types {
		out[i] = fleetgate.MetricType(t)
	}
	return out, nil
}

func (c Client) Metric(ctx context.Context, typ fleetgate.MetricType, name string) (fleetgate.Metric, error) {
	resp, err := c.Do(ctx, &linkpb.Request{Op: &linkpb.Request_Metric{Metric: &linkpb.MetricQuery{Type: int32(typ), Name: name}}})
	if err != nil {
		return fleetgate.Metric{}, err
	}
	if resp.GetMetric() == nil {
		return fleetgate.Metric{}, c.unexpected(resp)
	}
	return MetricFromWire(resp.GetMetric()), nil
}

func (c Client) KPIs(ctx context.Context) ([]fleetgate.KPI, error) {
	resp, err := c.Do(ctx, &linkpb.Request{Op: &linkpb.Request_Kpis{Kpis: &linkpb.Empty{}}})
	if err != nil {
		return nil, err
	}
	if resp.GetKpis() == nil {
		return nil, c.unexpected(resp)
	}
	return KPIsFromWire(resp.GetKpis().GetKpis()), nil
}

func (c Client) Resources(ctx context.Context) ([]fleetgate.Resource, error) {
	resp, err := c.Do(ctx, &linkpb.Request{Op: &linkpb.Request_Resources{Resources: &linkpb.Empty{}}})
	if err != nil {
		return nil, err
	}
	if resp.GetResources() == nil {
		return nil, c.unexpected(resp)
	}
	return ResourcesFromWire(resp.GetResources().GetResources()), nil
}

// recording asks the robot's recorder; want is how many recordings the answer must hold
// (-1: any).
func (c Client) recording(ctx context.Context, op *linkpb.RecordingControl, want int) ([]fleetgate.Recording, error) {
	resp, err := c.Do(ctx, &linkpb.Request{Op: &linkpb.Request_Recording{Recording: op}})
	if err != nil {
		return nil, err
	}
	if resp.GetRecordings() == nil || want >= 0 && len(resp.GetRecordings().GetRecordings()) != want {
		return nil, c.unexpected(resp)
	}
	return RecordingsFromWire(resp.GetRecordings()), nil
}

func (c Client) StartRecording(ctx context.Context, req fleetgate.RecordingRequest) (fleetgate.Recording, error) {
	list, err := c.recording(ctx, &linkpb.RecordingControl{Action: &linkpb.RecordingControl_Start{Start: RecordingRequestToWire(req)}}, 1)
	if err != nil {
		return fleetgate.Recording{}, err
	}
	return list[0], nil
}

func (c Client) StopRecording(ctx context.Context, id string) (fleetgate.Recording, error) {
	list, err := c.recording(ctx, &linkpb.RecordingControl{Action: &linkpb.RecordingControl_Stop{Stop: id}}, 1)
	if err != nil {
		return fleetgate.Recording{}, err
	}
	return list[0], nil
}

// TriggerRecording asks the robot's flight recorder for a recording (fleet.FlightRecorder).
func (c Client) TriggerRecording(ctx context.Context, trigger, eventID string) (fleetgate.Recording, error) {
	op := &linkpb.RecordingControl{Action: &linkpb.RecordingControl_Trigger{Trigger: &linkpb.FlightTrigger{Trigger: trigger, EventId: eventID}}}
	list, err := c.recording(ctx, op, 1)
	if isUnknownRequest(err) {
		return fleetgate.Recording{}, fleetgate.Errorf(fleetgate.EUnavailable, "%s has no flight recorder (an older build)", c.Peer)
	}
	if err != nil {
		return fleetgate.Recording{}, err
	}
	return list[0], nil
}

func (c Client) Recordings(ctx context.Context) ([]fleetgate.Recording, error) {
	return c.recording(ctx, &linkpb.RecordingControl{Action: &linkpb.RecordingControl_List{List: &linkpb.Empty{}}}, -1)
}

// MessageTemplate asks the robot's host for the template of a type outside the catalog
// (fleet.MessageTemplates). A host too old to know the request has none to give.
func (c Client) MessageTemplate(ctx context.Context, messageType string) ([]byte, error) {
	resp, err := c.Do(ctx, &linkpb.Request{Op: &linkpb.Request_Template{Template: messageType}})
	if fleetgate.Is(err, fleetgate.EInvalid) {
		return nil, fleetgate.Errorf(fleetgate.ENotFound, "%s does not give message templates (an older build)", c.Peer)
	}
	if err != nil {
		return nil, err
	}
	if resp.GetTemplateJson() == nil {
		return nil, c.unexpected(resp)
	}
	return resp.GetTemplateJson(), nil
}

// MaxDefinitionBytes bounds a type's definition on the link, both ways: a ROS 1 definition
// with every type it embeds is a few KiB (sensor_msgs/PointCloud2: 2), so a bigger one is a
// fault, and a definition is cached for the link's session.
const MaxDefinitionBytes = 256 << 10

// MessageDefinition asks the robot's host for the definition of the type of output stream key
// (fleet.MessageDefinitions). A host too old to know the request refuses it: ENotImplemented,
// which tells it from a definition not known yet (ENotFound), worth asking for again.
func (c Client) MessageDefinition(ctx context.Context, key fleetgate.StreamKey) (string, string, error) {
	resp, err := c.Do(ctx, &linkpb.Request{Op: &linkpb.Request_Definition{Definition: KeyToWire(key)}})
	if fleetgate.Is(err, fleetgate.EInvalid) {
		return "", "", fleetgate.Errorf(fleetgate.ENotImplemented, "%s does not give message definitions (an older build)", c.Peer)
	}
	if err != nil {
		return "", "", err
	}
	d := resp.GetDefinition()
	if d == nil {
		return "", "", c.unexpected(resp)
	}
	if len(d.Text) > MaxDefinitionBytes {
		return "", "", fleetgate.Errorf(fleetgate.ETooLarge, "%s sent a definition of %d bytes; at most %d are taken", c.Peer, len(d.Text), MaxDefinitionBytes)
	}
	return d.Encoding, d.Text, nil
}

// ListsOutputType reports whether streams has an output stream of messageType: a robot
// elsewhere is asked for a template only when it lists the type.
func ListsOutputType(streams []fleetgate.Stream, messageType string) bool {
	for _, s := range streams {
		if s.Direction == fleetgate.Output && s.Type == messageType {
			return true
		}
	}
	return false
}
