// Package web is the control panel: session login (scs), the server-rendered pages, and the
// browser's way into the API (the session-authenticated /panel/api mirror is mounted by the
// API package with this package's Caller; WebSocket tokens are minted here). It reaches data
// only through the core's services, as the interfaces of services.go, with the API's
// permission checks; the gateway as a whole is the composition root's.
package web

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/static"
	"github.com/fleetgate/fleetgate/views"
)

// APIPrefix is where the browser's REST mirror of /apigateway/v2 lives.
const APIPrefix = "/panel/api"

// Config wires a Panel.
type Config struct {
	// The core's services (services.go); the composition root gives the gateway's.
	Accounts Accounts
	Robots   Robots
	Agents   Agents
	Events   Events
	Streams  Streams
	// Alerts are the open alerts and their rules; nil: a panel that shows the derived alerts
	// only (the handler tests' fakes).
	Alerts Alerts
	// Teleop are the robots' thresholds of the speed governor; nil: no form for them.
	Teleop TeleopSettings
	// Supervisors are the fleets' supervisors; nil: only organization admins take over.
	Supervisors Supervisors
	// Sessions keeps the sessions (internal/store's Sessions: hashed tokens in SQLite).
	Sessions scs.CtxStore
	// Now is the clock of the idle and absolute timeouts; time.Now when nil.
	Now func() time.Time
	// TLSInFront: TLS ends at a proxy in front of the gateway (an https --public-url), so
	// every request counts as encrypted. Otherwise a request is encrypted when it came over
	// TLS, request by request (scheme.go).
	TLSInFront bool
	// HTTPSOnSamePort: the gateway's port answers HTTPS too (the local gateway), so a browser
	// asking for a page over plain HTTP by a LAN name is sent there (scheme.go).
	HTTPSOnSamePort bool
	// KioskFrameAncestors is the one origin allowed to frame kiosk pages; empty: none.
	KioskFrameAncestors string
	// TimeZone is the site's zone, of every time the panel shows and the kiosk's clock, with
	// its IANA name for the browser (TimeZoneName; "" when unknown); nil: the host's.
	TimeZone     *time.Location
	TimeZoneName string
	// LiveStreams: this gateway serves W3 (the local gateway; the cloud through the agent
	// link), so pages carry live widgets.
	LiveStreams bool
	// ThroughCloud: live widgets reach robots through the agent link (the cloud), which they say.
	ThroughCloud bool
	// TLSFingerprint gives the local gateway's HTTPS certificate fingerprint for the admin
	// page (nil or "": none).
	TLSFingerprint func() string
	// Local: this is a local gateway (an agent), which provisions no agents.
	Local bool
	// Where says in every page's header which gateway this is (nil: nothing).
	Where func() string
	// IdleTimeout and AbsoluteTimeout end user sessions (defaults 30 min and 12 h); kiosk
	// sessions have neither and live as long as their token.
	IdleTimeout     time.Duration
	AbsoluteTimeout time.Duration
	Logger          *slog.Logger
}

// Panel serves the control panel.
type Panel struct {
	accounts       Accounts
	robots         Robots
	agents         Agents
	events         Events
	streams        Streams
	alerts         Alerts
	teleop         TeleopSettings
	supervisors    Supervisors
	now            func() time.Time
	idle           time.Duration
	absolute       time.Duration
	frameKiosk     string
	live           bool
	viaCloud       bool
	tlsFingerprint func() string
	local          bool
	where          func() string
	log            *slog.Logger

	users  *scs.SessionManager // people: idle and absolute timeouts
	kiosks *scs.SessionManager // kiosk displays: as long as their token
	cop    *http.CrossOriginProtection

	flashes flashes // post/redirect/get: what a form's result page shows once

	tlsInFront      bool // every request counts as encrypted (scheme.go)
	httpsOnSamePort bool // plain-HTTP pages by a LAN name go to HTTPS (scheme.go)
}

// kioskLifetime is the longest a browser keeps a cookie (400 days); the session ends sooner
// when its token is revoked.
const kioskLifetime = 400 * 24 * time.Hour

// New returns a Panel over cfg.
func New(cfg Config) *Panel {
	p := &Panel{accounts: cfg.Accounts, robots: cfg.Robots, agents: cfg.Agents, events: cfg.Events, streams: cfg.Streams, alerts: cfg.Alerts, teleop: cfg.Teleop, supervisors: cfg.Supervisors,
		now: cfg.Now, idle: cfg.IdleTimeout, absolute: cfg.AbsoluteTimeout,
		frameKiosk: cfg.KioskFrameAncestors, live: cfg.LiveStreams, viaCloud: cfg.ThroughCloud, tlsFingerprint: cfg.TLSFingerprint, local: cfg.Local, where: cfg.Where, log: cfg.Logger, cop: http.NewCrossOriginProtection(),
		tlsInFront: cfg.TLSInFront, httpsOnSamePort: cfg.HTTPSOnSamePort}
	if p.now == nil {
		p.now = time.Now
	}
	views.SetTimeZone(cfg.TimeZone, cfg.TimeZoneName)
	if p.idle <= 0 {
		p.idle = 30 * time.Minute
	}
	if p.absolute <= 0 {
		p.absolute = 12 * time.Hour
	}
	if p.log == nil {
		p.log = slog.Default()
	}
	p.users = newManager(cfg, "fleetgate_session", p.absolute, false)
	p.kiosks = newManager(cfg, "fleetgate_kiosk", kioskLifetime, true)
	return p
}

func newManager(cfg Config, name string, lifetime time.Duration, persist bool) *scs.SessionManager {
	sm := scs.New()
	sm.Store = cfg.Sessions
	// The idle timeout is ours (see session.go): scs's would rewrite the session on every
	// request and reads the wall clock, which tests cannot move.
	sm.IdleTimeout = 0
	sm.Lifetime = lifetime
	// The cookie's name is the plain-HTTP one; saveSessions writes it with this request's
	// name and Secure flag (scheme.go), and the others as here.
	sm.Cookie.Name = name
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Path = "/"
	sm.Cookie.Persist = persist
	return sm
}

// Register mounts the pages on e. Every route states its own middleware: an echo group
// with middleware at "/" would catch every unmatched path of the API too.
func (p *Panel) Register(e *echo.Echo) {
	e.Pre(headAsGet)
	e.GET(static.Prefix+"*", echo.WrapHandler(static.Handler()))
	// Browsers ask for /favicon.ico whatever the page says.
	e.GET("/favicon.ico", func(c echo.Context) error {
		return c.Redirect(http.StatusMovedPermanently, static.Path("img/favicon.svg"))
	})

	page := []echo.MiddlewareFunc{p.toHTTPS, p.pageHeaders(false), p.crossOrigin, p.loadSessions}
	user := append(page[:len(page):len(page)], p.requireUser)
	kiosk := []echo.MiddlewareFunc{p.toHTTPS, p.pageHeaders(true), p.crossOrigin, p.loadSessions, p.requireKioskOrUser}

	e.GET("/login", p.handle(p.loginPage), page...)
	e.POST("/login", p.handle(p.login), page...)
	e.POST("/logout", p.handle(p.logout), page...)
	e.GET("/password", p.handle(p.passwordPage), user...)
	e.POST("/password", p.handle(p.setPassword), user...)

	e.GET("/", p.handle(p.robotsPage), user...)
	e.GET("/fragments/robots", p.handle(p.robotsFragment), user...)
	e.GET("/fleet", p.handle(p.fleetPage), user...)
	e.GET("/events", p.handle(p.allEventsPage), user...)
	e.GET("/recordings", p.handle(p.fleetRecordingsPage), user...)
	e.GET("/recordings/download", p.handle(p.downloadRecordings), user...)
	e.GET("/fleet/fragment", p.handle(p.fleetFragment), user...)
	p.mountRobotPage(e, user...)
	e.GET("/robots/:robotId/streams", p.handle(p.streamsPage), user...)
	e.GET("/robots/:robotId/streams/value", p.handle(p.streamValue), user...)
	e.POST("/robots/:robotId/streams/upload", p.handle(p.uploadStream), user...)
	e.GET("/robots/:robotId/metrics", p.handle(p.metricsPage), user...)
	e.GET("/robots/:robotId/metrics/fragment", p.handle(p.metricsFragment), user...)
	e.GET("/robots/:robotId/resources", p.handle(p.resourcesPage), user...)
	e.GET("/robots/:robotId/resources/:resourceId/download", p.handle(p.download), user...)
	e.GET("/robots/:robotId/events", p.handle(p.eventsPage), user...)
	e.POST("/robots/:robotId/events", p.handle(p.postEvent), user...)
	p.registerRecordings(e, user)

	e.GET("/settings", p.handle(p.settingsPage), user...)
	e.POST("/settings/tokens", p.handle(p.createToken), user...)
	e.POST("/settings/tokens/:tokenId/revoke", p.handle(p.revokeToken), user...)

	e.GET("/admin", p.handle(p.adminPage), user...)
	e.POST("/admin/users", p.handle(p.createUser), user...)
	e.POST("/admin/users/:userId/:action", p.handle(p.userAction), user...)
	e.POST("/admin/robots/remove-stale", p.handle(p.removeStaleRobots), user...)
	e.POST("/admin/robots/:robotId/:action", p.handle(p.robotAction), user...)
	e.POST("/admin/agents", p.handle(p.provisionAgent), user...)
	e.POST("/admin/agents/:agentId/revoke", p.handle(p.revokeAgent), user...)
	e.POST("/admin/kiosk-tokens", p.handle(p.createKioskToken), user...)
	e.POST("/admin/kiosk-tokens/:tokenId/revoke", p.handle(p.revokeKioskToken), user...)
	e.POST("/admin/supervisors", p.handle(p.grantSupervisor), user...)
	e.POST("/admin/supervisors/revoke", p.handle(p.revokeSupervisor), user...)
	p.registerAlerts(e, user...)

	p.formPages(e, user)
	e.GET("/logout", func(c echo.Context) error { return c.Redirect(http.StatusSeeOther, "/") }, user...)

	e.GET("/kiosk/:fleetId", p.handle(p.kioskPage), kiosk...)
	e.GET("/kiosk/:fleetId/fragment", p.handle(p.kioskFragment), kiosk...)

	api := p.APIMiddleware()
	e.POST("/panel/ws-token", p.wsToken, api...)
}

// NotFound answers an address that no route knows with the panel's 404 page. The
// composition root calls it for every such address outside the API's (whose answer stays a
// problem+json). It is no route: a catch-all route would turn every 405 into a 404.
func (p *Panel) NotFound(c echo.Context) error {
	return p.toHTTPS(p.pageHeaders(false)(p.handle(func(echo.Context) error {
		return fleetgate.Errorf(fleetgate.ENotFound, "there is no page at this address: check it, or start again from the robots")
	})))(c)
}

// headAsGet answers HEAD of a page as its GET (net/http drops the body of a HEAD answer):
// link checkers and monitors ask HEAD /. The API's routes keep their own methods.
func headAsGet(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Method == http.MethodHead && !strings.HasPrefix(r.URL.Path, "/apigateway/") && !strings.HasPrefix(r.URL.Path, APIPrefix+"/") {
			// Routed as the GET, and its body dropped here: net/http now sees a GET, and a body
			// sent to a HEAD would be read by nobody, spoiling the connection's next answer.
			r.Method = http.MethodGet
			c.Response().Writer = bodyless{c.Response().Writer}
		}
		return next(c)
	}
}

// bodyless answers headers and status, and drops the body.
type bodyless struct{ http.ResponseWriter }

func (b bodyless) Write(p []byte) (int, error) { return len(p), nil }

func (b bodyless) Unwrap() http.ResponseWriter { return b.ResponseWriter }

// APIMiddleware is what every browser API route (/panel/api/..., /panel/ws-token) runs
// before its handler: API security headers, cross-origin refusal of unsafe methods, the
// sessions, and a caller from them (401 problem+json without one).
func (p *Panel) APIMiddleware() []echo.MiddlewareFunc {
	return []echo.MiddlewareFunc{p.apiHeaders, p.crossOrigin, p.loadSessions, p.requireAPICaller}
}
