package main

import (
	"flag"
	"io"
	"testing"

	"github.com/fleetgate/fleetgate/internal/source/camera"
)

// --onvif-max-cameras reaches the agent's camera config; without it the camera package's
// default (64) applies, and a bound that lists nothing or without measure is refused.
func TestOnvifMaxCamerasFlag(t *testing.T) {
	parse := func(args ...string) (cameraFlags, error) {
		var c cameraFlags
		fs := flag.NewFlagSet("agent", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c.register(fs)
		return c, fs.Parse(args)
	}
	c, err := parse("--onvif-discovery", "--onvif-max-cameras", "5")
	if err != nil || c.config().OnvifMaxCameras != 5 || !c.config().Discovery {
		t.Fatalf("--onvif-max-cameras 5: %+v, %v", c.config(), err)
	}
	if c, err := parse(); err != nil || c.config().OnvifMaxCameras != 0 || camera.DefaultMaxDiscovered != 64 {
		t.Fatalf("without the flag: %d (0 is the default, %d), %v", c.config().OnvifMaxCameras, camera.DefaultMaxDiscovered, err)
	}
	for _, bad := range []string{"0", "-1", "many", "100000"} {
		if _, err := parse("--onvif-max-cameras", bad); err == nil {
			t.Errorf("--onvif-max-cameras %s was accepted", bad)
		}
	}
}
