package api

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// The panel's sockets carry their one-use token in the Sec-WebSocket-Protocol header rather
// than in the URL: a browser writes the URL of a refused upgrade to its console, and proxies
// log URLs. The client offers two protocols, socketProtocol and tokenProtocolPrefix+token;
// the server answers with socketProtocol, so the token is never echoed. Scripts keep the
// contract's access_token query parameter or the authorization header.
const (
	socketProtocol      = "fleetgate"
	tokenProtocolPrefix = "fleetgate.token."
)

// protocolToken is the token offered as a WebSocket subprotocol, or "".
func protocolToken(req *http.Request) string {
	for _, header := range req.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(header, ",") {
			if token, ok := strings.CutPrefix(strings.TrimSpace(p), tokenProtocolPrefix); ok {
				return token
			}
		}
	}
	return ""
}

// acceptOptions are the options of every API socket: no compression (DESIGN section 9), the
// panel's protocol selected when offered, and no origin check of the library's: ours
// (checkSocketOrigin) ran before, and answers a problem document rather than text.
func acceptOptions() *websocket.AcceptOptions {
	return &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled, Subprotocols: []string{socketProtocol},
		InsecureSkipVerify: true}
}

// checkSocketOrigin decides whether a page of another origin may open this socket. The
// contract's browser clients authenticate with an explicit token (access_token, a bearer
// header), which another site's page cannot hold unless it was given one: a dashboard on
// another origin may connect with it. The panel's one-use socket tokens stand for a session
// cookie, and are accepted only from the panel's own pages (Origin absent, or this host).
func checkSocketOrigin(req *http.Request, bearer string) error {
	if !gateway.IsSocketToken(bearer) {
		return nil
	}
	origin := req.Header.Get("Origin")
	if origin == "" {
		return nil // not a browser page
	}
	u, err := url.Parse(origin)
	if err == nil && strings.EqualFold(u.Host, req.Host) {
		return nil
	}
	return fleetgate.Errorf(fleetgate.EForbidden, "a panel socket token opens sockets from the panel's own pages only, not from %s", origin)
}
