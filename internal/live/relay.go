package live

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/live/output"
)

// Output is an authorised output stream, as the core hands it out after its checks.
type Output interface {
	// RobotID names the robot whose stream encodings are shared by its sessions.
	RobotID() string
	// Subscribe resolves the stream and follows it, latest sample wins. Its errors wrap
	// ErrNotResolved (no such output stream) or ErrBootstrap (it cannot be followed now).
	Subscribe(ctx context.Context, opts fleet.SubscribeOptions) (fleet.Stream, *fleet.Subscription, error)
}

// OutputOptions are a client's choices for an output session.
type OutputOptions struct {
	Format     output.Format
	Downsample bool    // point clouds to output.DefaultMaxPoints (withoutDownSampling=false)
	MaxRate    float64 // frames per second at most; 0: as they come
}

// RunOutput relays src to conn until the session ends; it returns then. Frames are encoded
// once per sample and variant for every session of the stream; a slow client skips to the
// newest sample rather than queueing old ones.
func (ss *Sessions) RunOutput(conn Conn, src Output, opt OutputOptions, recheck Recheck) {
	s := newSession(ss, conn, recheck)
	s.serve(func(ctx context.Context) { s.relay(ctx, src, opt) }, nil)
}

// StartOutput is RunOutput on a goroutine of its own, registered before StartOutput returns
// (Shutdown waits for it). The upgrade handler returns then: its goroutine has grown a deep
// stack through the middleware and holds the request, which an idle viewer must not keep.
func (ss *Sessions) StartOutput(conn Conn, src Output, opt OutputOptions, recheck Recheck) {
	s := newSession(ss, conn, recheck)
	if !ss.add(s) {
		go s.refuse()
		return
	}
	go s.run(func(ctx context.Context) { s.relay(ctx, src, opt) }, nil)
}

func (s *session) relay(ctx context.Context, src Output, opt OutputOptions) {
	readCtx := s.discardReads(ctx)
	stream, sub, err := src.Subscribe(ctx, fleet.SubscribeOptions{MaxRate: opt.MaxRate, Downsample: opt.Downsample})
	if err != nil {
		s.stop(err)
		return
	}
	defer sub.Close()
	feed, release := s.ss.feeds.Get(src.RobotID(), stream)
	defer release()
	variant := output.Variant{Format: opt.Format, Downsample: opt.Downsample}
	text := opt.Format == output.JSON
	pacer := output.NewPacer(opt.MaxRate)
	for {
		sample, err := sub.Next(readCtx)
		if err != nil {
			if errors.Is(err, fleet.ErrOffline) {
				s.stop(ErrRobotOffline)
			} else if errors.Is(err, fleet.ErrUnavailable) {
				s.stop(fmt.Errorf("%w: %v", ErrSourceFailed, err))
			} else {
				s.stop(ErrClientGone)
			}
			return
		}
		if wait := pacer.Wait(time.Now()); wait > 0 {
			select {
			case <-time.After(wait):
			case <-readCtx.Done():
				s.stop(ErrClientGone)
				return
			}
			if newer, ok := sub.Take(); ok {
				sample = newer // latest wins, also across the rate wait
			}
		}
		frame, err := feed.Frame(sample, variant)
		if errors.Is(err, output.ErrTooLarge) {
			s.stop(ErrTooLargeForJSON)
			return
		} else if err != nil {
			s.stop(ErrConversion)
			return
		}
		s.writing.set(time.Now())
		err = s.conn.Write(frame, text)
		s.writing.set(time.Time{})
		if err != nil {
			s.stop(ErrClientGone)
			return
		}
		pacer.Sent(time.Now())
	}
}

// discardReads reads an output session's connection for its control frames (pings, the close
// handshake) and ends the session on a data frame, as the contract wants. The returned
// context ends with the connection.
func (s *session) discardReads(ctx context.Context) context.Context {
	readCtx, cancel := context.WithCancel(ctx)
	go func() {
		defer cancel()
		if _, _, err := s.conn.Read(readCtx, nil); err == nil || errors.Is(err, ErrMessageTooBig) {
			s.stop(ErrDataOnOutput)
		}
	}()
	return readCtx
}
