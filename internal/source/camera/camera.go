// Package camera is the camera source: IP cameras over RTSP or ONVIF and video devices,
// read through Debian's ffmpeg as a supervised subprocess and offered as CompressedImage
// (JPEG) output streams behind the robot contract. One ffmpeg runs per camera while anyone
// watches, however many viewers there are; MJPEG passes through as it came, other codecs are
// decoded and encoded to JPEG once. Credentials reach ffmpeg through a pipe, never its
// command line or a log.
package camera

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/video"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// Component is the component name of camera streams in stream descriptors.
const Component = "camera"

// ImageType is the message type of camera streams.
const ImageType = "Platform.Messages.sensor_msgs.CompressedImage"

// VideoType is the type of a camera's H.264 stream (W3's codec=h264).
const VideoType = video.Type

// Defaults of Config's timings.
const (
	DefaultLinger       = 3 * time.Second
	DefaultStartTimeout = 4500 * time.Millisecond
	DefaultFirstImage   = 10 * time.Second
	DefaultStallTimeout = 5 * time.Second
	DefaultBackoffMin   = 500 * time.Millisecond
	DefaultBackoffMax   = 10 * time.Second
	// backoffReset is how long a run must last for the next restart to start from
	// BackoffMin again.
	backoffReset = 30 * time.Second
)

// Config describes one camera.
type Config struct {
	// Name is the camera's stream name and the frame_id of its images.
	Name string
	Spec Spec
	// Tools are ffmpeg and ffprobe (LookupTools).
	Tools Tools
	// Policy, when set, checks every address the camera connects to: ad-hoc cameras, whose
	// URL an operator typed. Configured cameras are the agent owner's and go unchecked.
	Policy *AddressPolicy
	// Linger is how long ffmpeg keeps running after the last viewer left, so that a page
	// reload or a quick reconnect does not restart it; 0: DefaultLinger, negative: none.
	Linger time.Duration
	// StartTimeout bounds an attempt's connecting: the address resolved (ONVIF asked), the
	// camera answering ffprobe. A camera that has not answered by then is unreachable, and its
	// viewers are told.
	StartTimeout time.Duration
	// FirstImage bounds the wait for the first image of a camera that answered: decoders
	// wait for a key frame, and a loaded host starts ffmpeg slowly.
	FirstImage time.Duration
	// StallTimeout is how long a camera that streamed may send nothing before ffmpeg is
	// restarted (with backoff between BackoffMin and BackoffMax); viewers stay, seeing the
	// last image age.
	StallTimeout           time.Duration
	BackoffMin, BackoffMax time.Duration
	// MaxFrame bounds one image (DefaultMaxFrame when 0).
	MaxFrame int
	// Clock runs the supervisor's timeouts, backoff and linger (clock.Real when nil).
	Clock clock.Clock
	Log   *slog.Logger

	// open replaces ffmpeg in the supervisor's tests.
	open func(ctx context.Context) (producer, error)
}

func (c *Config) defaults() {
	if c.Linger == 0 {
		c.Linger = DefaultLinger
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = DefaultStartTimeout
	}
	if c.FirstImage <= 0 {
		c.FirstImage = DefaultFirstImage
	}
	if c.StallTimeout <= 0 {
		c.StallTimeout = DefaultStallTimeout
	}
	if c.BackoffMin <= 0 {
		c.BackoffMin = DefaultBackoffMin
	}
	if c.BackoffMax < c.BackoffMin {
		c.BackoffMax = max(DefaultBackoffMax, c.BackoffMin)
	}
	if c.Clock == nil {
		c.Clock = clock.Real()
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
}

// Camera is one camera: a topic of its images and the supervisor of the ffmpeg that feeds
// it while anyone subscribes. It is safe for concurrent use.
type Camera struct {
	cfg    Config
	stream fleetgate.Stream
	log    *slog.Logger

	mu       sync.Mutex
	gen      *generation
	closed   bool
	lastDone chan struct{} // closed when the newest supervisor has returned
	runs     map[*run]struct{}
	wg       sync.WaitGroup

	scaledMu sync.Mutex
	scaled   map[int]*scaledStream // by width (SubscribeWith)

	// h264 says this is a camera's H.264 stream (video): the same camera, another ffmpeg,
	// which passes an H.264 camera's stream through as it came.
	h264    bool
	videoMu sync.Mutex
	video   *Camera // the H.264 stream of this camera, made with its first viewer

	// pid is the running ffmpeg's process id, 0 when none: for tests and the benchmark.
	pidMu sync.Mutex
	pid   int
}

// New returns a camera; nothing runs until someone subscribes.
func New(cfg Config) *Camera {
	cfg.defaults()
	c := &Camera{cfg: cfg, runs: map[*run]struct{}{},
		log: cfg.Log.With("camera", cfg.Name, "address", cfg.Spec.Public())}
	c.stream = fleetgate.Stream{Component: Component, Name: cfg.Name, Type: ImageType, Direction: fleetgate.Output,
		Source: cfg.Spec.Source, DisplayName: cfg.Name}
	if cfg.Spec.Source == fleetgate.SourceDevice {
		c.stream.SourceEndpoint = cfg.Spec.Device
	} else {
		c.stream.SourceURL = cfg.Spec.Public()
	}
	done := make(chan struct{})
	close(done)
	c.lastDone = done
	return c
}

// Stream is the camera's stream descriptor: no credentials in it.
func (c *Camera) Stream() fleetgate.Stream { return c.stream }

// PID is the process id of the camera's running ffmpeg, 0 when none runs.
func (c *Camera) PID() int {
	c.pidMu.Lock()
	defer c.pidMu.Unlock()
	return c.pid
}

func (c *Camera) setPID(pid int) {
	c.pidMu.Lock()
	c.pid = pid
	c.pidMu.Unlock()
}

// generation is the camera's topic between two failures: when an attempt finds the camera
// unreachable, its subscribers are told (the topic closes with the reason) and the next
// subscriber starts a new generation, a new attempt.
type generation struct {
	c     *Camera
	topic *fleet.Topic

	mu     sync.Mutex
	run    *run          // the running supervisor, nil when none should run
	linger chan struct{} // closed to call off a pending linger stop
}

func (c *Camera) current() (*generation, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, fleetgate.Errorf(fleetgate.EOffline, "camera %s is closed", c.cfg.Name)
	}
	if c.gen == nil {
		g := &generation{c: c}
		if c.h264 {
			g.topic = fleet.NewVideoTopic(VideoType, g.onActive)
		} else {
			g.topic = fleet.NewTopic(ImageType, g.onActive)
		}
		c.gen = g
	}
	return c.gen, nil
}

// Subscribe follows the camera's images; the first subscriber starts ffmpeg. A subscription
// ends with an error wrapping fleetgate.EUnavailable, its text the reason, when the camera
// cannot be reached.
func (c *Camera) Subscribe() (*fleet.Subscription, error) {
	for range 2 {
		g, err := c.current()
		if err != nil {
			return nil, err
		}
		sub, err := g.topic.Subscribe()
		if err == nil {
			return sub, nil
		}
		// The generation failed between current and Subscribe: the next one is fresh.
	}
	return nil, fleetgate.Errorf(fleetgate.EUnavailable, "camera %s keeps failing", c.cfg.Name)
}

// Read returns a current image: the latest when it is fresh, else the next one, starting
// the camera if nobody watches (it lingers, so that the next read is quick). A camera still
// starting at the caller's deadline is ENoSample, not a device that does not answer.
func (c *Camera) Read(ctx context.Context) (fleetgate.Sample, error) {
	g, err := c.current()
	if err != nil {
		return fleetgate.Sample{}, err
	}
	now := c.cfg.Clock.Now()
	if s, ok := g.topic.Latest(); ok && now.Sub(s.Time) < c.cfg.StallTimeout {
		return s, nil
	}
	sub, err := c.Subscribe()
	if err != nil {
		return fleetgate.Sample{}, err
	}
	defer sub.Close()
	for {
		s, err := sub.Next(ctx)
		if errors.Is(err, context.DeadlineExceeded) {
			return fleetgate.Sample{}, fleet.NoSample(c.stream.Key())
		}
		if err != nil {
			return fleetgate.Sample{}, err
		}
		if now.Sub(s.Time) < c.cfg.StallTimeout {
			return s, nil
		}
	}
}

// Close ends every subscription (fleetgate.EOffline), stops ffmpeg and waits for it.
func (c *Camera) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	g := c.gen
	c.gen = nil
	for r := range c.runs {
		r.cancel()
	}
	c.mu.Unlock()
	closed := fleetgate.Errorf(fleetgate.EOffline, "camera %s closed", c.cfg.Name)
	if g != nil {
		g.topic.Close(closed)
	}
	c.scaledMu.Lock()
	scaled := c.scaled
	c.scaled = nil
	c.scaledMu.Unlock()
	for _, s := range scaled {
		s.topic.Close(closed)
	}
	c.videoMu.Lock()
	v := c.video
	c.videoMu.Unlock()
	if v != nil {
		v.Close()
	}
	c.wg.Wait()
}

// videoStream is the camera's H.264 stream, made once: its own ffmpeg, its own supervisor,
// running while it has viewers.
func (c *Camera) videoStream() *Camera {
	c.videoMu.Lock()
	defer c.videoMu.Unlock()
	if c.video == nil {
		c.video = New(c.cfg)
		c.video.h264 = true
		c.video.log = c.log.With("codec", fleetgate.CodecH264)
	}
	return c.video
}

// retire ends generation g with err: its subscribers are told, the next one starts afresh.
func (c *Camera) retire(g *generation, err error) {
	c.mu.Lock()
	if c.gen == g {
		c.gen = nil
	}
	c.mu.Unlock()
	g.topic.Close(err)
}

// onActive starts the supervisor with the first subscriber and stops it Linger after the
// last. It asks the topic for the truth: callbacks of a quick subscribe and close may
// arrive in either order.
func (g *generation) onActive(bool) {
	c := g.c
	g.mu.Lock()
	defer g.mu.Unlock()
	active := g.topic.Subscribers() > 0
	if g.linger != nil {
		close(g.linger)
		g.linger = nil
	}
	switch {
	case active && g.run == nil:
		g.start()
	case !active && g.run != nil:
		if c.cfg.Linger < 0 {
			g.stop()
			return
		}
		called := make(chan struct{})
		g.linger = called
		t := clock.NewTimer(c.cfg.Clock, c.cfg.Linger)
		go func() {
			select {
			case <-t.C:
				g.mu.Lock()
				if g.linger == called && g.topic.Subscribers() == 0 {
					g.linger = nil
					g.stop()
				}
				g.mu.Unlock()
			case <-called:
				t.Stop()
			}
		}()
	}
}

// run is one supervisor of a generation.
type run struct{ cancel context.CancelFunc }

// start runs a supervisor for the generation (g.mu held). It waits for the camera's
// previous supervisor to have reaped its ffmpeg: one ffmpeg per camera, always.
func (g *generation) start() {
	c := g.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &run{cancel: cancel}
	g.run = r
	c.runs[r] = struct{}{}
	prev, done := c.lastDone, make(chan struct{})
	c.lastDone = done
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer close(done)
		<-prev
		g.supervise(ctx)
		g.mu.Lock()
		if g.run == r {
			g.run = nil
		}
		g.mu.Unlock()
		c.mu.Lock()
		delete(c.runs, r)
		c.mu.Unlock()
		cancel()
	}()
}

// stop cancels the generation's supervisor, if one runs (g.mu held).
func (g *generation) stop() {
	if g.run == nil {
		return
	}
	c := g.c
	c.mu.Lock()
	delete(c.runs, g.run)
	c.mu.Unlock()
	g.run.cancel()
	g.run = nil
}

// supervise runs ffmpeg for the generation's subscribers until ctx ends. The first attempt
// must bring an image in time, or the camera is unreachable: the generation fails and its
// viewers get the reason. A camera that streamed and then stalls or ends is restarted with
// backoff, viewers staying (they see the image age); while its restarts go unanswered
// (timeouts) it is retried, and when one is refused outright (ffmpeg's error, such as a
// connection refused or a 401) the generation fails.
func (g *generation) supervise(ctx context.Context) {
	c := g.c
	backoff := c.cfg.BackoffMin
	streamed := false
	for {
		started := c.cfg.Clock.Now()
		images, err := g.attempt(ctx)
		if ctx.Err() != nil {
			return
		}
		streamed = streamed || images > 0
		if images == 0 && (!streamed || !isTimeout(err)) {
			words := wordsOf(err, c.cfg.Spec.Source == fleetgate.SourceDevice)
			// Under the policy, whoever typed the address must not learn its port's state
			// from the time either: a closed port, a filtered one and one that speaks
			// something else all take the start timeout to be told.
			if c.cfg.Policy != nil && words == wordsNoAnswer && !c.sleepUntil(ctx, started.Add(c.cfg.StartTimeout)) {
				return
			}
			c.log.Warn("camera unreachable", "err", err, "told", words)
			c.retire(g, &fleetgate.Error{Code: fleetgate.EUnavailable, Message: fmt.Sprintf("camera %s: %s", c.cfg.Name, words), Err: err})
			return
		}
		if c.cfg.Clock.Now().Sub(started) >= backoffReset {
			backoff = c.cfg.BackoffMin
		}
		c.log.Warn("camera stream interrupted; restarting", "err", err, "images", images, "in", backoff)
		t := clock.NewTimer(c.cfg.Clock, backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(2*backoff, c.cfg.BackoffMax)
	}
}

// sleepUntil waits for the camera's clock to reach t; false when ctx ended first.
func (c *Camera) sleepUntil(ctx context.Context, t time.Time) bool {
	d := t.Sub(c.cfg.Clock.Now())
	if d <= 0 {
		return true
	}
	timer := clock.NewTimer(c.cfg.Clock, d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// timeoutError is an attempt that ended because the camera said nothing in time, as
// opposed to one it refused.
type timeoutError string

func (e timeoutError) Error() string { return string(e) }

// words is what viewers are told of the timeout: the camera answered, or it did not.
func (e timeoutError) words() string {
	switch {
	case e == errStalled:
		return wordsStalled
	case strings.HasPrefix(string(e), noImagePrefix):
		return wordsNoImage
	}
	return wordsNoAnswer
}

func isTimeout(err error) bool {
	var te timeoutError
	return errors.As(err, &te)
}

// errStalled ends an attempt whose camera went quiet.
const errStalled = timeoutError("no image for too long")

// noImagePrefix begins the timeout of a first attempt whose camera answered (ffprobe read
// its stream) but sent no image in time.
const noImagePrefix = "the camera answered but sent no image"

// attempt opens the camera and publishes its images until it ends or stalls, or ctx ends;
// it reports how many images came.
func (g *generation) attempt(ctx context.Context) (int, error) {
	c := g.c
	openCtx, cancel := context.WithTimeout(ctx, c.cfg.StartTimeout)
	p, err := c.open(openCtx)
	timedOut := errors.Is(openCtx.Err(), context.DeadlineExceeded)
	cancel()
	if err != nil {
		if timedOut && ctx.Err() == nil {
			err = timeoutError(fmt.Sprintf("no answer within %s", c.cfg.StartTimeout))
		}
		return 0, err
	}
	defer func() {
		p.Stop()
		c.setPID(0)
	}()
	if pp, ok := p.(interface{ PID() int }); ok {
		c.setPID(pp.PID())
	}
	first := clock.NewTimer(c.cfg.Clock, c.cfg.FirstImage)
	defer first.Stop()
	var stall *clock.ChanTimer
	defer func() {
		if stall != nil {
			stall.Stop()
		}
	}()
	images := 0
	for {
		var firstC, stallC <-chan time.Time
		if images == 0 {
			firstC = first.C
		}
		if stall != nil {
			stallC = stall.C
		}
		select {
		case f, ok := <-p.Frames():
			if !ok {
				return images, p.Err()
			}
			if err := g.publish(f); err != nil {
				return images, err
			}
			images++
			if stall != nil {
				stall.Stop()
			}
			stall = clock.NewTimer(c.cfg.Clock, c.cfg.StallTimeout)
		case <-firstC:
			return 0, timeoutError(fmt.Sprintf("%s within %s", noImagePrefix, c.cfg.FirstImage))
		case <-stallC:
			return images, errStalled
		case <-ctx.Done():
			return images, ctx.Err()
		}
	}
}

// publish sends one image to the viewers as a CompressedImage (of the H.264 stream: an
// access unit as a CompressedVideo).
func (g *generation) publish(f Frame) error {
	if g.c.h264 {
		payload, err := proto.Marshal(&catalogpb.CompressedVideo{
			Timestamp: &catalogpb.Time{Sec: int32(f.At.Unix()), Nanosec: uint32(f.At.Nanosecond())},
			FrameId:   g.c.cfg.Name, Data: f.JPEG, Format: fleetgate.CodecH264})
		if err != nil {
			return err
		}
		g.topic.PublishFrame(payload, f.At, video.IsKeyframe(f.JPEG), 0)
		return nil
	}
	msg := &catalogpb.CompressedImage{
		Header: &catalogpb.Header{Stamp: &catalogpb.Time{Sec: int32(f.At.Unix()), Nanosec: uint32(f.At.Nanosecond())}, FrameId: g.c.cfg.Name},
		Format: "jpeg",
		Data:   f.JPEG,
	}
	payload, err := proto.Marshal(msg)
	if err != nil {
		return err
	}
	g.topic.Publish(payload, f.At)
	return nil
}

// open starts one attempt: resolves the address (ONVIF asks the device for its stream),
// probes the codec and starts ffmpeg.
func (c *Camera) open(ctx context.Context) (producer, error) {
	if c.cfg.open != nil {
		return c.cfg.open(ctx)
	}
	in, err := c.input(ctx)
	if err != nil {
		return nil, err
	}
	codec, err := probe(ctx, c.cfg.Tools, in)
	if err != nil {
		return nil, err
	}
	return startFFmpeg(c.cfg.Tools, in, codec, c.cfg.MaxFrame, c.h264)
}

// input is what ffmpeg opens for the camera's Spec. Under the policy, the camera's host is
// looked up and checked once, and ffmpeg reaches it through a relay that connects to that
// address only (pinned, so that a second lookup cannot lead elsewhere) and checks every
// later hop (rtsprelay.go).
func (c *Camera) input(ctx context.Context) (input, error) {
	s := c.cfg.Spec
	if s.Source == fleetgate.SourceDevice {
		return input{device: s.Device}, nil
	}
	streamURL := s.URL
	if s.Source == fleetgate.SourceONVIF {
		uri, err := (&ONVIF{URL: s.URL, Username: s.Username, Password: s.Password, Client: c.httpClient()}).StreamURI(ctx)
		if err != nil {
			return input{}, err
		}
		if streamURL, err = checkStreamURI(uri); err != nil {
			return input{}, err
		}
	}
	full, err := withCredentials(streamURL, s.Username, s.Password)
	if err != nil {
		return input{}, err
	}
	in := input{url: full, udp: s.UDP, secrets: []string{s.Password}, log: c.log}
	if c.cfg.Policy != nil {
		ip, err := c.cfg.Policy.Resolve(ctx, hostOf(streamURL))
		if err != nil {
			return input{}, err
		}
		if in.first, err = hopTo(streamURL, ip); err != nil {
			return input{}, err
		}
		in.guard = c.cfg.Policy
		// ffmpeg runs RTSP over TLS on TCP only: so does the relay's.
		in.udp = in.udp && !in.first.tls
	}
	return in, nil
}

// checkStreamURI accepts the stream URI an ONVIF device answered when it is RTSP.
func checkStreamURI(uri string) (string, error) {
	s, err := ParseURL(uri)
	if err != nil || s.Source != fleetgate.SourceRTSP {
		return "", failed(wordsONVIFNoStream, fmt.Errorf("the ONVIF device answered a stream URI that is not RTSP: %q", redactURL(uri)))
	}
	return s.URL, nil
}

// httpClient is the client of ONVIF requests: bounded, no redirects, and under the policy
// at the socket, whatever the name resolved to.
func (c *Camera) httpClient() *http.Client {
	d := &net.Dialer{Timeout: ioTimeout}
	if c.cfg.Policy != nil {
		d.Control, d.Resolver = c.cfg.Policy.dialControl, c.cfg.Policy.Resolver
	}
	return &http.Client{
		Timeout:       c.cfg.StartTimeout,
		Transport:     &http.Transport{DialContext: d.DialContext, TLSHandshakeTimeout: ioTimeout, DisableKeepAlives: true, Proxy: nil},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
