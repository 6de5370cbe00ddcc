//go:build !linux

package camera

// ListDevices finds no devices off Linux: V4L2 is Linux's.
func ListDevices(string) []VideoDevice { return nil }
