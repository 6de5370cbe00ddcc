package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/streampb"
)

// TestLiveStreamWorkflow is the W3 issue's "done when", with the real binary and a small Go
// client: watch the camera at its source rate, drive the robot with Twist frames, see it
// stop after going silent, and be refused with 409 as a second controller.
func TestLiveStreamWorkflow(t *testing.T) {
	dir := t.TempDir()
	p := start(t, nil, "agent", "--data", dir, "--listen", "127.0.0.1:0", "--admin-token", testToken, "--sim", "1")
	bearer := login(t, p.URL, testToken)
	var list struct {
		RobotDataList []struct{ BasicData struct{ ID string } }
	}
	if s := api(t, "GET", p.URL+"/apigateway/v2/robots", bearer, &list); s != 200 || len(list.RobotDataList) != 1 {
		t.Fatalf("robots: %d %+v", s, list)
	}
	ws := "ws" + strings.TrimPrefix(p.URL, "http") + "/apigateway/v2/robots/" + list.RobotDataList[0].BasicData.ID + "/streams/connect?"
	auth := &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + bearer}}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// The camera at its source rate (15 Hz): count frames over 2 s.
	camera, _, err := websocket.Dial(ctx, ws+"componentName=camera&streamName=image", auth)
	if err != nil {
		t.Fatal(err)
	}
	camera.SetReadLimit(8 << 20)
	frames, start := 0, time.Now()
	for time.Since(start) < 2*time.Second {
		_, b, err := camera.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var env streampb.MessageStream
		if proto.Unmarshal(b, &env) != nil || env.DataType != "Platform.Messages.sensor_msgs.CompressedImage" || env.Compression != streampb.Compression_COMPRESSION_NONE {
			t.Fatalf("camera frame: %+v", &env)
		}
		frames++
	}
	camera.Close(websocket.StatusNormalClosure, "")
	if rate := float64(frames) / 2; rate < 10 || rate > 17 {
		t.Errorf("camera at %.1f frames/s, want about 15", rate)
	}

	// Watch the pose while driving.
	poses, _, err := websocket.Dial(ctx, ws+"componentName=base&streamName=pose&format=json", auth)
	if err != nil {
		t.Fatal(err)
	}
	defer poses.CloseNow()
	type sample struct {
		at   time.Time
		x, y float64 // position
		z, w float64 // yaw quaternion
	}
	track := make(chan sample, 1024)
	go func() {
		defer close(track)
		for {
			_, b, err := poses.Read(ctx)
			if err != nil {
				return
			}
			var ps catalogpb.PoseStamped
			if err := (unmarshalJSON(b, &ps)); err == nil {
				pos, q := ps.GetPose().GetPosition(), ps.GetPose().GetOrientation()
				track <- sample{time.Now(), pos.GetX(), pos.GetY(), q.GetZ(), q.GetW()}
			}
		}
	}()

	drive, _, err := websocket.Dial(ctx, ws+"componentName=base&streamName=cmd_vel&direction=input&format=json", auth)
	if err != nil {
		t.Fatal(err)
	}
	defer drive.CloseNow()
	drive.CloseRead(ctx) // its pings answered: the governor holds a controller it cannot measure
	// A second controller is refused with 409 while the first holds the stream.
	_, resp, err := websocket.Dial(ctx, ws+"componentName=base&streamName=cmd_vel&direction=input", auth)
	if err == nil || resp == nil || resp.StatusCode != http.StatusConflict {
		t.Fatalf("second controller: %v %v, want 409", resp, err)
	}

	// Turn in place at 20 Hz: a turn never runs into a wall, so the only thing that can stop
	// the robot is the gateway's deadman.
	send := func(cmd string, d time.Duration) {
		for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			if err := drive.Write(ctx, websocket.MessageText, []byte(cmd)); err != nil {
				t.Fatal(err)
			}
		}
	}
	send(`{"linear":{"x":0},"angular":{"z":0.8}}`, 1500*time.Millisecond)
	silent := time.Now()
	// Silence: the gateway's deadman zeroes the robot at 500 ms, the robot brakes (< 0.4 s).
	var last sample
	var lastMove time.Time
	for s := range track {
		if last.at.IsZero() || s.x != last.x || s.y != last.y || s.z != last.z || s.w != last.w {
			lastMove = s.at
		}
		last = s
		if s.at.Sub(silent) > 2500*time.Millisecond {
			break
		}
	}
	if lastMove.IsZero() || lastMove.Before(silent.Add(-time.Second)) {
		t.Fatalf("the robot did not move while driven (last move %v, silent at %v)", lastMove, silent)
	}
	stoppedAfter := lastMove.Sub(silent)
	// 500 ms deadman + a fraction of a second of braking; margin for a loaded machine.
	if stoppedAfter < 400*time.Millisecond || stoppedAfter > 1500*time.Millisecond {
		t.Errorf("the robot stopped moving %v after the commands stopped, want 0.5 to 0.9 s", stoppedAfter)
	}
	t.Logf("camera %d frames in 2 s; robot stopped %v after the last command", frames, stoppedAfter)
}

func unmarshalJSON(b []byte, m proto.Message) error {
	return protojson.Unmarshal(b, m)
}
