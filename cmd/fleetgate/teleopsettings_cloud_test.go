package main

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate"
)

// TestTeleopSettingsThroughTheCloud: a robot behind an agent gets thresholds of its own from
// the cloud's teleop-settings route (the agent keeps them, checks the cloud user's role, and
// logs the change as "EMAIL via the cloud"), and a cloud operator's widget then shows the limit
// the agent's door holds the robot to: with full speed up to 100 ms and a quarter at 700 ms, a
// picture 0.6 s late allows 37.5% (the defaults would show 65%), and the simulator receives
// that share of the command.
func TestTeleopSettingsThroughTheCloud(t *testing.T) {
	site := startLinkedSim(t, "settings")
	cloud, agent, adminCloud, adminLocal, robot := site.cloud, site.agent, site.adminCloud, site.adminLocal, site.robot
	path := "/apigateway/v2/robots/" + robot + "/teleop-settings"

	type settings struct {
		DelayFullMs, DelayQuarterMs, DelayStopMs int64
		Custom                                   bool
		UpdatedBy                                string
	}
	status, body := sendJSON(t, "PUT", cloud.URL+path, adminCloud, `{"delayFullMs":100,"delayQuarterMs":700,"delayStopMs":1500}`)
	var set settings
	if status != http.StatusOK || json.Unmarshal([]byte(body), &set) != nil {
		t.Fatalf("PUT on the cloud: %d %s", status, body)
	}
	want := settings{100, 700, 1500, true, "admin@localhost via the cloud"}
	if set != want {
		t.Fatalf("the cloud answered %+v, want %+v", set, want)
	}
	var local settings
	if code := api(t, "GET", agent.URL+path, adminLocal, &local); code != http.StatusOK || local != want {
		t.Fatalf("the agent keeps %d %+v, want %+v", code, local, want)
	}
	if status, body := sendJSON(t, "PUT", cloud.URL+path, adminCloud, `{"delayFullMs":900,"delayQuarterMs":700,"delayStopMs":1500}`); status != http.StatusBadRequest {
		t.Errorf("delays out of order: %d %s, want 400", status, body)
	}
	waitFor(t, 10*time.Second, "the change in the agent's event log, and on the cloud", func() bool {
		words := "teleop delays set by admin@localhost via the cloud"
		return len(eventMessages(t, agent.URL, adminLocal, robot, words)) == 1 && len(eventMessages(t, cloud.URL, adminCloud, robot, words)) == 1
	})

	// The widget on the cloud and the robot at the agent agree on the share.
	commands := simCommands(t, agent.URL, adminLocal, robot)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	driver := dialW3(t, cloud.URL, adminCloud, robot, handoverCmdVel+"answer")
	defer driver.CloseNow()
	var shown atomic.Uint64 // math.Float64bits of the last speedLimit's scale
	go func() {
		for {
			_, data, err := driver.Read(ctx)
			if err != nil {
				return
			}
			var f struct {
				SpeedLimit *struct{ Scale float64 } `json:"speedLimit"`
			}
			if json.Unmarshal(data, &f) == nil && f.SpeedLimit != nil {
				shown.Store(math.Float64bits(f.SpeedLimit.Scale))
			}
		}
	}()
	const share = 0.375 // 1 - 0.75 * (600-100)/(700-100)
	var received float64
	for received = -1; math.Abs(received-share) > 0.03; {
		send(t, driver, `{"pictureAgeMs":600}`)
		send(t, driver, `{"linear":{"x":1}}`)
		select {
		case received = <-commands:
		case <-ctx.Done():
			t.Fatalf("the simulator never received %.3f m/s (last %.3f)", share, received)
		}
	}
	for math.Abs(math.Float64frombits(shown.Load())-share) > 0.03 {
		select {
		case <-ctx.Done():
			t.Fatalf("the cloud's widget shows %.3f, the agent drives at %.3f", math.Float64frombits(shown.Load()), received)
		case <-time.After(50 * time.Millisecond):
			send(t, driver, `{"pictureAgeMs":600}`)
		}
	}
	driver.Close(websocket.StatusNormalClosure, "")

	// Back to the agent's defaults, from the cloud.
	status, body = sendJSON(t, "DELETE", cloud.URL+path, adminCloud, "")
	if status != http.StatusOK || !strings.Contains(body, `"custom":false`) {
		t.Fatalf("DELETE on the cloud: %d %s", status, body)
	}
}

// TestFleetSupervisorThroughTheCloud: a cloud operator made a supervisor of the agent's fleet
// on the cloud takes control from a local holder at the agent (its door zeroes the robot first
// and tells the holder who); before the grant the same operator is 403.
func TestFleetSupervisorThroughTheCloud(t *testing.T) {
	site := startLinkedSim(t, "supervised")
	cloud, agent, cloudDir, adminCloud, adminLocal, robot := site.cloud, site.agent, site.cloudDir, site.adminCloud, site.adminLocal, site.robot
	bob := login(t, cloud.URL, addUser(t, cloudDir, "", "bob@example.com", false, map[string]fleetgate.Role{robot: fleetgate.RoleOperator}))
	commands := simCommands(t, agent.URL, adminLocal, robot)

	holder := dialW3(t, agent.URL, adminLocal, robot, handoverCmdVel+"answer")
	defer holder.CloseNow()
	send(t, holder, `{"linear":{"x":0.3}}`)
	commands.waitFor(t, 0.3)
	if status, body := refusedW3(t, cloud.URL, bob, robot, handoverCmdVel+"override"); status != http.StatusForbidden {
		t.Fatalf("an operator's override before the grant: %d %s, want 403", status, body)
	}
	var fleets struct{ Fleets []struct{ ID string } }
	if code := api(t, "GET", cloud.URL+"/apigateway/v2/fleets", adminCloud, &fleets); code != http.StatusOK || len(fleets.Fleets) != 1 {
		t.Fatalf("the cloud's fleets: %d %+v", code, fleets)
	}
	if status, body := sendJSON(t, "PUT", cloud.URL+"/apigateway/v2/fleets/"+fleets.Fleets[0].ID+"/supervisors/bob@example.com", adminCloud, ""); status != http.StatusOK {
		t.Fatalf("the grant: %d %s", status, body)
	}
	boss := dialW3(t, cloud.URL, bob, robot, handoverCmdVel+"override")
	defer boss.CloseNow()
	closedSaying(t, holder, "taken by bob@example.com via the cloud (supervisor override)")
	commands.waitFor(t, 0)
	send(t, boss, `{"linear":{"x":0.15}}`)
	commands.waitFor(t, 0.15)
	boss.Close(websocket.StatusNormalClosure, "")
}
