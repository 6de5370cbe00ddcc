// Package live runs the gateway's live sessions over connections the HTTP layer hands it: a
// W3 output session relays one robot stream to one client (encodings shared by every client,
// latest sample wins, a rate cap per client), a W3 input session drives a robot under the
// teleop policy (rate cap, deadman, speed limits, a zero on every fault), and a KPI session
// pumps a fleet's KPI frames. Sessions re-check their token, a controller that stops
// answering pings lets go, and Sessions zeroes and ends them all at shutdown.
//
// It knows no HTTP and no gateway core: the core hands it authorised streams (Output, Input)
// and a token re-check, never a robot; why a session ended is a coded error (fleetgate.Error),
// which the HTTP layer turns into a close code by the edge table (internal/edge).
package live

import (
	"context"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/live/output"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
)

// Why a session ends, in the domain's codes: the HTTP layer closes with the code's close code
// (internal/edge) and the message as the reason. The words are the contract's and the panel
// shows them. The core's errors end sessions too (a refused output stream, a command that did
// not reach the robot), as do the teleop policy's refusals of a command.
var (
	// The client closed, or the connection broke. Nothing more is sent.
	errClientGone = fleetgate.Errorf(fleetgate.EGone, "the client closed the connection")
	// The robot's stream ended without a fault.
	errStreamEnded = fleetgate.Errorf(fleetgate.EGone, "the stream ended")
	errShutdown    = fleetgate.Errorf(fleetgate.EGoingAway, "server shutting down")
	// The robot (or the connection the session's lease is on) went away.
	errRobotOffline     = fleetgate.Errorf(fleetgate.EOffline, "the robot went offline")
	errControllerSilent = fleetgate.Errorf(fleetgate.EGoingAway, "the controller does not answer pings")
	errTokenRevoked     = fleetgate.Errorf(fleetgate.EUnauthorized, "token revoked or expired")
	// One frame took longer than writeStall to leave.
	errClientTooSlow = fleetgate.Errorf(fleetgate.EInvalid, "client too slow")
	errDataOnOutput  = fleetgate.Errorf(fleetgate.EInvalid, "output sockets take no data frames")
	// A client message over the input socket's read limit.
	errInputTooBig = fleetgate.Errorf(fleetgate.ETooLarge, "message too big: over %d KiB", teleop.MaxInputMessage>>10)
)

// outputRefused is why an output session ends whose stream cannot be followed (err, from
// Output.Subscribe): a stream that does not resolve (1008), or one that cannot be followed now,
// its source unavailable or failing (1011).
func outputRefused(err error) error {
	code, words := fleetgate.ErrorCode(err), "output bootstrap failed: "
	switch code {
	case fleetgate.ENotFound, fleetgate.EInvalid:
		words = "stream not resolved: "
	case fleetgate.EInternal:
	default:
		code = fleetgate.EUnavailable
	}
	return &fleetgate.Error{Code: code, Message: words + fleetgate.ErrorMessage(err), Err: err}
}

// frameFailed is why an output session ends whose sample did not become a frame: JSON output
// over its limits (1009, in output's words), or a conversion that failed (1011).
func frameFailed(err error) error {
	if fleetgate.Is(err, fleetgate.ETooLarge) {
		return err
	}
	return &fleetgate.Error{Code: fleetgate.EInternal, Message: "output conversion failed", Err: err}
}

// sourceFailed is why an output session ends whose subscription ended (err, its Err): the
// robot went offline (1001), its source failed, in its words (1011), or the stream is over.
func sourceFailed(err error) error {
	switch {
	case fleetgate.Is(err, fleetgate.EOffline):
		return errRobotOffline
	case fleetgate.Is(err, fleetgate.EUnavailable):
		return &fleetgate.Error{Code: fleetgate.EUnavailable, Message: "the stream's source failed: " + fleetgate.ErrorMessage(err), Err: err}
	case err == nil:
		return errStreamEnded
	default:
		return errClientGone
	}
}

// Conn is a session's WebSocket, as the HTTP layer adapts it. One goroutine reads and one
// writes at a time; Ping, End and Drop may be called from anywhere.
type Conn interface {
	// Write sends one frame as one message: a text message when text is set (JSON), binary
	// otherwise. It returns when the frame is written or the connection fails.
	Write(f output.Frame, text bool) error
	// Read reads the next data message into buf's storage and returns it with its frame type;
	// control frames (pings, the close handshake) are answered meanwhile. A message over the
	// connection's read limit is an error of code fleetgate.ETooLarge; a closed connection is
	// any other error.
	Read(ctx context.Context, buf []byte) (data []byte, binary bool, err error)
	// Ping sends a ping and waits for its pong, or ctx.
	Ping(ctx context.Context) error
	// End closes the connection with the close code and reason of why, without waiting for
	// the peer: the close handshake goes on in the background until Closed. A nil why is a
	// normal end.
	End(why error)
	// Drop cuts the connection without a handshake, for a peer that cannot answer.
	Drop()
	// Closed is closed when the close handshake is over or the connection is gone.
	Closed() <-chan struct{}
}

// Recheck re-checks a session's token; an error of code fleetgate.EUnauthorized (the token
// revoked or expired) ends the session. Other errors (a store that does not answer) leave it
// open until the next check.
type Recheck func(ctx context.Context) error

func isRevoked(err error) bool { return fleetgate.ErrorCode(err) == fleetgate.EUnauthorized }
