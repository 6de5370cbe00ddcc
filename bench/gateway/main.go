// Command gateway runs a local fleetgate gateway for the bench command (scripts/bench.sh,
// docs/performance.md): the real server on loopback, over SQLite in a temporary directory,
// with one scripted robot whose camera emits frames of a fixed size at a fixed rate, a fresh
// buffer per sample, and three robots with KPIs for the KPI sockets. It is a bench tool,
// outside the fleetgate binary and its flags.
//
// A "profile DIR" line writes heap and goroutine profiles there. It prints one JSON line (url, token, robot, fleet, pid) once it serves, answers each "gc" line
// on its standard input with the runtime's figures after a collection, and stops when its
// standard input closes.
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/server"
)

const adminToken = "fgt_BenchAdminToken0123456789abcdefg"

const (
	compressedImageType = "Platform.Messages.sensor_msgs.CompressedImage"
	twistType           = "Platform.Messages.geometry_msgs.Twist"
	pointCloudType      = "Platform.Messages.sensor_msgs.PointCloud2"
)

var (
	cameraKey = fleetgate.StreamKey{Component: "camera", Name: "image", Source: fleetgate.SourceComponent}
	cloudKey  = fleetgate.StreamKey{Component: "lidar", Name: "points", Source: fleetgate.SourceComponent}
)

func main() {
	frame := flag.Int("frame", 150<<10, "camera payload size in bytes")
	rate := flag.Float64("rate", 30, "camera frames per second; 0: the camera emits nothing")
	cloud := flag.Int("cloud", 2<<20, "point cloud payload size in bytes")
	cloudRate := flag.Float64("cloud-rate", 0, "point clouds per second on lidar/points; 0: none")
	listen := flag.String("listen", "127.0.0.1:0", "address to serve on (loopback)")
	memRate := flag.Int("memprofilerate", 0, "runtime.MemProfileRate (1: every allocation, for the heap profile); 0: the default")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *cpuProfile != "" {
		if f, err := os.Create(*cpuProfile); err == nil {
			pprof.StartCPUProfile(f)
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
	}
	if *memRate > 0 {
		runtime.MemProfileRate = *memRate
	}
	if err := run(*listen, *frame, *rate, *cloud, *cloudRate); err != nil {
		fmt.Fprintln(os.Stderr, "bench gateway:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// kpiRobot stamps its KPIs with the time of each read, as a live robot's are.
type kpiRobot struct{ *fleettest.Robot }

func (r kpiRobot) KPIs(ctx context.Context) ([]fleetgate.KPI, error) {
	list, err := r.Robot.KPIs(ctx)
	now := time.Now()
	for i := range list {
		list[i].Time = now
	}
	return list, err
}

func run(listen string, frameSize int, rate float64, cloudSize int, cloudRate float64) error {
	dir, err := os.MkdirTemp("", "fleetgate-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := server.Open(ctx, server.Config{
		Mode: server.ModeAgent, Listen: listen, DataDir: dir, AdminToken: adminToken,
		TokenTTL: 24 * time.Hour, Version: "bench",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Stdout: io.Discard,
	})
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()

	bot := &fleettest.Robot{ID: "bench-bot", Name: "bench-bot", StreamList: []fleetgate.Stream{
		{Component: "camera", Name: "image", Type: compressedImageType, Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
		{Component: "base", Name: "cmd_vel", Type: twistType, Direction: fleetgate.Input, Source: fleetgate.SourceComponent},
		{Component: "lidar", Name: "points", Type: pointCloudType, Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
	}, MetricList: []fleetgate.Metric{{Type: fleetgate.MetricCpu, Value: 12.5}}}
	if err := srv.Registry().Add(ctx, bot, fleetgate.LocalFleetID); err != nil {
		return err
	}
	for i := range 3 {
		battery, _ := proto.Marshal(&catalogpb.Float64{Data: 70 + float64(i)})
		r := kpiRobot{&fleettest.Robot{ID: fmt.Sprintf("kpi-%d", i), Name: fmt.Sprintf("kpi-%d", i),
			KPIList: []fleetgate.KPI{{Name: "battery", DataType: "Platform.Messages.std_msgs.Float64", Payload: battery}}}}
		if err := srv.Registry().Add(ctx, r, fleetgate.LocalFleetID); err != nil {
			return err
		}
	}
	token, err := login(srv.URL())
	if err != nil {
		return err
	}
	if rate > 0 {
		go emit(ctx, bot, cameraKey, compressedImageType, cameraPayload(frameSize), rate)
	}
	if cloudRate > 0 {
		go emit(ctx, bot, cloudKey, pointCloudType, cloudPayload(cloudSize), cloudRate)
	}
	out, _ := json.Marshal(map[string]any{"url": srv.URL(), "token": token, "robot": bot.ID,
		"fleet": fleetgate.LocalFleetID, "pid": os.Getpid()})
	fmt.Println(string(out))
	// Each "gc" line: collect garbage, hand freed memory back, print the runtime's figures.
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if dir, ok := strings.CutPrefix(in.Text(), "profile "); ok {
			writeProfiles(dir)
			fmt.Println("{}")
		}
		if in.Text() == "gc" {
			// Twice: the second cycle also shrinks the stacks that the first found mostly
			// unused, as a server's periodic collections do to long-idle goroutines.
			runtime.GC()
			runtime.GC()
			debug.FreeOSMemory()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			line, _ := json.Marshal(map[string]any{"goroutines": runtime.NumGoroutine(),
				"heapInuse": m.HeapInuse, "stackInuse": m.StackInuse})
			fmt.Println(string(line))
		}
	}
	cancel()
	select {
	case err := <-done:
		return err
	case <-time.After(15 * time.Second):
		return fmt.Errorf("the server did not stop within 15 s")
	}
}

// writeProfiles writes the heap and goroutine profiles into dir (FLEETGATE_BENCH_PROFILE).
func writeProfiles(dir string) {
	for _, name := range []string{"heap", "goroutine"} {
		f, err := os.Create(filepath.Join(dir, name+".pprof"))
		if err != nil {
			continue
		}
		pprof.Lookup(name).WriteTo(f, 0)
		f.Close()
	}
}

func login(url string) (string, error) {
	resp, err := http.Post(url+"/apigateway/v2/auth/login", "application/json",
		strings.NewReader(`{"userToken":"`+adminToken+`"}`))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct{ Token string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("login: status %d: %v", resp.StatusCode, err)
	}
	return strings.TrimPrefix(out.Token, "bearer "), nil
}

// cameraPayload is a CompressedImage of incompressible bytes (as JPEG is) of about size bytes.
func cameraPayload(size int) []byte {
	data := make([]byte, size)
	rand.NewChaCha8([32]byte{1}).Read(data)
	b, _ := proto.Marshal(&catalogpb.CompressedImage{Header: &catalogpb.Header{FrameId: "camera"}, Format: "jpeg", Data: data})
	return b
}

// cloudPayload is a PointCloud2 of about size bytes of points (x, y, z, intensity as float32).
func cloudPayload(size int) []byte {
	const step = 16
	n := size / step
	data := make([]byte, n*step)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		for f := range 4 {
			binary.LittleEndian.PutUint32(data[i*step+4*f:], math.Float32bits(rng.Float32()*20-10))
		}
	}
	fields := []*catalogpb.PointField{}
	for i, name := range []string{"x", "y", "z", "intensity"} {
		fields = append(fields, &catalogpb.PointField{Name: name, Offset: uint32(4 * i), Datatype: 7, Count: 1})
	}
	b, _ := proto.Marshal(&catalogpb.PointCloud2{Header: &catalogpb.Header{FrameId: "lidar"}, Height: 1, Width: uint32(n),
		Fields: fields, PointStep: step, RowStep: uint32(n * step), Data: data, IsDense: true})
	return b
}

// emit publishes a fresh copy of payload at rate on schedule, as a camera does: a tick missed
// by more than a period is skipped, never caught up in a burst.
func emit(ctx context.Context, bot *fleettest.Robot, key fleetgate.StreamKey, typ string, payload []byte, rate float64) {
	period := time.Duration(float64(time.Second) / rate)
	t0 := time.Now()
	for k := 1; ; k++ {
		at := t0.Add(time.Duration(k) * period)
		wait := time.Until(at)
		if wait < -period {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		bot.Emit(key, typ, append([]byte(nil), payload...))
	}
}
