package main

import (
	"bytes"
	"encoding/json"
	"image/jpeg"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// postJSON sends a JSON body with a bearer token and returns the status and body.
func postJSON(t testing.TB, url, bearer, body string) (int, string) {
	t.Helper()
	return sendJSON(t, "POST", url, bearer, body)
}

// sendJSON makes a request with a JSON body and returns its status and body.
func sendJSON(t testing.TB, method, url, bearer, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestAgentSimulatedFleet is the live-robots issue's "done when", run as an operator would:
// `fleetgate agent --sim 3`, three online robots with streams, metrics and resources; the
// camera gives a JPEG; a Twist moves the robot; a download matches its listed size.
func TestAgentSimulatedFleet(t *testing.T) {
	dir := t.TempDir()
	p := start(t, nil, "agent", "--data", dir, "--listen", "127.0.0.1:0", "--admin-token", testToken, "--sim", "3", "--sim-seed", "7")
	v2 := p.URL + "/apigateway/v2"
	bearer := login(t, p.URL, testToken)

	var list struct {
		RobotDataList []struct {
			BasicData struct{ ID, Name string }
			IsOnline  bool
		}
	}
	if s := api(t, "GET", v2+"/robots", bearer, &list); s != 200 || len(list.RobotDataList) != 3 {
		t.Fatalf("robots: %d %+v", s, list)
	}
	for _, r := range list.RobotDataList {
		if !r.IsOnline {
			t.Errorf("robot %s is not online", r.BasicData.Name)
		}
	}
	first := list.RobotDataList[0].BasicData
	robot := v2 + "/robots/" + first.ID

	var streams struct {
		RobotStreams []struct{ ComponentName, StreamName, StreamType, Direction string }
	}
	if s := api(t, "GET", robot+"/streams", bearer, &streams); s != 200 || len(streams.RobotStreams) < 8 {
		t.Fatalf("streams: %d %+v", s, streams)
	}
	var metrics struct{ Metrics []struct{ MetricType int } }
	if s := api(t, "GET", v2+"/robots/metrics?robotId="+first.ID, bearer, &metrics); s != 200 || len(metrics.Metrics) < 8 {
		t.Fatalf("metrics: %d %+v", s, metrics)
	}

	var camera struct{ RobotStream string }
	if s := api(t, "GET", robot+"/stream?componentName=camera&streamName=image&source=1", bearer, &camera); s != 200 {
		t.Fatalf("camera read: %d", s)
	}
	var image struct {
		Format string
		Data   []byte // protojson writes bytes as base64, which encoding/json decodes
	}
	if err := json.Unmarshal([]byte(camera.RobotStream), &image); err != nil {
		t.Fatalf("camera JSON: %v", err)
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(image.Data))
	if err != nil || image.Format != "jpeg" || cfg.Width != 640 || cfg.Height != 480 {
		t.Fatalf("camera frame: format %q, %dx%d, err %v; want a 640x480 JPEG", image.Format, cfg.Width, cfg.Height, err)
	}

	type pose struct {
		Pose struct{ Position struct{ X, Y float64 } }
	}
	readPose := func() pose {
		var out struct{ RobotStream string }
		if s := api(t, "GET", robot+"/stream?componentName=base&streamName=pose", bearer, &out); s != 200 {
			t.Fatalf("pose read: %d", s)
		}
		var p pose
		json.Unmarshal([]byte(out.RobotStream), &p)
		return p
	}
	before := readPose()
	// Turn in place, then drive: a move in some direction however the robot starts.
	twist := `{"linear":{"x":0.5,"y":0,"z":0},"angular":{"x":0,"y":0,"z":0.8}}`
	body, _ := json.Marshal(map[string]any{"componentName": "base", "streamName": "cmd_vel", "source": 1,
		"dataType": "Platform.Messages.geometry_msgs.Twist", "streamJson": twist})
	moved := false
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && !moved; {
		if s, b := postJSON(t, robot+"/upload-stream", bearer, string(body)); s != 200 {
			t.Fatalf("upload Twist: %d %s", s, b)
		}
		time.Sleep(200 * time.Millisecond)
		after := readPose()
		moved = after.Pose.Position != before.Pose.Position
	}
	if !moved {
		t.Fatalf("the pose did not change after uploading a Twist: %+v", before)
	}

	var resources struct {
		Resources []struct {
			ResourceID, Name, Type string
			Size                   int64
		}
	}
	if s := api(t, "GET", robot+"/resources", bearer, &resources); s != 200 || len(resources.Resources) == 0 {
		t.Fatalf("resources: %d %+v", s, resources)
	}
	for _, res := range resources.Resources {
		var link struct{ URL string }
		if s := api(t, "GET", robot+"/resource/"+url.PathEscape(res.ResourceID)+"/download", bearer, &link); s != 200 {
			t.Fatalf("download link of %s: %d", res.Name, s)
		}
		resp, err := http.Get(link.URL)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || int64(len(data)) != res.Size {
			t.Errorf("download of %s (%s): %d, %d bytes; listed size %d", res.Name, res.Type, resp.StatusCode, len(data), res.Size)
		}
	}
}
