package views

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/static"
)

func render(t *testing.T, c templ.Component) string {
	t.Helper()
	var b bytes.Buffer
	if err := c.Render(templ.WithNonce(context.Background(), "n0nce"), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestStreamsLiveViewWhereItIsServed(t *testing.T) {
	cam := fleetgate.Stream{Component: "front", Name: "image", Type: "Platform.Messages.sensor_msgs.CompressedImage", Direction: fleetgate.Output, Source: 1}
	drive := fleetgate.Stream{Component: "base", Name: "cmd_vel", Type: "Platform.Messages.geometry_msgs.Twist", Direction: fleetgate.Input, Source: 1}
	pose := fleetgate.Stream{Component: "base", Name: "pose", Type: "Platform.Messages.geometry_msgs.PoseStamped", Direction: fleetgate.Output, Source: 1}
	page := func(s fleetgate.Stream, live, cloud bool) string {
		v := StreamsView{Nav: Nav{Title: "s"}, Header: RobotHeader{ID: "r1", Name: "bot", FleetID: "f1"},
			Groups: GroupStreams([]fleetgate.Stream{s}), Selected: &s, LiveHere: live, ThroughCloud: cloud}
		return render(t, Streams(v))
	}
	cases := []struct {
		name           string
		stream         fleetgate.Stream
		live, cloud    bool
		want, unwanted []string
	}{
		{"local camera is live", cam, true, false,
			[]string{`data-widget="camera"`, `data-mode="live"`, `data-robot-id="r1"`, `data-fleet-id="f1"`, `data-component="front"`, `data-stream="image"`, `data-source="1"`, `nonce="n0nce"`},
			[]string{"local gateway", `data-via`}},
		{"local teleop names the input type", drive, true, false,
			[]string{`data-widget="teleop"`, `data-type="Platform.Messages.geometry_msgs.Twist"`, `data-max-linear="1"`, `data-max-angular="1.5"`}, nil},
		{"cloud camera is live through the cloud, and says so", cam, true, true,
			[]string{`data-widget="camera"`, `data-mode="live"`, `data-via="cloud"`}, []string{"local gateway"}},
		{"cloud teleop through the cloud", drive, true, true,
			[]string{`data-widget="teleop"`, `data-via="cloud"`}, nil},
		{"cloud live view off: the camera falls back to snapshots, and says why", cam, false, true,
			[]string{`data-widget="camera"`, `data-mode="snapshot"`, "served by the robot's local gateway", "--cloud-live=false"},
			[]string{`data-mode="live"`}},
		{"cloud live view off: poses from W1", pose, false, true,
			[]string{`data-widget="pose-map"`, `data-mode="snapshot"`, `data-fleet-id="f1"`}, nil},
		{"cloud live view off: teleop is only the note", drive, false, true,
			[]string{"served by the robot's local gateway"}, []string{"data-widget"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			html := page(tc.stream, tc.live, tc.cloud)
			for _, w := range tc.want {
				if !strings.Contains(html, w) {
					t.Errorf("page lacks %s", w)
				}
			}
			for _, u := range tc.unwanted {
				if strings.Contains(html, u) {
					t.Errorf("page has %s", u)
				}
			}
		})
	}
}

// The bundle is one module script, named by its content hash and carrying the nonce: the
// CSP allows no other script.
func TestPagesLoadTheHashedBundle(t *testing.T) {
	html := render(t, Bare("x", ""))
	want := `<script type="module" src="` + static.Path("dist/panel.js") + `" nonce="n0nce"></script>`
	if !strings.Contains(html, want) {
		t.Errorf("page lacks %s:\n%s", want, html)
	}
	if !strings.Contains(html, static.Path("dist/vendor.css")) {
		t.Errorf("page lacks the library stylesheet")
	}
}

func TestMetricsPageHasCharts(t *testing.T) {
	html := render(t, Metrics(MetricsView{Nav: Nav{Title: "m"}, Header: RobotHeader{ID: "r1", Name: "bot"}}))
	if !strings.Contains(html, `data-widget="metric-charts" data-robot-id="r1"`) {
		t.Errorf("metrics page lacks the charts widget:\n%s", html)
	}
}

func TestMetricViews(t *testing.T) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		read MetricRead
		want MetricView
	}{
		{"ram", MetricRead{Type: 2, Metric: fleetgate.Metric{Value: fleetgate.Usage{Used: 512 << 20, Limit: 2 << 30}}},
			MetricView{Title: "Memory", Kind: "usage", Used: 512 << 20, Limit: 2 << 30, Percent: 25, UsedText: "512.0 MiB", LimitText: "2.0 GiB"}},
		{"battery", MetricRead{Type: 4, Metric: fleetgate.Metric{Value: 42.4}}, MetricView{Title: "Battery", Kind: "battery", Percent: 42.4, Text: "42 %"}},
		{"licence", MetricRead{Type: 8, Metric: fleetgate.Metric{Value: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)}},
			MetricView{Title: "Licence", Kind: "license", Text: "expired on 1 April 2026"}},
		{"config", MetricRead{Type: 17, Metric: fleetgate.Metric{Value: fleetgate.ConfigInfo{Name: "warehouse", Version: "3", State: "Ready"}}},
			MetricView{Title: "Configuration", Kind: "text", Text: "warehouse version 3: Ready"}},
		{"offline", MetricRead{Type: 1, Err: "robot offline"}, MetricView{Title: "CPU", Kind: "text", Error: "robot offline"}},
		{"network idle, link speed unknown", MetricRead{Type: 19, Metric: fleetgate.Metric{Value: fleetgate.Usage{Used: 0, Limit: 0}}},
			MetricView{Title: "Network", Kind: "usage", UsedText: "0 B/s", LimitText: "unknown"}},
		{"network busy", MetricRead{Type: 19, Metric: fleetgate.Metric{Value: fleetgate.Usage{Used: 2048, Limit: 125 << 20}}},
			MetricView{Title: "Network", Kind: "usage", Used: 2048, Limit: 125 << 20, Percent: 100 * 2048 / float64(125<<20), UsedText: "2.0 KiB/s", LimitText: "125.0 MiB/s"}},
		{"agent running", MetricRead{Type: 30, Metric: fleetgate.Metric{Value: fleetgate.AgentOperationalState{AgentStatus: 10, Version: "1.4"}}},
			MetricView{Title: "Agent state", Kind: "text", Text: "running, version 1.4"}},
		{"agent status not named", MetricRead{Type: 30, Metric: fleetgate.Metric{Value: fleetgate.AgentOperationalState{AgentStatus: 3}}},
			MetricView{Title: "Agent state", Kind: "text", Text: "status 3 (not named by the API), version –"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ViewMetric(tc.read, now)
			if got.Title != tc.want.Title || got.Kind != tc.want.Kind || got.Text != tc.want.Text || got.Percent != tc.want.Percent ||
				got.UsedText != tc.want.UsedText || got.LimitText != tc.want.LimitText || got.Error != tc.want.Error {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestHumanSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 5 << 30: "5.0 GiB"} {
		if got := HumanSize(n); got != want {
			t.Errorf("HumanSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestPoseWords(t *testing.T) {
	cases := []struct {
		s    fleetgate.RobotStatus
		want string
	}{
		{fleetgate.RobotStatus{}, "–"},
		{fleetgate.RobotStatus{HasPose: true, Pose: fleetgate.Pose2D{X: 22.71, Y: 0.49, Yaw: 70 * math.Pi / 180}}, "x 22.7 m, y 0.5 m, 70°"},
		{fleetgate.RobotStatus{HasPose: true, Pose: fleetgate.Pose2D{X: -1, Y: 2, Yaw: -math.Pi / 2}}, "x -1.0 m, y 2.0 m, 270°"},
		{fleetgate.RobotStatus{HasPose: true, Pose: fleetgate.Pose2D{Yaw: -0.0001}}, "x 0.0 m, y 0.0 m, 0°"},
	}
	for _, tc := range cases {
		if got := PoseWords(tc.s); got != tc.want {
			t.Errorf("PoseWords(%+v) = %q, want %q", tc.s.Pose, got, tc.want)
		}
	}
}

func TestValueSummaryCutsBigValues(t *testing.T) {
	big := `{"header":{"frameId":"lidar"},"data":"` + strings.Repeat("QUJD", 500000) + `","fields":[` + strings.Repeat(`1,`, 99) + `1],"x":0.30000000000000004}`
	got := ValueSummary([]byte(big))
	if len(got) > 4096 {
		t.Fatalf("summary is %d bytes", len(got))
	}
	for _, want := range []string{`"frameId": "lidar"`, "(1.9 MiB in all)", "68 more elements (100 in all)", "0.30000000000000004"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	small := `{"data":"abc","n":[1,2]}`
	if got := ValueSummary([]byte(small)); !strings.Contains(got, `"abc"`) || !strings.Contains(got, "2\n") {
		t.Errorf("small value changed: %s", got)
	}
}

// TestEventRowOfADeletedRecording: an entry whose recording retention deleted says so in
// place of the link, and keeps the recording's id.
func TestEventRowOfADeletedRecording(t *testing.T) {
	row := func(gone string) fleetgate.EventRow {
		return fleetgate.EventRow{Event: fleetgate.Event{RobotID: "r1", Message: "pallet dropped", RecordingID: "rec-1"}, RobotName: "one", RecordingGone: gone}
	}
	page := render(t, AllEvents(Nav{}, EventHistoryView{Rows: []fleetgate.EventRow{row("deleted by retention")}, AllRobots: true}))
	if !strings.Contains(page, `title="rec-1">deleted by retention<`) || strings.Contains(page, "/recordings/rec-1") {
		t.Errorf("a deleted recording's entry: %s", page)
	}
	page = render(t, AllEvents(Nav{}, EventHistoryView{Rows: []fleetgate.EventRow{row("")}, AllRobots: true}))
	if !strings.Contains(page, `/robots/r1/recordings/rec-1?t=`) || strings.Contains(page, "deleted by retention") {
		t.Errorf("a kept recording's entry: %s", page)
	}
}

// An event-log entry of a recording opens the recording's player at the entry's time.
func TestEventOfARecordingOpensThePlayerAtItsTime(t *testing.T) {
	at := time.Date(2026, 11, 28, 1, 57, 18, 86_000_000, time.FixedZone("CET", 3600))
	row := fleetgate.EventRow{Event: fleetgate.Event{RobotID: "r1", RecordingID: "rec1", CreatedAt: at, Message: "pallet dropped"}}
	html := render(t, EventHistory(EventHistoryView{Rows: []fleetgate.EventRow{row}}))
	if want := `href="/robots/r1/recordings/rec1?t=2026-11-28T00:57:18.086Z"`; !strings.Contains(html, want) {
		t.Errorf("the entry's recording link: want %s in\n%s", want, html)
	}
}
