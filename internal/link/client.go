package link

import (
	"context"

	"github.com/fleetgate/fleetgate/internal/fleet"
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
	return fleet.Errorf(fleet.ErrUnavailable, "%s answered with %T", c.Peer, resp.GetResult())
}

func (c Client) Streams(ctx context.Context) ([]fleet.Stream, error) {
	resp, err := c.Do(ctx, &linkpb.Request{Op: &linkpb.Request_Streams{Streams: &linkpb.Empty{}}})
	if err != nil {
		return nil, err
	}
	if resp.GetStreams() == nil {
		return nil, c.unexpected(resp)
	}
	return StreamsFromWire(resp.GetStreams()), nil
}

func (c Client) Read(ctx context.Context, key fleet.StreamKey) (fleet.Sample, error) {
	resp, err := c.Do(ctx, &linkpb.Request{Op: &linkpb.Request_Read{Read: KeyToWire(key)}})
	if err != nil {
		return fleet.Sample{}, err
	}
	if resp.GetSample() == nil {
		return fleet.Sample{}, c.unexpected(resp)
	}
	return SampleFromWire(resp.GetSample()), nil
}

func (c Client) Publish(ctx context.Context, key fleet.StreamKey, typ string, payload []byte) error {
	resp, err := c.Do(ctx, &linkpb.Request{Op: &linkpb.Request_Publish{Publish: &linkpb.Publish{Key: KeyToWire(key), Type: typ, Payload: payload}}})
	if err != nil {
		return err
	}
	if resp.GetDone() == nil {
		return c.unexpected(resp)
	}
	return nil
}

func (c Client) Metrics(ctx context.Context) ([]fleet.MetricType, error) {
	resp, err := c.Do(ctx, &linkpb.Request{Op: &linkpb.Request_MetricTypes{MetricTypes: &linkpb.Empty{}}})
	if err != nil {
		return nil, err
	}
	if resp.GetMetricTypes() == nil {
		return nil, c.unexpected(resp)
	}
	types := resp.GetMetricTypes().GetTypes()
	out := make([]fleet.MetricType, len(types))
	for i, t := range types {
		out[i] = fleet.MetricType(t)
	}
	return out, nil
}

func (c Client) Metric(ctx context.Context, typ fleet.MetricType, name string) (fleet.Metric, error) {
	resp, err := c.Do(ctx, &linkpb.Request{Op: &linkpb.Request_Metric{Metric: &linkpb.MetricQuery{Type: int32(typ), Name: name}}})
	if err != nil {
		return fleet.Metric{}, err
	}
	if resp.GetMetric() == nil {
		return fleet.Metric{}, c.unexpected(resp)
	}
	return MetricFromWire(resp.GetMetric()), nil
}

func (c Client) KPIs(ctx context.Context) ([]fleet.KPI, error) {
	resp, err := c.Do(ctx, &linkpb.Request{Op: &linkpb.Request_Kpis{Kpis: &linkpb.Empty{}}})
	if err != nil {
		return nil, err
	}
	if resp.GetKpis() == nil {
		return nil, c.unexpected(resp)
	}
	return KPIsFromWire(resp.GetKpis().GetKpis()), nil
}

func (c Client) Resources(ctx context.Context) ([]fleet.Resource, error) {
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
func (c Client) recording(ctx context.Context, op *linkpb.RecordingControl, want int) ([]fleet.Recording, error) {
	resp, err := c.Do(ctx, &linkpb.Request{Op: &linkpb.Request_Recording{Recording: op}})
	if err != nil {
		return nil, err
	}
	if resp.GetRecordings() == nil || want >= 0 && len(resp.GetRecordings().GetRecordings()) != want {
		return nil, c.unexpected(resp)
	}
	return RecordingsFromWire(resp.GetRecordings()), nil
}

func (c Client) StartRecording(ctx context.Context, req fleet.RecordingRequest) (fleet.Recording, error) {
	list, err := c.recording(ctx, &linkpb.RecordingControl{Action: &linkpb.RecordingControl_Start{Start: RecordingRequestToWire(req)}}, 1)
	if err != nil {
		return fleet.Recording{}, err
	}
	return list[0], nil
}

func (c Client) StopRecording(ctx context.Context, id string) (fleet.Recording, error) {
	list, err := c.recording(ctx, &linkpb.RecordingControl{Action: &linkpb.RecordingControl_Stop{Stop: id}}, 1)
	if err != nil {
		return fleet.Recording{}, err
	}
	return list[0], nil
}

func (c Client) Recordings(ctx context.Context) ([]fleet.Recording, error) {
	return c.recording(ctx, &linkpb.RecordingControl{Action: &linkpb.RecordingControl_List{List: &linkpb.Empty{}}}, -1)
}
