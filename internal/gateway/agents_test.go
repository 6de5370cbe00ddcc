package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/store"
)

// addAgent provisions an agent in the default fleet and returns it with its key.
func (e *env) addAgent(name string) (fleetgate.Agent, string) {
	e.t.Helper()
	a, key, err := e.g.AddAgent(e.ctx, name, "")
	e.must(err)
	return a, key
}

func TestAuthenticateAgent(t *testing.T) {
	e := newEnv(t)
	dock, key := e.addAgent("dock")
	if dock.OrgID != e.org.ID {
		t.Errorf("AddAgent: OrgID %q, want %q", dock.OrgID, e.org.ID)
	}
	start := e.clock.Now()
	a, err := e.g.AuthenticateAgent(e.ctx, key, "192.0.2.1")
	if err != nil {
		t.Fatalf("AuthenticateAgent: %v", err)
	}
	want := dock
	want.LastSeen = start
	if a != want {
		t.Errorf("agent = %+v, want %+v", a, want)
	}
	stored, err := e.db.Agent(e.ctx, dock.ID)
	if err != nil || !stored.LastSeen.Equal(start) {
		t.Errorf("stored last seen = %v, %v; want %v", stored.LastSeen, err, start)
	}

	e.clock.Advance(time.Minute)
	if _, err := e.g.AuthenticateAgent(e.ctx, key, "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	if stored, _ := e.db.Agent(e.ctx, dock.ID); !stored.LastSeen.Equal(start.Add(time.Minute)) {
		t.Errorf("last seen after a second connection = %v, want %v", stored.LastSeen, start.Add(time.Minute))
	}
}

func TestAuthenticateAgentRefusals(t *testing.T) {
	e := newEnv(t)
	_, key := e.addAgent("dock")
	revoked, revokedKey := e.addAgent("old")
	_, err := e.g.RevokeAgent(e.ctx, revoked.Name)
	e.must(err)

	tests := []struct {
		name string
		key  string
	}{
		{"empty", ""},
		{"malformed", "not-a-key"},
		{"too short", key[:len(key)-1]},
		{"too long", key + "x"},
		{"with spaces", " " + key},
		{"an API token", e.adminSecret},
		{"unknown", gateway.NewSecret(gateway.AgentKeyPrefix, 40)},
		{"revoked", revokedKey},
	}
	var message string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// 8 refusals from one address: under the limit of 10.
			a, err := e.g.AuthenticateAgent(e.ctx, tt.key, "192.0.2.1")
			wantCode(t, "AuthenticateAgent", err, fleetgate.EUnauthorized)
			if a != (fleetgate.Agent{}) {
				t.Errorf("a refused key returned agent %+v", a)
			}
			// One message for every refusal: the answer must not tell a revoked key from a
			// made-up one.
			if message == "" {
				message = fleetgate.ErrorMessage(err)
			} else if got := fleetgate.ErrorMessage(err); got != message {
				t.Errorf("message %q, want %q like the other refusals", got, message)
			}
		})
	}
	if stored, _ := e.db.Agent(e.ctx, revoked.ID); !stored.LastSeen.IsZero() {
		t.Errorf("a refused key recorded last seen %v", stored.LastSeen)
	}
}

func TestAgentFailureLimit(t *testing.T) {
	e := newEnv(t)
	_, key := e.addAgent("dock")
	const attacker, neighbour, agent = "203.0.113.7", "203.0.113.8", "198.51.100.1"
	bad := gateway.NewSecret(gateway.AgentKeyPrefix, 40)

	// Correct keys do not count: many of them, then 9 failures, still allowed.
	for range 15 {
		if _, err := e.g.AuthenticateAgent(e.ctx, key, agent); err != nil {
			t.Fatalf("correct key: %v", err)
		}
	}
	for range 9 {
		_, err := e.g.AuthenticateAgent(e.ctx, bad, agent)
		wantCode(t, "bad key", err, fleetgate.EUnauthorized)
	}
	if _, err := e.g.AuthenticateAgent(e.ctx, key, agent); err != nil {
		t.Errorf("after 15 correct keys and 9 failures: %v; want allowed", err)
	}

	// 10 failures a second apart, malformed keys included.
	first := e.clock.Now()
	for i := range 10 {
		k := bad
		if i%2 == 1 {
			k = "garbage"
		}
		_, err := e.g.AuthenticateAgent(e.ctx, k, attacker)
		wantCode(t, fmt.Sprintf("failure %d", i+1), err, fleetgate.EUnauthorized)
		e.clock.Advance(time.Second)
	}
	// The 11th wrong key is answered 429; a valid key is checked before any limit and let in
	// (a warehouse's agents behind one NAT are not locked out by one misconfigured machine).
	_, err := e.g.AuthenticateAgent(e.ctx, bad, attacker)
	wantCode(t, "11th attempt", err, fleetgate.ERateLimited)
	wait := fleetgate.RetryAfter(err)
	if want := first.Add(time.Minute).Sub(e.clock.Now()); wait != want {
		t.Errorf("RetryAfter = %v, want %v (until the first failure leaves the window)", wait, want)
	}
	if _, err := e.g.AuthenticateAgent(e.ctx, key, attacker); err != nil {
		t.Errorf("a valid key from the throttled address: %v, want allowed", err)
	}

	// Another address is unaffected, and so are logins from the attacker's address: the two
	// limits are counted apart.
	if _, err := e.g.AuthenticateAgent(e.ctx, key, neighbour); err != nil {
		t.Errorf("another address: %v, want allowed", err)
	}
	if _, _, err := e.g.Login(e.ctx, e.adminSecret, attacker); err != nil {
		t.Errorf("a login from the blocked address: %v, want allowed", err)
	}

	e.clock.Advance(wait - time.Millisecond)
	_, err = e.g.AuthenticateAgent(e.ctx, bad, attacker)
	wantCode(t, "1 ms before the window passes", err, fleetgate.ERateLimited)
	e.clock.Advance(time.Millisecond)
	_, err = e.g.AuthenticateAgent(e.ctx, bad, attacker)
	wantCode(t, "after the window", err, fleetgate.EUnauthorized)
}

func TestLoginFailuresDoNotBlockAgents(t *testing.T) {
	e := newEnv(t)
	_, key := e.addAgent("dock")
	const addr = "203.0.113.7"
	for range 10 {
		_, _, err := e.g.Login(e.ctx, gateway.NewAPIToken(), addr)
		wantCode(t, "bad login", err, fleetgate.EUnauthorized)
	}
	_, _, err := e.g.Login(e.ctx, gateway.NewAPIToken(), addr)
	wantCode(t, "11th login", err, fleetgate.ERateLimited)
	if _, err := e.g.AuthenticateAgent(e.ctx, key, addr); err != nil {
		t.Errorf("agent from an address blocked for logins: %v, want allowed", err)
	}
	// And the other way round: an address throttled for agent keys still logs in.
	for range 11 {
		e.g.AuthenticateAgent(e.ctx, "garbage", "203.0.113.8")
	}
	_, err = e.g.AuthenticateAgent(e.ctx, "garbage", "203.0.113.8")
	wantCode(t, "12th bad key", err, fleetgate.ERateLimited)
	_, err = e.g.PasswordLogin(e.ctx, "nobody@localhost", "wrong", "203.0.113.8")
	wantCode(t, "a login from an address throttled for agent keys", err, fleetgate.EUnauthorized)
}

// failingTouch is the store with a TouchAgent that always fails.
type failingTouch struct{ *store.DB }

func (failingTouch) TouchAgent(context.Context, string, time.Time) error {
	return errors.New("disk full")
}

func TestAuthenticateAgentSurvivesAFailedTouch(t *testing.T) {
	e := newEnv(t)
	_, key := e.addAgent("dock")
	var logs strings.Builder
	g := gateway.New(gateway.Config{
		Store:  failingTouch{e.db},
		Now:    e.clock.Now,
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
	})
	a, err := g.AuthenticateAgent(e.ctx, key, "192.0.2.1")
	if err != nil {
		t.Fatalf("AuthenticateAgent with a failing TouchAgent: %v, want the agent", err)
	}
	if a.Name != "dock" || !a.LastSeen.IsZero() {
		t.Errorf("agent = %+v; want dock, last seen not claimed", a)
	}
	if !strings.Contains(logs.String(), "disk full") || !strings.Contains(logs.String(), a.ID) {
		t.Errorf("the failure is not logged:\n%s", logs.String())
	}
}

func TestRevokedAgents(t *testing.T) {
	e := newEnv(t)
	dock, _ := e.addAgent("dock")
	yard, _ := e.addAgent("yard")
	revoked, err := e.g.RevokedAgents(e.ctx, []string{dock.ID, yard.ID})
	e.must(err)
	if len(revoked) != 0 {
		t.Errorf("revoked before any revocation: %v", revoked)
	}
	_, err = e.g.RevokeAgent(e.ctx, dock.ID)
	e.must(err)
	revoked, err = e.g.RevokedAgents(e.ctx, []string{dock.ID, yard.ID, "no-such-agent"})
	e.must(err)
	if !slices.Equal(revoked, []string{dock.ID, "no-such-agent"}) {
		t.Errorf("revoked = %v, want the revoked agent and the unknown one", revoked)
	}
	// More ids than one query takes.
	many := make([]string, 1200)
	for i := range many {
		many[i] = yard.ID
	}
	many[1100] = dock.ID
	revoked, err = e.g.RevokedAgents(e.ctx, many)
	e.must(err)
	if len(revoked) != 1 || revoked[0] != dock.ID {
		t.Errorf("revoked among 1,200 ids: %v", revoked)
	}
}

func TestRevokeAgent(t *testing.T) {
	w := newWorld(t)
	dock, _, err := w.g.AddAgent(w.ctx, "dock", "")
	w.must(err)
	yard, _, err := w.g.AddAgent(w.ctx, "yard", "second")
	w.must(err)
	_, _, err = w.g.AddAgent(w.ctx, "bay", "")
	w.must(err)
	// An agent of another organization, which the operator commands never reach.
	stranger := fleetgate.Agent{ID: "agent-stranger", Name: "stranger", FleetID: w.otherFleet.ID, KeyHash: "s", CreatedAt: w.clock.Now()}
	w.must(w.db.CreateAgent(w.ctx, stranger))

	tests := []struct {
		name     string
		nameOrID string
		want     fleetgate.Agent
		code     string
	}{
		{"by name", "dock", dock, ""},
		{"by id, in another fleet", yard.ID, yard, ""},
		{"by name with spaces", "  bay ", fleetgate.Agent{Name: "bay"}, ""},
		{"again", "dock", fleetgate.Agent{}, fleetgate.EConflict},
		{"again by id", yard.ID, fleetgate.Agent{}, fleetgate.EConflict},
		{"empty", "", fleetgate.Agent{}, fleetgate.EInvalid},
		{"blank", "  ", fleetgate.Agent{}, fleetgate.EInvalid},
		{"unknown", "nobody", fleetgate.Agent{}, fleetgate.ENotFound},
		{"another organization's, by id", stranger.ID, fleetgate.Agent{}, fleetgate.ENotFound},
		{"another organization's, by name", stranger.Name, fleetgate.Agent{}, fleetgate.ENotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w.clock.Advance(time.Second)
			a, err := w.g.RevokeAgent(w.ctx, tt.nameOrID)
			wantCode(t, "RevokeAgent", err, tt.code)
			if tt.code != "" {
				if tt.code == fleetgate.EConflict && !strings.Contains(fleetgate.ErrorMessage(err), "already revoked") {
					t.Errorf("message %q does not say already revoked", fleetgate.ErrorMessage(err))
				}
				return
			}
			if a.Name != tt.want.Name || (tt.want.ID != "" && a.ID != tt.want.ID) || !a.RevokedAt.Equal(w.clock.Now()) {
				t.Errorf("revoked %+v, want %s revoked at %v", a, tt.want.Name, w.clock.Now())
			}
			stored, err := w.db.Agent(w.ctx, a.ID)
			if err != nil || stored != a {
				t.Errorf("stored %+v, %v; want %+v", stored, err, a)
			}
		})
	}
	if s, _ := w.db.Agent(w.ctx, stranger.ID); !s.RevokedAt.IsZero() {
		t.Error("the other organization's agent was revoked")
	}
}

func TestAgents(t *testing.T) {
	w := newWorld(t)
	for _, a := range []struct{ name, fleet string }{{"yard", ""}, {"dock", "second"}, {"bay", ""}} {
		_, _, err := w.g.AddAgent(w.ctx, a.name, a.fleet)
		w.must(err)
	}
	w.must(w.db.CreateAgent(w.ctx, fleetgate.Agent{ID: "agent-stranger", Name: "aardvark", FleetID: w.otherFleet.ID, KeyHash: "s", CreatedAt: w.clock.Now()}))
	_, err := w.g.RevokeAgent(w.ctx, "dock")
	w.must(err)

	agents, err := w.g.Agents(w.ctx)
	w.must(err)
	var got []string
	for _, a := range agents {
		got = append(got, fmt.Sprintf("%s@%s revoked=%v", a.Name, a.FleetID, !a.RevokedAt.IsZero()))
	}
	want := []string{
		"bay@" + w.fleet.ID + " revoked=false",
		"dock@" + w.second.ID + " revoked=true",
		"yard@" + w.fleet.ID + " revoked=false",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Agents =\n%s\nwant (by name, this organization only)\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestAgentCallsBeforeBootstrap(t *testing.T) {
	e := newEmptyEnv(t)
	_, err := e.g.Agents(e.ctx)
	wantCode(t, "Agents", err, fleetgate.ENotFound)
	_, err = e.g.RevokeAgent(e.ctx, "dock")
	wantCode(t, "RevokeAgent", err, fleetgate.ENotFound)
	_, err = e.g.AuthenticateAgent(e.ctx, gateway.NewSecret(gateway.AgentKeyPrefix, 40), "192.0.2.1")
	wantCode(t, "AuthenticateAgent", err, fleetgate.EUnauthorized)
}
