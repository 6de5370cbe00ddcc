package door_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock/clocktest"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
	"github.com/fleetgate/fleetgate/internal/logtest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

const (
	twist  = teleop.TwistType
	str    = "Platform.Messages.std_msgs.String"
	robot1 = "11111111-1111-4111-8111-111111111111"
)

var (
	cmdVel = fleetgate.StreamKey{Component: "base", Name: "cmd_vel", Source: fleetgate.SourceComponent}
	say    = fleetgate.StreamKey{Component: "base", Name: "say", Source: fleetgate.SourceComponent}
	pose   = fleetgate.StreamKey{Component: "base", Name: "pose", Source: fleetgate.SourceComponent}
	alice  = door.Who{User: "alice@example.com", Path: door.PathW3}
	bob    = door.Who{User: "bob@example.com", Path: door.PathUpload}
)

// newRobot is a robot with a Twist input limited to 1 m/s and 1.5 rad/s, a String input and
// a pose output.
func newRobot() *fleettest.Robot {
	return &fleettest.Robot{ID: robot1, Name: "one", StreamList: []fleetgate.Stream{
		{Component: "base", Name: "cmd_vel", Type: twist, Direction: fleetgate.Input, Source: fleetgate.SourceComponent,
			Limits: fleetgate.SpeedLimits{Linear: 1, Angular: 1.5}},
		{Component: "base", Name: "say", Type: str, Direction: fleetgate.Input, Source: fleetgate.SourceComponent},
		{Component: "base", Name: "pose", Type: "Platform.Messages.geometry_msgs.PoseStamped", Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
	}}
}

func newDoor(t *testing.T) (*door.Door, *clocktest.Fake, *logtest.Buffer) {
	t.Helper()
	c := clocktest.New()
	logs := &logtest.Buffer{}
	d := door.New(door.Config{Clock: c, Log: slog.New(slog.NewTextHandler(logs, nil))})
	t.Cleanup(d.Close)
	return d, c, logs
}

// twistsOf decodes what the robot received on cmd_vel, as (linear.x, angular.z) pairs.
func twistsOf(t *testing.T, r *fleettest.Robot) [][2]float64 {
	t.Helper()
	var out [][2]float64
	for _, p := range r.Published() {
		if p.Key != cmdVel {
			continue
		}
		var m catalogpb.Twist
		if err := proto.Unmarshal(p.Payload, &m); err != nil {
			t.Fatalf("the robot received a payload that is not a Twist: %v", err)
		}
		out = append(out, [2]float64{m.GetLinear().GetX(), m.GetAngular().GetZ()})
	}
	return out
}

func wantTwists(t *testing.T, r *fleettest.Robot, want ...[2]float64) {
	t.Helper()
	got := twistsOf(t, r)
	if len(got) != len(want) {
		t.Fatalf("the robot received %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("the robot received %v, want %v", got, want)
		}
	}
}

func TestSendHoldsCommandsToTheLimits(t *testing.T) {
	tests := []struct {
		name    string
		x, z    float64
		want    string // error code; "" when it goes through
		arrives [2]float64
	}{
		{"within the limits", 0.5, -0.25, "", [2]float64{0.5, -0.25}},
		{"clamped", 5, 3, "", [2]float64{1, 1.5}},
		{"clamped backwards", -9.9, -14.9, "", [2]float64{-1, -1.5}},
		{"beyond 10x linear", 50, 0, fleetgate.EInvalid, [2]float64{}},
		{"beyond 10x angular", 0, -15.1, fleetgate.EInvalid, [2]float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, _, logs := newDoor(t)
			r := newRobot()
			err := d.Send(context.Background(), r, cmdVel, twist, fleettest.TwistPayload(tt.x, tt.z), bob)
			if tt.want != "" {
				if !fleetgate.Is(err, tt.want) {
					t.Fatalf("Send = %v, want %s", err, tt.want)
				}
				wantTwists(t, r)
				if !strings.Contains(logs.String(), "the door refused a command") || !strings.Contains(logs.String(), bob.User) {
					t.Errorf("the refusal was not logged with its user: %q", logs.String())
				}
				return
			}
			if err != nil {
				t.Fatalf("Send = %v", err)
			}
			wantTwists(t, r, tt.arrives)
		})
	}
}

func TestSendChecksTheStreamAndMessage(t *testing.T) {
	d, _, _ := newDoor(t)
	r := newRobot()
	ctx := context.Background()
	nan := mustMarshal(t, &catalogpb.Twist{Linear: &catalogpb.Vector3{X: nanValue()}})
	tests := []struct {
		name    string
		key     fleetgate.StreamKey
		typ     string
		payload []byte
		want    string
	}{
		{"an output stream", pose, "Platform.Messages.geometry_msgs.PoseStamped", nil, fleetgate.EInvalid},
		{"no such stream", fleetgate.StreamKey{Component: "base", Name: "teleport", Source: 1}, twist, nil, fleetgate.ENotFound},
		{"another type", cmdVel, str, mustMarshal(t, &catalogpb.String{Data: "hi"}), fleetgate.EInvalid},
		{"garbage", cmdVel, twist, []byte{0xff, 0xff, 0xff}, fleetgate.EInvalid},
		{"not finite", cmdVel, twist, nan, fleetgate.EInvalid},
	}
	for _, tt := range tests {
		if err := d.Send(ctx, r, tt.key, tt.typ, tt.payload, bob); !fleetgate.Is(err, tt.want) {
			t.Errorf("%s: Send = %v, want %s", tt.name, err, tt.want)
		}
	}
	if got := r.Published(); len(got) != 0 {
		t.Errorf("the robot received %+v", got)
	}
	// A message that is not a movement command needs no lease and has no speeds.
	if _, err := d.Take(ctx, r, cmdVel, alice); err != nil {
		t.Fatal(err)
	}
	if err := d.Send(ctx, r, say, str, mustMarshal(t, &catalogpb.String{Data: "hi"}), bob); err != nil {
		t.Fatalf("Send of a String = %v", err)
	}
	if got := r.Published(); len(got) != 1 || got[0].Key != say {
		t.Errorf("the robot received %+v, want the String", got)
	}
}

func TestOnlyTheHolderDrives(t *testing.T) {
	d, c, _ := newDoor(t)
	r := newRobot()
	ctx := context.Background()
	ctl, err := d.Take(ctx, r, cmdVel, alice)
	if err != nil {
		t.Fatal(err)
	}
	since := c.Now()
	c.Advance(time.Second)
	// Somebody else: refused on every path, naming the holder and since when.
	for _, who := range []door.Who{bob, {User: bob.User, Path: door.PathLink}, {User: "carol@example.com", Path: door.PathCloudW3}} {
		err := d.Send(ctx, r, cmdVel, twist, fleettest.TwistPayload(0.5, 0), who)
		held, ok := fleetgate.HeldBy(err)
		if !ok || held.Owner != alice.User || !held.Since.Equal(since) {
			t.Fatalf("Send by %v = %v, want held by %s since %v", who, err, alice.User, since)
		}
		if _, err := d.Take(ctx, r, cmdVel, who); !fleetgate.Is(err, fleetgate.EConflict) {
			t.Fatalf("Take by %v = %v, want a conflict", who, err)
		}
	}
	wantTwists(t, r)
	// The holder's own upload goes through the holder's controller.
	if err := d.Send(ctx, r, cmdVel, twist, fleettest.TwistPayload(0.5, 0), door.Who{User: alice.User, Path: door.PathUpload}); err != nil {
		t.Fatalf("the holder's upload: %v", err)
	}
	wantTwists(t, r, [2]float64{0.5, 0})
	if held := d.Held(robot1); len(held) != 1 || held[0].Owner != alice.User || held[0].Key != cmdVel {
		t.Fatalf("Held = %+v", held)
	}
	// Let go: a zero, and the stream is free.
	if err := ctl.Stop(); err != nil {
		t.Fatal(err)
	}
	wantTwists(t, r, [2]float64{0.5, 0}, [2]float64{0, 0})
	if held := d.Held(robot1); len(held) != 0 {
		t.Fatalf("Held after Stop = %+v", held)
	}
	if err := d.Send(ctx, r, cmdVel, twist, fleettest.TwistPayload(0.2, 0), bob); err != nil {
		t.Fatalf("Send after the holder let go: %v", err)
	}
}

func TestControlHoldsEachCommand(t *testing.T) {
	d, c, _ := newDoor(t)
	r := newRobot()
	ctl, err := d.Take(context.Background(), r, cmdVel, alice)
	if err != nil {
		t.Fatal(err)
	}
	if err := ctl.Command(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: 50}}); !fleetgate.Is(err, fleetgate.EInvalid) || !errors.Is(err, teleop.ErrBeyondLimits) {
		t.Fatalf("Command(x=50) = %v, want a refusal (invalid)", err)
	}
	wantTwists(t, r)
	if err := ctl.Command(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: 5}}); err != nil {
		t.Fatal(err)
	}
	wantTwists(t, r, [2]float64{1, 0})
	// The deadman: 500 ms after the last command, one zero.
	c.Advance(499 * time.Millisecond)
	wantTwists(t, r, [2]float64{1, 0})
	c.Advance(time.Millisecond)
	wantTwists(t, r, [2]float64{1, 0}, [2]float64{0, 0})
}

// An upload takes the stream for as long as its commands come: the rate cap paces them, the
// deadman's zero ends the lease, and then somebody else may drive.
func TestUploadLeaseLivesUntilTheDeadman(t *testing.T) {
	d, c, _ := newDoor(t)
	r := newRobot()
	ctx := context.Background()
	send := func(x float64, who door.Who) error {
		return d.Send(ctx, r, cmdVel, twist, fleettest.TwistPayload(x, 0), who)
	}
	if err := send(0.1, bob); err != nil {
		t.Fatal(err)
	}
	// Faster than 20 a second: coalesced, the newest goes out when the window opens.
	c.Advance(10 * time.Millisecond)
	if err := send(0.2, bob); err != nil {
		t.Fatal(err)
	}
	c.Advance(10 * time.Millisecond)
	if err := send(0.3, bob); err != nil {
		t.Fatal(err)
	}
	wantTwists(t, r, [2]float64{0.1, 0})
	c.Advance(30 * time.Millisecond) // 50 ms after the first
	wantTwists(t, r, [2]float64{0.1, 0}, [2]float64{0.3, 0})
	// The stream is bob's while his commands come.
	if err := send(0.5, alice); !fleetgate.Is(err, fleetgate.EConflict) {
		t.Fatalf("alice's upload while bob's lease lives: %v", err)
	}
	if _, err := d.Take(ctx, r, cmdVel, alice); !fleetgate.Is(err, fleetgate.EConflict) {
		t.Fatalf("alice's W3 while bob's lease lives: %v", err)
	}
	// 500 ms after bob's last command: the zero, and the lease ends.
	c.Advance(469 * time.Millisecond)
	wantTwists(t, r, [2]float64{0.1, 0}, [2]float64{0.3, 0})
	c.Advance(time.Millisecond)
	wantTwists(t, r, [2]float64{0.1, 0}, [2]float64{0.3, 0}, [2]float64{0, 0})
	if held := d.Held(robot1); len(held) != 0 {
		t.Fatalf("Held after the deadman = %+v", held)
	}
	if err := send(0.4, alice); err != nil {
		t.Fatalf("alice after bob's lease ended: %v", err)
	}
}

// A user's own upload lease gives way to their socket, with a zero before the socket drives.
func TestTakeOverOwnUpload(t *testing.T) {
	d, _, _ := newDoor(t)
	r := newRobot()
	ctx := context.Background()
	if err := d.Send(ctx, r, cmdVel, twist, fleettest.TwistPayload(0.5, 0), door.Who{User: alice.User, Path: door.PathUpload}); err != nil {
		t.Fatal(err)
	}
	ctl, err := d.Take(ctx, r, cmdVel, alice)
	if err != nil {
		t.Fatalf("Take over the own upload: %v", err)
	}
	wantTwists(t, r, [2]float64{0.5, 0}, [2]float64{0, 0})
	if err := ctl.Command(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: 0.7}}); err != nil {
		t.Fatal(err)
	}
	wantTwists(t, r, [2]float64{0.5, 0}, [2]float64{0, 0}, [2]float64{0.7, 0})
	if h := d.Held(robot1); len(h) != 1 || h[0].Owner != alice.User {
		t.Fatalf("Held = %+v", h)
	}
}

func TestCloseZeroesEveryStreamAndRefusesMore(t *testing.T) {
	d, _, _ := newDoor(t)
	r, r2 := newRobot(), newRobot()
	r2.ID = "22222222-2222-4222-8222-222222222222"
	ctx := context.Background()
	ctl, err := d.Take(ctx, r, cmdVel, alice)
	if err != nil {
		t.Fatal(err)
	}
	if err := ctl.Command(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: 0.5}}); err != nil {
		t.Fatal(err)
	}
	if err := d.Send(ctx, r2, cmdVel, twist, fleettest.TwistPayload(0.5, 0), bob); err != nil {
		t.Fatal(err)
	}
	d.Close()
	wantTwists(t, r, [2]float64{0.5, 0}, [2]float64{0, 0})
	wantTwists(t, r2, [2]float64{0.5, 0}, [2]float64{0, 0})
	if err := ctl.Stop(); err != nil { // the session's own stop after Close publishes nothing
		t.Fatal(err)
	}
	wantTwists(t, r, [2]float64{0.5, 0}, [2]float64{0, 0})
	if err := d.Send(ctx, r, cmdVel, twist, fleettest.TwistPayload(0.5, 0), bob); !fleetgate.Is(err, fleetgate.EUnavailable) {
		t.Fatalf("Send after Close = %v", err)
	}
	if _, err := d.Take(ctx, r, cmdVel, bob); !fleetgate.Is(err, fleetgate.EUnavailable) {
		t.Fatalf("Take after Close = %v", err)
	}
}

// A robot that reconnected is a new connection: an upload lease on the old one gives way to
// its user's next upload.
func TestUploadLeaseFollowsAReconnectedRobot(t *testing.T) {
	d, _, _ := newDoor(t)
	old, now := newRobot(), newRobot()
	ctx := context.Background()
	if err := d.Send(ctx, old, cmdVel, twist, fleettest.TwistPayload(0.5, 0), bob); err != nil {
		t.Fatal(err)
	}
	if err := d.Send(ctx, now, cmdVel, twist, fleettest.TwistPayload(0.6, 0), bob); err != nil {
		t.Fatal(err)
	}
	wantTwists(t, old, [2]float64{0.5, 0}, [2]float64{0, 0})
	wantTwists(t, now, [2]float64{0.6, 0})
}

// A publish that fails ends an upload's lease: the next upload starts afresh.
func TestFailedPublishEndsTheUploadLease(t *testing.T) {
	d, _, _ := newDoor(t)
	r := newRobot()
	ctx := context.Background()
	r.PublishErr = fleetgate.Errorf(fleetgate.EUnavailable, "the robot's driver is gone")
	if err := d.Send(ctx, r, cmdVel, twist, fleettest.TwistPayload(0.5, 0), bob); !fleetgate.Is(err, fleetgate.EUnavailable) {
		t.Fatalf("Send to a failing robot = %v", err)
	}
	if h := d.Held(robot1); len(h) != 0 {
		t.Fatalf("Held after a failed publish = %+v", h)
	}
	r.Lock()
	r.PublishErr = nil
	r.Unlock()
	if err := d.Send(ctx, r, cmdVel, twist, fleettest.TwistPayload(0.5, 0), alice); err != nil {
		t.Fatalf("Send after the robot came back = %v", err)
	}
}

// On a gateway that does not host the robot, the door hands the command to the host with its
// user; the host's door decides.
func TestSendToARemoteRobotGoesToItsHost(t *testing.T) {
	d, _, _ := newDoor(t)
	remote := &remoteRobot{Robot: newRobot()}
	err := d.Send(context.Background(), remote, cmdVel, twist, fleettest.TwistPayload(50, 0), bob)
	if !errors.Is(err, errHostSays) {
		t.Fatalf("Send = %v, want the host's answer", err)
	}
	if len(remote.sent) != 1 || remote.sent[0] != bob.User {
		t.Fatalf("the host got %v, want one command of %s", remote.sent, bob.User)
	}
}

var errHostSays = errors.New("the host's door decides")

type remoteRobot struct {
	*fleettest.Robot
	sent []string
}

func (r *remoteRobot) TakeControl(context.Context, fleetgate.StreamKey, string) (fleet.RemoteControl, error) {
	return nil, errHostSays
}

func (r *remoteRobot) Controls(context.Context) ([]fleetgate.Held, error) { return nil, nil }

func (r *remoteRobot) Send(_ context.Context, _ fleetgate.StreamKey, _ string, _ []byte, user string) error {
	r.sent = append(r.sent, user)
	return errHostSays
}

// A robot that takes no commands through the door cannot be driven.
func TestARobotWithoutInputTakesNothing(t *testing.T) {
	d, _, _ := newDoor(t)
	r := outputOnly{newRobot()}
	if err := d.Send(context.Background(), r, cmdVel, twist, fleettest.TwistPayload(0.5, 0), bob); !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Fatalf("Send = %v, want not found", err)
	}
}

// outputOnly hides the fleettest robot's Publish: a robot source without input streams.
type outputOnly struct{ r *fleettest.Robot }

func (o outputOnly) Info() fleetgate.Info { return o.r.Info() }
func (o outputOnly) Streams(ctx context.Context) ([]fleetgate.Stream, error) {
	return o.r.Streams(ctx)
}
func (o outputOnly) Read(ctx context.Context, k fleetgate.StreamKey) (fleetgate.Sample, error) {
	return o.r.Read(ctx, k)
}
func (o outputOnly) Subscribe(ctx context.Context, k fleetgate.StreamKey, opts fleetgate.SubscribeOptions) (*fleet.Subscription, error) {
	return o.r.Subscribe(ctx, k, opts)
}
func (o outputOnly) Metrics(ctx context.Context) ([]fleetgate.MetricType, error) {
	return o.r.Metrics(ctx)
}
func (o outputOnly) Metric(ctx context.Context, t fleetgate.MetricType, n string) (fleetgate.Metric, error) {
	return o.r.Metric(ctx, t, n)
}
func (o outputOnly) KPIs(ctx context.Context) ([]fleetgate.KPI, error) { return o.r.KPIs(ctx) }
func (o outputOnly) Resources(ctx context.Context) ([]fleetgate.Resource, error) {
	return o.r.Resources(ctx)
}
func (o outputOnly) OpenResource(ctx context.Context, id string) (fleet.ResourceFile, fleetgate.Resource, error) {
	return o.r.OpenResource(ctx, id)
}

// A Command made outside the door carries nothing: a source refuses it.
func TestACommandNotMadeByTheDoorOpensToAnError(t *testing.T) {
	r := newRobot()
	if err := r.Publish(context.Background(), door.Command{}); !fleetgate.Is(err, fleetgate.EInvalid) {
		t.Fatalf("Publish of a zero Command = %v", err)
	}
	if got := r.Published(); len(got) != 0 {
		t.Fatalf("the robot received %+v", got)
	}
}

// Real time, the whole path: commands at 15 Hz for a while, then silence; the zero comes
// about 500 ms after the last one.
func TestRealTimeUploadsAndDeadman(t *testing.T) {
	d := door.New(door.Config{})
	t.Cleanup(d.Close)
	r := newRobot()
	ctx := context.Background()
	tick := time.NewTicker(time.Second / 15)
	defer tick.Stop()
	var last time.Time
	for range 10 {
		<-tick.C
		if err := d.Send(ctx, r, cmdVel, twist, fleettest.TwistPayload(0.5, 0), bob); err != nil {
			t.Fatal(err)
		}
		last = time.Now()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := twistsOf(t, r)
		if len(got) > 0 && got[len(got)-1] == [2]float64{0, 0} {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no zero within 5 s of the last command: %v", got)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if waited := time.Since(last); waited < 500*time.Millisecond {
		t.Fatalf("the zero came %v after the last command, before the 500 ms deadman", waited)
	}
	for _, tw := range twistsOf(t, r)[:len(twistsOf(t, r))-1] {
		if tw != [2]float64{0.5, 0} {
			t.Fatalf("the robot received %v before the zero", tw)
		}
	}
}

func mustMarshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func nanValue() float64 {
	var zero float64
	return zero / zero
}

// An account of the cloud and an account of this gateway are two people even with one email:
// neither drives through the other's lease, on any path; the cloud user's own paths (their
// control and their forwarded uploads) are one holder.
func TestTheCloudsUserIsNotTheGatewaysUserOfTheSameEmail(t *testing.T) {
	const email = "admin@localhost"
	local := []door.Who{{User: email, Path: door.PathW3}, {User: email, Path: door.PathUpload}, {User: email, Path: door.PathFoxglove}}
	cloud := []door.Who{{User: email, Path: door.PathCloudW3}, {User: email, Path: door.PathLink}}
	ctx := context.Background()
	for _, tc := range []struct {
		name          string
		holder        door.Who
		heldBy        string
		others, peers []door.Who
	}{
		{"the cloud's user holds", cloud[0], email + " via the cloud", local, cloud[1:]},
		{"the gateway's user holds", local[0], email, cloud, local[1:]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _, _ := newDoor(t)
			r := newRobot()
			if _, err := d.Take(ctx, r, cmdVel, tc.holder); err != nil {
				t.Fatal(err)
			}
			for _, who := range tc.others {
				err := d.Send(ctx, r, cmdVel, twist, fleettest.TwistPayload(0.5, 0), who)
				if held, ok := fleetgate.HeldBy(err); !ok || held.Owner != tc.heldBy {
					t.Fatalf("Send by %v = %v, want held by %s", who, err, tc.heldBy)
				}
				if _, err := d.Take(ctx, r, cmdVel, who); !fleetgate.Is(err, fleetgate.EConflict) {
					t.Fatalf("Take by %v = %v, want a conflict", who, err)
				}
			}
			wantTwists(t, r)
			for _, who := range tc.peers {
				if who.Path == door.PathFoxglove || who.Path == door.PathCloudW3 {
					continue // a second socket of the holder's is a second controller: refused as today
				}
				if err := d.Send(ctx, r, cmdVel, twist, fleettest.TwistPayload(0.5, 0), who); err != nil {
					t.Fatalf("the holder's own upload (%v): %v", who, err)
				}
			}
		})
	}
	d, _, _ := newDoor(t)
	r := newRobot()
	if _, err := d.Take(ctx, r, cmdVel, cloud[0]); err != nil {
		t.Fatal(err)
	}
	if h := d.Held(robot1); len(h) != 1 || h[0].Owner != email+" via the cloud" {
		t.Fatalf("Held = %+v, want the cloud's user named apart", h)
	}
}
