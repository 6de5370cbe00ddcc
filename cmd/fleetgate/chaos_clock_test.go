package main

// Issue 32's row "clocks": the agent's clock 30 s ahead of the cloud's. The agent is a binary
// built with -tags chaoshooks, whose times on the link are moved by FLEETGATE_CHAOS_CLOCK_SKEW
// (internal/link/clockskew_chaoshooks.go): what a site whose clock is wrong sends. What must
// hold: the cloud reads the agent's times through the link's own estimate of the offset
// (internal/link/cloud/clock.go), so the pictures viewers get through the cloud carry times on
// the cloud's clock (the panel's age of a frame is now less that time: never negative, never
// 30 s), "last seen" is the cloud's, and the cloud says in its log that the site's clock is off.

import (
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate/internal/link"
)

func TestChaosClockSkew(t *testing.T) {
	skewed := filepath.Join(t.TempDir(), "fleetgate-chaoshooks")
	if out, err := exec.Command("go", "build", "-tags", strings.Join(append([]string{"chaoshooks"}, buildTags...), ","), "-o", skewed, ".").CombinedOutput(); err != nil {
		t.Fatalf("building fleetgate with the chaos hooks: %v\n%s", err, out)
	}
	// The row's 30 s ahead, and behind as well: a clock behind made every picture and the
	// status card look 30 s old; ahead made them "just now" whatever their age.
	for _, skew := range []time.Duration{30 * time.Second, -30 * time.Second} {
		t.Run(skew.String(), func(t *testing.T) { clockSkewRow(t, skewed, skew) })
	}
}

func clockSkewRow(t *testing.T, skewed string, skew time.Duration) {
	cloudDir := t.TempDir()
	cloud := startLogged(t, "cloud", nil, "serve", "--data", cloudDir, "--listen", "127.0.0.1:0", "--admin-token", testToken)
	key := addAgent(t, cloudDir, "skewed")
	agent := startLoggedCmd(t, "agent", exec.Command(skewed, "agent", "--data", t.TempDir(), "--listen", "127.0.0.1:0",
		"--admin-token", testToken, "--sim", "1", "--cloud", cloud.URL, "--agent-key", key),
		[]string{"FLEETGATE_CHAOS_CLOCK_SKEW=" + skew.String()})
	robot := localRobots(t, agent.URL, 1)[0]
	bearer := login(t, cloud.URL, testToken)
	waitFor(t, 15*time.Second, "sim-1 online on the cloud", func() bool { return robotsOnline(cloud.URL, bearer, []string{robot}, true) })

	// The agent's first heartbeat follows its welcome within a quarter of a second; the
	// cloud says what it found.
	waitFor(t, 10*time.Second, "the cloud's log naming the agent's clock", func() bool {
		return strings.Contains(cloud.logs(), "agent clock differs from the cloud's")
	})
	t.Logf("the cloud: %s", lineWith(cloud.logs(), "agent clock differs"))

	// Pictures through the cloud: each frame's time against the moment it arrived (this
	// machine's clock is the cloud's and the browser's).
	conn := dialW3(t, cloud.URL, bearer, robot, "componentName=camera&streamName=image&source=1")
	defer conn.CloseNow()
	var ages []time.Duration
	for range 40 {
		env := readEnvelope(t, conn)
		ages = append(ages, time.Since(link.FromTime(env.GetPublishTime())))
	}
	// The estimate is short of the offset by its fastest heartbeat's crossing (tens of ms on a
	// loaded machine): a frame may look that much younger than it is, which the panel shows
	// as 0 (never negative: jsclient's FrameStats), never 30 s.
	for _, age := range ages {
		if age < -500*time.Millisecond || age > 2*time.Second {
			t.Errorf("a frame through the cloud is %v old (the agent's clock %v off): want its age on the cloud's clock, 0 to 2 s", age.Round(time.Millisecond), skew)
			break
		}
	}
	t.Logf("40 frames through the cloud: age p50 %v, min %v, max %v (the agent's clock %v off)", percentile(ages, 50).Round(time.Millisecond),
		minDuration(ages).Round(time.Millisecond), percentile(ages, 100).Round(time.Millisecond), skew)

	// The panel's status card: the data's age in words, a real one (not "just now" for a
	// clock ahead, nor half a minute for one behind).
	panel := panelBrowser(t, cloud.URL)
	panel.post("/login", url.Values{"token": {testToken}})
	var words string
	waitFor(t, 10*time.Second, "the status card's data age", func() bool {
		m := dataAge.FindStringSubmatch(panel.get("/robots/" + robot + "/status"))
		if m == nil {
			return false
		}
		words = m[1]
		return words != "no data"
	})
	t.Logf("the panel's status card: data age %q", words)
	if !regexp.MustCompile(`^[0-4]\.\d s ago$`).MatchString(words) {
		t.Errorf("the panel's status card says the data age is %q: want its age on the cloud's clock, under 5 s", words)
	}

	// "Last seen" is the cloud's own: never in the future, nor 30 s off.
	var details struct{ LastTimeSeen time.Time }
	if s := getJSON(cloud.URL+"/apigateway/v2/robots/"+robot, bearer, &details); s != 200 {
		t.Fatalf("the cloud's robot details: %d", s)
	}
	seen := time.Since(details.LastTimeSeen)
	t.Logf("last seen on the cloud: %v ago", seen.Round(time.Millisecond))
	if seen < 0 || seen > 20*time.Second {
		t.Errorf("the cloud says sim-1 was last seen %v ago", seen)
	}
}

var dataAge = regexp.MustCompile(`<dt>Data age</dt><dd>([^<]*)</dd>`)

func minDuration(ds []time.Duration) time.Duration {
	m := ds[0]
	for _, d := range ds[1:] {
		m = min(m, d)
	}
	return m
}
