package gateway

import (
	"context"
	"slices"
	"sync"

	"github.com/fleetgate/fleetgate"
)

// The second convention (PascalCase, DESIGN.md section 4) runs on the same operations as v2.
// What it adds lives here: the stream operation limit and the upload timeout (contract,
// Limits), and the metric type list without a robot id (S9).

// LimitedStreams are the stream reads and uploads of the second convention: the core's
// ReadStream and UploadStream, each limited to one operation per StreamOpInterval for each
// caller, robot and stream. The limit lives in the value: make one per server.
type LimitedStreams struct {
	ss      *StreamService
	limiter *StreamOpLimiter
}

// NewLimitedStreams returns the second convention's stream operations on the gateway's clock.
func (ss *StreamService) NewLimitedStreams() *LimitedStreams {
	return &LimitedStreams{ss: ss, limiter: NewStreamOpLimiter(StreamOpInterval, ss.now)}
}

// ReadStream is ReadStream under the stream operation limit.
func (l *LimitedStreams) ReadStream(ctx context.Context, c *Caller, robotID string, sel StreamSelector) ([]byte, error) {
	giveBack, err := l.limiter.Take(c, robotID, sel)
	if err != nil {
		return nil, err
	}
	data, err := l.ss.ReadStream(ctx, c, robotID, sel)
	if callerMistake(err) {
		giveBack()
	}
	return data, err
}

// UploadStream is UploadStream under the stream operation limit, and bounded as a whole by
// RobotReadTimeout (the contract's upload timeout of 1 s): each robot call already is, but
// an upload makes two (resolve the stream, publish).
func (l *LimitedStreams) UploadStream(ctx context.Context, c *Caller, robotID string, in UploadInput) error {
	giveBack, err := l.limiter.Take(c, robotID, in.Stream)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, RobotReadTimeout)
	defer cancel()
	err = l.ss.UploadStream(ctx, c, robotID, in)
	if callerMistake(err) {
		giveBack()
	}
	return err
}

// callerMistake reports whether err refused a request before it read or wrote a stream: such
// a request does not use up its slot, so correcting it needs no wait. A robot that was slow
// or failed was still asked, and its slot stays taken.
func callerMistake(err error) bool {
	switch fleetgate.ErrorCode(err) {
	case fleetgate.EInvalid, fleetgate.ENotFound, fleetgate.EForbidden, fleetgate.EUnauthorized, fleetgate.EConflict:
		return true
	}
	return false
}

// visibleMetricCalls bounds the robots asked at once by VisibleMetricTypes.
const visibleMetricCalls = 16

// VisibleMetricTypes is S9: the metric types reported by any robot the caller may see that
// is online now, by number. A robot that goes offline or does not answer in time meanwhile
// reports nothing; the robots are asked at once, so a slow one delays the answer by at most
// RobotReadTimeout.
func (ss *StreamService) VisibleMetricTypes(ctx context.Context, c *Caller) ([]fleetgate.MetricType, error) {
	robots, err := ss.robots.Robots(ctx, c)
	if err != nil {
		return nil, err
	}
	var (
		mu    sync.Mutex
		union []fleetgate.MetricType
		first error
		wg    sync.WaitGroup
		slots = make(chan struct{}, visibleMetricCalls)
	)
	for _, r := range robots {
		if !r.Online {
			continue
		}
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			types, err := ss.MetricTypes(ctx, c, r.ID)
			mu.Lock()
			defer mu.Unlock()
			switch fleetgate.ErrorCode(err) {
			case "":
				union = append(union, types...)
			case fleetgate.EUnavailable, fleetgate.ENotFound:
				// Gone or too slow since the list was made: it reports no types now.
			default:
				if first == nil {
					first = err
				}
			}
		})
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	slices.Sort(union)
	return slices.Compact(union), nil
}
