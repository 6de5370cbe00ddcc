package api

import (
	"context"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/live"
)

// W3 output from cameras named by address: source 4 (ONVIF) or 5 (RTSP) with url, 6
// (device) with endpoint, and optional username and password (in the query, as the
// contract has them, or in the panel's camera subprotocol, which keeps them out of the
// URL); and maxWidth, an extension. The checks are the core's (gateway.OpenCameraStream);
// this file reads the query.

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
			return nil, fleetgate.Errorf(fleetgate.EInvalid, "%s is longer than %d bytes", p.name, maxCameraParam)
		}
		*p.dst = v
	}
	user, password, inProtocol, err := protocolCameraCredentials(c.Request())
	if err != nil {
		return nil, err
	}
	if inProtocol {
		switch {
		case t.Username != "" || t.Password != "":
			return nil, fleetgate.Errorf(fleetgate.EInvalid, "give the camera's credentials in the query or in the subprotocol, not both")
		case t.URL == "":
			return nil, fleetgate.Errorf(fleetgate.EInvalid, "camera credentials in the subprotocol go with url")
		case len(user) > maxCameraParam || len(password) > maxCameraParam:
			return nil, fleetgate.Errorf(fleetgate.EInvalid, "username and password are at most %d bytes", maxCameraParam)
		}
		t.Username, t.Password = user, password
	}
	if t == (gateway.CameraTarget{}) {
		return nil, nil
	}
	if input {
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "url, endpoint, username and password name camera sources, which are output only")
	}
	if t.URL != "" && t.Endpoint != "" {
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "give url or endpoint, not both")
	}
	t.Source = sel.Source
	if t.Source == 0 {
		t.Source = cameraSource(t)
	}
	switch {
	case t.Source != fleetgate.SourceONVIF && t.Source != fleetgate.SourceRTSP && t.Source != fleetgate.SourceDevice:
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "url and endpoint go with source 4 (ONVIF), 5 (RTSP) or 6 (device), not %d", t.Source)
	case t.Source == fleetgate.SourceDevice && t.Endpoint == "":
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "source 6 (device) needs endpoint, such as /dev/video0")
	case t.Source != fleetgate.SourceDevice && t.URL == "":
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "source %d needs url", t.Source)
	}
	return &t, nil
}

// cameraSource infers the source type of a query that gave none, from the address.
func cameraSource(t gateway.CameraTarget) fleetgate.SourceType {
	if t.Endpoint != "" {
		return fleetgate.SourceDevice
	}
	if u, err := url.Parse(t.URL); err == nil && (strings.EqualFold(u.Scheme, "http") || strings.EqualFold(u.Scheme, "https")) {
		return fleetgate.SourceONVIF
	}
	return fleetgate.SourceRTSP
}

// openOutput opens what a W3 output query asks for: a camera by address, or a robot's
// stream; with maxWidth, images come scaled down to it; with codec=h264, as H.264.
func (h *streamSocket) openOutput(ctx context.Context, caller *gateway.Caller, robotID string, q liveQuery) (live.Output, error) {
	var out live.Output
	var err error
	if q.camera != nil {
		out, err = h.live.OpenCameraStream(ctx, caller, robotID, q.sel, *q.camera)
	} else {
		out, err = h.live.OpenLiveOutput(ctx, caller, robotID, q.sel)
	}
	if err != nil {
		return nil, err
	}
	if q.maxWidth != 0 {
		out = live.Scaled(out, q.maxWidth)
	}
	if q.codec != "" {
		out = live.Coded(out, q.codec)
	}
	return out, nil
}

// codecQuery reads codec (an extension of W3 output): jpeg (or none), a camera stream as it
// comes, CompressedImage; h264, as CompressedVideo access units. Any other is a 400.
func codecQuery(c echo.Context, input bool) (string, error) {
	v, err := queryParam(c, "codec")
	if err != nil {
		return "", err
	}
	switch strings.ToLower(v) {
	case "", "jpeg":
		return "", nil
	case fleetgate.CodecH264:
		if input {
			return "", fleetgate.Errorf(fleetgate.EInvalid, "codec applies to output only")
		}
		return fleetgate.CodecH264, nil
	}
	return "", fleetgate.Errorf(fleetgate.EInvalid, "codec must be jpeg or h264")
}

// maxWidthQuery reads maxWidth (an extension of W3 output): a viewer that wants camera
// images at most that many pixels wide; 0: as they come.
func maxWidthQuery(c echo.Context, input bool) (int, error) {
	v, err := queryParam(c, "maxWidth")
	if err != nil || v == "" {
		return 0, err
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < minScaledWidth || n > maxScaledWidth {
		return 0, fleetgate.Errorf(fleetgate.EInvalid, "maxWidth must be a width in pixels from %d to %d", minScaledWidth, maxScaledWidth)
	}
	if input {
		return 0, fleetgate.Errorf(fleetgate.EInvalid, "maxWidth applies to output only")
	}
	return n, nil
}

// The bounds of maxWidth (camera.MinScaledWidth, MaxScaledWidth: the API does not import a
// source).
const (
	minScaledWidth = 16
	maxScaledWidth = 8192
)
