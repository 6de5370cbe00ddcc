package views

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"

	"github.com/fleetgate/fleetgate/internal/fleet"
)

func render(t *testing.T, c templ.Component) string {
	t.Helper()
	var b bytes.Buffer
	if err := c.Render(templ.WithNonce(context.Background(), "n0nce"), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestStreamsLiveViewOnlyOnTheLocalGateway(t *testing.T) {
	cam := fleet.Stream{Component: "front", Name: "image", Type: "Platform.Messages.sensor_msgs.CompressedImage", Direction: fleet.Output, Source: 1}
	v := StreamsView{Nav: Nav{Title: "s"}, Header: RobotHeader{ID: "r1", Name: "bot"}, Groups: GroupStreams([]fleet.Stream{cam}), Selected: &cam}

	v.LiveHere = true
	local := render(t, Streams(v))
	for _, want := range []string{`data-widget="camera"`, `data-robot-id="r1"`, `data-component="front"`, `data-stream="image"`, `nonce="n0nce"`} {
		if !strings.Contains(local, want) {
			t.Errorf("local gateway page lacks %s", want)
		}
	}
	v.LiveHere = false
	cloud := render(t, Streams(v))
	if strings.Contains(cloud, "data-widget") || !strings.Contains(cloud, "served by the robot's local gateway") {
		t.Errorf("cloud page: want the plain-words note instead of a widget:\n%s", cloud)
	}
}

func TestMetricViews(t *testing.T) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		read MetricRead
		want MetricView
	}{
		{"ram", MetricRead{Type: 2, Metric: fleet.Metric{Value: fleet.Usage{Used: 512 << 20, Limit: 2 << 30}}},
			MetricView{Title: "Memory", Kind: "usage", Used: 512 << 20, Limit: 2 << 30, Percent: 25, UsedText: "512.0 MiB", LimitText: "2.0 GiB"}},
		{"battery", MetricRead{Type: 4, Metric: fleet.Metric{Value: 42.4}}, MetricView{Title: "Battery", Kind: "battery", Percent: 42.4, Text: "42 %"}},
		{"licence", MetricRead{Type: 8, Metric: fleet.Metric{Value: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)}},
			MetricView{Title: "Licence", Kind: "license", Text: "expired on 1 April 2026"}},
		{"config", MetricRead{Type: 17, Metric: fleet.Metric{Value: fleet.ConfigInfo{Name: "warehouse", Version: "3", State: "Ready"}}},
			MetricView{Title: "Configuration", Kind: "text", Text: "warehouse version 3: Ready"}},
		{"offline", MetricRead{Type: 1, Err: "robot offline"}, MetricView{Title: "CPU", Kind: "text", Error: "robot offline"}},
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
