package record

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"os"
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/mcap"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// Streams of the test robot.
var (
	poseKey   = fleetgate.StreamKey{Component: "base", Name: "pose", Source: fleetgate.SourceComponent}
	imageKey  = fleetgate.StreamKey{Component: "camera", Name: "image", Source: fleetgate.SourceComponent}
	beaconKey = fleetgate.StreamKey{Name: "/beacon", Source: fleetgate.SourceROS1}
	cmdKey    = fleetgate.StreamKey{Component: "base", Name: "cmd_vel", Source: fleetgate.SourceComponent}
)

const (
	typePose   = "Platform.Messages.geometry_msgs.PoseStamped"
	typeImage  = "Platform.Messages.sensor_msgs.CompressedImage"
	typeBeacon = "custom_msgs/Beacon" // outside the catalog: relayed as ROS 1 bytes
	beaconDef  = "uint32 id\nstring label\n"
)

// testRobot is a scriptable robot whose opaque stream has a ROS 1 definition.
type testRobot struct {
	*fleettest.Robot
}

func (r testRobot) MessageDefinition(ctx context.Context, key fleetgate.StreamKey) (string, string, error) {
	if key == beaconKey {
		return mcap.SchemaROS1, beaconDef, nil
	}
	return "", "", fleetgate.Errorf(fleetgate.ENotFound, "no definition")
}

func newTestRobot(name string) testRobot {
	return testRobot{&fleettest.Robot{
		ID: "6f1e0c1a-0000-4000-8000-00000000000" + name[len(name)-1:], Name: name,
		StreamList: []fleetgate.Stream{
			{Component: "base", Name: "pose", Type: typePose, Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
			{Component: "camera", Name: "image", Type: typeImage, Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
			{Name: "/beacon", Type: typeBeacon, Direction: fleetgate.Output, Source: fleetgate.SourceROS1},
			{Component: "base", Name: "cmd_vel", Type: "Platform.Messages.geometry_msgs.Twist", Direction: fleetgate.Input, Source: fleetgate.SourceComponent},
		},
		MetricList: []fleetgate.Metric{{Type: fleetgate.MetricBattery, Value: 80.0}},
		FileInfo:   []fleetgate.Resource{{ID: "0b7c6f7e-1111-4111-8111-111111111111", Name: "map.png", MIMEType: "image/png", FileType: "image", Size: 3}},
		Files:      map[string][]byte{"0b7c6f7e-1111-4111-8111-111111111111": []byte("png")},
	}}
}

func posePayload(i int) []byte {
	b, _ := proto.Marshal(&catalogpb.PoseStamped{
		Header: &catalogpb.Header{Stamp: &catalogpb.Time{Sec: int32(i)}, FrameId: "map"},
		Pose:   &catalogpb.Pose{Position: &catalogpb.Point{X: float64(i), Y: 2}},
	})
	return b
}

// imagePayload is a CompressedImage of n random (incompressible) bytes, the first being i.
func imagePayload(i, n int) []byte {
	data := make([]byte, n)
	rand.Read(data)
	data[0] = byte(i)
	b, _ := proto.Marshal(&catalogpb.CompressedImage{Header: &catalogpb.Header{FrameId: "camera"}, Format: "jpeg", Data: data})
	return b
}

func beaconPayload(i int) []byte {
	return []byte{byte(i), 0, 0, 0, 1, 0, 0, 0, 'b'}
}

// testConfig is a recorder in a temporary directory with small chunks and quick flushes.
func testConfig(t *testing.T) Config {
	return Config{
		Dir: t.TempDir(), ChunkSize: 16 << 10, FlushEvery: 20 * time.Millisecond, Library: "fleetgate-test",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

func openRecorder(t *testing.T, cfg Config) *Recorder {
	t.Helper()
	r, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// recording returns the current state of recording id of robot.
func recording(t *testing.T, robot *Robot, id string) fleetgate.Recording {
	t.Helper()
	list, err := robot.Recordings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(list, func(r fleetgate.Recording) bool { return r.ID == id })
	if i < 0 {
		t.Fatalf("no recording %s", id)
	}
	return list[i]
}

// emitWritten emits a sample and waits until the recording wrote it.
func emitWritten(t *testing.T, robot *Robot, raw testRobot, id string, key fleetgate.StreamKey, typ string, payload []byte) fleetgate.Sample {
	t.Helper()
	before := recording(t, robot, id).Messages
	s := raw.Emit(key, typ, payload)
	waitFor(t, "the sample to be written", func() bool { return recording(t, robot, id).Messages > before })
	return s
}

// waitFinished waits until recording id is no longer running and returns it.
func waitFinished(t *testing.T, robot *Robot, id string) fleetgate.Recording {
	t.Helper()
	var rec fleetgate.Recording
	waitFor(t, "the recording to finish", func() bool {
		rec = recording(t, robot, id)
		return rec.State != fleetgate.RecordingActive && !rec.EndTime.IsZero()
	})
	return rec
}

// summaryOf reads the summary of a complete file.
func summaryOf(t *testing.T, path string) *mcap.Summary {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	s, err := mcap.ReadSummary(f, st.Size())
	if err != nil {
		t.Fatalf("%s is not a complete MCAP file: %v", path, err)
	}
	return s
}
