package mcap

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/fleetgate/fleetgate/internal/mcap/mcaptest"
)

// TestReadByMcapCore has the reference reader, npm @mcap/core, read our files: schemas,
// channels, counts, times, sequences, payloads decoded through the FileDescriptorSet, the
// data section's CRC, and a seek to the middle that reads only the chunks from there on.
func TestReadByMcapCore(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"zstd", Options{ChunkSize: 32 << 10, Library: "fleetgate-test", Profile: ""}},
		{"uncompressed", Options{ChunkSize: 32 << 10, Uncompressed: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const rounds = 60
			w := writeFile(t, tc.opts, rounds, false)
			r := mcaptest.Indexed(t, w.path)
			s := openSummary(t, w.path)

			if r.Header.Library != tc.opts.Library {
				t.Errorf("library %q, want %q", r.Header.Library, tc.opts.Library)
			}
			wantSchemas := map[string]string{
				"Platform.Messages.geometry_msgs.PoseStamped":   EncodingProtobuf,
				"Platform.Messages.sensor_msgs.CompressedImage": EncodingProtobuf,
				"custom_msgs/Beacon":                            SchemaROS1,
			}
			for _, sc := range r.Schemas {
				if wantSchemas[sc.Name] != sc.Encoding {
					t.Errorf("schema %q of encoding %q is not one written", sc.Name, sc.Encoding)
				}
				delete(wantSchemas, sc.Name)
			}
			if len(wantSchemas) > 0 {
				t.Errorf("schemas missing: %v", wantSchemas)
			}
			if got := int(r.Statistics.MessageCount); got != len(w.messages) {
				t.Errorf("@mcap/core counts %d messages, wrote %d", got, len(w.messages))
			}
			if r.Chunks != len(s.ChunkIndexes) || r.Chunks < 4 {
				t.Errorf("@mcap/core sees %d chunks, we wrote %d (want several)", r.Chunks, len(s.ChunkIndexes))
			}
			wantCompression := CompressionZstd
			if tc.opts.Uncompressed {
				wantCompression = CompressionNone
			}
			if len(r.Compressions) != 1 || r.Compressions[0] != wantCompression {
				t.Errorf("compressions %q, want %q", r.Compressions, wantCompression)
			}
			if r.DataSectionCRC == 0 || r.DataSectionCRC != r.ComputedDataCRC {
				t.Errorf("data end CRC %08x, computed by node %08x", r.DataSectionCRC, r.ComputedDataCRC)
			}

			// Every channel: its messages in order, with their sequences and both times.
			for id, topic := range w.topics {
				ch := r.Topic(topic)
				if ch == nil {
					t.Fatalf("@mcap/core has no channel %s", topic)
				}
				var want []Message
				for _, m := range w.messages {
					if m.ChannelID == id {
						want = append(want, m)
					}
				}
				if ch.Count != len(want) || int(r.Statistics.ChannelMessageCounts[strconv.Itoa(int(id))]) != len(want) {
					t.Fatalf("%s: %d messages read, statistics %d, wrote %d", topic, ch.Count,
						r.Statistics.ChannelMessageCounts[strconv.Itoa(int(id))], len(want))
				}
				for i, m := range want {
					if ch.Sequences[i] != m.Sequence || uint64(ch.LogTimes[i]) != m.LogTime || uint64(ch.PublishTimes[i]) != m.PublishTime {
						t.Fatalf("%s message %d: seq %d at %d/%d, wrote seq %d at %d/%d", topic, i,
							ch.Sequences[i], ch.LogTimes[i], ch.PublishTimes[i], m.Sequence, m.LogTime, m.PublishTime)
					}
				}
				if ch.Metadata["stream"] != topic {
					t.Errorf("%s: channel metadata %v", topic, ch.Metadata)
				}
			}

			// Payloads decode by the schema @mcap/support builds from our FileDescriptorSet.
			pose := r.Topic("/base/pose")
			last := rounds - 1
			if got := jsonPath(pose.Last, "pose", "position", "x"); got != float64(last) {
				t.Errorf("last pose x decoded as %v, want %d", got, last)
			}
			if got := jsonPath(pose.Last, "header", "stamp", "sec"); got != float64(1000+last) {
				t.Errorf("last pose stamp decoded as %v, want %d", got, 1000+last)
			}
			if got := jsonPath(pose.First, "header", "frame_id"); got != "map" {
				t.Errorf("first pose frame %v, want map", got)
			}
			image := r.Topic("/camera/image")
			data, err := base64.StdEncoding.DecodeString(fmt.Sprint(jsonPath(image.Last, "data")))
			if err != nil || len(data) != 3*(2000+last) || data[0] != byte(last) || jsonPath(image.Last, "format") != "jpeg" {
				t.Errorf("last image decoded with %d bytes (%v), format %v", len(data), err, jsonPath(image.Last, "format"))
			}
			raw, _ := base64.StdEncoding.DecodeString(fmt.Sprint(r.Topic("/beacon").Last["rawBase64"]))
			if len(raw) != 12 || binary.LittleEndian.Uint32(raw) != uint32(last-last%3) {
				t.Errorf("last opaque message read as %x", raw)
			}

			// Seek: from the middle, the chunk index leads the reader to the later chunks only.
			seek := r.Seek
			if seek.FromMiddle == 0 || seek.EarliestFromMiddle == nil || *seek.EarliestFromMiddle < seek.Middle {
				t.Errorf("reading from the middle (%d) gave %d messages, the earliest at %v", seek.Middle, seek.FromMiddle, seek.EarliestFromMiddle)
			}
			var after int
			for _, m := range w.messages {
				if m.LogTime >= uint64(seek.Middle) {
					after++
				}
			}
			if seek.FromMiddle != after {
				t.Errorf("%d messages from the middle, want %d", seek.FromMiddle, after)
			}
			if seek.ChunksRead == 0 || seek.ChunksRead >= r.Chunks*3/4 {
				t.Errorf("the seek read %d of %d chunks: the chunk index was not used", seek.ChunksRead, r.Chunks)
			}
		})
	}
}

// TestTruncatedFileStreams is the documented way to read a file a crash cut short before
// recovery: a streaming reader gets every message of the complete chunks.
func TestTruncatedFileStreams(t *testing.T) {
	w := writeFile(t, Options{ChunkSize: 16 << 10}, 30, true)
	st, err := os.Stat(w.path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() != w.chunks[len(w.chunks)-1] {
		t.Fatalf("the open file has %d bytes, the last chunk ended at %d", st.Size(), w.chunks[len(w.chunks)-1])
	}
	r := mcaptest.Stream(t, w.path)
	rec, err := Recover(w.path)
	if err != nil {
		t.Fatal(err)
	}
	kept := int(rec.Messages)
	if r.Messages != kept || r.Done {
		t.Fatalf("a streaming reader got %d messages (done %v, %q); the complete chunks hold %d", r.Messages, r.Done, r.Error, kept)
	}
	after := mcaptest.Indexed(t, w.path)
	if int(after.Statistics.MessageCount) != kept {
		t.Fatalf("after recovery @mcap/core counts %d messages, want %d", after.Statistics.MessageCount, kept)
	}
}

// jsonPath walks nested JSON objects.
func jsonPath(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// TestMetadataReadByMcapCore: the reference reader finds the metadata record by the summary's
// index, and reads every message around it.
func TestMetadataReadByMcapCore(t *testing.T) {
	path, _ := writeWithMetadata(t)
	r := mcaptest.Indexed(t, path)
	if len(r.Metadata) != 1 || r.Metadata[0].Name != "fleetgate" || r.Metadata[0].Metadata["trigger"] != "pallet dropped" {
		t.Fatalf("@mcap/core read metadata %+v", r.Metadata)
	}
	if r.Statistics.MetadataCount != 1 || r.Statistics.MessageCount != 3 {
		t.Fatalf("@mcap/core counts %d metadata records and %d messages, want 1 and 3", r.Statistics.MetadataCount, r.Statistics.MessageCount)
	}
}
