package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate"
)

const handoverQuery = "componentName=base&streamName=cmd_vel&direction=input&format=json&handover="

// operator signs in a new operator of the live agent's robot and returns their bearer token.
func (a *liveAgent) operator(t *testing.T, email string) string {
	t.Helper()
	org, _ := a.DefaultOrg()
	u := a.AddUser(org.ID, email, false, map[string]fleetgate.Role{a.robot: fleetgate.RoleOperator})
	secret, _ := a.AddToken(u.ID, "", "")
	return a.Login(secret)
}

func (a *liveAgent) dialAs(t *testing.T, bearer, query string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, a.url(query), &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"bearer " + bearer}}})
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial %s: %v (status %d)", query, err, status)
	}
	t.Cleanup(func() { conn.CloseNow() })
	return conn
}

type handoverFrame struct {
	Handover string     `json:"handover"`
	By       string     `json:"by"`
	Since    *time.Time `json:"since"`
}

// readHandover reads the next frame, which must be the handover frame kind.
func readHandover(t *testing.T, conn *websocket.Conn, kind string) handoverFrame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	typ, data, err := conn.Read(ctx)
	if err != nil {
		t.Fatalf("waiting for %q: %v", kind, err)
	}
	var f handoverFrame
	if typ != websocket.MessageText || json.Unmarshal(data, &f) != nil || f.Handover != kind {
		t.Fatalf("frame %s, want {\"handover\":%q}", data, kind)
	}
	return f
}

// closedWith reads until the server closes and checks the code and that the reason says want.
func closedWith(t *testing.T, conn *websocket.Conn, code websocket.StatusCode, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		_, _, err := conn.Read(ctx)
		if err == nil {
			continue
		}
		var ce websocket.CloseError
		if !errors.As(err, &ce) {
			t.Fatalf("socket ended without a close frame: %v", err)
		}
		if ce.Code != code || !strings.Contains(ce.Reason, want) {
			t.Fatalf("closed %d %q, want %d saying %q", ce.Code, ce.Reason, code, want)
		}
		return
	}
}

func sendText(t *testing.T, conn *websocket.Conn, text string) {
	t.Helper()
	if err := conn.Write(context.Background(), websocket.MessageText, []byte(text)); err != nil {
		t.Fatal(err)
	}
}

// Two operators on real sockets: the second asks, the holder sees who and since when and
// grants; the robot gets the holder's zero before the new holder's first command. Then a
// refusal, and an organization admin's override that names itself to the holder.
func TestHandoverOnTheInputSocket(t *testing.T) {
	a := newLiveAgent(t)
	ann, ben := a.operator(t, "ann@example.com"), a.operator(t, "ben@example.com")

	holder := a.dialAs(t, ann, handoverQuery+"answer")
	sendText(t, holder, `{"linear":{"x":0.4}}`)
	waitPublished(t, a.bot, 1)
	asker := a.dialAs(t, ben, handoverQuery+"request")
	readHandover(t, asker, "asking")
	req := readHandover(t, holder, "requested")
	if req.By != "ben@example.com" || req.Since == nil || time.Since(*req.Since) > 10*time.Second {
		t.Fatalf("request %+v, want ben@example.com and when", req)
	}
	sendText(t, holder, `{"linear":{"x":0.4}}`) // the key still held until the grant
	sendText(t, holder, `{"handover":"grant"}`)
	readHandover(t, asker, "granted")
	closedWith(t, holder, websocket.StatusPolicyViolation, "handed to ben@example.com")
	before := len(a.bot.Published())
	if !isZeroTwist(twistOf(t, a.bot.Published()[before-1])) {
		t.Fatalf("the last command before the new holder drove is %v, want the old holder's zero", twistOf(t, a.bot.Published()[before-1]))
	}
	sendText(t, asker, `{"linear":{"x":0.2}}`)
	p := waitPublished(t, a.bot, before+1)
	if tw := twistOf(t, p[before]); tw.GetLinear().GetX() != 0.2 {
		t.Fatalf("the new holder's first command arrived as %v", tw)
	}

	// Ann asks back; Ben refuses: Ann's socket closes saying so, Ben drives on.
	again := a.dialAs(t, ann, handoverQuery+"request")
	readHandover(t, again, "asking")
	readHandover(t, asker, "requested")
	sendText(t, asker, `{"handover":"refuse"}`)
	closedWith(t, again, websocket.StatusPolicyViolation, "ben@example.com refused")

	// The contract's 409 is unchanged for a client without the extension.
	a.refused(t, a.url("componentName=base&streamName=cmd_vel&direction=input"), http.Header{"Authorization": {"bearer " + ann}}, 409)
	// An operator may not override; an organization admin may, and the holder learns who.
	a.refused(t, a.url(handoverQuery+"override"), http.Header{"Authorization": {"bearer " + ann}}, 403)
	n := len(a.bot.Published())
	boss := a.dialAs(t, a.admin, handoverQuery+"override")
	closedWith(t, asker, websocket.StatusPolicyViolation, "taken by admin@localhost (supervisor override)")
	if p := waitPublished(t, a.bot, n+1); !isZeroTwist(twistOf(t, p[n])) {
		t.Fatalf("the override published %v first, want the holder's zero", twistOf(t, p[n]))
	}
	sendText(t, boss, `{"linear":{"x":-0.1}}`)
	if p := waitPublished(t, a.bot, n+2); twistOf(t, p[n+1]).GetLinear().GetX() != -0.1 {
		t.Fatalf("the supervisor's command arrived as %v", twistOf(t, p[n+1]))
	}
}

// A holder whose client does not speak the extension cannot be asked: the request closes at
// once naming the holder, and the holder drives on.
func TestHandoverRequestOfAPlainHolderIsRefusedAtOnce(t *testing.T) {
	a := newLiveAgent(t)
	ben := a.operator(t, "ben@example.com")
	a.dial(t, "componentName=base&streamName=cmd_vel&direction=input")
	asker := a.dialAs(t, ben, handoverQuery+"request")
	readHandover(t, asker, "asking")
	closedWith(t, asker, websocket.StatusPolicyViolation, "cannot answer requests")
	a.refused(t, a.url("componentName=base&streamName=cmd_vel&direction=output&handover=answer"), http.Header{"Authorization": {"bearer " + ben}}, 400)
}
