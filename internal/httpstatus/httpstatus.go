// Package httpstatus maps the gateway core's error codes to HTTP statuses: the one mapping
// the API's problem documents and the panel's pages share.
package httpstatus

import (
	"net/http"

	"github.com/fleetgate/fleetgate"
)

var byCode = map[string]int{
	fleetgate.EInvalid:        http.StatusBadRequest,
	fleetgate.EUnauthorized:   http.StatusUnauthorized,
	fleetgate.EForbidden:      http.StatusForbidden,
	fleetgate.ENotFound:       http.StatusNotFound,
	fleetgate.EConflict:       http.StatusConflict,
	fleetgate.ERateLimited:    http.StatusTooManyRequests,
	fleetgate.EUnavailable:    http.StatusServiceUnavailable,
	fleetgate.ENotImplemented: http.StatusNotImplemented,
	fleetgate.EInternal:       http.StatusInternalServerError,
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
		return fleetgate.EInvalid
	}
	return fleetgate.EInternal
}
