package gateway_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/gateway"
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
		{"plain error is internal", secret, gateway.EInternal, "internal error", 0},
		{"domain error", gateway.Errorf(gateway.ENotFound, "robot %q not found", "r1"), gateway.ENotFound, `robot "r1" not found`, 0},
		{"wrapped domain error", fmt.Errorf("loading: %w", gateway.Errorf(gateway.EConflict, "taken")), gateway.EConflict, "taken", 0},
		{"internal hides its cause", gateway.Internal(secret), gateway.EInternal, "internal error", 0},
		{"rate limited", &gateway.Error{Code: gateway.ERateLimited, Message: "slow down", RetryAfter: 3 * time.Second}, gateway.ERateLimited, "slow down", 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := gateway.ErrorCode(tt.err); got != tt.code {
				t.Errorf("ErrorCode = %q, want %q", got, tt.code)
			}
			if tt.err != nil {
				if got := gateway.ErrorMessage(tt.err); got != tt.message {
					t.Errorf("ErrorMessage = %q, want %q", got, tt.message)
				}
			}
			if got := gateway.RetryAfter(tt.err); got != tt.retryAfter {
				t.Errorf("RetryAfter = %v, want %v", got, tt.retryAfter)
			}
		})
	}

	// The cause stays reachable for logs.
	in := gateway.Internal(secret)
	if !errors.Is(in, secret) || !strings.Contains(in.Error(), secret.Error()) {
		t.Errorf("Internal(err) = %v loses its cause", in)
	}
}
