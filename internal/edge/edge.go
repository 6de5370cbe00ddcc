// Package edge is where the domain's error codes become the answers of the wires the gateway
// speaks, in one table with a row per code: a REST answer's HTTP status and problem code (a
// panel page's status too), the close code of a live session the code ends, and the agent
// link's error kind. The adapters (server/api, web, internal/link) look their answers up
// here and decide none of their own; a code without a row fails this package's test.
package edge

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// Row is one code's answer on each wire.
type Row struct {
	Code string
	// Status and Problem are the status and problem+json code of a REST answer. Rows of one
	// status share its problem code, so that an answer made without the core (a router's 404)
	// carries the same code as the core's.
	Status  int
	Problem string
	// Close is the close code of a live session the code ends; its reason is the error's
	// public message, none with 1000.
	Close websocket.StatusCode
	// Kind is the code on the agent link (and between replicas): a kind of its own for each
	// code, so that every code crosses unchanged.
	Kind linkpb.Error_Kind
}

// table is the contract's answers (docs/api.md "Errors" and "Close codes"), one row a code.
// Where a wire has no answer for a code (a conflict is refused before a socket's upgrade), its
// column holds the nearest the contract has, so that no code ever goes unanswered.
var table = []Row{
	// A client error. Live: a command the input policy refuses (a non-finite value, a speed
	// beyond 10x its limit), a data frame on an output socket, a client too slow to take frames.
	{fleetgate.EInvalid, http.StatusBadRequest, fleetgate.EInvalid, websocket.StatusPolicyViolation, linkpb.Error_KIND_INVALID},
	// Malformed protobuf, JSON or UTF-8: over HTTP one more bad input.
	{fleetgate.EMalformed, http.StatusBadRequest, fleetgate.EInvalid, websocket.StatusInvalidFramePayloadData, linkpb.Error_KIND_MALFORMED},
	// Live: a revoked or expired token.
	{fleetgate.EUnauthorized, http.StatusUnauthorized, fleetgate.EUnauthorized, websocket.StatusPolicyViolation, linkpb.Error_KIND_UNAUTHORIZED},
	{fleetgate.EForbidden, http.StatusForbidden, fleetgate.EForbidden, websocket.StatusPolicyViolation, linkpb.Error_KIND_FORBIDDEN},
	// Live: an output stream that could not be resolved after the upgrade.
	{fleetgate.ENotFound, http.StatusNotFound, fleetgate.ENotFound, websocket.StatusPolicyViolation, linkpb.Error_KIND_NOT_FOUND},
	// The link carries the holder (owner, since) with it.
	{fleetgate.EConflict, http.StatusConflict, fleetgate.EConflict, websocket.StatusPolicyViolation, linkpb.Error_KIND_CONFLICT},
	// A body over 1 MiB; live: an input message over 64 KiB, JSON output over its limits.
	{fleetgate.ETooLarge, http.StatusRequestEntityTooLarge, "too_large", websocket.StatusMessageTooBig, linkpb.Error_KIND_TOO_LARGE},
	// A body that is not JSON; live: a text frame on a protobuf socket, or binary on JSON.
	{fleetgate.EUnsupported, http.StatusUnsupportedMediaType, "unsupported_media_type", websocket.StatusUnsupportedData, linkpb.Error_KIND_UNSUPPORTED},
	{fleetgate.ERateLimited, http.StatusTooManyRequests, fleetgate.ERateLimited, websocket.StatusPolicyViolation, linkpb.Error_KIND_RATE_LIMITED},
	// A fault of ours; live: an output conversion that failed.
	{fleetgate.EInternal, http.StatusInternalServerError, fleetgate.EInternal, websocket.StatusInternalError, linkpb.Error_KIND_INTERNAL},
	// A session's normal end is no HTTP answer: one that became one would be a fault of ours.
	{fleetgate.EGone, http.StatusInternalServerError, fleetgate.EInternal, websocket.StatusNormalClosure, linkpb.Error_KIND_GONE},
	{fleetgate.ENotImplemented, http.StatusNotImplemented, fleetgate.ENotImplemented, websocket.StatusInternalError, linkpb.Error_KIND_NOT_IMPLEMENTED},
	// Live: publication or output bootstrap failed, a source that failed, and on the cloud
	// an agent that stopped answering (1011, never 1001, which reads as the server leaving).
	{fleetgate.EUnavailable, http.StatusServiceUnavailable, fleetgate.EUnavailable, websocket.StatusInternalError, linkpb.Error_KIND_UNAVAILABLE},
	// Over HTTP a robot that is not there is unavailable; a live session it ends went away.
	{fleetgate.EOffline, http.StatusServiceUnavailable, fleetgate.EUnavailable, websocket.StatusGoingAway, linkpb.Error_KIND_OFFLINE},
	// Server shutdown, a controller that stopped answering pings.
	{fleetgate.EGoingAway, http.StatusServiceUnavailable, fleetgate.EUnavailable, websocket.StatusGoingAway, linkpb.Error_KIND_GOING_AWAY},
	// Endpoint 7 (S6) on a reachable robot whose stream gave no sample in time: the gateway
	// waited for it, as a gateway waits for its upstream. Live: the output bootstrap failed.
	{fleetgate.ENoSample, http.StatusGatewayTimeout, fleetgate.ENoSample, websocket.StatusInternalError, linkpb.Error_KIND_NO_SAMPLE},
}

// MethodNotAllowed is the problem code of a 405, an answer only the HTTP router gives: the
// core has no word for a wrong method.
const MethodNotAllowed = "method_not_allowed"

var (
	byCode   = map[string]Row{}
	byKind   = map[linkpb.Error_Kind]string{}
	byStatus = map[int]string{http.StatusMethodNotAllowed: MethodNotAllowed}
	internal Row
)

func init() {
	for _, r := range table {
		byCode[r.Code] = r
		byKind[r.Kind] = r.Code
		if _, ok := byStatus[r.Status]; !ok {
			byStatus[r.Status] = r.Problem
		}
	}
	internal = byCode[fleetgate.EInternal]
}

// Rows returns the table, for tests and documents.
func Rows() []Row { return slices.Clone(table) }

// Code is err's code as the edges answer it: fleetgate.ErrorCode, except that a robot that is
// not connected stays EOffline, which a live session and the link answer apart from
// EUnavailable.
func Code(err error) string {
	var e *fleetgate.Error
	if errors.As(err, &e) && e.Code == fleetgate.EOffline {
		return fleetgate.EOffline
	}
	return fleetgate.ErrorCode(err)
}

// rowOf is the row of err's code; a code without one (made up outside error.go) is internal.
func rowOf(err error) Row {
	if r, ok := byCode[Code(err)]; ok {
		return r
	}
	return internal
}

// HTTP is the status and problem code of err's REST answer.
func HTTP(err error) (status int, problem string) {
	r := rowOf(err)
	return r.Status, r.Problem
}

// Status is the HTTP status of err, as a panel page answers it.
func Status(err error) int { return rowOf(err).Status }

// ProblemOf is the problem code of an answer the HTTP layer makes without the core (a
// router's 404 and 405, http.ServeContent's 416): the code of the status's rows, and for a
// status no row has, invalid for a client error and internal for any other.
func ProblemOf(status int) string {
	if p, ok := byStatus[status]; ok {
		return p
	}
	if status >= 400 && status < 500 {
		return fleetgate.EInvalid
	}
	return fleetgate.EInternal
}

// ProblemCodes lists every code a problem document may carry, sorted: the OpenAPI
// document's enum.
func ProblemCodes() []string {
	var out []string
	for _, p := range byStatus {
		out = append(out, p)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// maxCloseReason is what fits a close frame: 125 bytes of payload minus the 2-byte code.
const maxCloseReason = 123

// Close is the close code and reason of a live session that why ends (nil: a normal end).
// The reason is why's public message (fleetgate.ErrorMessage: "internal error" for a fault
// of ours), cut to what a close frame holds.
func Close(why error) (websocket.StatusCode, string) {
	if why == nil {
		return websocket.StatusNormalClosure, ""
	}
	r := rowOf(why)
	if r.Close == websocket.StatusNormalClosure {
		return r.Close, ""
	}
	return r.Close, closeReason(fleetgate.ErrorMessage(why))
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

// Kind is the link kind of err's code.
func Kind(err error) linkpb.Error_Kind { return rowOf(err).Kind }

// CodeOfKind is the code a link kind stands for. A kind this build does not know is a newer
// peer's: the robot cannot do it now, in that peer's words (EUnavailable).
func CodeOfKind(k linkpb.Error_Kind) string {
	if code, ok := byKind[k]; ok {
		return code
	}
	return fleetgate.EUnavailable
}
