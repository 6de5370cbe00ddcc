package live

import (
	"context"
	"strconv"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
)

// Scaled is out with camera images at most width pixels wide (W3's maxWidth): the source
// scales, once per width. Its frames have a feed of their own, apart from the full-size ones
// and from other widths, since sessions share the encodings of one RobotID's stream.
func Scaled(out Output, width int) Output { return scaledOutput{Output: out, width: width} }

type scaledOutput struct {
	Output
	width int
}

func (o scaledOutput) RobotID() string {
	return o.Output.RobotID() + "\x00width\x00" + strconv.Itoa(o.width)
}

func (o scaledOutput) Subscribe(ctx context.Context, opts fleetgate.SubscribeOptions) (fleetgate.Stream, *fleet.Subscription, error) {
	opts.MaxWidth = o.width
	return o.Output.Subscribe(ctx, opts)
}

// Coded is out as codec asks (W3's codec=h264: a camera stream as H.264 access units). Its
// frames have a feed of their own: a video topic numbers its samples apart from the images'.
func Coded(out Output, codec string) Output { return codedOutput{Output: out, codec: codec} }

type codedOutput struct {
	Output
	codec string
}

func (o codedOutput) RobotID() string { return o.Output.RobotID() + "\x00codec\x00" + o.codec }

func (o codedOutput) Subscribe(ctx context.Context, opts fleetgate.SubscribeOptions) (fleetgate.Stream, *fleet.Subscription, error) {
	opts.Codec = o.codec
	return o.Output.Subscribe(ctx, opts)
}
