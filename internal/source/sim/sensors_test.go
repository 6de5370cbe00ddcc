package sim

import (
	"bytes"
	"context"
	"encoding/binary"
	"image"
	"image/jpeg"
	"math"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clockstrip"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

var (
	poseKey   = streamKey("base", "pose")
	odomKey   = streamKey("base", "odom")
	scanKey   = streamKey("lidar", "scan")
	imageKey  = streamKey("camera", "image")
	pointsKey = streamKey("depth", "points")
	batKey    = streamKey("base", "battery")
	mapKey    = streamKey("map", "map")
)

func read[M proto.Message](t *testing.T, r fleet.Robot, key fleetgate.StreamKey, m M) fleetgate.Sample {
	t.Helper()
	s, err := r.Read(context.Background(), key)
	if err != nil {
		t.Fatalf("Read %s/%s: %v", key.Component, key.Name, err)
	}
	if err := proto.Unmarshal(s.Payload, m); err != nil {
		t.Fatalf("Read %s/%s: payload: %v", key.Component, key.Name, err)
	}
	return s
}

func TestScanMatchesGeometry(t *testing.T) {
	// A 12 x 10 hall: inner faces at x = 0.2 and 11.8, y = 0.2 and 9.8.
	s := mustNewSim(t, Config{Count: 2}, newEmptyHall(12, 10))
	beam := func(angle float64) int { return int(math.Round((angle + math.Pi) / (2 * math.Pi / scanBeams))) }
	tests := []struct {
		name  string
		at    pose
		other pose    // where robot 1 stands
		angle float64 // of the beam, from the heading
		want  float64
	}{
		{"east wall ahead", pose{4, 5, 0}, pose{2, 8, 0}, 0, 7.8},
		{"north wall to the left", pose{4, 5, 0}, pose{2, 8, 0}, math.Pi / 2, 4.8},
		{"west wall behind", pose{4, 5, 0}, pose{2, 8, 0}, -math.Pi, 3.8},
		{"facing north", pose{4, 5, math.Pi / 2}, pose{2, 8, 0}, 0, 4.8},
		{"east wall at 30 degrees", pose{4, 5, math.Pi / 6}, pose{2, 2, 0}, 0, 7.8 / math.Cos(math.Pi/6)},
		{"a robot ahead", pose{4, 5, 0}, pose{7, 5, 0}, 0, 3 - robotRadius},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			place(s, 1, tt.other.x, tt.other.y, tt.other.theta)
			place(s, 0, tt.at.x, tt.at.y, tt.at.theta)
			run(s, scanPeriod) // the last scan is stale now
			var scan catalogpb.LaserScan
			read(t, s.robots[0], scanKey, &scan)
			if len(scan.Ranges) != scanBeams || scan.RangeMax != scanRangeMax {
				t.Fatalf("%d beams, range_max %v", len(scan.Ranges), scan.RangeMax)
			}
			got := float64(scan.Ranges[beam(tt.angle)])
			if !near(got, tt.want, mapResolution) {
				t.Errorf("range = %.4f m, want %.4f", got, tt.want)
			}
		})
	}
}

func TestScanWithoutReturnIsInfinite(t *testing.T) {
	s := mustNewSim(t, Config{}, newEmptyHall(30, 6))
	place(s, 0, 3, 3, 0) // 26.8 m to the east wall, beyond range_max
	var scan catalogpb.LaserScan
	read(t, s.robots[0], scanKey, &scan)
	if r := scan.Ranges[scanBeams/2]; !math.IsInf(float64(r), 1) {
		t.Errorf("range without a return = %v, want +Inf", r)
	}
	if a := float64(scan.AngleMin) + float64(scanBeams/2)*float64(scan.AngleIncrement); !near(a, 0, 1e-6) {
		t.Errorf("beam %d points at %v rad, want straight ahead", scanBeams/2, a)
	}
}

func decodeFrame(t *testing.T, s fleetgate.Sample) image.Image {
	t.Helper()
	var msg catalogpb.CompressedImage
	if err := proto.Unmarshal(s.Payload, &msg); err != nil {
		t.Fatal(err)
	}
	if msg.Format != "jpeg" {
		t.Errorf("format %q, want jpeg", msg.Format)
	}
	img, err := jpeg.Decode(bytes.NewReader(msg.Data))
	if err != nil {
		t.Fatalf("decoding the JPEG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != camWidth || b.Dy() != camHeight {
		t.Fatalf("frame is %dx%d, want %dx%d", b.Dx(), b.Dy(), camWidth, camHeight)
	}
	return img
}

// meanDifference is the mean absolute difference of two images' grey levels, 0..255.
func meanDifference(a, b image.Image) float64 {
	var sum float64
	bounds := a.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y += 2 {
		for x := bounds.Min.X; x < bounds.Max.X; x += 2 {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			sum += math.Abs(float64(r1+g1+b1)-float64(r2+g2+b2)) / 3 / 257
		}
	}
	return sum / float64(bounds.Dx()*bounds.Dy()/4)
}

func TestCameraFramesChangeWithTheView(t *testing.T) {
	s := mustNewSim(t, Config{Seed: 3}, nil)
	r := s.robots[0]
	ctx := context.Background()
	place(s, 0, 3, 9, 0) // west of the shelf rows, looking east down an aisle
	first, err := r.Read(ctx, imageKey)
	if err != nil {
		t.Fatal(err)
	}
	img1 := decodeFrame(t, first)

	// A second Read within the period shares the frame.
	again, err := r.Read(ctx, imageKey)
	if err != nil || again.Seq != first.Seq {
		t.Errorf("second read within the period: seq %d (err %v), want the same frame %d", again.Seq, err, first.Seq)
	}

	place(s, 0, 3, 9, 1.2) // turned left
	run(s, cameraPeriod+physicsStep)
	turned, err := r.Read(ctx, imageKey)
	if err != nil {
		t.Fatal(err)
	}
	img2 := decodeFrame(t, turned)
	if d := meanDifference(img1, img2); d < 5 {
		t.Errorf("frames before and after turning differ by %.2f grey levels on average, want a visible change", d)
	}

	place(s, 0, 4.2, 9, 1.2) // moved 1.2 m without turning
	run(s, cameraPeriod+physicsStep)
	moved, err := r.Read(ctx, imageKey)
	if err != nil {
		t.Fatal(err)
	}
	if d := meanDifference(img2, decodeFrame(t, moved)); d < 2 {
		t.Errorf("frames before and after moving differ by %.2f grey levels on average, want a visible change", d)
	}
	if got := r.renders.Load(); got != 3 {
		t.Errorf("renders = %d, want 3", got)
	}
}

// With Config.ClockStrip the camera burns each picture's capture time (the envelope's) into
// it, readable from the decoded JPEG; without, a user's picture carries no strip.
func TestCameraBurnsItsCaptureTimeOnlyWhenAsked(t *testing.T) {
	for _, on := range []bool{false, true} {
		s := mustNewSim(t, Config{Seed: 3, ClockStrip: on}, nil)
		for range 3 {
			run(s, cameraPeriod+physicsStep)
			frame := mustRead(t, s.robots[0], imageKey)
			burned, ok := clockstrip.Read(decodeFrame(t, frame), frame.Time.Add(time.Second))
			if ok != on || on && !burned.Equal(frame.Time.Truncate(time.Millisecond)) {
				t.Fatalf("ClockStrip %v: the picture reads %v %v, its envelope says %v", on, burned, ok, frame.Time)
			}
		}
	}
}

func TestCameraSeesOtherRobots(t *testing.T) {
	s := mustNewSim(t, Config{Count: 2}, newEmptyHall(20, 10))
	place(s, 0, 3, 5, 0)
	place(s, 1, 17, 2, 0)
	empty := decodeFrame(t, mustRead(t, s.robots[0], imageKey))
	place(s, 1, 5, 5, 0) // two metres ahead
	run(s, cameraPeriod+physicsStep)
	img := decodeFrame(t, mustRead(t, s.robots[0], imageKey))
	// The centre column just below the horizon shows the robot's teal body.
	r, g, b, _ := img.At(camWidth/2, camHeight/2+20).RGBA()
	if !(g > r+(40<<8) && b > r+(40<<8)) {
		t.Errorf("centre pixel with a robot ahead is (%d, %d, %d), want teal", r>>8, g>>8, b>>8)
	}
	if d := meanDifference(empty, img); d < 1 {
		t.Errorf("a robot ahead changed the frame by %.2f grey levels on average", d)
	}
}

func mustRead(t *testing.T, r fleet.Robot, key fleetgate.StreamKey) fleetgate.Sample {
	t.Helper()
	s, err := r.Read(context.Background(), key)
	if err != nil {
		t.Fatalf("Read %s/%s: %v", key.Component, key.Name, err)
	}
	return s
}

func TestPointCloud(t *testing.T) {
	s := mustNewSim(t, Config{Count: 2, Seed: 5}, nil)
	for i := range s.robots {
		var pc catalogpb.PointCloud2
		read(t, s.robots[i], pointsKey, &pc)
		if pc.Height != 1 || pc.PointStep != 12 || !pc.IsDense || pc.IsBigendian {
			t.Errorf("height %d point_step %d is_dense %v is_bigendian %v", pc.Height, pc.PointStep, pc.IsDense, pc.IsBigendian)
		}
		t.Logf("%s: %d points", s.robots[i].info.Name, pc.Width)
		if pc.Width < 15000 || pc.Width > depthCols*depthRows {
			t.Errorf("%d points, want about 20k", pc.Width)
		}
		if len(pc.Data) != int(pc.Width)*12 || pc.RowStep != pc.Width*12 {
			t.Errorf("len(data) = %d, row_step %d, for %d points", len(pc.Data), pc.RowStep, pc.Width)
		}
		names := []string{"x", "y", "z"}
		for j, f := range pc.Fields {
			if f.Name != names[j] || f.Offset != uint32(4*j) || f.Datatype != 7 || f.Count != 1 {
				t.Errorf("field %d = %v", j, f)
			}
		}
		for p := range points(pc.Data) {
			if p[2] < -1e-4 || p[2] > ceilingHeight+1e-4 || p[0] <= 0 || math.Hypot(math.Hypot(p[0], p[1]), p[2]-depthMount) > depthRange+1e-3 {
				t.Fatalf("point %v is outside the sensor's view", p)
			}
		}
	}
}

// points iterates over packed float32 x, y, z.
func points(data []byte) func(func([3]float64) bool) {
	return func(yield func([3]float64) bool) {
		for i := 0; i+12 <= len(data); i += 12 {
			var p [3]float64
			for k := range 3 {
				p[k] = float64(math.Float32frombits(binary.LittleEndian.Uint32(data[i+4*k:])))
			}
			if !yield(p) {
				return
			}
		}
	}
}

func TestPointCloudSeesAWallAhead(t *testing.T) {
	s := mustNewSim(t, Config{}, newEmptyHall(12, 10))
	place(s, 0, 8.8, 5, 0) // the east wall's face is 3 m ahead
	var pc catalogpb.PointCloud2
	read(t, s.robots[0], pointsKey, &pc)
	onWall := 0
	for p := range points(pc.Data) {
		if p[2] > 0.01 && p[2] < ceilingHeight-0.01 { // not floor, not ceiling: the wall
			onWall++
			if !near(p[0], 3, 1e-3) {
				t.Fatalf("wall point %v, want x = 3", p)
			}
		}
	}
	if onWall < depthCols*10 {
		t.Errorf("only %d points on the wall", onWall)
	}
}

func TestNothingRendersWithoutReaders(t *testing.T) {
	s := mustNewSim(t, Config{Count: 3, Seed: 9}, nil)
	work := func() (renders, clouds, scans int64) {
		for _, r := range s.robots {
			renders += r.renders.Load()
			clouds += r.clouds.Load()
			scans += r.scans.Load()
		}
		return
	}
	run(s, 3*time.Second)
	if r, c, sc := work(); r != 0 || c != 0 || sc != 0 {
		t.Fatalf("without readers: %d frames, %d clouds, %d scans", r, c, sc)
	}

	tests := []struct {
		key     fleetgate.StreamKey
		counter func(*robot) int64
		rate    float64 // per second
	}{
		{imageKey, func(r *robot) int64 { return r.renders.Load() }, 15},
		{pointsKey, func(r *robot) int64 { return r.clouds.Load() }, 5},
		{scanKey, func(r *robot) int64 { return r.scans.Load() }, 10},
	}
	for _, tt := range tests {
		t.Run(tt.key.Component, func(t *testing.T) {
			r := s.robots[1]
			before := tt.counter(r)
			sub, err := r.Subscribe(context.Background(), tt.key, fleetgate.SubscribeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			run(s, time.Second)
			made := tt.counter(r) - before
			if !near(float64(made), tt.rate, 1) {
				t.Errorf("%d made in a second with a subscriber, want %v", made, tt.rate)
			}
			sample, ok := sub.Take()
			if !ok || sample.Type != r.outputs[tt.key].stream.Type {
				t.Errorf("subscriber's pending sample: ok %v type %q", ok, sample.Type)
			}
			sub.Close()
			stopped := tt.counter(r)
			run(s, time.Second)
			if got := tt.counter(r); got != stopped {
				t.Errorf("%d made after the subscriber left", got-stopped)
			}
			for _, other := range []*robot{s.robots[0], s.robots[2]} {
				if tt.counter(other) != 0 {
					t.Errorf("%s worked for robot 1's subscriber", other.info.Name)
				}
			}
		})
	}
}

func TestStateStreamsAlwaysReadable(t *testing.T) {
	s := mustNewSim(t, Config{}, newEmptyHall(20, 10))
	r := s.robots[0]
	place(s, 0, 5, 5, 0)
	driveFor(t, s, 0, 0.5, 0.2, 2*time.Second, nil)
	b := bodyOf(s, 0)

	var ps catalogpb.PoseStamped
	read(t, r, poseKey, &ps)
	if ps.Header.FrameId != frameMap || !near(ps.Pose.Position.X, b.x, 0.03) || !near(ps.Pose.Position.Y, b.y, 0.03) {
		t.Errorf("pose %v, body at (%v, %v)", ps.Pose.Position, b.x, b.y)
	}
	if yaw := 2 * math.Atan2(ps.Pose.Orientation.Z, ps.Pose.Orientation.W); !near(yaw, b.theta, 0.02) {
		t.Errorf("pose yaw %v, body %v", yaw, b.theta)
	}

	var odom catalogpb.Odometry
	read(t, r, odomKey, &odom)
	if !near(odom.Twist.Twist.Linear.X, 0.5, 1e-9) || !near(odom.Twist.Twist.Angular.Z, 0.2, 1e-9) || odom.ChildFrameId != frameBase {
		t.Errorf("odom twist %v child frame %q", odom.Twist.Twist, odom.ChildFrameId)
	}

	var bat catalogpb.BatteryState
	read(t, r, batKey, &bat)
	if bat.Percentage <= 0 || bat.Percentage > 1 || bat.PowerSupplyStatus != powerDischarging || !bat.Present {
		t.Errorf("battery %v %% status %d", bat.Percentage, bat.PowerSupplyStatus)
	}

	var grid catalogpb.OccupancyGrid
	read(t, r, mapKey, &grid)
	w, h := int(grid.Info.Width), int(grid.Info.Height)
	if grid.Info.Resolution != mapResolution || w != 400 || h != 200 || len(grid.Data) != w*h {
		t.Fatalf("map %dx%d at %v m with %d cells", w, h, grid.Info.Resolution, len(grid.Data))
	}
	cell := func(x, y float64) byte { return grid.Data[int(y/mapResolution)*w+int(x/mapResolution)] }
	if cell(0.1, 5) != 100 || cell(10, 9.9) != 100 || cell(5, 5) != 0 {
		t.Errorf("walls %d %d, floor %d; want 100 100 0", cell(0.1, 5), cell(10, 9.9), cell(5, 5))
	}
}

// TestMapReachesViewersJoiningLate: the map is published once, when the simulation starts,
// and latched: a viewer joining long after (this simulation started at testStart, months
// before the wall clock the topics' freshness rule reads) gets it at once, a second viewer
// too, with the map's own time. The pose, a periodic stream just as old, is not shown as live.
func TestMapReachesViewersJoiningLate(t *testing.T) {
	s := mustNewSim(t, Config{}, nil)
	r := s.Robots()[0]
	ctx := context.Background()
	for viewer := range 2 {
		sub, err := r.Subscribe(ctx, mapKey, fleetgate.SubscribeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		smp, ok := sub.Take()
		if !ok {
			t.Fatalf("viewer %d joining %v after the map got nothing", viewer+1, time.Since(testStart).Round(time.Hour))
		}
		var grid catalogpb.OccupancyGrid
		if err := proto.Unmarshal(smp.Payload, &grid); err != nil || len(grid.Data) != int(grid.Info.Width*grid.Info.Height) || grid.Info.Width == 0 {
			t.Errorf("viewer %d: not the map: %v", viewer+1, err)
		}
		if !smp.Latched || !smp.Time.Equal(testStart) {
			t.Errorf("viewer %d: latched=%v at %v, want latched at %v", viewer+1, smp.Latched, smp.Time, testStart)
		}
	}
	pose, err := r.Subscribe(ctx, poseKey, fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer pose.Close()
	if smp, ok := pose.Take(); ok {
		t.Errorf("a pose of %v was handed out as live", smp.Time)
	}
}
