package httpstatus

import (
	"net/http"
	"testing"

	"github.com/fleetgate/fleetgate"
)

func TestOf(t *testing.T) {
	for code, want := range map[string]int{
		fleetgate.EInvalid: 400, fleetgate.EUnauthorized: 401, fleetgate.EForbidden: 403, fleetgate.ENotFound: 404,
		fleetgate.EConflict: 409, fleetgate.ERateLimited: 429, fleetgate.EUnavailable: 503, fleetgate.ENotImplemented: 501,
		fleetgate.EInternal: 500, "": http.StatusInternalServerError, "no_such_code": http.StatusInternalServerError,
	} {
		if got := Of(code); got != want {
			t.Errorf("Of(%q) = %d, want %d", code, got, want)
		}
	}
}

func TestCodeOfInvertsOf(t *testing.T) {
	for _, code := range []string{
		fleetgate.EInvalid, fleetgate.EUnauthorized, fleetgate.EForbidden, fleetgate.ENotFound, fleetgate.EConflict,
		fleetgate.ERateLimited, fleetgate.EUnavailable, fleetgate.ENotImplemented, fleetgate.EInternal,
	} {
		if got := CodeOf(Of(code)); got != code {
			t.Errorf("CodeOf(Of(%q)) = %q", code, got)
		}
	}
	if got := CodeOf(http.StatusTeapot); got != fleetgate.EInvalid {
		t.Errorf("CodeOf(418) = %q, want %q", got, fleetgate.EInvalid)
	}
	if got := CodeOf(http.StatusBadGateway); got != fleetgate.EInternal {
		t.Errorf("CodeOf(502) = %q, want %q", got, fleetgate.EInternal)
	}
}
