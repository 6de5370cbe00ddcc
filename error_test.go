package fleetgate_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
)

func TestErrorHelpers(t *testing.T) {
	secret := errors.New("disk /var/lib/x failed")
	tests := []struct {
		name       string
		err        error
		code       string
		message    string
		retryAfter time.Duration
	}{
		{"nil", nil, "", "internal error", 0},
		{"plain error is internal", secret, fleetgate.EInternal, "internal error", 0},
		{"domain error", fleetgate.Errorf(fleetgate.ENotFound, "robot %q not found", "r1"), fleetgate.ENotFound, `robot "r1" not found`, 0},
		{"wrapped domain error", fmt.Errorf("loading: %w", fleetgate.Errorf(fleetgate.EConflict, "taken")), fleetgate.EConflict, "taken", 0},
		{"internal hides its cause", fleetgate.Internal(secret), fleetgate.EInternal, "internal error", 0},
		{"offline answers as unavailable", fleetgate.Errorf(fleetgate.EOffline, "robot r1 went offline"), fleetgate.EUnavailable, "robot r1 went offline", 0},
		{"rate limited", &fleetgate.Error{Code: fleetgate.ERateLimited, Message: "slow down", RetryAfter: 3 * time.Second}, fleetgate.ERateLimited, "slow down", 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fleetgate.ErrorCode(tt.err); got != tt.code {
				t.Errorf("ErrorCode = %q, want %q", got, tt.code)
			}
			if tt.err != nil {
				if got := fleetgate.ErrorMessage(tt.err); got != tt.message {
					t.Errorf("ErrorMessage = %q, want %q", got, tt.message)
				}
			}
			if got := fleetgate.RetryAfter(tt.err); got != tt.retryAfter {
				t.Errorf("RetryAfter = %v, want %v", got, tt.retryAfter)
			}
		})
	}

	// The cause stays reachable for logs.
	in := fleetgate.Internal(secret)
	if !errors.Is(in, secret) || !strings.Contains(in.Error(), secret.Error()) {
		t.Errorf("Internal(err) = %v loses its cause", in)
	}
}

// TestIs: Is finds a code along the chain of wrapped domain errors, exactly (EOffline stays
// EOffline, which ErrorCode answers as unavailable), and never for other errors.
func TestIs(t *testing.T) {
	offline := fleetgate.Errorf(fleetgate.EOffline, "robot r1 went offline")
	wrapped := &fleetgate.Error{Code: fleetgate.EUnavailable, Message: `robot "r1" is offline`, Err: fmt.Errorf("read: %w", offline)}
	for _, tt := range []struct {
		err  error
		code string
		want bool
	}{
		{offline, fleetgate.EOffline, true},
		{offline, fleetgate.EUnavailable, false},
		{wrapped, fleetgate.EUnavailable, true},
		{wrapped, fleetgate.EOffline, true},
		{wrapped, fleetgate.ENotFound, false},
		{errors.New("offline"), fleetgate.EOffline, false},
		{nil, fleetgate.EOffline, false},
	} {
		if got := fleetgate.Is(tt.err, tt.code); got != tt.want {
			t.Errorf("Is(%v, %s) = %v, want %v", tt.err, tt.code, got, tt.want)
		}
	}
}
