package server_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/live"
	"github.com/fleetgate/fleetgate/internal/logtest"
	"github.com/fleetgate/fleetgate/server"
	"github.com/fleetgate/fleetgate/server/servertest"
	"github.com/fleetgate/fleetgate/server/uplink"
)

// agentSecret is what a robot source's internal error says on the agent: an address and a
// password, as a driver's error text can.
const agentSecret = "dial tcp 10.0.0.7:5432: password=hunter2"

// leakyRobot is a robot source whose calls fail with an internal error (not a domain error)
// carrying agentSecret.
type leakyRobot struct{ *fleettest.Robot }

func (leakyRobot) Streams(context.Context) ([]fleetgate.Stream, error) {
	return nil, errors.New(agentSecret)
}

func (leakyRobot) Metric(context.Context, fleetgate.MetricType, string) (fleetgate.Metric, error) {
	return fleetgate.Metric{}, errors.New(agentSecret)
}

// TestAgentInternalErrorsStayOnTheAgent: a robot source behind the agent link fails with an
// internal error whose text holds a secret. The cloud's caller is told only that it failed (a
// REST problem, a W3 close reason) and never the text, which is in the agent's log: the link
// carries an error's public message, never its text.
func TestAgentInternalErrorsStayOnTheAgent(t *testing.T) {
	cloud := servertest.MustOpen(t)
	ctx := context.Background()
	key, err := server.DemoAgentKey(ctx, cloud.Gateway(), filepath.Join(t.TempDir(), "agent-key"), "dock")
	if err != nil {
		t.Fatal(err)
	}
	agentLog := &logtest.Buffer{}
	reg := fleet.NewRegistry(nil, slog.New(slog.DiscardHandler), nil)
	reg.Add(ctx, leakyRobot{&fleettest.Robot{ID: "6a0f3e52-8d1c-4c57-9a43-3b0e0f1d2c11", Name: "leaky",
		MetricList: []fleetgate.Metric{{Type: fleetgate.MetricCustom, Name: "battery", Value: 87.5}}}}, "local-fleet")
	a, err := uplink.New(uplink.Config{CloudURL: cloud.URL, Key: key, Version: "test", Core: leakyAgentCore{reg},
		Logger: slog.New(slog.NewTextHandler(agentLog, nil)), MaxBackoff: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { a.Run(runCtx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	bearer := cloud.Login(servertest.AdminToken)
	robotID := waitOnline(t, cloud, bearer, "leaky")

	for _, path := range []string{"/streams", "/metric/100?metricName=battery"} {
		resp := cloud.Do(http.MethodGet, "/apigateway/v2/robots/"+robotID+path, bearer, "")
		if resp.Status < 500 || strings.Contains(string(resp.Body), "hunter2") || strings.Contains(string(resp.Body), "10.0.0.7") {
			t.Errorf("GET %s: %d %s; want a server error that does not tell the agent's error text", path, resp.Status, resp.Body)
		}
	}

	wsCtx, wsCancel := context.WithTimeout(ctx, 10*time.Second)
	defer wsCancel()
	conn, _, err := w3(wsCtx, cloud, bearer, robotID, url.Values{"componentName": {"base"}, "streamName": {"pose"}, "source": {"1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	code, reason := closedWith(wsCtx, conn)
	if code != websocket.StatusInternalError || strings.Contains(reason, "hunter2") || strings.Contains(reason, "10.0.0.7") {
		t.Errorf("W3 closed %d %q; want 1011 without the agent's error text", code, reason)
	}

	if !strings.Contains(agentLog.String(), "hunter2") {
		t.Errorf("the agent's log does not tell what failed:\n%s", agentLog)
	}
}

// waitOnline waits until the robot named name is online on s and returns its id.
func waitOnline(t *testing.T, s *servertest.Server, bearer, name string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var list struct{ RobotDataList []robotItem }
		s.Do(http.MethodGet, "/apigateway/v2/robots", bearer, "").JSON(t, &list)
		for _, r := range list.RobotDataList {
			if r.BasicData.Name == name && r.IsOnline {
				return r.BasicData.ID
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("robot %s not online on the cloud within 10 s: %+v", name, list.RobotDataList)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// leakyAgentCore is the agent's core of the test: its robots, no control, no event log.
type leakyAgentCore struct{ robots *fleet.Registry }

func (c leakyAgentCore) HostedRobots() []fleet.Robot                               { return c.robots.Robots() }
func (c leakyAgentCore) HostedRobotsChanged() <-chan struct{}                      { return c.robots.Changed() }
func (c leakyAgentCore) HostedRobot(id string) (fleet.Robot, bool)                 { return c.robots.Robot(id) }
func (leakyAgentCore) HeldControls(string) []fleetgate.Held                        { return nil }
func (leakyAgentCore) Posted() <-chan struct{}                                     { return nil }
func (leakyAgentCore) Forwarded(context.Context, []int64) error                    { return nil }
func (leakyAgentCore) Unforwarded(context.Context, int) ([]fleetgate.Event, error) { return nil, nil }
func (leakyAgentCore) OpenControlForCloud(context.Context, string, fleetgate.StreamKey, string) (live.Input, error) {
	return nil, fleetgate.Errorf(fleetgate.EUnavailable, "no teleoperation here")
}
func (leakyAgentCore) UploadFromCloud(context.Context, string, fleetgate.StreamKey, string, []byte, string) error {
	return fleetgate.Errorf(fleetgate.EUnavailable, "no uploads here")
}
