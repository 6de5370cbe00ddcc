package api

import (
	"context"
	"errors"
	"net/url"
	"strings"

	"github.com/coder/websocket"
	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// W3 output from cameras named by address: source 4 (ONVIF) or 5 (RTSP) with url, 6
// (device) with endpoint, and optional username and password. The checks are the core's
// (gateway.OpenCameraStream); this file reads the query and says how such a socket ends.

// maxCameraParam bounds url, endpoint, username and password.
const maxCameraParam = 2048

// cameraQuery reads the camera a W3 query names by address; nil when it names none (the
// parameters absent or empty). Each parameter may appear once. These sources are output
// only: input with them stays 400.
func cameraQuery(c echo.Context, sel gateway.StreamSelector, input bool) (*gateway.CameraTarget, error) {
	var t gateway.CameraTarget
	for _, p := range []struct {
		name string
		dst  *string
	}{{"url", &t.URL}, {"endpoint", &t.Endpoint}, {"username", &t.Username}, {"password", &t.Password}} {
		v, err := queryParam(c, p.name)
		if err != nil {
			return nil, err
		}
		if len(v) > maxCameraParam {
			return nil, gateway.Errorf(gateway.EInvalid, "%s is longer than %d bytes", p.name, maxCameraParam)
		}
		*p.dst = v
	}
	if t == (gateway.CameraTarget{}) {
		return nil, nil
	}
	if input {
		return nil, gateway.Errorf(gateway.EInvalid, "url, endpoint, username and password name camera sources, which are output only")
	}
	if t.URL != "" && t.Endpoint != "" {
		return nil, gateway.Errorf(gateway.EInvalid, "give url or endpoint, not both")
	}
	t.Source = sel.Source
	if t.Source == 0 {
		t.Source = cameraSource(t)
	}
	switch {
	case t.Source != fleet.SourceONVIF && t.Source != fleet.SourceRTSP && t.Source != fleet.SourceDevice:
		return nil, gateway.Errorf(gateway.EInvalid, "url and endpoint go with source 4 (ONVIF), 5 (RTSP) or 6 (device), not %d", t.Source)
	case t.Source == fleet.SourceDevice && t.Endpoint == "":
		return nil, gateway.Errorf(gateway.EInvalid, "source 6 (device) needs endpoint, such as /dev/video0")
	case t.Source != fleet.SourceDevice && t.URL == "":
		return nil, gateway.Errorf(gateway.EInvalid, "source %d needs url", t.Source)
	}
	return &t, nil
}

// cameraSource infers the source type of a query that gave none, from the address.
func cameraSource(t gateway.CameraTarget) fleet.SourceType {
	if t.Endpoint != "" {
		return fleet.SourceDevice
	}
	if u, err := url.Parse(t.URL); err == nil && (strings.EqualFold(u.Scheme, "http") || strings.EqualFold(u.Scheme, "https")) {
		return fleet.SourceONVIF
	}
	return fleet.SourceRTSP
}

// openLiveStream opens what a W3 query asks for: a camera by address, or a robot's stream.
func (h *streamSocket) openLiveStream(ctx context.Context, caller *gateway.Caller, robotID string, q liveQuery) (gateway.LiveStream, error) {
	if q.camera != nil {
		return h.gw.OpenCameraStream(ctx, caller, robotID, q.sel, *q.camera)
	}
	return h.gw.OpenLiveStream(ctx, caller, robotID, gateway.LiveStreamRequest{Input: q.input, Stream: q.sel})
}

// feedID is the key of the socket's output feed: the robot's, shared by every client of a
// stream; an ad-hoc camera's frames are the socket's alone, whatever stream name it gave.
func (s *socket) feedID() string {
	if s.ls.Camera {
		return s.ls.Robot.ID + "\x00camera\x00" + s.id
	}
	return s.ls.Robot.ID
}

// outputEnded is how an output socket closes when its subscription ends with err: the
// robot went away (1001), a camera failed (1011, its reason: unreachable, refused
// credentials, a refused address), or the socket itself ended (1000).
func outputEnded(err error) (websocket.StatusCode, string) {
	switch {
	case errors.Is(err, fleet.ErrOffline):
		return closeGoingAway, "robot went offline"
	case errors.Is(err, fleet.ErrUnavailable), errors.Is(err, fleet.ErrInvalid):
		return closeInternal, err.Error()
	default:
		return closeNormal, ""
	}
}
