package gateway_test

import (
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

var flags = gateway.DelayPolicy{Full: 300 * time.Millisecond, Quarter: 1200 * time.Millisecond, Stop: 3 * time.Second}

func withTeleopDelay(p gateway.DelayPolicy) envOption {
	return func(c *gateway.Config) { c.TeleopDelay = p }
}

// The door reads a robot's own thresholds while it has them and the gateway's flags
// otherwise; one robot's never govern another.
func TestTheDoorReadsARobotsOwnDelaysOrTheFlags(t *testing.T) {
	e := newEnv(t, withTeleopDelay(flags))
	admin := e.login(e.adminSecret)
	one, two := e.addRobot(e.fleet, "one"), e.addRobot(e.fleet, "two")
	if got := e.g.TeleopDelayPolicy(e.ctx, one.ID); got != flags {
		t.Fatalf("before any setting: %+v, want the flags %+v", got, flags)
	}
	own := gateway.DelayPolicy{Full: 100 * time.Millisecond, Quarter: 600 * time.Millisecond, Stop: 1500 * time.Millisecond}
	s, err := e.g.SetTeleopSettings(e.ctx, admin, one.ID, own)
	if err != nil {
		t.Fatal(err)
	}
	if s.Delays != own || !s.Custom || s.UpdatedBy != gateway.BootstrapAdminEmail || !s.UpdatedAt.Equal(e.clock.Now()) {
		t.Fatalf("set answers %+v", s)
	}
	if got := e.g.TeleopDelayPolicy(e.ctx, one.ID); got != own {
		t.Errorf("robot one: %+v, want its own %+v", got, own)
	}
	if got := e.g.TeleopDelayPolicy(e.ctx, two.ID); got != flags {
		t.Errorf("robot two: %+v, want the flags %+v", got, flags)
	}
	if s, err = e.g.ResetTeleopSettings(e.ctx, admin, one.ID); err != nil || s.Custom || s.Delays != flags {
		t.Fatalf("reset answers %+v, %v; want the flags", s, err)
	}
	if got := e.g.TeleopDelayPolicy(e.ctx, one.ID); got != flags {
		t.Errorf("after reset: %+v, want the flags", got)
	}
}

// A store that cannot be read never leaves a session ungoverned: the flags apply.
func TestAnUnreadableStoreGovernsByTheFlags(t *testing.T) {
	e := newEnv(t, withTeleopDelay(flags))
	admin := e.login(e.adminSecret)
	r := e.addRobot(e.fleet, "one")
	if _, err := e.g.SetTeleopSettings(e.ctx, admin, r.ID, gateway.DelayPolicy{Full: 100 * time.Millisecond, Quarter: 600 * time.Millisecond, Stop: 1500 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	e.must(e.db.Close())
	if got := e.g.TeleopDelayPolicy(e.ctx, r.ID); got != flags {
		t.Errorf("with the store closed: %+v, want the flags %+v", got, flags)
	}
}

// The bounds are inclusive (10 ms and 30 s, the quarter equal to the stop); a Developer reads
// the settings but may not change them, and a read-only token may not either.
func TestTeleopSettingsBoundsAndRoles(t *testing.T) {
	e := newEnv(t)
	admin := e.login(e.adminSecret)
	r := e.addRobot(e.fleet, "one")
	edge := gateway.DelayPolicy{Full: gateway.MinTeleopDelay, Quarter: gateway.MaxTeleopDelay, Stop: gateway.MaxTeleopDelay}
	if _, err := e.g.SetTeleopSettings(e.ctx, admin, r.ID, edge); err != nil {
		t.Fatalf("the bounds themselves: %v", err)
	}
	for _, p := range []gateway.DelayPolicy{
		{Full: gateway.MinTeleopDelay - time.Millisecond, Quarter: time.Second, Stop: 2 * time.Second},
		{Full: 100 * time.Millisecond, Quarter: time.Second, Stop: gateway.MaxTeleopDelay + time.Millisecond},
		{Full: time.Second, Quarter: time.Second, Stop: 2 * time.Second},
	} {
		if _, err := e.g.SetTeleopSettings(e.ctx, admin, r.ID, p); !fleetgate.Is(err, fleetgate.EInvalid) {
			t.Errorf("%+v: %v, want EInvalid", p, err)
		}
	}
	dev := e.login(e.addToken(e.addUser(e.org.ID, "dev@example.com", false, map[string]fleetgate.Role{r.ID: fleetgate.RoleDeveloper}), fleetgate.ScopeFull, ""))
	if s, err := e.g.TeleopSettings(e.ctx, dev, r.ID); err != nil || s.Delays != edge {
		t.Errorf("a Developer reads %+v, %v", s, err)
	}
	if _, err := e.g.SetTeleopSettings(e.ctx, dev, r.ID, edge); !fleetgate.Is(err, fleetgate.EForbidden) {
		t.Errorf("a Developer sets: %v, want EForbidden", err)
	}
	kiosk := e.login(e.addToken(e.admin, fleetgate.ScopeRead, ""))
	if _, err := e.g.ResetTeleopSettings(e.ctx, kiosk, r.ID); !fleetgate.Is(err, fleetgate.EForbidden) {
		t.Errorf("a read-only token resets: %v, want EForbidden", err)
	}
}
