package record

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/mcap"
	"github.com/fleetgate/fleetgate/internal/mcap/mcaptest"
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
	if types := nalTypes(data); !containsAll(types, 7, 8, 5) {
		t.Errorf("the first message holds NAL units %v, want a keyframe (IDR 5) with its SPS 7 and PPS 8", types)
	}

	// Every access unit, read back by Foxglove's message type, end to end: one H.264 stream.
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
	if got := decodedPictures(t, stream.Bytes()); got != pictures {
		t.Fatalf("ffmpeg decodes %d pictures of the recording, %d were recorded", got, pictures)
	}
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

// nalTypes lists the NAL unit types of an Annex B buffer.
func nalTypes(b []byte) []int {
	var types []int
	for i := 0; i+3 < len(b); i++ {
		if b[i] == 0 && b[i+1] == 0 && b[i+2] == 1 {
			types = append(types, int(b[i+3]&0x1f))
		}
	}
	return types
}

func containsAll(have []int, want ...int) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			return false
		}
	}
	return true
}

// decodedPictures is how many pictures ffmpeg decodes of an Annex B stream; a decode error fails.
func decodedPictures(t *testing.T, stream []byte) int {
	t.Helper()
	in := filepath.Join(t.TempDir(), "recorded.h264")
	if err := os.WriteFile(in, stream, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("ffprobe", "-v", "error", "-f", "h264", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("ffprobe: %v: %s", err, stderr.String())
	}
	var n int
	fmt.Sscan(strings.TrimSpace(string(out)), &n)
	return n
}
