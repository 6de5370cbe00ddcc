package camera

import (
	"context"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/source/camera/scale"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// Scaling bounds (W3's maxWidth): pictures are scaled down, never up.
const (
	MinScaledWidth = 16
	MaxScaledWidth = 8192
)

// SubscribeWith follows the camera's images as opts asks: scaled down to opts.MaxWidth when
// set, else as they come (Subscribe). Every subscriber of one width shares one scaling of
// each image.
//
// With opts.Codec h264 (and no MaxWidth), it follows the camera's H.264 stream: an H.264
// camera's as it came, any other's encoded once by the camera's ffmpeg. A scaled H.264
// stream is encoded from the scaled images (internal/video).
func (c *Camera) SubscribeWith(opts fleetgate.SubscribeOptions) (*fleet.Subscription, error) {
	if opts.Codec == fleetgate.CodecH264 && opts.MaxWidth <= 0 && !c.h264 {
		return c.videoStream().Subscribe()
	}
	if opts.MaxWidth <= 0 {
		return c.Subscribe()
	}
	w := min(max(opts.MaxWidth, MinScaledWidth), MaxScaledWidth)
	for range 2 {
		t := c.scaledTopic(w)
		sub, err := t.topic.Subscribe()
		if err == nil {
			return sub, nil
		}
		// That width's topic ended between lookup and Subscribe: the next one is fresh.
	}
	return nil, fleetgate.Errorf(fleetgate.EUnavailable, "camera %s keeps failing", c.cfg.Name)
}

// scaledStream is the images of one width: a topic of their own, fed from the camera's
// while anyone subscribes to it.
type scaledStream struct {
	c      *Camera
	width  int
	topic  *fleet.Topic
	mu     sync.Mutex
	cancel context.CancelFunc // of the running feeder; nil when none runs
}

func (c *Camera) scaledTopic(width int) *scaledStream {
	c.scaledMu.Lock()
	defer c.scaledMu.Unlock()
	if c.scaled == nil {
		c.scaled = map[int]*scaledStream{}
	}
	s := c.scaled[width]
	if s == nil {
		s = &scaledStream{c: c, width: width}
		s.topic = fleet.NewTopic(ImageType, s.onActive)
		c.scaled[width] = s
	}
	return s
}

// onActive feeds the topic from the camera while it has subscribers.
func (s *scaledStream) onActive(bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	active := s.topic.Subscribers() > 0
	switch {
	case active && s.cancel == nil:
		base, err := s.c.Subscribe()
		if err != nil {
			go s.end(err)
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		s.cancel = cancel
		go s.feed(ctx, base)
	case !active && s.cancel != nil:
		s.cancel()
		s.cancel = nil
	}
}

// feed scales each of the camera's images into the topic; when the camera's subscription
// ends with a fault, the topic ends with it (its subscribers get the reason) and is
// forgotten, so the next subscriber of the width starts afresh.
func (s *scaledStream) feed(ctx context.Context, base *fleet.Subscription) {
	defer base.Close()
	for {
		sample, err := base.Next(ctx)
		if err != nil {
			if ctx.Err() == nil {
				s.end(err)
			}
			return
		}
		s.topic.Publish(scaleSample(sample.Payload, s.width), sample.Time)
	}
}

func (s *scaledStream) end(err error) {
	c := s.c
	c.scaledMu.Lock()
	if c.scaled[s.width] == s {
		delete(c.scaled, s.width)
	}
	c.scaledMu.Unlock()
	s.topic.Close(err)
}

// scaleSample scales a CompressedImage's JPEG; one that is not JPEG, or fails to scale, goes
// on as it came.
func scaleSample(payload []byte, width int) []byte {
	var img catalogpb.CompressedImage
	if proto.Unmarshal(payload, &img) != nil || !strings.Contains(strings.ToLower(img.Format), "jp") {
		return payload
	}
	data, err := scale.JPEG(img.Data, width)
	if err != nil || len(data) == len(img.Data) {
		return payload
	}
	img.Data = data
	out, err := proto.Marshal(&img)
	if err != nil {
		return payload
	}
	return out
}
