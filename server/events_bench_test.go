package server_test

// The event log's export: GET /apigateway/v2/events?format=jsonl of a small log and of one ten
// times as large, from a real server over HTTP. It reports entries per second of each and the
// server's peak heap during each, and their ratio: a streamed export keeps the peak flat (a
// ratio near 1) where one that loads the view grows with it (near 10). It never fails on
// speed or memory; the figures are for docs/performance.md.
//
//	go test -run '^$' -bench BenchmarkEventExport -benchtime 1x ./server/
//	FLEETGATE_BENCH_EVENTS=1000000 go test -run '^$' -bench BenchmarkEventExport -benchtime 1x ./server/

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/server/servertest"
)

func BenchmarkEventExport(b *testing.B) {
	large := 200_000
	if v := os.Getenv("FLEETGATE_BENCH_EVENTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1000 {
			b.Fatalf("FLEETGATE_BENCH_EVENTS=%q: want a count of at least 1000", v)
		}
		large = n
	}
	small := large / 10
	srv := servertest.MustOpen(b)
	_, fleet := srv.DefaultOrg()
	robot := srv.AddRobot(fleet, "tugger")
	bearer := srv.Login(servertest.AdminToken)
	ctx := context.Background()

	seed := func(total int) {
		// One statement writes the entries that are missing, a millisecond apart.
		_, err := srv.Store.Exec(ctx, `WITH RECURSIVE n(i) AS (SELECT (SELECT COUNT(*) FROM events) UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
			INSERT INTO events (robot_id, author_email, message, created_at, entry_type, severity)
			SELECT ?, 'op@example.com', 'pallet ' || i || ' moved from aisle 4 to the dock, checked by the night shift', 1795766400000 + i, 'note', 'info' FROM n`,
			total, robot.ID)
		if err != nil {
			b.Fatal(err)
		}
	}
	export := func(want int) (perSecond float64, peakHeap uint64) {
		runtime.GC()
		var peak atomic.Uint64
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			var ms runtime.MemStats
			for {
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/apigateway/v2/events?format=jsonl", nil)
		req.Header.Set("Authorization", "bearer "+bearer)
		began := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		lines := 0
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines++
		}
		resp.Body.Close()
		took := time.Since(began)
		close(stop)
		<-sampled
		if sc.Err() != nil || resp.StatusCode != http.StatusOK || lines != want {
			b.Fatalf("export: %d, %d lines of %d, %v", resp.StatusCode, lines, want, sc.Err())
		}
		return float64(lines) / took.Seconds(), peak.Load()
	}

	b.ResetTimer()
	for range b.N {
		seed(small)
		smallRate, smallPeak := export(small)
		seed(large)
		largeRate, largePeak := export(large)
		b.ReportMetric(smallRate, "entries/s-small")
		b.ReportMetric(largeRate, "entries/s-large")
		b.ReportMetric(float64(smallPeak)/(1<<20), "peak-heap-MiB-small")
		b.ReportMetric(float64(largePeak)/(1<<20), "peak-heap-MiB-large")
		b.ReportMetric(float64(largePeak)/float64(smallPeak), "peak-heap-ratio-10x")
		b.Logf("%d entries: %.0f/s, peak heap %.1f MiB; %d entries: %.0f/s, peak heap %.1f MiB (the client shares the process)",
			small, smallRate, float64(smallPeak)/(1<<20), large, largeRate, float64(largePeak)/(1<<20))
	}
}
