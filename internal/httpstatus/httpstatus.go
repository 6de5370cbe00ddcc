// Package httpstatus maps the gateway core's error codes to HTTP statuses: the one mapping
// the API's problem documents and the panel's pages share.
package httpstatus

import (
	"net/http"

	"github.com/fleetgate/fleetgate/internal/gateway"
)

var byCode = map[string]int{
	gateway.EInvalid:        http.StatusBadRequest,
	gateway.EUnauthorized:   http.StatusUnauthorized,
	gateway.EForbidden:      http.StatusForbidden,
	gateway.ENotFound:       http.StatusNotFound,
	gateway.EConflict:       http.StatusConflict,
	gateway.ERateLimited:    http.StatusTooManyRequests,
	gateway.EUnavailable:    http.StatusServiceUnavailable,
	gateway.ENotImplemented: http.StatusNotImplemented,
	gateway.EInternal:       http.StatusInternalServerError,
}

// Of is the HTTP status of a gateway error code; 500 for an unknown one (an error that is
// not the core's is an internal one).
func Of(code string) int {
	if s, ok := byCode[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// CodeOf is the gateway error code an HTTP status stands for, for answers that the HTTP
// layer makes without the core (a router's 404). A client error no code stands for is
// invalid, any other status internal.
func CodeOf(status int) string {
	for code, s := range byCode {
		if s == status {
			return code
		}
	}
	if status >= 400 && status < 500 {
		return gateway.EInvalid
	}
	return gateway.EInternal
}
