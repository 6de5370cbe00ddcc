package sim

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door/doortest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

func TestInvalidInputNeverMovesTheRobot(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name    string
		robot   int // 0 differential drive, 1 car-like
		key     fleetgate.StreamKey
		typ     string
		payload func(t *testing.T) []byte
		want    string
	}{
		{"Ackermann to a differential drive", 0, cmdVel, typeAckermann,
			func(t *testing.T) []byte { return drivePayload(t, 1, 0) }, fleetgate.EInvalid},
		{"Twist to a car", 1, drive, typeTwist,
			func(t *testing.T) []byte { return twistPayload(t, 1, 0) }, fleetgate.EInvalid},
		{"Twist named as another type", 0, cmdVel, typePoseStamped,
			func(t *testing.T) []byte { return twistPayload(t, 1, 0) }, fleetgate.EInvalid},
		{"output stream", 0, streamKey("base", "pose"), typePoseStamped,
			func(t *testing.T) []byte { return mustMarshal(t, &catalogpb.PoseStamped{}) }, fleetgate.EInvalid},
		{"output stream with a Twist", 0, streamKey("base", "odom"), typeTwist,
			func(t *testing.T) []byte { return twistPayload(t, 1, 0) }, fleetgate.EInvalid},
		{"garbage bytes", 0, cmdVel, typeTwist,
			func(*testing.T) []byte { return []byte{0xff, 0xff, 0xff, 0xff, 0xff} }, fleetgate.EInvalid},
		{"wire types of another message", 0, cmdVel, typeTwist,
			func(*testing.T) []byte { return []byte{0x08, 0x01} }, fleetgate.EInvalid}, // field 1 as a varint
		{"garbage to a car", 1, drive, typeAckermann,
			func(*testing.T) []byte { return []byte("not protobuf at all") }, fleetgate.EInvalid},
		{"NaN linear.x", 0, cmdVel, typeTwist,
			func(t *testing.T) []byte { return twistPayload(t, nan, 0) }, fleetgate.EInvalid},
		{"Inf angular.z", 0, cmdVel, typeTwist,
			func(t *testing.T) []byte { return twistPayload(t, 0.5, inf) }, fleetgate.EInvalid},
		{"NaN in an ignored Twist field", 0, cmdVel, typeTwist,
			func(t *testing.T) []byte {
				return mustMarshal(t, &catalogpb.Twist{Linear: &catalogpb.Vector3{X: 1, Y: nan}})
			}, fleetgate.EInvalid},
		{"NaN speed", 1, drive, typeAckermann,
			func(t *testing.T) []byte { return drivePayload(t, nan, 0) }, fleetgate.EInvalid},
		{"-Inf steering", 1, drive, typeAckermann,
			func(t *testing.T) []byte { return drivePayload(t, 1, math.Inf(-1)) }, fleetgate.EInvalid},
		{"unknown stream", 0, streamKey("base", "teleport"), typeTwist,
			func(t *testing.T) []byte { return twistPayload(t, 1, 0) }, fleetgate.ENotFound},
		{"cmd_vel of another source", 0, fleetgate.StreamKey{Component: "base", Name: "cmd_vel", Source: fleetgate.SourceROS1}, typeTwist,
			func(t *testing.T) []byte { return twistPayload(t, 1, 0) }, fleetgate.ENotFound},
		{"drive on a differential drive", 0, drive, typeAckermann,
			func(t *testing.T) []byte { return drivePayload(t, 1, 0) }, fleetgate.ENotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustNewSim(t, Config{Count: 2}, newEmptyHall(20, 10))
			place(s, 0, 5, 5, 0)
			place(s, 1, 10, 5, 0)
			before := bodyOf(s, tt.robot)
			err := doortest.Send(context.Background(), s.robots[tt.robot], tt.key, tt.typ, tt.payload(t))
			if !fleetgate.Is(err, tt.want) {
				t.Fatalf("Publish: %v, want %v", err, tt.want)
			}
			run(s, time.Second)
			after := bodyOf(s, tt.robot)
			if after.x != before.x || after.y != before.y || after.theta != before.theta || after.v != 0 {
				t.Errorf("robot moved from (%v, %v, %v) to (%v, %v, %v) at %v m/s", before.x, before.y, before.theta, after.x, after.y, after.theta, after.v)
			}
		})
	}
}

func TestInvalidCommandKeepsTheLastValidOne(t *testing.T) {
	s := mustNewSim(t, Config{}, newEmptyHall(20, 10))
	place(s, 0, 5, 5, 0)
	command(t, s, 0, 0.5, 0)
	run(s, 500*time.Millisecond)
	err := doortest.Send(context.Background(), s.robots[0], cmdVel, typeTwist, twistPayload(t, math.NaN(), 0))
	if !fleetgate.Is(err, fleetgate.EInvalid) {
		t.Fatalf("Publish NaN: %v", err)
	}
	run(s, 200*time.Millisecond)
	if v := bodyOf(s, 0).v; v != 0.5 {
		t.Errorf("speed after an invalid command = %v, want the last valid 0.5", v)
	}
}

func TestReadAndSubscribeErrors(t *testing.T) {
	s := mustNewSim(t, Config{Count: 2}, newEmptyHall(20, 10))
	ctx := context.Background()
	tests := []struct {
		name  string
		robot int
		key   fleetgate.StreamKey
		want  string
	}{
		{"input stream", 0, cmdVel, fleetgate.EInvalid},
		{"car's input stream", 1, drive, fleetgate.EInvalid},
		{"unknown stream", 0, streamKey("arm", "joints"), fleetgate.ENotFound},
		{"other source", 0, fleetgate.StreamKey{Component: "base", Name: "pose", Source: fleetgate.SourceROS2}, fleetgate.ENotFound},
		{"another kind's input", 1, cmdVel, fleetgate.ENotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.robots[tt.robot]
			if _, err := r.Read(ctx, tt.key); !fleetgate.Is(err, tt.want) {
				t.Errorf("Read: %v, want %v", err, tt.want)
			}
			if _, err := r.Subscribe(ctx, tt.key, fleetgate.SubscribeOptions{}); !fleetgate.Is(err, tt.want) {
				t.Errorf("Subscribe: %v, want %v", err, tt.want)
			}
		})
	}
}
