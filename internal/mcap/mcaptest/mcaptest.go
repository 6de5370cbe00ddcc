// Package mcaptest reads MCAP files with an independent reader, npm @mcap/core (the
// reference TypeScript implementation, with @mcap/support for zstd and protobuf), for the
// tests of the writer and of the recorder. It needs node and the repository's node_modules
// (npm ci); a test without them fails, it is not skipped.
package mcaptest

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// Report is what @mcap/core read from an indexed file.
type Report struct {
	Header struct {
		Profile string `json:"profile"`
		Library string `json:"library"`
	} `json:"header"`
	Schemas []struct {
		ID       int    `json:"id"`
		Name     string `json:"name"`
		Encoding string `json:"encoding"`
		Size     int    `json:"size"`
	} `json:"schemas"`
	Channels map[string]*Channel `json:"channels"` // by channel id
	// Metadata is the file's metadata records, by the summary's metadata index.
	Metadata []struct {
		Name     string            `json:"name"`
		Metadata map[string]string `json:"metadata"`
	} `json:"metadata"`
	Statistics struct {
		MessageCount         Uint            `json:"messageCount"`
		SchemaCount          int             `json:"schemaCount"`
		ChannelCount         int             `json:"channelCount"`
		ChunkCount           int             `json:"chunkCount"`
		MetadataCount        int             `json:"metadataCount"`
		MessageStartTime     Uint            `json:"messageStartTime"`
		MessageEndTime       Uint            `json:"messageEndTime"`
		ChannelMessageCounts map[string]Uint `json:"channelMessageCounts"`
	} `json:"statistics"`
	Chunks          int      `json:"chunks"`
	Compressions    []string `json:"compressions"`
	DataSectionCRC  uint32   `json:"dataSectionCrc"`
	ComputedDataCRC uint32   `json:"computedDataCrc"`
	Seek            struct {
		Middle             Uint  `json:"middle"`
		FromMiddle         int   `json:"fromMiddle"`
		FirstFromMiddle    *Uint `json:"firstFromMiddle"`
		EarliestFromMiddle *Uint `json:"earliestFromMiddle"`
		ChunksRead         int   `json:"chunksRead"`
	} `json:"seek"`
}

// Channel is one channel of a Report with its messages as read.
type Channel struct {
	Topic           string            `json:"topic"`
	MessageEncoding string            `json:"messageEncoding"`
	SchemaID        int               `json:"schemaId"`
	Metadata        map[string]string `json:"metadata"`
	Count           int               `json:"count"`
	Sequences       []uint32          `json:"sequences"`
	PublishTimes    []Uint            `json:"publishTimes"`
	LogTimes        []Uint            `json:"logTimes"`
	// First and Last are the first and last payloads decoded by the channel's protobuf
	// schema (protobufjs toObject: camelCase fields, 64-bit integers and bytes as strings),
	// or {"rawBase64": ...} for other encodings.
	First map[string]any `json:"first"`
	Last  map[string]any `json:"last"`
}

// Topic returns the channel of topic, nil if there is none.
func (r *Report) Topic(topic string) *Channel {
	for _, c := range r.Channels {
		if c.Topic == topic {
			return c
		}
	}
	return nil
}

// StreamReport is what a front-to-back read of a file found.
type StreamReport struct {
	Messages int            `json:"messages"`
	Counts   map[string]int `json:"counts"`
	// Done: the reader reached the closing magic; Error: why it stopped otherwise.
	Done  bool   `json:"done"`
	Error string `json:"error"`
}

// Uint is a 64-bit unsigned integer that JSON carries as a decimal string.
type Uint uint64

func (u *Uint) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n uint64
		if err := json.Unmarshal(b, &n); err != nil {
			return err
		}
		*u = Uint(n)
		return nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	*u = Uint(n)
	return err
}

// Time is u as nanoseconds since the epoch.
func (u Uint) Time() time.Time { return time.Unix(0, int64(u)) }

// Indexed reads path with McapIndexedReader: summary, every message, a seek to the middle.
func Indexed(t testing.TB, path string) *Report {
	t.Helper()
	var r Report
	run(t, "indexed", path, &r)
	return &r
}

// Stream reads path front to back with McapStreamReader.
func Stream(t testing.TB, path string) *StreamReport {
	t.Helper()
	var r StreamReport
	run(t, "stream", path, &r)
	return &r
}

func run(t testing.TB, mode, path string, into any) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is required to check MCAP files with @mcap/core: %v", err)
	}
	_, self, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(self), "inspect.mjs")
	cmd := exec.Command(node, script, mode, path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("@mcap/core could not read %s: %v\n%s", path, err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), into); err != nil {
		t.Fatalf("reading @mcap/core's report: %v\n%s", err, stdout.String())
	}
}
