//go:build unix

package main

import (
	"context"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/internal/video/videotest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/streampb"
)

const videoType = "Platform.Messages.foxglove_msgs.CompressedVideo"

// h264ThroughCloud watches the camera with codec=h264 on the cloud and on the agent at once:
// the cloud's viewer gets the agent's access units (the same bytes under the same numbers:
// the agent encodes once for both, and the cloud keeps its sequence), the first a keyframe,
// and ffmpeg decodes every one of them.
func h264ThroughCloud(t *testing.T, cloudURL, agentURL, cloudBearer, agentBearer, robot, camera string) {
	videotest.NeedFFmpeg(t)
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
	const n = 30
	var units [][]byte
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
		units = append(units, v.GetData())
	}
	cancel()
	local.CloseNow()
	bySeq := <-seen
	st := videotest.ProbeUnits(t, units)
	if st.Frames != n {
		t.Fatalf("ffmpeg decoded %v of the %d access units the cloud's viewer got", st, n)
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
	t.Logf("H.264 through the cloud: %v, %d seen by both viewers under the same numbers", st, both)
}
