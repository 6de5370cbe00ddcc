package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/store"
)

// addAgents stores agents named names in fleet, with key hashes "key-"+name.
func addAgents(t *testing.T, db *store.DB, fleet fleetgate.Fleet, created time.Time, names ...string) map[string]fleetgate.Agent {
	t.Helper()
	out := map[string]fleetgate.Agent{}
	for _, name := range names {
		a := fleetgate.Agent{ID: "ag-" + name, OrgID: fleet.OrgID, Name: name, FleetID: fleet.ID, KeyHash: "key-" + name, CreatedAt: created}
		must(t, db.CreateAgent(context.Background(), a))
		out[name] = a
	}
	return out
}

func testAgentLookups(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	f := bootstrap(t, db)
	created := time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)
	agents := addAgents(t, db, f.fleet, created, "dock", "yard")
	revokedAt := created.Add(time.Hour)
	must(t, db.RevokeAgent(ctx, agents["yard"].ID, revokedAt))
	yard := agents["yard"]
	yard.RevokedAt = revokedAt

	tests := []struct {
		name string
		call func() (fleetgate.Agent, error)
		want fleetgate.Agent
		code string
	}{
		{"by key hash", func() (fleetgate.Agent, error) { return db.AgentByKeyHash(ctx, "key-dock") }, agents["dock"], ""},
		{"revoked, by key hash", func() (fleetgate.Agent, error) { return db.AgentByKeyHash(ctx, "key-yard") }, yard, ""},
		{"unknown key hash", func() (fleetgate.Agent, error) { return db.AgentByKeyHash(ctx, "key-nope") }, fleetgate.Agent{}, fleetgate.ENotFound},
		{"by id", func() (fleetgate.Agent, error) { return db.Agent(ctx, "ag-dock") }, agents["dock"], ""},
		{"revoked, by id", func() (fleetgate.Agent, error) { return db.Agent(ctx, "ag-yard") }, yard, ""},
		{"unknown id", func() (fleetgate.Agent, error) { return db.Agent(ctx, "ag-nope") }, fleetgate.Agent{}, fleetgate.ENotFound},
		{"a key hash is not an id", func() (fleetgate.Agent, error) { return db.Agent(ctx, "key-dock") }, fleetgate.Agent{}, fleetgate.ENotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.call()
			wantCode(t, tt.name, err, tt.code)
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func testAgentsOfAnOrganization(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	f := bootstrap(t, db)
	must(t, db.CreateOrganization(ctx, fleetgate.Organization{ID: "org-2", Name: "other"}))
	other := fleetgate.Fleet{ID: "fleet-2", OrgID: "org-2", Name: "main"}
	must(t, db.CreateFleet(ctx, other))
	second := fleetgate.Fleet{ID: "fleet-3", OrgID: f.org.ID, Name: "second"}
	must(t, db.CreateFleet(ctx, second))
	now := time.Now()
	addAgents(t, db, f.fleet, now, "yard", "dock")
	addAgents(t, db, second, now, "bay")
	addAgents(t, db, other, now, "aardvark")
	must(t, db.RevokeAgent(ctx, "ag-dock", now))

	names := func(orgID string) []string {
		t.Helper()
		agents, err := db.Agents(ctx, orgID)
		must(t, err)
		var out []string
		for _, a := range agents {
			if a.OrgID != orgID {
				t.Errorf("agent %s of %s listed for %s", a.Name, a.OrgID, orgID)
			}
			out = append(out, a.Name)
		}
		return out
	}
	if got, want := names(f.org.ID), []string{"bay", "dock", "yard"}; !slices.Equal(got, want) {
		t.Errorf("Agents = %v, want %v (by name, every fleet, revoked included, this organization only)", got, want)
	}
	if got, want := names("org-2"), []string{"aardvark"}; !slices.Equal(got, want) {
		t.Errorf("Agents(org-2) = %v, want %v", got, want)
	}
	if got := names("org-nope"); got != nil {
		t.Errorf("Agents of an unknown organization = %v, want none", got)
	}
}

func testRevokeAgent(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	f := bootstrap(t, db)
	addAgents(t, db, f.fleet, time.Now(), "dock", "yard")
	first := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

	must(t, db.RevokeAgent(ctx, "ag-dock", first))
	err := db.RevokeAgent(ctx, "ag-dock", first.Add(time.Hour))
	wantCode(t, "second RevokeAgent", err, fleetgate.EConflict)
	if msg := fleetgate.ErrorMessage(err); msg != `agent "dock" is already revoked` {
		t.Errorf("message %q", msg)
	}
	wantCode(t, "RevokeAgent of an unknown id", db.RevokeAgent(ctx, "ag-nope", first), fleetgate.ENotFound)

	a, err := db.Agent(ctx, "ag-dock")
	must(t, err)
	if !a.RevokedAt.Equal(first) {
		t.Errorf("RevokedAt = %v, want the first revocation %v", a.RevokedAt, first)
	}
	if y, err := db.Agent(ctx, "ag-yard"); err != nil || !y.RevokedAt.IsZero() {
		t.Errorf("the other agent = %+v, %v; want not revoked", y, err)
	}
}

func testTouchAgent(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	f := bootstrap(t, db)
	addAgents(t, db, f.fleet, time.Now(), "dock")
	a, err := db.Agent(ctx, "ag-dock")
	must(t, err)
	if !a.LastSeen.IsZero() {
		t.Errorf("LastSeen of a new agent = %v, want zero", a.LastSeen)
	}
	at := time.Date(2025, 8, 9, 10, 11, 12, 13_000_000, time.UTC)
	for _, when := range []time.Time{at, at.Add(time.Second)} {
		must(t, db.TouchAgent(ctx, "ag-dock", when))
		a, err := db.Agent(ctx, "ag-dock")
		if err != nil || !a.LastSeen.Equal(when) {
			t.Errorf("LastSeen = %v, %v; want %v", a.LastSeen, err, when)
		}
	}
	// A revoked agent keeps its last-seen time, and it can still move (the link may record a
	// last contact after the revocation).
	must(t, db.RevokeAgent(ctx, "ag-dock", at))
	must(t, db.TouchAgent(ctx, "ag-dock", at.Add(time.Minute)))
	wantCode(t, "TouchAgent of an unknown id", db.TouchAgent(ctx, "ag-nope", at), fleetgate.ENotFound)
}

func testSyncedResources(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	f := bootstrap(t, db)
	now := time.Now()
	for _, id := range []string{"r-1", "r-2"} {
		must(t, db.CreateRobot(ctx, fleetgate.Robot{ID: id, OrgID: f.org.ID, FleetID: f.fleet.ID, Name: id, CreatedAt: now}))
	}
	base := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	res := func(id, robot, path string, created time.Time) fleetgate.ResourceRecord {
		return fleetgate.ResourceRecord{ID: id, RobotID: robot, Name: id + ".log", MIMEType: "text/plain", FileType: "log",
			Size: 42, SHA256: "ab12", Path: path, CreatedAt: created}
	}
	records := []fleetgate.ResourceRecord{
		res("old", "r-1", "resources/old", base),
		res("new", "r-1", "resources/new", base.Add(2*time.Second)),
		res("robot-held", "r-1", "", base.Add(3*time.Second)), // the robot serves it: not synced
		res("mid-a", "r-1", "resources/mid-a", base.Add(time.Second)),
		res("mid-b", "r-1", "resources/mid-b", base.Add(time.Second)), // same time, recorded later
		res("other", "r-2", "resources/other", base.Add(5*time.Second)),
	}
	for _, r := range records {
		must(t, db.SaveResource(ctx, r))
	}

	tests := []struct {
		name  string
		robot string
		want  []string
	}{
		{"newest first, files the robot serves left out", "r-1", []string{"new", "mid-b", "mid-a", "old"}},
		{"another robot", "r-2", []string{"other"}},
		{"unknown robot", "r-nope", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := db.SyncedResources(ctx, tt.robot)
			must(t, err)
			var got []string
			for _, r := range list {
				got = append(got, r.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("SyncedResources = %v, want %v", got, tt.want)
			}
		})
	}
	list, err := db.SyncedResources(ctx, "r-1")
	must(t, err)
	if want := records[1]; len(list) == 0 || list[0] != want {
		t.Errorf("record = %+v, want %+v (every field)", list[0], want)
	}

	// A copy that arrives later for a file first recorded as robot-held joins the list.
	held := records[2]
	held.Path = "resources/robot-held"
	must(t, db.SaveResource(ctx, held))
	list, err = db.SyncedResources(ctx, "r-1")
	if err != nil || len(list) != 5 || list[0].ID != "robot-held" {
		t.Errorf("after the copy arrived: %+v, %v; want robot-held first of 5", list, err)
	}
}

// testArchivedRecordings: the archived recordings of every organization, oldest first, with
// their robot's organization, fleet and name; marking one deleted happens once, drops it
// from the archived lists and keeps its record.
func testArchivedRecordings(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	f := bootstrap(t, db)
	must(t, db.CreateRobot(ctx, fleetgate.Robot{ID: "r-1", OrgID: f.org.ID, FleetID: f.fleet.ID, Name: "one", CreatedAt: time.Now()}))
	base := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	for i, r := range []fleetgate.ResourceRecord{
		{ID: "late", MIMEType: "application/mcap", Path: gateway.ArchivedPath},
		{ID: "early", MIMEType: "application/mcap", Path: gateway.ArchivedPath},
		{ID: "log", MIMEType: "text/plain", Path: gateway.ArchivedPath}, // not a recording
		{ID: "held", MIMEType: "application/mcap", Path: ""},            // the robot serves it
	} {
		r.RobotID, r.Name, r.Size, r.CreatedAt = "r-1", r.ID+".mcap", 10, base.Add(time.Duration(3-i)*time.Second)
		must(t, db.SaveResource(ctx, r))
	}
	ids := func() []string {
		list, err := db.ArchivedRecordings(ctx)
		must(t, err)
		var got []string
		for _, a := range list {
			if a.OrgID != f.org.ID || a.FleetID != f.fleet.ID || a.RobotName != "one" {
				t.Errorf("%s: organization %q, fleet %q, robot %q", a.ID, a.OrgID, a.FleetID, a.RobotName)
			}
			got = append(got, a.ID)
		}
		return got
	}
	if got := ids(); !slices.Equal(got, []string{"early", "late"}) {
		t.Fatalf("ArchivedRecordings = %v, want early, late", got)
	}
	if marked, err := db.MarkResourceDeleted(ctx, "early"); err != nil || !marked {
		t.Fatalf("marking early deleted: %v, %v", marked, err)
	}
	if marked, err := db.MarkResourceDeleted(ctx, "early"); err != nil || marked {
		t.Errorf("marking it again: %v, %v; want false (another replica did)", marked, err)
	}
	if got := ids(); !slices.Equal(got, []string{"late"}) {
		t.Errorf("after the deletion: %v", got)
	}
	synced, err := db.SyncedResources(ctx, "r-1")
	must(t, err)
	if slices.ContainsFunc(synced, func(r fleetgate.ResourceRecord) bool { return r.ID == "early" }) {
		t.Error("a deleted recording is still listed as archived")
	}
	if rec, err := db.Resource(ctx, "early"); err != nil || rec.Path != gateway.DeletedPath {
		t.Errorf("the deleted recording's record: %+v, %v", rec, err)
	}
}

// testAgentRobotRecords: an agent's robot records are counted whatever their state, and a
// record is removed only if it was not seen (or, never seen, not recorded) since the cutoff.
func testAgentRobotRecords(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	f := bootstrap(t, db)
	cutoff := time.Date(2025, 5, 6, 0, 0, 0, 0, time.UTC)
	before, after := cutoff.Add(-time.Hour), cutoff.Add(time.Hour)
	agents := addAgents(t, db, f.fleet, before, "dock", "yard")
	robots := []struct {
		robot fleetgate.Robot
		stale bool
	}{
		{fleetgate.Robot{ID: "r-seen-before", AgentID: "ag-dock", CreatedAt: before, LastSeen: before}, true},
		{fleetgate.Robot{ID: "r-never-seen-old", AgentID: "ag-dock", CreatedAt: before}, true},
		{fleetgate.Robot{ID: "r-seen-after", AgentID: "ag-dock", CreatedAt: before, LastSeen: after}, false},
		{fleetgate.Robot{ID: "r-never-seen-new", AgentID: "ag-yard", CreatedAt: after}, false},
		{fleetgate.Robot{ID: "r-local", CreatedAt: before, LastSeen: before}, true},
	}
	for _, r := range robots {
		r.robot.OrgID, r.robot.FleetID, r.robot.Name = f.org.ID, f.fleet.ID, r.robot.ID
		must(t, db.CreateRobot(ctx, r.robot))
	}
	for agent, want := range map[string]int{"ag-dock": 3, "ag-yard": 1, "ag-none": 0} {
		if n, err := db.CountAgentRobots(ctx, agent); err != nil || n != want {
			t.Errorf("CountAgentRobots(%s) = %d, %v; want %d", agent, n, err, want)
		}
	}
	for _, r := range robots {
		removed, err := db.DeleteRobotIfUnseenSince(ctx, r.robot.ID, cutoff)
		must(t, err)
		_, err = db.Robot(ctx, r.robot.ID)
		if removed != r.stale || (fleetgate.ErrorCode(err) == fleetgate.ENotFound) != r.stale {
			t.Errorf("%s: removed %v (lookup: %v), want %v", r.robot.ID, removed, err, r.stale)
		}
	}
	if removed, err := db.DeleteRobotIfUnseenSince(ctx, "r-unknown", cutoff); err != nil || removed {
		t.Errorf("an unknown robot: %v, %v; want false, nil", removed, err)
	}
	if n, _ := db.CountAgentRobots(ctx, agents["dock"].ID); n != 1 {
		t.Errorf("after the removal dock holds %d records, want 1", n)
	}
}
