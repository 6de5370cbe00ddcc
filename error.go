package fleetgate

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// Error codes. Robot sources, the core, the live sessions and the adapters return them; the
// edges map these, and only these, to their wire errors (problem+json statuses, WebSocket
// close codes, the agent link's error kinds: internal/edge, one row per code).
const (
	EInvalid      = "invalid"
	EUnauthorized = "unauthorized"
	EForbidden    = "forbidden"
	ENotFound     = "not_found"
	EConflict     = "conflict"
	ERateLimited  = "rate_limited"
	EUnavailable  = "unavailable"
	// EOffline: the robot is not connected. Robot sources say it; to the callers of the core
	// a robot that is not there is unavailable (the wire maps it as EUnavailable), but a live
	// session it ends closes as the contract's "went away" (1001), not as a failure (1011).
	EOffline = "offline"
	// ENotImplemented: the request is valid but this gateway cannot serve it (W3 for a
	// local-fleet robot hosted by another agent).
	ENotImplemented = "not_implemented"
	EInternal       = "internal"

	// The codes below exist because the contract answers them apart from the ones above.

	// ETooLarge: a request body, an input message or a JSON output frame over its limit
	// (413, close 1009).
	ETooLarge = "too_large"
	// EUnsupported: a body that is not JSON, a text frame on a protobuf socket or a binary
	// one on a JSON socket (415, close 1003).
	EUnsupported = "unsupported"
	// EMalformed: a payload that does not decode: protobuf, JSON or UTF-8 (close 1007; over
	// HTTP a 400 like any bad input).
	EMalformed = "malformed"
	// EGone: a live session is over without a fault: the client left or the stream ended
	// (close 1000, which carries no reason).
	EGone = "gone"
	// EGoingAway: a live session's other end goes away: the server shuts down, or a
	// controller stopped answering pings (close 1001; over HTTP, 503).
	EGoingAway = "going_away"
	// ENoSample: a reachable robot's output stream gave no sample by the request's deadline
	// (a camera still starting, a quiet topic): 504, where 503 says the robot is unreachable.
	ENoSample = "no_sample"
)

// Error is the domain error. Message is safe to show to the caller; internal details
// belong in the wrapped error, which is logged but never sent.
type Error struct {
	Code    string
	Message string
	// RetryAfter is set on rate_limited errors: how long until a retry may succeed.
	RetryAfter time.Duration
	// Owner and Since name who holds a resource and since when, on conflict errors.
	Owner string
	Since time.Time
	Err   error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Is reports whether err is, or wraps, a domain error of code: the check for a code where
// ErrorCode's mapping of other errors is not wanted (a robot source's error, not the store's).
func Is(err error, code string) bool {
	for err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return false
		}
		if e.Code == code {
			return true
		}
		err = e.Err
	}
	return false
}

// Errorf builds a domain error with a caller-safe message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Internal wraps an unexpected error; its text is never shown to the caller.
func Internal(err error) *Error {
	return &Error{Code: EInternal, Message: "internal error", Err: err}
}

// ErrorCode returns the code of a domain error as the core's callers branch on it, EInternal
// for any other non-nil error, and EUnavailable for an unexpected error that is the store's
// server being unreachable. EOffline answers as EUnavailable: to a caller a robot that is not
// connected is one that does not answer (Is tells them apart inside, and internal/edge keeps
// EOffline where the contract answers it apart).
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) && (e.Code != EInternal || !storeUnreachable(err)) {
		if e.Code == EOffline {
			return EUnavailable
		}
		return e.Code
	}
	if storeUnreachable(err) {
		return EUnavailable
	}
	return EInternal
}

// storeUnavailableMessage is what a caller is told while the store's server is unreachable.
const storeUnavailableMessage = "the database is unreachable; try again shortly"

// ErrorMessage returns the caller-safe message of err.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) && (e.Code != EInternal || !storeUnreachable(err)) {
		return e.Message
	}
	if storeUnreachable(err) {
		return storeUnavailableMessage
	}
	return "internal error"
}

// storeUnreachable tells an outage of a store server (PostgreSQL restarting, the network to
// it down) from a failure of ours: a 503, which a client retries, rather than a 500. The core
// knows no driver; it recognises what drivers wrap: the network's errors, a connection cut in
// the middle of an answer, and the SQLSTATEs of class 08 (connection exception) and 57P (the
// server shutting down, or starting: not 57014, a cancelled query), which the PostgreSQL
// driver's errors report.
func storeUnreachable(err error) bool {
	var netErr net.Error
	if errors.As(err, &netErr) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var coded interface{ SQLState() string }
	if errors.As(err, &coded) {
		state := coded.SQLState()
		return strings.HasPrefix(state, "08") || strings.HasPrefix(state, "57P")
	}
	return false
}

// StoreRetryAfter is the wait a caller is told (Retry-After) while the store's server is
// unreachable: about what PostgreSQL takes to come back from a crash, short enough that a
// client retrying after it sees the store within seconds of its return.
const StoreRetryAfter = 2 * time.Second

// RetryAfter returns the wait carried by a rate_limited error, StoreRetryAfter for an error
// that is the store's server being unreachable, or zero.
func RetryAfter(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) && e.RetryAfter > 0 {
		return e.RetryAfter
	}
	if ErrorCode(err) == EUnavailable && storeUnreachable(err) {
		return StoreRetryAfter
	}
	return 0
}
