package camera

import (
	"context"
	"crypto/rand"
	"encoding/xml"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/fleetgate/fleetgate"
	"golang.org/x/net/ipv4"
)

// WS-Discovery's multicast group and port (SOAP-over-UDP), and the probe ONVIF devices
// answer.
const (
	discoveryGroup = "239.255.255.250"
	discoveryPort  = 3702
	probeTemplate  = `<?xml version="1.0" encoding="UTF-8"?>` +
		`<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope" xmlns:a="http://schemas.xmlsoap.org/ws/2004/08/addressing" ` +
		`xmlns:d="http://schemas.xmlsoap.org/ws/2005/04/discovery" xmlns:dn="http://www.onvif.org/ver10/network/wsdl">` +
		`<s:Header><a:Action s:mustUnderstand="1">http://schemas.xmlsoap.org/ws/2005/04/discovery/Probe</a:Action>` +
		`<a:MessageID>%s</a:MessageID><a:ReplyTo><a:Address>http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous</a:Address></a:ReplyTo>` +
		`<a:To s:mustUnderstand="1">urn:schemas-xmlsoap-org:ws:2005:04:discovery</a:To></s:Header>` +
		`<s:Body><d:Probe><d:Types>dn:NetworkVideoTransmitter</d:Types></d:Probe></s:Body></s:Envelope>`
)

// Device is an ONVIF device that answered a WS-Discovery probe.
type Device struct {
	Endpoint string // its endpoint reference (a urn:uuid)
	XAddr    string // its device service URL (the first http one it gave)
	Name     string // from its onvif://www.onvif.org/name/ scope, "" when none
}

// maxProbeMatch bounds one answer datagram.
const maxProbeMatch = 64 << 10

// DefaultMaxDiscovered is how many ONVIF devices discovery lists at most
// (--onvif-max-cameras): anyone on the local link may answer a probe, as many times and
// with as many devices as they like, and each device listed is a camera the agent may open.
const DefaultMaxDiscovered = 64

// Discover sends a WS-Discovery probe for ONVIF network video transmitters on every
// interface that is up and multicast-capable, with a time-to-live of one (it never leaves
// the local link), and collects the answers until ctx ends: at most limit devices (distinct
// endpoints) across all the answers, the first ones that came.
func Discover(ctx context.Context, limit int) ([]Device, error) {
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4zero})
	if err != nil {
		return nil, fmt.Errorf("ws-discovery: %w", err)
	}
	defer conn.Close()
	pc := ipv4.NewPacketConn(conn)
	pc.SetMulticastTTL(1)
	pc.SetMulticastLoopback(true) // a device on this very host answers too
	id := messageID()
	probe := []byte(fmt.Sprintf(probeTemplate, id))
	group := &net.UDPAddr{IP: net.ParseIP(discoveryGroup), Port: discoveryPort}
	ifaces, _ := net.Interfaces()
	sent := 0
	for _, ifi := range ifaces {
		if ifi.Flags&net.FlagUp == 0 || ifi.Flags&net.FlagMulticast == 0 {
			continue
		}
		if pc.SetMulticastInterface(&ifi) != nil {
			continue
		}
		if _, err := pc.WriteTo(probe, nil, group); err == nil {
			sent++
		}
	}
	if sent == 0 {
		return nil, fmt.Errorf("ws-discovery: no multicast interface to probe on")
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(3 * time.Second)
	}
	conn.SetReadDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { conn.SetReadDeadline(time.Now()) })
	defer stop()
	seen := map[string]bool{}
	var devices []Device
	buf := make([]byte, maxProbeMatch)
	for {
		n, _, err := conn.ReadFromUDP(buf)
		if err != nil {
			return devices, nil // the deadline: the answers are in
		}
		for _, d := range parseProbeMatches(buf[:n], id) {
			if len(devices) >= limit {
				return devices, nil
			}
			if !seen[d.Endpoint] {
				seen[d.Endpoint] = true
				devices = append(devices, d)
			}
		}
	}
}

func messageID() string {
	b := make([]byte, 16)
	rand.Read(b)
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("urn:uuid:%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// parseProbeMatches reads the devices of an answer to the probe with message id; anything
// else (another client's answers, our own probe looped back) reads as none.
func parseProbeMatches(data []byte, id string) []Device {
	var m struct {
		RelatesTo string `xml:"Header>RelatesTo"`
		Matches   []struct {
			Address string `xml:"EndpointReference>Address"`
			Scopes  string `xml:"Scopes"`
			XAddrs  string `xml:"XAddrs"`
		} `xml:"Body>ProbeMatches>ProbeMatch"`
	}
	if xml.Unmarshal(data, &m) != nil || strings.TrimSpace(m.RelatesTo) != id {
		return nil
	}
	var out []Device
	for _, pm := range m.Matches {
		d := Device{Endpoint: strings.TrimSpace(pm.Address)}
		for _, x := range strings.Fields(pm.XAddrs) {
			if s, err := ParseURL(x); err == nil && s.Source == fleetgate.SourceONVIF {
				d.XAddr = s.URL
				break
			}
		}
		for _, scope := range strings.Fields(pm.Scopes) {
			if name, ok := strings.CutPrefix(scope, "onvif://www.onvif.org/name/"); ok {
				d.Name, _ = url.PathUnescape(name)
			}
		}
		if d.Endpoint != "" && d.XAddr != "" {
			out = append(out, d)
		}
	}
	return out
}
