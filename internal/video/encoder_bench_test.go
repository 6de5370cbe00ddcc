package video

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// BenchmarkEncoderDelay: how long a picture spends in our encoder (from Write to its access
// unit), in picture intervals at 15 fps, the simulator's rate: ffmpeg holds one back (its
// demuxer and decoder), never more.
func BenchmarkEncoderDelay(b *testing.B) {
	ff, err := exec.LookPath("ffmpeg")
	if err != nil {
		b.Fatal(ErrNoFFmpeg)
	}
	const interval = time.Second / 15
	pictures := make([][]byte, 30)
	for i := range pictures {
		img := image.NewRGBA(image.Rect(0, 0, 640, 480))
		for y := 0; y < 480; y++ {
			for x := 0; x < 640; x++ {
				img.Set(x, y, color.RGBA{uint8(x + i*3), uint8(y), uint8(x ^ y), 255})
			}
		}
		var buf bytes.Buffer
		jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80})
		pictures[i] = buf.Bytes()
	}
	var delays []time.Duration
	for b.Loop() {
		e, err := startEncoder(ff, Settings{})
		if err != nil {
			b.Fatal(err)
		}
		sent := make(chan time.Time, len(pictures))
		go func() {
			for _, p := range pictures {
				sent <- time.Now()
				if e.Write(p) != nil {
					return
				}
				time.Sleep(interval)
			}
		}()
		for range len(pictures) - 2 { // the last ones wait for pictures that never come
			if _, err := e.Next(); err != nil {
				b.Fatal(err)
			}
			delays = append(delays, time.Since(<-sent))
		}
		e.Stop()
	}
	slices.Sort(delays)
	b.ReportMetric(float64(delays[len(delays)/2])/float64(interval), "delay-p50-pictures")
	b.ReportMetric(float64(delays[len(delays)*9/10])/float64(interval), "delay-p90-pictures")
}
