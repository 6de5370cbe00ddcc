package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"
)

// jsonFanout measures fleetgate's CPU while 1 and then 10 JSON viewers watch a 2 MiB point
// cloud whole: the JSON conversion is made once per sample for every viewer, so the CPU should
// stay roughly flat in viewers (only the writing grows).
func jsonFanout(cfg serverConfig, rounds int, warmup, d time.Duration) error {
	cfg.rate, cfg.cloudRate = 0, 5
	fmt.Printf("### JSON output: a 2 MiB point cloud at %.0f Hz to 1 and 10 JSON viewers (withoutDownSampling=true), %d alternating rounds of %s\n\n", cfg.cloudRate, rounds, d)
	fmt.Println("| round | viewers | server CPU (cores) | frames/s per viewer (slowest) | MB/s delivered | load average |")
	fmt.Println("|---|---|---|---|---|---|")
	s, err := startServer(fleetgate, cfg)
	if err != nil {
		return err
	}
	defer s.stop()
	var ratios []float64
	for round := range rounds {
		counts := []int{1, 10}
		if round%2 == 1 {
			counts = []int{10, 1}
		}
		cpu := map[int]float64{}
		for _, n := range counts {
			list, err := dialAll(s, n, 4<<20, func(ctx context.Context, s *serverProc) (*viewer, error) {
				return dialStream(ctx, s, 4<<20, "componentName=lidar&streamName=points&format=json&withoutDownSampling=true")
			})
			if err != nil {
				return err
			}
			for _, v := range list {
				go v.run(false)
			}
			time.Sleep(warmup)
			f0, b0, c0, t0 := counters(list), bytesOf(list), s.cpu(), time.Now()
			time.Sleep(d)
			f1, b1, c1, t1 := counters(list), bytesOf(list), s.cpu(), time.Now()
			secs := t1.Sub(t0).Seconds()
			minFPS := 1e9
			for i := range list {
				minFPS = min(minFPS, float64(f1[i]-f0[i])/secs)
			}
			cpu[n] = (c1 - c0).Seconds() / secs
			fmt.Printf("| %d | %d | %.3f | %.2f | %.0f | %s |\n", round+1, n, cpu[n], minFPS, float64(b1-b0)/secs/1e6, loadAverage())
			closeAll(list)
		}
		ratios = append(ratios, cpu[10]/cpu[1])
	}
	r := median(ratios)
	ok := r <= 1.5
	fmt.Println("\n| measurement | measured | target | result |")
	fmt.Println("|---|---|---|---|")
	fmt.Printf("| JSON 2 MiB point cloud: server CPU with 10 viewers / with 1 | %.2f (rounds %s) | ≤ 1.5 (roughly flat) | %s |\n", r, list(ratios), verdict(ok))
	fmt.Printf("\njson: %d target(s) missed\n\n", map[bool]int{true: 0, false: 1}[ok])
	return nil
}

func counters(list []*viewer) []int64 {
	out := make([]int64, len(list))
	for i, v := range list {
		out[i] = v.frames.Load()
	}
	return out
}

func bytesOf(list []*viewer) int64 {
	var n int64
	for _, v := range list {
		n += v.bytes.Load()
	}
	return n
}

// rest measures REST reads against /healthz under 32 keep-alive clients: the robot list and a
// metric read, which go through authentication and the robot, against the cheapest route.
func rest(cfg serverConfig, clients, rounds int, d time.Duration) error {
	cfg.rate = 0
	s, err := startServer(fleetgate, cfg)
	if err != nil {
		return err
	}
	defer s.stop()
	routes := []struct{ name, path string }{
		{"/healthz", "/healthz"},
		{"robot list", "/apigateway/v2/robots"},
		{"metric read", "/apigateway/v2/robots/" + s.hello.Robot + "/metric/1"},
	}
	fmt.Printf("### REST under %d keep-alive clients: %d alternating rounds of %s per route\n\n", clients, rounds, d)
	fmt.Println("| round | route | requests/s | p50 ms | p99 ms | errors | load average |")
	fmt.Println("|---|---|---|---|---|---|---|")
	p99 := map[string][]float64{}
	tr := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	for round := range rounds {
		order := slices.Clone(routes)
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, rt := range order {
			var mu sync.Mutex
			var lat []time.Duration
			errs := 0
			deadline := time.Now().Add(d)
			var wg sync.WaitGroup
			for range clients {
				wg.Go(func() {
					var mine []time.Duration
					bad := 0
					for time.Now().Before(deadline) {
						req, _ := http.NewRequest(http.MethodGet, s.hello.URL+rt.path, nil)
						req.Header.Set("Authorization", "bearer "+s.hello.Token)
						t0 := time.Now()
						resp, err := client.Do(req)
						if err != nil {
							bad++
							continue
						}
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if resp.StatusCode != http.StatusOK {
							bad++
							continue
						}
						mine = append(mine, time.Since(t0))
					}
					mu.Lock()
					lat = append(lat, mine...)
					errs += bad
					mu.Unlock()
				})
			}
			wg.Wait()
			p99[rt.name] = append(p99[rt.name], ms(percentile(lat, 0.99)))
			fmt.Printf("| %d | %s | %.0f | %.2f | %.2f | %d | %s |\n", round+1, rt.name, float64(len(lat))/d.Seconds(),
				ms(percentile(lat, 0.5)), ms(percentile(lat, 0.99)), errs, loadAverage())
		}
	}
	fmt.Println()
	fmt.Println("| measurement | measured | target | result |")
	fmt.Println("|---|---|---|---|")
	base := median(p99["/healthz"])
	for _, rt := range routes[1:] {
		fmt.Printf("| REST %s p99 / /healthz p99 (median of rounds) | %.1fx (%.2f ms vs %.2f ms) | | info |\n", rt.name, median(p99[rt.name])/base, median(p99[rt.name]), base)
	}
	fmt.Println()
	return nil
}
