package live

import (
	"errors"
	"testing"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/edge"
	"github.com/fleetgate/fleetgate/internal/live/output"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
)

// frozenAgent is what a cloud session's source says when the robot's agent stopped answering
// (internal/link/cloud/confirm.go).
const frozenAgent = "the robot's gateway stopped answering; it stops the robot by itself"

// TestWhySessionsEnd: every way a live session ends has the contract's close code (through the
// edge table, as the HTTP layer closes) and its words, which the panel shows.
func TestWhySessionsEnd(t *testing.T) {
	_, decodeErr := teleop.DecodeCommand(teleop.TwistType, teleop.FormatJSON, true, []byte(`{}`))
	secret := errors.New("dial 10.0.0.7: password=hunter2")
	cases := []struct {
		name   string
		why    error
		code   websocket.StatusCode
		reason string
	}{
		{"client gone", errClientGone, websocket.StatusNormalClosure, ""},
		{"stream ended", sourceFailed(nil), websocket.StatusNormalClosure, ""},
		{"shutdown", errShutdown, websocket.StatusGoingAway, "server shutting down"},
		{"robot offline", errRobotOffline, websocket.StatusGoingAway, "the robot went offline"},
		{"source offline", sourceFailed(fleetgate.Errorf(fleetgate.EOffline, "camera closed")), websocket.StatusGoingAway, "the robot went offline"},
		{"controller silent", errControllerSilent, websocket.StatusGoingAway, "the controller does not answer pings"},
		{"token revoked", errTokenRevoked, websocket.StatusPolicyViolation, "token revoked or expired"},
		{"client too slow", errClientTooSlow, websocket.StatusPolicyViolation, "client too slow"},
		{"data on output", errDataOnOutput, websocket.StatusPolicyViolation, "output sockets take no data frames"},
		{"input too big", errInputTooBig, websocket.StatusMessageTooBig, "message too big: over 64 KiB"},
		{"not resolved", outputRefused(fleetgate.Errorf(fleetgate.ENotFound, "no stream x")), websocket.StatusPolicyViolation, "stream not resolved: no stream x"},
		{"ambiguous", outputRefused(fleetgate.Errorf(fleetgate.EInvalid, "stream x is ambiguous")), websocket.StatusPolicyViolation, "stream not resolved: stream x is ambiguous"},
		{"bootstrap", outputRefused(fleetgate.Errorf(fleetgate.EUnavailable, "robot offline")), websocket.StatusInternalError, "output bootstrap failed: robot offline"},
		{"bootstrap of an offline source", outputRefused(fleetgate.Errorf(fleetgate.EOffline, "robot offline")), websocket.StatusInternalError, "output bootstrap failed: robot offline"},
		{"bootstrap fault", outputRefused(fleetgate.Internal(secret)), websocket.StatusInternalError, "output bootstrap failed: internal error"},
		{"bootstrap of a plain error", outputRefused(secret), websocket.StatusInternalError, "output bootstrap failed: internal error"},
		{"too large for JSON", frameFailed(output.ErrTooLarge), websocket.StatusMessageTooBig, "frame too large for JSON output; use format=protobuf"},
		{"conversion", frameFailed(secret), websocket.StatusInternalError, "output conversion failed"},
		// A cloud session whose agent stopped answering: 1011 (the contract's "target
		// publication, output bootstrap or output conversion failed"), never 1001, whose
		// "going away" is read as the gateway shutting down; the words reach the viewer whole.
		{"frozen agent", sourceFailed(fleetgate.Errorf(fleetgate.EUnavailable, "%s", frozenAgent)), websocket.StatusInternalError, "the stream's source failed: " + frozenAgent},
		{"source failed", sourceFailed(&fleetgate.Error{Code: fleetgate.EUnavailable, Message: "camera c1: 401", Err: secret}), websocket.StatusInternalError, "the stream's source failed: camera c1: 401"},
		{"refused command", decodeErr, websocket.StatusUnsupportedData, "binary frame on a json input socket"},
	}
	for _, c := range cases {
		code, reason := edge.Close(c.why)
		if code != c.code || reason != c.reason {
			t.Errorf("%s: closes %d %q, want %d %q", c.name, code, reason, c.code, c.reason)
		}
	}
}
