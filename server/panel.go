package server

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/server/api"
	"github.com/fleetgate/fleetgate/web"
)

// mountPanel serves the control panel at / and its browser API under /panel/api, on both
// gateways.
func (s *Server) mountPanel(e *echo.Echo, svc api.Services, opt api.Options) *web.Panel {
	cfg := web.Config{}
	if s.cfg.Panel != nil {
		cfg = *s.cfg.Panel
	}
	cfg.Accounts, cfg.Robots, cfg.Agents = s.gw.AccountService, s.gw.RobotService, s.gw.AgentService
	cfg.Events, cfg.Streams, cfg.Alerts = s.gw.EventService, s.gw.StreamService, s.gw.AlertService
	cfg.Teleop = s.gw.TeleopSettingsService
	cfg.Supervisors = s.gw.SupervisorService
	cfg.Sessions = s.db.Sessions(cfg.Now)
	// A request is encrypted when it came over TLS (--tls-cert; the agent's port answers
	// both schemes), or when TLS ends in front of the gateway (an https --public-url).
	cfg.TLSInFront = strings.HasPrefix(s.cfg.PublicURL, "https://")
	cfg.HTTPSOnSamePort = s.cfg.Mode == ModeAgent
	cfg.KioskFrameAncestors = s.cfg.KioskFrameAncestors
	cfg.TimeZone, cfg.TimeZoneName = s.zone, s.zoneName
	cfg.LiveStreams = s.liveStreams()
	cfg.ThroughCloud = s.cfg.Mode == ModeCloud
	cfg.TLSFingerprint = s.TLSFingerprint
	cfg.Local = s.cfg.Mode == ModeAgent
	cfg.Where = s.where
	cfg.Logger = s.log
	panel := web.New(cfg)
	panel.Register(e)
	api.RegisterMirror(e, svc, opt, web.APIPrefix, web.Caller, panel.APIMiddleware()...)
	return panel
}

// siteZone is the zone --timezone names, or the host's: its IANA name from TZ or the
// /etc/localtime link when there is one ("" otherwise: the browser's clock keeps its own).
func siteZone(name string) (*time.Location, string, error) {
	if name != "" {
		loc, err := time.LoadLocation(name)
		if err != nil {
			return nil, "", fmt.Errorf("--timezone %q is not a time zone (an IANA name such as Europe/Berlin): %w", name, err)
		}
		return loc, name, nil
	}
	if tz := strings.TrimPrefix(os.Getenv("TZ"), ":"); tz != "" {
		if _, err := time.LoadLocation(tz); err == nil {
			return time.Local, tz, nil
		}
	}
	if target, err := os.Readlink("/etc/localtime"); err == nil {
		if _, after, ok := strings.Cut(target, "zoneinfo/"); ok {
			if _, err := time.LoadLocation(after); err == nil {
				return time.Local, after, nil
			}
		}
	}
	return time.Local, "", nil
}

// programPaths are the addresses of programs (the APIs, the agent link, download links):
// an unknown one answers problem+json. Every other address is the panel's, where a person
// typed or followed it.
var programPaths = []string{api.SecondPrefix, web.APIPrefix, "/agentlink",
	strings.TrimSuffix(gateway.FilesPrefix, "/"), "/healthz", "/openapi.json"}

// panelNotFound answers an address that no route knows with the panel's 404 page, outside
// the programs' addresses; every other error goes to apiErrors.
func panelNotFound(apiErrors echo.HTTPErrorHandler, page echo.HandlerFunc) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		path := c.Request().URL.Path
		if !errors.Is(err, echo.ErrNotFound) || c.Response().Committed || slices.ContainsFunc(programPaths, func(prefix string) bool {
			return path == prefix || strings.HasPrefix(path, prefix+"/")
		}) {
			apiErrors(err, c)
			return
		}
		if perr := page(c); perr != nil {
			apiErrors(perr, c)
		}
	}
}

// purgeSessions deletes expired panel sessions and socket tokens (run with the bearer purge).
func (s *Server) purgeSessions(ctx context.Context) {
	if n, err := s.db.Sessions(nil).DeleteExpired(ctx); err != nil && ctx.Err() == nil {
		s.log.Warn("purging expired sessions failed", "err", err)
	} else if n > 0 {
		s.log.Debug("purged expired sessions", "count", n)
	}
}

// where says in the panel's header which gateway this is: the cloud, or a local gateway and
// the cloud it is linked to.
func (s *Server) where() string {
	if s.cfg.Mode == ModeCloud {
		return "Cloud gateway"
	}
	if s.uplink == nil {
		return "Local gateway (not linked to a cloud)"
	}
	first, _, _ := strings.Cut(s.cfg.Cloud, ",") // the cloud's replicas: one name is enough
	host := first
	if u, err := url.Parse(first); err == nil && u.Host != "" {
		host = u.Host
	}
	if s.uplink.Connected() {
		return "Local gateway · linked to " + host
	}
	return "Local gateway · link to " + host + " down"
}
