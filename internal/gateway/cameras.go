package gateway

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/live"
)

// CameraTarget is a camera a W3 query names by address (url for ONVIF and RTSP, endpoint
// for a device) with its credentials: an ad-hoc source the agent connects to for this one
// socket. The credentials are used for that connection only, never stored or logged.
type CameraTarget struct {
	Source             fleetgate.SourceType // SourceONVIF, SourceRTSP or SourceDevice
	URL                string
	Endpoint           string
	Username, Password string
}

// Cameras opens the ad-hoc cameras of W3 queries; the agent's camera source implements it
// (adapted by the server). A gateway without one (the cloud, or an agent without ffmpeg)
// answers 501 to such queries.
type Cameras interface {
	// Check refuses a target this gateway will not open, without any I/O: bad syntax
	// (EInvalid), a refused address such as loopback (EForbidden).
	Check(t CameraTarget) error
	// Open returns a live source whose one output stream is as: the camera, which starts
	// when subscribed and stops when its subscriber leaves.
	Open(t CameraTarget, as fleetgate.Stream) (fleet.Robot, error)
}

// cameraImageType is what every camera stream carries.
const cameraImageType = "Platform.Messages.sensor_msgs.CompressedImage"

// actAdhocCamera: an ad-hoc camera makes the agent open connections on its network, so it
// needs more than watching, and a read-only (kiosk) token may not.
var actAdhocCamera = action{minRole: fleetgate.RoleDeveloper, acts: true, what: "open a camera by its address (the agent connects to it)"}

// CheckCameraTarget is the check of a query's camera before authentication: its syntax
// (400). A nil target passes.
func (ss *StreamService) CheckCameraTarget(t *CameraTarget) error {
	if t == nil || ss.cameras == nil {
		return nil
	}
	if err := ss.cameras.Check(*t); fleetgate.ErrorCode(err) == fleetgate.EInvalid {
		return err
	}
	return nil
}

// OpenCameraStream is OpenLiveOutput for an output query that names a camera by address.
// A query that names a stream the robot lists, by its own sourceUrl or sourceEndpoint and
// without credentials, is that stream, watched as any other (Operator). Anything else is an
// ad-hoc camera: Developer or above with a token that may act, on a robot this gateway
// hosts, at an address the agent allows.
func (ss *StreamService) OpenCameraStream(ctx context.Context, c *Caller, robotID string, sel StreamSelector, t CameraTarget) (live.Output, error) {
	r, role, err := ss.robots.authorizeRobot(ctx, c, robotID, actWatch)
	if err != nil {
		return nil, err
	}
	if ss.hostedElsewhere(r) {
		return nil, fleetgate.Errorf(fleetgate.ENotImplemented, "robot %q is hosted by another agent of the local fleet; live stream tunnelling is not implemented", r.Name)
	}
	if t.Username == "" && t.Password == "" && ss.listsCamera(ctx, r, sel, t) {
		return ss.OpenLiveOutput(ctx, c, robotID, sel)
	}
	if role < actAdhocCamera.minRole {
		return nil, fleetgate.Errorf(fleetgate.EForbidden, "role %s may not %s (needs %s)", role, actAdhocCamera.what, actAdhocCamera.minRole)
	}
	if !c.CanAct() {
		return nil, fleetgate.Errorf(fleetgate.EForbidden, "a read-only token may not %s", actAdhocCamera.what)
	}
	if ss.cameras == nil {
		return nil, fleetgate.Errorf(fleetgate.ENotImplemented, "this gateway opens no cameras by address")
	}
	if sel.Type != "" && sel.Type != cameraImageType {
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "a camera gives %s, not %s", cameraImageType, sel.Type)
	}
	if err := ss.cameras.Check(t); err != nil {
		return nil, err
	}
	as := fleetgate.Stream{Component: sel.Component, Name: sel.Name, Type: cameraImageType, Direction: fleetgate.Output, Source: t.Source,
		SourceURL: t.URL, SourceEndpoint: t.Endpoint}
	src, err := ss.cameras.Open(t, as)
	if err != nil {
		return nil, err
	}
	ss.log.Info("ad-hoc camera opened", "robot", r.ID, "user", c.User.Email, "source", int(t.Source), "address", cameraAddress(t))
	return cameraOutput{ss: ss, feed: r.ID + "\x00camera\x00" + uuid.NewString(), src: src, as: as}, nil
}

// cameraOutput is an authorised ad-hoc camera: live.Output. Its frames are its socket's
// alone: the feed key is its own, whatever stream name the query gave.
type cameraOutput struct {
	ss   *StreamService
	feed string
	src  fleet.Robot
	as   fleetgate.Stream
}

func (o cameraOutput) RobotID() string { return o.feed }

func (o cameraOutput) Subscribe(ctx context.Context, opts fleetgate.SubscribeOptions) (fleetgate.Stream, *fleet.Subscription, error) {
	if err := o.ss.checkCodec(o.as, opts.Codec); err != nil {
		return fleetgate.Stream{}, nil, err
	}
	sub, err := o.ss.video.Subscribe(ctx, o.feed, o.src, o.as.Key(), opts)
	if err != nil {
		return fleetgate.Stream{}, nil, cannotFollow(err)
	}
	return o.as, sub, nil
}

// listsCamera reports whether the robot, connected now, lists the selected stream with
// the target's address.
func (ss *StreamService) listsCamera(ctx context.Context, r fleetgate.Robot, sel StreamSelector, t CameraTarget) bool {
	live, ok := ss.presence.Robot(r.ID)
	if !ok {
		return false
	}
	s, err := ss.resolveStream(ctx, r, live, sel)
	if err != nil || s.Direction == fleetgate.Input {
		return false
	}
	return (t.URL != "" && s.SourceURL == t.URL) || (t.Endpoint != "" && s.SourceEndpoint == t.Endpoint)
}

// cameraAddress is a target's address for the log: the URL without any user part.
func cameraAddress(t CameraTarget) string {
	if t.Endpoint != "" {
		return t.Endpoint
	}
	scheme, rest, ok := strings.Cut(t.URL, "://")
	if !ok {
		return "(unparsable)"
	}
	host, path, _ := strings.Cut(rest, "/")
	path, _, _ = strings.Cut(path, "?") // a query may carry a token
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		host = host[at+1:]
	}
	return scheme + "://" + host + "/" + path
}

// OpensCameras reports whether this gateway opens cameras by address (an agent with ffmpeg):
// the panel offers its form only then.
func (ss *StreamService) OpensCameras() bool { return ss.cameras != nil }
