package web

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

type wsTokenResponse struct {
	AccessToken string    `json:"accessToken"`
	ExpiresAt   time.Time `json:"expiresAt"`
}

// wsToken mints a socket token for the browser's next WebSocket: usable once, within 60 s,
// as access_token on W1, W2 and W3; the socket then lives as long as this session.
func (p *Panel) wsToken(c echo.Context) error {
	ctx, caller := c.Request().Context(), Caller(c)
	token, expires, err := p.accounts.MintSocketToken(ctx, caller, p.sessionHash(ctx))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, wsTokenResponse{AccessToken: token, ExpiresAt: expires.UTC()})
}
