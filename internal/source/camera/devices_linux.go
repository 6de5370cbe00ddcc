package camera

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"unsafe"

	"golang.org/x/sys/unix"
)

// v4l2Capability is struct v4l2_capability (linux/videodev2.h).
type v4l2Capability struct {
	Driver       [16]byte
	Card         [32]byte
	BusInfo      [32]byte
	Version      uint32
	Capabilities uint32
	DeviceCaps   uint32
	Reserved     [3]uint32
}

// V4L2 constants (linux/videodev2.h).
const (
	vidiocQuerycap     = 0x80685600 // _IOR('V', 0, struct v4l2_capability)
	v4l2CapVideoCapure = 0x00000001
	v4l2CapDeviceCaps  = 0x80000000
)

// ListDevices lists the video capture devices under dir (/dev on a host): every video*
// node that says it captures video. A webcam has a second node for metadata, which does
// not, and is left out.
func ListDevices(dir string) []VideoDevice {
	paths, _ := filepath.Glob(filepath.Join(dir, "video[0-9]*"))
	slices.Sort(paths)
	var out []VideoDevice
	for _, p := range paths {
		if card, ok := queryCapture(p); ok {
			out = append(out, VideoDevice{Path: p, Card: card})
		}
	}
	return out
}

// queryCapture asks a device node whether it captures video, and its card name.
func queryCapture(path string) (string, bool) {
	st, err := os.Stat(path)
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return "", false
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", false
	}
	defer unix.Close(fd)
	var c v4l2Capability
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), vidiocQuerycap, uintptr(unsafe.Pointer(&c))); errno != 0 {
		return "", false
	}
	caps := c.Capabilities
	if caps&v4l2CapDeviceCaps != 0 {
		caps = c.DeviceCaps
	}
	if caps&v4l2CapVideoCapure == 0 {
		return "", false
	}
	return string(bytes.TrimRight(c.Card[:], "\x00")), true
}
