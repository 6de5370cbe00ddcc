package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/fleetgate/fleetgate/internal/source/camera"
	"github.com/fleetgate/fleetgate/server"
)

// cameraFlags are the agent's camera flags.
type cameraFlags struct {
	cameras      []camera.Configured
	allowPrivate bool
	discovery    bool
	onvifMax     int
	devices      bool
}

// maxCameras keeps a configuration mistake from starting hundreds of ffmpegs.
const maxCameras = 64

func (c *cameraFlags) register(fs *flag.FlagSet) {
	fs.Func("camera", "a camera: NAME=URL, or ROBOT/NAME=URL for a camera of a robot (repeatable; several separated by spaces); "+
		"URL is rtsp://, rtsps://, http(s):// (ONVIF) or a device such as /dev/video0; add ?transport=udp for RTSP over UDP. "+
		"Credentials in a URL show in ps: prefer FLEETGATE_CAMERA", func(v string) error {
		for _, one := range strings.Fields(v) {
			cc, err := camera.ParseFlag(one)
			if err != nil {
				return err
			}
			c.cameras = append(c.cameras, cc)
		}
		if len(c.cameras) > maxCameras {
			return usagef("at most %d cameras", maxCameras)
		}
		return nil
	})
	fs.BoolVar(&c.allowPrivate, "camera-allow-private", false, "let cameras opened by address from the live stream socket reach loopback and link-local addresses")
	fs.BoolVar(&c.discovery, "onvif-discovery", false, "list the ONVIF cameras that answer WS-Discovery on the local network")
	fs.Func("onvif-max-cameras", fmt.Sprintf("list at most `N` ONVIF cameras found by discovery, counted across every answer (default %d)", camera.DefaultMaxDiscovered), func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxCameras*16 {
			return usagef("--onvif-max-cameras takes a number from 1 to %d", maxCameras*16)
		}
		c.onvifMax = n
		return nil
	})
	fs.BoolVar(&c.devices, "camera-devices", true, "list the host's video capture devices (/dev/video*) as cameras")
}

func (c *cameraFlags) config() server.CameraConfig {
	return server.CameraConfig{Cameras: c.cameras, AllowPrivate: c.allowPrivate, Discovery: c.discovery, OnvifMaxCameras: c.onvifMax, Devices: c.devices}
}
