package api

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate/internal/live"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
)

// frozenAgent is what a cloud session says when the robot's agent stopped answering
// (internal/link/cloud/confirm.go).
const frozenAgent = "the robot's gateway stopped answering; it stops the robot by itself"

// TestCloseCodes: every way a live session ends has the contract's close code, in one table.
func TestCloseCodes(t *testing.T) {
	_, decodeErr := teleop.DecodeCommand(teleop.TwistType, teleop.FormatJSON, true, []byte(`{}`))
	cases := []struct {
		why    error
		code   websocket.StatusCode
		reason string
	}{
		{nil, websocket.StatusNormalClosure, ""},
		{live.ErrClientGone, websocket.StatusNormalClosure, ""},
		{live.ErrShutdown, websocket.StatusGoingAway, "server shutting down"},
		{live.ErrRobotOffline, websocket.StatusGoingAway, "the robot went offline"},
		{live.ErrControllerSilent, websocket.StatusGoingAway, "the controller does not answer pings"},
		{live.ErrTokenRevoked, websocket.StatusPolicyViolation, "token revoked or expired"},
		{live.ErrClientTooSlow, websocket.StatusPolicyViolation, "client too slow"},
		{live.ErrDataOnOutput, websocket.StatusPolicyViolation, "output sockets take no data frames"},
		{fmt.Errorf("%w: no stream x", live.ErrNotResolved), websocket.StatusPolicyViolation, "stream not resolved: no stream x"},
		{fmt.Errorf("%w: robot offline", live.ErrBootstrap), websocket.StatusInternalError, "output bootstrap failed: robot offline"},
		{live.ErrTooLargeForJSON, websocket.StatusMessageTooBig, live.ErrTooLargeForJSON.Error()},
		{live.ErrConversion, websocket.StatusInternalError, "output conversion failed"},
		{live.ErrPublishFailed, websocket.StatusInternalError, "publishing to the robot failed"},
		// A cloud session whose agent stopped answering: 1011 (the contract's "target
		// publication, output bootstrap or output conversion failed": the session cannot go
		// on because its target does not answer), never 1001, whose "going away" is read as
		// the gateway shutting down; the words reach the operator whole.
		{fmt.Errorf("%w: %s", live.ErrPublishFailed, frozenAgent), websocket.StatusInternalError, "publishing to the robot failed: " + frozenAgent},
		{fmt.Errorf("%w: %s", live.ErrSourceFailed, frozenAgent), websocket.StatusInternalError, "the stream's source failed: " + frozenAgent},
		{live.ErrMessageTooBig, websocket.StatusMessageTooBig, "message too big"},
		{decodeErr, websocket.StatusUnsupportedData, "binary frame on a json input socket"},
		{errors.New("something unforeseen"), websocket.StatusInternalError, "internal error"},
		{fmt.Errorf("%w: %s", live.ErrNotResolved, strings.Repeat("é", 100)), websocket.StatusPolicyViolation, ""},
	}
	for _, c := range cases {
		code, reason := closeCode(c.why)
		if code != c.code {
			t.Errorf("%v: code %d, want %d", c.why, code, c.code)
		}
		if c.reason != "" && reason != c.reason {
			t.Errorf("%v: reason %q, want %q", c.why, reason, c.reason)
		}
		if len(reason) > maxCloseReason || !utf8.ValidString(reason) {
			t.Errorf("%v: reason %q does not fit a close frame", c.why, reason)
		}
	}
}
