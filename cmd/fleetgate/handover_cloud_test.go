package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/internal/cluster/natstest"
	"github.com/fleetgate/fleetgate/internal/store/postgres/pgtest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/proto/streampb"
)

// handoverCmdVel is sim-1's input socket in one of the handover extension's modes.
const handoverCmdVel = "componentName=base&streamName=cmd_vel&source=1&direction=input&format=json&handover="

// TestHandoverThroughTheCloud: control handed over between an operator on the agent's own
// gateway and operators on the cloud, the agent's door deciding (docs/api.md, "Handing control
// over"): a cloud request granted by a local holder, a local request refused by a cloud holder,
// a cloud request withdrawn, a cloud supervisor's override of a cloud holder (told who, an
// event-log entry), and the contract's 409 for a client without the extension.
func TestHandoverThroughTheCloud(t *testing.T) {
	cloudDir := t.TempDir()
	cloud := startLogged(t, "cloud", nil, "serve", "--data", cloudDir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
	key := addAgent(t, cloudDir, "handover")
	agentDir := t.TempDir()
	agent := startLogged(t, "agent", []string{"FLEETGATE_AGENT_KEY=" + key}, "agent", "--data", agentDir, "--listen", "127.0.0.1:0",
		"--admin-token", testToken, "--sim", "1", "--cloud", cloud.URL)
	bobCloud := login(t, cloud.URL, addOrgAdminUser(t, cloudDir, "", "bob@example.com"))
	adminCloud := login(t, cloud.URL, testToken)
	adminLocal := login(t, agent.URL, testToken)
	robot := localRobots(t, agent.URL, 1)[0]
	waitFor(t, 15*time.Second, "sim-1 online on the cloud", func() bool { return robotsOnline(cloud.URL, adminCloud, []string{robot}, true) })
	commands := simCommands(t, agent.URL, adminLocal, robot)

	t.Run("a cloud operator asks a local holder, who grants", func(t *testing.T) {
		holder := dialW3(t, agent.URL, adminLocal, robot, handoverCmdVel+"answer")
		defer holder.CloseNow()
		send(t, holder, `{"linear":{"x":0.3}}`)
		commands.waitFor(t, 0.3)
		asker := dialW3(t, cloud.URL, bobCloud, robot, handoverCmdVel+"request")
		defer asker.CloseNow()
		nextHandover(t, asker, "asking")
		req := nextHandover(t, holder, "requested")
		if req.By != "bob@example.com via the cloud" || req.Since == nil || time.Since(*req.Since) > 10*time.Second {
			t.Fatalf("the holder was told %+v, want bob@example.com via the cloud, and since when", req)
		}
		send(t, holder, `{"handover":"grant"}`)
		nextHandover(t, asker, "granted")
		closedSaying(t, holder, "handed to bob@example.com via the cloud")
		// The old holder's zero went out before the new holder drove anything.
		commands.waitFor(t, 0)
		send(t, asker, `{"linear":{"x":0.2}}`)
		commands.waitFor(t, 0.2)
		asker.Close(websocket.StatusNormalClosure, "")
		waitFor(t, 10*time.Second, "the stream free again", func() bool { return controlsHeld(t, agent.URL, adminLocal, robot) == 0 })
	})

	t.Run("a local operator asks a cloud holder, who refuses", func(t *testing.T) {
		holder := dialW3(t, cloud.URL, bobCloud, robot, handoverCmdVel+"answer")
		defer holder.CloseNow()
		send(t, holder, `{"linear":{"x":0.25}}`)
		commands.waitFor(t, 0.25)
		asker := dialW3(t, agent.URL, adminLocal, robot, handoverCmdVel+"request")
		defer asker.CloseNow()
		nextHandover(t, asker, "asking")
		if req := nextHandover(t, holder, "requested"); req.By != "admin@localhost" || req.Since == nil {
			t.Fatalf("the cloud holder was told %+v, want admin@localhost and since when", req)
		}
		send(t, holder, `{"handover":"refuse"}`)
		closedSaying(t, asker, "bob@example.com via the cloud refused")

		// A request from the cloud whose asker leaves is withdrawn at the holder.
		leaving := dialW3(t, cloud.URL, adminCloud, robot, handoverCmdVel+"request")
		nextHandover(t, leaving, "asking")
		nextHandover(t, holder, "requested")
		leaving.Close(websocket.StatusNormalClosure, "")
		if n := nextHandover(t, holder, "withdrawn"); n.By != "admin@localhost via the cloud" {
			t.Fatalf("withdrawn by %q", n.By)
		}

		// The contract's 409, unchanged, for a client that does not speak the extension.
		if status, _ := refusedW3(t, cloud.URL, adminCloud, robot, strings.TrimSuffix(handoverCmdVel, "&handover=")); status != http.StatusConflict {
			t.Fatalf("a plain W3 input socket on a held stream: %d, want 409", status)
		}

		// A supervisor on the cloud takes it: the robot is zeroed first, the holder told who.
		send(t, holder, `{"linear":{"x":0.35}}`)
		commands.waitFor(t, 0.35)
		boss := dialW3(t, cloud.URL, adminCloud, robot, handoverCmdVel+"override")
		defer boss.CloseNow()
		closedSaying(t, holder, "taken by admin@localhost via the cloud (supervisor override)")
		commands.waitFor(t, 0)
		send(t, boss, `{"linear":{"x":0.15}}`)
		commands.waitFor(t, 0.15)
		boss.Close(websocket.StatusNormalClosure, "")
		waitFor(t, 10*time.Second, "the override in the agent's event log", func() bool {
			return len(eventMessages(t, agent.URL, adminLocal, robot, "taken over by admin@localhost via the cloud (supervisor override)")) > 0
		})
	})
}

// TestHandoverAcrossReplicas: the same through a replica that does not hold the agent's link
// (the cluster bus carries the request, the notices and the answer to the holder replica,
// which carries them over the link): an operator on r2 asks a local holder, who grants; a
// local operator asks the r2 holder, who refuses; a supervisor on r2 overrides a local holder.
func TestHandoverAcrossReplicas(t *testing.T) {
	db := pgtest.Start(t).NewDatabase(t)
	replicas := startReplicas(t, 2, db, natstest.Start(t).URL())
	r1, r2 := replicas[0], replicas[1]
	key := addAgentTo(t, db, "handover")
	agent := startLogged(t, "agent", []string{"FLEETGATE_AGENT_KEY=" + key}, "agent", "--data", t.TempDir(), "--listen", "127.0.0.1:0",
		"--admin-token", testToken, "--sim", "1", "--cloud", r1.URL)
	bob := login(t, r2.URL, addOrgAdminUser(t, t.TempDir(), db, "bob@example.com"))
	adminR2 := login(t, r2.URL, testToken)
	adminLocal := login(t, agent.URL, testToken)
	robot := localRobots(t, agent.URL, 1)[0]
	waitFor(t, 20*time.Second, "sim-1 online on r2", func() bool { return robotsOnline(r2.URL, adminR2, []string{robot}, true) })
	commands := simCommands(t, agent.URL, adminLocal, robot)

	holder := dialW3(t, agent.URL, adminLocal, robot, handoverCmdVel+"answer")
	defer holder.CloseNow()
	send(t, holder, `{"linear":{"x":0.3}}`)
	commands.waitFor(t, 0.3)
	asker := dialW3(t, r2.URL, bob, robot, handoverCmdVel+"request")
	defer asker.CloseNow()
	nextHandover(t, asker, "asking")
	if req := nextHandover(t, holder, "requested"); req.By != "bob@example.com via the cloud" {
		t.Fatalf("the holder was told %+v, want bob@example.com via the cloud", req)
	}
	send(t, holder, `{"handover":"grant"}`)
	nextHandover(t, asker, "granted")
	closedSaying(t, holder, "handed to bob@example.com via the cloud")
	commands.waitFor(t, 0)
	send(t, asker, `{"linear":{"x":0.2}}`)
	commands.waitFor(t, 0.2)

	// bob, on r2, holds it and answers: the request reaches him across the bus.
	local := dialW3(t, agent.URL, adminLocal, robot, handoverCmdVel+"request")
	defer local.CloseNow()
	nextHandover(t, local, "asking")
	if req := nextHandover(t, asker, "requested"); req.By != "admin@localhost" || req.Since == nil {
		t.Fatalf("bob was told %+v, want admin@localhost and since when", req)
	}
	send(t, asker, `{"handover":"refuse"}`)
	closedSaying(t, local, "bob@example.com via the cloud refused")

	// A supervisor on r2 takes it from bob: zero first, bob told who.
	boss := dialW3(t, r2.URL, adminR2, robot, handoverCmdVel+"override")
	defer boss.CloseNow()
	closedSaying(t, asker, "taken by admin@localhost via the cloud (supervisor override)")
	commands.waitFor(t, 0)
	send(t, boss, `{"linear":{"x":0.15}}`)
	commands.waitFor(t, 0.15)
}

// simCommandLog is every linear.x the simulator received, as it received it.
type simCommandLog chan float64

// simCommands follows the simulator's base/command stream (every command it received).
func simCommands(t *testing.T, base, bearer, robot string) simCommandLog {
	rec := dialW3(t, base, bearer, robot, "componentName=base&streamName=command&source=1")
	t.Cleanup(func() { rec.CloseNow() })
	log := make(simCommandLog, 4096)
	go func() {
		for {
			_, data, err := rec.Read(context.Background())
			if err != nil {
				return
			}
			var env streampb.MessageStream
			var tw catalogpb.Twist
			if proto.Unmarshal(data, &env) == nil && proto.Unmarshal(env.GetData(), &tw) == nil {
				log <- tw.GetLinear().GetX()
			}
		}
	}()
	return log
}

// waitFor waits for a command of linear.x x at the simulator.
func (l simCommandLog) waitFor(t *testing.T, x float64) {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case got := <-l:
			if got == x {
				return
			}
		case <-timeout:
			t.Fatalf("the simulator received no command of linear.x %v", x)
		}
	}
}

// nextHandover reads the socket's frames until a handover frame, which must be kind (the
// governor's speedLimit frames are passed over).
func nextHandover(t *testing.T, conn *websocket.Conn, kind string) handoverNotice {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		typ, data, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for {\"handover\":%q}: %v", kind, err)
		}
		var f handoverNotice
		if typ != websocket.MessageText || json.Unmarshal(data, &f) != nil || f.Handover == "" {
			continue
		}
		if f.Handover != kind {
			t.Fatalf("frame %s, want {\"handover\":%q}", data, kind)
		}
		return f
	}
}

type handoverNotice struct {
	Handover string     `json:"handover"`
	By       string     `json:"by"`
	Since    *time.Time `json:"since"`
}

// closedSaying reads until the server closes the socket with a policy violation (a conflict)
// whose reason says want.
func closedSaying(t *testing.T, conn *websocket.Conn, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		_, _, err := conn.Read(ctx)
		if err == nil {
			continue
		}
		var ce websocket.CloseError
		if !errors.As(err, &ce) {
			t.Fatalf("socket ended without a close frame (want one saying %q): %v", want, err)
		}
		if ce.Code != websocket.StatusPolicyViolation || !strings.Contains(ce.Reason, want) {
			t.Fatalf("closed %d %q, want %d saying %q", ce.Code, ce.Reason, websocket.StatusPolicyViolation, want)
		}
		return
	}
}
