package main

import (
	"bufio"
	"context"
	"encoding/gob"
	"hash/maphash"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
	"github.com/fleetgate/fleetgate/server/api"
	"github.com/fleetgate/fleetgate/server/servertest"
)

// The client process of BenchmarkClusterW1: its receipts are told apart by the clock's tick,
// first on frames written here, then against a real gateway's W1 socket.

func kpi(name string, m proto.Message, at time.Time) fleetgate.KPI {
	b, _ := proto.Marshal(m)
	return fleetgate.KPI{Name: name, DataType: string(m.ProtoReflect().Descriptor().FullName()), Payload: b, Time: at}
}

func TestFramesTellTheirTick(t *testing.T) {
	f := &frames{clock: "clock", robot: "sim", seed: maphash.MakeSeed()}
	tick := time.Date(2026, 3, 1, 12, 0, 5, 0, time.UTC)
	whole := []byte(`{"updates":[
		{"basicData":{"id":"sim"},"updateTime":"2026-03-01T12:00:04.3Z","metric":{"name":"pose"}},
		{"basicData":{"id":"sim"},"updateTime":"2026-03-01T12:00:04.3Z","metric":{"name":"battery"}},
		{"basicData":{"id":"sim"},"updateTime":"2026-03-01T12:00:04.3Z","metric":{"name":"activity"}},
		{"basicData":{"id":"clock"},"updateTime":"2026-03-01T12:00:05Z","metric":{"name":"tick"}}]}`)
	for range 2 { // the second time from the cache
		if got, ok := f.tickOf(whole); !ok || got != tick.UnixNano() {
			t.Fatalf("tickOf a whole frame: %d %v, want %d", got, ok, tick.UnixNano())
		}
	}
	if f.withoutRobot.Load() != 0 || f.withoutClock.Load() != 0 {
		t.Fatalf("a whole frame counted as lacking: robot %d, clock %d", f.withoutRobot.Load(), f.withoutClock.Load())
	}

	noClock := []byte(`{"updates":[{"basicData":{"id":"sim"},"updateTime":"2026-03-01T12:00:04.3Z","metric":{"name":"pose"}}]}`)
	for range 2 {
		if _, ok := f.tickOf(noClock); ok {
			t.Fatal("a frame without the clock has a tick")
		}
	}
	if f.withoutClock.Load() != 1 || f.withoutRobot.Load() != 1 {
		t.Fatalf("a frame without the clock and two of the robot's KPIs, seen twice: lacking robot %d, clock %d, want 1 and 1",
			f.withoutRobot.Load(), f.withoutClock.Load())
	}
	if f.err.Load() != nil {
		t.Fatalf("an error before a bad frame: %v", f.err.Load())
	}
	if _, ok := f.tickOf([]byte(`{"updates":[`)); ok {
		t.Fatal("a frame that does not decode has a tick")
	}
	if err, _ := f.err.Load().(error); err == nil || !strings.Contains(err.Error(), "does not decode") {
		t.Fatalf("the error of a bad frame: %v", err)
	}
}

func TestClientReceivesTicksFromAGateway(t *testing.T) {
	s := servertest.MustOpen(t)
	_, fleet := s.DefaultOrg()
	now := time.Now()
	sim := &fleettest.Robot{ID: uuid.NewString(), Name: "sim", KPIList: []fleetgate.KPI{
		kpi("pose", &catalogpb.Pose{Orientation: &catalogpb.Quaternion{W: 1}}, now),
		kpi("battery", &catalogpb.Float64{Data: 76.5}, now),
		kpi("activity", &catalogpb.String{Data: "moving"}, now),
	}}
	// Without a time, the hub stamps the clock's KPI with the tick that read it.
	clock := &fleettest.Robot{ID: uuid.NewString(), Name: "clock", KPIList: []fleetgate.KPI{
		kpi("tick", &catalogpb.String{Data: "tick"}, time.Time{})}}
	for _, r := range []*fleettest.Robot{sim, clock} {
		if err := s.Registry().Add(context.Background(), r, fleet.ID); err != nil {
			t.Fatal(err)
		}
	}
	j := job{URL: "ws" + strings.TrimPrefix(s.URL, "http") + api.V2Prefix + "/fleets/" + url.PathEscape(fleet.ID) + "/custom-kpis",
		Bearer: s.Login(servertest.AdminToken), Clock: clock.ID, Robot: sim.ID, Sockets: 3}

	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	type outcome struct {
		res result
		err error
	}
	done := make(chan outcome, 1)
	started := time.Now()
	go func() {
		res, err := run(j, stdinR, stdoutW)
		stdoutW.Close()
		done <- outcome{res, err}
	}()
	t.Cleanup(func() { stdinW.Close() })
	line, err := bufio.NewReader(stdoutR).ReadString('\n')
	if err != nil || line != "up\n" {
		t.Fatalf("the client said %q (%v), want up", line, err)
	}
	go io.Copy(io.Discard, stdoutR)
	ticks := s.KPIs().Stats().Ticks
	deadline := time.Now().Add(20 * time.Second)
	for s.KPIs().Stats().Ticks < ticks+3 { // two whole ticks after every socket subscribed
		if time.Now().After(deadline) {
			t.Fatal("the hub did not tick three times in 20 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	stdinW.Close()
	var o outcome
	select {
	case o = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the client still runs after its stdin closed")
	}
	if o.err != nil {
		t.Fatalf("run: %v", o.err)
	}
	// Write and read the result as the benchmark does.
	path := filepath.Join(t.TempDir(), "result.gob")
	if err := write(path, o.res); err != nil {
		t.Fatal(err)
	}
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var res result
	if err := gob.NewDecoder(file).Decode(&res); err != nil {
		t.Fatal(err)
	}

	if res.Err != "" || res.WithoutRobot != 0 || res.WithoutClock != 0 {
		t.Fatalf("result: error %q, %d frames without the robot, %d without the clock", res.Err, res.WithoutRobot, res.WithoutClock)
	}
	if len(res.Sockets) != 3 {
		t.Fatalf("%d sockets in the result, want 3", len(res.Sockets))
	}
	for i, sock := range res.Sockets {
		if sock.Dropped {
			t.Errorf("socket %d dropped", i)
		}
		if len(sock.Receipts) < 2 {
			t.Errorf("socket %d: %d receipts over three ticks, want at least 2", i, len(sock.Receipts))
		}
		for _, rc := range sock.Receipts {
			if rc.Tick < started.Add(-2*time.Second).UnixNano() || rc.At < rc.Tick || rc.At-rc.Tick > int64(5*time.Second) {
				t.Errorf("socket %d: receipt of tick %s at %s", i, time.Unix(0, rc.Tick), time.Unix(0, rc.At))
			}
		}
	}
}
