//go:build unix

package sim

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// BenchmarkIdleLoop runs the real-time loop with three robots and no subscribers for two
// seconds per iteration and reports the process CPU time it used, in percent of one core.
func BenchmarkIdleLoop(b *testing.B) {
	for b.Loop() {
		s := startSim(b, context.Background(), Config{Count: 3, Seed: 1})
		before := cpuTime()
		time.Sleep(2 * time.Second)
		used := cpuTime() - before
		s.Close()
		b.ReportMetric(100*used.Seconds()/2, "%cpu")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
