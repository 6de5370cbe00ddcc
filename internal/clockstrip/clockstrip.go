// Package clockstrip burns a picture's capture time into the picture itself, as a strip of
// black and white blocks along its bottom edge, and reads it back from a decoded picture:
// what a glass-to-glass measurement needs (the time the camera saw the scene, against the
// time a viewer shows it), whatever the codecs, scalers and relays in between did to the
// envelope's timestamps.
//
// The strip is the bottom sixteenth of the picture, cut into 32 cells across: cell 0 white and
// cell 1 black (the levels a reader thresholds against), cells 2-25 the capture time's Unix
// milliseconds modulo 2^24 (4.66 hours; a reader unwraps it against its own clock), most
// significant bit first, white for 1, cells 26-31 a 6-bit check (the XOR of the value's four
// 6-bit groups). A reader samples the middle half of each cell, so the blocks survive JPEG,
// H.264 at low rates and scaling down to 160x120 (5 pixels a cell). The JavaScript reader of
// the browser tests (jsclient/e2e/clockstrip.ts) and the test RTSP camera's writer
// (internal/source/camera/gstreamer/rtsp_server.py, --clock-strip) keep the same layout.
package clockstrip

import (
	"image"
	"time"
)

const (
	// Cells across the strip; HeightDiv is the picture's height over the strip's.
	Cells     = 32
	HeightDiv = 16
	valueBits = 24
	checkBits = 6
	firstBit  = 2 // cells 0 and 1 are the white and black references
	// Wrap is the period of the burned milliseconds.
	Wrap = 1 << valueBits * time.Millisecond
)

// check is the value's 6-bit check: any one cell read wrong changes it.
func check(v uint32) uint32 { return (v ^ v>>6 ^ v>>12 ^ v>>18) & (1<<checkBits - 1) }

// bits are the cells' values, white true: the references, the value, its check.
func bits(t time.Time) [Cells]bool {
	var b [Cells]bool
	b[0] = true
	v := uint32(t.UnixMilli()) & (1<<valueBits - 1)
	word := v<<checkBits | check(v)
	for i := range valueBits + checkBits {
		b[firstBit+i] = word>>(valueBits+checkBits-1-i)&1 == 1
	}
	return b
}

// Burn paints t's strip over the bottom of img.
func Burn(img *image.RGBA, t time.Time) {
	r := img.Bounds()
	w, h := r.Dx(), r.Dy()
	y0 := r.Max.Y - h/HeightDiv
	for i, white := range bits(t) {
		var v uint8
		if white {
			v = 255
		}
		x0, x1 := r.Min.X+i*w/Cells, r.Min.X+(i+1)*w/Cells
		for y := y0; y < r.Max.Y; y++ {
			row := img.Pix[img.PixOffset(x0, y):img.PixOffset(x1, y)]
			for j := 0; j < len(row); j += 4 {
				row[j], row[j+1], row[j+2], row[j+3] = v, v, v, 255
			}
		}
	}
}

// minContrast is the least difference between the white and the black references that says
// a strip is there at all.
const minContrast = 64

// Read reads the capture time burned into p, unwrapped to the latest time not after now
// (the reader's clock, the one the age is taken against: ages up to Wrap read right). ok is
// false where p holds no readable strip (no contrast between the references, or a failed
// check).
func Read(img image.Image, now time.Time) (t time.Time, ok bool) {
	r := img.Bounds()
	w, h := r.Dx(), r.Dy()
	if w < Cells || h < HeightDiv {
		return time.Time{}, false
	}
	cell := func(i int) int {
		// The middle half of the cell, both ways.
		x0, x1 := i*w/Cells, (i+1)*w/Cells
		y0, y1 := h-h/HeightDiv, h
		qx, qy := (x1-x0)/4, (y1-y0)/4
		x0, x1, y0, y1 = x0+qx, max(x1-qx, x0+qx+1), y0+qy, max(y1-qy, y0+qy+1)
		sum, n := 0, 0
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				sum += luma(img, r.Min.X+x, r.Min.Y+y)
				n++
			}
		}
		return sum / n
	}
	white, black := cell(0), cell(1)
	if white-black < minContrast {
		return time.Time{}, false
	}
	threshold := (white + black) / 2
	var word uint32
	for i := range valueBits + checkBits {
		word <<= 1
		if cell(firstBit+i) > threshold {
			word |= 1
		}
	}
	v := word >> checkBits
	if word&(1<<checkBits-1) != check(v) {
		return time.Time{}, false
	}
	// The latest time not after now whose milliseconds modulo 2^24 are v.
	nowMs := now.UnixMilli()
	back := (uint32(nowMs) - v) & (1<<valueBits - 1)
	return time.UnixMilli(nowMs - int64(back)), true
}

// luma is the brightness (0-255) of img's pixel at x, y: a JPEG's Y plane, a decoder's
// gray frame, or any other image's colour weighted as Rec. 601 does.
func luma(img image.Image, x, y int) int {
	switch img := img.(type) {
	case *image.YCbCr:
		return int(img.Y[img.YOffset(x, y)])
	case *image.Gray:
		return int(img.Pix[img.PixOffset(x, y)])
	}
	cr, cg, cb, _ := img.At(x, y).RGBA()
	return int((299*cr + 587*cg + 114*cb) / 1000 >> 8)
}
