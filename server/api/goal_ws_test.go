package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// goalQuery is the W3 input socket on the robot's goal stream.
const goalQuery = "componentName=nav&streamName=goal&direction=input"

// newGoalAgent is newLiveAgent whose robot takes goals on nav/goal.
func newGoalAgent(t *testing.T) *liveAgent {
	a := newLiveAgent(t)
	a.bot.Lock()
	a.bot.StreamList = append(a.bot.StreamList, fleetgate.Stream{Component: "nav", Name: "goal", Type: poseType, Direction: fleetgate.Input, Source: fleetgate.SourceComponent})
	a.bot.Unlock()
	return a
}

// goalEvents is what the robot received: "goal", "cancel", "zero" (a zero Twist) or "motion".
func goalEvents(t *testing.T, a *liveAgent) string { return goalEventsFrom(t, a, 0) }

// goalEventsFrom is goalEvents from the robot's nth message on.
func goalEventsFrom(t *testing.T, a *liveAgent, n int) string {
	t.Helper()
	var out []string
	for _, p := range a.bot.Published()[n:] {
		switch {
		case p.Cancel:
			out = append(out, "cancel")
		case p.Type == poseType:
			out = append(out, "goal")
		case isZeroTwist(twistOf(t, p)):
			out = append(out, "zero")
		default:
			out = append(out, "motion")
		}
	}
	return strings.Join(out, " ")
}

// waitEvents waits until the robot received want.
func waitEvents(t *testing.T, a *liveAgent, want string) { waitEventsFrom(t, a, 0, want) }

// waitEventsFrom waits until the robot received want from its nth message on.
func waitEventsFrom(t *testing.T, a *liveAgent, n int, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if goalEventsFrom(t, a, n) == want {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("the robot received %q from its message %d on, want %q", goalEventsFrom(t, a, n), n, want)
}

// A goal socket in both of the contract's conventions: each frame a goal, the empty message
// its keepalive; it holds the motion lease (409 for a second controller on either stream),
// and closing it cancels the goal before the zero.
func TestLiveGoalSocket(t *testing.T) {
	a := newGoalAgent(t)
	ctx := context.Background()
	for _, c := range []struct {
		name, query string
		typ         websocket.MessageType
		goal, alive []byte
	}{
		{"json", "&format=json", websocket.MessageText, []byte(`{"header":{"frameId":"map"},"pose":{"position":{"x":4,"y":2}}}`), []byte(`{}`)},
		{"protobuf", "", websocket.MessageBinary, marshal(t, &catalogpb.PoseStamped{Header: &catalogpb.Header{FrameId: "map"}, Pose: &catalogpb.Pose{Position: &catalogpb.Point{X: 4, Y: 2}}}), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := goalEvents(t, a)
			prefix := before
			if prefix != "" {
				prefix += " "
			}
			conn := a.dial(t, goalQuery+c.query)
			if err := conn.Write(ctx, c.typ, c.goal); err != nil {
				t.Fatal(err)
			}
			// Keepalives from now on, at a client's pace, hold the goal past the deadman.
			stop := keepAlive(conn, c.typ, c.alive)
			waitEvents(t, a, prefix+"goal")
			p := a.bot.Published()
			var g catalogpb.PoseStamped
			if err := proto.Unmarshal(p[len(p)-1].Payload, &g); err != nil || g.GetPose().GetPosition().GetX() != 4 || g.GetHeader().GetFrameId() != "map" {
				t.Fatalf("the robot's goal: %v %v", &g, err)
			}
			// The motion lease is held: the controls list cmd_vel, and a second controller on
			// either stream is the contract's 409 naming the holder.
			resp := a.Do("GET", "/apigateway/v2/robots/"+a.robot+"/controls", a.admin, "")
			if !strings.Contains(string(resp.Body), `"streamName":"cmd_vel"`) || !strings.Contains(string(resp.Body), `"owner":"admin@localhost"`) {
				t.Fatalf("controls while the goal socket is open: %s", resp.Body)
			}
			for _, q := range []string{goalQuery, "componentName=base&streamName=cmd_vel&direction=input"} {
				body := a.refused(t, a.url(q), http.Header{"Authorization": {"bearer " + a.admin}}, 409)
				if !strings.Contains(body, "admin@localhost") {
					t.Errorf("409 for %s does not name the holder: %s", q, body)
				}
			}
			time.Sleep(800 * time.Millisecond) // longer than the deadman: the keepalives hold it
			stop()
			if got := goalEvents(t, a); got != prefix+"goal" {
				t.Fatalf("while keepalives came the robot received %q", got)
			}
			conn.Close(websocket.StatusNormalClosure, "")
			waitEvents(t, a, prefix+"goal cancel zero")
			waitFree(t, a)
		})
	}
}

// keepAlive sends a goal socket's keepalive every 100 ms until the returned stop.
func keepAlive(conn *websocket.Conn, typ websocket.MessageType, alive []byte) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if conn.Write(ctx, typ, alive) != nil {
					return
				}
			}
		}
	}()
	return func() { cancel(); <-done }
}

// The deadman cancels the goal about 500 ms after the last keepalive, and the socket keeps
// its control.
func TestLiveGoalSocketDeadman(t *testing.T) {
	a := newGoalAgent(t)
	conn := a.dial(t, goalQuery+"&format=json")
	ctx := context.Background()
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"pose":{"position":{"x":1}}}`)); err != nil {
		t.Fatal(err)
	}
	waitEvents(t, a, "goal")
	last := time.Now()
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	waitEvents(t, a, "goal zero cancel")
	if took := time.Since(last); took < 450*time.Millisecond || took > 2*time.Second {
		t.Errorf("the goal was cancelled %v after the last keepalive, want about 500 ms", took)
	}
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"pose":{"position":{"x":2}}}`)); err != nil {
		t.Fatal(err)
	}
	waitEvents(t, a, "goal zero cancel goal")
}

// Bad frames on a goal socket close it with the contract's codes, as on a cmd_vel socket,
// and the goal is cancelled before the zero; a goal the robot refuses closes 1008.
func TestLiveGoalSocketCloseCodes(t *testing.T) {
	a := newGoalAgent(t)
	goal := marshal(t, &catalogpb.PoseStamped{Pose: &catalogpb.Pose{Position: &catalogpb.Point{X: 3}}})
	cases := []struct {
		name, query string
		typ         websocket.MessageType
		data        []byte
		code        websocket.StatusCode
	}{
		{"text frame on protobuf", "", websocket.MessageText, []byte(`{}`), websocket.StatusUnsupportedData},
		{"binary frame on json", "&format=json", websocket.MessageBinary, goal, websocket.StatusUnsupportedData},
		{"malformed protobuf", "", websocket.MessageBinary, []byte{0xff, 0xff, 0xff}, websocket.StatusInvalidFramePayloadData},
		{"a Twist on json", "&format=json", websocket.MessageText, []byte(`{"linear":{"x":1}}`), websocket.StatusInvalidFramePayloadData},
		{"NaN", "&format=json", websocket.MessageText, []byte(`{"pose":{"position":{"x":"NaN"}}}`), websocket.StatusPolicyViolation},
		{"over 64 KiB", "&format=json", websocket.MessageText, []byte(`{}` + strings.Repeat(" ", 64<<10)), websocket.StatusMessageTooBig},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := goalEvents(t, a)
			prefix := before
			if prefix != "" {
				prefix += " "
			}
			conn := a.dial(t, goalQuery+c.query)
			valid, validType := goal, websocket.MessageBinary
			if c.query != "" {
				valid, validType = []byte(`{"pose":{"position":{"x":3}}}`), websocket.MessageText
			}
			conn.Write(context.Background(), validType, valid)
			waitEvents(t, a, prefix+"goal")
			conn.Write(context.Background(), c.typ, c.data)
			if code := closeCode(t, conn); code != c.code {
				t.Errorf("close %d, want %d", code, c.code)
			}
			waitFree(t, a)
			// The cancel before the zero (a slow machine's deadman may have cancelled it first).
			if got := strings.TrimPrefix(goalEvents(t, a), prefix); got != "goal cancel zero" && got != "goal zero cancel zero" {
				t.Errorf("the robot received %q, want the goal's cancel before the zero", got)
			}
		})
	}
	t.Run("a goal the robot refuses closes 1008", func(t *testing.T) {
		a.bot.Lock()
		a.bot.PublishErr = fleetgate.Errorf(fleetgate.EInvalid, "no path reaches (40, 40)")
		a.bot.Unlock()
		defer func() { a.bot.Lock(); a.bot.PublishErr = nil; a.bot.Unlock() }()
		conn := a.dial(t, goalQuery)
		conn.Write(context.Background(), websocket.MessageBinary, goal)
		if code := closeCode(t, conn); code != websocket.StatusPolicyViolation {
			t.Errorf("close %d, want 1008", code)
		}
		waitFree(t, a)
	})
}

// The Foxglove route takes no goals: its clients publish on a channel, with no keepalive for
// the deadman to wait for.
func TestFoxgloveTakesNoGoals(t *testing.T) {
	a := newGoalAgent(t)
	f := a.foxglove(t, "access_token="+a.admin, nil)
	f.advertise(t, 1, "/nav/goal", "json", "geometry_msgs/PoseStamped")
	f.wantStatus(t, 2, "take only Twist or AckermannDriveStamped")
	if held := a.Do("GET", "/apigateway/v2/robots/"+a.robot+"/controls", a.admin, ""); !strings.Contains(string(held.Body), `"controls":[]`) {
		t.Fatalf("a Foxglove channel on a goal stream took the lease: %s", held.Body)
	}
}

// The handover extension on a goal socket: it asks a cmd_vel holder for the motion lease and
// drives goals once granted; an organization admin's override takes it, the goal cancelled
// before the zero.
func TestHandoverOfAGoalSocket(t *testing.T) {
	a := newGoalAgent(t)
	ann, ben := a.operator(t, "ann@example.com"), a.operator(t, "ben@example.com")
	holder := a.dialAs(t, ann, handoverQuery+"answer")
	sendText(t, holder, `{"linear":{"x":0.4}}`)
	waitEvents(t, a, "motion")
	asker := a.dialAs(t, ben, goalQuery+"&format=json&handover=request")
	readHandover(t, asker, "asking")
	if req := readHandover(t, holder, "requested"); req.By != "ben@example.com" {
		t.Fatalf("ann was asked by %q", req.By)
	}
	sendText(t, holder, `{"handover":"grant"}`)
	readHandover(t, asker, "granted")
	closedWith(t, holder, websocket.StatusPolicyViolation, "handed to ben@example.com")
	// Ann's zero (and her deadman's, on a slow machine) before anything of Ben's.
	n := len(a.bot.Published())
	if got := goalEventsFrom(t, a, 1); strings.Trim(strings.ReplaceAll(got, "zero", ""), " ") != "" || got == "" {
		t.Fatalf("after ann's command the robot received %q, want her zero", got)
	}
	sendText(t, asker, `{"pose":{"position":{"x":2}}}`)
	sendText(t, asker, `{}`)
	waitEventsFrom(t, a, n, "goal")

	boss := a.dialAs(t, a.admin, goalQuery+"&format=json&handover=override")
	closedWith(t, asker, websocket.StatusPolicyViolation, "taken by admin@localhost (supervisor override)")
	// Ben's goal cancelled before his zero (his deadman may have cancelled it first).
	if got := goalEventsFrom(t, a, n); got != "goal cancel zero" && got != "goal zero cancel zero" {
		t.Fatalf("the override: the robot received %q, want the goal's cancel and the zero", got)
	}
	n = len(a.bot.Published())
	sendText(t, boss, `{"pose":{"position":{"x":1}}}`)
	waitEventsFrom(t, a, n, "goal")
}
