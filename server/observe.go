package server

import (
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/fleetgate/fleetgate/server/api"
	"github.com/fleetgate/fleetgate/web"
)

// httpMetrics are the request metrics served on --metrics-listen.
type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fleetgate_http_requests_total",
			Help: "HTTP requests by route, method and status.",
		}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "fleetgate_http_request_duration_seconds",
			Help:    "HTTP request duration by route and method.",
			Buckets: prometheus.DefBuckets,
		}, []string{"route", "method"}),
	}
	reg.MustRegister(m.requests, m.duration)
	return m
}

// observe logs one line per request and counts it. Errors are rendered here (c.Error) so
// the status in the log line is the status the client saw.
func observe(log *slog.Logger, metrics *httpMetrics) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			took := time.Since(start)
			req, status := c.Request(), c.Response().Status
			route := c.Path()
			if route == "" {
				route = "unmatched"
			}
			metrics.requests.WithLabelValues(route, req.Method, strconv.Itoa(status)).Inc()
			metrics.duration.WithLabelValues(route, req.Method).Observe(took.Seconds())
			level := slog.LevelInfo
			if status >= 500 {
				level = slog.LevelError
			}
			log.LogAttrs(req.Context(), level, "request",
				slog.String("method", req.Method),
				slog.String("route", route),
				slog.String("uri", redactURI(req.URL)),
				slog.Int("status", status),
				slog.Duration("duration", took),
				slog.String("user", callerEmail(c)),
				slog.String("remote", c.RealIP()),
			)
			return nil
		}
	}
}

// secretParams are query parameters whose values never reach a log line (username and
// password are a camera's, from a W3 query).
var secretParams = []string{"access_token", "token", "usertoken", "password", "username", "sig"}

// redactURI is the request URI with secret query values replaced. Authorization headers
// are never logged at all.
func redactURI(u *url.URL) string {
	if u.RawQuery == "" {
		return u.Path
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return u.Path + "?[unparsable query]"
	}
	for key, values := range q {
		for _, secret := range secretParams {
			if strings.EqualFold(key, secret) {
				q[key] = []string{"REDACTED"}
			}
		}
		if strings.EqualFold(key, "url") {
			for i, v := range values {
				values[i] = withoutUserinfo(v)
			}
		}
	}
	return u.Path + "?" + q.Encode()
}

// callerEmail is the API caller's email, else the panel session's; empty when anonymous.
func callerEmail(c echo.Context) string {
	if email := api.CallerEmail(c); email != "" {
		return email
	}
	if caller := web.Caller(c); caller != nil {
		return caller.User.Email
	}
	return ""
}

// withoutUserinfo blanks the user part of a URL (a camera's credentials in a W3 query).
func withoutUserinfo(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	authority, path, hasPath := strings.Cut(rest, "/")
	at := strings.LastIndexByte(authority, '@')
	if at < 0 {
		return raw
	}
	out := scheme + "://REDACTED@" + authority[at+1:]
	if hasPath {
		out += "/" + path
	}
	return out
}
