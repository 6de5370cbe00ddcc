//go:build !linux

package hoststat

import "errors"

// diskUsage is only implemented for Linux; elsewhere Disk reports ok=false.
func diskUsage(path string) (used, total uint64, err error) {
	return 0, 0, errors.ErrUnsupported
}
