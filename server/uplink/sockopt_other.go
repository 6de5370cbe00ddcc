//go:build !linux

package uplink

import (
	"errors"
	"net"
	"syscall"
)

const congestionControl = "bbr"

// setCongestion: the congestion control is the system's where the socket option is not known.
func setCongestion(syscall.RawConn) error {
	return errors.New("choosing the congestion control needs Linux")
}

// setNotSentLowat does nothing where TCP_NOTSENT_LOWAT is not known.
func setNotSentLowat(syscall.RawConn) {}

func congestionOf(*net.TCPConn) string { return "" }

func unsentBytes(*net.TCPConn) (int, bool) { return 0, false }
