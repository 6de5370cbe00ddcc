package scale

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"testing"
)

func encode(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// halves is an image whose left half is dark and right half bright, in colour.
func halves(w, h int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{20, 40, 200, 255}
			if x >= w/2 {
				c = color.RGBA{240, 220, 30, 255}
			}
			img.Set(x, y, c)
		}
	}
	return img
}

func TestJPEGScalesDownKeepingTheAspectAndThePicture(t *testing.T) {
	tests := []struct {
		name        string
		img         image.Image
		maxWidth    int
		wantW       int
		wantH       int
		sameAsGiven bool
	}{
		{"colour 640x480 to 320", halves(640, 480), 320, 320, 240, false},
		{"colour 1280x720 to 427", halves(1280, 720), 427, 427, 240, false},
		{"gray 100x50 to 33", image.NewGray(image.Rect(0, 0, 100, 50)), 33, 33, 17, false},
		{"already narrow", halves(160, 120), 320, 160, 120, true},
		{"no limit", halves(160, 120), 0, 160, 120, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := encode(t, tt.img)
			got, err := JPEG(data, tt.maxWidth)
			if err != nil {
				t.Fatal(err)
			}
			if tt.sameAsGiven != (len(got) == len(data) && &got[0] == &data[0]) {
				t.Fatalf("returned the given image: %v, want %v", !tt.sameAsGiven, tt.sameAsGiven)
			}
			img, err := jpeg.Decode(bytes.NewReader(got))
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != tt.wantW || b.Dy() != tt.wantH {
				t.Fatalf("scaled to %dx%d, want %dx%d", b.Dx(), b.Dy(), tt.wantW, tt.wantH)
			}
			if _, ok := tt.img.(*image.RGBA); ok {
				// The halves are still there, in their colours.
				left, right := img.At(tt.wantW/4, tt.wantH/2), img.At(3*tt.wantW/4, tt.wantH/2)
				lr, _, lb, _ := left.RGBA()
				rr, _, rb, _ := right.RGBA()
				if lb>>8 < 150 || lr>>8 > 60 || rr>>8 < 200 || rb>>8 > 80 {
					t.Fatalf("colours lost: left %v right %v", left, right)
				}
			}
		})
	}
}

func TestJPEGRefusesWhatItCannotRead(t *testing.T) {
	if _, err := JPEG([]byte("not a jpeg"), 100); err == nil {
		t.Fatal("scaled garbage")
	}
}

func BenchmarkJPEG(b *testing.B) {
	data := encode(b, halves(1280, 720))
	for b.Loop() {
		if _, err := JPEG(data, 640); err != nil {
			b.Fatal(err)
		}
	}
}
