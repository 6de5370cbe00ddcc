package cloud_test

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// A cloud viewer's maxWidth reaches the agent, which sends the camera's pictures scaled down
// before the uplink; each sample keeps the agent's sequence number.
func TestMaxWidthIsAppliedBeforeTheUplink(t *testing.T) {
	w := newWorld(t)
	w.serveLive.Store(true)
	camKey := fleetgate.StreamKey{Component: "camera", Name: "image", Source: fleetgate.SourceComponent}
	const imageType = "Platform.Messages.sensor_msgs.CompressedImage"
	bot := scriptedRobot(idOne, "one")
	bot.StreamList = append(bot.StreamList, fleetgate.Stream{Component: "camera", Name: "image", Type: imageType, Direction: fleetgate.Output, Source: fleetgate.SourceComponent})
	var b bytes.Buffer
	jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 640, 480)), nil)
	frame, _ := proto.Marshal(&catalogpb.CompressedImage{Format: "jpeg", Data: b.Bytes()})
	w.startAgent("fga_alpha", bot)
	w.waitOnline(idOne, true, 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sub, err := w.remote(idOne).Subscribe(ctx, camKey, fleetgate.SubscribeOptions{MaxWidth: 160})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	var sent fleetgate.Sample
	got := make(chan fleetgate.Sample, 1)
	go func() {
		s, err := sub.Next(ctx)
		if err == nil {
			got <- s
		}
	}()
	for {
		sent = bot.Emit(camKey, imageType, frame) // until the agent's subscription is there
		select {
		case s := <-got:
			var img catalogpb.CompressedImage
			if err := proto.Unmarshal(s.Payload, &img); err != nil {
				t.Fatal(err)
			}
			cfg, err := jpeg.DecodeConfig(bytes.NewReader(img.GetData()))
			if err != nil || cfg.Width != 160 || cfg.Height != 120 {
				t.Fatalf("the cloud viewer got a %dx%d picture (%v), want 160x120", cfg.Width, cfg.Height, err)
			}
			if s.Seq < 1 || s.Seq > sent.Seq {
				t.Fatalf("sequence %d at the cloud; the agent's was up to %d", s.Seq, sent.Seq)
			}
			return
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			t.Fatal("no picture reached the cloud viewer")
		}
	}
}
