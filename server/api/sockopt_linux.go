package api

import (
	"context"
	"syscall"
)

// notSentLowat keeps the kernel's unsent backlog of a stream socket small (~128 KiB), so
// latest-wins happens in our one-frame slot instead of behind seconds of buffered frames.
const notSentLowat = 128 << 10

// tcpNotSentLowat is TCP_NOTSENT_LOWAT (linux/tcp.h); the syscall package does not name it.
const tcpNotSentLowat = 25

func setNotSentLowat(ctx context.Context) { setNotSentLowatTo(ctx, notSentLowat) }

// setNotSentLowatTo sets TCP_NOTSENT_LOWAT to n bytes on the request's connection.
func setNotSentLowatTo(ctx context.Context, n int) {
	tcp := tcpConn(ctx)
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
