package gateway_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// addLinkedAgent records an agent of fleet f directly.
func (e *env) addLinkedAgent(id, name string, f fleetgate.Fleet) fleet.Home {
	e.t.Helper()
	e.must(e.db.CreateAgent(e.ctx, fleetgate.Agent{ID: id, OrgID: f.OrgID, Name: name, FleetID: f.ID, KeyHash: "hash-" + id, CreatedAt: e.clock.Now()}))
	return fleet.Home{FleetID: f.ID, AgentID: id}
}

// TestAgentEventsOnlyForItsRobots: an agent's forwarded entries are kept for the robots whose
// record names it as their agent, online or not, and refused for every other robot: another
// agent's (of another fleet), one of no agent, an unknown id. The author is kept as the agent
// gave it, made one line, and always shown with the agent.
func TestAgentEventsOnlyForItsRobots(t *testing.T) {
	e := newEnv(t)
	fleetB := fleetgate.Fleet{ID: uuid.NewString(), OrgID: e.org.ID, Name: "fleet-b"}
	e.must(e.db.CreateFleet(e.ctx, fleetB))
	homeA := e.addLinkedAgent("agent-a", "dock-a", e.fleet)
	homeB := e.addLinkedAgent("agent-b", "dock-b", fleetB)
	at := e.clock.Now()
	robotA := fleetgate.Info{ID: uuid.NewString(), Name: "a-bot"}
	robotB := fleetgate.Info{ID: uuid.NewString(), Name: "b-bot"}
	e.must(e.g.RobotOnline(e.ctx, robotA, homeA, at))
	e.must(e.g.RobotOnline(e.ctx, robotB, homeB, at))
	// Hosted before: the agent's robot is offline now; its record still names the agent.
	e.must(e.g.RobotSeen(e.ctx, robotB.ID, at))
	agentless := e.addRobot(e.fleet, "cloud-bot")

	cases := []struct {
		name    string
		robotID string
		kept    bool
	}{
		{"its own robot", robotB.ID, true},
		{"another fleet's agent's robot", robotA.ID, false},
		{"a robot of no agent", agentless.ID, false},
		{"an unknown robot", uuid.NewString(), false},
	}
	var batch []fleetgate.Event
	for i, c := range cases {
		batch = append(batch, fleetgate.Event{OriginID: int64(i + 1), RobotID: c.robotID, AuthorEmail: "admin@localhost", Message: c.name, CreatedAt: at})
	}
	refused, err := e.g.SaveAgentEvents(e.ctx, "agent-b", batch)
	e.must(err)
	refusedNames := map[string]bool{}
	for _, r := range refused {
		refusedNames[r.Message] = true
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stored, err := e.db.Events(e.ctx, fleetgate.EventFilter{RobotID: c.robotID, Limit: 10})
			e.must(err)
			if got := len(stored) == 1; got != c.kept {
				t.Errorf("stored: %v (%+v), want %v", got, stored, c.kept)
			}
			if refusedNames[c.name] == c.kept {
				t.Errorf("refused: %v, want %v", refusedNames[c.name], !c.kept)
			}
		})
	}

	// The author: one line, bounded, and shown with the agent, never bare.
	forged := fleetgate.Event{OriginID: 9, RobotID: robotB.ID, AuthorEmail: "admin@localhost\n2025-01-01 forged line " + strings.Repeat("x", 400), Message: "author", CreatedAt: at}
	_, err = e.g.SaveAgentEvents(e.ctx, "agent-b", []fleetgate.Event{forged})
	e.must(err)
	admin := e.login(e.adminSecret)
	rows, _, err := e.g.QueryEvents(e.ctx, admin, fleetgate.EventFilter{RobotID: robotB.ID})
	e.must(err)
	for _, r := range rows {
		if strings.ContainsAny(r.AuthorEmail, "\n\r") || len(r.AuthorEmail) > gateway.MaxEventAuthor {
			t.Errorf("stored author %q: want one line of at most %d bytes", r.AuthorEmail, gateway.MaxEventAuthor)
		}
		if !strings.HasSuffix(r.Author, " via agent dock-b") || !strings.HasPrefix(r.Author, "admin@localhost") {
			t.Errorf("the entry %q is shown as written by %q, want admin@localhost… via agent dock-b", r.Message, r.Author)
		}
	}
	if len(rows) != 2 {
		t.Errorf("history of the agent's robot: %d entries, want 2", len(rows))
	}
}

func TestEventAuthor(t *testing.T) {
	for _, c := range []struct {
		event fleetgate.Event
		agent string
		want  string
	}{
		{fleetgate.Event{AuthorEmail: "ops@example.com"}, "", "ops@example.com"},
		{fleetgate.Event{AuthorEmail: "admin@localhost", AgentID: "agent-1"}, "dock-7", "admin@localhost via agent dock-7"},
		{fleetgate.Event{AuthorEmail: "admin@localhost", AgentID: "agent-1"}, "", "admin@localhost via agent agent-1"},
		{fleetgate.Event{AgentID: "agent-1"}, "dock-7", "someone via agent dock-7"},
	} {
		if got := gateway.EventAuthor(c.event, c.agent); got != c.want {
			t.Errorf("EventAuthor(%+v, %q) = %q, want %q", c.event, c.agent, got, c.want)
		}
	}
}

// TestAgentMaxRobots: an agent holds at most AgentMaxRobots robot records, offline ones
// counted; the robots it already holds come back, another agent's count is its own, robots of
// this gateway count for nobody, and removing stale records makes room.
func TestAgentMaxRobots(t *testing.T) {
	var logs bytes.Buffer
	e := newEnv(t, func(c *gateway.Config) {
		c.AgentMaxRobots = 3
		c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	homeA := e.addLinkedAgent("agent-a", "dock-a", e.fleet)
	homeB := e.addLinkedAgent("agent-b", "dock-b", e.fleet)
	at := e.clock.Now()
	var held []fleetgate.Info
	for i := range 3 {
		info := fleetgate.Info{ID: uuid.NewString(), Name: fmt.Sprintf("a-%d", i)}
		e.must(e.g.RobotOnline(e.ctx, info, homeA, at))
		e.must(e.g.RobotSeen(e.ctx, info.ID, at)) // offline: still counted
		held = append(held, info)
	}
	fourth := fleetgate.Info{ID: uuid.NewString(), Name: "a-3"}
	err := e.g.RobotOnline(e.ctx, fourth, homeA, at)
	if fleetgate.ErrorCode(err) != fleetgate.EConflict || !strings.Contains(fleetgate.ErrorMessage(err), "already has 3 robots") ||
		!strings.Contains(fleetgate.ErrorMessage(err), "--agent-max-robots") {
		t.Fatalf("the 4th robot: %v, want a conflict saying the agent has 3 robots, the most --agent-max-robots allows", err)
	}
	if _, err := e.db.Robot(e.ctx, fourth.ID); fleetgate.ErrorCode(err) != fleetgate.ENotFound {
		t.Errorf("the refused robot was recorded: %v", err)
	}
	e.must(e.g.RobotOnline(e.ctx, held[0], homeA, at.Add(time.Minute)))                          // one it holds
	e.must(e.g.RobotOnline(e.ctx, fleetgate.Info{ID: uuid.NewString(), Name: "b-0"}, homeB, at)) // another agent
	e.must(e.g.RobotOnline(e.ctx, fleetgate.Info{ID: uuid.NewString(), Name: "local"}, fleet.Home{FleetID: e.fleet.ID}, at))

	// 31 days on, the robots not back since are stale; an admin removes them, and the agent
	// has room again.
	e.clock.Advance(31 * 24 * time.Hour)
	admin := e.login(e.adminSecret)
	removed, err := e.g.RemoveStaleRobots(e.ctx, admin, gateway.StaleRobotAge)
	e.must(err)
	if len(removed) != 5 {
		t.Errorf("removed %d stale robots, want 5 (a-0 to a-2, b-0, local)", len(removed))
	}
	e.must(e.g.RobotOnline(e.ctx, fourth, homeA, e.clock.Now()))
	if !strings.Contains(logs.String(), "robot record removed") || !strings.Contains(logs.String(), "by=admin@localhost") {
		t.Errorf("no audit line for the removal:\n%s", logs.String())
	}
}

// TestRemoveStaleRobots: only organization admins remove stale records (not through a
// read-only or one-fleet token), only of robots not online for the age given (seen last, or
// recorded and never seen, before it), never one online now, never with an age under a day.
func TestRemoveStaleRobots(t *testing.T) {
	var logs bytes.Buffer
	online := presence{}
	e := newEnv(t, withPresence(online), func(c *gateway.Config) { c.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	now := e.clock.Now()
	robot := func(name string, created, seen time.Time) fleetgate.Robot {
		r := fleetgate.Robot{ID: uuid.NewString(), OrgID: e.org.ID, FleetID: e.fleet.ID, Name: name, CreatedAt: created, LastSeen: seen}
		e.must(e.db.CreateRobot(e.ctx, r))
		return r
	}
	long, recent := now.Add(-31*24*time.Hour), now.Add(-29*24*time.Hour)
	cases := []struct {
		robot fleetgate.Robot
		stale bool
	}{
		{robot("seen 31 days ago", long.Add(-time.Hour), long), true},
		{robot("never seen, recorded 31 days ago", long, time.Time{}), true},
		{robot("seen 29 days ago", long, recent), false},
		{robot("never seen, recorded 29 days ago", recent, time.Time{}), false},
		{robot("online, its record not refreshed yet", long, long), false},
	}
	online[cases[4].robot.ID] = true

	operator := e.addUser(e.org.ID, "op@example.com", false, map[string]fleetgate.Role{cases[0].robot.ID: fleetgate.RoleAdmin})
	for name, c := range map[string]*gateway.Caller{
		"a robot's admin":       e.login(e.addToken(operator, fleetgate.ScopeFull, "")),
		"an org admin's kiosk":  e.login(e.addToken(e.admin, fleetgate.ScopeRead, e.fleet.ID)),
		"a one-fleet org token": e.login(e.addToken(e.admin, fleetgate.ScopeFull, e.fleet.ID)),
	} {
		if _, err := e.g.RemoveStaleRobots(e.ctx, c, gateway.StaleRobotAge); fleetgate.ErrorCode(err) != fleetgate.EForbidden {
			t.Errorf("%s removes stale robots: %v, want forbidden", name, err)
		}
		if _, err := e.g.StaleRobots(e.ctx, c, gateway.StaleRobotAge); fleetgate.ErrorCode(err) != fleetgate.EForbidden {
			t.Errorf("%s lists stale robots: %v, want forbidden", name, err)
		}
	}
	admin := e.login(e.adminSecret)
	if _, err := e.g.RemoveStaleRobots(e.ctx, admin, 23*time.Hour); fleetgate.ErrorCode(err) != fleetgate.EInvalid {
		t.Errorf("an age of 23h: %v, want invalid", err)
	}
	listed, err := e.g.StaleRobots(e.ctx, admin, gateway.StaleRobotAge)
	e.must(err)
	removed, err := e.g.RemoveStaleRobots(e.ctx, admin, gateway.StaleRobotAge)
	e.must(err)
	if len(listed) != len(removed) {
		t.Errorf("listed %d stale robots, removed %d", len(listed), len(removed))
	}
	for _, c := range cases {
		_, err := e.db.Robot(e.ctx, c.robot.ID)
		if gone := fleetgate.ErrorCode(err) == fleetgate.ENotFound; gone != c.stale {
			t.Errorf("%s: removed %v, want %v", c.robot.Name, gone, c.stale)
		}
		if logged := strings.Contains(logs.String(), "robot="+c.robot.ID); logged != c.stale {
			t.Errorf("%s: in the audit log %v, want %v", c.robot.Name, logged, c.stale)
		}
	}
}
