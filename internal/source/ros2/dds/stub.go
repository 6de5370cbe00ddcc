//go:build !ros2

package dds

// Participant is absent from a build without the tag ros2.
type Participant struct{}

// Reader is absent from a build without the tag ros2.
type Reader struct{}

// Writer is absent from a build without the tag ros2.
type Writer struct{}

// Available reports whether the binary has the DDS transport.
const Available = false

// Open fails: the binary has no DDS.
func Open(Config) (*Participant, error) { return nil, ErrNotBuilt }

func (*Participant) Close() {}

func (*Participant) Reader(topic, typ string, qos QoS, onSample func([]byte)) (*Reader, error) {
	return nil, ErrNotBuilt
}

func (*Participant) Writer(topic, typ string, qos QoS) (*Writer, error) { return nil, ErrNotBuilt }

func (*Reader) Close() {}

func (*Writer) Write([]byte) error { return ErrNotBuilt }

func (*Writer) Matched() int { return 0 }

func (*Writer) Close() {}
