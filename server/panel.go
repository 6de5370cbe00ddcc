package server

import (
	"context"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate/server/api"
	"github.com/fleetgate/fleetgate/web"
)

// mountPanel serves the control panel at / and its browser API under /panel/api, on both
// gateways.
func (s *Server) mountPanel(e *echo.Echo, opt api.Options) {
	cfg := web.Config{}
	if s.cfg.Panel != nil {
		cfg = *s.cfg.Panel
	}
	cfg.Gateway = s.gw
	cfg.Sessions = s.db.Sessions(cfg.Now)
	cfg.Secure = s.cfg.TLSCert != "" || strings.HasPrefix(s.cfg.PublicURL, "https://")
	cfg.KioskFrameAncestors = s.cfg.KioskFrameAncestors
	cfg.LiveStreams = s.liveStreams()
	cfg.ThroughCloud = s.cfg.Mode == ModeCloud
	cfg.TLSFingerprint = s.TLSFingerprint
	cfg.Logger = s.log
	panel := web.New(cfg)
	panel.Register(e)
	api.RegisterMirror(e, s.gw, opt, web.APIPrefix, web.Caller, panel.APIMiddleware()...)
}

// purgeSessions deletes expired panel sessions and socket tokens (run with the bearer purge).
func (s *Server) purgeSessions(ctx context.Context) {
	if n, err := s.db.Sessions(nil).DeleteExpired(ctx); err != nil && ctx.Err() == nil {
		s.log.Warn("purging expired sessions failed", "err", err)
	} else if n > 0 {
		s.log.Debug("purged expired sessions", "count", n)
	}
}
