package clockstrip

import (
	"bytes"
	"image"
	"image/jpeg"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/video/videotest"
)

// scene is a busy picture (noise over a gradient) of w x h: what a strip must stand out of.
func scene(w, h int, seed uint64) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(seed, 1))
	for i := 0; i < len(img.Pix); i += 4 {
		y := i / 4 / w
		g := uint8(y * 255 / h)
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = g+uint8(r.IntN(60)), uint8(r.IntN(256)), g, 255
	}
	return img
}

// shrink scales img down by an integer factor, averaging (as a scaler does).
func shrink(img *image.RGBA, f int) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx()/f, b.Dy()/f))
	for y := range out.Rect.Dy() {
		for x := range out.Rect.Dx() {
			for c := range 4 {
				sum := 0
				for dy := range f {
					for dx := range f {
						sum += int(img.Pix[img.PixOffset(x*f+dx, y*f+dy)+c])
					}
				}
				out.Pix[out.PixOffset(x, y)+c] = uint8(sum / (f * f))
			}
		}
	}
	return out
}

func jpegRoundTrip(t *testing.T, img image.Image, quality int) image.Image {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: quality}); err != nil {
		t.Fatal(err)
	}
	out, err := jpeg.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var at = time.Date(2026, 11, 28, 8, 30, 0, 123e6, time.UTC)

func TestReadsTheBurnedTimeThroughJPEGAndScaling(t *testing.T) {
	for _, tt := range []struct {
		name    string
		shrink  int
		quality int
	}{{"640x480 JPEG 75", 1, 75}, {"320x240 JPEG 50", 2, 50}, {"160x120 JPEG 20", 4, 20}} {
		t.Run(tt.name, func(t *testing.T) {
			for i := range 6 {
				burned := at.Add(time.Duration(i) * 7919 * time.Millisecond)
				img := scene(640, 480, uint64(i))
				Burn(img, burned)
				got, ok := Read(jpegRoundTrip(t, shrink(img, tt.shrink), tt.quality), burned.Add(150*time.Millisecond))
				if !ok || !got.Equal(burned.Truncate(time.Millisecond)) {
					t.Fatalf("picture %d: read %v %v, burned %v", i, got, ok, burned)
				}
			}
		})
	}
}

// The reader unwraps the milliseconds modulo 2^24 against its own clock: an age up to the
// wrap reads right, across a wrap too.
func TestUnwrapsAgainstTheReadersClock(t *testing.T) {
	img := scene(640, 480, 1)
	Burn(img, at)
	for _, age := range []time.Duration{0, time.Millisecond, 3 * time.Second, Wrap - time.Millisecond} {
		if got, ok := Read(img, at.Add(age)); !ok || !got.Equal(at) {
			t.Fatalf("age %v: read %v %v, want %v", age, got, ok, at)
		}
	}
	// A clock behind the camera's reads the previous wrap: a negative age is never made up.
	if got, _ := Read(img, at.Add(-time.Millisecond)); !got.Equal(at.Add(-Wrap)) {
		t.Fatalf("a reader 1 ms behind read %v", got)
	}
}

// A picture without a strip, or with a cell read wrong, reads as nothing, never as a time.
func TestRefusesAPictureWithoutAStripOrWithABadCell(t *testing.T) {
	if got, ok := Read(scene(640, 480, 2), at); ok {
		t.Fatalf("a picture without a strip read as %v", got)
	}
	if _, ok := Read(image.NewRGBA(image.Rect(0, 0, 8, 8)), at); ok {
		t.Fatal("a picture smaller than the strip's cells read")
	}
	for cell := firstBit; cell < Cells; cell++ {
		img := scene(640, 480, 3)
		Burn(img, at)
		// Flip the cell: white to black or black to white.
		x, y := cell*640/Cells+2, 480-2
		v := 255 - img.Pix[img.PixOffset(x, y)]
		for yy := 480 - 480/HeightDiv; yy < 480; yy++ {
			for xx := cell * 640 / Cells; xx < (cell+1)*640/Cells; xx++ {
				o := img.PixOffset(xx, yy)
				img.Pix[o], img.Pix[o+1], img.Pix[o+2] = v, v, v
			}
		}
		if got, ok := Read(img, at); ok {
			t.Fatalf("cell %d flipped: read %v", cell, got)
		}
	}
}

// Through H.264 at a low rate, scaled down to 160x120 as the ladder's lowest rung, every
// picture reads its own time.
func TestReadsTheBurnedTimeThroughH264(t *testing.T) {
	videotest.NeedFFmpeg(t)
	const n, w, h = 12, 160, 120
	var raw bytes.Buffer
	for i := range n {
		img := scene(640, 480, uint64(i))
		Burn(img, at.Add(time.Duration(i)*66*time.Millisecond))
		raw.Write(shrink(img, 4).Pix)
	}
	cmd := exec.Command("ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", "rgba", "-s", strconv.Itoa(w)+"x"+strconv.Itoa(h), "-r", "15", "-i", "pipe:0",
		"-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-b:v", "60k", "-maxrate", "60k", "-bufsize", "30k", "-pix_fmt", "yuv420p", "-f", "h264", "pipe:1")
	cmd.Stdin = &raw
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ffmpeg encoding: %v", err)
	}
	pics := videotest.DecodeGray(t, [][]byte{out})
	if len(pics) != n {
		t.Fatalf("decoded %d pictures, want %d", len(pics), n)
	}
	for i, p := range pics {
		burned := at.Add(time.Duration(i) * 66 * time.Millisecond)
		if got, ok := Read(p, burned.Add(time.Second)); !ok || !got.Equal(burned) {
			t.Fatalf("picture %d: read %v %v, burned %v", i, got, ok, burned)
		}
	}
}
