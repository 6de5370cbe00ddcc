package cluster

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// maxDeadline caps the deadline a forwarded request may ask for, as the agent does.
const maxDeadline = 30 * time.Second

// handOn is a replica's door: a replica hosts no robot, so every message for an input stream
// it is asked to deliver goes on to the robot's agent (fleet.RemoteDriven), whose door checks
// it. It holds no lease and no state.
var handOn = door.New(door.Config{})

// maxConcurrent bounds the forwarded requests this replica serves at once; one over that is
// answered UNAVAILABLE at once rather than queued behind slow ones.
const maxConcurrent = 512

// answer serves a request another replica forwards to one of the robots held here, in its own
// goroutine.
func (n *Node) answer(m *nats.Msg) {
	req := &linkpb.Request{}
	if err := proto.Unmarshal(m.Data, req); err != nil {
		n.reply(m, nil, fleetgate.Errorf(fleetgate.EInvalid, "a forwarded request that does not decode: %v", err))
		return
	}
	select {
	case n.busy <- struct{}{}:
	default:
		n.reply(m, nil, unavailable("replica %s is busy", n.cfg.Replica))
		return
	}
	go func() {
		defer func() { <-n.busy }()
		deadline := time.Duration(req.GetDeadlineMs()) * time.Millisecond
		if deadline <= 0 || deadline > maxDeadline {
			deadline = maxDeadline
		}
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		robot, ok := n.cfg.Local.Robot(req.GetRobotId())
		if !ok {
			n.reply(m, nil, fleetgate.Errorf(fleetgate.EOffline, "robot %s is not held by replica %s (its agent moved, or went offline)", req.GetRobotId(), n.cfg.Replica))
			return
		}
		var resp *linkpb.Response
		var err error
		if _, ok := req.GetOp().(*linkpb.Request_Controls); ok {
			resp, err = heldControls(ctx, robot)
		} else {
			// The robot's agent is linked here: its door checks a message for an input
			// stream; this replica's only hands it on.
			resp, err = link.Answer(ctx, robot, req, handOn)
		}
		if errors.Is(err, context.DeadlineExceeded) {
			err = unavailable("robot %q did not answer within %s", robot.Info().Name, deadline)
		}
		n.reply(m, resp, err)
	}()
}

// reply answers m with resp, or with err.
func (n *Node) reply(m *nats.Msg, resp *linkpb.Response, err error) {
	if err != nil {
		resp = &linkpb.Response{Error: link.ErrorToWire(err)}
	}
	data, merr := proto.Marshal(resp)
	if merr == nil && int64(len(data)) > n.nc.MaxPayload() {
		data, merr = proto.Marshal(&linkpb.Response{Error: link.ErrorToWire(fleetgate.Errorf(fleetgate.EUnavailable,
			"the answer (%d bytes) is larger than the cluster's NATS max_payload (%d bytes): raise max_payload", len(data), n.nc.MaxPayload()))})
	}
	if merr != nil {
		n.log.Error("encoding an answer", "err", merr)
		return
	}
	if err := m.Respond(data); err != nil {
		n.log.Debug("answering a forwarded request", "err", err)
	}
}

// heldControls answers who drives the robot's input streams, as its agent says.
func heldControls(ctx context.Context, robot fleet.Robot) (*linkpb.Response, error) {
	rd, ok := fleet.As[fleet.RemoteDriven](robot)
	if !ok {
		return &linkpb.Response{Result: &linkpb.Response_Controls{Controls: &linkpb.ControlList{}}}, nil
	}
	list, err := rd.Controls(ctx)
	if err != nil {
		return nil, err
	}
	out := &linkpb.ControlList{}
	for _, h := range list {
		out.Controls = append(out.Controls, &linkpb.ControlHeld{Key: link.KeyToWire(h.Key), Owner: h.Owner, Since: link.Time(h.Since)})
	}
	return &linkpb.Response{Result: &linkpb.Response_Controls{Controls: out}}, nil
}
