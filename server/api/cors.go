package api

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// CORS lets pages served by the given origins (a dashboard on another host or port) call the
// API, /apigateway/..., from a browser: it answers their preflight requests and marks the
// API's answers readable by them (Access-Control-Allow-Origin).
//
// The API authenticates with bearer tokens only, which a page adds itself: a browser never
// sends one on its own, so another origin's page reads only what its own token may. Nothing
// here ever allows credentials (no Access-Control-Allow-Credentials): the panel's cookie
// never rides along, and the panel's browser API (/panel/api) stays same-origin.
//
// origins are exact origins (scheme://host[:port], as browsers send them); a request from any
// other origin gets no CORS header, and its browser keeps the answer from its page.
func CORS(origins []string) echo.MiddlewareFunc {
	allowed := make(map[string]bool, len(origins))
	for _, o := range origins {
		allowed[o] = true
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if !underAPI(req.URL.Path) {
				return next(c)
			}
			h := c.Response().Header()
			// The answer differs by origin: a cache must not hand one origin's to another.
			h.Add("Vary", "Origin")
			origin := req.Header.Get("Origin")
			if !allowed[origin] {
				return next(c)
			}
			h.Set("Access-Control-Allow-Origin", origin)
			if req.Method == http.MethodOptions && req.Header.Get("Access-Control-Request-Method") != "" {
				h.Add("Vary", "Access-Control-Request-Method, Access-Control-Request-Headers")
				h.Set("Access-Control-Allow-Methods", corsMethods)
				h.Set("Access-Control-Allow-Headers", corsHeaders)
				h.Set("Access-Control-Max-Age", "600")
				return c.NoContent(http.StatusNoContent)
			}
			// What a script needs beyond the safelisted headers: when to try a login again
			// (429), and why a token was refused (401).
			h.Set("Access-Control-Expose-Headers", "Retry-After, WWW-Authenticate")
			return next(c)
		}
	}
}

// The methods and request headers the API's routes take.
const (
	corsMethods = "GET, HEAD, POST, DELETE"
	corsHeaders = "Authorization, Content-Type"
)

// underAPI reports whether path is one of the API's, both conventions (/apigateway/v2/...,
// /apigateway/...).
func underAPI(path string) bool {
	return path == SecondPrefix || strings.HasPrefix(path, SecondPrefix+"/")
}
