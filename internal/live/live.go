// Package live runs the gateway's live sessions over connections the HTTP layer hands it: a
// W3 output session relays one robot stream to one client (encodings shared by every client,
// latest sample wins, a rate cap per client), a W3 input session drives a robot under the
// teleop policy (rate cap, deadman, speed limits, a zero on every fault), and a KPI session
// pumps a fleet's KPI frames. Sessions re-check their token, a controller that stops
// answering pings lets go, and Sessions zeroes and ends them all at shutdown.
//
// It knows no HTTP and no gateway core: the core hands it authorised streams (Output, Input)
// and a token re-check, never a robot; why a session ended is an error (the variables below,
// teleop.CloseError, the KPI hub's), which the HTTP layer turns into a close code in one table.
package live

import (
	"context"
	"errors"

	"github.com/fleetgate/fleetgate/internal/live/output"
)

// Why a session ends. The HTTP layer maps each to the contract's close code; a wrapped error's
// text is the close reason.
var (
	// ErrClientGone: the client closed, or the connection broke. Nothing more is sent.
	ErrClientGone = errors.New("the client closed the connection")
	// ErrStreamEnded: the robot's stream ended without a fault.
	ErrStreamEnded = errors.New("the stream ended")
	// ErrShutdown: the server is going away.
	ErrShutdown = errors.New("server shutting down")
	// ErrRobotOffline: the robot (or the connection the session's lease is on) went away.
	ErrRobotOffline = errors.New("the robot went offline")
	// ErrControllerSilent: a controller stopped answering pings.
	ErrControllerSilent = errors.New("the controller does not answer pings")
	// ErrTokenRevoked: the session's token was revoked or expired.
	ErrTokenRevoked = errors.New("token revoked or expired")
	// ErrClientTooSlow: one frame took longer than writeStall to leave.
	ErrClientTooSlow = errors.New("client too slow")
	// ErrDataOnOutput: the client sent a data frame on an output socket.
	ErrDataOnOutput = errors.New("output sockets take no data frames")
	// ErrNotResolved: the output stream asked for does not exist (wrapped with why).
	ErrNotResolved = errors.New("stream not resolved")
	// ErrBootstrap: the output stream exists but could not be followed (wrapped with why).
	ErrBootstrap = errors.New("output bootstrap failed")
	// ErrTooLargeForJSON: a frame over the JSON limits.
	ErrTooLargeForJSON = output.ErrTooLarge
	// ErrConversion: a sample could not be encoded.
	ErrConversion = errors.New("output conversion failed")
	// ErrPublishFailed: a command did not reach the robot.
	ErrPublishFailed = errors.New("publishing to the robot failed")
	// ErrMessageTooBig: a client message over the socket's read limit (Conn.Read returns it).
	ErrMessageTooBig = errors.New("message too big")
)

// Conn is a session's WebSocket, as the HTTP layer adapts it. One goroutine reads and one
// writes at a time; Ping, End and Drop may be called from anywhere.
type Conn interface {
	// Write sends one frame as one message: a text message when text is set (JSON), binary
	// otherwise. It returns when the frame is written or the connection fails.
	Write(f output.Frame, text bool) error
	// Read reads the next data message into buf's storage and returns it with its frame type;
	// control frames (pings, the close handshake) are answered meanwhile. A message over the
	// connection's read limit is ErrMessageTooBig; a closed connection is any other error.
	Read(ctx context.Context, buf []byte) (data []byte, binary bool, err error)
	// Ping sends a ping and waits for its pong, or ctx.
	Ping(ctx context.Context) error
	// End closes the connection with the close code and reason of why, without waiting for
	// the peer: the close handshake goes on in the background until Closed.
	End(why error)
	// Drop cuts the connection without a handshake, for a peer that cannot answer.
	Drop()
	// Closed is closed when the close handshake is over or the connection is gone.
	Closed() <-chan struct{}
}

// Recheck re-checks a session's token; an error wrapping ErrTokenRevoked ends the session.
// Other errors (a store that does not answer) leave it open until the next check.
type Recheck func(ctx context.Context) error

func isRevoked(err error) bool { return errors.Is(err, ErrTokenRevoked) }
