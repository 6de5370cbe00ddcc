package cluster_test

import (
	"context"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/cluster/natstest"
	"github.com/fleetgate/fleetgate/internal/fleet"
)

// TestLatchedSampleCrossesReplicasLatched: a map published once, an hour ago, and latched
// reaches a viewer on another replica, and a second viewer there joining later gets it at once
// from that replica's copy of the stream, as from the holder's own.
func TestLatchedSampleCrossesReplicasLatched(t *testing.T) {
	nats := natstest.Start(t)
	a, b := startReplica(t, nats.URL(), "a"), startReplica(t, nats.URL(), "b")
	mapKey := fleetgate.StreamKey{Component: "map", Name: "map", Source: fleetgate.SourceComponent}
	const grid = "Platform.Messages.nav_msgs.OccupancyGrid"
	published := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	robot := testRobot()
	robot.StreamList = append(robot.StreamList, fleetgate.Stream{Component: "map", Name: "map", Type: grid, Direction: fleetgate.Output, Source: fleetgate.SourceComponent})
	robot.Values[mapKey] = fleetgate.Sample{Type: grid, Payload: []byte("map-bytes"), Time: published, Seq: 1, Latched: true}
	a.registry.AddHosted(context.Background(), robot, fleet.Home{FleetID: "fleet-1"})
	eventually(t, 2*time.Second, "robot online on b", func() bool { return b.node.Online(idOne) })
	r, _ := b.node.Robot(idOne)
	ctx := ctxFor(t, 10*time.Second)
	first, err := r.Subscribe(ctx, mapKey, fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	got, err := first.Next(ctx)
	if err != nil || string(got.Payload) != "map-bytes" || !got.Latched || !got.Time.Equal(published) {
		t.Fatalf("the first viewer on b: %q latched=%v at %v, %v", got.Payload, got.Latched, got.Time, err)
	}
	second, err := r.Subscribe(ctx, mapKey, fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if late, ok := second.Take(); !ok || string(late.Payload) != "map-bytes" {
		t.Errorf("a second viewer on b of an hour-old latched map got %q (pending %v); want it at once", late.Payload, ok)
	}
}
