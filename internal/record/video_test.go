package record

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/mcap"
	"github.com/fleetgate/fleetgate/internal/mcap/mcaptest"
	"github.com/fleetgate/fleetgate/internal/video"
	"github.com/fleetgate/fleetgate/internal/video/videotest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/foxglovepb"
)

var videoKey = fleetgate.StreamKey{Component: "camera", Name: "video", Source: fleetgate.SourceComponent}

// TestVideoRecordedAsFoxgloveCompressedVideo: H.264 frames (a real clip by Debian's ffmpeg,
// libx264) are recorded under Foxglove's own schema foxglove.CompressedVideo, which Foxglove and
// Lichtblick play as video; @mcap/core decodes the first message by the file's schema as a
// keyframe with its SPS and PPS, and ffmpeg decodes every picture of the recorded access units
// put end to end.
func TestVideoRecordedAsFoxgloveCompressedVideo(t *testing.T) {
	const pictures = 24
	units := h264Clip(t, pictures)
	rec := openRecorder(t, testConfig(t))
	raw := testRobot{&fleettest.Robot{ID: "6f1e0c1a-0000-4000-8000-000000000009", Name: "robot9",
		StreamList: []fleetgate.Stream{{Component: "camera", Name: "video", Type: videoType, Direction: fleetgate.Output, Source: fleetgate.SourceComponent}}}}
	robot := rec.Wrap(raw)
	r := start(t, robot, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{videoKey}})
	for i, au := range units {
		payload, err := proto.Marshal(&catalogpb.CompressedVideo{Timestamp: &catalogpb.Time{Sec: int32(1_800_000_000 + i), Nanosec: 5e8},
			FrameId: "camera", Data: au, Format: "h264"})
		if err != nil {
			t.Fatal(err)
		}
		emitWritten(t, robot, raw, r.ID, videoKey, videoType, payload)
	}
	if _, err := robot.StopRecording(bg, r.ID); err != nil {
		t.Fatal(err)
	}
	path := rec.path(r.ID)

	report := mcaptest.Indexed(t, path)
	if len(report.Schemas) != 1 || report.Schemas[0].Name != "foxglove.CompressedVideo" || report.Schemas[0].Encoding != mcap.EncodingProtobuf {
		t.Fatalf("schemas %+v, want one foxglove.CompressedVideo (protobuf)", report.Schemas)
	}
	ch := report.Topic("/camera/video")
	if ch == nil || ch.Count != pictures || ch.MessageEncoding != mcap.EncodingProtobuf || ch.Metadata["type"] != videoType {
		t.Fatalf("channel %+v", ch)
	}
	first := ch.First
	data, err := base64.StdEncoding.DecodeString(fmt.Sprint(first["data"]))
	if err != nil || first["format"] != "h264" || first["frame_id"] != "camera" {
		t.Fatalf("@mcap/core decodes the first message with format %v, frame %v, %d bytes (%v)", first["format"], first["frame_id"], len(data), err)
	}
	if stamp, _ := first["timestamp"].(map[string]any); fmt.Sprint(stamp["seconds"]) != "1800000000" || stamp["nanos"] != float64(5e8) {
		t.Errorf("the first message's timestamp reads %v under Foxglove's schema", first["timestamp"])
	}
	if !video.IsKeyframe(data) {
		t.Errorf("the first message holds NAL units %v, want a keyframe (IDR 5) with its SPS 7 and PPS 8", video.NALTypes(data))
	}
	if got := decodedPictures(t, recordedStream(t, path)); got != pictures {
		t.Fatalf("ffmpeg decodes %d pictures of the recording, %d were recorded", got, pictures)
	}
}

// recordedStream is every access unit of a recording, read back by Foxglove's message type
// and put end to end: one H.264 stream.
func recordedStream(t *testing.T, path string) []byte {
	t.Helper()
	var stream bytes.Buffer
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	err = mcap.ReadMessages(f, st.Size(), func(_ mcap.Channel, m mcap.Message) error {
		var v foxglovepb.CompressedVideo
		if err := proto.Unmarshal(m.Data, &v); err != nil {
			return err
		}
		stream.Write(v.Data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return stream.Bytes()
}

// h264Clip encodes n testsrc pictures with libx264 (a keyframe every 8, SPS and PPS in front of
// each) and cuts the stream into access units at their delimiters, as the gateway sends them.
func h264Clip(t *testing.T, n int) [][]byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "clip.h264")
	cmd := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=15",
		"-frames:v", fmt.Sprint(n), "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-pix_fmt", "yuv420p",
		"-g", "8", "-x264-params", "repeat-headers=1", "-bsf:v", "h264_metadata=aud=insert", "-f", "h264", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var starts []int
	for i := 0; i+3 < len(b); i++ {
		if b[i] == 0 && b[i+1] == 0 && b[i+2] == 1 && b[i+3]&0x1f == 9 { // an access unit delimiter
			starts = append(starts, i)
		}
	}
	units := make([][]byte, len(starts))
	for i, s := range starts {
		end := len(b)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		units[i] = b[s:end]
	}
	if len(units) != n {
		t.Fatalf("the clip has %d access units, want %d", len(units), n)
	}
	return units
}

// decodedPictures is how many pictures ffmpeg decodes of an Annex B stream; a decode error fails.
func decodedPictures(t *testing.T, stream []byte) int {
	t.Helper()
	return videotest.ProbeUnits(t, [][]byte{stream}).Frames
}

// TestCameraRecordedAsH264: a recording of a JPEG camera asks the gateway's encoder for H.264
// as a viewer does (Config.Video, the real encoders and Debian's ffmpeg), and its file holds
// foxglove.CompressedVideo frames from a keyframe on, every one of which ffmpeg decodes; with a
// rate cap the camera stays JPEG.
func TestCameraRecordedAsH264(t *testing.T) {
	cfg := testConfig(t)
	cfg.Video = video.New()
	if !cfg.Video.CanEncode() {
		t.Fatal("ffmpeg is not installed")
	}
	rec := openRecorder(t, cfg)
	raw := newTestRobot("robot8")
	robot := rec.Wrap(raw)
	streamPictures(t, raw)

	r := start(t, robot, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{imageKey}})
	waitFor(t, "15 frames recorded", func() bool { return recording(t, robot, r.ID).Messages >= 15 })
	done, err := robot.StopRecording(bg, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if done.Streams[0].Type != videoType {
		t.Errorf("the recording lists its camera as %s, want %s", done.Streams[0].Type, videoType)
	}
	path := rec.path(r.ID)
	report := mcaptest.Indexed(t, path)
	ch := report.Topic("/camera/image")
	if len(report.Schemas) != 1 || report.Schemas[0].Name != "foxglove.CompressedVideo" || ch == nil || ch.Metadata["type"] != videoType {
		t.Fatalf("schemas %+v, a channel /camera/image: %v", report.Schemas, ch != nil && ch.Metadata["type"] == videoType)
	}
	first, _ := base64.StdEncoding.DecodeString(fmt.Sprint(ch.First["data"]))
	if !video.IsKeyframe(first) || ch.First["format"] != "h264" {
		t.Fatalf("the first frame (%v) holds NAL units %v, want a keyframe", ch.First["format"], video.NALTypes(first))
	}
	stream := recordedStream(t, path)
	if got := decodedPictures(t, stream); got != ch.Count {
		t.Fatalf("ffmpeg decodes %d pictures of the %d recorded", got, ch.Count)
	}

	capped := start(t, robot, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{imageKey}, MaxRate: 5})
	waitFor(t, "a capped frame recorded", func() bool { return recording(t, robot, capped.ID).Messages >= 1 })
	if _, err := robot.StopRecording(bg, capped.ID); err != nil {
		t.Fatal(err)
	}
	for _, sc := range summaryOf(t, rec.path(capped.ID)).Schemas {
		if sc.Name != typeImage {
			t.Fatalf("a capped recording has schema %s, want the JPEG CompressedImage", sc.Name)
		}
	}
}

// streamPictures has raw's camera show a JPEG picture (a gradient that moves) every 20 ms
// until the test ends.
func streamPictures(t *testing.T, raw testRobot) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		img := image.NewRGBA(image.Rect(0, 0, 160, 120))
		for n := 0; ; n++ {
			for y := range 120 {
				for x := range 160 {
					img.Set(x, y, color.RGBA{uint8(x + n), uint8(y + 2*n), uint8(x ^ y), 255})
				}
			}
			var b bytes.Buffer
			if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 85}); err != nil {
				panic(err)
			}
			p, _ := proto.Marshal(&catalogpb.CompressedImage{Header: &catalogpb.Header{FrameId: "camera"}, Format: "jpeg", Data: b.Bytes()})
			raw.Emit(imageKey, typeImage, p)
			select {
			case <-tick.C:
			case <-ctx.Done():
				return
			}
		}
	}()
}

// TestVideoDropsSkipToAKeyframe: while the disk does not move, the recorder drops H.264
// frames; the frames after a drop wait for the next keyframe (a P-frame without its reference
// is no picture), so every gap in the file ends at a keyframe and ffmpeg decodes all of it.
func TestVideoDropsSkipToAKeyframe(t *testing.T) {
	const pictures = 40
	units := h264Clip(t, pictures) // a keyframe every 8
	cfg := testConfig(t)
	cfg.QueueBytes = 2 << 10
	g := &gate{open: make(chan struct{})}
	cfg.create = func(path string) (file, error) {
		f, err := createFile(path)
		if err != nil {
			return nil, err
		}
		return &gatedFile{File: f.(*os.File), gate: g}, nil
	}
	rec := openRecorder(t, cfg)
	opened := false
	t.Cleanup(func() { // before the recorder closes: its writer waits on the gate
		if !opened {
			close(g.open)
		}
	})
	raw := testRobot{&fleettest.Robot{ID: "6f1e0c1a-0000-4000-8000-000000000009", Name: "robot9",
		StreamList: []fleetgate.Stream{{Component: "camera", Name: "video", Type: videoType, Direction: fleetgate.Output, Source: fleetgate.SourceComponent}}}}
	robot := rec.Wrap(raw)
	r := start(t, robot, fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{videoKey}})
	frame := func(i int) []byte {
		p, _ := proto.Marshal(&catalogpb.CompressedVideo{FrameId: "camera", Data: units[i], Format: "h264"})
		return p
	}
	emitWritten(t, robot, raw, r.ID, videoKey, videoType, frame(0))
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	for i := 1; i < 30; i++ {
		raw.Emit(videoKey, videoType, frame(i))
	}
	waitFor(t, "the recorder to learn of 30 frames and drop some", func() bool {
		return received(rec, r.ID) == 30 && recording(t, robot, r.ID).Dropped > 0
	})
	close(g.open)
	opened = true
	for i := 30; i < pictures; i++ {
		raw.Emit(videoKey, videoType, frame(i))
	}
	waitFor(t, "every frame written or dropped", func() bool {
		rec := recording(t, robot, r.ID)
		return rec.Messages+rec.Dropped == pictures
	})
	done, err := robot.StopRecording(bg, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if done.Dropped == 0 || done.Messages+done.Dropped != pictures {
		t.Fatalf("%d frames written and %d dropped of %d", done.Messages, done.Dropped, pictures)
	}
	f, err := os.Open(rec.path(r.ID))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	prev := uint32(0)
	err = mcap.ReadMessages(f, st.Size(), func(_ mcap.Channel, m mcap.Message) error {
		var v catalogpb.CompressedVideo
		if err := proto.Unmarshal(m.Data, &v); err != nil {
			return err
		}
		if m.Sequence != prev+1 && !video.IsKeyframe(v.Data) {
			return fmt.Errorf("frame %d follows frame %d: a P-frame after a gap", m.Sequence, prev)
		}
		prev = m.Sequence
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := decodedPictures(t, recordedStream(t, rec.path(r.ID))); int64(got) != done.Messages {
		t.Fatalf("ffmpeg decodes %d pictures of the %d written", got, done.Messages)
	}
}
