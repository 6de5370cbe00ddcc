package main

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// BenchmarkFlightBuffer measures what the flight recorder costs an agent per robot it buffers:
// two agents of three simulated robots each, run as their own processes, one with the
// flight recorder off (--flight-buffer 0) and one buffering (FLEETGATE_BENCH_FLIGHT, default
// 60s, the default buffer), side by side; once the buffer is full, their resident memory
// (/proc/PID/status) and CPU over a window (/proc/PID/stat). The difference, per robot, is the
// buffer's: the samples held, and the simulator rendering camera frames for a subscriber (it
// renders none for nobody). A timed experiment: it runs once whatever b.N is.
//
//	go test -run '^$' -bench BenchmarkFlightBuffer -benchtime 1x ./cmd/fleetgate
func BenchmarkFlightBuffer(b *testing.B) {
	const robots = 3
	buffer := 60 * time.Second
	if d, err := time.ParseDuration(os.Getenv("FLEETGATE_BENCH_FLIGHT")); err == nil && d > 0 {
		buffer = d
	}
	const window = 10 * time.Second
	agent := func(flight time.Duration) *process {
		return start(b, nil, "agent", "--data", b.TempDir(), "--listen", "127.0.0.1:0", "--admin-token", testToken,
			"--sim", fmt.Sprint(robots), "--camera-devices=false", "--flight-buffer", flight.String())
	}
	off, on := agent(0), agent(buffer)
	time.Sleep(buffer + 5*time.Second) // the buffer fills: what is measured takes this long
	offCPU0, onCPU0 := cpuSeconds(off.cmd.Process.Pid), cpuSeconds(on.cmd.Process.Pid)
	time.Sleep(window)
	offCPU := 100 * (cpuSeconds(off.cmd.Process.Pid) - offCPU0) / window.Seconds()
	onCPU := 100 * (cpuSeconds(on.cmd.Process.Pid) - onCPU0) / window.Seconds()
	offRSS, onRSS := rssKiB(b, off.cmd.Process.Pid), rssKiB(b, on.cmd.Process.Pid)
	perRobotMiB := float64(onRSS-offRSS) / 1024 / robots
	perRobotCPU := (onCPU - offCPU) / robots
	b.ReportMetric(perRobotMiB, "MiB-rss/robot")
	b.ReportMetric(perRobotCPU, "%cpu/robot")
	b.ReportMetric(float64(onRSS)/1024, "MiB-rss-on")
	b.ReportMetric(float64(offRSS)/1024, "MiB-rss-off")
	b.Logf("%d robots buffering %v: RSS %.0f MiB (off: %.0f MiB), CPU %.1f%% (off: %.1f%%); per buffered robot %.1f MiB and %.1f%% CPU",
		robots, buffer, float64(onRSS)/1024, float64(offRSS)/1024, onCPU, offCPU, perRobotMiB, perRobotCPU)
}
