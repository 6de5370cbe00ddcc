package fleet_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
)

// gop publishes a keyframe named k<n> and then p frames named p<n>.<i>, 50 ms apart by
// their times (a new subscriber finds them fresh: the last is in the future).
func gop(topic *fleet.Topic, n, p int) {
	topic.PublishFrame(fmt.Appendf(nil, "k%d", n), frameTime(), true, 0)
	for i := range p {
		topic.PublishFrame(fmt.Appendf(nil, "p%d.%d", n, i), frameTime(), false, 0)
	}
}

var frameClock = time.Now()

func frameTime() time.Time {
	frameClock = frameClock.Add(50 * time.Millisecond)
	return frameClock
}

func takeAll(sub *fleet.Subscription) []string {
	var got []string
	for {
		s, ok := sub.Take()
		if !ok {
			return got
		}
		got = append(got, string(s.Payload))
	}
}

// TestVideoTopicNewSubscriberStartsAtKeyframe: a new subscriber gets the last keyframe and
// every frame since, in order, and then each new frame; one that joined a topic with no
// keyframe yet waits for one.
func TestVideoTopicNewSubscriberStartsAtKeyframe(t *testing.T) {
	topic := fleet.NewVideoTopic("V", nil)
	early, _ := topic.Subscribe()
	topic.PublishFrame([]byte("p-orphan"), frameTime(), false, 0) // no reference: never handed out
	gop(topic, 1, 2)
	late, _ := topic.Subscribe()
	topic.PublishFrame([]byte("p1.2"), frameTime(), false, 0)
	if got, want := fmt.Sprint(takeAll(early)), "[k1 p1.0 p1.1 p1.2]"; got != want {
		t.Errorf("early subscriber got %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(takeAll(late)), "[k1 p1.0 p1.1 p1.2]"; got != want {
		t.Errorf("late subscriber got %s, want %s", got, want)
	}
}

// clockedVideo is a video topic whose clock the test moves (*now), and a subscriber.
func clockedVideo() (*fleet.Topic, *fleet.Subscription, *time.Time) {
	topic := fleet.NewVideoTopic("V", nil)
	now := time.Now()
	topic.SetClock(func() time.Time { return now })
	sub, _ := topic.Subscribe()
	return topic, sub, &now
}

// TestVideoSlowReaderSkipsToKeyframe: a reader that has had frames waiting for longer than
// VideoBehind when the next keyframe comes jumps to it; one that falls MaxVideoPending frames
// behind lets them all go and resumes at the next keyframe, never with a P-frame whose
// reference it skipped.
func TestVideoSlowReaderSkipsToKeyframe(t *testing.T) {
	topic, sub, now := clockedVideo()
	gop(topic, 1, 3)
	*now = now.Add(fleet.VideoBehind + time.Millisecond)
	gop(topic, 2, 1)
	if got, want := fmt.Sprint(takeAll(sub)), "[k2 p2.0]"; got != want {
		t.Errorf("after a keyframe, a slow reader got %s, want %s", got, want)
	}
	if sub.Skipped() != 4 {
		t.Errorf("skipped %d frames, want 4", sub.Skipped())
	}

	gop(topic, 3, fleet.MaxVideoPending+5) // the reader falls far behind within one GOP
	got := takeAll(sub)
	if len(got) > fleet.MaxVideoPending {
		t.Fatalf("reader holds %d frames, more than %d", len(got), fleet.MaxVideoPending)
	}
	if len(got) > 0 && got[0] != "k3" {
		t.Fatalf("reader got %s without its keyframe k3", got[0])
	}
	gop(topic, 4, 1)
	if got, want := fmt.Sprint(takeAll(sub)), "[k4 p4.0]"; got != want {
		t.Errorf("after falling behind, the reader got %s, want %s", got, want)
	}
}

// TestVideoBurstKeepsItsPictures: frames that arrive together with a keyframe (a stalled
// connection's backlog delivered at once) all reach a reader that had them waiting for less
// than VideoBehind, keyframe last; none is counted skipped.
func TestVideoBurstKeepsItsPictures(t *testing.T) {
	topic, sub, now := clockedVideo()
	gop(topic, 1, 0)
	takeAll(sub)
	for i := range 2 {
		topic.PublishFrame(fmt.Appendf(nil, "p1.%d", i), frameTime(), false, 0)
		*now = now.Add(time.Millisecond)
	}
	*now = now.Add(fleet.VideoBehind - 2*time.Millisecond) // still within VideoBehind of the first
	gop(topic, 2, 0)
	if got, want := fmt.Sprint(takeAll(sub)), "[p1.0 p1.1 k2]"; got != want || sub.Skipped() != 0 {
		t.Errorf("a burst gave %s (skipped %d), want %s", got, sub.Skipped(), want)
	}
}

// TestVideoSubscriptionKeepsSamplesFlags: samples of a video topic carry their keyframe flag
// and the publisher's numbers.
func TestVideoSubscriptionKeepsSamplesFlags(t *testing.T) {
	topic := fleet.NewVideoTopic("V", nil)
	sub, _ := topic.Subscribe()
	topic.PublishFrame([]byte("k"), time.Now(), true, 7)
	topic.PublishFrame([]byte("p"), time.Now(), false, 9)
	var got []fleetgate.Sample
	for {
		s, ok := sub.Take()
		if !ok {
			break
		}
		got = append(got, s)
	}
	if len(got) != 2 || !got[0].Keyframe || got[1].Keyframe || got[0].Seq != 7 || got[1].Seq != 9 || sub.Type() != "V" {
		t.Errorf("got %+v", got)
	}
}
