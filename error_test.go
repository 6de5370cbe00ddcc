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
