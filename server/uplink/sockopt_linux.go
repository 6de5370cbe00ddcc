package uplink

import (
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// notSentLowat keeps the live connection's unsent kernel backlog small (16 KiB, about 65 ms at
// 2 Mbit/s), so a slow uplink makes samples wait in their one-sample slots, where newer ones
// replace them, and a pose never waits behind more than a part of a picture in the kernel.
// (128 KiB was 0.5 s of queue at 2 Mbit/s: odometry reached the operator 0.4 to 1.2 s late.)
const notSentLowat = 16 << 10

// setCongestion asks for the TCP congestion control name on the socket (the agent's default
// is bbr: it paces to the bottleneck's rate and keeps its queue short, where CUBIC fills the
// uplink's buffer: at 2 Mbit/s, 1% loss, picture age p99 1.1–1.8 s with CUBIC, 0.3 s with
// BBR); the error says the kernel does not offer it (the socket keeps the system's default).
func setCongestion(c syscall.RawConn, name string) (err error) {
	cerr := c.Control(func(fd uintptr) {
		err = unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, name)
	})
	if cerr != nil {
		return cerr
	}
	return err
}

// setNotSentLowat sets TCP_NOTSENT_LOWAT on the socket.
func setNotSentLowat(c syscall.RawConn) {
	c.Control(func(fd uintptr) {
		unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT, notSentLowat)
	})
}

// congestionOf is the congestion control the socket uses.
func congestionOf(conn *net.TCPConn) string {
	raw, err := conn.SyscallConn()
	if err != nil {
		return ""
	}
	var name string
	raw.Control(func(fd uintptr) {
		name, _ = unix.GetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION)
	})
	return name
}

// queueOf is what the socket has not had acknowledged yet (TCP_INFO): bytes not yet sent
// once, and bytes on their way (its unacknowledged segments, at most a segment size each);
// ok is false where the kernel does not say.
func queueOf(conn *net.TCPConn) (q sendQueue, ok bool) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return q, false
	}
	raw.Control(func(fd uintptr) {
		info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
		if err == nil {
			// Bytes on their way: sent once and not acknowledged (Linux 4.19 and later say
			// it in bytes; before, the segments at most a segment size each, which on
			// loopback's 64 KiB segments overstates it).
			inFlight := int(info.Unacked) * int(info.Snd_mss)
			if info.Bytes_sent > 0 {
				inFlight = int(info.Bytes_sent - info.Bytes_retrans - min(info.Bytes_acked, info.Bytes_sent-info.Bytes_retrans))
			}
			q = sendQueue{unsent: int(info.Notsent_bytes), inFlight: inFlight, rate: int64(info.Delivery_rate),
				minRTT: time.Duration(info.Min_rtt) * time.Microsecond}
			ok = true
		}
	})
	return q, ok
}
