package fleet_test

import (
	"context"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/fleet"
)

// TestSubscriptionBuffer: a buffered subscriber gets every sample, oldest first, up to its
// depth, and then the newest ones; a latest-wins subscriber of the same topic is unchanged.
func TestSubscriptionBuffer(t *testing.T) {
	topic := fleet.NewTopic("T", nil)
	at := time.Now() // fresh: a new subscriber gets the latest sample at once
	topic.Publish([]byte("0"), at)
	buffered, _ := topic.Subscribe()
	buffered.Buffer(3)
	live, _ := topic.Subscribe()
	for _, p := range []string{"1", "2"} {
		topic.Publish([]byte(p), at)
	}
	var got []string
	for range 3 {
		s, err := buffered.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(s.Payload))
	}
	if got[0] != "0" || got[1] != "1" || got[2] != "2" {
		t.Fatalf("buffered subscriber got %v, want the pending sample then each one: [0 1 2]", got)
	}
	if s, _ := live.Take(); string(s.Payload) != "2" {
		t.Fatalf("the latest-wins subscriber got %q", s.Payload)
	}
	for _, p := range []string{"3", "4", "5", "6"} {
		topic.Publish([]byte(p), at)
	}
	got = got[:0]
	for {
		s, ok := buffered.Take()
		if !ok {
			break
		}
		got = append(got, string(s.Payload))
	}
	if len(got) != 3 || got[0] != "4" || got[2] != "6" {
		t.Fatalf("a full buffer let the oldest go: got %v, want [4 5 6]", got)
	}
}
