package cloud

import (
	"testing"
	"time"
)

// TestAgentClockFromHeartbeats: the estimate is the fastest heartbeat's sent less received
// (short of the offset by that crossing's delay, never past it), clocks within
// clockAgreement are taken as agreeing, and a clock set right again is followed within the
// window.
func TestAgentClockFromHeartbeats(t *testing.T) {
	var c agentClock
	cloud := time.Date(2026, 11, 28, 5, 0, 0, 0, time.UTC)
	frame := cloud.Add(30 * time.Second) // stamped by the agent as the cloud's clock reads `cloud`
	if got := c.toCloud(frame); !got.Equal(frame) {
		t.Fatalf("before any heartbeat: %v, want the agent's time unchanged", got)
	}
	for i, delay := range []time.Duration{80, 20, 300, 45} {
		sent := cloud.Add(time.Duration(i) * 5 * time.Second)
		c.heartbeat(sent.Add(30*time.Second), sent.Add(delay*time.Millisecond))
	}
	if got := c.toCloud(frame).Sub(cloud); got != 20*time.Millisecond {
		t.Errorf("agent 30 s ahead, fastest heartbeat 20 ms: a frame lands %v after its instant, want 20ms", got)
	}
	if !c.toCloud(time.Time{}).IsZero() {
		t.Error("the zero time moved")
	}

	var agreeing agentClock
	agreeing.heartbeat(cloud.Add(-200*time.Millisecond), cloud) // a slow crossing, clocks agreeing
	if got := agreeing.toCloud(cloud); !got.Equal(cloud) {
		t.Errorf("clocks 200 ms apart: corrected by %v, want none", cloud.Sub(got))
	}

	// The agent's clock set right: the old estimate is gone once the window has passed.
	for i := range clockWindow {
		at := cloud.Add(time.Duration(i) * 5 * time.Second)
		c.heartbeat(at, at.Add(10*time.Millisecond))
	}
	if got := c.toCloud(cloud); !got.Equal(cloud) {
		t.Errorf("after the clock was set right: corrected by %v, want none", cloud.Sub(got))
	}
	behind := agentClock{}
	behind.heartbeat(cloud.Add(-30*time.Second), cloud.Add(15*time.Millisecond))
	if got := behind.toCloud(cloud.Add(-30 * time.Second)).Sub(cloud); got < 0 || got > 50*time.Millisecond {
		t.Errorf("agent 30 s behind: a frame lands %v after its instant", got)
	}
}
