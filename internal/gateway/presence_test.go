package gateway_test

import (
	"bytes"
	"io"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/blob"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// TestRobotPresenceIsRecorded checks the fleet.Tracker side of the core: a robot that
// connects gets a record in its fleet (and organization), and its last time seen follows.
func TestRobotPresenceIsRecorded(t *testing.T) {
	e := newEnv(t)
	info := fleetgate.Info{ID: "7f8c8f53-5a55-4d0e-a0c4-1c8b1b4a2f10", Name: "sim-1", ConfigName: "warehouse-sim", ConfigVersion: "1", AgentVersion: "0.3.0"}
	at := e.clock.Now()
	if err := e.g.RobotOnline(e.ctx, info, fleet.Home{FleetID: e.fleet.ID}, at); err != nil {
		t.Fatal(err)
	}
	r, err := e.db.Robot(e.ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "sim-1" || r.FleetID != e.fleet.ID || r.OrgID != e.org.ID || r.ConfigName != "warehouse-sim" ||
		r.AgentVersion != "0.3.0" || !r.LastSeen.Equal(at) || !r.CreatedAt.Equal(at) {
		t.Errorf("record after connect: %+v", r)
	}

	later := at.Add(90 * time.Second)
	if err := e.g.RobotSeen(e.ctx, info.ID, later); err != nil {
		t.Fatal(err)
	}
	// A reconnect with a new name and agent version refreshes the record and keeps its birth.
	info.Name, info.AgentVersion = "sim-1b", "0.4.0"
	if err := e.g.RobotOnline(e.ctx, info, fleet.Home{FleetID: e.fleet.ID}, later.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	r, _ = e.db.Robot(e.ctx, info.ID)
	if r.Name != "sim-1b" || r.AgentVersion != "0.4.0" || !r.CreatedAt.Equal(at) || !r.LastSeen.Equal(later.Add(time.Minute)) {
		t.Errorf("record after reconnect: %+v", r)
	}

	if err := e.g.RobotOnline(e.ctx, info, fleet.Home{FleetID: "no-such-fleet"}, at); fleetgate.ErrorCode(err) != fleetgate.ENotFound {
		t.Errorf("unknown fleet: %v, want not_found", err)
	}
	if err := e.g.RobotSeen(e.ctx, "no-such-robot", at); fleetgate.ErrorCode(err) != fleetgate.ENotFound {
		t.Errorf("unknown robot seen: %v, want not_found", err)
	}
}

// TestLiveStreamOfARobotHostedElsewhere is the contract's 501: a local-fleet robot that
// another agent announced cannot be reached by this gateway's live socket. No such robot
// exists until agents share a local fleet, so the check is tested here directly.
func TestLiveStreamOfARobotHostedElsewhere(t *testing.T) {
	e := newEnv(t, func(c *gateway.Config) { c.AgentID = "agent-here" })
	local := fleetgate.Fleet{ID: fleetgate.LocalFleetID, OrgID: e.org.ID, Name: fleetgate.LocalFleetID}
	e.must(e.db.CreateFleet(e.ctx, local))
	e.must(e.db.CreateAgent(e.ctx, fleetgate.Agent{ID: "agent-there", Name: "there", FleetID: local.ID, KeyHash: "x", CreatedAt: e.clock.Now()}))
	e.must(e.db.CreateAgent(e.ctx, fleetgate.Agent{ID: "agent-here", Name: "here", FleetID: local.ID, KeyHash: "y", CreatedAt: e.clock.Now()}))
	elsewhere := fleetgate.Robot{ID: "9d7c1c1e-8b0a-4f57-9a55-2f1a0b6c3d4e", OrgID: e.org.ID, FleetID: local.ID, AgentID: "agent-there", Name: "far", CreatedAt: e.clock.Now()}
	here := fleetgate.Robot{ID: "1a2b3c4d-5e6f-4a5b-8c7d-9e0f1a2b3c4d", OrgID: e.org.ID, FleetID: local.ID, AgentID: "agent-here", Name: "near", CreatedAt: e.clock.Now()}
	own := fleetgate.Robot{ID: "0f1e2d3c-4b5a-4968-8776-655443322110", OrgID: e.org.ID, FleetID: local.ID, Name: "own", CreatedAt: e.clock.Now()}
	for _, r := range []fleetgate.Robot{elsewhere, here, own} {
		e.must(e.db.CreateRobot(e.ctx, r))
	}
	caller := e.login(e.adminSecret)
	sel := gateway.StreamSelector{Component: "camera", Name: "image"}
	for _, c := range []struct {
		robot fleetgate.Robot
		code  string
	}{
		{elsewhere, fleetgate.ENotImplemented},
		{here, ""},
		{own, ""},
	} {
		_, err := e.g.OpenLiveOutput(e.ctx, caller, c.robot.ID, sel)
		if fleetgate.ErrorCode(err) != c.code {
			t.Errorf("%s: %v, want code %q", c.robot.Name, err, c.code)
		}
	}
	// 404 comes before 501: an unknown robot is not found, wherever it might live.
	if _, err := e.g.OpenLiveOutput(e.ctx, caller, "no-such-robot", sel); fleetgate.ErrorCode(err) != fleetgate.ENotFound {
		t.Errorf("unknown robot: %v", err)
	}
}

// TestRobotAnnouncedByAnAgent checks where robots announced over the agent link land: a new
// one in the agent's fleet with the agent recorded, an existing one in its own fleet, and a
// robot id of another organization refused.
func TestRobotAnnouncedByAnAgent(t *testing.T) {
	e := newEnv(t)
	agentFleet := fleetgate.Fleet{ID: "5d0b7f0e-3d61-4f0c-9d7a-6a0f5c1e2b3a", OrgID: e.org.ID, Name: "yard"}
	e.must(e.db.CreateFleet(e.ctx, agentFleet))
	e.must(e.db.CreateAgent(e.ctx, fleetgate.Agent{ID: "agent-1", Name: "yard-agent", FleetID: agentFleet.ID, KeyHash: "k1", CreatedAt: e.clock.Now()}))
	home := fleet.Home{FleetID: agentFleet.ID, AgentID: "agent-1"}
	at := e.clock.Now()

	fresh := fleetgate.Info{ID: "3c9e2f4a-1b5d-4e6f-8a7b-9c0d1e2f3a4b", Name: "new"}
	e.must(e.g.RobotOnline(e.ctx, fresh, home, at))
	if r, _ := e.db.Robot(e.ctx, fresh.ID); r.FleetID != agentFleet.ID || r.AgentID != "agent-1" || r.OrgID != e.org.ID {
		t.Errorf("new robot recorded as %+v, want the agent's fleet and the agent", r)
	}

	provisioned := fleetgate.Robot{ID: "6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d", OrgID: e.org.ID, FleetID: e.fleet.ID, Name: "placed", CreatedAt: at}
	e.must(e.db.CreateRobot(e.ctx, provisioned))
	e.must(e.g.RobotOnline(e.ctx, fleetgate.Info{ID: provisioned.ID, Name: "placed"}, home, at))
	if r, _ := e.db.Robot(e.ctx, provisioned.ID); r.FleetID != e.fleet.ID || r.AgentID != "agent-1" {
		t.Errorf("provisioned robot recorded as %+v, want its own fleet kept and the agent recorded", r)
	}

	// Another agent of the organization may not take the robot over while its agent's key is
	// valid; once that key is revoked (a replaced machine), it may.
	e.must(e.db.CreateAgent(e.ctx, fleetgate.Agent{ID: "agent-2", Name: "intruder", FleetID: agentFleet.ID, KeyHash: "k2", CreatedAt: e.clock.Now()}))
	other := fleet.Home{FleetID: agentFleet.ID, AgentID: "agent-2"}
	if err := e.g.RobotOnline(e.ctx, fresh, other, at); fleetgate.ErrorCode(err) != fleetgate.EConflict || !strings.Contains(fleetgate.ErrorMessage(err), "yard-agent") {
		t.Errorf("another agent announcing the robot: %v, want a conflict naming yard-agent", err)
	}
	if r, _ := e.db.Robot(e.ctx, fresh.ID); r.AgentID != "agent-1" {
		t.Errorf("the robot moved to %s", r.AgentID)
	}
	e.must(e.db.RevokeAgent(e.ctx, "agent-1", at))
	e.must(e.g.RobotOnline(e.ctx, fresh, other, at))
	if r, _ := e.db.Robot(e.ctx, fresh.ID); r.AgentID != "agent-2" {
		t.Errorf("after the revocation the robot is hosted by %q, want agent-2", r.AgentID)
	}

	otherOrg, otherFleet := e.addOrg("rival")
	foreign := fleetgate.Robot{ID: "7b8c9d0e-1f2a-4b3c-9d4e-5f6a7b8c9d0e", OrgID: otherOrg.ID, FleetID: otherFleet.ID, Name: "theirs", CreatedAt: at}
	e.must(e.db.CreateRobot(e.ctx, foreign))
	if err := e.g.RobotOnline(e.ctx, fleetgate.Info{ID: foreign.ID, Name: "stolen"}, home, at); fleetgate.ErrorCode(err) != fleetgate.EConflict {
		t.Errorf("robot of another organization: %v, want conflict", err)
	}
	if r, _ := e.db.Robot(e.ctx, foreign.ID); r.OrgID != otherOrg.ID || r.Name != "theirs" || r.AgentID != "" {
		t.Errorf("the other organization's robot changed: %+v", r)
	}
}

// mapArchive is a ResourceArchive in memory.
type mapArchive map[string][]byte

func (a mapArchive) Open(id string) (fleet.ResourceFile, error) {
	data, ok := a[id]
	if !ok {
		return nil, os.ErrNotExist
	}
	return nopFile{bytes.NewReader(data)}, nil
}

type nopFile struct{ *bytes.Reader }

func (nopFile) Close() error { return nil }

// TestArchivedResourcesServedWhileOffline is the cloud's side of resources: a gateway with an
// archive lists, links and serves the archived copies of the files of an offline robot behind
// an agent, and only those (a file still uploading has no record yet).
func TestArchivedResourcesServedWhileOffline(t *testing.T) {
	archive := mapArchive{"c0ffee00-0000-4000-8000-000000000001": []byte("recorded bag")}
	signer := blob.NewSigner(bytes.Repeat([]byte{7}, 32), nil)
	e := newEnv(t, func(c *gateway.Config) { c.Archive = archive; c.Signer = signer })
	e.must(e.db.CreateAgent(e.ctx, fleetgate.Agent{ID: "agent-far", Name: "far", FleetID: e.fleet.ID, KeyHash: "k", CreatedAt: e.clock.Now()}))
	robot := fleetgate.Robot{ID: "4d5e6f70-8192-4a3b-8c4d-5e6f70819203", OrgID: e.org.ID, FleetID: e.fleet.ID, AgentID: "agent-far", Name: "away", CreatedAt: e.clock.Now()}
	e.must(e.db.CreateRobot(e.ctx, robot))
	caller := e.login(e.adminSecret)

	list, err := e.g.Resources(e.ctx, caller, robot.ID)
	if err != nil || len(list) != 0 {
		t.Fatalf("before any upload: %+v, %v; want an empty list, not an offline error", list, err)
	}
	res := fleetgate.Resource{ID: "c0ffee00-0000-4000-8000-000000000001", Name: "run.bag", MIMEType: "application/octet-stream", FileType: "rosbag", Size: 12, CreatedAt: e.clock.Now()}
	e.must(e.g.SaveArchivedResource(e.ctx, robot.ID, res, "abc123"))
	// Another robot (another agent's) announcing the same resource id may neither take the
	// record over nor have its file archived over this one's.
	rival := fleetgate.Robot{ID: "5e6f7081-92a3-4b4c-9d5e-6f708192a3b4", OrgID: e.org.ID, FleetID: e.fleet.ID, AgentID: "agent-far", Name: "rival", CreatedAt: e.clock.Now()}
	e.must(e.db.CreateRobot(e.ctx, rival))
	wantCode(t, "another robot may archive the id", e.g.MayArchive(e.ctx, rival.ID, res.ID), fleetgate.EConflict)
	wantCode(t, "another robot saves the id", e.g.SaveArchivedResource(e.ctx, rival.ID, res, "evil"), fleetgate.EConflict)
	e.must(e.g.MayArchive(e.ctx, robot.ID, res.ID))
	list, err = e.g.Resources(e.ctx, caller, robot.ID)
	if err != nil || len(list) != 1 || list[0].Name != "run.bag" || list[0].Size != 12 {
		t.Fatalf("after the upload: %+v, %v", list, err)
	}
	link, err := e.g.ResourceLink(e.ctx, caller, robot.ID, res.ID)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(link)
	f, got, err := e.g.OpenLink(e.ctx, "GET", u.Path, u.Query(), res.ID)
	if err != nil {
		t.Fatalf("OpenLink of an offline robot's archived file: %v", err)
	}
	data, _ := io.ReadAll(f)
	f.Close()
	if string(data) != "recorded bag" || got.Size != 12 {
		t.Errorf("served %q (%d bytes)", data, got.Size)
	}
	if _, err := e.g.ResourceLink(e.ctx, caller, robot.ID, "c0ffee00-0000-4000-8000-000000000002"); fleetgate.ErrorCode(err) != fleetgate.ENotFound {
		t.Errorf("link to a file not archived: %v, want not_found", err)
	}
}
