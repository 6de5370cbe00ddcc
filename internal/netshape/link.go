//go:build linux

package netshape

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/fleetgate/fleetgate/internal/clock"
)

// Config configures a Link. The zero Config is an unimpaired link.
type Config struct {
	// Up is the site's direction towards the cloud (its uplink), Down the other one.
	Up, Down Profile
	// Seed makes the losses repeatable; 0 picks one.
	Seed uint64
	// Clock times the shapers (clock.Real when nil).
	Clock clock.Clock
	// Veth makes a plain veth pair instead of the shaped TUN link, with the same namespaces
	// and addresses: the baseline a shaped link with no impairment is measured against.
	Veth bool
}

// Link is a network link between two namespaces it made, "site" and "cloud", each with one
// address. Close removes both namespaces and everything in them.
type Link struct {
	// Site and Cloud name the namespaces (ip netns names).
	Site, Cloud string
	// SiteAddr and CloudAddr are the two ends' addresses, private and random, existing only
	// inside the namespaces.
	SiteAddr, CloudAddr netip.Addr

	siteDev    string
	up, down   *Shaper
	tunSite    *os.File
	tunCloud   *os.File
	forwarders sync.WaitGroup
	closeOnce  sync.Once
}

// Available says why a Link cannot be made here, or nil: it needs root (CAP_NET_ADMIN),
// /dev/net/tun and iproute2's ip.
func Available() error {
	if os.Geteuid() != 0 {
		return errors.New("netshape needs root (CAP_NET_ADMIN) to make network namespaces and TUN devices")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return errors.New("netshape needs iproute2's ip (apt-get install iproute2)")
	}
	f, err := os.OpenFile("/dev/net/tun", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("netshape needs /dev/net/tun: %v", err)
	}
	return f.Close()
}

// Open makes the namespaces and the link between them.
func Open(cfg Config) (l *Link, err error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	var id [3]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, err
	}
	if cfg.Seed == 0 {
		cfg.Seed = uint64(id[0])<<16 | uint64(id[1])<<8 | uint64(id[2]) | 1
	}
	tag := fmt.Sprintf("%02x%02x%02x", id[0], id[1], id[2])
	// 10.X.Y.1 and .2 with X, Y random: two links of parallel tests never share a subnet,
	// and no address is set outside the namespaces.
	l = &Link{
		Site: "fgsite-" + tag, Cloud: "fgcloud-" + tag,
		CloudAddr: netip.AddrFrom4([4]byte{10, id[0], id[1], 1}),
		SiteAddr:  netip.AddrFrom4([4]byte{10, id[0], id[1], 2}),
	}
	defer func() {
		if err != nil {
			l.Close()
		}
	}()
	for _, ns := range []string{l.Site, l.Cloud} {
		if err := ip("netns", "add", ns); err != nil {
			return l, err
		}
		if err := ip("-n", ns, "link", "set", "lo", "up"); err != nil {
			return l, err
		}
	}
	siteDev, cloudDev := "fgs"+tag, "fgc"+tag
	l.siteDev = siteDev
	if cfg.Veth {
		if err := ip("link", "add", siteDev, "netns", l.Site, "type", "veth", "peer", "name", cloudDev, "netns", l.Cloud); err != nil {
			return l, err
		}
	} else {
		if l.tunSite, err = openTUN(siteDev); err != nil {
			return l, err
		}
		if l.tunCloud, err = openTUN(cloudDev); err != nil {
			return l, err
		}
		// A TUN device keeps its file when it moves: this process reads and writes both
		// while each lives in its namespace.
		if err := ip("link", "set", siteDev, "netns", l.Site); err != nil {
			return l, err
		}
		if err := ip("link", "set", cloudDev, "netns", l.Cloud); err != nil {
			return l, err
		}
	}
	ends := []struct {
		ns, dev     string
		self, other netip.Addr
	}{{l.Site, siteDev, l.SiteAddr, l.CloudAddr}, {l.Cloud, cloudDev, l.CloudAddr, l.SiteAddr}}
	for _, e := range ends {
		// IPv6 off: its router and neighbour chatter would cross the shaper too and spend
		// the losses' random numbers.
		if err := ip("netns", "exec", e.ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"); err != nil {
			return l, err
		}
		if err := ip("-n", e.ns, "addr", "add", e.self.String(), "peer", e.other.String(), "dev", e.dev); err != nil {
			return l, err
		}
		if err := ip("-n", e.ns, "link", "set", e.dev, "up"); err != nil {
			return l, err
		}
	}
	if cfg.Veth {
		return l, nil
	}
	l.up = NewShaper(cfg.Clock, cfg.Up, cfg.Seed, writeTo(l.tunCloud))
	l.down = NewShaper(cfg.Clock, cfg.Down, cfg.Seed+1, writeTo(l.tunSite))
	l.forwarders.Add(2)
	go l.forward(l.tunSite, l.up)
	go l.forward(l.tunCloud, l.down)
	return l, nil
}

// SetProfiles changes both directions' impairments (a flapping link: Down set, then not).
// Not for a veth Link.
func (l *Link) SetProfiles(up, down Profile) {
	if l.up == nil {
		return
	}
	l.up.SetProfile(up)
	l.down.SetProfile(down)
}

// Stats returns both directions' counts (zero for a veth Link).
func (l *Link) Stats() (up, down Stats) {
	if l.up == nil {
		return Stats{}, Stats{}
	}
	return l.up.Stats(), l.down.Stats()
}

// Command is name with args run in namespace ns (l.Site or l.Cloud).
func (l *Link) Command(ns, name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", ns, name}, args...)...)
}

// Close stops the forwarding and removes both namespaces. Processes still running in them
// keep them alive until they end: stop them first.
func (l *Link) Close() error {
	var errs []error
	l.closeOnce.Do(func() {
		if l.up != nil {
			l.up.Close()
			l.down.Close()
		}
		for _, f := range []*os.File{l.tunSite, l.tunCloud} {
			if f != nil {
				f.Close() // a blocked Read returns: the file is in the poller
			}
		}
		l.forwarders.Wait()
		for _, ns := range []string{l.Site, l.Cloud} {
			if err := ip("netns", "del", ns); err != nil && !strings.Contains(err.Error(), "No such file") {
				errs = append(errs, err)
			}
		}
	})
	return errors.Join(errs...)
}

// forward reads the packets from one end's TUN device into the shaper of its direction.
func (l *Link) forward(from *os.File, s *Shaper) {
	defer l.forwarders.Done()
	buf := make([]byte, 65536)
	for {
		n, err := from.Read(buf)
		if err != nil {
			return
		}
		s.Push(append([]byte(nil), buf[:n]...))
	}
}

func writeTo(f *os.File) func([]byte) {
	return func(pkt []byte) {
		// A write fails only when the device is gone (the link is closing) or the packet is
		// malformed: a dropped packet, as a wire would.
		_, _ = f.Write(pkt)
	}
}

// openTUN makes a TUN device (IP packets, no extra header) and returns its file, in the
// runtime's poller so Close ends a blocked Read.
func openTUN(name string) (*os.File, error) {
	fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("open /dev/net/tun: %w", err)
	}
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	ifr.SetUint16(unix.IFF_TUN | unix.IFF_NO_PI)
	if err := unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("TUNSETIFF %s: %w", name, err)
	}
	return os.NewFile(uintptr(fd), "/dev/net/tun:"+name), nil
}

func ip(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

var _ io.Closer = (*Link)(nil)

// Dialer returns a DialContext that makes its sockets inside namespace ns (l.Site or
// l.Cloud): a test's clients reach the processes there while the test stays where it is.
// The connection then works from any thread.
func (l *Link) Dialer(ns string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (conn net.Conn, err error) {
		if nsErr := inNamespace(ns, func() {
			var d net.Dialer
			conn, err = d.DialContext(ctx, network, addr)
		}); nsErr != nil {
			return nil, nsErr
		}
		return conn, err
	}
}

// Listen listens on addr inside namespace ns: a test serves the processes there (a bridge
// to a server outside) while it stays where it is. The listener works from any thread.
func (l *Link) Listen(ns, network, addr string) (ln net.Listener, err error) {
	if nsErr := inNamespace(ns, func() { ln, err = net.Listen(network, addr) }); nsErr != nil {
		return nil, nsErr
	}
	return ln, err
}

// SetSiteUp takes the site's end of the link down or up again (ip link set ... down): a
// partition of the site's namespace, its sockets kept, every packet across lost meanwhile.
func (l *Link) SetSiteUp(up bool) error {
	state := "down"
	if up {
		state = "up"
	}
	return ip("-n", l.Site, "link", "set", l.siteDev, state)
}

// inNamespace runs f on a thread moved into namespace ns for that moment; the sockets f
// makes belong to ns.
func inNamespace(ns string, f func()) error {
	done := make(chan error, 1)
	go func() {
		// The goroutine's thread changes namespace: it is locked, and if it cannot be moved
		// back it is never unlocked, so the runtime ends it with the goroutine.
		runtime.LockOSThread()
		home, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			runtime.UnlockOSThread()
			done <- err
			return
		}
		defer unix.Close(home)
		target, err := unix.Open("/run/netns/"+ns, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			runtime.UnlockOSThread()
			done <- fmt.Errorf("namespace %s: %w", ns, err)
			return
		}
		defer unix.Close(target)
		if err := unix.Setns(target, unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			done <- fmt.Errorf("entering namespace %s: %w", ns, err)
			return
		}
		f()
		if unix.Setns(home, unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
		done <- nil
	}()
	return <-done
}
