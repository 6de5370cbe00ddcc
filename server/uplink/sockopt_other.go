//go:build !linux

package uplink

import "syscall"

// setNotSentLowat does nothing where TCP_NOTSENT_LOWAT is not known.
func setNotSentLowat(network, address string, c syscall.RawConn) error { return nil }
