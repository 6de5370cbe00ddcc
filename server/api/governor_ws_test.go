package api_test

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/coder/websocket"
)

type speedLimitFrame struct {
	SpeedLimit *struct {
		Scale   float64 `json:"scale"`
		DelayMs int64   `json:"delayMs"`
		Why     string  `json:"why"`
	} `json:"speedLimit"`
}

// followLimits reads the socket's frames (and so answers the gateway's pings) until ctx ends;
// the function it returns waits for a speedLimit frame saying why.
func followLimits(ctx context.Context, t *testing.T, conn *websocket.Conn) func(why string) {
	limits := make(chan string, 64)
	go func() {
		for {
			_, data, err := conn.Read(ctx)
			if err != nil {
				return
			}
			var f speedLimitFrame
			if json.Unmarshal(data, &f) == nil && f.SpeedLimit != nil {
				limits <- f.SpeedLimit.Why
			}
		}
	}()
	return func(why string) {
		t.Helper()
		for {
			select {
			case got := <-limits:
				if got == why {
					return
				}
			case <-ctx.Done():
				t.Fatalf("no speedLimit frame saying %q", why)
			}
		}
	}
}

// An input socket of the extension that reports its picture's age is told the governor's
// limit, and its commands reach the robot held to it; a picture beyond 2 s holds the robot.
func TestLiveInputFollowsThePicturesAge(t *testing.T) {
	a := newLiveAgent(t)
	conn := a.dial(t, handoverQuery+"answer")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	waitLimit := followLimits(ctx, t, conn)
	// Told four times a second, while the socket drives.
	report := func(ageMs int) {
		t.Helper()
		if err := conn.Write(ctx, websocket.MessageText, []byte(`{"pictureAgeMs":`+strconv.Itoa(ageMs)+`}`)); err != nil {
			t.Fatal(err)
		}
	}
	report(800)
	waitLimit("picture 0.8 s late: 45% speed")
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"linear":{"x":1},"angular":{"z":-1.5}}`)); err != nil {
		t.Fatal(err)
	}
	p := waitPublished(t, a.bot, 1)
	if tw := twistOf(t, p[0]); math.Abs(tw.GetLinear().GetX()-0.45) > 1e-9 || math.Abs(tw.GetAngular().GetZ()+0.675) > 1e-9 {
		t.Fatalf("the robot received %v at 800 ms, want 45%% of 1 m/s and 1.5 rad/s", tw)
	}
	report(2300)
	waitLimit("picture 2.3 s late: stopped")
	p = waitPublished(t, a.bot, 2)
	if !isZeroTwist(twistOf(t, p[1])) {
		t.Fatalf("held beyond 2 s, the robot received %v", twistOf(t, p[1]))
	}
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"linear":{"x":1}}`)); err != nil {
		t.Fatal(err)
	}
	p = waitPublished(t, a.bot, 3)
	if !isZeroTwist(twistOf(t, p[2])) {
		t.Fatalf("a command while held reached the robot as %v, want a zero", twistOf(t, p[2]))
	}
	conn.Close(websocket.StatusNormalClosure, "")
}
