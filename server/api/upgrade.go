package api

import (
	"net/http"
	"strings"

	"github.com/coder/websocket"
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

// acceptOptions are the options of every API socket: no compression (DESIGN section 9), and
// the panel's protocol selected when offered.
func acceptOptions() *websocket.AcceptOptions {
	return &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled, Subprotocols: []string{socketProtocol}}
}
