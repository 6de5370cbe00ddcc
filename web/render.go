package web

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/edge"
	"github.com/fleetgate/fleetgate/views"
)

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// render writes a component only once it rendered whole: a component that fails half-way
// leaves nothing on the wire, and the caller's error becomes a clean error page.
func (p *Panel) render(c echo.Context, status int, comp templ.Component) error {
	buf := buffers.Get().(*bytes.Buffer)
	buf.Reset()
	defer buffers.Put(buf)
	if err := comp.Render(c.Request().Context(), buf); err != nil {
		return fleetgate.Internal(fmt.Errorf("rendering %s: %w", c.Path(), err))
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// handle adapts a page handler: its error becomes an HTML error page here (the API's error
// handler would answer problem+json), and an expired session a trip to the login page.
func (p *Panel) handle(h echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		err := h(c)
		if err == nil || c.Response().Committed {
			return nil
		}
		return p.fail(c, err)
	}
}

// statusOf is the HTTP status of an error (echo's own errors keep theirs).
func statusOf(err error) int {
	var he *echo.HTTPError
	if errors.As(err, &he) {
		return he.Code
	}
	return edge.Status(err)
}

// fail answers a page request that failed: the error page, in words.
func (p *Panel) fail(c echo.Context, err error) error {
	status := statusOf(err)
	if status == http.StatusUnauthorized {
		return p.toLogin(c, nil)
	}
	detail := fleetgate.ErrorMessage(err)
	var he *echo.HTTPError
	if errors.As(err, &he) {
		detail = fmt.Sprint(he.Message)
	}
	if status >= 500 {
		p.log.Error("page failed", "method", c.Request().Method, "route", c.Path(), "err", err)
		if status == http.StatusInternalServerError {
			detail = "Something went wrong on our side. It has been logged; try again."
		}
	}
	if wait := fleetgate.RetryAfter(err); wait > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
	}
	if rerr := p.render(c, status, views.ErrorPage(status, http.StatusText(status), detail)); rerr != nil {
		p.log.Error("rendering the error page failed", "err", rerr)
		return c.HTMLBlob(http.StatusInternalServerError, []byte(fallbackPage))
	}
	return nil
}

// fallbackPage is the answer when even the error page cannot render.
const fallbackPage = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Error · fleetgate</title></head>` +
	`<body><h1>Internal Server Error</h1><p>Something went wrong on our side. Try again.</p></body></html>`
