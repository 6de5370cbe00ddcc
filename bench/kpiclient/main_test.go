package main

import (
	"bufio"
	"context"
	"io"
	"net/url"
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

// The client process of BenchmarkKPIIdleMemory against a real server: its sockets are the
// hub's subscribers while it runs, and none is left once its standard input closes.

func kpiSocketURL(s *servertest.Server, fleetID string) string {
	return "ws" + strings.TrimPrefix(s.URL, "http") + api.V2Prefix + "/fleets/" + url.PathEscape(fleetID) + "/custom-kpis"
}

// serverWithARobot is a gateway with one robot reporting a custom KPI in its default fleet.
func serverWithARobot(t *testing.T) (*servertest.Server, fleetgate.Fleet) {
	t.Helper()
	s := servertest.MustOpen(t)
	_, fleet := s.DefaultOrg()
	battery := &catalogpb.Float64{Data: 76.5}
	payload, _ := proto.Marshal(battery)
	robot := &fleettest.Robot{ID: uuid.NewString(), Name: "bench-0", KPIList: []fleetgate.KPI{
		{Name: "battery", DataType: string(battery.ProtoReflect().Descriptor().FullName()), Payload: payload}}}
	if err := s.Registry().Add(context.Background(), robot, fleet.ID); err != nil {
		t.Fatal(err)
	}
	return s, fleet
}

// waitUntil polls cond until it holds, failing the test after a deadline.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestClientHoldsItsSocketsUntilStdinCloses(t *testing.T) {
	s, fleet := serverWithARobot(t)
	bearer := s.Login(servertest.AdminToken)
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(kpiSocketURL(s, fleet.ID), bearer, 5, stdinR, stdoutW)
		stdoutW.Close()
	}()
	t.Cleanup(func() { stdinW.Close() })

	line, err := bufio.NewReader(stdoutR).ReadString('\n')
	if err != nil || line != "connected\n" {
		t.Fatalf("the client said %q (%v), want connected", line, err)
	}
	go io.Copy(io.Discard, stdoutR)
	// The server subscribes a socket just after its upgrade's answer, which ends the dial.
	waitUntil(t, "5 subscribers", func() bool { return s.KPIs().Stats().Subscribers == 5 })

	stdinW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the client still runs after its stdin closed")
	}
	waitUntil(t, "no subscriber left", func() bool { return s.KPIs().Stats().Subscribers == 0 })
}

func TestClientFailsWhenASocketCannotOpen(t *testing.T) {
	s, fleet := serverWithARobot(t)
	var stdout strings.Builder
	err := run(kpiSocketURL(s, fleet.ID), "not-a-bearer", 3, strings.NewReader(""), &stdout)
	if err == nil || !strings.Contains(err.Error(), "dial failed") {
		t.Fatalf("run with a wrong bearer: %v, want a dial failure", err)
	}
	if stdout.Len() != 0 {
		t.Fatalf("the client said %q before failing, want nothing", stdout.String())
	}
}
