package api

import (
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/edge"
)

// Problem is an RFC 9457 problem detail, the body of every non-2xx REST answer.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
	// Code is the domain error code (not_found, forbidden, ...), for clients that branch on it.
	Code string `json:"code,omitempty"`
	// Owner and Since name the holder on a 409 for a controlled robot (W3 input).
	Owner string     `json:"owner,omitempty"`
	Since *time.Time `json:"since,omitempty"`
}

// Client mistakes the HTTP layer finds before the core is reached.
var (
	errBodyTooLarge   = fleetgate.Errorf(fleetgate.ETooLarge, "request body is larger than 1 MiB")
	errNotJSON        = fleetgate.Errorf(fleetgate.EUnsupported, "Content-Type must be application/json")
	errBodyNotAllowed = fleetgate.Errorf(fleetgate.EInvalid, "this endpoint takes no body; pass its fields as query parameters")
)

// ErrorHandler returns echo's HTTPErrorHandler: the one place errors become HTTP answers.
// Internal errors are logged with their cause and answered with a bare 500.
func ErrorHandler(log *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		p := problemFor(err)
		if p.Status >= 500 {
			log.Error("request failed", "method", c.Request().Method, "route", c.Path(), "err", err)
		}
		if p.Status == http.StatusUnauthorized {
			c.Response().Header().Set("WWW-Authenticate", `Bearer realm="fleetgate"`)
		}
		if wait := fleetgate.RetryAfter(err); wait > 0 {
			c.Response().Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		}
		writeProblem(c, p)
	}
}

func problemFor(err error) Problem {
	var he *echo.HTTPError
	if errors.As(err, &he) {
		detail := http.StatusText(he.Code)
		if msg, ok := he.Message.(string); ok {
			detail = msg
		}
		return newProblem(he.Code, detail, edge.ProblemOf(he.Code))
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return problemFor(errBodyTooLarge)
	}
	status, code := edge.HTTP(err)
	p := newProblem(status, fleetgate.ErrorMessage(err), code)
	var ge *fleetgate.Error
	if errors.As(err, &ge) && ge.Owner != "" {
		since := ge.Since.UTC()
		p.Owner, p.Since = ge.Owner, &since
	}
	return p
}

func newProblem(status int, detail, code string) Problem {
	return Problem{Type: "about:blank", Title: http.StatusText(status), Status: status, Detail: detail, Code: code}
}

func writeProblem(c echo.Context, p Problem) {
	c.Response().Header().Set(echo.HeaderContentType, "application/problem+json")
	if c.Request().Method == http.MethodHead {
		c.Response().WriteHeader(p.Status)
		return
	}
	if err := c.JSON(p.Status, p); err != nil {
		c.Logger().Error(err)
	}
}

// problemWriter makes the errors that http.ServeContent writes itself as plain text (416 for a
// range outside the file, 412 for a failed precondition) the problem documents every other
// error answer is, code included, their text as the detail. Call finish when ServeContent
// returns.
type problemWriter struct {
	http.ResponseWriter
	head   bool // a HEAD request: headers only
	status int  // the error status ServeContent chose; 0 while it has chosen none
	text   []byte
}

func (w *problemWriter) WriteHeader(status int) {
	if status < 400 {
		w.ResponseWriter.WriteHeader(status)
		return
	}
	w.status = status
}

func (w *problemWriter) Write(p []byte) (int, error) {
	if w.status != 0 {
		if len(w.text) < 512 {
			w.text = append(w.text, p[:min(len(p), 512-len(w.text))]...)
		}
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// finish writes the problem of an error ServeContent answered.
func (w *problemWriter) finish() {
	if w.status == 0 {
		return
	}
	detail := strings.TrimSpace(string(w.text))
	if detail == "" {
		detail = http.StatusText(w.status)
	}
	body, _ := json.Marshal(newProblem(w.status, detail, edge.ProblemOf(w.status)))
	h := w.Header()
	h.Del(echo.HeaderContentDisposition)
	h.Set(echo.HeaderContentType, "application/problem+json")
	h.Set(echo.HeaderContentLength, strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	w.ResponseWriter.WriteHeader(w.status)
	if !w.head {
		w.ResponseWriter.Write(body)
	}
}
