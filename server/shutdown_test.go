package server_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate/server"
	"github.com/fleetgate/fleetgate/server/servertest"
)

// TestShutdownZeroesADrivenRobot: when the local gateway stops (SIGTERM cancels Run's
// context), a robot being driven gets its zero command while its source still runs. The
// simulated robots end with the server's run context, as any robot source does; a zero sent
// after that is refused and logged, which is what this test watches for.
func TestShutdownZeroesADrivenRobot(t *testing.T) {
	agent := servertest.MustOpen(t, servertest.Agent, func(c *server.Config) { c.Sim = server.SimConfig{Count: 1, Seed: 1} })
	robots := agent.Registry().Robots()
	if len(robots) != 1 {
		t.Fatalf("%d robots, want 1", len(robots))
	}
	ctx := context.Background()
	wsURL := strings.Replace(agent.URL, "http", "ws", 1) + "/apigateway/v2/robots/" + robots[0].Info().ID +
		"/streams/connect?componentName=base&streamName=cmd_vel&direction=input&format=json&access_token=" +
		url.QueryEscape(agent.Login(servertest.AdminToken))
	conn, _, err := websocket.Dial(ctx, wsURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"linear":{"x":0.3}}`)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the command reaches the robot; the deadman is 500 ms away

	closed := make(chan error, 1) // the driver reads, so it answers the close at once
	go func() { _, _, err := conn.Read(ctx); closed <- err }()
	if err := agent.Stop(); err != nil { // what SIGTERM does
		t.Fatalf("run: %v", err)
	}
	if err := <-closed; websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Errorf("the driver's socket ended with %v, want 1001", err)
	}
	if logs := agent.Logs(); strings.Contains(logs, "did not reach the robot") {
		t.Errorf("the shutdown's zero command did not reach the robot:\n%s", logs)
	}
}
