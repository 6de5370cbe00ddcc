package fleetgate

import (
	"errors"
	"fmt"
	"time"
)

// Info identifies a robot and what it runs.
type Info struct {
	ID            string // UUID, stable across restarts of its source
	Name          string
	ConfigName    string
	ConfigVersion string
	AgentVersion  string
}

// SourceType is the contract's stream source type.
type SourceType int

const (
	SourceComponent SourceType = 1
	SourceROS1      SourceType = 2
	SourceROS2      SourceType = 3
	SourceONVIF     SourceType = 4
	SourceRTSP      SourceType = 5
	SourceDevice    SourceType = 6
)

// Valid reports whether s is one of the contract's source types.
func (s SourceType) Valid() bool { return s >= SourceComponent && s <= SourceDevice }

// Direction of a stream as the contract writes it.
const (
	Output = "output"
	Input  = "input"
)

// Stream describes one stream of a robot.
type Stream struct {
	Component string
	Name      string
	Type      string // full message type name, Platform.Messages.<package>.<Type>
	Direction string // Output, Input or ""
	Source    SourceType
	// Optional descriptor fields; empty means null on the wire.
	DisplayName    string
	SourceURL      string
	SourceEndpoint string
	// Limits is what the robot can be asked to do through an input stream: the gateway
	// clamps every command to it. Zero fields are undeclared and take DefaultSpeedLimits.
	Limits SpeedLimits
	// Codecs are the W3 codecs the gateway hosting the robot offers a camera stream in (an
	// agent's, told the cloud over the link); none: the gateway serving the stream decides.
	// The cloud relays an agent's H.264 and encodes none of it, so its own ffmpeg says
	// nothing about an agent's cameras. (A set of bits, so that a Stream stays comparable.)
	Codecs Codecs
}

// Codecs is a set of the W3 codecs of a camera stream.
type Codecs uint8

// The codecs of Codecs.
const (
	CodecsJPEG Codecs = 1 << iota
	CodecsH264
)

// codecNames are the names of Codecs' bits, in the order endpoint 6 lists them.
var codecNames = [...]struct {
	bit  Codecs
	name string
}{{CodecsJPEG, "jpeg"}, {CodecsH264, CodecH264}}

// CodecsNamed is the set of the codecs named; names it does not know are left out (a newer
// gateway's).
func CodecsNamed(names []string) Codecs {
	var c Codecs
	for _, n := range names {
		for _, cn := range codecNames {
			if n == cn.name {
				c |= cn.bit
			}
		}
	}
	return c
}

// Names are the set's codecs by name ("jpeg", "h264"); nil for none.
func (c Codecs) Names() []string {
	var out []string
	for _, cn := range codecNames {
		if c&cn.bit != 0 {
			out = append(out, cn.name)
		}
	}
	return out
}

// SpeedLimits are the largest speeds an input stream's robot may be commanded: the gateway
// clamps every command to them and refuses values beyond RefuseFactor times them, which are
// no operator's intent but a bug or an attack.
type SpeedLimits struct {
	// Linear is in m/s: each axis of a Twist's linear, an AckermannDrive's speed.
	Linear float64
	// Angular is in rad/s for each axis of a Twist's angular, and in rad of steering angle
	// for an AckermannDrive (its steering velocity, acceleration and jerk are the robot's
	// own to bound).
	Angular float64
}

// DefaultSpeedLimits stand for a limit a robot does not declare (an agent of an older
// version, a source without the figure): a walking pace, safe for any robot of a warehouse.
var DefaultSpeedLimits = SpeedLimits{Linear: 1, Angular: 1.5}

// RefuseFactor is how far beyond its limit a command is refused rather than clamped.
const RefuseFactor = 10

// OrDefault fills the undeclared (zero, negative or non-finite) fields of l from
// DefaultSpeedLimits.
func (l SpeedLimits) OrDefault() SpeedLimits {
	if !(l.Linear > 0) || l.Linear > 1e6 {
		l.Linear = DefaultSpeedLimits.Linear
	}
	if !(l.Angular > 0) || l.Angular > 1e6 {
		l.Angular = DefaultSpeedLimits.Angular
	}
	return l
}

// Key is what identifies a stream within a robot.
func (s Stream) Key() StreamKey {
	return StreamKey{Component: s.Component, Name: s.Name, Source: s.Source}
}

// StreamKey addresses a stream of a robot.
type StreamKey struct {
	Component string
	Name      string
	Source    SourceType
}

// Sample is one value of a stream: an immutable serialized protobuf message of type Type.
// Samples are shared between readers; nobody may modify Payload.
type Sample struct {
	Type    string
	Payload []byte
	Time    time.Time
	Seq     uint64 // counts the samples of its stream from 1
	// Latched says the publisher keeps this sample for whoever joins later: a ROS 1 topic
	// published with latching, a ROS 2 writer of transient-local durability, a static stream
	// (the simulated map). A new viewer gets it whatever its age (Time says how old), where a
	// periodic sensor's old sample is never shown as live.
	Latched bool
	// Keyframe marks an H.264 access unit that decodes on its own (an IDR picture, its SPS
	// and PPS in front): a video stream's reader may start, or skip ahead, only there.
	Keyframe bool
}

// SubscribeOptions are what a subscriber needs of an output stream's samples. The zero value
// asks for every sample, whole.
type SubscribeOptions struct {
	// MaxRate is how many samples a second the subscriber takes at most; 0: every sample.
	MaxRate float64
	// Downsample says point clouds may come downsampled (to output.DefaultMaxPoints, as W3
	// sends them unless withoutDownSampling=true).
	Downsample bool
	// MaxWidth asks for images at most this many pixels wide (W3's maxWidth); 0: as they
	// come. Camera sources scale their JPEG images down, once per width for every subscriber
	// of that width; other sources may ignore it.
	MaxWidth int
	// Codec asks for a camera stream in another encoding than its own: "" as it comes (JPEG
	// CompressedImage), CodecH264 as CompressedVideo access units (an extension of W3).
	Codec string
}

// CodecH264 is the codec of H.264 camera streams (SubscribeOptions.Codec, W3's codec=h264).
const CodecH264 = "h264"

// KPI is the latest value of a custom KPI (metric type 100): a catalog message, serialized.
type KPI struct {
	Name     string
	DataType string // full message type name
	Payload  []byte
	Time     time.Time
}

// Resource is a file a robot offers for download.
type Resource struct {
	ID        string // UUID
	Name      string
	MIMEType  string // v2 "type"
	FileType  string // second convention "Type": rosbag, log, image, ...
	Size      int64
	CreatedAt time.Time
	// AdminOnly resources are shown to organization admins only: the agent's own log names
	// every user and every robot of its agent, which an operator of one robot must not learn.
	AdminOnly bool
}

// Held is who drives an input stream, and since when.
type Held struct {
	Key   StreamKey
	Owner string
	Since time.Time
}

// HeldError is the refusal of an input stream that somebody else drives: a conflict that
// names who, and since when.
func HeldError(h Held) *Error {
	return &Error{Code: EConflict, Owner: h.Owner, Since: h.Since,
		Message: fmt.Sprintf("stream %s/%s is controlled by %s since %s", h.Key.Component, h.Key.Name, h.Owner, h.Since.UTC().Format(time.RFC3339))}
}

// HeldBy returns the refusal err is when it is HeldError's: who drives the stream, and since
// when (Owner, Since).
func HeldBy(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) && e.Code == EConflict && e.Owner != "" {
		return e, true
	}
	return nil, false
}
