package uplink

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// The ladder: frames dropped for want of room step the pictures down, one step a second;
// four clean seconds step them back up, one at a time.
func TestPicturesStepDownWhenFramesAreDroppedAndBackUp(t *testing.T) {
	a := &adapter{}
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	a.decide(t0)
	second := func(at time.Duration, sent, dropped int) int {
		a.sent, a.dropped = sent, dropped
		a.decide(t0.Add(at))
		return int(a.step.Load())
	}
	if got := second(time.Second, 14, 1); got != 0 {
		t.Fatalf("1 of 15 frames dropped: step %d, want 0 (under 15%%)", got)
	}
	if got := second(2*time.Second, 10, 5); got != 1 {
		t.Fatalf("5 of 15 dropped: step %d, want 1", got)
	}
	if got := second(3*time.Second, 10, 5); got != 2 {
		t.Fatalf("5 of 15 dropped again: step %d, want 2", got)
	}
	for _, at := range []time.Duration{4, 5, 6} {
		if got := second(at*time.Second, 15, 0); got != 2 {
			t.Fatalf("%v s clean: step %d, want 2 still", at-3, got)
		}
	}
	if got := second(7*time.Second, 15, 0); got != 1 {
		t.Fatalf("4 s clean: step %d, want 1", got)
	}
	if got := second(8*time.Second, 15, 0); got != 1 {
		t.Fatalf("the new step proves itself first: step %d, want 1", got)
	}
	if got := second(9*time.Second, 14, 1); got != 1 {
		t.Fatalf("a drop under the threshold holds the step: %d", got)
	}
	for _, at := range []time.Duration{10, 11, 12, 13} {
		second(at*time.Second, 15, 0)
	}
	if a.step.Load() != 0 {
		t.Fatalf("step %d after 4 clean seconds, want 0", a.step.Load())
	}
}

// A step down is a smaller, lighter JPEG of the same picture; other images pass as they are.
func TestShrinkMakesASmallerJPEG(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 640, 480))
	for y := range 480 {
		for x := range 640 {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	payload, _ := proto.Marshal(&catalogpb.CompressedImage{Format: "jpeg", Data: b.Bytes()})
	a := &adapter{}
	a.step.Store(2)
	out := a.shrink(payload, 0, true)
	var got catalogpb.CompressedImage
	if err := proto.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(got.GetData()))
	if err != nil || cfg.Width != 320 || cfg.Height != 240 {
		t.Fatalf("step 2 made %dx%d (%v), want 320x240", cfg.Width, cfg.Height, err)
	}
	if len(out) >= len(payload)/2 {
		t.Fatalf("step 2 is %d bytes of %d", len(out), len(payload))
	}
	if a.step.Store(0); !bytes.Equal(a.shrink(payload, 0, true), payload) {
		t.Fatal("step 0 changed the picture")
	}
	png, _ := proto.Marshal(&catalogpb.CompressedImage{Format: "png", Data: []byte("not a jpeg")})
	if a.step.Store(3); !bytes.Equal(a.shrink(png, 0, true), png) {
		t.Fatal("a PNG was changed")
	}
}

// A step up that fails at once (the link cannot carry the bigger pictures) doubles the wait
// before the next probe.
func TestAFailedStepUpWaitsLongerBeforeTheNext(t *testing.T) {
	a := &adapter{}
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	a.decide(t0)
	at := time.Duration(0)
	tick := func(dropped int) {
		at += time.Second
		a.sent, a.dropped = 15-dropped, dropped
		a.decide(t0.Add(at))
	}
	tick(5) // down to 1
	for range 4 {
		tick(0)
	}
	if a.step.Load() != 0 {
		t.Fatalf("step %d after 4 clean seconds, want 0 (a probe)", a.step.Load())
	}
	tick(5) // the probe failed at once
	if a.step.Load() != 1 || a.upAfter != 2*stepUpAfter {
		t.Fatalf("after a failed probe: step %d, wait %v; want 1 and %v", a.step.Load(), a.upAfter, 2*stepUpAfter)
	}
	for range 7 {
		tick(0)
	}
	if a.step.Load() != 1 {
		t.Fatal("probed again before the doubled wait")
	}
	tick(0)
	if a.step.Load() != 0 {
		t.Fatalf("step %d after the doubled wait, want 0", a.step.Load())
	}
}
