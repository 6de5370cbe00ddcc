package gateway_test

import (
	"strings"
	"testing"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// fakeCameras records what the core asks of the camera source.
type fakeCameras struct {
	checkErr error
	opened   []fleetgate.Stream
}

func (f *fakeCameras) Check(gateway.CameraTarget) error { return f.checkErr }

func (f *fakeCameras) Open(_ gateway.CameraTarget, as fleetgate.Stream) (fleet.Robot, error) {
	f.opened = append(f.opened, as)
	return &fleettest.Robot{Name: "adhoc", StreamList: []fleetgate.Stream{as}}, nil
}

const imageType = "Platform.Messages.sensor_msgs.CompressedImage"

func TestOpenCameraStream(t *testing.T) {
	const listedURL = "rtsp://10.0.0.5/dock"
	cams := &fakeCameras{}
	p := livePresence{}
	e := newEnv(t, withPresence(p), func(c *gateway.Config) { c.Cameras = cams })
	r := e.addRobot(e.fleet, "sim-1")
	live := &fleettest.Robot{ID: r.ID, Name: r.Name, StreamList: []fleetgate.Stream{
		{Component: "camera", Name: "dock", Type: imageType, Direction: fleetgate.Output, Source: fleetgate.SourceRTSP, SourceURL: listedURL},
	}}
	p[r.ID] = live
	users := map[fleetgate.Role]*gateway.Caller{}
	for _, role := range []fleetgate.Role{fleetgate.RoleOperator, fleetgate.RoleDeveloper} {
		u := e.addUser(e.org.ID, role.String()+"@example.com", false, map[string]fleetgate.Role{r.ID: role})
		users[role] = e.login(e.addToken(u, fleetgate.ScopeFull, ""))
	}
	nobody := e.login(e.addToken(e.addUser(e.org.ID, "none@example.com", false, nil), fleetgate.ScopeFull, ""))
	kiosk := e.login(e.addToken(e.addUser(e.org.ID, "kiosk@example.com", false, map[string]fleetgate.Role{r.ID: fleetgate.RoleAdmin}), fleetgate.ScopeRead, ""))
	listed := gateway.StreamSelector{Component: "camera", Name: "dock", Source: fleetgate.SourceRTSP}
	mine := gateway.StreamSelector{Name: "mine", Source: fleetgate.SourceRTSP}
	adhoc := gateway.CameraTarget{Source: fleetgate.SourceRTSP, URL: "rtsp://10.0.0.9/live"}
	tests := []struct {
		name    string
		caller  *gateway.Caller
		sel     gateway.StreamSelector
		target  gateway.CameraTarget
		code    string
		camera  bool // an ad-hoc camera was opened
		checkTo error
	}{
		{"operator watches the listed camera by its URL", users[fleetgate.RoleOperator], listed, gateway.CameraTarget{Source: fleetgate.SourceRTSP, URL: listedURL}, "", false, nil},
		{"operator may not open one by address", users[fleetgate.RoleOperator], mine, adhoc, fleetgate.EForbidden, false, nil},
		{"credentials make the listed URL ad hoc", users[fleetgate.RoleOperator], listed,
			gateway.CameraTarget{Source: fleetgate.SourceRTSP, URL: listedURL, Username: "u", Password: "p"}, fleetgate.EForbidden, false, nil},
		{"developer opens one by address", users[fleetgate.RoleDeveloper], mine, adhoc, "", true, nil},
		{"the source refuses the address", users[fleetgate.RoleDeveloper], mine, adhoc, fleetgate.EForbidden, false, fleetgate.Errorf(fleetgate.EForbidden, "loopback")},
		{"a camera gives images only", users[fleetgate.RoleDeveloper], gateway.StreamSelector{Name: "mine", Source: fleetgate.SourceRTSP, Type: "Platform.Messages.sensor_msgs.LaserScan"}, adhoc, fleetgate.EInvalid, false, nil},
		{"an invisible robot", nobody, mine, adhoc, fleetgate.ENotFound, false, nil},
		{"a read-only token may not", kiosk, mine, adhoc, fleetgate.EForbidden, false, nil},
		{"a read-only token watches the listed camera", kiosk, listed, gateway.CameraTarget{Source: fleetgate.SourceRTSP, URL: listedURL}, "", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cams.checkErr, cams.opened = tt.checkTo, nil
			ls, err := e.g.OpenCameraStream(e.ctx, tt.caller, r.ID, tt.sel, tt.target)
			wantCode(t, "OpenCameraStream", err, tt.code)
			if (len(cams.opened) == 1) != tt.camera {
				t.Fatalf("opened %v, want an ad-hoc camera: %v", cams.opened, tt.camera)
			}
			if err != nil {
				return
			}
			// Ad-hoc frames are the socket's own (a feed key of their own); a listed camera's
			// are the robot's.
			if adhocFeed := ls.RobotID() != r.ID; adhocFeed != tt.camera || !strings.HasPrefix(ls.RobotID(), r.ID) {
				t.Fatalf("output of robot %q, want ad hoc %v", ls.RobotID(), tt.camera)
			}
			stream, sub, err := ls.Subscribe(e.ctx, fleetgate.SubscribeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Close()
			if tt.camera {
				as := cams.opened[0]
				if as.Name != "mine" || as.Source != fleetgate.SourceRTSP || as.Type != imageType || as.SourceURL != adhoc.URL || as.Direction != fleetgate.Output || stream != as {
					t.Fatalf("opened as %+v, streaming %+v", as, stream)
				}
			} else if stream != live.StreamList[0] {
				t.Fatalf("the listed camera is not read from its robot: %+v", stream)
			}
		})
	}
}

func TestCameraTargetChecks(t *testing.T) {
	t.Run("without a camera source", func(t *testing.T) {
		e := newEnv(t)
		r := e.addRobot(e.fleet, "sim-1")
		_, err := e.g.OpenCameraStream(e.ctx, e.login(e.adminSecret), r.ID, gateway.StreamSelector{Name: "x", Source: fleetgate.SourceRTSP},
			gateway.CameraTarget{Source: fleetgate.SourceRTSP, URL: "rtsp://10.0.0.9/live"})
		wantCode(t, "no camera source", err, fleetgate.ENotImplemented)
	})
	t.Run("syntax before authentication, the address after", func(t *testing.T) {
		cams := &fakeCameras{}
		e := newEnv(t, func(c *gateway.Config) { c.Cameras = cams })
		target := &gateway.CameraTarget{Source: fleetgate.SourceRTSP, URL: "rtsp://x"}
		cams.checkErr = fleetgate.Errorf(fleetgate.EInvalid, "bad URL")
		wantCode(t, "bad syntax", e.g.CheckCameraTarget(target), fleetgate.EInvalid)
		cams.checkErr = fleetgate.Errorf(fleetgate.EForbidden, "loopback")
		wantCode(t, "refused address", e.g.CheckCameraTarget(target), "")
		wantCode(t, "no camera", e.g.CheckCameraTarget(nil), "")
	})
}
