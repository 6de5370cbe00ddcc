// Package video serves camera streams as H.264 (W3's codec=h264, an extension): a stream
// whose source offers H.264 itself passes through, and a JPEG camera stream (the simulator's,
// a ROS CompressedImage topic, an MJPEG camera) is encoded once per camera by Debian's ffmpeg
// (libx264), only while somebody watches it so. Access units travel as CompressedVideo samples
// on a video topic (fleet.NewVideoTopic): latest wins by pictures.
package video

import (
	"context"
	"os/exec"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// The catalog types of camera streams.
const (
	ImageType = "Platform.Messages.sensor_msgs.CompressedImage"
	Type      = "Platform.Messages.foxglove_msgs.CompressedVideo"
)

// Codecs lists the codecs a stream of type typ offers (endpoint 6's extension): a JPEG
// camera stream "jpeg" and, where h264 is true (ffmpeg is installed), "h264"; an H.264 one
// "h264"; any other stream none.
func Codecs(typ string, h264 bool) []string {
	switch typ {
	case ImageType:
		if h264 {
			return []string{"jpeg", fleetgate.CodecH264}
		}
		return []string{"jpeg"}
	case Type:
		return []string{fleetgate.CodecH264}
	}
	return nil
}

// Encoders are this process's H.264 encoders, one per camera stream and width, each running
// while it has subscribers. The zero value is not usable: New.
type Encoders struct {
	ffmpeg string // "": not installed

	mu   sync.Mutex
	encs map[encKey]*encoded
}

type encKey struct {
	robotID  string
	key      fleetgate.StreamKey
	width    int
	settings Settings // the uplink's rung (Ladder); zero: the defaults, shared by local viewers
}

// New returns the encoders of a process; ffmpeg is looked up on PATH (none: H.264 is only
// offered by sources that send it themselves).
func New() *Encoders {
	path, _ := exec.LookPath("ffmpeg")
	return &Encoders{ffmpeg: path, encs: map[encKey]*encoded{}}
}

// CanEncode reports whether JPEG streams can be offered as H.264 here.
func (e *Encoders) CanEncode() bool { return e != nil && e.ffmpeg != "" }

// Subscribe follows robot's stream key as opts asks. With opts.Codec h264, the robot's own
// H.264 stream when it offers one (a pass-through camera, a robot behind the cloud's link),
// else its JPEG camera stream encoded here; a stream that is neither is EInvalid. Without a
// codec, it is robot.Subscribe.
func (e *Encoders) Subscribe(ctx context.Context, robotID string, robot fleet.Robot, key fleetgate.StreamKey, opts fleetgate.SubscribeOptions) (*fleet.Subscription, error) {
	sub, _, err := e.SubscribeAt(ctx, robotID, robot, key, opts, Settings{})
	return sub, err
}

// SubscribeAt is Subscribe with an encoder of settings set for a JPEG camera (an uplink's rung
// of the Ladder; zero: the one local viewers share); passed reports that the stream is the
// robot's own H.264, which set cannot change.
func (e *Encoders) SubscribeAt(ctx context.Context, robotID string, robot fleet.Robot, key fleetgate.StreamKey, opts fleetgate.SubscribeOptions, set Settings) (*fleet.Subscription, bool, error) {
	if opts.Codec == "" {
		sub, err := robot.Subscribe(ctx, key, opts)
		return sub, false, err
	}
	if opts.Codec != fleetgate.CodecH264 {
		return nil, false, fleetgate.Errorf(fleetgate.EInvalid, "codec must be jpeg or h264")
	}
	sub, err := robot.Subscribe(ctx, key, opts)
	if err != nil {
		return nil, false, err
	}
	switch sub.Type() {
	case Type:
		return sub, true, nil
	case ImageType:
	default:
		sub.Close()
		return nil, false, fleetgate.Errorf(fleetgate.EInvalid, "stream %s is not a camera stream: it has no h264", key.Name)
	}
	// The robot's JPEG subscription stays open until the encoder follows the camera, so that
	// the source does not stop and start again in between.
	defer sub.Close()
	if !e.CanEncode() {
		return nil, false, fleetgate.Errorf(fleetgate.EInvalid, "stream %s offers no h264 here: %v", key.Name, ErrNoFFmpeg)
	}
	for range 2 {
		enc := e.encoder(encKey{robotID, key, max(opts.MaxWidth, 0), set}, robot)
		vs, err := enc.topic.Subscribe()
		if err == nil {
			return vs, false, nil
		}
		// That encoder ended between lookup and Subscribe: the next one is fresh.
	}
	return nil, false, fleetgate.Errorf(fleetgate.EUnavailable, "the H.264 encoder of %s keeps failing", key.Name)
}

// Running is the number of ffmpeg encoders running, for tests and metrics.
func (e *Encoders) Running() int {
	e.mu.Lock()
	encs := make([]*encoded, 0, len(e.encs))
	for _, enc := range e.encs {
		encs = append(encs, enc)
	}
	e.mu.Unlock()
	n := 0
	for _, enc := range encs {
		enc.mu.Lock()
		if enc.cancel != nil {
			n++
		}
		enc.mu.Unlock()
	}
	return n
}

// encoded is one camera stream (at one width) as H.264: a video topic, fed by an ffmpeg
// encoder while it has subscribers.
type encoded struct {
	e     *Encoders
	k     encKey
	topic *fleet.Topic

	mu     sync.Mutex
	robot  fleet.Robot        // the camera's robot, as the latest subscriber found it
	cancel context.CancelFunc // of the running encoder; nil when none runs
	ended  chan struct{}      // closed when the running encoder has stopped
}

func (e *Encoders) encoder(k encKey, robot fleet.Robot) *encoded {
	e.mu.Lock()
	defer e.mu.Unlock()
	enc := e.encs[k]
	if enc == nil {
		enc = &encoded{e: e, k: k}
		enc.topic = fleet.NewVideoTopic(Type, enc.onActive)
		e.encs[k] = enc
	}
	enc.mu.Lock()
	enc.robot = robot
	enc.mu.Unlock()
	return enc
}

// onActive runs the encoder while the topic has subscribers, and stops it (the process
// reaped) when the last one leaves.
func (enc *encoded) onActive(bool) {
	enc.mu.Lock()
	defer enc.mu.Unlock()
	active := enc.topic.Subscribers() > 0
	switch {
	case active && enc.cancel == nil:
		if enc.ended != nil {
			<-enc.ended // the previous run's process is gone before the next starts
		}
		ctx, cancel := context.WithCancel(context.Background())
		enc.cancel = cancel
		enc.ended = make(chan struct{})
		go func(robot fleet.Robot, ended chan struct{}) {
			err := enc.run(ctx, robot)
			// ended first: a subscriber starting the next run waits for it, holding the
			// topic, which end needs.
			close(ended)
			if ctx.Err() == nil {
				enc.end(err)
			}
		}(enc.robot, enc.ended)
	case !active && enc.cancel != nil:
		enc.cancel()
		enc.cancel = nil
	}
}

// run follows the camera's JPEG pictures into ffmpeg and its access units into the topic
// until ctx ends or a fault (the camera's, the encoder's), which it returns: the topic then
// ends with it and is forgotten, so that the next subscriber starts afresh.
func (enc *encoded) run(ctx context.Context, robot fleet.Robot) error {
	// The camera's own pictures: ffmpeg scales them (cheaper than a JPEG scaled, then
	// decoded), and they are the ones full-size JPEG viewers share.
	base, err := robot.Subscribe(ctx, enc.k.key, fleetgate.SubscribeOptions{})
	if err != nil {
		return err
	}
	defer base.Close()
	settings := enc.k.settings
	if enc.k.width > 0 && (settings.Width == 0 || enc.k.width < settings.Width) {
		settings.Width = enc.k.width
	}
	proc, err := startEncoder(enc.e.ffmpeg, settings)
	if err != nil {
		return fleetgate.Errorf(fleetgate.EUnavailable, "H.264 encoder: %v", err)
	}
	headers := make(chan frameHeader, 64) // the pictures in ffmpeg, oldest first
	stopped, started := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		enc.publish(proc, headers, started)
	}()
	err = feed(ctx, base, proc, headers, settings.MaxRate, started)
	proc.Stop()
	<-stopped
	enc.topic.DropCache()
	return err
}

// frameHeader is what a picture's CompressedVideo keeps of its CompressedImage.
type frameHeader struct {
	stamp   *catalogpb.Time
	frameID string
	at      time.Time
}

// feed writes the camera's pictures to the encoder, at most maxRate a second (0: all), until
// ctx ends or either fails. After the first picture it waits for started (the encoder's first
// access unit): the pictures the camera takes while ffmpeg starts (0.2 to 0.8 s) are left to
// latest wins, not queued in ffmpeg's pipe, where they came out together, each as old as the
// start had taken (the unshaped uplink's picture age p99, 665 ms, was theirs). Then the
// camera's pictures queue for it (feedBuffer).
func feed(ctx context.Context, base *fleet.Subscription, proc *encoder, headers chan<- frameHeader, maxRate float64, started <-chan struct{}) error {
	var interval time.Duration
	if maxRate > 0 {
		interval = time.Duration(float64(time.Second) / maxRate)
	}
	var last time.Time
	for {
		s, err := base.Next(ctx)
		if err != nil {
			return err
		}
		if interval > 0 && !last.IsZero() && s.Time.Sub(last) < interval*9/10 {
			continue // within a tenth of the period: a camera's jitter does not halve the rate
		}
		last = s.Time
		var img catalogpb.CompressedImage
		if proto.Unmarshal(s.Payload, &img) != nil || !strings.Contains(strings.ToLower(img.Format), "jp") {
			continue // not a JPEG picture: nothing ffmpeg's mjpeg reader takes
		}
		h := frameHeader{stamp: img.GetHeader().GetStamp(), frameID: img.GetHeader().GetFrameId(), at: s.Time}
		select {
		case headers <- h:
		default: // ffmpeg holds more pictures than it should: their times are approximate
		}
		if err := proc.Write(img.Data); err != nil {
			select {
			case <-proc.done:
				return fleetgate.Errorf(fleetgate.EUnavailable, "%s", proc.err)
			default:
				return fleetgate.Errorf(fleetgate.EUnavailable, "H.264 encoder: %v", err)
			}
		}
		if started != nil {
			select {
			case <-started:
			case <-ctx.Done():
				return ctx.Err()
			case <-proc.done:
				return fleetgate.Errorf(fleetgate.EUnavailable, "%s", proc.err)
			}
			started = nil
			base.Buffer(feedBuffer)
		}
	}
}

// feedBuffer is how many of the camera's pictures wait for the feeder once the encoder runs:
// a moment without CPU for ffmpeg (its pipe full) no longer replaces them, which lost 0 to 17
// pictures in 15 s on this loaded machine, a picture rate of 14 to 14.7 where the camera made
// 15. Older ones than these still go (latest wins).
const feedBuffer = 3

// publish reads the encoder's access units into the topic, each with its picture's header
// (ffmpeg keeps the pictures' order and drops none: -fps_mode passthrough).
func (enc *encoded) publish(proc *encoder, headers <-chan frameHeader, started chan<- struct{}) {
	for first := true; ; first = false {
		au, err := proc.Next()
		if err != nil {
			return
		}
		if first {
			close(started)
		}
		var h frameHeader
		select {
		case h = <-headers:
		default:
			h.at = time.Now()
		}
		if h.at.IsZero() {
			h.at = time.Now()
		}
		stamp := h.stamp
		if stamp == nil {
			stamp = &catalogpb.Time{Sec: int32(h.at.Unix()), Nanosec: uint32(h.at.Nanosecond())}
		}
		payload, err := proto.Marshal(&catalogpb.CompressedVideo{Timestamp: stamp, FrameId: h.frameID, Data: au, Format: fleetgate.CodecH264})
		if err != nil {
			continue
		}
		enc.topic.PublishFrame(payload, h.at, IsKeyframe(au), 0)
	}
}

// end ends the topic with err (its subscribers get it) and forgets the encoder.
func (enc *encoded) end(err error) {
	e := enc.e
	e.mu.Lock()
	if e.encs[enc.k] == enc {
		delete(e.encs, enc.k)
	}
	e.mu.Unlock()
	enc.topic.Close(err)
}
