// Command loadclient is the client side of the bench command (scripts/bench.sh,
// docs/performance.md): it starts the servers under test in processes of their own (fleetgate
// through bench/gateway, Foxglove's WebSocket protocol server through
// bench/foxglove-server.mjs), loads them over loopback with viewers speaking W3 or Foxglove's
// protocol, measures them from outside (/proc: CPU time, RSS) and prints Markdown: each
// scenario's rounds, medians, ratios against the baseline measured in the same run, and its
// targets as met or MISSED.
//
//	loadclient fanout -viewers 10,50,200 -rounds 3 -duration 10s
//	loadclient slow -duration 60s
//	loadclient idle -conns 1000,5000
//	loadclient json -rounds 2 -duration 8s
//	loadclient rest -rounds 2 -duration 4s
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: loadclient fanout|slow|idle|json|rest [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	var cfg serverConfig
	fs.StringVar(&cfg.gatewayBin, "gateway", "bin/bench-gateway", "the bench/gateway binary")
	fs.StringVar(&cfg.node, "node", "node", "node")
	fs.StringVar(&cfg.foxgloveScript, "foxglove", "bench/foxglove-server.mjs", "Foxglove's server script")
	fs.IntVar(&cfg.frame, "frame", 150<<10, "frame payload bytes")
	viewers := fs.String("viewers", "10,50,200", "fan-out: viewer counts")
	rounds := fs.Int("rounds", 3, "fan-out: alternating rounds per viewer count")
	duration := fs.Duration("duration", 10*time.Second, "measured time per run")
	warmup := fs.Duration("warmup", 2*time.Second, "time before measuring")
	conns := fs.String("conns", "1000,5000", "idle: connection counts")
	slowRate := fs.Float64("slow-rate", 3e6, "slow: the slow viewer's bytes per second")
	healthy := fs.Int("healthy", 10, "slow: healthy viewers beside the slow one")
	clients := fs.Int("clients", 32, "rest: keep-alive clients")
	servers := fs.String("servers", "fleetgate,foxglove", "slow: the servers to run")
	route := fs.String("route", "w3", "fan-out: fleetgate's route, w3 or foxglove (its Foxglove WebSocket protocol route)")
	fs.Parse(os.Args[2:])
	cfg.rate = 30

	var err error
	switch os.Args[1] {
	case "fanout":
		switch *route {
		case "w3":
			err = fanout(cfg, fleetgate, ints(*viewers), *rounds, *warmup, *duration)
		case "foxglove":
			err = fanout(cfg, fleetgateFoxglove, ints(*viewers), *rounds, *warmup, *duration)
		default:
			err = fmt.Errorf("unknown route %q", *route)
		}
	case "slow":
		err = slow(cfg, strings.Split(*servers, ","), *healthy, *slowRate, *warmup, *duration)
	case "idle":
		err = idle(cfg, ints(*conns))
	case "json":
		err = jsonFanout(cfg, *rounds, *warmup, *duration)
	case "rest":
		err = rest(cfg, *clients, *rounds, *duration)
	default:
		err = fmt.Errorf("unknown scenario %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadclient:", err)
		os.Exit(1)
	}
}

func ints(s string) []int {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err == nil {
			out = append(out, n)
		}
	}
	return out
}

// dialAll opens n viewers, 16 at a time.
func dialAll(s *serverProc, n, frame int, dial func(context.Context, *serverProc) (*viewer, error)) ([]*viewer, error) {
	if dial == nil {
		dial = func(ctx context.Context, s *serverProc) (*viewer, error) { return dialViewer(ctx, s, frame) }
	}
	list := make([]*viewer, n)
	errs := make(chan error, n)
	work := make(chan int)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := range work {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				v, err := dial(ctx, s)
				cancel()
				if err != nil {
					errs <- err
					continue
				}
				list[i] = v
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		for _, v := range list {
			if v != nil {
				v.close()
			}
		}
		return nil, fmt.Errorf("dial %s: %w", s.kind, err)
	}
	return list, nil
}

// waitFirstFrames waits until every viewer has read a frame.
func waitFirstFrames(list []*viewer) error {
	deadline := time.Now().Add(30 * time.Second)
	for _, v := range list {
		for {
			v.mu.Lock()
			n := len(v.receipts)
			v.mu.Unlock()
			if n > 0 {
				break
			}
			select {
			case <-v.done:
				return fmt.Errorf("a viewer stopped: %v", v.err)
			default:
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("a viewer got no frame within 30 s")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return nil
}

func closeAll(list []*viewer) {
	for _, v := range list {
		v.close()
	}
	for _, v := range list {
		<-v.done
	}
}

// window summarises what viewers received of the frames published in [from, to).
type window struct {
	fps   []float64
	ages  []time.Duration
	bytes int64 // received in [from, to)
}

func measure(list []*viewer, from, to time.Time) window {
	var w window
	secs := to.Sub(from).Seconds()
	for _, v := range list {
		n := 0
		for _, r := range v.takeReceipts() {
			if !r.received.Before(from) && r.received.Before(to) {
				w.bytes += int64(r.bytes)
			}
			if r.published.Before(from) || !r.published.Before(to) {
				continue
			}
			n++
			w.ages = append(w.ages, r.received.Sub(r.published))
		}
		w.fps = append(w.fps, float64(n)/secs)
	}
	return w
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

// order is the order of a round: alternating which server goes first.
func order(round int, fg string) []string {
	if round%2 == 0 {
		return []string{fg, foxglove}
	}
	return []string{foxglove, fg}
}
