//go:build linux

package main

// The cloud's replicas under issue 32's faults of the store, the bus and the network: three
// replicas on Debian's postgresql and nats-server behind haproxy, two agents with a simulated
// robot each, and the clients a deployment has, each counting what it saw: REST readers and
// event posters through haproxy, W3 camera viewers, a W3 driver whose robot is watched at its
// site, and a W1 socket on every replica. The rows are chaos_store_test.go (PostgreSQL),
// chaos_bus_test.go (NATS) and chaos_partition_test.go (a replica cut off). The test command
// runs them with short outages; FLEETGATE_CHAOS_DURATION of a minute or more (make chaos)
// runs the lengths with more clients.

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate/internal/cluster/natstest"
	"github.com/fleetgate/fleetgate/internal/store/postgres/pgtest"
)

// chaosLong says whether to run the outage lengths (make chaos) rather than the test
// command's short ones.
func chaosLong() bool {
	d, err := time.ParseDuration(os.Getenv("FLEETGATE_CHAOS_DURATION"))
	return err == nil && d >= time.Minute
}

// chaosCluster is the cloud of a chaos row: replicas, haproxy in front, two agents.
type chaosCluster struct {
	db       string
	replicas []*loggedProcess
	front    string
	agents   []*loggedProcess // a1 through haproxy, a2 with the replicas' URLs as a list
	robots   []string         // the robot of each agent
	bearer   string           // the admin's, from a login through haproxy
}

// startChaosCluster starts NATS, three replicas on a new database of pg, haproxy in front and
// the two agents: a1 through haproxy, a2 with the replicas' URLs as a list.
func startChaosCluster(t *testing.T, pg *pgtest.Server) (*chaosCluster, *natstest.Server) {
	t.Helper()
	c := &chaosCluster{db: pg.NewDatabase(t)}
	nats := natstest.Start(t)
	c.replicas = startReplicas(t, 3, c.db, nats.URL())
	c.front = startHAProxy(t, c.replicas)
	var urls []string
	for _, r := range c.replicas {
		urls = append(urls, r.URL)
	}
	c.startChaosAgents(t, c.front, strings.Join(urls, ","))
	return c, nats
}

// startChaosAgents starts agents a1, a2, ... of c (replicas and front running), each linking
// to its clouds (--cloud), and waits until their robots are online on every replica.
func (c *chaosCluster) startChaosAgents(t *testing.T, clouds ...string) {
	t.Helper()
	for i, cloud := range clouds {
		name := fmt.Sprintf("a%d", i+1)
		key := addAgentTo(t, c.db, name)
		a := startLogged(t, name, nil, "agent", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--admin-token", testToken,
			"--sim", "1", "--cloud", cloud, "--agent-key", key)
		c.agents = append(c.agents, a)
		c.robots = append(c.robots, localRobots(t, a.URL, 1)[0])
	}
	c.bearer = login(t, c.front, testToken)
	waitFor(t, 20*time.Second, "the robots online on every replica", func() bool {
		for _, r := range c.replicas {
			if !robotsOnline(r.URL, c.bearer, c.robots, true) {
				return false
			}
		}
		return true
	})
}

// waitServed waits until each probe was answered three times and more holds.
func waitServed(t *testing.T, probes []*probe, more func() bool) {
	t.Helper()
	waitFor(t, 15*time.Second, "the clients served", func() bool {
		for _, p := range probes {
			p.mu.Lock()
			n := p.ok
			p.mu.Unlock()
			if n < 3 {
				return false
			}
		}
		return more()
	})
}

// probe is one client's view of the cloud across a fault: its answers (ok, refused in words
// as the contract says, failed otherwise) and the outages it saw, each from its first
// unanswered attempt (or late frame) to the next answer.
type probe struct {
	kind string
	mu   sync.Mutex
	ok   int
	// refused: a 503 problem in words (with Retry-After where the row asks for it);
	// failed: anything else that is not an answer (a 500, a reset, a 503 without words).
	refused, failed int
	failures        []string // the first few, for the log
	down            time.Time
	outages         []time.Duration
	last            time.Time // a stream's last frame
}

func (p *probe) answered(at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ok++
	if !p.down.IsZero() {
		p.outages = append(p.outages, at.Sub(p.down))
		p.down = time.Time{}
	}
}

func (p *probe) unanswered(at time.Time, refused bool, why string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if refused {
		p.refused++
	} else {
		p.failed++
		if len(p.failures) < 5 {
			p.failures = append(p.failures, why)
		}
	}
	if p.down.IsZero() {
		p.down = at
	}
}

// frame is a stream client's frame: a gap longer than gap since the last one is an outage,
// the refused reconnections within it included.
func (p *probe) frame(at time.Time, gap time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ok++
	since := p.last
	if since.IsZero() || !p.down.IsZero() && p.down.Before(since) {
		since = p.down
	}
	if !since.IsZero() && at.Sub(since) > gap {
		p.outages = append(p.outages, at.Sub(since))
	}
	p.last, p.down = at, time.Time{}
}

// faultBegins forgets the outages before the fault (a driver's socket opening, the first
// frames): the figures are the fault's.
func faultBegins(probes ...[]*probe) {
	now := time.Now()
	for _, ps := range probes {
		for _, p := range ps {
			p.mu.Lock()
			p.outages = nil
			if !p.down.IsZero() {
				p.down = now
			}
			p.mu.Unlock()
		}
	}
}

// longest is the longest outage the probe saw, an unfinished one counted to now.
func (p *probe) longest() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	var m time.Duration
	for _, o := range p.outages {
		m = max(m, o)
	}
	if !p.down.IsZero() {
		m = max(m, time.Since(p.down))
	}
	return m
}

// figures sums up the probes of one kind of client: the longest outage each saw (p50, p99,
// max over the clients), and their answers.
func figures(kind string, probes []*probe) string {
	var worst []time.Duration
	ok, refused, failed := 0, 0, 0
	for _, p := range probes {
		worst = append(worst, p.longest())
		p.mu.Lock()
		ok, refused, failed = ok+p.ok, refused+p.refused, failed+p.failed
		p.mu.Unlock()
	}
	slices.Sort(worst)
	pct := func(q float64) time.Duration {
		if len(worst) == 0 {
			return 0
		}
		return worst[int(math.Ceil(q*float64(len(worst))))-1].Round(10 * time.Millisecond)
	}
	return fmt.Sprintf("%d %s: outage p50 %v, p99 %v, max %v; %d answered, %d refused, %d failed",
		len(probes), kind, pct(0.5), pct(0.99), pct(1), ok, refused, failed)
}

// failedAny reports the failures of probes as test errors.
func failedAny(t *testing.T, probes []*probe) {
	t.Helper()
	for _, p := range probes {
		p.mu.Lock()
		if p.failed > 0 {
			t.Errorf("%s: %d requests failed (not refused in words): %s", p.kind, p.failed, strings.Join(p.failures, "; "))
		}
		p.mu.Unlock()
	}
}

// chaosHTTP is the clients' HTTP: no shared keep-alive pool between clients would hide a
// replica's failure, and a request waits at most 5 s.
func chaosHTTP() *http.Client {
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 2}}
}

// judge sorts a write's answer: judgeAnswer wanting Retry-After.
func judge(resp *http.Response, err error) (ok, refused bool, why string) {
	return judgeAnswer(resp, err, true)
}

// judgeAnswer sorts an answer: ok for a 2xx, else whether it is a refusal in words (a 503
// problem with a detail, and Retry-After when wantRetryAfter) and a line for the log.
func judgeAnswer(resp *http.Response, err error, wantRetryAfter bool) (ok, refused bool, why string) {
	if err != nil {
		return false, false, err.Error()
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		return true, false, ""
	}
	var problem struct {
		Status int
		Detail string
	}
	json.NewDecoder(resp.Body).Decode(&problem)
	why = fmt.Sprintf("%d %q retry-after=%q", resp.StatusCode, problem.Detail, resp.Header.Get("Retry-After"))
	refused = resp.StatusCode == 503 && problem.Status == 503 && problem.Detail != "" &&
		(!wantRetryAfter || resp.Header.Get("Retry-After") != "")
	return false, refused, why
}

// every runs f every period until ctx ends.
func every(ctx context.Context, period time.Duration, f func()) {
	for ctx.Err() == nil {
		f()
		select {
		case <-ctx.Done():
		case <-time.After(period):
		}
	}
}

// chaosRequest is a request of a client with bearer, kept on replica by haproxy's cookie
// while it is up ("": anywhere).
func chaosRequest(ctx context.Context, method, url, bearer, replica string) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, method, url, nil)
	req.Header.Set("Authorization", "bearer "+bearer)
	if replica != "" {
		req.Header.Set("Cookie", "fleetgate_replica="+replica)
	}
	return req
}

// restReader reads the robot list at base every 100 ms.
func restReader(ctx context.Context, base, bearer, replica string) *probe {
	return poller(ctx, "REST readers", base+"/apigateway/v2/robots", bearer, replica)
}

// poller GETs u every 100 ms; an unanswered request counts from when it was sent.
func poller(ctx context.Context, kind, u, bearer, replica string) *probe {
	p := &probe{kind: kind}
	c := chaosHTTP()
	go every(ctx, 100*time.Millisecond, func() {
		sent := time.Now()
		resp, err := c.Do(chaosRequest(ctx, "GET", u, bearer, replica))
		if ctx.Err() != nil {
			return
		}
		if ok, refused, why := judgeAnswer(resp, err, false); ok {
			p.answered(time.Now())
		} else {
			p.unanswered(sent, refused, why)
		}
	})
	return p
}

// poster posts an event-log entry of robot at base every 100 ms and keeps the messages that
// were acknowledged (200); a refusal must carry Retry-After.
type poster struct {
	*probe
	prefix string
	acked  []string
}

func eventPoster(ctx context.Context, wg *sync.WaitGroup, base, bearer, robot, prefix, replica string) *poster {
	p := &poster{probe: &probe{kind: "event posters"}, prefix: prefix}
	i := 0
	wg.Go(func() {
		every(ctx, 100*time.Millisecond, func() {
			i++
			msg := prefix + strconv.Itoa(i)
			sent := time.Now()
			ok, refused, why := judge(postEvent(base, bearer, robot, msg, replica))
			if ok {
				p.mu.Lock()
				p.acked = append(p.acked, msg)
				p.mu.Unlock()
				p.answered(time.Now())
			} else {
				p.unanswered(sent, refused, why)
			}
		})
	})
	return p
}

// cloudEventCounts counts the entries whose message starts with prefix in the cloud's log, as
// the read API gives them at base.
func cloudEventCounts(base, bearer, prefix string) map[string]int {
	resp, err := chaosHTTP().Do(chaosRequest(context.Background(), "GET", base+"/apigateway/v2/events?format=jsonl&q="+url.QueryEscape(prefix), bearer, ""))
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return nil
	}
	counts := map[string]int{}
	dec := json.NewDecoder(resp.Body)
	for {
		var e struct{ Message string }
		if dec.Decode(&e) != nil {
			break
		}
		if strings.HasPrefix(e.Message, prefix) {
			counts[e.Message]++
		}
	}
	return counts
}

// checkAcked waits until every acknowledged entry of the posters is stored, once, and
// returns the figures line.
func checkAcked(t *testing.T, base, bearer string, posters []*poster) string {
	t.Helper()
	acked, found, twice := 0, 0, 0
	var missing []string
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		acked, found, twice, missing = 0, 0, 0, nil
		for _, p := range posters {
			counts := cloudEventCounts(base, bearer, p.prefix)
			p.mu.Lock()
			for _, m := range p.acked {
				acked++
				if counts[m] > 0 {
					found++
				} else if len(missing) < 10 {
					missing = append(missing, m)
				}
				if counts[m] > 1 {
					twice++
				}
			}
			p.mu.Unlock()
		}
		if found == acked || time.Now().After(deadline) {
			break
		}
	}
	if found != acked {
		t.Errorf("%d acknowledged entries not stored, among them %v", acked-found, missing)
	}
	if twice > 0 {
		t.Errorf("%d acknowledged entries stored twice", twice)
	}
	return fmt.Sprintf("writes: %d acknowledged, %d found afterwards", acked, found)
}

// cameraViewer watches robot's camera at base over W3, opening its socket again whenever it
// ends; a frame later than a second is an outage. A replica named is the one haproxy keeps
// the viewer on (its cookie, as a browser's), while it is up.
func cameraViewer(ctx context.Context, base, bearer, robot, replica string) *probe {
	p := &probe{kind: "W3 camera viewers"}
	u := w3URL(base, robot, "componentName=camera&streamName=image&source=1")
	go streamClient(ctx, p, u, chaosRequest(ctx, "GET", u, bearer, replica).Header, time.Second)
	return p
}

// kpiViewer is a W1 socket of fleet on base; a frame later than 2.5 s is an outage (one a
// second).
func kpiViewer(ctx context.Context, base, bearer, fleet string) *probe {
	p := &probe{kind: "W1 KPI sockets"}
	go streamClient(ctx, p, kpiSocketURL(base, fleet), http.Header{"Authorization": {"bearer " + bearer}}, 2500*time.Millisecond)
	return p
}

func streamClient(ctx context.Context, p *probe, u string, header http.Header, gap time.Duration) {
	for ctx.Err() == nil {
		dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		conn, resp, err := websocket.Dial(dctx, u, &websocket.DialOptions{HTTPHeader: header})
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if resp != nil {
				ok, refused, why := judgeAnswer(resp, nil, false)
				if !ok {
					p.unanswered(time.Now(), refused, why)
				}
			} else {
				p.unanswered(time.Now(), false, err.Error())
			}
			select {
			case <-ctx.Done():
			case <-time.After(250 * time.Millisecond):
			}
			continue
		}
		conn.SetReadLimit(64 << 20)
		for {
			if _, _, err := conn.Read(ctx); err != nil {
				break
			}
			p.frame(time.Now(), gap)
		}
		conn.CloseNow()
	}
}

// driver drives robot at base over W3 (driveTurning) while its turn rate is read at its
// site every 50 ms: time not turning is the driver's outage.
func driver(ctx context.Context, wg *sync.WaitGroup, base, bearer, robot, site string) *probe {
	p := &probe{kind: "W3 driver"}
	wg.Go(func() { driveTurning(ctx, nil, base, bearer, robot) })
	wg.Go(func() {
		watchTurn(ctx, site, robot, func(at time.Time, w float64) {
			if math.Abs(w) > 0.5 {
				p.answered(at)
			} else {
				p.unanswered(at, true, "")
			}
		})
	})
	return p
}

// driveTurning sends robot a turn every 50 ms over W3 at base (through client, nil: the
// default) until ctx ends, opening the socket again whenever it ends.
func driveTurning(ctx context.Context, client *http.Client, base, bearer, robot string) {
	for ctx.Err() == nil {
		dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, _, err := websocket.Dial(dctx, w3URL(base, robot, "componentName=base&streamName=cmd_vel&direction=input&format=json"),
			&websocket.DialOptions{HTTPClient: client, HTTPHeader: http.Header{"Authorization": {"bearer " + bearer}}})
		cancel()
		if err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(250 * time.Millisecond):
			}
			continue
		}
		go conn.CloseRead(ctx)
		sendTurns(ctx, conn)
		conn.CloseNow()
	}
}

// sendTurns turns the robot of conn (a W3 input socket) at 1 rad/s, a command every 50 ms,
// until ctx or the socket ends.
func sendTurns(ctx context.Context, conn *websocket.Conn) {
	for ctx.Err() == nil && conn.Write(ctx, websocket.MessageText, []byte(`{"angular":{"z":1}}`)) == nil {
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// watchTurn reads robot's turn rate at its site's gateway every 50 ms until ctx ends.
func watchTurn(ctx context.Context, site, robot string, seen func(at time.Time, w float64)) {
	c := chaosHTTP()
	bearer := ""
	every(ctx, 50*time.Millisecond, func() {
		if bearer == "" {
			resp, err := c.Post(site+"/apigateway/v2/auth/login", "application/json", strings.NewReader(`{"userToken":"`+testToken+`"}`))
			if err != nil {
				return
			}
			var out struct{ Token string }
			json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			bearer = strings.TrimPrefix(out.Token, "bearer ")
			return
		}
		if w, ok := turnRate(c, site, bearer, robot); ok && ctx.Err() == nil {
			seen(time.Now(), w)
		}
	})
}

// turnRate is robot's turn rate as its site's gateway reads it.
func turnRate(c *http.Client, site, bearer, robot string) (float64, bool) {
	req, _ := http.NewRequest("GET", site+"/apigateway/v2/robots/"+robot+"/stream?componentName=base&streamName=odom&source=1&streamType=Platform.Messages.nav_msgs.Odometry", nil)
	req.Header.Set("Authorization", "bearer "+bearer)
	resp, err := c.Do(req)
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	var read struct{ RobotStream string }
	if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&read) != nil {
		return 0, false
	}
	var o struct {
		Twist struct {
			Twist struct{ Angular struct{ Z float64 } }
		}
	}
	if json.Unmarshal([]byte(read.RobotStream), &o) != nil {
		return 0, false
	}
	return o.Twist.Twist.Angular.Z, true
}

// openFiles is the number of descriptors process p holds.
func openFiles(p *loggedProcess) int {
	entries, _ := os.ReadDir("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/fd")
	return len(entries)
}

// resources lists each replica's open files and the robots the cloud lists.
func (c *chaosCluster) resources(t *testing.T) string {
	var parts []string
	for _, r := range c.replicas {
		parts = append(parts, fmt.Sprintf("%s %d fds", r.name, openFiles(r)))
	}
	var list struct{ RobotDataList []json.RawMessage }
	getJSON(c.replicas[0].URL+"/apigateway/v2/robots", c.bearer, &list)
	return fmt.Sprintf("%s; %d robots listed", strings.Join(parts, ", "), len(list.RobotDataList))
}

// postEvent posts an event-log entry of robot at base (on replica, if named).
func postEvent(base, bearer, robot, msg, replica string) (*http.Response, error) {
	return chaosHTTP().Do(chaosRequest(context.Background(), "POST", base+"/apigateway/v2/events/log?robotId="+robot+"&message="+url.QueryEscape(msg), bearer, replica))
}
