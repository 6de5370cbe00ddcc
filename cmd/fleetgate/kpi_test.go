package main

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestKPISocketsEndToEnd is the KPI socket issue's "done when", with the real binaries: a
// cloud (fleetgate serve) and an agent with two simulated robots linked to it. A small Go
// client, as websocat would, receives one frame a second with every simulated robot's pose,
// battery and activity: on the local gateway at local-fleet (W2), and on the cloud at the
// robots' fleet id found with GET /fleets (W1).
func TestKPISocketsEndToEnd(t *testing.T) {
	cloudDir := t.TempDir()
	cloud := start(t, nil, "serve", "--data", cloudDir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
	key := kpiAgentKey(t, cloudDir, "kpi-agent")
	agent := start(t, []string{"FLEETGATE_AGENT_KEY=" + key}, "agent", "--data", t.TempDir(), "--listen", "127.0.0.1:0",
		"--admin-token", testToken, "--sim", "2", "--cloud", cloud.URL)

	type fleetList struct {
		Fleets []struct {
			ID         string `json:"id"`
			Name       string `json:"name"`
			RobotCount int    `json:"robotCount"`
		} `json:"fleets"`
	}
	localBearer := login(t, agent.URL, testToken)
	var local fleetList
	if s := api(t, "GET", agent.URL+"/apigateway/v2/fleets", localBearer, &local); s != 200 ||
		len(local.Fleets) != 1 || local.Fleets[0].ID != "local-fleet" || local.Fleets[0].RobotCount != 2 {
		t.Fatalf("local GET /fleets: %d %+v, want local-fleet with 2 robots", s, local)
	}
	var robots struct {
		RobotDataList []struct{ BasicData struct{ ID string } }
	}
	if s := api(t, "GET", agent.URL+"/apigateway/v2/robots", localBearer, &robots); s != 200 || len(robots.RobotDataList) != 2 {
		t.Fatalf("local robots: %d %+v", s, robots)
	}
	var ids []string
	for _, r := range robots.RobotDataList {
		ids = append(ids, r.BasicData.ID)
	}

	t.Run("W2 on the local gateway", func(t *testing.T) {
		// A browser's way: the token in the query, with its "bearer " prefix.
		url := kpiSocketURL(agent.URL, "local-fleet") + "?access_token=bearer%20" + localBearer
		receiveSimKPIs(t, url, nil, ids)
		kpiRefused(t, kpiSocketURL(agent.URL, "default"), localBearer, http.StatusNotFound)
	})

	t.Run("W1 on the cloud", func(t *testing.T) {
		bearer := login(t, cloud.URL, testToken)
		var fleetID string
		deadline := time.Now().Add(20 * time.Second)
		for fleetID == "" {
			var cl fleetList
			if api(t, "GET", cloud.URL+"/apigateway/v2/fleets", bearer, &cl) == 200 {
				for _, f := range cl.Fleets {
					if f.RobotCount == 2 {
						fleetID = f.ID
					}
				}
			}
			if fleetID == "" && time.Now().After(deadline) {
				t.Fatalf("the cloud lists no fleet with the agent's 2 robots: %+v", cl)
			}
			time.Sleep(100 * time.Millisecond)
		}
		receiveSimKPIs(t, kpiSocketURL(cloud.URL, fleetID), http.Header{"Authorization": {"bearer " + bearer}}, ids)
		kpiRefused(t, kpiSocketURL(cloud.URL, "local-fleet"), bearer, http.StatusNotFound)
	})
}

var kpiAgentKeyLine = regexp.MustCompile(`(?m)^agent key \(shown once\): (fga_\S+)$`)

// kpiAgentKey provisions an agent on a cloud data directory and returns its key.
func kpiAgentKey(t *testing.T, dataDir, name string) string {
	t.Helper()
	stdout, stderr, code := runCLI(t, nil, "agents", "add", "--data", dataDir, "--name", name)
	m := kpiAgentKeyLine.FindStringSubmatch(stdout)
	if code != 0 || m == nil {
		t.Fatalf("agents add %s: %d %q %q", name, code, stdout, stderr)
	}
	return m[1]
}

func kpiSocketURL(base, fleetID string) string {
	return "ws" + strings.TrimPrefix(base, "http") + "/apigateway/v2/fleets/" + fleetID + "/custom-kpis"
}

func kpiRefused(t *testing.T, url, bearer string, status int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + bearer}}})
	if err == nil {
		conn.CloseNow()
		t.Fatalf("%s: upgraded, want %d", url, status)
	}
	if resp == nil || resp.StatusCode != status {
		t.Fatalf("%s: %v %v, want %d", url, resp, err, status)
	}
}

// receiveSimKPIs reads four frames and checks that each carries pose, battery and activity of
// every robot of ids, with native JSON values, and that they come about a second apart.
func receiveSimKPIs(t *testing.T, url string, header http.Header, ids []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: header})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	// The first frame may be short while the cloud hears of the robots; wait for a full one.
	var got []time.Time
	for len(got) < 4 {
		typ, b, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("reading frames: %v", err)
		}
		at := time.Now()
		if typ != websocket.MessageText {
			t.Fatalf("a frame of type %v, want text", typ)
		}
		if problems := simFrameProblems(b, ids); len(problems) > 0 {
			if len(got) > 0 {
				t.Fatalf("frame %d: %s\n%s", len(got), strings.Join(problems, "; "), b)
			}
			continue
		}
		got = append(got, at)
	}
	// Ticks a second apart, each frame out within its tick's 500 ms read deadline: gaps in
	// [0.5 s, 1.5 s], with room for a loaded machine.
	for i := 1; i < len(got); i++ {
		if gap := got[i].Sub(got[i-1]); gap < 300*time.Millisecond || gap > 1800*time.Millisecond {
			t.Errorf("frames %v apart, want one a second", gap)
		}
	}
	conn.Close(websocket.StatusNormalClosure, "")
	t.Logf("%s: 4 frames with pose, battery and activity of %d robots, %v apart on average",
		url[:strings.Index(url, "/apigateway")], len(ids), (got[3].Sub(got[0]) / 3).Round(time.Millisecond))
}

// simFrameProblems checks a frame against the contract and the simulator's KPIs.
func simFrameProblems(frame []byte, ids []string) []string {
	var f struct {
		Updates []struct {
			BasicData struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"basicData"`
			UpdateTime string `json:"updateTime"`
			Metric     struct {
				Name     string `json:"name"`
				DataType string `json:"dataType"`
				Value    any    `json:"value"`
			} `json:"metric"`
		} `json:"updates"`
	}
	if err := json.Unmarshal(frame, &f); err != nil {
		return []string{err.Error()}
	}
	var problems []string
	seen := map[string][]string{}
	for _, u := range f.Updates {
		seen[u.BasicData.ID] = append(seen[u.BasicData.ID], u.Metric.Name)
		if at, err := time.Parse(time.RFC3339Nano, u.UpdateTime); err != nil || !strings.HasSuffix(u.UpdateTime, "Z") || time.Since(at) > time.Minute {
			problems = append(problems, "updateTime "+u.UpdateTime)
		}
		if u.BasicData.Name == "" {
			problems = append(problems, "robot without a name")
		}
		switch v := u.Metric.Value.(type) {
		case map[string]any:
			pos, _ := v["position"].(map[string]any)
			ori, _ := v["orientation"].(map[string]any)
			if u.Metric.Name != "pose" || u.Metric.DataType != "Platform.Messages.geometry_msgs.Pose" || len(pos) != 3 || len(ori) != 4 {
				problems = append(problems, "pose "+u.Metric.DataType)
			}
		case float64:
			if u.Metric.Name != "battery" || v < 0 || v > 100 {
				problems = append(problems, "battery")
			}
		case string:
			if u.Metric.Name != "activity" || v == "" {
				problems = append(problems, "activity")
			}
		default:
			problems = append(problems, "value of "+u.Metric.Name)
		}
	}
	for _, id := range ids {
		if names := seen[id]; !slices.Equal(names, []string{"pose", "battery", "activity"}) {
			problems = append(problems, "robot "+id+" has "+strings.Join(names, ","))
		}
	}
	if len(seen) != len(ids) {
		problems = append(problems, "other robots in the frame")
	}
	return problems
}
