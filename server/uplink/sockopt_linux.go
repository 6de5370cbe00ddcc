package uplink

import "syscall"

// notSentLowat keeps the live connection's unsent kernel backlog small (~128 KiB), so a slow
// uplink makes samples wait in their one-sample slots, where newer ones replace them.
const notSentLowat = 128 << 10

// tcpNotSentLowat is TCP_NOTSENT_LOWAT (linux/tcp.h); the syscall package does not name it.
const tcpNotSentLowat = 25

// setNotSentLowat is a net.Dialer Control function setting TCP_NOTSENT_LOWAT.
func setNotSentLowat(network, address string, c syscall.RawConn) error {
	c.Control(func(fd uintptr) {
		syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, tcpNotSentLowat, notSentLowat)
	})
	return nil
}
