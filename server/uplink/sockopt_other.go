//go:build !linux

package uplink

import (
	"errors"
	"net"
	"syscall"
)

// setCongestion: the congestion control is the system's where the socket option is not known.
func setCongestion(syscall.RawConn, string) error {
	return errors.New("choosing the congestion control needs Linux")
}

// setNotSentLowat does nothing where TCP_NOTSENT_LOWAT is not known.
func setNotSentLowat(syscall.RawConn) {}

func congestionOf(*net.TCPConn) string { return "" }

func queueOf(*net.TCPConn) (sendQueue, bool) { return sendQueue{}, false }
