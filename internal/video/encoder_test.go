package video

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"os/exec"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// jpegOf is a small JPEG picture that changes with n.
func jpegOf(t *testing.T, n int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 160, 120))
	for y := range 120 {
		for x := range 160 {
			img.Set(x, y, color.RGBA{uint8(x + n*7), uint8(y), uint8(n * 40), 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// runningEncoder is an ffmpeg encoder of the default settings, stopped when the test ends.
func runningEncoder(t *testing.T) *encoder {
	ff, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Skip(ErrNoFFmpeg)
	}
	e, err := startEncoder(ff, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Stop)
	return e
}

// testCamera is a camera topic, the feeder's subscription to it, and show, which publishes
// picture n (its stamp n seconds) and returns its JPEG.
func testCamera(t *testing.T) (base *fleet.Subscription, show func(n int) []byte) {
	camera := fleet.NewTopic(ImageType, nil)
	base, err := camera.Subscribe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(base.Close)
	return base, func(n int) []byte {
		data := jpegOf(t, n)
		p, _ := proto.Marshal(&catalogpb.CompressedImage{Header: &catalogpb.Header{Stamp: &catalogpb.Time{Sec: int32(n)}}, Format: "jpeg", Data: data})
		camera.Publish(p, time.Now())
		return data
	}
}

// TestFeedLeavesThePicturesOfTheStartToLatestWins: while ffmpeg starts (its first access
// unit not out yet), the feeder writes it no picture after the first: the camera's pictures of
// that time are replaced by newer ones, and the next written is the newest, not the oldest.
// Before, they queued in ffmpeg's pipe and came out together, as old as the start took.
func TestFeedLeavesThePicturesOfTheStartToLatestWins(t *testing.T) {
	proc := runningEncoder(t)
	base, show := testCamera(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	headers, started := make(chan frameHeader, 64), make(chan struct{})
	fed := make(chan error, 1)
	go func() { fed <- feed(ctx, base, proc, headers, 0, started) }()
	show(0)
	if h := <-headers; h.stamp.GetSec() != 0 {
		t.Fatalf("first picture written: %d", h.stamp.GetSec())
	}
	for n := 1; n <= 3; n++ { // the camera goes on while ffmpeg starts
		show(n)
	}
	close(started)
	if h := <-headers; h.stamp.GetSec() != 3 {
		t.Errorf("after the start, the feeder wrote picture %d, want the newest (3)", h.stamp.GetSec())
	}
	cancel()
	<-fed
}

// TestEncoderHoldsNoPictureBack: each picture's access unit comes out of ffmpeg before the
// next picture goes in. With "-fflags nobuffer" on its input, ffmpeg 5.1 gave a picture out
// only when the next one came (a picture interval of age on every picture, 67 ms at 15 fps;
// BenchmarkEncoderDelay). The timer only ends a test that would otherwise hang.
func TestEncoderHoldsNoPictureBack(t *testing.T) {
	e := runningEncoder(t)
	held := time.AfterFunc(30*time.Second, e.Stop)
	defer held.Stop()
	for n := range 4 {
		if err := e.Write(jpegOf(t, n)); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Next(); err != nil {
			t.Fatalf("picture %d: no access unit until the next picture came (%v)", n, err)
		}
	}
}

// TestFeedQueuesPicturesWhileTheEncoderIsBusy: once the encoder runs, the camera's pictures
// that come while it cannot take one (its pipe full: ffmpeg without CPU for a moment) wait
// for it, up to feedBuffer of them, rather than the newest replacing the others.
func TestFeedQueuesPicturesWhileTheEncoderIsBusy(t *testing.T) {
	pipe, stdin := io.Pipe()
	defer pipe.Close()
	proc := &encoder{stdin: stdin, done: make(chan struct{})}
	base, publish := testCamera(t)
	pictures := map[int][]byte{}
	show := func(n int) { pictures[n] = publish(n) }
	// take lets the encoder have picture n: the bytes Write sends for it.
	take := func(n int) {
		head := fmt.Sprintf("Content-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n", len(pictures[n]))
		if n == 0 {
			head = "--ffmpeg\r\n" + head
		}
		if _, err := io.ReadFull(pipe, make([]byte, len(head)+len(pictures[n])+len("\r\n--ffmpeg\r\n"))); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	headers, started := make(chan frameHeader, 64), make(chan struct{})
	close(started) // the encoder runs
	fed := make(chan error, 1)
	go func() { fed <- feed(ctx, base, proc, headers, 0, started) }()
	defer func() { cancel(); pipe.Close(); <-fed }()
	show(0)
	<-headers
	take(0)
	show(1)
	if h := <-headers; h.stamp.GetSec() != 1 {
		t.Fatalf("picture %d written, want 1", h.stamp.GetSec())
	}
	for n := 2; n <= 2+feedBuffer; n++ { // the encoder is busy with picture 1 meanwhile
		show(n)
	}
	take(1)
	for n := 3; n <= 2+feedBuffer; n++ {
		if h := <-headers; h.stamp.GetSec() != int32(n) {
			t.Fatalf("after a busy encoder, picture %d written, want %d: the pictures that waited go in order", h.stamp.GetSec(), n)
		}
		take(n)
	}
}
