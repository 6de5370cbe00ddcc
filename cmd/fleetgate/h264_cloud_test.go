//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/streampb"
)

const videoType = "Platform.Messages.foxglove_msgs.CompressedVideo"

// h264ThroughCloud watches the camera with codec=h264 on the cloud and on the agent at once:
// the cloud's viewer gets the agent's access units (the same bytes under the same numbers:
// the agent encodes once for both, and the cloud keeps its sequence), the first a keyframe,
// and ffmpeg decodes every one of them.
func h264ThroughCloud(t *testing.T, cloudURL, agentURL, cloudBearer, agentBearer, robot, camera string) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg is not installed")
	}
	local := dialW3(t, agentURL, agentBearer, robot, camera+"&codec=h264")
	defer local.CloseNow()
	seen := make(chan map[string]uint64, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		bySeq := map[string]uint64{}
		defer func() { seen <- bySeq }()
		for ctx.Err() == nil {
			_, b, err := local.Read(ctx)
			if err != nil {
				return
			}
			var env streampb.MessageStream
			if proto.Unmarshal(b, &env) == nil {
				bySeq[string(env.GetData())] = env.GetSequence()
			}
		}
	}()
	conn := dialW3(t, cloudURL, cloudBearer, robot, camera+"&codec=h264")
	defer conn.CloseNow()
	path := filepath.Join(t.TempDir(), "cloud.h264")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	const n = 30
	cloudSeq := map[string]uint64{}
	var last uint64
	for i := range n {
		env := readEnvelope(t, conn)
		var v catalogpb.CompressedVideo
		if env.GetDataType() != videoType || proto.Unmarshal(env.GetData(), &v) != nil || v.GetFormat() != "h264" {
			t.Fatalf("frame %d: %s", i, env.GetDataType())
		}
		if env.GetSequence() <= last {
			t.Fatalf("sequence %d after %d", env.GetSequence(), last)
		}
		last = env.GetSequence()
		cloudSeq[string(env.GetData())] = env.GetSequence()
		f.Write(v.GetData())
	}
	f.Close()
	cancel()
	local.CloseNow()
	bySeq := <-seen
	out, err := exec.Command("ffprobe", "-v", "error", "-f", "h264", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=nb_read_frames,width,height", "-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	var probe struct {
		Streams []struct {
			Frames        string `json:"nb_read_frames"`
			Width, Height int
		}
	}
	json.Unmarshal(out, &probe)
	if len(probe.Streams) != 1 {
		t.Fatalf("ffprobe: %s", out)
	}
	if frames, _ := strconv.Atoi(probe.Streams[0].Frames); frames != n {
		t.Fatalf("ffmpeg decoded %d of the %d access units the cloud's viewer got", frames, n)
	}
	if msgs, err := exec.Command("ffmpeg", "-v", "error", "-f", "h264", "-i", path, "-f", "null", "-").CombinedOutput(); err != nil || len(msgs) > 0 {
		t.Fatalf("ffmpeg does not decode the cloud's stream cleanly: %v %s", err, msgs)
	}
	both := 0
	for data, seq := range cloudSeq {
		if localSeq, ok := bySeq[data]; ok {
			both++
			if localSeq != seq {
				t.Fatalf("an access unit is number %d on the agent, %d through the cloud", localSeq, seq)
			}
		}
	}
	if both == 0 {
		t.Fatal("no access unit reached both viewers: the agent does not share its encoder")
	}
	t.Logf("H.264 through the cloud: %d access units decoded (%dx%d), %d seen by both viewers under the same numbers",
		n, probe.Streams[0].Width, probe.Streams[0].Height, both)
}
