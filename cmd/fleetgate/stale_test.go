package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/server"
)

// TestRobotsRemoveStale: fleetgate robots remove --stale removes the records of the robots
// not online for that long, also while the server runs; --dry-run lists them and removes
// nothing; an age under a day, or none, is a usage error.
func TestRobotsRemoveStale(t *testing.T) {
	dir := t.TempDir()
	start(t, nil, "serve", "--data", dir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
	ctx := context.Background()
	db, err := server.OpenStore(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	org, err := db.DefaultOrganization(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fleets, err := db.Fleets(ctx, org.ID)
	if err != nil || len(fleets) == 0 {
		t.Fatalf("fleets: %v %v", fleets, err)
	}
	now := time.Now()
	add := func(name string, created, seen time.Time) string {
		r := fleetgate.Robot{ID: uuid.NewString(), OrgID: org.ID, FleetID: fleets[0].ID, Name: name, CreatedAt: created, LastSeen: seen}
		if err := db.CreateRobot(ctx, r); err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	gone := add("gone-for-good", now.Add(-60*24*time.Hour), now.Add(-45*24*time.Hour))
	never := add("never-came", now.Add(-31*24*time.Hour), time.Time{})
	resting := add("resting", now.Add(-60*24*time.Hour), now.Add(-10*24*time.Hour))

	for _, args := range [][]string{{}, {"--stale", "12h"}, {"--stale", "soon"}} {
		if _, stderr, code := runCLI(t, nil, append([]string{"robots", "remove", "--data", dir}, args...)...); code != 2 {
			t.Errorf("robots remove %v: exit %d %q, want 2", args, code, stderr)
		}
	}
	stdout, stderr, code := runCLI(t, nil, "robots", "remove", "--data", dir, "--stale", "30d", "--dry-run")
	if code != 0 || !strings.Contains(stdout, "would remove "+gone) || !strings.Contains(stdout, "would remove "+never) ||
		strings.Contains(stdout, resting) || !strings.Contains(stdout, "2 robot records would be removed") {
		t.Errorf("dry run: %d %q %q", code, stdout, stderr)
	}
	if list, _, _ := runCLI(t, nil, "robots", "list", "--data", dir); !strings.Contains(list, gone) {
		t.Fatalf("the dry run removed a robot:\n%s", list)
	}
	stdout, stderr, code = runCLI(t, nil, "robots", "remove", "--data", dir, "--stale", "30d")
	if code != 0 || !strings.Contains(stdout, "removed "+gone) || !strings.Contains(stdout, "2 robot records removed") {
		t.Errorf("robots remove --stale 30d: %d %q %q", code, stdout, stderr)
	}
	list, _, _ := runCLI(t, nil, "robots", "list", "--data", dir)
	if strings.Contains(list, gone) || strings.Contains(list, never) || !strings.Contains(list, resting) {
		t.Errorf("robots list after the removal:\n%s", list)
	}
	// A Go duration works too: 216h (9 days) catches the robot last seen 10 days ago.
	stdout, _, _ = runCLI(t, nil, "robots", "remove", "--data", dir, "--stale", "216h", "--dry-run")
	if !strings.Contains(stdout, "would remove "+resting) {
		t.Errorf("--stale 216h --dry-run: %q, want the robot last seen 10 days ago", stdout)
	}
}
