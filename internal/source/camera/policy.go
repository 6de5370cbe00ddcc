package camera

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
)

// ErrRefusedAddress is wrapped by the policy's refusals.
var ErrRefusedAddress = errors.New("camera address refused")

// AddressPolicy guards the connections an operator's ad-hoc camera URL makes the agent open
// on its network: loopback and link-local targets (the agent's own services, cloud metadata
// endpoints) are refused unless AllowPrivate. Configured cameras are the agent owner's and
// are not checked. Private LAN ranges are allowed: that is where cameras live.
type AddressPolicy struct {
	AllowPrivate bool
	// Resolver resolves host names; nil: net.DefaultResolver.
	Resolver *net.Resolver
}

// refusedAddr says why ip may not be a camera target, "" when it may.
func refusedAddr(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return "a loopback address"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "a link-local address"
	case ip.IsUnspecified():
		return "an unspecified address (it reaches this host)"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "a multicast address"
	}
	return ""
}

// CheckLiteral refuses a host that is a refused address by itself (an IP literal, or
// localhost), without any lookup: the check before the WebSocket upgrade.
func (p AddressPolicy) CheckLiteral(host string) error {
	if p.AllowPrivate {
		return nil
	}
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return fmt.Errorf("%w: %s is a loopback name; the agent allows it with --camera-allow-private", ErrRefusedAddress, host)
	}
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		if why := refusedAddr(ip); why != "" {
			return fmt.Errorf("%w: %s is %s; the agent allows it with --camera-allow-private", ErrRefusedAddress, host, why)
		}
	}
	return nil
}

// Resolve looks host up and returns the address to connect to. Every address the name has
// must be allowed: a name that also points at a refused address is refused (the connection
// could pick it, or the next lookup return it).
func (p AddressPolicy) Resolve(ctx context.Context, host string) (netip.Addr, error) {
	if err := p.CheckLiteral(host); err != nil {
		return netip.Addr{}, err
	}
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return ip.Unmap(), nil
	}
	r := p.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("looking up %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return netip.Addr{}, fmt.Errorf("%s has no address", host)
	}
	if !p.AllowPrivate {
		for _, ip := range addrs {
			if why := refusedAddr(ip); why != "" {
				return netip.Addr{}, fmt.Errorf("%w: %s resolves to %s, %s; the agent allows it with --camera-allow-private", ErrRefusedAddress, host, ip, why)
			}
		}
	}
	return addrs[0].Unmap(), nil
}

// dialControl checks the address a connection is about to reach, whatever name led there:
// the HTTP client of ONVIF requests uses it, so a redirect or a second lookup cannot slip past
// the policy.
func (p AddressPolicy) dialControl(_, address string, _ syscall.RawConn) error {
	if p.AllowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrRefusedAddress, address)
	}
	if why := refusedAddr(ap.Addr()); why != "" {
		return fmt.Errorf("%w: %s is %s; the agent allows it with --camera-allow-private", ErrRefusedAddress, ap.Addr(), why)
	}
	return nil
}
