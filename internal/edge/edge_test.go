package edge

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// declaredCodes are the error codes error.go declares: every string constant named E*. They
// are read from the source, so that a code added there without a row here fails the test.
func declaredCodes(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../../error.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, name := range spec.Names {
			if !strings.HasPrefix(name.Name, "E") || i >= len(spec.Values) {
				continue
			}
			if lit, ok := spec.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				codes[name.Name], _ = strconv.Unquote(lit.Value)
			}
		}
		return true
	})
	if len(codes) < 10 {
		t.Fatalf("read %d codes from error.go (%v): the parse no longer finds them", len(codes), codes)
	}
	return codes
}

// TestEveryCodeCrossesEveryEdge walks every code error.go declares through the three tables:
// an HTTP status and problem code, a close code, and a link kind that gives the code back.
func TestEveryCodeCrossesEveryEdge(t *testing.T) {
	kinds := map[linkpb.Error_Kind]string{}
	declared := declaredCodes(t)
	for name, code := range declared {
		r, ok := byCode[code]
		if !ok {
			t.Errorf("%s (%q) has no row in the edge table", name, code)
			continue
		}
		err := fleetgate.Errorf(code, "why")
		if status, problem := HTTP(err); status != r.Status || problem != r.Problem || status < 400 || problem == "" {
			t.Errorf("%s: HTTP %d %q; its row says %d %q", name, status, problem, r.Status, r.Problem)
		}
		if c, _ := Close(err); c != r.Close || c < 1000 || c > 1011 {
			t.Errorf("%s: close %d; its row says %d", name, c, r.Close)
		}
		k := Kind(err)
		if k != r.Kind {
			t.Errorf("%s: kind %v; its row says %v", name, k, r.Kind)
		}
		if back := CodeOfKind(k); back != code {
			t.Errorf("%s crosses the link as %v and comes back as %q", name, k, back)
		}
		if other, dup := kinds[k]; dup {
			t.Errorf("%s and %s share the link kind %v: the link would lose one", code, other, k)
		}
		kinds[k] = code
	}
	for _, r := range table {
		if !slices.Contains(slices.Collect(maps.Values(declared)), r.Code) {
			t.Errorf("the table has a row for %q, a code error.go does not declare", r.Code)
		}
	}
	// Every kind of the protocol stands for a code: a kind added to link.proto gets its row.
	values := linkpb.Error_KIND_INTERNAL.Descriptor().Values()
	for i := range values.Len() {
		k := linkpb.Error_Kind(values.Get(i).Number())
		if _, ok := kinds[k]; !ok {
			t.Errorf("link kind %v stands for no code", k)
		}
	}
}

// TestHTTPAnswers is the contract's table of statuses and problem codes (docs/api.md "Errors").
func TestHTTPAnswers(t *testing.T) {
	for code, want := range map[string]struct {
		status  int
		problem string
	}{
		fleetgate.EInvalid: {400, "invalid"}, fleetgate.EMalformed: {400, "invalid"},
		fleetgate.EUnauthorized: {401, "unauthorized"}, fleetgate.EForbidden: {403, "forbidden"},
		fleetgate.ENotFound: {404, "not_found"}, fleetgate.EConflict: {409, "conflict"},
		fleetgate.ETooLarge: {413, "too_large"}, fleetgate.EUnsupported: {415, "unsupported_media_type"},
		fleetgate.ERateLimited: {429, "rate_limited"}, fleetgate.EInternal: {500, "internal"},
		fleetgate.ENotImplemented: {501, "not_implemented"}, fleetgate.EUnavailable: {503, "unavailable"},
		fleetgate.EOffline: {503, "unavailable"}, fleetgate.EGoingAway: {503, "unavailable"},
		fleetgate.EGone: {500, "internal"}, "no_such_code": {500, "internal"},
	} {
		if status, problem := HTTP(fleetgate.Errorf(code, "why")); status != want.status || problem != want.problem {
			t.Errorf("%s: %d %q, want %d %q", code, status, problem, want.status, want.problem)
		}
	}
	for _, c := range []struct {
		err     error
		status  int
		problem string
	}{
		{errors.New("disk on fire"), 500, "internal"},
		{fmt.Errorf("loading: %w", fleetgate.Errorf(fleetgate.ENotFound, "no robot")), 404, "not_found"},
		{&fleetgate.Error{Code: fleetgate.EUnavailable, Message: "robot is offline", Err: fleetgate.Errorf(fleetgate.EOffline, "gone")}, 503, "unavailable"},
	} {
		if status, problem := HTTP(c.err); status != c.status || problem != c.problem {
			t.Errorf("%v: %d %q, want %d %q", c.err, status, problem, c.status, c.problem)
		}
	}
}

// TestProblemOfStatus: an answer made without the core carries the code the core's answer of
// that status would, and the HTTP layer's own 405 its code.
func TestProblemOfStatus(t *testing.T) {
	for _, r := range table {
		if got := ProblemOf(r.Status); got != r.Problem {
			t.Errorf("ProblemOf(%d) = %q; the row of %s says %q", r.Status, got, r.Code, r.Problem)
		}
	}
	for status, want := range map[int]string{
		http.StatusMethodNotAllowed: MethodNotAllowed, http.StatusTeapot: "invalid",
		http.StatusRequestedRangeNotSatisfiable: "invalid", http.StatusBadGateway: "internal",
	} {
		if got := ProblemOf(status); got != want {
			t.Errorf("ProblemOf(%d) = %q, want %q", status, got, want)
		}
	}
	want := []string{"conflict", "forbidden", "internal", "invalid", "method_not_allowed", "no_sample", "not_found", "not_implemented",
		"rate_limited", "too_large", "unauthorized", "unavailable", "unsupported_media_type"}
	if got := ProblemCodes(); !slices.Equal(got, want) {
		t.Errorf("ProblemCodes = %v, want %v", got, want)
	}
}

// TestCloseCodes is the contract's table of close codes (docs/api.md "Close codes"): the code
// of why decides, its public message is the reason.
func TestCloseCodes(t *testing.T) {
	const frozen = "the robot's gateway stopped answering; it stops the robot by itself"
	cases := []struct {
		why    error
		code   websocket.StatusCode
		reason string
	}{
		{nil, websocket.StatusNormalClosure, ""},
		{fleetgate.Errorf(fleetgate.EGone, "the client closed the connection"), websocket.StatusNormalClosure, ""},
		{fleetgate.Errorf(fleetgate.EGoingAway, "server shutting down"), websocket.StatusGoingAway, "server shutting down"},
		{fleetgate.Errorf(fleetgate.EOffline, "the robot went offline"), websocket.StatusGoingAway, "the robot went offline"},
		{fleetgate.Errorf(fleetgate.EUnsupported, "text frame on a protobuf input socket"), websocket.StatusUnsupportedData, "text frame on a protobuf input socket"},
		{fleetgate.Errorf(fleetgate.EMalformed, "malformed JSON: x"), websocket.StatusInvalidFramePayloadData, "malformed JSON: x"},
		{fleetgate.Errorf(fleetgate.EInvalid, "client too slow"), websocket.StatusPolicyViolation, "client too slow"},
		{fleetgate.Errorf(fleetgate.EUnauthorized, "token revoked or expired"), websocket.StatusPolicyViolation, "token revoked or expired"},
		{fleetgate.Errorf(fleetgate.ENotFound, "stream not resolved: no stream x"), websocket.StatusPolicyViolation, "stream not resolved: no stream x"},
		{fleetgate.Errorf(fleetgate.ETooLarge, "message too big: over 64 KiB"), websocket.StatusMessageTooBig, "message too big: over 64 KiB"},
		{fleetgate.Errorf(fleetgate.EUnavailable, "output bootstrap failed: robot offline"), websocket.StatusInternalError, "output bootstrap failed: robot offline"},
		// A cloud session whose agent stopped answering: 1011, never 1001 (read as the
		// gateway shutting down), and the words reach the operator whole.
		{fleetgate.Errorf(fleetgate.EUnavailable, "publishing to the robot failed: %s", frozen), websocket.StatusInternalError, "publishing to the robot failed: " + frozen},
		// The public message only: a cause's text is for the log.
		{&fleetgate.Error{Code: fleetgate.EInternal, Message: "output conversion failed", Err: errors.New("secret cause")}, websocket.StatusInternalError, "output conversion failed"},
		{fleetgate.Internal(errors.New("secret cause")), websocket.StatusInternalError, "internal error"},
		{errors.New("something unforeseen"), websocket.StatusInternalError, "internal error"},
		{fmt.Errorf("ending: %w", fleetgate.Errorf(fleetgate.EOffline, "the robot went offline")), websocket.StatusGoingAway, "the robot went offline"},
	}
	for _, c := range cases {
		code, reason := Close(c.why)
		if code != c.code || reason != c.reason {
			t.Errorf("%v: %d %q, want %d %q", c.why, code, reason, c.code, c.reason)
		}
	}
}

func TestCloseReasonFitsACloseFrame(t *testing.T) {
	for _, msg := range []string{strings.Repeat("é", 100), strings.Repeat("x", 200), "bad \xff byte" + strings.Repeat("€", 50)} {
		_, reason := Close(fleetgate.Errorf(fleetgate.ENotFound, "%s", msg))
		if len(reason) > maxCloseReason || len(reason) < maxCloseReason-3 || !utf8.ValidString(reason) {
			t.Errorf("reason %q (%d bytes) does not fill a close frame with UTF-8", reason, len(reason))
		}
	}
}
