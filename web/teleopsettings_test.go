package web_test

import (
	"net/http"
	"net/url"
	"testing"
)

// The admin page's form sets a robot's own governor thresholds (post/redirect/get), refuses
// them out of order in words, resets them to the gateway's, and is refused to an operator.
func TestAdminSetsARobotsTeleopDelays(t *testing.T) {
	a := openLiveAgent(t)
	admin, op := a.as(t, "admin"), a.as(t, "operator")
	form := "/admin/robots/" + a.robot + "/teleop"
	wantBody(t, "the gateway's at first", admin.get("/admin"), `action="`+form+`"`, `name="fullMs" type="number" min="10" max="30000" required value="250"`,
		"the gateway's (--teleop-delay-*)")

	wantStatus(t, "operator sets", op.post(form, url.Values{"fullMs": {"100"}, "quarterMs": {"600"}, "stopMs": {"1500"}}), http.StatusForbidden)
	wantRedirect(t, "admin sets", admin.post(form, url.Values{"fullMs": {"100"}, "quarterMs": {"600"}, "stopMs": {"1500"}}), "/admin#robots")
	wantBody(t, "after set", admin.get("/admin"), `value="100"`, `value="600"`, `value="1500"`, "this robot's own, set by admin@")

	wantBody(t, "out of order", admin.submit(form, url.Values{"fullMs": {"700"}, "quarterMs": {"600"}, "stopMs": {"1500"}}), `role="alert"`, "the delays must grow")
	wantBody(t, "not a number", admin.submit(form, url.Values{"fullMs": {"fast"}, "quarterMs": {"600"}, "stopMs": {"1500"}}), `role="alert"`, "whole milliseconds")

	wantRedirect(t, "admin resets", admin.post(form, url.Values{"reset": {"1"}}), "/admin#robots")
	wantBody(t, "after reset", admin.get("/admin"), `value="250"`, `value="1000"`, `value="2000"`, "the gateway's (--teleop-delay-*)")
}
