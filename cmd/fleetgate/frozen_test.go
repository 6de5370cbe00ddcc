//go:build unix

package main

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// frozenWords is what a cloud W3 session says when its robot's agent stops answering.
const frozenWords = "the robot's gateway stopped answering; it stops the robot by itself"

// TestCloudLiveFrozenAgent: the agent process is stopped (SIGSTOP: its sockets stay open,
// nothing is read or sent, as a hung machine or a cut cable without FIN) while a cloud operator
// drives one of its robots and a cloud viewer watches it. Both cloud sockets close 1011 within
// 2 s of the signal, saying the robot's gateway stopped answering (the heartbeats alone took
// 15 s, and the words were "internal error" and "shutting down"); after SIGCONT the robot
// stands still (the agent's deadman, whatever the cloud does) and the cloud serves it again.
func TestCloudLiveFrozenAgent(t *testing.T) {
	cloudDir := t.TempDir()
	cloud := startLogged(t, "cloud", nil, "serve", "--data", cloudDir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
	key := addAgent(t, cloudDir, "frozen")
	agent := startLogged(t, "agent", []string{"FLEETGATE_AGENT_KEY=" + key}, "agent", "--data", t.TempDir(), "--listen", "127.0.0.1:0",
		"--admin-token", testToken, "--sim", "2", "--cloud", cloud.URL)
	robots := localRobots(t, agent.URL, 2)
	bearer := login(t, cloud.URL, testToken)
	local := login(t, agent.URL, testToken)
	waitFor(t, 15*time.Second, "the agent's robots online on the cloud", func() bool { return robotsOnline(cloud.URL, bearer, robots, true) })
	twist := twistRobot(t, agent.URL, robots)

	viewer := dialW3(t, cloud.URL, bearer, twist, "componentName=base&streamName=odom&source=1")
	defer viewer.CloseNow()
	readEnvelope(t, viewer)
	ctl := dialW3(t, cloud.URL, bearer, twist, "componentName=base&streamName=cmd_vel&direction=input&format=json")
	defer ctl.CloseNow()
	viewerEnd, ctlEnd := make(chan closeSeen, 1), make(chan closeSeen, 1)
	go func() { viewerEnd <- readUntilClosed(viewer) }()
	go func() { ctlEnd <- readUntilClosed(ctl) }()
	var driving sync.WaitGroup
	stop := make(chan struct{})
	defer func() { close(stop); driving.Wait() }()
	driving.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if ctl.Write(context.Background(), websocket.MessageText, []byte(`{"angular":{"z":1}}`)) != nil {
				return
			}
		}
	})
	waitFor(t, 5*time.Second, "the robot turning on the cloud's commands", func() bool { return odom(t, agent.URL, local, twist).w > 0.5 })

	agent.signal(t, syscall.SIGSTOP)
	frozen := time.Now()
	resumed := false
	defer func() {
		if !resumed {
			agent.signal(t, syscall.SIGCONT) // its cleanup can stop it then
		}
	}()
	for _, s := range []struct {
		what string
		end  chan closeSeen
	}{{"the cloud viewer", viewerEnd}, {"the cloud operator's socket", ctlEnd}} {
		var c closeSeen
		select {
		case c = <-s.end:
		case <-time.After(time.Until(frozen.Add(2 * time.Second))):
			t.Fatalf("%s still open %v after SIGSTOP of the agent; want it closed within 2 s", s.what, time.Since(frozen).Round(time.Millisecond))
		}
		t.Logf("SIGSTOP of the agent: %s closed %d after %v: %q", s.what, c.code, c.at.Sub(frozen).Round(time.Millisecond), c.reason)
		if c.code != websocket.StatusInternalError || !strings.Contains(c.reason, frozenWords) {
			t.Errorf("%s closed %d %q; want 1011 saying %q", s.what, c.code, c.reason, frozenWords)
		}
	}

	agent.signal(t, syscall.SIGCONT)
	resumed = true
	took := waitFor(t, 3*time.Second, "the robot standing still after SIGCONT", func() bool {
		return math.Abs(odom(t, agent.URL, local, twist).w) < 0.01
	})
	t.Logf("SIGCONT: the robot stood still %v after the agent resumed (the agent's deadman and the cloud's release)", took.Round(time.Millisecond))
	waitFor(t, 15*time.Second, "a cloud viewer served again after the agent resumed", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		conn, _, err := websocket.Dial(ctx, w3URL(cloud.URL, twist, "componentName=base&streamName=odom&source=1"),
			&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + bearer}}})
		if err != nil {
			return false
		}
		defer conn.CloseNow()
		_, _, err = conn.Read(ctx)
		return err == nil
	})
}

// closeSeen is how a client's socket ended.
type closeSeen struct {
	code   websocket.StatusCode
	reason string
	at     time.Time
}

// readUntilClosed reads conn until it ends.
func readUntilClosed(conn *websocket.Conn) closeSeen {
	for {
		if _, _, err := conn.Read(context.Background()); err != nil {
			c := closeSeen{code: websocket.CloseStatus(err), at: time.Now()}
			var ce websocket.CloseError
			if errors.As(err, &ce) {
				c.reason = ce.Reason
			}
			return c
		}
	}
}
