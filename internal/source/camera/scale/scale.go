// Package scale shrinks JPEG images for viewers that asked for a smaller picture than the
// camera's: decode, average each plane down (an area filter, which does not alias as
// dropping pixels would), encode. Pure functions, no I/O.
package scale

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
)

// Quality is the JPEG quality of scaled images.
const Quality = 80

// MaxPixels bounds the images it decodes: a JPEG's header may claim any size.
const MaxPixels = 8192 * 8192

// ErrUnsupported is returned for images it does not scale (colour models other than
// YCbCr and gray); the caller sends the original.
var ErrUnsupported = errors.New("image type not scaled")

// JPEG returns data scaled down to at most maxWidth pixels wide, keeping the aspect ratio.
// An image already that narrow comes back as it is (the same slice).
func JPEG(data []byte, maxWidth int) ([]byte, error) {
	if maxWidth <= 0 {
		return data, nil
	}
	return JPEGAt(data, maxWidth, Quality)
}

// JPEGAt is JPEG encoding at quality (1 to 100): a smaller picture for a short uplink.
func JPEGAt(data []byte, maxWidth, quality int) ([]byte, error) {
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if cfg.Width <= maxWidth && quality >= Quality {
		return data, nil
	}
	maxWidth = min(maxWidth, cfg.Width)
	if cfg.Width*cfg.Height > MaxPixels {
		return nil, fmt.Errorf("image %dx%d too large to scale", cfg.Width, cfg.Height)
	}
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	w := maxWidth
	h := max(1, (cfg.Height*w+cfg.Width/2)/cfg.Width)
	var out image.Image
	switch src := img.(type) {
	case *image.YCbCr:
		dst := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
		cw, ch := dst.Rect.Dx(), dst.Rect.Dy()
		cw, ch = (cw+1)/2, (ch+1)/2
		sw, sh := src.Rect.Dx(), src.Rect.Dy()
		scw, sch := chromaSize(src.SubsampleRatio, sw, sh)
		area(src.Y, src.YStride, sw, sh, dst.Y, dst.YStride, w, h)
		area(src.Cb, src.CStride, scw, sch, dst.Cb, dst.CStride, cw, ch)
		area(src.Cr, src.CStride, scw, sch, dst.Cr, dst.CStride, cw, ch)
		out = dst
	case *image.Gray:
		dst := image.NewGray(image.Rect(0, 0, w, h))
		area(src.Pix, src.Stride, src.Rect.Dx(), src.Rect.Dy(), dst.Pix, dst.Stride, w, h)
		out = dst
	default:
		return nil, ErrUnsupported
	}
	var b bytes.Buffer
	b.Grow(len(data) * w / cfg.Width)
	if err := jpeg.Encode(&b, out, &jpeg.Options{Quality: quality}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// chromaSize is the size of a YCbCr image's chroma planes.
func chromaSize(r image.YCbCrSubsampleRatio, w, h int) (int, int) {
	switch r {
	case image.YCbCrSubsampleRatio422:
		return (w + 1) / 2, h
	case image.YCbCrSubsampleRatio420:
		return (w + 1) / 2, (h + 1) / 2
	case image.YCbCrSubsampleRatio440:
		return w, (h + 1) / 2
	case image.YCbCrSubsampleRatio411:
		return (w + 3) / 4, h
	case image.YCbCrSubsampleRatio410:
		return (w + 3) / 4, (h + 1) / 2
	default:
		return w, h
	}
}

// area scales one plane (sw x sh, stride ss) down to dw x dh: each output sample is the
// mean of the source samples its box covers.
func area(src []byte, ss, sw, sh int, dst []byte, ds, dw, dh int) {
	cols := make([]int, dw+1)
	for x := range cols {
		cols[x] = x * sw / dw
	}
	sums := make([]int, dw)
	for y := range dh {
		y0, y1 := y*sh/dh, max((y+1)*sh/dh, y*sh/dh+1)
		clear(sums)
		for sy := y0; sy < y1 && sy < sh; sy++ {
			row := src[sy*ss : sy*ss+sw]
			for x := range dw {
				x0, x1 := cols[x], max(cols[x+1], cols[x]+1)
				s := 0
				for _, v := range row[x0:min(x1, sw)] {
					s += int(v)
				}
				sums[x] += s
			}
		}
		out := dst[y*ds : y*ds+dw]
		rows := min(y1, sh) - y0
		for x := range dw {
			n := rows * (min(max(cols[x+1], cols[x]+1), sw) - cols[x])
			out[x] = byte((sums[x] + n/2) / n)
		}
	}
}
