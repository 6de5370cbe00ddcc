package live

import (
	"context"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
)

// Input is an authorised input stream whose control lease the session holds, as the core
// hands it out after its checks (the 409 of a held stream among them).
type Input interface {
	// Stream is the input stream: its type and declared speed limits.
	Stream() fleetgate.Stream
	// Drive returns what the session's commands go to: the door's control for a robot of
	// this process, a forwarder for one whose agent governs its teleoperation. onFault is
	// called (once, on any goroutine) when driving fails: the session then ends with that
	// error.
	Drive(onFault func(error)) Driver
	// Connected reports whether the robot is still on the connection the lease was taken on
	// (a robot that reconnected is driven afresh).
	Connected() bool
	// Release gives the control lease back; it is called once, after the final zero.
	Release()
	// Name says which robot and stream, for the log line of a zero that did not arrive.
	Name() string
}

// Driver takes a session's commands, already decoded, checked and held to the robot's limits
// (the door holds them again). An error ends the session with it: a coded error (the policy's
// verdict on the command, a command that did not reach the robot) closes with its code.
type Driver interface {
	Command(m proto.Message) error
	// Stop publishes the final zero and retires the driver.
	Stop() error
}

// InputOptions are a client's choices for an input session.
type InputOptions struct {
	Format string // teleop.FormatProtobuf or teleop.FormatJSON
	// Handover: the client speaks the handover extension (handover.go): it is told of
	// requests for its control and answers them in JSON text frames.
	Handover bool
}

// RunInput drives in from the commands read on conn until the session ends, under the teleop
// policy: commands are decoded and checked (teleop.DecodeCommand), held to the robot's speeds
// (teleop.LimitCommand), and go to in's Driver (which paces them and watches the deadman);
// every way the session ends publishes a zero first (closed, faulty data, revoked, robot gone,
// controller silent, shutdown). It returns when the session has ended.
func (ss *Sessions) RunInput(conn Conn, in Input, opt InputOptions, recheck Recheck) {
	s := newSession(ss, conn, recheck)
	driver := in.Drive(func(err error) { go s.stop(err) })
	s.onStop = func() { ss.stopDriver(in, driver) }
	watch := func(ctx context.Context) {
		go s.every(ctx, controllerPingEvery.get(), s.pingController)
		go s.govern(ctx, driver, &s.delay, opt.Handover)
		s.every(ctx, tokenCheckPeriod, func(context.Context) bool {
			if !in.Connected() {
				s.stop(errRobotOffline)
				return false
			}
			return true
		})
	}
	s.serve(func(context.Context) {
		if opt.Handover {
			s.startNotices(in)
		}
		s.readCommands(driver, in, opt, nil)
	}, watch)
}

// stopDriver publishes the session's final zero and gives the lease back.
func (ss *Sessions) stopDriver(in Input, driver Driver) {
	if err := driver.Stop(); err != nil {
		// The robot may still be moving on its last command: its own timeout is all that
		// stops it now. Nobody else is told, so say it loudly.
		ss.log.Error("the zero command did not reach the robot", "stream", in.Name(), "err", err)
	}
	in.Release()
}

// readResult is one Read's answer, read ahead while a request waited (RunAsk).
type readResult struct {
	data   []byte
	binary bool
	err    error
}

// readCommands feeds the controller the commands read from the connection until it fails;
// first, when not nil, gives the first message (a read already under way).
func (s *session) readCommands(driver Driver, in Input, opt InputOptions, first <-chan readResult) {
	stream := in.Stream()
	buf := make([]byte, 0, 4<<10)
	for {
		var data []byte
		var binary bool
		var err error
		if first != nil {
			r := <-first
			data, binary, err, first = r.data, r.binary, r.err, nil
		} else {
			data, binary, err = s.conn.Read(context.Background(), buf[:0])
		}
		if fleetgate.Is(err, fleetgate.ETooLarge) {
			s.stop(errInputTooBig)
			return
		} else if err != nil {
			s.stop(errClientGone)
			return
		}
		buf = data
		if opt.Handover && !binary {
			if age, ok := pictureAge(data); ok {
				s.delay.Picture(age, time.Now())
				continue
			}
			if ok, err := handoverAnswer(in, data); err != nil {
				s.stop(err)
				return
			} else if ok {
				continue
			}
		}
		cmd, err := teleop.DecodeCommand(stream.Type, opt.Format, binary, data)
		if err == nil {
			err = teleop.LimitCommand(cmd, stream.Limits)
		}
		if err != nil {
			s.stop(err) // the policy's refusal: its code says which (1003, 1007, 1008, 1009)
			return
		}
		if err := driver.Command(cmd); err != nil {
			s.stop(err)
			return
		}
	}
}

// pingController lets go of a controller that stops answering pings (see
// controllerPingEvery); the reader, always running on an input session, takes the pongs.
func (s *session) pingController(ctx context.Context) bool {
	pingCtx, cancel := context.WithTimeout(ctx, controllerPingTimeout.get())
	err := s.conn.Ping(pingCtx)
	cancel()
	if err == nil {
		return true
	}
	if s.stopped() {
		return false // the session is closing anyway: leave its handshake alone
	}
	if ctx.Err() == nil {
		s.stop(errControllerSilent)
		s.conn.Drop() // nobody is there to answer the close handshake either
	}
	return false
}
