package camera

import "path/filepath"

// VideoDevice is a V4L2 video capture device of the host.
type VideoDevice struct {
	Path string // /dev/video0
	Card string // what the driver calls it ("HD Pro Webcam C920")
}

// Name is the device's stream name: video0 for /dev/video0.
func (d VideoDevice) Name() string { return filepath.Base(d.Path) }
