package httpstatus

import (
	"net/http"
	"testing"

	"github.com/fleetgate/fleetgate/internal/gateway"
)

func TestOf(t *testing.T) {
	for code, want := range map[string]int{
		gateway.EInvalid: 400, gateway.EUnauthorized: 401, gateway.EForbidden: 403, gateway.ENotFound: 404,
		gateway.EConflict: 409, gateway.ERateLimited: 429, gateway.EUnavailable: 503, gateway.ENotImplemented: 501,
		gateway.EInternal: 500, "": http.StatusInternalServerError, "no_such_code": http.StatusInternalServerError,
	} {
		if got := Of(code); got != want {
			t.Errorf("Of(%q) = %d, want %d", code, got, want)
		}
	}
}

func TestCodeOfInvertsOf(t *testing.T) {
	for _, code := range []string{
		gateway.EInvalid, gateway.EUnauthorized, gateway.EForbidden, gateway.ENotFound, gateway.EConflict,
		gateway.ERateLimited, gateway.EUnavailable, gateway.ENotImplemented, gateway.EInternal,
	} {
		if got := CodeOf(Of(code)); got != code {
			t.Errorf("CodeOf(Of(%q)) = %q", code, got)
		}
	}
	if got := CodeOf(http.StatusTeapot); got != gateway.EInvalid {
		t.Errorf("CodeOf(418) = %q, want %q", got, gateway.EInvalid)
	}
	if got := CodeOf(http.StatusBadGateway); got != gateway.EInternal {
		t.Errorf("CodeOf(502) = %q, want %q", got, gateway.EInternal)
	}
}
