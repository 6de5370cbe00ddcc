package video

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"os/exec"
	"testing"
	"time"
)

// TestEncoderHoldsNoPictureBack: each picture's access unit comes out of ffmpeg before the
// next picture goes in. With "-fflags nobuffer" on its input, ffmpeg 5.1 gave a picture out
// only when the next one came (a picture interval of age on every picture, 67 ms at 15 fps;
// BenchmarkEncoderDelay). The timer only ends a test that would otherwise hang.
func TestEncoderHoldsNoPictureBack(t *testing.T) {
	ff, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Skip(ErrNoFFmpeg)
	}
	e, err := startEncoder(ff, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	held := time.AfterFunc(30*time.Second, e.Stop)
	defer held.Stop()
	for n := range 4 {
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
		if err := e.Write(b.Bytes()); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Next(); err != nil {
			t.Fatalf("picture %d: no access unit until the next picture came (%v)", n, err)
		}
	}
}
