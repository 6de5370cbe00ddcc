package gateway_test

import (
	"strings"
	"testing"

	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// fakeCameras records what the core asks of the camera source.
type fakeCameras struct {
	checkErr error
	opened   []fleet.Stream
}

func (f *fakeCameras) Check(gateway.CameraTarget) error { return f.checkErr }

func (f *fakeCameras) Open(_ gateway.CameraTarget, as fleet.Stream) (fleet.Robot, error) {
	f.opened = append(f.opened, as)
	return &fleettest.Robot{Name: "adhoc", StreamList: []fleet.Stream{as}}, nil
}

const imageType = "Platform.Messages.sensor_msgs.CompressedImage"

func TestOpenCameraStream(t *testing.T) {
	const listedURL = "rtsp://10.0.0.5/dock"
	cams := &fakeCameras{}
	p := livePresence{}
	e := newEnv(t, withPresence(p), func(c *gateway.Config) { c.Cameras = cams })
	r := e.addRobot(e.fleet, "sim-1")
	live := &fleettest.Robot{ID: r.ID, Name: r.Name, StreamList: []fleet.Stream{
		{Component: "camera", Name: "dock", Type: imageType, Direction: fleet.Output, Source: fleet.SourceRTSP, SourceURL: listedURL},
	}}
	p[r.ID] = live
	users := map[gateway.Role]*gateway.Caller{}
	for _, role := range []gateway.Role{gateway.RoleOperator, gateway.RoleDeveloper} {
		u := e.addUser(e.org.ID, role.String()+"@example.com", false, map[string]gateway.Role{r.ID: role})
		users[role] = e.login(e.addToken(u, gateway.ScopeFull, ""))
	}
	nobody := e.login(e.addToken(e.addUser(e.org.ID, "none@example.com", false, nil), gateway.ScopeFull, ""))
	kiosk := e.login(e.addToken(e.addUser(e.org.ID, "kiosk@example.com", false, map[string]gateway.Role{r.ID: gateway.RoleAdmin}), gateway.ScopeRead, ""))
	listed := gateway.StreamSelector{Component: "camera", Name: "dock", Source: fleet.SourceRTSP}
	mine := gateway.StreamSelector{Name: "mine", Source: fleet.SourceRTSP}
	adhoc := gateway.CameraTarget{Source: fleet.SourceRTSP, URL: "rtsp://10.0.0.9/live"}
	tests := []struct {
		name    string
		caller  *gateway.Caller
		sel     gateway.StreamSelector
		target  gateway.CameraTarget
		code    string
		camera  bool // an ad-hoc camera was opened
		checkTo error
	}{
		{"operator watches the listed camera by its URL", users[gateway.RoleOperator], listed, gateway.CameraTarget{Source: fleet.SourceRTSP, URL: listedURL}, "", false, nil},
		{"operator may not open one by address", users[gateway.RoleOperator], mine, adhoc, gateway.EForbidden, false, nil},
		{"credentials make the listed URL ad hoc", users[gateway.RoleOperator], listed,
			gateway.CameraTarget{Source: fleet.SourceRTSP, URL: listedURL, Username: "u", Password: "p"}, gateway.EForbidden, false, nil},
		{"developer opens one by address", users[gateway.RoleDeveloper], mine, adhoc, "", true, nil},
		{"the source refuses the address", users[gateway.RoleDeveloper], mine, adhoc, gateway.EForbidden, false, gateway.Errorf(gateway.EForbidden, "loopback")},
		{"a camera gives images only", users[gateway.RoleDeveloper], gateway.StreamSelector{Name: "mine", Source: fleet.SourceRTSP, Type: "Platform.Messages.sensor_msgs.LaserScan"}, adhoc, gateway.EInvalid, false, nil},
		{"an invisible robot", nobody, mine, adhoc, gateway.ENotFound, false, nil},
		{"a read-only token may not", kiosk, mine, adhoc, gateway.EForbidden, false, nil},
		{"a read-only token watches the listed camera", kiosk, listed, gateway.CameraTarget{Source: fleet.SourceRTSP, URL: listedURL}, "", false, nil},
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
			stream, sub, err := ls.Subscribe(e.ctx, fleet.SubscribeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Close()
			if tt.camera {
				as := cams.opened[0]
				if as.Name != "mine" || as.Source != fleet.SourceRTSP || as.Type != imageType || as.SourceURL != adhoc.URL || as.Direction != fleet.Output || stream != as {
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
		_, err := e.g.OpenCameraStream(e.ctx, e.login(e.adminSecret), r.ID, gateway.StreamSelector{Name: "x", Source: fleet.SourceRTSP},
			gateway.CameraTarget{Source: fleet.SourceRTSP, URL: "rtsp://10.0.0.9/live"})
		wantCode(t, "no camera source", err, gateway.ENotImplemented)
	})
	t.Run("syntax before authentication, the address after", func(t *testing.T) {
		cams := &fakeCameras{}
		e := newEnv(t, func(c *gateway.Config) { c.Cameras = cams })
		target := &gateway.CameraTarget{Source: fleet.SourceRTSP, URL: "rtsp://x"}
		cams.checkErr = gateway.Errorf(gateway.EInvalid, "bad URL")
		wantCode(t, "bad syntax", e.g.CheckCameraTarget(target), gateway.EInvalid)
		cams.checkErr = gateway.Errorf(gateway.EForbidden, "loopback")
		wantCode(t, "refused address", e.g.CheckCameraTarget(target), "")
		wantCode(t, "no camera", e.g.CheckCameraTarget(nil), "")
	})
}
