package gateway_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/blob"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// Remove makes mapArchive the cloud's kind of archive, from which retention deletes.
func (a mapArchive) Remove(id string) error {
	delete(a, id)
	return nil
}

// TestRecordingRetention, on an injected clock: copies past the age go, then in an
// organization past its quota the oldest first, another organization's quota apart; a copy
// being downloaded stays until the download ends; each deletion is a system entry linked
// to the recording, the entries that name a deleted recording say so, the record stays so
// that its agent does not upload it again; other files than recordings are never touched.
func TestRecordingRetention(t *testing.T) {
	archive := mapArchive{}
	e := newEnv(t, func(c *gateway.Config) {
		c.Archive = archive
		c.Signer = blob.NewSigner(bytes.Repeat([]byte{7}, 32), nil)
	})
	otherOrg, otherFleet := e.addOrg("other")
	e.must(e.db.CreateAgent(e.ctx, fleetgate.Agent{ID: "agent-a", Name: "a", FleetID: e.fleet.ID, KeyHash: "k1", CreatedAt: e.clock.Now()}))
	e.must(e.db.CreateAgent(e.ctx, fleetgate.Agent{ID: "agent-b", Name: "b", OrgID: otherOrg.ID, FleetID: otherFleet.ID, KeyHash: "k2", CreatedAt: e.clock.Now()}))
	robot := fleetgate.Robot{ID: "4d5e6f70-8192-4a3b-8c4d-5e6f70819203", OrgID: e.org.ID, FleetID: e.fleet.ID, AgentID: "agent-a", Name: "away", CreatedAt: e.clock.Now()}
	theirs := fleetgate.Robot{ID: "5e6f7081-92a3-4b4c-9d5e-6f708192a3b4", OrgID: otherOrg.ID, FleetID: otherFleet.ID, AgentID: "agent-b", Name: "theirs", CreatedAt: e.clock.Now()}
	e.must(e.db.CreateRobot(e.ctx, robot))
	e.must(e.db.CreateRobot(e.ctx, theirs))

	day := 24 * time.Hour
	now := e.clock.Now()
	archived := func(r fleetgate.Robot, id, mime string, size int64, age time.Duration) {
		t.Helper()
		archive[id] = make([]byte, size)
		e.must(e.g.SaveArchivedResource(e.ctx, r.ID, fleetgate.Resource{ID: id, Name: id[:4] + ".mcap", MIMEType: mime, Size: size, CreatedAt: now.Add(-age)}, "x"))
	}
	const (
		oldest = "a0000000-0000-4000-8000-000000000001" // 40 days, being downloaded at first
		older  = "b0000000-0000-4000-8000-000000000002" // 10 days
		recent = "c0000000-0000-4000-8000-000000000003" // 1 day
		theirO = "d0000000-0000-4000-8000-000000000004" // 40 days, the other organization's
		theLog = "e0000000-0000-4000-8000-000000000005" // 50 days, not a recording
	)
	archived(robot, oldest, "application/mcap", 100, 40*day)
	archived(robot, older, "application/mcap", 300, 10*day)
	archived(robot, recent, "application/mcap", 300, day)
	archived(theirs, theirO, "application/mcap", 100, 40*day)
	archived(robot, theLog, "text/plain", 5000, 50*day)
	e.must(e.g.RecordEvent(e.ctx, fleetgate.Event{RobotID: robot.ID, FleetID: e.fleet.ID, AuthorEmail: "ops@example.com",
		Message: "pallet dropped", Type: fleetgate.EventNote, RecordingID: oldest}))

	caller := e.login(e.adminSecret)
	download, err := e.g.OpenRecording(e.ctx, caller, robot.ID, oldest, gateway.RecordingCut{})
	if err != nil {
		t.Fatal(err)
	}
	rule := gateway.RecordingRetention{MaxAge: 30 * day, OrgQuota: 500}
	n, err := e.g.ApplyRetention(e.ctx, rule)
	if err != nil {
		t.Fatal(err)
	}
	// The other organization's old one goes by age; in ours the oldest is being downloaded,
	// so the next oldest makes room (700 bytes > 500).
	if n != 2 || !slices.Equal(archivedIDs(archive), []string{oldest, recent, theLog}) {
		t.Fatalf("deleted %d; the archive keeps %v", n, archivedIDs(archive))
	}
	download.Close()
	if n, err := e.g.ApplyRetention(e.ctx, rule); err != nil || n != 1 || !slices.Equal(archivedIDs(archive), []string{recent, theLog}) {
		t.Fatalf("after the download: deleted %d (%v); the archive keeps %v", n, err, archivedIDs(archive))
	}
	if n, err := e.g.ApplyRetention(e.ctx, rule); err != nil || n != 0 {
		t.Fatalf("a round with nothing to delete deleted %d (%v)", n, err)
	}
	e.clock.Advance(30 * day)
	if n, err := e.g.ApplyRetention(e.ctx, rule); err != nil || n != 1 || !slices.Equal(archivedIDs(archive), []string{theLog}) {
		t.Fatalf("30 days later: deleted %d (%v); the archive keeps %v", n, err, archivedIDs(archive))
	}

	list, err := e.g.Resources(e.ctx, caller, robot.ID)
	if err != nil || len(list) != 1 || list[0].ID != theLog {
		t.Fatalf("the robot's resources after retention: %+v, %v", list, err)
	}
	wantCode(t, "the agent uploads a deleted recording again", e.g.MayArchive(e.ctx, robot.ID, oldest), fleetgate.EConflict)
	if _, err := e.g.OpenRecording(e.ctx, caller, robot.ID, oldest, gateway.RecordingCut{}); fleetgate.ErrorCode(err) != fleetgate.ENotFound {
		t.Errorf("downloading a deleted recording: %v", err)
	}

	rows, _, err := e.g.QueryEvents(e.ctx, caller, fleetgate.EventFilter{RobotID: robot.ID})
	if err != nil {
		t.Fatal(err)
	}
	deletions := map[string]string{}
	for _, r := range rows {
		if r.Type == fleetgate.EventSystem {
			deletions[r.RecordingID] = r.Message
		}
		if r.RecordingGone != gateway.DeletedPath {
			t.Errorf("entry %q names recording %s, shown as %q", r.Message, r.RecordingID, r.RecordingGone)
		}
	}
	if len(deletions) != 3 || !strings.Contains(deletions[oldest], "older than 720h0m0s") ||
		!strings.Contains(deletions[older], "passed their quota of 500 bytes") || !strings.Contains(deletions[recent], "older than") {
		t.Errorf("system entries of the deletions: %q", deletions)
	}
}

func archivedIDs(a mapArchive) []string {
	var ids []string
	for id := range a {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
