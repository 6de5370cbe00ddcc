package output

import (
	"fmt"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/fleetgate/fleetgate"
	_ "github.com/fleetgate/fleetgate/proto/foxglovepb" // registers foxglove.CompressedImage, FoxgloveType's answer
)

// FoxgloveImageType is the message a camera stream's Foxglove channel carries: Foxglove's own
// compressed image, which its Image panel (and Lichtblick's) shows; the catalog's
// CompressedImage is not one it knows.
const FoxgloveImageType = "foxglove.CompressedImage"

// FoxgloveType is the full name of the protobuf message a Foxglove channel of a stream of type
// streamType carries (Format Foxglove): FoxgloveImageType for camera images, else the stream's
// own type.
func FoxgloveType(streamType string) string {
	if streamType == compressedImageType {
		return FoxgloveImageType
	}
	return streamType
}

// The fields read of a catalog CompressedImage (proto/platform/messages/sensor_msgs.proto) and
// written of a foxglove.CompressedImage (proto/foxglove): numbered as in the .proto files.
const (
	catalogImageHeader protowire.Number = 1
	catalogImageFormat protowire.Number = 2
	catalogImageData   protowire.Number = 3
	headerStamp        protowire.Number = 1 // of std_msgs.Header
	headerFrameID      protowire.Number = 2
	timeSec            protowire.Number = 1 // of builtin_interfaces.Time and google.protobuf.Timestamp
	timeNanos          protowire.Number = 2

	foxgloveImageTimestamp protowire.Number = 1
	foxgloveImageData      protowire.Number = 2
	foxgloveImageFormat    protowire.Number = 3
	foxgloveImageFrameID   protowire.Number = 4
)

// foxgloveFrame is sample s's message as its Foxglove channel carries it: the payload itself,
// or for a camera image the foxglove.CompressedImage made of it once per sample, whose picture
// is not copied: Head holds the other fields and the picture's tag and length, Body is the
// picture within the sample's payload (protobuf fields may come in any order).
func foxgloveFrame(s fleetgate.Sample, payload []byte) (Frame, error) {
	if s.Type != compressedImageType {
		return Frame{Body: payload}, nil
	}
	img, err := readCatalogImage(payload)
	if err != nil {
		return Frame{}, err
	}
	if !img.stamped && !s.Time.IsZero() {
		img.sec, img.nanos = s.Time.Unix(), int64(s.Time.Nanosecond())
	}
	var stamp []byte
	if img.sec != 0 {
		stamp = protowire.AppendTag(stamp, timeSec, protowire.VarintType)
		stamp = protowire.AppendVarint(stamp, uint64(img.sec))
	}
	if img.nanos != 0 {
		stamp = protowire.AppendTag(stamp, timeNanos, protowire.VarintType)
		stamp = protowire.AppendVarint(stamp, uint64(img.nanos))
	}
	head := make([]byte, 0, 32+len(stamp)+len(img.frameID)+len(img.format))
	head = protowire.AppendTag(head, foxgloveImageTimestamp, protowire.BytesType)
	head = protowire.AppendBytes(head, stamp)
	if img.frameID != "" {
		head = protowire.AppendTag(head, foxgloveImageFrameID, protowire.BytesType)
		head = protowire.AppendString(head, img.frameID)
	}
	if img.format != "" {
		head = protowire.AppendTag(head, foxgloveImageFormat, protowire.BytesType)
		head = protowire.AppendString(head, img.format)
	}
	head = protowire.AppendTag(head, foxgloveImageData, protowire.BytesType)
	head = protowire.AppendVarint(head, uint64(len(img.data)))
	return Frame{Head: head[:len(head):len(head)], Body: img.data}, nil
}

// catalogImage is what a foxglove.CompressedImage takes of a catalog CompressedImage; data
// is within the payload it was read from.
type catalogImage struct {
	sec, nanos int64
	stamped    bool // the header has a stamp
	frameID    string
	format     string
	data       []byte
}

// readCatalogImage reads a serialized catalog CompressedImage without copying its picture.
func readCatalogImage(b []byte) (catalogImage, error) {
	var img catalogImage
	err := eachField(b, func(num protowire.Number, v []byte) error {
		switch num {
		case catalogImageHeader:
			return eachField(v, func(num protowire.Number, v []byte) error {
				switch num {
				case headerStamp:
					img.stamped = true
					return readTime(v, &img.sec, &img.nanos)
				case headerFrameID:
					img.frameID = string(v)
				}
				return nil
			})
		case catalogImageFormat:
			img.format = string(v)
		case catalogImageData:
			img.data = v
		}
		return nil
	})
	if err == nil && (!utf8.ValidString(img.frameID) || !utf8.ValidString(img.format)) {
		err = fmt.Errorf("compressed image: a string is not UTF-8")
	}
	return img, err
}

// readTime reads a builtin_interfaces.Time: int32 sec, uint32 nanosec.
func readTime(b []byte, sec, nanos *int64) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("compressed image stamp: %w", protowire.ParseError(n))
		}
		b = b[n:]
		if typ != protowire.VarintType {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return fmt.Errorf("compressed image stamp: %w", protowire.ParseError(n))
			}
			b = b[n:]
			continue
		}
		x, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return fmt.Errorf("compressed image stamp: %w", protowire.ParseError(n))
		}
		b = b[n:]
		switch num {
		case timeSec:
			*sec = int64(int32(x))
		case timeNanos:
			*nanos = int64(uint32(x)) % int64(time.Second)
		}
	}
	return nil
}

// eachField calls f with each length-delimited field of message b (other wire types are
// skipped), in order; the values are within b.
func eachField(b []byte, f func(num protowire.Number, v []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("compressed image: %w", protowire.ParseError(n))
		}
		b = b[n:]
		if typ != protowire.BytesType {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return fmt.Errorf("compressed image: %w", protowire.ParseError(n))
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return fmt.Errorf("compressed image: %w", protowire.ParseError(n))
		}
		b = b[n:]
		if err := f(num, v); err != nil {
			return err
		}
	}
	return nil
}
