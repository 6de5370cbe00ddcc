package fleetgate

import (
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
)

type sqlStateError string

func (e sqlStateError) Error() string    { return "SQLSTATE " + string(e) }
func (e sqlStateError) SQLState() string { return string(e) }

// TestStoreOutageIsUnavailable: an unexpected error that is the store's server being
// unreachable is a 503 with a message that says so; any other stays a 500, and a domain
// error keeps its code. An outage says when to try again (Retry-After): a client that writes
// knows it is to retry, not to give up.
func TestStoreOutageIsUnavailable(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	tests := []struct {
		name string
		err  error
		code string
	}{
		{"dial refused, wrapped by the driver and the core", Internal(fmt.Errorf("failed to connect: %w", dial)), EUnavailable},
		{"connection cut mid-answer", fmt.Errorf("reading: %w", io.ErrUnexpectedEOF), EUnavailable},
		{"server shutting down (57P01)", Internal(sqlStateError("57P01")), EUnavailable},
		{"connection failure (08006)", sqlStateError("08006"), EUnavailable},
		{"unique violation (23505)", Internal(sqlStateError("23505")), EInternal},
		{"a bug of ours", Internal(errors.New("nil map")), EInternal},
		{"a domain error over an outage keeps its code", &Error{Code: ENotFound, Message: "no such robot", Err: dial}, ENotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ErrorCode(tt.err); got != tt.code {
				t.Errorf("ErrorCode = %q, want %q", got, tt.code)
			}
			msg := ErrorMessage(tt.err)
			if tt.code == EUnavailable && msg != storeUnavailableMessage {
				t.Errorf("message %q, want %q", msg, storeUnavailableMessage)
			}
			if tt.code == EInternal && msg != "internal error" {
				t.Errorf("message %q leaks details", msg)
			}
			if wait := RetryAfter(tt.err); (tt.code == EUnavailable) != (wait == StoreRetryAfter) {
				t.Errorf("RetryAfter = %v for code %s, want %v only for an outage", wait, tt.code, StoreRetryAfter)
			}
		})
	}
}
