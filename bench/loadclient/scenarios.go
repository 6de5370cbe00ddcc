package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// summary collects a scenario's rows against its targets, printed after its table.
var summary strings.Builder

// fanoutResult is one server's figures for one run of the fan-out.
type fanoutResult struct {
	fpsMin, p50, p99, max float64 // fps, ms
	mbps                  float64 // MB/s delivered to all viewers
	cpu                   float64 // server CPU seconds per second
	gbPerCPU              float64 // GB delivered per server CPU-second
	load                  string
}

func fanoutRun(kind string, cfg serverConfig, n int, warmup, d time.Duration) (fanoutResult, error) {
	s, err := startServer(kind, cfg)
	if err != nil {
		return fanoutResult{}, err
	}
	defer s.stop()
	list, err := dialAll(s, n, cfg.frame, nil)
	if err != nil {
		return fanoutResult{}, err
	}
	for _, v := range list {
		v.receipts = make([]receipt, 0, int((warmup+d).Seconds()*cfg.rate*1.2)+64)
		go v.run(true)
	}
	defer closeAll(list)
	if err := waitFirstFrames(list); err != nil {
		return fanoutResult{}, err
	}
	time.Sleep(warmup)
	t0, cpu0 := time.Now(), s.cpu()
	time.Sleep(d)
	t1, cpu1 := time.Now(), s.cpu()
	time.Sleep(500 * time.Millisecond) // the last frames in flight
	w := measure(list, t0, t1)
	secs := t1.Sub(t0).Seconds()
	cpu := (cpu1 - cpu0).Seconds()
	r := fanoutResult{
		fpsMin: slices.Min(w.fps), p50: ms(percentile(w.ages, 0.5)), p99: ms(percentile(w.ages, 0.99)),
		max: ms(slices.Max(w.ages)), mbps: float64(w.bytes) / secs / 1e6, cpu: cpu / secs, load: loadAverage(),
	}
	if cpu > 0 {
		r.gbPerCPU = float64(w.bytes) / cpu / 1e9
	}
	return r, nil
}

// fanout runs each viewer count in alternating rounds against fleetgate (kind fg: W3, or its
// Foxglove route) and Foxglove's server, and prints each round, the medians and the ratios:
// against the targets for W3, as information for the Foxglove route (which has none).
func fanout(cfg serverConfig, fg string, counts []int, rounds int, warmup, d time.Duration) error {
	route := "W3"
	if fg == fleetgateFoxglove {
		route = "the Foxglove route"
	}
	fmt.Printf("### Fan-out on %s: %d KiB frames at %.0f Hz, %d alternating rounds of %s (after %s warm-up)\n\n",
		route, cfg.frame>>10, cfg.rate, rounds, d, warmup)
	fmt.Println("| viewers | round | server | fps (slowest viewer) | p50 ms | p99 ms | max ms | MB/s delivered | server CPU (cores) | GB per CPU-s | load average |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	type ratios struct{ p99, perCPU, fgFPS, fgP99, foxP99, fgPerCPU, foxPerCPU []float64 }
	all := map[int]*ratios{}
	for _, n := range counts {
		rt := &ratios{}
		all[n] = rt
		for round := range rounds {
			res := map[string]fanoutResult{}
			for _, kind := range order(round, fg) {
				r, err := fanoutRun(kind, cfg, n, warmup, d)
				if err != nil {
					return err
				}
				res[kind] = r
				fmt.Printf("| %d | %d | %s | %.2f | %.2f | %.2f | %.2f | %.0f | %.2f | %.2f | %s |\n",
					n, round+1, kind, r.fpsMin, r.p50, r.p99, r.max, r.mbps, r.cpu, r.gbPerCPU, r.load)
			}
			ours, fox := res[fg], res[foxglove]
			rt.p99 = append(rt.p99, ours.p99/fox.p99)
			rt.perCPU = append(rt.perCPU, ours.gbPerCPU/fox.gbPerCPU)
			rt.fgFPS = append(rt.fgFPS, ours.fpsMin)
			rt.fgP99, rt.foxP99 = append(rt.fgP99, ours.p99), append(rt.foxP99, fox.p99)
			rt.fgPerCPU, rt.foxPerCPU = append(rt.fgPerCPU, ours.gbPerCPU), append(rt.foxPerCPU, fox.gbPerCPU)
		}
	}
	fmt.Println()
	fmt.Println("| measurement | measured | target | result |")
	fmt.Println("|---|---|---|---|")
	missed := 0
	row := func(label, measured, target string, ok bool) {
		if fg == fleetgateFoxglove { // no target: the figures beside Foxglove's
			fmt.Printf("| %s (Foxglove route) | %s | | info |\n", label, measured)
			return
		}
		if !ok {
			missed++
		}
		fmt.Printf("| %s | %s | %s | %s |\n", label, measured, target, verdict(ok))
	}
	for _, n := range counts {
		rt := all[n]
		p99 := median(rt.p99)
		row(fmt.Sprintf("fan-out %d viewers: p99 fleetgate / Foxglove", n),
			fmt.Sprintf("%.2f (rounds %s; fleetgate %.2f ms, Foxglove %.2f ms)", p99, list(rt.p99), median(rt.fgP99), median(rt.foxP99)), "≤ 0.5", p99 <= 0.5)
		perCPU := median(rt.perCPU)
		label := fmt.Sprintf("fan-out %d viewers: bytes per server CPU-second, fleetgate / Foxglove", n)
		measured := fmt.Sprintf("%.2f (rounds %s; fleetgate %.2f GB, Foxglove %.2f GB)", perCPU, list(rt.perCPU), median(rt.fgPerCPU), median(rt.foxPerCPU))
		if n >= 50 {
			row(label, measured, "≥ 1.5", perCPU >= 1.5)
		} else {
			fmt.Printf("| %s%s | %s | | info |\n", label, map[bool]string{true: " (Foxglove route)"}[fg == fleetgateFoxglove], measured)
		}
		fps := slices.Min(rt.fgFPS)
		row(fmt.Sprintf("fan-out %d viewers: fleetgate's slowest viewer, worst round", n), fmt.Sprintf("%.2f fps", fps), "≥ 29.5", fps >= 29.5)
	}
	fmt.Printf("\nfan-out: %d target(s) missed\n\n", missed)
	return nil
}

func list(v []float64) string {
	s := ""
	for i, x := range v {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%.2f", x)
	}
	return s
}

// slow runs one viewer reading at rate bytes per second beside healthy ones, on each server.
func slow(cfg serverConfig, servers []string, healthy int, rate float64, warmup, d time.Duration) error {
	fmt.Printf("### Slow viewer: one reading at %.1f MB/s beside %d healthy viewers, %s per server (%d KiB at %.0f Hz is %.1f MB/s)\n\n",
		rate/1e6, healthy, d, cfg.frame>>10, cfg.rate, float64(cfg.frame)*cfg.rate/1e6)
	fmt.Println("| server | slow viewer age p50 / p99 ms, first third | p50 / p99 ms, last third | slow viewer fps | healthy viewers: slowest fps | healthy p99 ms | load average |")
	fmt.Println("|---|---|---|---|---|---|---|")
	missed := 0
	for _, kind := range servers {
		s, err := startServer(kind, cfg)
		if err != nil {
			return err
		}
		list, err := dialAll(s, healthy+1, cfg.frame, nil)
		if err != nil {
			s.stop()
			return err
		}
		list[0].rate = rate
		for _, v := range list {
			v.receipts = make([]receipt, 0, int((warmup+d).Seconds()*cfg.rate*1.2)+64)
			go v.run(true)
		}
		if err := waitFirstFrames(list); err != nil {
			closeAll(list)
			s.stop()
			return err
		}
		time.Sleep(warmup)
		t0 := time.Now()
		time.Sleep(d)
		t1 := time.Now()
		time.Sleep(500 * time.Millisecond)
		third := d / 3
		early := measure(list[:1], t0, t0.Add(third))
		// The slow viewer's late frames were published before the window's end; take what
		// arrived in the last third whatever its publish time.
		lateAges := receivedIn(list[0], t1.Add(-third), t1)
		whole := measure(list[:1], t0, t1)
		h := measure(list[1:], t0, t1)
		load := loadAverage()
		closeAll(list)
		s.stop()
		ep50, ep99 := ms(percentile(early.ages, 0.5)), ms(percentile(early.ages, 0.99))
		lp50, lp99 := ms(percentile(lateAges, 0.5)), ms(percentile(lateAges, 0.99))
		fmt.Printf("| %s | %.0f / %.0f | %.0f / %.0f | %.1f | %.2f | %.2f | %s |\n", kind, ep50, ep99, lp50, lp99,
			whole.fps[0], slices.Min(h.fps), ms(percentile(h.ages, 0.99)), load)
		if kind == fleetgate {
			flat := lp99 <= ep99*1.5+50
			ok := ep99 <= 350 && lp99 <= 350 && flat && slices.Min(h.fps) >= 29.5
			if !ok {
				missed++
			}
			fmt.Fprintf(&summary, "| slow viewer (3 MB/s): fleetgate frame age p99, first → last third; healthy viewers' slowest fps | %.0f → %.0f ms, %.2f fps | ≤ 350 ms and flat (last ≤ 1.5 × first + 50 ms); ≥ 29.5 fps | %s |\n",
				ep99, lp99, slices.Min(h.fps), verdict(ok))
		}
	}
	fmt.Println()
	fmt.Println("| measurement | measured | target | result |")
	fmt.Println("|---|---|---|---|")
	fmt.Print(summary.String())
	summary.Reset()
	fmt.Printf("\nslow viewer: %d target(s) missed\n\n", missed)
	return nil
}

// receivedIn is the age of each frame v received in [from, to).
func receivedIn(v *viewer, from, to time.Time) []time.Duration {
	var ages []time.Duration
	for _, r := range v.takeReceipts() {
		if !r.received.Before(from) && r.received.Before(to) {
			ages = append(ages, r.received.Sub(r.published))
		}
	}
	return ages
}

// idle measures the server's RSS growth per idle socket: W3 camera viewers (subscribed, the
// camera emitting nothing) on both servers, and fleetgate's KPI sockets (a frame a second).
func idle(cfg serverConfig, counts []int) error {
	cfg.rate = 0
	fmt.Println("### Idle sockets: server RSS growth per socket (after a garbage collection in the server)")
	fmt.Println()
	fmt.Println("| sockets | kind | server | KiB per socket (RSS) | fleetgate goroutines per socket | heap KiB per socket | stack KiB per socket | load average |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	missed := 0
	for _, n := range counts {
		per := map[string]float64{}
		for _, kind := range []string{"fleetgate W3", "foxglove W3", "fleetgate KPI"} {
			server, dial := fleetgate, (func(context.Context, *serverProc) (*viewer, error))(nil)
			switch kind {
			case "foxglove W3":
				server = foxglove
			case "fleetgate KPI":
				dial = dialKPI
			}
			s, err := startServer(server, cfg)
			if err != nil {
				return err
			}
			warm, err := dialAll(s, 1, 4<<10, dial)
			if err != nil {
				s.stop()
				return err
			}
			go warm[0].run(false)
			time.Sleep(1500 * time.Millisecond)
			g0 := s.gc()
			rss0 := s.rss()
			list, err := dialAll(s, n, 4<<10, dial)
			if err != nil {
				closeAll(warm)
				s.stop()
				return err
			}
			for _, v := range list {
				go v.run(false)
			}
			time.Sleep(3 * time.Second)
			if dir := os.Getenv("FLEETGATE_BENCH_PROFILE"); dir != "" && server == fleetgate {
				dir = filepath.Join(dir, strings.ReplaceAll(kind, " ", "-")+"-"+strconv.Itoa(n))
				os.MkdirAll(dir, 0o755)
				s.profile(dir)
			}
			g1 := s.gc()
			rss1 := s.rss()
			load := loadAverage()
			kib := float64(rss1-rss0) / 1024 / float64(n)
			per[kind] = kib
			goroutines, heap, stack := "-", "-", "-"
			var a, b struct{ Goroutines, HeapInuse, StackInuse float64 }
			if server == fleetgate && json.Unmarshal([]byte(g0), &a) == nil && json.Unmarshal([]byte(g1), &b) == nil {
				goroutines = fmt.Sprintf("%.2f", (b.Goroutines-a.Goroutines)/float64(n))
				heap = fmt.Sprintf("%.1f", (b.HeapInuse-a.HeapInuse)/1024/float64(n))
				stack = fmt.Sprintf("%.1f", (b.StackInuse-a.StackInuse)/1024/float64(n))
			}
			fmt.Printf("| %d | %s | %s | %.1f | %s | %s | %s | %s |\n", n, kind, server, kib, goroutines, heap, stack, load)
			closeAll(list)
			closeAll(warm)
			s.stop()
		}
		for _, kind := range []string{"fleetgate W3", "fleetgate KPI"} {
			ok := per[kind] <= 16
			if !ok {
				missed++
			}
			fmt.Fprintf(&summary, "| memory per idle %s socket, %d connected | %.1f KiB (Foxglove's server: %.1f KiB per W3 socket) | ≤ 16 KiB (aim ≤ 6.4) | %s |\n",
				kind, n, per[kind], per["foxglove W3"], verdict(ok))
		}
	}
	fmt.Println()
	fmt.Println("| measurement | measured | target | result |")
	fmt.Println("|---|---|---|---|")
	fmt.Print(summary.String())
	summary.Reset()
	fmt.Printf("\nidle sockets: %d target(s) missed\n\n", missed)
	return nil
}
