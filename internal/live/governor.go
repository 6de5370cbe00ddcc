package live

import (
	"context"
	"encoding/json"
	"math"
	"time"

	"github.com/fleetgate/fleetgate/internal/live/output"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
)

// The governor's end of an input session (docs/reliability.md, "The governor"): the session
// measures its operator's delay (the round trip of pings, and the age of the picture the
// widget reports in {"pictureAgeMs":N} text frames) and hands it to its driver, whose door
// holds the commands to the share of the limits that delay allows. A client of the handover
// extension is told that share in {"speedLimit":{...}} text frames when it changes.

// Governed is a Driver whose speed follows the operator's delay: the door's control, or a
// forwarder that hands the delay on with each command.
type Governed interface {
	Observe(delay time.Duration)
	Limit() teleop.SpeedLimit
}

// delayPingEvery is how often an input session pings its controller to measure the delay,
// and how often it asks the governor (a stale measurement holds the robot within it).
const delayPingEvery = 250 * time.Millisecond

// speedLimitFrame is the frame telling the client its limit.
type speedLimitFrame struct {
	SpeedLimit speedLimitBody `json:"speedLimit"`
}

type speedLimitBody struct {
	Scale   float64 `json:"scale"`
	DelayMs int64   `json:"delayMs"`
	Why     string  `json:"why"`
}

// pictureAge reads a widget's {"pictureAgeMs":N} frame; ok is false for another frame.
func pictureAge(data []byte) (age time.Duration, ok bool) {
	var f struct {
		PictureAgeMs *float64 `json:"pictureAgeMs"`
	}
	if json.Unmarshal(data, &f) != nil || f.PictureAgeMs == nil || math.IsNaN(*f.PictureAgeMs) {
		return 0, false
	}
	ms := math.Min(math.Max(*f.PictureAgeMs, 0), float64(time.Hour/time.Millisecond))
	return time.Duration(ms * float64(time.Millisecond)), true
}

// govern measures the delay of the session's controller for driver until the session stops,
// and tells a client of the extension (tell) its limit when it changes.
func (s *session) govern(ctx context.Context, driver Driver, meter *teleop.DelayMeter, tell bool) {
	g, ok := driver.(Governed)
	if !ok {
		return
	}
	go s.pingForDelay(ctx, meter)
	var last speedLimitBody
	s.every(ctx, delayPingEvery, func(context.Context) bool {
		if d, known := meter.Estimate(time.Now()); known {
			g.Observe(d)
		}
		lim := g.Limit()
		body := speedLimitBody{Scale: math.Round(lim.Scale*100) / 100, DelayMs: lim.Delay.Milliseconds(), Why: lim.Why}
		if !tell || body.Why == last.Why {
			return true
		}
		last = body
		b, err := json.Marshal(speedLimitFrame{SpeedLimit: body})
		return err == nil && s.conn.Write(output.Frame{Body: b}, true) == nil
	})
}

// pingForDelay pings the controller, one ping at a time, every delayPingEvery; a ping that
// is not answered ages the estimate (DelayMeter), and pingController lets the controller go.
func (s *session) pingForDelay(ctx context.Context, meter *teleop.DelayMeter) {
	t := time.NewTicker(delayPingEvery)
	defer t.Stop()
	for {
		meter.PingSent(time.Now())
		if s.conn.Ping(ctx) != nil {
			return
		}
		meter.PongAt(time.Now())
		select {
		case <-ctx.Done():
			return
		case <-s.done:
			return
		case <-t.C:
		}
	}
}
