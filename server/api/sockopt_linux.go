package api

import (
	"context"
	"net"
	"syscall"
)

// tcpNotSentLowat is TCP_NOTSENT_LOWAT (linux/tcp.h); the syscall package does not name it.
const tcpNotSentLowat = 25

// setNotSentLowatTo sets TCP_NOTSENT_LOWAT to n bytes on the request's connection.
func setNotSentLowatTo(ctx context.Context, n int) { setNotSentLowatOn(tcpConn(ctx), n) }

// setNotSentLowatOn sets TCP_NOTSENT_LOWAT to n bytes on tcp (nil: nothing to do).
func setNotSentLowatOn(tcp *net.TCPConn, n int) {
	if tcp == nil {
		return
	}
	raw, err := tcp.SyscallConn()
	if err != nil {
		return
	}
	raw.Control(func(fd uintptr) {
		syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, tcpNotSentLowat, n)
	})
}
