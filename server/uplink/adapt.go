package uplink

import (
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/internal/source/camera/scale"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// Pictures that fit the uplink. A JPEG camera watched through the cloud is sent as it comes
// while the uplink carries it; when frames are dropped at the agent for want of room (a newer
// one replaced a frame waiting for the uplink), the pictures step down a ladder of smaller
// and lighter JPEGs, and step back up once the uplink has had room for a while. At 2 Mbit/s the
// simulator's 640x480 frames (2.4 Mbit/s at 15 fps) came at 11 fps; a step down keeps the
// frame rate and the picture's age instead of the resolution. Frames are dropped or shrunk
// before the uplink, never after it.

// pictureStep is a rung of the ladder: width (0: as it comes) and JPEG quality.
type pictureStep struct {
	width, quality int
}

var pictureLadder = []pictureStep{
	{0, 0}, // as the camera sends it
	{480, 70},
	{320, 60},
	{240, 50},
}

const (
	// adaptEvery is how often a camera's step is reconsidered.
	adaptEvery = time.Second
	// stepDownDrops is the share of frames dropped at the agent, over adaptEvery, that steps
	// the pictures down.
	stepDownDrops = 0.15
	// stepUpAfter is how long the uplink must have carried every frame before a step up, at
	// first; a step up that had to come down again within probeFails doubles it, up to
	// stepUpAfterMax, so a link that cannot carry the bigger pictures is not probed every few
	// seconds at the cost of a second of dropped frames.
	stepUpAfter    = 4 * time.Second
	stepUpAfterMax = time.Minute
	probeFails     = 3 * time.Second
)

// imageType is the catalog's compressed camera image.
var imageType = string((&catalogpb.CompressedImage{}).ProtoReflect().Descriptor().FullName())

// adapter is one camera subscription's place on the ladder. The writer decides; the stream's
// goroutine reads the step as it shrinks each picture.
type adapter struct {
	step      atomic.Int32
	sent      int // frames started since the last decision
	dropped   int // frames replaced while waiting, since the last decision
	decided   time.Time
	cleanFrom time.Time     // since when no frame was dropped
	upAfter   time.Duration // the clean time the next step up waits for
	steppedUp time.Time     // the last step up
}

// decide moves the step by what the last adaptEvery saw.
func (a *adapter) decide(now time.Time) {
	if a.decided.IsZero() {
		a.decided, a.cleanFrom, a.upAfter = now, now, stepUpAfter
		return
	}
	if now.Sub(a.decided) < adaptEvery {
		return
	}
	total := a.sent + a.dropped
	step := a.step.Load()
	switch {
	case total > 0 && float64(a.dropped)/float64(total) > stepDownDrops:
		a.step.Store(min(step+1, int32(len(pictureLadder)-1)))
		a.cleanFrom = now
		if !a.steppedUp.IsZero() && now.Sub(a.steppedUp) <= probeFails {
			a.upAfter = min(2*a.upAfter, stepUpAfterMax)
		}
	case a.dropped > 0:
		a.cleanFrom = now
	case step > 0 && now.Sub(a.cleanFrom) >= a.upAfter:
		a.step.Store(step - 1)
		a.cleanFrom, a.steppedUp = now, now // the new step proves itself before the next
	}
	a.sent, a.dropped, a.decided = 0, 0, now
}

// shrink is payload (a CompressedImage) at most maxWidth wide (0: any) and, when adapt, at the
// adapter's step; or payload itself.
func (a *adapter) shrink(payload []byte, maxWidth int, adapt bool) []byte {
	st := pictureStep{}
	if adapt {
		st = pictureLadder[a.step.Load()]
	}
	if maxWidth > 0 && (st.width == 0 || maxWidth < st.width) {
		st.width = maxWidth
	}
	if st.width == 0 {
		return payload
	}
	if st.quality == 0 {
		st.quality = scale.Quality
	}
	var img catalogpb.CompressedImage
	if proto.Unmarshal(payload, &img) != nil || (img.GetFormat() != "jpeg" && img.GetFormat() != "jpg") {
		return payload
	}
	data, err := scale.JPEGAt(img.GetData(), st.width, st.quality)
	if err != nil {
		return payload
	}
	img.Data = data
	out, err := proto.Marshal(&img)
	if err != nil {
		return payload
	}
	return out
}
