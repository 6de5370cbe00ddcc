package api

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate/internal/live"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
)

// closeCodes is the one table from why a live session ended to the contract's close code (its
// "after the upgrade" table). The reason sent is the error's text, unless the row says none.
var closeCodes = []struct {
	why      error
	code     websocket.StatusCode
	noReason bool
}{
	{live.ErrClientGone, websocket.StatusNormalClosure, true},
	{live.ErrStreamEnded, websocket.StatusNormalClosure, true},
	{live.ErrShutdown, websocket.StatusGoingAway, false},
	{live.ErrRobotOffline, websocket.StatusGoingAway, false},
	{live.ErrControllerSilent, websocket.StatusGoingAway, false},
	{live.ErrTokenRevoked, websocket.StatusPolicyViolation, false},
	{live.ErrClientTooSlow, websocket.StatusPolicyViolation, false},
	{live.ErrDataOnOutput, websocket.StatusPolicyViolation, false},
	{live.ErrNotResolved, websocket.StatusPolicyViolation, false},
	{live.ErrBootstrap, websocket.StatusInternalError, false},
	{live.ErrTooLargeForJSON, websocket.StatusMessageTooBig, false},
	{live.ErrConversion, websocket.StatusInternalError, false},
	{live.ErrPublishFailed, websocket.StatusInternalError, false},
	{live.ErrMessageTooBig, websocket.StatusMessageTooBig, false},
}

// maxCloseReason is what fits a close frame: 125 bytes of payload minus the 2-byte code.
const maxCloseReason = 123

// closeCode is the close code and reason of why (see closeCodes). A teleop.CloseError, the
// input policy's verdict on a command, carries its own code. Anything else is a server fault.
func closeCode(why error) (websocket.StatusCode, string) {
	if why == nil {
		return websocket.StatusNormalClosure, ""
	}
	var ce *teleop.CloseError
	if errors.As(why, &ce) {
		return websocket.StatusCode(ce.Code), ce.Reason
	}
	for _, row := range closeCodes {
		if errors.Is(why, row.why) {
			if row.noReason {
				return row.code, ""
			}
			return row.code, closeReason(why.Error())
		}
	}
	return websocket.StatusInternalError, "internal error"
}

// closeReason cuts a reason to what a close frame holds, on a character boundary.
func closeReason(reason string) string {
	reason = strings.ToValidUTF8(reason, "?")
	if len(reason) <= maxCloseReason {
		return reason
	}
	cut := maxCloseReason
	for cut > 0 && !utf8.RuneStart(reason[cut]) {
		cut--
	}
	return reason[:cut]
}
