package link

import (
	"context"
	"strings"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// Answer carries out a request that needs nothing but the robot it names: the agent answers
// the cloud's requests with it, and a cloud replica the requests other replicas forward to
// the robots it holds. Requests tied to a link (control, uploads) are the caller's. A message
// for an input stream goes through in, the replica's door, which hands it on to the robot's
// agent (nil: refused; the agent's end of the link hands it to its core's door instead).
func Answer(ctx context.Context, robot fleet.Robot, req *linkpb.Request, in *door.Door) (*linkpb.Response, error) {
	switch op := req.GetOp().(type) {
	case *linkpb.Request_Streams:
		streams, err := robot.Streams(ctx)
		if err != nil {
			return nil, err
		}
		return &linkpb.Response{Result: &linkpb.Response_Streams{Streams: StreamsToWire(streams)}}, nil
	case *linkpb.Request_Read:
		sample, err := fleet.ReadFirst(ctx, robot, KeyFromWire(op.Read))
		if err != nil {
			return nil, err
		}
		return &linkpb.Response{Result: &linkpb.Response_Sample{Sample: SampleToWire(sample)}}, nil
	case *linkpb.Request_Publish:
		if in == nil {
			return nil, fleetgate.Errorf(fleetgate.EUnavailable, "this side takes no commands")
		}
		p := op.Publish
		// The cloud authenticated its user; an older cloud names none, and its upload is then
		// nobody's lease.
		who := door.Who{User: p.GetUser(), Path: door.PathLink}
		if who.User == "" {
			who.User = "a cloud user"
		}
		if err := in.Send(ctx, robot, KeyFromWire(p.GetKey()), p.GetType(), p.GetPayload(), who); err != nil {
			return nil, err
		}
		return &linkpb.Response{Result: &linkpb.Response_Done{Done: &linkpb.Empty{}}}, nil
	case *linkpb.Request_MetricTypes:
		types, err := robot.Metrics(ctx)
		if err != nil {
			return nil, err
		}
		out := &linkpb.MetricTypes{Types: make([]int32, len(types))}
		for i, t := range types {
			out.Types[i] = int32(t)
		}
		return &linkpb.Response{Result: &linkpb.Response_MetricTypes{MetricTypes: out}}, nil
	case *linkpb.Request_Metric:
		m, err := robot.Metric(ctx, fleetgate.MetricType(op.Metric.GetType()), op.Metric.GetName())
		if err != nil {
			return nil, err
		}
		wire, err := MetricToWire(m)
		if err != nil {
			return nil, err
		}
		return &linkpb.Response{Result: &linkpb.Response_Metric{Metric: wire}}, nil
	case *linkpb.Request_Kpis:
		kpis, err := robot.KPIs(ctx)
		if err != nil {
			return nil, err
		}
		return &linkpb.Response{Result: &linkpb.Response_Kpis{Kpis: &linkpb.KPIList{Kpis: KPIsToWire(kpis)}}}, nil
	case *linkpb.Request_Resources:
		list, err := robot.Resources(ctx)
		if err != nil {
			return nil, err
		}
		return &linkpb.Response{Result: &linkpb.Response_Resources{Resources: &linkpb.ResourceList{Resources: ResourcesToWire(list)}}}, nil
	case *linkpb.Request_Recording:
		return recording(ctx, robot, op.Recording)
	case *linkpb.Request_Template:
		templates, ok := fleet.As[fleet.MessageTemplates](robot)
		if !ok {
			return nil, fleetgate.Errorf(fleetgate.ENotFound, "robot %s knows no message definitions", robot.Info().Name)
		}
		t, err := templates.MessageTemplate(ctx, op.Template)
		if err != nil {
			return nil, err
		}
		return &linkpb.Response{Result: &linkpb.Response_TemplateJson{TemplateJson: t}}, nil
	case *linkpb.Request_Definition:
		return definition(ctx, robot, op.Definition)
	case *linkpb.Request_TeleopSettings:
		return teleopSettings(ctx, robot, op.TeleopSettings)
	default:
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "request %T is not known here; "+unknownRequest, req.GetOp())
	}
}

// unknownRequest ends the words of a side that does not know a request or action (an older
// build): the asking side tells that from a request it got wrong.
const unknownRequest = "upgrade this side"

func isUnknownRequest(err error) bool {
	return fleetgate.Is(err, fleetgate.EInvalid) && strings.Contains(err.Error(), unknownRequest)
}

// definition serves a stream type's definition from the robot's source, when it gives them
// and the definition fits MaxDefinitionBytes.
func definition(ctx context.Context, robot fleet.Robot, key *linkpb.StreamKey) (*linkpb.Response, error) {
	defs, ok := fleet.As[fleet.MessageDefinitions](robot)
	if !ok {
		return nil, fleetgate.Errorf(fleetgate.ENotFound, "robot %s knows no message definitions", robot.Info().Name)
	}
	enc, text, err := defs.MessageDefinition(ctx, KeyFromWire(key))
	if err != nil {
		return nil, err
	}
	if len(text) > MaxDefinitionBytes {
		return nil, fleetgate.Errorf(fleetgate.ETooLarge, "the definition of %s is %d bytes; the link carries at most %d", key.GetName(), len(text), MaxDefinitionBytes)
	}
	return &linkpb.Response{Result: &linkpb.Response_Definition{Definition: &linkpb.MessageDefinition{Encoding: enc, Text: text}}}, nil
}

// recording serves the recorder's requests: start and stop answer with the one recording,
// list with all of the robot's.
func recording(ctx context.Context, robot fleet.Robot, op *linkpb.RecordingControl) (*linkpb.Response, error) {
	rc, ok := fleet.As[fleet.RecordingControl](robot)
	if !ok {
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "robot %s cannot record: its agent has no recorder", robot.Info().Name)
	}
	var list []fleetgate.Recording
	switch a := op.GetAction().(type) {
	case *linkpb.RecordingControl_Start:
		rec, err := rc.StartRecording(ctx, RecordingRequestFromWire(a.Start))
		if err != nil {
			return nil, err
		}
		list = []fleetgate.Recording{rec}
	case *linkpb.RecordingControl_Stop:
		rec, err := rc.StopRecording(ctx, a.Stop)
		if err != nil {
			return nil, err
		}
		list = []fleetgate.Recording{rec}
	case *linkpb.RecordingControl_List:
		recs, err := rc.Recordings(ctx)
		if err != nil {
			return nil, err
		}
		list = recs
	case *linkpb.RecordingControl_Trigger:
		fr, ok := fleet.As[fleet.FlightRecorder](robot)
		if !ok {
			return nil, fleetgate.Errorf(fleetgate.EUnavailable, "robot %s has no flight recorder", robot.Info().Name)
		}
		rec, err := fr.TriggerRecording(ctx, a.Trigger.GetTrigger(), a.Trigger.GetEventId())
		if err != nil {
			return nil, err
		}
		list = []fleetgate.Recording{rec}
	default:
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "recording action %T is not known here; "+unknownRequest, op.GetAction())
	}
	return &linkpb.Response{Result: &linkpb.Response_Recordings{Recordings: RecordingsToWire(list)}}, nil
}
