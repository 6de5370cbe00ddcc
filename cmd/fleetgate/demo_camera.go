package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/fleetgate/fleetgate/internal/source/camera"
	"github.com/fleetgate/fleetgate/internal/source/camera/gstreamer"
)

// demoCameraName is the demo camera's stream name.
const demoCameraName = "rtsp-demo"

// startDemoCamera starts GStreamer's RTSP server with a test pattern (H.264, 640x480, 15
// fps) as the demo's camera, on sim-1 when there are simulated robots, else on the agent's
// own camera robot. Without GStreamer the demo runs without a camera and says so.
func startDemoCamera(ctx context.Context, log *slog.Logger, onRobot bool) (*camera.Configured, func()) {
	checkCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := gstreamer.Available(checkCtx); err != nil {
		log.Info("no demo camera", "why", err.Error())
		return nil, func() {}
	}
	srv, err := gstreamer.Start(gstreamer.Options{Codec: "h264", Width: 640, Height: 480, FPS: 15})
	if err != nil {
		log.Warn("no demo camera: the RTSP server did not start", "err", err)
		return nil, func() {}
	}
	spec, err := camera.ParseURL(srv.URL())
	if err != nil {
		srv.Close()
		log.Warn("no demo camera", "err", err)
		return nil, func() {}
	}
	c := camera.Configured{Name: demoCameraName, Spec: spec}
	if onRobot {
		c.Robot = "sim-1"
	}
	log.Info("demo camera: GStreamer's test pattern over RTSP", "url", srv.URL(), "robot", c.Robot)
	return &c, srv.Close
}
