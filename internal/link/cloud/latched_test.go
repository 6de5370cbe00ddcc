package cloud_test

import (
	"context"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
)

// TestLatchedSampleReachesALateCloudViewer: a latched sample (a map published once, an hour
// ago) crosses the live connection latched, so the cloud's copy of the stream hands it to a
// second cloud viewer joining later, as the agent's own topic does; a periodic sample just as
// old would not be shown as live.
func TestLatchedSampleReachesALateCloudViewer(t *testing.T) {
	w := newWorld(t)
	w.serveLive.Store(true)
	mapKey := fleetgate.StreamKey{Component: "map", Name: "map", Source: fleetgate.SourceComponent}
	const grid = "Platform.Messages.nav_msgs.OccupancyGrid"
	published := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	bot := scriptedRobot(idOne, "one")
	bot.StreamList = append(bot.StreamList, fleetgate.Stream{Component: "map", Name: "map", Type: grid, Direction: fleetgate.Output, Source: fleetgate.SourceComponent})
	bot.Values[mapKey] = fleetgate.Sample{Type: grid, Payload: []byte("map-bytes"), Time: published, Seq: 1, Latched: true}
	w.startAgent("fga_alpha", bot)
	w.waitOnline(idOne, true, 5*time.Second)
	r := w.remote(idOne)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	first, err := r.Subscribe(ctx, mapKey, fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	got, err := first.Next(ctx)
	if err != nil {
		t.Fatalf("the first cloud viewer: %v", err)
	}
	if string(got.Payload) != "map-bytes" || !got.Latched || !got.Time.Equal(published) {
		t.Errorf("the first cloud viewer got %q latched=%v at %v; want the map, latched, at %v", got.Payload, got.Latched, got.Time, published)
	}
	second, err := r.Subscribe(ctx, mapKey, fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	late, ok := second.Take()
	if !ok || string(late.Payload) != "map-bytes" || !late.Time.Equal(published) {
		t.Errorf("a second cloud viewer of an hour-old latched map got %q at %v (pending %v); want it at once", late.Payload, late.Time, ok)
	}
}
