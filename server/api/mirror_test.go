package api_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/server/api"
)

// TestMirrorCoversEveryRESTRoute keeps /panel/api a mirror of /apigateway/v2: a REST route
// added to one and not the other fails here. Login and the WebSocket routes are not mirrored.
func TestMirrorCoversEveryRESTRoute(t *testing.T) {
	e := echo.New()
	svc := api.Services{} // never called: only the routes are looked at
	opt := api.Options{LiveStreams: true}
	api.Register(e, svc, opt)
	api.RegisterMirror(e, svc, opt, "/panel/api", func(echo.Context) *gateway.Caller { return nil })
	notMirrored := []string{"/auth/login", "/robots/:robotId/streams/connect", "/fleets/:fleetId/custom-kpis"}
	var v2, mirror []string
	for _, r := range e.Routes() {
		switch {
		case strings.HasPrefix(r.Path, api.V2Prefix+"/"):
			if p := strings.TrimPrefix(r.Path, api.V2Prefix); !slices.Contains(notMirrored, p) {
				v2 = append(v2, r.Method+" "+p)
			}
		case strings.HasPrefix(r.Path, "/panel/api/"):
			mirror = append(mirror, r.Method+" "+strings.TrimPrefix(r.Path, "/panel/api"))
		}
	}
	slices.Sort(v2)
	slices.Sort(mirror)
	if !slices.Equal(v2, mirror) {
		t.Errorf("v2 REST routes:\n  %s\npanel mirror:\n  %s", strings.Join(v2, "\n  "), strings.Join(mirror, "\n  "))
	}
}
