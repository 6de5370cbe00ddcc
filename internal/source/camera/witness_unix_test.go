//go:build unix

package camera

import (
	"net"
	"syscall"
)

// reached reports what reached the witness by now: whatever ffmpeg sent before it exited is
// queued there already (loopback delivers as it sends), so one non-blocking look at each
// socket is enough, and no wait. (A deadline of now would not do: Go checks it before it
// looks.)
func (w *loopbackWitness) reached() (connections, datagrams int) {
	raw, err := w.tcp.SyscallConn()
	if err != nil {
		panic(err)
	}
	// Control, not Read: a listener's RawConn refuses Read (EINVAL) without calling it. The
	// socket is non-blocking: Accept says EAGAIN once no connection is waiting.
	if err := raw.Control(func(fd uintptr) {
		for {
			nfd, _, err := syscall.Accept(int(fd))
			if err != nil {
				return
			}
			syscall.Close(nfd)
			connections++
		}
	}); err != nil {
		panic(err)
	}
	buf := make([]byte, 2048)
	for _, u := range []*net.UDPConn{w.udp, w.rtcp} {
		raw, err := u.SyscallConn()
		if err != nil {
			panic(err)
		}
		if err := raw.Control(func(fd uintptr) {
			for {
				if _, _, err := syscall.Recvfrom(int(fd), buf, syscall.MSG_DONTWAIT); err != nil {
					return
				}
				datagrams++
			}
		}); err != nil {
			panic(err)
		}
	}
	return connections, datagrams
}
