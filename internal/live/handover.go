package live

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/live/output"
)

// The handover extension of an input socket (docs/api.md, "Handing control over"): a client
// that opts in is told, in JSON text frames, of requests for its control, and answers them
// with JSON text frames; a client may also ask for a held stream and wait for the answer on
// its socket (RunAsk). Clients that do not opt in see the contract's input socket unchanged.

// Notice is a moment of a handover told to the holder: Kind is "requested", "withdrawn" or
// "expired"; By is who asked; Since when they asked.
type Notice struct {
	Kind  string
	By    string
	Since time.Time
}

// Answerer is an Input whose holder can be asked for its control: Watch sets where requests
// are told, Answer grants or refuses the pending one.
type Answerer interface {
	Watch(f func(Notice))
	Answer(grant bool) error
}

// Ask is a request for a held input stream, authorised: it waits for the holder's answer
// until ctx ends and returns the granted Input (or at once when the stream is free), or why
// not (a conflict in words: refused, unanswered, a holder that cannot answer).
type Ask func(ctx context.Context) (Input, error)

// noticeFrame is a handover frame, both ways.
type noticeFrame struct {
	Handover string     `json:"handover"`
	By       string     `json:"by,omitempty"`
	Since    *time.Time `json:"since,omitempty"`
}

// errCommandBeforeGrant ends an asking socket that sends a command before it was granted.
var errCommandBeforeGrant = fleetgate.Errorf(fleetgate.EInvalid, "no commands before control is granted: wait for {\"handover\":\"granted\"}")

// RunAsk runs an input socket that asks for its stream: it tells the client
// {"handover":"asking"}, waits for ask (the holder's answer; the client leaving withdraws the
// request), then {"handover":"granted"} and the session goes on as RunInput's with the
// extension on. A refusal ends the session with its reason.
func (ss *Sessions) RunAsk(conn Conn, ask Ask, opt InputOptions, recheck Recheck) {
	s := newSession(ss, conn, recheck)
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var release func()
	s.onStop = func() {
		cancel()
		mu.Lock()
		f := release
		mu.Unlock()
		if f != nil {
			f()
		}
	}
	first := make(chan readResult, 1)
	var in Input
	var driver Driver
	body := func(bodyCtx context.Context) {
		go func() {
			data, binary, err := conn.Read(context.Background(), make([]byte, 0, 4<<10)) // nil would discard it
			first <- readResult{data: data, binary: binary, err: err}
		}()
		if err := s.writeNotice(noticeFrame{Handover: "asking"}); err != nil {
			s.stop(errClientGone)
			return
		}
		granted := make(chan error, 1)
		go func() {
			var err error
			in, err = ask(ctx)
			granted <- err
		}()
		select {
		case r := <-first:
			cancel()
			if err := <-granted; err == nil {
				in.Release() // granted meanwhile to a client that is gone: give it back
			}
			if r.err != nil {
				s.stop(errClientGone)
			} else {
				s.stop(errCommandBeforeGrant)
			}
			return
		case err := <-granted:
			if err != nil {
				s.stop(err)
				return
			}
		}
		mu.Lock()
		if s.stopped() {
			mu.Unlock()
			in.Release()
			return
		}
		driver = in.Drive(func(err error) { go s.stop(err) })
		release = func() { ss.stopDriver(in, driver) }
		mu.Unlock()
		if err := s.writeNotice(noticeFrame{Handover: "granted"}); err != nil {
			s.stop(errClientGone)
			return
		}
		opt.Handover = true
		s.startNotices(in)
		go s.govern(bodyCtx, driver, &s.delay, true)
		s.readCommands(driver, in, opt, first)
	}
	watch := func(ctx context.Context) {
		go s.every(ctx, controllerPingEvery.get(), s.pingController)
		s.every(ctx, tokenCheckPeriod, func(context.Context) bool {
			mu.Lock()
			granted := release != nil
			mu.Unlock()
			if granted && !in.Connected() {
				s.stop(errRobotOffline)
				return false
			}
			return true
		})
	}
	s.serve(body, watch)
}

// writeNotice writes one handover frame.
func (s *session) writeNotice(n noticeFrame) error {
	b, err := json.Marshal(n)
	if err != nil {
		return err
	}
	return s.conn.Write(output.Frame{Body: b}, true)
}

// startNotices tells the client of requests for in's control, when in can be asked, on a
// goroutine of its own (the door's goroutines must not wait for a client) until the session
// stops.
func (s *session) startNotices(in Input) {
	a, ok := in.(Answerer)
	if !ok {
		return
	}
	notices := make(chan Notice, 8)
	a.Watch(func(n Notice) {
		select {
		case notices <- n:
		default: // a client that does not read its socket: the next notice says the rest
		}
	})
	go func() {
		for {
			select {
			case <-s.done:
				return
			case n := <-notices:
				f := noticeFrame{Handover: n.Kind, By: n.By}
				if !n.Since.IsZero() {
					since := n.Since.UTC()
					f.Since = &since
				}
				if s.writeNotice(f) != nil {
					return
				}
			}
		}
	}()
}

// handoverAnswer reads a text frame as the holder's answer ({"handover":"grant"} or
// {"handover":"refuse"}). ok is false for a frame that is no handover message (a command);
// err ends the session.
func handoverAnswer(in Input, data []byte) (ok bool, err error) {
	var f struct {
		Handover *string `json:"handover"`
	}
	if json.Unmarshal(data, &f) != nil || f.Handover == nil {
		return false, nil
	}
	a, answers := in.(Answerer)
	if !answers {
		return true, fleetgate.Errorf(fleetgate.EInvalid, "this stream cannot be handed over from here")
	}
	switch *f.Handover {
	case "grant", "refuse":
		// A request withdrawn or expired meanwhile has no answer to take: not the client's fault.
		_ = a.Answer(*f.Handover == "grant")
		return true, nil
	}
	return true, fleetgate.Errorf(fleetgate.EInvalid, "a handover answer is {\"handover\":\"grant\"} or {\"handover\":\"refuse\"}")
}
