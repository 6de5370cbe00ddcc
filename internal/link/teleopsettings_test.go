package link

import (
	"context"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// keeper is a robot whose thresholds its host keeps; it answers with what it was asked.
type keeper struct {
	fleet.Robot
	asked fleet.TeleopSettingsRequest
	at    time.Time
}

func (k *keeper) TeleopSettings(_ context.Context, req fleet.TeleopSettingsRequest) (fleet.TeleopSettings, error) {
	k.asked = req
	if req.Set == nil {
		return fleet.TeleopSettings{Delays: fleetgate.TeleopDelays{Full: 250 * time.Millisecond, Quarter: time.Second, Stop: 2 * time.Second}}, nil
	}
	d := *req.Set
	d.UpdatedBy, d.UpdatedAt = req.User+" via the cloud", k.at
	return fleet.TeleopSettings{Delays: d, Custom: true}, nil
}

// TestTeleopSettingsCrossTheLink: a request (user, role, action) and its answer (the
// thresholds, custom, who and when) cross the wire whole, each way through Answer; a host
// older than the request keeps the thresholds on its own page, and the client says so.
func TestTeleopSettingsCrossTheLink(t *testing.T) {
	k := &keeper{at: time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC)}
	wire := Client{Peer: "the agent", Do: func(ctx context.Context, req *linkpb.Request) (*linkpb.Response, error) {
		data, _ := proto.Marshal(req)
		var got linkpb.Request
		if err := proto.Unmarshal(data, &got); err != nil {
			return nil, err
		}
		resp, err := Answer(ctx, k, &got, nil)
		if err != nil {
			return nil, err
		}
		data, _ = proto.Marshal(resp)
		var back linkpb.Response
		return &back, proto.Unmarshal(data, &back)
	}}
	ctx := context.Background()
	own := fleetgate.TeleopDelays{Full: 100 * time.Millisecond, Quarter: 700 * time.Millisecond, Stop: 1500 * time.Millisecond}
	s, err := wire.TeleopSettings(ctx, fleet.TeleopSettingsRequest{User: "boss@example.com", Role: fleetgate.RoleAdmin, Set: &own})
	if err != nil {
		t.Fatal(err)
	}
	if k.asked.User != "boss@example.com" || k.asked.Role != fleetgate.RoleAdmin || k.asked.Set == nil || *k.asked.Set != own || k.asked.Reset {
		t.Errorf("the host was asked %+v", k.asked)
	}
	want := own
	want.UpdatedBy, want.UpdatedAt = "boss@example.com via the cloud", k.at
	if !s.Custom || s.Delays != want {
		t.Errorf("answered %+v, want %+v", s, want)
	}
	if _, err := wire.TeleopSettings(ctx, fleet.TeleopSettingsRequest{User: "op@example.com", Role: fleetgate.RoleOperator, Reset: true}); err != nil || !k.asked.Reset || k.asked.Set != nil {
		t.Errorf("a reset reached the host as %+v, %v", k.asked, err)
	}
	if s, err := wire.TeleopSettings(ctx, fleet.TeleopSettingsRequest{User: "op@example.com", Role: fleetgate.RoleOperator}); err != nil || s.Custom || !s.Delays.UpdatedAt.IsZero() || k.asked.Reset {
		t.Errorf("a read: %+v, %v (asked %+v)", s, err, k.asked)
	}

	older := Client{Peer: "the agent", Do: func(ctx context.Context, _ *linkpb.Request) (*linkpb.Response, error) {
		return Answer(ctx, k, &linkpb.Request{}, nil) // the request's op is unknown to it
	}}
	if _, err := older.TeleopSettings(ctx, fleet.TeleopSettingsRequest{User: "op@example.com", Role: fleetgate.RoleOperator}); !fleetgate.Is(err, fleetgate.EConflict) {
		t.Errorf("an older agent: %v, want EConflict", err)
	}
}

// TestAGrantSaysItsThresholds: the thresholds a grant carries come back whole, and a grant
// without them says none.
func TestAGrantSaysItsThresholds(t *testing.T) {
	own := fleetgate.TeleopDelays{Full: 100 * time.Millisecond, Quarter: 700 * time.Millisecond, Stop: 1500 * time.Millisecond}
	if d, said := GrantedDelays(Granted(fleet.GovernedBy(own))).Delays(); !said || d != own {
		t.Errorf("a grant with %+v came back as %+v (said %v)", own, d, said)
	}
	if _, said := GrantedDelays(Granted(fleet.Governed{})).Delays(); said {
		t.Error("a grant without thresholds says some")
	}
}
