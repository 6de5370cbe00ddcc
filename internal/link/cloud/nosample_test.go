package cloud_test

import (
	"context"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
)

// TestQuietStreamBehindTheLinkIsNoSample: the cloud's read of a stream with no sample yet on
// a robot whose agent answers (a camera starting, a quiet topic) waits for it up to the
// request's deadline, as the core reads (fleet.ReadFirst); the agent answers in time that the
// stream is quiet, and the link's kind carries it: ENoSample in words, not the 503 of an
// unreachable robot. A sample that comes during the wait is the answer.
func TestQuietStreamBehindTheLinkIsNoSample(t *testing.T) {
	w := newWorld(t)
	odomKey := fleetgate.StreamKey{Component: "base", Name: "odom", Source: fleetgate.SourceComponent}
	const odomType = "Platform.Messages.nav_msgs.Odometry"
	bot := scriptedRobot(idOne, "one")
	bot.WaitFirst = true
	bot.StreamList = append(bot.StreamList, fleetgate.Stream{Component: "base", Name: "odom", Type: odomType, Direction: fleetgate.Output, Source: fleetgate.SourceComponent})
	w.startAgent("fga_alpha", bot)
	w.waitOnline(idOne, true, 5*time.Second)
	r := w.remote(idOne)

	const deadline = 1500 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	start := time.Now()
	_, err := fleet.ReadFirst(ctx, r, odomKey)
	cancel()
	took := time.Since(start)
	if !fleetgate.Is(err, fleetgate.ENoSample) || fleetgate.ErrorMessage(err) != "no sample yet on base/odom" {
		t.Errorf("a quiet stream behind the link: %v; want ENoSample \"no sample yet on base/odom\"", err)
	}
	if took < deadline/2 || took > deadline {
		t.Errorf("answered after %v; want a wait for the sample, within the %v deadline", took, deadline)
	}

	done := make(chan error, 1)
	var got fleetgate.Sample
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var err error
		got, err = fleet.ReadFirst(ctx, r, odomKey)
		done <- err
	}()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil || string(got.Payload) != "odom-bytes" {
				t.Errorf("a sample that came during the wait: %q, %v", got.Payload, err)
			}
			return
		case <-tick.C:
			bot.Emit(odomKey, odomType, []byte("odom-bytes"))
		}
	}
}
