package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
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
	logs := &syncBuffer{}
	cfg := server.Config{
		Mode: server.ModeAgent, Listen: "127.0.0.1:0", DataDir: t.TempDir(),
		AdminToken: servertest.AdminToken, TokenTTL: time.Hour, Version: "test",
		Logger: slog.New(slog.NewTextHandler(logs, nil)), Stdout: io.Discard,
		Sim: server.SimConfig{Count: 1, Seed: 1},
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := server.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- srv.Run(ctx) }()
	defer func() {
		cancel()
		<-ran
	}()
	base := srv.URL()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the gateway is not healthy within 10 s")
		}
	}
	resp, err := http.Post(base+"/apigateway/v2/auth/login", "application/json", strings.NewReader(`{"userToken":"`+servertest.AdminToken+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	var login struct{ Token string }
	json.NewDecoder(resp.Body).Decode(&login)
	resp.Body.Close()
	robots := srv.Registry().Robots()
	if len(robots) != 1 || login.Token == "" {
		t.Fatalf("%d robots, token %q", len(robots), login.Token)
	}
	wsURL := strings.Replace(base, "http", "ws", 1) + "/apigateway/v2/robots/" + robots[0].Info().ID +
		"/streams/connect?componentName=base&streamName=cmd_vel&direction=input&format=json&access_token=" + url.QueryEscape(login.Token)
	conn, _, err := websocket.Dial(ctx, wsURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"linear":{"x":0.3}}`)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the command reaches the robot; the deadman is 500 ms away

	cancel() // what SIGTERM does
	select {
	case err := <-ran:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the gateway did not stop within 15 s")
	}
	ran <- nil // for the deferred wait
	if _, _, err := conn.Read(context.Background()); websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Errorf("the driver's socket ended with %v, want 1001", err)
	}
	if out := logs.String(); strings.Contains(out, "did not reach the robot") {
		t.Errorf("the shutdown's zero command did not reach the robot:\n%s", out)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
