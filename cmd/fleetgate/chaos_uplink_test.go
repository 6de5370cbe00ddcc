//go:build linux

package main

// Issue 32's row "a robot site's uplink flapping": the agent's uplink (internal/netshape) down
// 2 s, up 3 s, over and over, while an operator drives through the cloud, the site posts
// event-log entries and its log grows. What must hold: no duplicate or lost entries on the
// cloud, the log's upload finishes, the cloud's goroutines, open files and robot records flat,
// and each time the link drops the robot stops within the deadman (it never drives on).
// FLEETGATE_CHAOS_DURATION sets the length (default 30 s; make chaos runs 5 minutes).

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/netshape"
)

func TestChaosUplinkFlaps(t *testing.T) {
	duration := 20 * time.Second
	if d, err := time.ParseDuration(os.Getenv("FLEETGATE_CHAOS_DURATION")); err == nil && d > 0 {
		duration = d
	}
	const down, up = 2 * time.Second, 3 * time.Second
	p := netshape.Profile{Rate: 5_000_000, Delay: 30 * time.Millisecond}
	s := startShapedSite(t, p)
	metrics := "http://" + net.JoinHostPort(s.link.CloudAddr.String(), "19090")
	// The cloud's own gauges, before: read through its metrics listener (started below).
	before := s.cloudGauges(t, metrics)
	robotsBefore := s.cloudRobotCount(t)

	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	var wg sync.WaitGroup

	// The site posts an entry every 100 ms to its local gateway; each 200 is acknowledged.
	var mu sync.Mutex
	var acked []string
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	wg.Go(func() {
		for i := 0; ctx.Err() == nil; i++ {
			msg := fmt.Sprintf("chaos-%s-%d", run, i)
			req, _ := http.NewRequest("POST", s.agentURL+"/apigateway/v2/events/log?robotId="+s.robot+"&message="+url.QueryEscape(msg), nil)
			req.Header.Set("Authorization", "bearer "+s.localBearer)
			if resp, err := s.siteHTTP.Do(req); err == nil {
				if resp.StatusCode == 200 {
					mu.Lock()
					acked = append(acked, msg)
					mu.Unlock()
				}
				resp.Body.Close()
			}
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	})

	// The operator drives through the cloud whenever the cloud lets them: a socket that ends
	// (the link dropped) is opened again.
	wg.Go(func() { driveTurning(ctx, s.cloudHTTP, s.cloudURL, s.bearer, s.robot) })

	// The robot's turn rate, read at the site every 20 ms (the local gateway is not behind the
	// link), against the moments the link went down.
	type reading struct {
		at time.Time
		w  float64
	}
	var readings []reading
	wg.Go(func() {
		for ctx.Err() == nil {
			var read struct{ RobotStream string }
			if s.getJSON(s.siteHTTP, s.agentURL+"/apigateway/v2/robots/"+s.robot+"/stream?componentName=base&streamName=odom&source=1&streamType=Platform.Messages.nav_msgs.Odometry", s.localBearer, &read) == 200 {
				var o struct {
					Twist struct {
						Twist struct{ Angular struct{ Z float64 } }
					}
				}
				if json.Unmarshal([]byte(read.RobotStream), &o) == nil {
					mu.Lock()
					readings = append(readings, reading{time.Now(), o.Twist.Twist.Angular.Z})
					mu.Unlock()
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	})

	// The flapping.
	var cuts []time.Time
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-time.After(up):
		}
		if ctx.Err() != nil {
			break
		}
		s.link.SetProfiles(netshape.Profile{Down: true}, netshape.Profile{Down: true})
		cuts = append(cuts, time.Now())
		select {
		case <-ctx.Done():
		case <-time.After(down):
		}
		s.link.SetProfiles(p, p)
	}
	s.link.SetProfiles(p, p)
	wg.Wait()

	// Each cut: was the robot driving, and when did it stand still?
	var stops []time.Duration
	for _, cut := range cuts {
		driving, stopped := false, time.Duration(-1)
		for _, r := range readings {
			if r.at.Before(cut) && cut.Sub(r.at) < 300*time.Millisecond && math.Abs(r.w) > 0.5 {
				driving = true
			}
			if driving && r.at.After(cut) && math.Abs(r.w) < 0.01 {
				stopped = r.at.Sub(cut)
				break
			}
		}
		if !driving {
			continue // the operator's socket was not open yet after the last cut
		}
		if stopped < 0 || stopped > 1500*time.Millisecond {
			t.Errorf("the link dropped at %v while the robot turned: standing still after %v, want within the deadman and braking (1.5 s)", cut.Format("15:04:05.000"), stopped)
		}
		stops = append(stops, stopped)
	}
	if len(stops) == 0 {
		t.Fatalf("the robot was never driving when the link dropped (%d cuts)", len(cuts))
	}
	t.Logf("%d cuts in %v; the robot driving at %d of them stood still after p50 %v, max %v", len(cuts), duration,
		len(stops), percentile(stops, 50).Round(time.Millisecond), percentile(stops, 100).Round(time.Millisecond))

	// Every acknowledged entry on the cloud, once.
	counts := map[string]int{}
	waitFor(t, 60*time.Second, "every acknowledged entry on the cloud", func() bool {
		counts = s.cloudMessages(t, "chaos-"+run+"-")
		for _, m := range acked {
			if counts[m] == 0 {
				return false
			}
		}
		return true
	})
	for m, n := range counts {
		if n != 1 {
			t.Errorf("entry %s is on the cloud %d times", m, n)
		}
	}
	t.Logf("%d entries acknowledged at the site, %d on the cloud, none twice", len(acked), len(counts))
	if len(counts) != len(acked) {
		t.Errorf("the cloud holds %d entries of this run, %d were acknowledged", len(counts), len(acked))
	}

	// The agent's log (2 MB, growing) was uploading while the link flapped: it finishes,
	// resumed where each drop left it.
	took := waitFor(t, 90*time.Second, "the agent's log archived on the cloud", func() bool {
		return uploadedLog.MatchString(s.cloud.logs())
	})
	t.Logf("the log archived %v after the run: %s; resumed %d times", took.Round(time.Second),
		uploadedLog.FindString(s.cloud.logs()), strings.Count(s.cloud.logs(), "resuming resource upload"))

	// The cloud's resources flat: what it holds for the agent's link is the same after.
	robotsAfter := s.cloudRobotCount(t)
	if robotsAfter != robotsBefore {
		t.Errorf("the cloud lists %d robots after, %d before", robotsAfter, robotsBefore)
	}
	var after map[string]float64
	waitFor(t, 20*time.Second, "the cloud's goroutines and open files back to where they were", func() bool {
		after = s.cloudGauges(t, metrics)
		return after["go_goroutines"] <= before["go_goroutines"]+10 && after["process_open_fds"] <= before["process_open_fds"]+5
	})
	t.Logf("the cloud before / after: goroutines %v / %v, open files %v / %v, robots %d / %d",
		before["go_goroutines"], after["go_goroutines"], before["process_open_fds"], after["process_open_fds"], robotsBefore, robotsAfter)
}

// cloudGauges reads the cloud's go_goroutines and process_open_fds.
func (s *shapedSite) cloudGauges(t *testing.T, metrics string) map[string]float64 {
	t.Helper()
	var out map[string]float64
	waitFor(t, 10*time.Second, "the cloud's metrics", func() bool {
		out = readGauges(s.cloudHTTP, metrics)
		return len(out) == 2
	})
	return out
}

func (s *shapedSite) cloudRobotCount(t *testing.T) int {
	t.Helper()
	var list struct{ RobotDataList []json.RawMessage }
	if st := s.getJSON(s.cloudHTTP, s.cloudURL+"/apigateway/v2/robots", s.bearer, &list); st != 200 {
		t.Fatalf("the cloud's robot list: %d", st)
	}
	return len(list.RobotDataList)
}

// cloudMessages counts the cloud's event-log entries of sim-1 whose message starts with prefix.
func (s *shapedSite) cloudMessages(t *testing.T, prefix string) map[string]int {
	t.Helper()
	req, _ := http.NewRequest("GET", s.cloudURL+"/apigateway/v2/events?format=jsonl&robotId="+s.robot+"&q="+url.QueryEscape(prefix), nil)
	req.Header.Set("Authorization", "bearer "+s.bearer)
	resp, err := s.cloudHTTP.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var e struct{ Message string }
		if json.Unmarshal(sc.Bytes(), &e) == nil && strings.HasPrefix(e.Message, prefix) {
			counts[e.Message]++
		}
	}
	return counts
}
