// Package dds is fleetgate's DDS transport for ROS 2: a domain participant of Cyclone DDS
// (libddsc, through cgo) that discovers the graph's endpoints and reads and writes samples as
// raw CDR bytes. It never interprets a message: the bytes cross the cgo boundary as a copy and
// Go decodes them (internal/rosmsg). Without the build tag ros2 the package is a stub whose
// Open says how to get a binary that has it, so the default build needs no C compiler.
package dds

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
)

// QoS is the part of an endpoint's quality of service that decides whether a reader and a
// writer match: a reliable reader never matches a best-effort writer, and a transient-local
// reader never matches a volatile writer.
type QoS struct {
	Reliable       bool
	TransientLocal bool
	Depth          int // history depth (keep last); default 1
}

// Endpoint is a reader or writer of the DDS graph, as discovery describes it.
type Endpoint struct {
	GUID        [16]byte
	Participant [16]byte
	Topic       string // the DDS topic name (rt/...)
	Type        string // the DDS type name (pkg::msg::dds_::Name_)
	QoS         QoS
	Writer      bool // a publication; else a subscription
}

// Event tells that an endpoint appeared, or (Gone) went away.
type Event struct {
	Endpoint
	Gone bool
}

// Config configures the participant.
type Config struct {
	Domain int // DDS domain id: ROS_DOMAIN_ID
	// Interface is the network interface (name or address) to use; empty: Cyclone chooses.
	Interface string
	// Peers are unicast addresses (host or host:port) to discover beside multicast.
	Peers []string
	// MaxSample is the largest sample taken, bytes; larger ones are dropped and logged.
	MaxSample int
	// XML is a Cyclone DDS configuration fragment (what goes inside <Domain>) added to the
	// one made from the fields above.
	XML    string
	Logger *slog.Logger
	// OnEvent is told every discovery event, from the participant's one goroutine.
	OnEvent func(Event)
}

// DefaultMaxSample bounds a sample: 64 MiB.
const DefaultMaxSample = 64 << 20

// ErrNotBuilt is Open's error in a binary built without the tag ros2.
var ErrNotBuilt = errors.New("this fleetgate was built without ROS 2 support: build it with `make agent-ros2` (go build -tags ros2, which needs cgo, a C compiler and Debian's cyclonedds-dev)")

// configXML makes the Cyclone DDS configuration: the chosen interface, multicast discovery
// plus the unicast peers, and a socket buffer that holds a few megabytes of fragments.
func configXML(cfg Config) string {
	var b strings.Builder
	b.WriteString(`<CycloneDDS><Domain Id="any"><General>`)
	if cfg.Interface != "" {
		attr := "name"
		if net.ParseIP(cfg.Interface) != nil {
			attr = "address"
		}
		fmt.Fprintf(&b, `<Interfaces><NetworkInterface %s="%s" multicast="default"/></Interfaces>`, attr, xmlEscape(cfg.Interface))
	}
	b.WriteString(`<AllowMulticast>default</AllowMulticast></General><Discovery><ParticipantIndex>auto</ParticipantIndex><MaxAutoParticipantIndex>100</MaxAutoParticipantIndex>`)
	if len(cfg.Peers) > 0 {
		b.WriteString(`<Peers>`)
		for _, p := range cfg.Peers {
			fmt.Fprintf(&b, `<Peer address="%s"/>`, xmlEscape(p))
		}
		b.WriteString(`</Peers>`)
	}
	// Cyclone's MaxSampleSize is the cap: a sample announced larger is dropped as its first
	// fragment arrives, so no peer makes the agent reassemble one of 2 GiB (Cyclone's
	// default); Cyclone's warning reaches the agent's log (logsink.go). The raw sertype
	// refuses one over MaxSample as well, before copying it.
	fmt.Fprintf(&b, `</Discovery><Internal><SocketReceiveBufferSize min="default" max="8MB"/><MaxSampleSize>%d B</MaxSampleSize></Internal>`, maxSampleSize(cfg))
	b.WriteString(cfg.XML)
	b.WriteString(`</Domain></CycloneDDS>`)
	return b.String()
}

// maxSampleSize is cfg.MaxSample as Cyclone takes it: the default when unset, at most 2 GiB.
func maxSampleSize(cfg Config) int {
	if cfg.MaxSample <= 0 {
		return DefaultMaxSample
	}
	return min(cfg.MaxSample, 1<<31-1)
}

func xmlEscape(s string) string {
	r := strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `"`, "&quot;", `'`, "&apos;")
	return r.Replace(s)
}
