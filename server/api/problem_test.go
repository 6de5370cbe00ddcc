package api_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/server/api"
)

// TestHTTPLayerErrorsCarryCode covers the answers made before the core is reached (echo's
// router, LimitBody, the media type and no-body checks): each must carry a problem code
// like the core's errors do, so that clients branch on code for every error alike.
func TestHTTPLayerErrorsCarryCode(t *testing.T) {
	w := newWorld(t)
	auth := bearer(w.admin)
	withType := func(contentType string) http.Header {
		h := bearer(w.admin)
		h.Set("Content-Type", contentType)
		return h
	}
	event := api.V2Prefix + eventTarget("robotId", w.robot.ID, "message", "code check")
	upload := `{"componentName":"base","streamName":"cmd_vel","source":1,"dataType":"Platform.Messages.geometry_msgs.Twist","streamJson":"{}"}`
	cases := []struct {
		name, method, path string
		header             http.Header
		body               io.Reader
		wantStatus         int
		wantCode           string
	}{
		{"v2 login by GET", http.MethodGet, api.V2Prefix + "/auth/login", nil, nil, 405, "method_not_allowed"},
		{"v2 robots by DELETE", http.MethodDelete, api.V2Prefix + "/robots", auth, nil, 405, "method_not_allowed"},
		{"v2 event log by GET", http.MethodGet, event, auth, nil, 405, "method_not_allowed"},
		{"second login by GET", http.MethodGet, api.SecondPrefix + "/login", nil, nil, 405, "method_not_allowed"},
		{"second upload by PUT", http.MethodPut, api.SecondPrefix + "/robot/" + w.robot.ID + "/streams/upload-stream", auth, nil, 405, "method_not_allowed"},
		{"v2 login as text", http.MethodPost, api.V2Prefix + "/auth/login", http.Header{"Content-Type": {"text/plain"}}, strings.NewReader(`{"userToken":"x"}`), 415, "unsupported_media_type"},
		{"v2 upload as a form", http.MethodPost, api.V2Prefix + "/robots/" + w.robot.ID + "/upload-stream", withType("application/x-www-form-urlencoded"), strings.NewReader("a=b"), 415, "unsupported_media_type"},
		{"second login without a type", http.MethodPost, api.SecondPrefix + "/login", nil, strings.NewReader(`{"usertoken":"x"}`), 415, "unsupported_media_type"},
		{"second upload as text", http.MethodPost, api.SecondPrefix + "/robot/" + w.robot.ID + "/streams/upload-stream", withType("text/plain"), strings.NewReader(upload), 415, "unsupported_media_type"},
		{"event log with a body", http.MethodPost, event, withType("application/json"), strings.NewReader(`{"message":"x"}`), 400, fleetgate.EInvalid},
		{"event log with a chunked body", http.MethodPost, event, auth, struct{ io.Reader }{strings.NewReader("message=x")}, 400, fleetgate.EInvalid},
		{"login body over 1 MiB", http.MethodPost, api.V2Prefix + "/auth/login", http.Header{"Content-Type": {"application/json"}}, strings.NewReader(strings.Repeat(" ", api.MaxBodyBytes+1)), 413, "too_large"},
		{"unknown v2 path", http.MethodGet, api.V2Prefix + "/no-such-route", auth, nil, 404, fleetgate.ENotFound},
		{"unknown second path", http.MethodGet, api.SecondPrefix + "/robot", auth, nil, 404, fleetgate.ENotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := w.DoRaw(c.method, c.path, c.header, c.body)
			if resp.Status != c.wantStatus {
				t.Fatalf("status %d, want %d; body %s", resp.Status, c.wantStatus, resp.Body)
			}
			checkProblem(t, resp)
			var p struct{ Code string }
			if err := json.Unmarshal(resp.Body, &p); err != nil {
				t.Fatal(err)
			}
			if p.Code != c.wantCode {
				t.Errorf("code = %q, want %q; body %s", p.Code, c.wantCode, resp.Body)
			}
		})
	}
}
