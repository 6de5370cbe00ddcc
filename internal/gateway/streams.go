package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
	"github.com/fleetgate/fleetgate/internal/msgs"
	"github.com/fleetgate/fleetgate/internal/video"
)

// StreamService is the core's streams and metrics: reads and uploads of robots' streams,
// live sockets (W3) and their control leases, cameras, recordings and the robots' status.
// It keeps nothing durable: robots and their roles come from the robot service.
type StreamService struct {
	robots     *RobotService
	presence   Presence
	now        func() time.Time
	log        *slog.Logger
	agentID    string
	cameras    Cameras
	door       *door.Door
	alertRules AlertRules
	statuses   statusCache
	video      *video.Encoders
}

var (
	actUpload = action{minRole: fleetgate.RoleDeveloper, acts: true, what: "upload to streams"}
)

// Streams lists the stream descriptors of a connected robot.
func (ss *StreamService) Streams(ctx context.Context, c *Caller, robotID string) ([]fleetgate.Stream, error) {
	r, live, err := ss.robots.liveRobot(ctx, c, robotID, actView)
	if err != nil {
		return nil, err
	}
	return robotCall(ctx, r, live.Streams)
}

// StreamSelector names a stream as endpoints 7 and 9 do. Source and Type are optional
// filters (Source 0: any); Component may be empty for ROS topics.
type StreamSelector struct {
	Component string
	Name      string
	Source    fleetgate.SourceType
	Type      string
}

func (s StreamSelector) String() string {
	b := strings.Builder{}
	if s.Component != "" {
		fmt.Fprintf(&b, "%s/", s.Component)
	}
	b.WriteString(s.Name)
	if s.Source != 0 {
		fmt.Fprintf(&b, " (source %d)", s.Source)
	}
	return b.String()
}

// resolveStream finds the one descriptor sel names among a robot's streams.
func (ss *StreamService) resolveStream(ctx context.Context, r fleetgate.Robot, live fleet.Robot, sel StreamSelector) (fleetgate.Stream, error) {
	if sel.Name == "" {
		return fleetgate.Stream{}, fleetgate.Errorf(fleetgate.EInvalid, "streamName is required")
	}
	if sel.Source != 0 && !sel.Source.Valid() {
		return fleetgate.Stream{}, fleetgate.Errorf(fleetgate.EInvalid, "source %d is not a stream source type (1 to 6)", sel.Source)
	}
	streams, err := robotCall(ctx, r, live.Streams)
	if err != nil {
		return fleetgate.Stream{}, err
	}
	var found []fleetgate.Stream
	for _, s := range streams {
		if s.Component == sel.Component && s.Name == sel.Name &&
			(sel.Source == 0 || s.Source == sel.Source) && (sel.Type == "" || s.Type == sel.Type) {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return fleetgate.Stream{}, fleetgate.Errorf(fleetgate.ENotFound, "robot %q has no stream %s", r.Name, sel)
	case 1:
		return found[0], nil
	default:
		return fleetgate.Stream{}, fleetgate.Errorf(fleetgate.EInvalid, "stream %s is ambiguous: give source and streamType", sel)
	}
}

// ReadStream is endpoint 7: the current value of an output stream as JSON.
func (ss *StreamService) ReadStream(ctx context.Context, c *Caller, robotID string, sel StreamSelector) ([]byte, error) {
	r, live, err := ss.robots.liveRobot(ctx, c, robotID, actView)
	if err != nil {
		return nil, err
	}
	s, err := ss.resolveStream(ctx, r, live, sel)
	if err != nil {
		return nil, err
	}
	if s.Direction == fleetgate.Input {
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "stream %s is an input stream; only output streams can be read", sel)
	}
	// A reachable robot's stream may have no sample yet (a camera starting, a quiet topic):
	// the read waits for one up to the request's deadline, StreamReadWait at most, and the
	// source answers a stream still quiet then ENoSample (504), never the 503 of a robot that
	// is not there.
	readCtx, cancel := context.WithTimeout(ctx, StreamReadWait)
	defer cancel()
	sample, err := fleet.ReadFirst(readCtx, live, s.Key())
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, &fleetgate.Error{Code: fleetgate.EUnavailable, Message: "robot " + quote(r.Name) + " did not answer within " + StreamReadWait.String(), Err: err}
	}
	if err != nil {
		return nil, robotError(r, err)
	}
	out, err := msgs.PayloadToJSON(sample.Type, sample.Payload)
	if err != nil {
		return nil, fleetgate.Internal(fmt.Errorf("robot %s stream %s: %w", r.ID, sel, err))
	}
	return out, nil
}

// Template is endpoint 8 (and S7): the JSON of an empty message of a catalog type, or of a
// type outside the catalog that a robot of the caller lists (rosgraph_msgs/Log on ROS 1),
// from that robot's own definition of it.
func (ss *StreamService) Template(ctx context.Context, c *Caller, messageType string) ([]byte, error) {
	// The contract allows ROS names too: geometry_msgs/msg/Twist and geometry_msgs/Twist are
	// Platform.Messages.geometry_msgs.Twist, and answer its template.
	if name, ok := msgs.CatalogName(messageType); ok {
		messageType = name
	}
	t, err := msgs.Template(messageType)
	if errors.Is(err, msgs.ErrUnknownType) {
		return ss.robotTemplate(ctx, c, messageType)
	}
	if err != nil {
		return nil, fleetgate.Internal(err)
	}
	return t, nil
}

// TemplateTimeout bounds the search for a template among the caller's robots: a source may
// have to connect to a quiet topic's publisher to learn its definition.
const TemplateTimeout = 3 * time.Second

// robotTemplate asks the caller's online robots whose sources know definitions for the
// template of a type outside the catalog; the first that carries the type answers.
func (ss *StreamService) robotTemplate(ctx context.Context, c *Caller, messageType string) ([]byte, error) {
	notFound := fleetgate.Errorf(fleetgate.ENotFound, "message type %q is not in the catalog, and no robot of yours online on this gateway lists it with its definition", messageType)
	robots, err := ss.robots.visibleRobots(ctx, c)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, TemplateTimeout)
	defer cancel()
	for _, r := range robots {
		live, ok := ss.presence.Robot(r.ID)
		if !ok {
			continue
		}
		templates, ok := fleet.As[fleet.MessageTemplates](live)
		if !ok {
			continue
		}
		t, err := templates.MessageTemplate(ctx, messageType)
		switch {
		case err == nil:
			return t, nil
		case ctx.Err() != nil:
			return nil, notFound
		case !fleetgate.Is(err, fleetgate.ENotFound):
			ss.log.Warn("a robot could not give the template of a type it lists", "robot", r.Name, "type", messageType, "err", err)
		}
	}
	return nil, notFound
}

// UploadInput is endpoint 9's body in domain terms.
type UploadInput struct {
	Stream   StreamSelector // Type unused: DataType names the payload
	DataType string
	JSON     []byte
}

// UploadStream is endpoint 9: validate a JSON message against its type and the stream, then
// hand it to the door, which publishes it on the gateway that hosts the robot. Nothing reaches
// the robot unless the whole message is valid; a movement command is held to the robot's
// speeds, paced and subject to the stream's lease there (409 while somebody else drives it).
func (ss *StreamService) UploadStream(ctx context.Context, c *Caller, robotID string, in UploadInput) error {
	if in.DataType == "" {
		return fleetgate.Errorf(fleetgate.EInvalid, "dataType is required")
	}
	if !msgs.Known(in.DataType) {
		return fleetgate.Errorf(fleetgate.EInvalid, "dataType %q is not in the message catalog", in.DataType)
	}
	r, robot, err := ss.robots.liveRobot(ctx, c, robotID, actUpload)
	if err != nil {
		return err
	}
	s, err := ss.resolveStream(ctx, r, robot, in.Stream)
	if err != nil {
		return err
	}
	if s.Direction == fleetgate.Output {
		return fleetgate.Errorf(fleetgate.EInvalid, "stream %s is an output stream; only input streams can be written", in.Stream)
	}
	if s.Type != in.DataType {
		return fleetgate.Errorf(fleetgate.EInvalid, "stream %s takes %s, not %s", in.Stream, s.Type, in.DataType)
	}
	m, err := msgs.ParseJSON(in.DataType, in.JSON)
	if err != nil {
		return fleetgate.Errorf(fleetgate.EInvalid, "streamJson: %v", err)
	}
	// Commands (Twist, Ackermann) are held to the robot's declared speeds here as on W3:
	// clamped, and refused beyond 10x. The door of the robot's host checks again.
	who := door.Who{User: c.User.Email, Path: door.PathUpload}
	if err := teleop.LimitCommand(m, s.Limits); err != nil {
		ss.door.Refused(robot, s.Key(), who, err)
		return &fleetgate.Error{Code: fleetgate.ErrorCode(err), Message: "streamJson: " + fleetgate.ErrorMessage(err), Err: err}
	}
	payload, err := proto.Marshal(m)
	if err != nil {
		return fleetgate.Internal(err)
	}
	// The door bounds each of its calls to the robot as robotCall does.
	if err := ss.door.Send(ctx, robot, s.Key(), in.DataType, payload, who); err != nil {
		return robotError(r, err)
	}
	return nil
}
